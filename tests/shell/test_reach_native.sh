#!/bin/sh
# test_reach_native.sh - the roots ART keeps in native memory, on the whole-process captures.
# For every -full capture of realart14 (ART 14), realart-full (ART 11) and realart10 (ART 10):
# `carve --maps`, then `validate --json` of its heap.hprof against the capture's own HPROF:
#   - unreachable recall stays 1 (.reach.unreachable_recall; null only when the truth has no
#     unreachable object);
#   - false unreachable (objects the carver calls unreachable that a runtime root reaches) at
#     or below the figure reached when the native roots were added (0 on every capture; 17
#     to 81 before: vm_internal and interned_string roots missing), with the per-root-kind
#     breakdown printed;
#   - no reachable claim for an object the truth calls unreachable
#     (.reach.unreachable_called_reachable 0: a native root never makes a dropped object live);
#   - every reachable String names what holds it (an object, a root, a DexCache's native array:
#     `strings --json` referrers or held_by), and no object is of reachability unknown;
#   - the summary's roots section lists the native sources as present: vm internal,
#     interned strings, dex cache strings, and on ART 14 jni globals (JavaVMExt::globals_) and
#     jni locals (each thread's jni::LocalReferenceTable).
. "$(dirname "$0")/lib.sh"
t_need zstd jq || { t_done; exit; }

# capture-folder limit: the false unreachable figure each capture must not exceed
LIMITS="realart14/cc-nodes-nogc-full 0
realart14/cmc-collections-full 0
realart-full/cc-nodes-nogc-full 0
realart-full/cms-collections-full 0
realart10/cc-nodes-nogc-full 0
realart10/cms-collections-full 0"

echo "$LIMITS" >"$TMP/todo"

printf '%-34s %6s %6s %8s %s\n' capture false limit recall "false unreachable by root kind" >"$TMP/table"
while read -r cap limit; do
	dir=$CORPUS/images/$cap
	t_corpus "$dir/core.zst" || continue
	w=$TMP/$(echo "$cap" | tr / _)
	mkdir -p "$w"
	if ! zstd -q -d "$dir/core.zst" -o "$w/core" </dev/null; then
		t_fail "$cap: cannot decompress"; continue
	fi
	if ! "$ART" carve "$w/core" --maps "$dir/maps.txt" -o "$w/out" --skip bmd,report,db,jsonl,strings \
		>"$w/summary" 2>"$w/err" </dev/null; then
		t_fail "$cap: carve failed: $(head -n 1 "$w/err")"; rm -f "$w/core"; continue
	fi
	# every reachable String says what holds it: an object, a root or a DexCache's native
	# array (strings --json: referrers, else held_by); and nothing is unknown
	if "$ART" strings --json --no-residue "$w/core" --maps "$dir/maps.txt" >"$w/strings.json" 2>"$w/serr" </dev/null; then
		held=$(jq '[.[] | select(.reach == "reachable")] | length' "$w/strings.json")
		bare=$(jq '[.[] | select(.reach == "reachable" and .referrer_count == 0 and ((.held_by // "held by nothing") | startswith("held by nothing")))] | length' "$w/strings.json")
		kinds=$(jq -r '[.[] | select(.referrer_count == 0) | .held_by // "none" | sub(" at 0x[0-9a-f]+"; "") | sub("@0x[0-9a-f]+"; "") | sub("strings\\[[0-9]+\\]"; "strings[i]")] | group_by(.) | map("\(.[0]): \(length)") | join("; ")' "$w/strings.json")
		echo "# $cap: Strings without a holding object: $kinds"
		t_check "$cap: all $held reachable Strings name a holder ($bare held by nothing)" [ "$bare" = 0 ]
	else
		t_fail "$cap: strings failed: $(head -n 1 "$w/serr")"
	fi
	t_check "$cap: nothing of reachability unknown (every root source present)" \
		[ -z "$(grep '^unknown (' "$w/summary")" ]
	rm -f "$w/core"
	if ! "$ART" validate --json "$w/out/heap.hprof" "$dir/heap.hprof.zst" >"$w/v.json" 2>"$w/verr" </dev/null; then
		t_fail "$cap: validate failed: $(head -n 1 "$w/verr")"; continue
	fi
	fu=$(jq '.reach.false_unreachable' "$w/v.json")
	recall=$(jq '.reach.unreachable_recall' "$w/v.json")
	tu=$(jq '.reach.truth_unreachable' "$w/v.json")
	ucr=$(jq '.reach.unreachable_called_reachable' "$w/v.json")
	by=$(jq -r '[.reach.false_unreachable_by_root | to_entries[] | select(.value > 0) | "\(.key)=\(.value)"] | join(" ")' "$w/v.json")
	printf '%-34s %6s %6s %8s %s\n' "$cap" "$fu" "$limit" "$recall" "${by:--}" >>"$TMP/table"
	echo "# $cap: false unreachable $fu (limit $limit) by root kind: ${by:-none}; recall $recall; truth unreachable $tu"
	if [ "$recall" = 1 ] || { [ "$recall" = null ] && [ "$tu" = 0 ]; }; then
		t_ok "$cap: unreachable recall $recall"
	else
		t_fail "$cap: unreachable recall $recall (truth unreachable $tu)"
	fi
	if [ "$fu" != null ] && [ "$fu" -le "$limit" ]; then
		t_ok "$cap: false unreachable $fu <= $limit"
	else
		t_fail "$cap: false unreachable $fu > $limit ($by)"
	fi
	t_check "$cap: no truth-unreachable object called reachable ($ucr)" [ "$ucr" = 0 ]
	sed -n '/^roots/,/^evidence/p' "$w/summary" | sed 's/^/#   /'
	want="vm internal|interned strings|dex cache strings"
	case $cap in realart14/*) want="$want|jni globals|jni locals" ;; esac
	echo "$want" | tr '|' '\n' | while read -r src; do
		if grep -Eq "^  $src +present +[1-9]" "$w/summary"; then echo "ok $src"; else echo "missing $src"; fi
	done >"$w/sources"
	while read -r state src; do
		if [ "$state" = ok ]; then t_ok "$cap: roots section lists $src present"
		else t_fail "$cap: roots section does not list $src present: $(grep "^  $src" "$w/summary")"; fi
	done <"$w/sources"
done <"$TMP/todo"
cat "$TMP/table"
t_done

#!/bin/sh
# test_carve.sh - `artcarve carve` on every real ART capture (../shared/corpus/images/realart
# and realart-full: ART 11; realart10: ART 10; realart14: ART 14) and on the embedded samples:
#   - carve exits 0 and writes DIR/heap.hprof; its summary (--json) adds up (objects per
#     state = objects; reachable + unreachable + unknown = objects);
#   - VisualVM's heap library (an independent reader) loads heap.hprof with the class and
#     instance counts carve reports (instances + arrays + string character arrays + mark
#     arrays; classes + the five mark classes);
#   - the same input gives byte-identical output, and --android writes a 1.0.3 file that
#     hprof-info reads with HEAP_DUMP_INFO records and VisualVM loads with carve's counts;
#   - on the -nogc captures, the dropped Nodes$Node objects (40000 per truth.json) are
#     reported unreachable, none of the kept ones;
#   - `artcarve validate` against the runtime's own HPROF of the same moment: recall and
#     precision of objects >= 99.99% (objects past the walk gap of an ART 14 mark-compact
#     heap, which ART's HPROF does not list, counted apart as beyond_walk), every class's count equal, 100% agreement of primitive,
#     reference and static fields and array elements of matched objects, every String's
#     text; >= 99.9% of the objects no HPROF root reaches reported unreachable; at most 25
#     objects called unreachable that a root reaches on a trimmed core (no stacks, no
#     libart: what Java frames and strings interned at run time hold) and 5 on a -full core,
#     and where the claims are many (-nogc) under 0.3% / 0.05% of them; reachability
#     unknown (a DEX literal or a runtime object whose root the trimmed core lacks) for
#     at most 1% of the objects of a -full core, which holds every root source (the count
#     per reason printed for every capture);
#   - on a synthetic image of every family x bitness (build/synth, 5.0-16, 32/64-bit, and
#     the mark-compact heap of 14, 15 and 16, and 15 and 16 with 16 KiB pages),
#     validate against truth.jsonl: 100% recall and precision of the allocated objects, the
#     same states (allocation, content, reachability), fields and strings.
# A summary table (capture, recall, precision, fields, unreachable recall, false unreachable,
# ms) ends the log.
. "$(dirname "$0")/lib.sh"
REAL=$CORPUS/images/realart
FULL=$CORPUS/images/realart-full
R10=$CORPUS/images/realart10
R14=$CORPUS/images/realart14
if ! command -v zstd >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1; then
	t_fail "zstd and jq are needed (make deps)"; t_done; exit
fi
t_corpus "$REAL" && t_corpus "$FULL" && t_corpus "$R10" && t_corpus "$R14" || { t_done; exit; }
. tests/shell/visualvm_lib.sh

summary=$TMP/summary
printf '%-24s %9s %9s %9s %7s %9s %11s %9s %8s\n' capture objects recall precision beyond fields unreach_rec false_unr ms >"$summary"

# check_validate NAME VALIDATE_JSON MIN_RATIO STRINGS: objects, classes, fields, strings
# (STRINGS all: every truth String's text carved; compared: every text both files give agrees,
# for a synthetic truth whose dropped Strings may have lost their freed char[] in 5.x)
check_validate() {
	if jq -e --argjson min "$3" '.objects.recall >= $min and .objects.precision >= $min' "$2" >/dev/null; then
		t_ok "$1: recall $(jq .objects.recall "$2"), precision $(jq .objects.precision "$2") ($(jq .objects.matched "$2") of $(jq .objects.truth "$2") matched)"
	else
		t_fail "$1: recall $(jq .objects.recall "$2"), precision $(jq .objects.precision "$2"): missed $(jq -c .missed_examples "$2" | cut -c1-300) invented $(jq -c .invented_examples "$2" | cut -c1-300)"
	fi
	if jq -e '.classes_differing == 0' "$2" >/dev/null; then t_ok "$1: every class's count equals the truth's"
	else t_fail "$1: $(jq .classes_differing "$2") classes with other counts: $(jq -c '[.classes[] | select(.counts.truth != .counts.result - (.counts.beyond_walk // 0))][:5]' "$2")"; fi
	if [ "$4" = all ]; then strings='.strings.equal == .strings.truth'; else strings='.strings.equal == .strings.compared'; fi
	if jq -e '[.fields | .primitive, .reference, .static, .arrays, .elements | .equal == .compared] | all' "$2" >/dev/null &&
		jq -e "$strings" "$2" >/dev/null; then
		t_ok "$1: fields 100% ($(jq .fields.primitive.compared "$2") primitive, $(jq .fields.reference.compared "$2") reference, $(jq .fields.static.compared "$2") static), $(jq .strings.equal "$2") of $(jq .strings.truth "$2") strings the same"
	else
		t_fail "$1: fields $(jq -c '.fields | {primitive, reference, static, arrays, elements}' "$2"), strings $(jq -c '.strings | {truth, equal}' "$2"): $(jq -c .fields.disagreeing "$2" | cut -c1-300)"
	fi
}

# check_reach NAME VALIDATE_JSON CARVE_JSON MAX_FALSE MAX_FALSE_SHARE MAX_UNKNOWN_SHARE: unreachable
# recall >= 99.9%; at most MAX_FALSE objects called unreachable that a runtime root reaches,
# and (where the claims are many: a capture without a GC before it) at most MAX_FALSE_SHARE of
# the claims; objects of reachability unknown at most MAX_UNKNOWN_SHARE of the objects
check_reach() {
	if jq -e --argjson max "$4" --argjson share "$5" '(.reach.unreachable_recall // 1) >= 0.999 and
		.reach.false_unreachable <= $max and
		(.reach.result_unreachable < 1000 or .reach.false_unreachable <= $share * .reach.result_unreachable)' "$2" >/dev/null &&
		jq -e --argjson u "$6" '.states.unknown <= $u * .objects' "$3" >/dev/null; then
		t_ok "$1: unreachable recall $(jq .reach.unreachable_recall "$2"), $(jq .reach.false_unreachable "$2") of $(jq .reach.result_unreachable "$2") unreachable claims reached by a root ($(jq -c '.reach.false_unreachable_by_root | with_entries(select(.value > 0))' "$2")), unknown $(jq -c '.unknown_reasons | with_entries(select(.value > 0))' "$3")"
	else
		t_fail "$1: unreachable recall $(jq .reach.unreachable_recall "$2"), false unreachable $(jq .reach.false_unreachable "$2") of $(jq .reach.result_unreachable "$2") ($(jq -c '.reach.false_unreachable_by_root | with_entries(select(.value > 0))' "$2")), unknown $(jq .states.unknown "$3") of $(jq .objects "$3")"
	fi
}

# check_summary NAME JSON: the state counts add up
check_summary() {
	if jq -e '(.states.allocated + .states.free == .objects) and
		  (.states.intact + .states.partial + .states.residue == .objects) and
		  (.states.reachable + .states.unreachable + .states.unknown == .objects) and
		  (.objects > 0) and (.output.bytes > 0)' "$2" >/dev/null; then
		t_ok "$1: $(jq .objects "$2") objects, states add up"
	else
		t_fail "$1: summary does not add up: $(jq -c .states "$2")"
	fi
}

# check_nodes NAME HPROF DIR: dropped nodes unreachable, kept ones reachable (nodes-nogc)
check_nodes() {
	want=$(jq '.classes["Nodes$Node"].unreachable' "$3/truth.json")
	got=$(jq '[.dropped.top_classes[] | select(.class == "Nodes$Node") | .objects] | add // 0' "$4")
	if [ "$got" = "$want" ]; then t_ok "$1: $got dropped Nodes\$Node reported unreachable, as truth.json"
	else t_fail "$1: $got Nodes\$Node unreachable, truth.json says $want"; fi
}

for dir in "$REAL"/*/ "$FULL"/*/ "$R10"/*/ "$R14"/*/; do
	cap=$(basename "$dir")
	case $dir in "$R10"/*) cap=10-$cap ;; "$R14"/*) cap=14-$cap ;; esac
	[ -f "$dir/core.zst" ] || continue
	w=$TMP/$cap
	mkdir -p "$w"
	if ! zstd -q -d "$dir/core.zst" -o "$w/core"; then t_fail "$cap: cannot decompress"; continue; fi
	if ! "$ART" carve --json "$w/core" --maps "$dir/maps.txt" -o "$w/out" >"$w/carve.json" 2>"$w/carve.err"; then
		t_fail "$cap: carve failed: $(head -n 3 "$w/carve.err")"; rm -f "$w/core"; continue
	fi
	check_summary "$cap" "$w/carve.json"
	check_visualvm "$cap" "$w/out/heap.hprof" "$w/carve.json"
	case $cap in *nogc*) check_nodes "$cap" "$w/out/heap.hprof" "$dir" "$w/carve.json" ;; esac
	if "$ART" validate --json "$w/out/heap.hprof" "$dir/heap.hprof.zst" >"$w/validate.json" 2>"$w/validate.err"; then
		check_validate "$cap" "$w/validate.json" 0.9999 all
		case $cap in *-full) check_reach "$cap" "$w/validate.json" "$w/carve.json" 5 0.0005 0.01 ;;
		*) check_reach "$cap" "$w/validate.json" "$w/carve.json" 25 0.003 1 ;; esac
	else
		t_fail "$cap: validate failed: $(head -n 2 "$w/validate.err")"
	fi
	case $cap in cc-collections|cms-collections|14-cmc-collections)
		"$ART" carve "$w/core" --maps "$dir/maps.txt" -o "$w/again" >/dev/null 2>&1
		t_same "$cap: second run" "$w/again/heap.hprof" "$w/out/heap.hprof"
		if "$ART" carve --json --android "$w/core" --maps "$dir/maps.txt" -o "$w/android" >"$w/android.json" 2>"$w/android.err" &&
			"$ART" hprof-info "$w/android/heap.hprof" >"$w/android.info" 2>&1 &&
			grep -q '^version: JAVA PROFILE 1.0.3' "$w/android.info" &&
			grep -q 'HEAP_DUMP_INFO' "$w/android.info"; then
			t_ok "$cap: --android writes a 1.0.3 file with HEAP_DUMP_INFO that hprof-info reads"
			check_visualvm "$cap --android" "$w/android/heap.hprof" "$w/android.json"
		else
			t_fail "$cap: --android: $(tail -n 2 "$w/android.err" "$w/android.info" 2>/dev/null)"
		fi ;;
	esac
	printf '%-24s %9s %9s %9s %7s %9s %11s %9s %8s\n' "$cap" "$(jq .objects "$w/carve.json")" \
		"$(jq .objects.recall "$w/validate.json" 2>/dev/null)" "$(jq .objects.precision "$w/validate.json" 2>/dev/null)" \
		"$(jq .beyond_walk "$w/validate.json" 2>/dev/null)" \
		"$(jq .fields.objects.agreement "$w/validate.json" 2>/dev/null)" "$(jq .reach.unreachable_recall "$w/validate.json" 2>/dev/null)" \
		"$(jq .reach.false_unreachable "$w/validate.json" 2>/dev/null)" "$(jq .time.ms "$w/carve.json")" >>"$summary"
	rm -rf "$w/core" "$w/again" "$w/android"
done

# the embedded samples (synthetic images, every family the samples hold)
for s in samples/*/; do
	n=$(basename "$s")
	[ -f "$s/core" ] || continue
	if "$ART" carve --json "$s/core" --maps "$s/maps" -o "$TMP/$n" >"$TMP/$n.json" 2>"$TMP/$n.err"; then
		check_summary "sample $n" "$TMP/$n.json"
		check_visualvm "sample $n" "$TMP/$n/heap.hprof" "$TMP/$n.json"
	else
		t_fail "sample $n: carve failed: $(head -n 3 "$TMP/$n.err")"
	fi
done
# --skip: a skipped output is not written, an unknown name is a usage error (exit 2) that
# writes nothing
s=samples/android11-64bit
if "$ART" carve "$s/core" --maps "$s/maps" --skip hprof -o "$TMP/skip" >"$TMP/skip.out" 2>&1 &&
	[ ! -e "$TMP/skip/heap.hprof" ]; then t_ok "--skip hprof: carve runs and writes no heap.hprof"
else t_fail "--skip hprof: $(ls "$TMP/skip" 2>&1 | head -n 3) $(tail -n 2 "$TMP/skip.out")"; fi
"$ART" carve "$s/core" --maps "$s/maps" --skip hprof,nosuch -o "$TMP/skip2" >/dev/null 2>"$TMP/skip2.err"
rc=$?
if [ $rc -eq 2 ] && [ ! -e "$TMP/skip2" ] && grep -q "not 'nosuch'" "$TMP/skip2.err"; then
	t_ok "--skip nosuch: usage error naming it, exit 2, no output directory"
else t_fail "--skip nosuch: exit $rc, $(cat "$TMP/skip2.err")"; fi
# every family x bitness the generator makes
for vh in 5.0 5.1 6.0 7.0 7.1 8.0 8.1 9 10 11 12 13 14-oat230 14 15 16 14-oat230:cmc 14:cmc 15:cmc 15::16k 15:cmc:16k 16:cmc 16::16k 16:cmc:16k; do
	# V[:HEAP[:PAGE]]: the family, its heap (cmc: the mark-compact one of 14+), 16k pages (15+, 64-bit)
	v=${vh%%:*}; heap=$(echo "$vh:" | cut -d: -f2); page=$(echo "$vh::" | cut -d: -f3)
	bl="32 64"; [ -z "$page" ] || bl=64
	for b in $bl; do
		d=$TMP/synth-$v-$b
		if ! build/synth --version $v ${heap:+--heap $heap} ${page:+--page $page} --bits $b --seed 1 --size small --out "$d" >/dev/null 2>&1 ||
			! "$ART" carve --json "$d/core" --maps "$d/maps" -o "$d/out" >"$d/carve.json" 2>"$d/err"; then
			t_fail "synth $vh/$b: generation or carve failed: $(head -n 2 "$d/err" 2>/dev/null)"; continue
		fi
		if ! "$ART" validate --json "$d/out/heap.hprof" "$d/truth.jsonl" >"$d/validate.json" 2>"$d/err"; then
			t_fail "synth $vh/$b: validate failed: $(head -n 2 "$d/err")"; continue
		fi
		check_validate "synth $vh/$b" "$d/validate.json" 1 compared
		if jq -e '[.states[][] | select(.matched > 0) | .same == .matched and .result_right == .result] | all' \
			"$d/validate.json" >/dev/null && jq -e '.reach.false_unreachable == 0 and .reach.unreachable_recall == 1' \
			"$d/validate.json" >/dev/null; then
			t_ok "synth $vh/$b: states agree (allocation, content, reachability: $(jq .reach.result_unreachable "$d/validate.json") unreachable)"
		else
			t_fail "synth $vh/$b: states differ: $(jq -c .states "$d/validate.json" | cut -c1-400)"
		fi
		# CMC below 4 GiB: the from-space holds the heap before the last compaction; what it
		# dropped is carved as residue (--include residue), copies of survivors are not
		if [ "$heap" = cmc ] && [ "$b" = 32 ]; then
			if "$ART" carve "$d/core" --maps "$d/maps" --include residue -q -o "$d/res" >/dev/null 2>"$d/err" &&
				"$ART" validate --json "$d/res/heap.hprof" "$d/truth.jsonl" >"$d/res.json" 2>>"$d/err" &&
				jq -e '.states.content.residue as $r | $r.truth > 0 and $r.matched == $r.truth and
					$r.same == $r.matched and $r.result == $r.result_right and .invented == 0' \
					"$d/res.json" >/dev/null; then
				t_ok "synth $vh/$b: from-space residue: $(jq -r '.states.content.residue | "truth \(.truth), carved \(.result), right \(.result_right)"' "$d/res.json")"
			else
				t_fail "synth $vh/$b: from-space residue: $(jq -c '.states.content.residue, .invented' "$d/res.json" 2>/dev/null) $(head -n 2 "$d/err")"
			fi
		fi
		rm -rf "$d"
	done
done
cat "$summary"
t_done

#!/bin/sh
# test_realart14_walk_gap.sh - the bump-pointer walk gap of the realart14 captures (README.md,
# "Objects past the walk gap"): after a mark-compact compaction ART 14's own HPROF stops at the
# zero gap before post_compact_end, so the live objects from there to the space's end are in
# the core but not in the truth.  For every trimmed capture whose truth.json gives a non-empty
# mark_compact.hprof_walk_gap: `walk` prints the gap (its end post_compact_end, its top
# space_end, its start after the truth's last object before it), heap.hprof holds one
# artcarve.mark.WalkGap, and `validate` counts as beyond_walk exactly the carved objects in
# [post_compact_end, space_end) (objects.jsonl), with invented 0 and recall = precision = 1.
# Every other capture: no gap, beyond_walk 0.  truth.json is read here only, never by the tool.
. "$(dirname "$0")/lib.sh"
t_need jq zstd || { t_done; exit; }
R14=$CORPUS/images/realart14
t_corpus "$R14" || { t_done; exit; }

n=0
for dir in "$R14"/*/; do
	c=$(basename "$dir")
	[ -f "$dir/truth.json" ] || continue
	if [ "$(jq -r '.keep // "trimmed"' "$dir/truth.json")" != trimmed ]; then
		echo "# $c: a full-process core, left out (trimmed cores only)"
		continue
	fi
	n=$((n + 1))
	d=$TMP/$c
	mkdir -p "$d"
	zstd -q -dc "$dir/core.zst" >"$d/core" && zstd -q -dc "$dir/heap.hprof.zst" >"$d/truth.hprof" ||
		{ t_fail "$c: cannot decompress"; continue; }
	"$ART" carve --json "$d/core" --maps "$dir/maps.txt" -q -o "$d/out" --skip bmd,report,db,strings \
		>"$d/carve.json" 2>"$d/err" || { t_fail "$c: carve failed: $(head -c 300 "$d/err")"; continue; }
	"$ART" validate --json "$d/out/heap.hprof" "$d/truth.hprof" >"$d/v.json" 2>"$d/err" ||
		{ t_fail "$c: validate failed: $(head -c 300 "$d/err")"; continue; }
	got=$(jq -r '[.beyond_walk, .invented, .objects.recall, .objects.precision] | map(tostring) | join(" ")' "$d/v.json")
	wgap=$(jq -r '.output.walk_gaps // 0' "$d/carve.json")
	line=$("$ART" walk "$d/core" --maps "$dir/maps.txt" | grep ' contiguous ' | grep -o 'walk_gap=.*')
	pce=$(jq -r '.mark_compact.hprof_walk_gap.post_compact_end // empty' "$dir/truth.json")
	nw=$(jq -r '.mark_compact.hprof_walk_gap.bytes_not_walked // 0' "$dir/truth.json")
	if [ -z "$pce" ] || [ "$nw" = 0 ]; then
		echo "# $c: no walk gap in truth.json; validate: beyond_walk invented recall precision = $got"
		[ "$got" = "0 0 1 1" ] && [ "$wgap" = 0 ] && [ -z "$line" ] &&
			t_ok "$c: no gap recorded, beyond_walk 0, invented 0, recall = precision = 1" ||
			t_fail "$c: beyond_walk invented recall precision '$got' (want 0 0 1 1), WalkGap records $wgap, walk '$line'"
		rm -rf "$d"
		continue
	fi
	send=$(jq -r '.mark_compact.hprof_walk_gap.space_end' "$dir/truth.json")
	last=$(jq -r '.mark_compact.hprof_walk_gap.last_hprof_object_before_it' "$dir/truth.json")
	inside=$(jq -r '.mark_compact.hprof_walk_gap.hprof_objects_at_or_after_post_compact_end' "$dir/truth.json")
	# carved allocated objects in [post_compact_end, space_end): none of them is in the truth
	want=$(jq -r --argjson lo "$((pce))" --argjson hi "$((send))" \
		'select(.alloc == "allocated" and (.address | ltrimstr("0x") | explode |
			reduce .[] as $c (0; . * 16 + (if $c >= 97 then $c - 87 else $c - 48 end))) as $a |
			$a >= $lo and $a < $hi) | .address' "$d/out/objects.jsonl" | wc -l)
	echo "# $c: truth.json gap [$pce, $send) after $last ($inside truth objects there); carved objects there: $want"
	echo "# $c: walk $line; heap.hprof WalkGap records $wgap; validate: beyond_walk invented recall precision = $got"
	gs=$(echo "$line" | sed -n 's/^walk_gap=\(0x[0-9a-f]*\)-.*/\1/p')
	ge=$(echo "$line" | sed -n 's/^walk_gap=0x[0-9a-f]*-\(0x[0-9a-f]*\) .*/\1/p')
	top=$(echo "$line" | sed -n 's/.* top=\(0x[0-9a-f]*\)$/\1/p')
	[ -n "$gs" ] && [ "$((ge))" = "$((pce))" ] && [ "$((top))" = "$((send))" ] && [ "$((gs))" -gt "$((last))" ] &&
		[ "$((gs))" -lt "$((pce))" ] && [ "$wgap" = 1 ] &&
		t_ok "$c: the walk's gap $gs-$ge top $top is truth.json's [post_compact_end, space_end), after its last object; one WalkGap" ||
		t_fail "$c: walk '$line', WalkGap records $wgap; truth.json [$pce, $send) after $last"
	[ "$inside" = 0 ] && [ "$want" -gt 0 ] && [ "$got" = "$want 0 1 1" ] &&
		t_ok "$c: beyond_walk $want (the carved objects past the gap), invented 0, recall = precision = 1" ||
		t_fail "$c: beyond_walk invented recall precision '$got', want '$want 0 1 1' (truth objects there: $inside)"
	rm -rf "$d"
done
[ "$n" -gt 0 ] && t_ok "$n trimmed realart14 captures checked" || t_fail "no trimmed realart14 capture in $R14"
t_done

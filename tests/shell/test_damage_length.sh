#!/bin/sh
# test_damage_length.sh - a damaged array length_ or String count_ in a contiguous walk must
# cost only its own object (issue 23).  In a copy of samples/android11-64bit/core the length
# word (+8) of an object of each contiguous walk is set to 0x1000, 0x7fffffff, 0x10 and its
# own value + 1: the zygote space's compacted part (the String at 0x70202000, the record
# `1f1f0000 00100000` fuzz_damage found), the boot image's objects section (the Class[] at
# 0x70001910) and a region of the region space (the double[] at 0x12c01720); and of a TLAB
# of the bump-pointer (moving) space of a synthetic Android 14 image (build/synth --version 14
# --heap cmc --seed 23: the double[] at 0x12c02560); `carve`, then `validate` against the
# image's truth: recall >= 0.99 and no object missed but the damaged one.  Before (the walks
# stepped by the damaged size, with no second source for the next start), with 0x1000: zygote
# kept 0.978 (5 Strings after it lost), region 0.934, bump pointer 0.930.
# And no false cut: a long[] of the region space whose data holds a copy of 4 of the zygote's
# Strings (then zeros; then the copy of a 5th String's header, running past the array's end)
# stays one object, every object matched, none invented.
. "$(dirname "$0")/lib.sh"
S=samples/android11-64bit
t_need jq python3 && t_built build/synth || { t_done; exit; }
build/synth --version 14 --bits 64 --heap cmc --seed 23 --size tiny --out "$TMP/s14" >/dev/null ||
	t_fail "synth 14: generator failed"

# carve_validate NAME CORE DAMAGED_VA: recall and the objects missed other than DAMAGED_VA, of
# the image in folder $S (maps, truth.jsonl)
carve_validate() {
	rm -rf "$TMP/out"
	if ! "$ART" carve "$2" --maps "$S/maps" -o "$TMP/out" --skip bmd,report,db,jsonl,strings >/dev/null 2>"$TMP/err"; then
		t_fail "$1: carve failed: $(head -n 2 "$TMP/err")"
		return 1
	fi
	"$ART" validate --json "$TMP/out/heap.hprof" "$S/truth.jsonl" >"$TMP/v.json" 2>"$TMP/err" ||
		{ t_fail "$1: validate failed: $(head -n 2 "$TMP/err")"; return 1; }
	recall=$(jq '.objects.recall' "$TMP/v.json")
	others=$(jq -r --arg a "$3" '[.missed_examples.first[] | select(.id != $a) | .id] | join(" ")' "$TMP/v.json")
	invented=$(jq '.invented' "$TMP/v.json")
}

for target in 0x70202000:zygote 0x70001910:image 0x12c01720:region 0x12c02560:bump; do
	addr=${target%%:*} where=${target#*:}
	[ "$where" = bump ] && S=$TMP/s14
	word=$(printf '0x%x' $((addr + 8)))
	own=$(t_core_read "$S/core" "$word") || { t_fail "$where: no word at $word"; continue; }
	for val in 0x1000 0x7fffffff 0x10 "$(printf '0x%x' $((own + 1)))"; do
		n="$where: length word at $word = $val (was $own)"
		cp "$S/core" "$TMP/core"
		t_core_patch "$TMP/core" "$word" "$val" || { t_fail "$n: patch"; continue; }
		carve_validate "$n" "$TMP/core" "$addr" || continue
		echo "# $n: recall $recall, missed besides it: ${others:-none}"
		ok=$(awk -v r="$recall" -v o="$others" 'BEGIN { print (r >= 0.99 && o == "") }')
		t_check "$n: recall >= 0.99, nothing else missed" [ "$ok" = 1 ]
	done
done

S=samples/android11-64bit arr=0x12c01810 data=0x12c01820
for n in 160 168; do
	name="long[] at $arr holding a copy of $n bytes of zygote Strings"
	cp "$S/core" "$TMP/core"
	t_core_copy "$TMP/core" "$data" 0x70202028 "$n" || { t_fail "$name: copy"; continue; }
	carve_validate "$name" "$TMP/core" none || continue
	echo "# $name: recall $recall, invented $invented, missed: ${others:-none}"
	t_check "$name: one object (recall 1, nothing invented)" [ "$recall/$invented" = 1/0 ]
done
t_done

#!/bin/sh
# test_walk_synth.sh - the space walkers against the synthetic generator's truth for every
# layout family x bitness (5.0-16, 32/64-bit, the 14-16 mark-compact heap and 15-16 with 16 KiB
# pages; RosAlloc bitmap and free-list runs, page-level
# objects, region space with TLABs, Large regions and unevacuated regions, dlmalloc zygote
# and non-moving spaces with freed chunks, the zygote's compacted tail, the free-list and
# map large object spaces, the boot image): every truth object is a candidate with the
# allocation state the allocator's metadata gives it, every allocated candidate is a truth
# object, and no anomaly is recorded (tests/tools/walk_synth.c says what is compared).  Where
# the image has both RosAlloc twins, again with their names swapped (pairing is by content).
. "$(dirname "$0")/lib.sh"
SYNTH=$PWD/build/synth
TOOL=$PWD/build/tools/walk_synth
[ -x "$SYNTH" ] && [ -x "$TOOL" ] || { t_fail "$SYNTH or $TOOL missing (make all)"; t_done; exit; }
for vh in $("$SYNTH" --list | awk '{ print $1 } $3 == "cmc" { print $1 ":cmc" } $4 == "16k" { print $1 "::16k"; print $1 ":cmc:16k" }'); do
	# V[:HEAP[:PAGE]]: the family, its heap (cmc: the mark-compact one of 14+), 16k pages (15+, 64-bit)
	v=${vh%%:*}; heap=$(echo "$vh:" | cut -d: -f2); page=$(echo "$vh::" | cut -d: -f3)
	bl="32 64"; [ -z "$page" ] || bl=64
	for b in $bl; do
		d=$TMP/$v-$b
		if ! "$SYNTH" --version "$v" ${heap:+--heap $heap} ${page:+--page $page} --bits "$b" --seed 3 --size small --out "$d" >/dev/null 2>"$TMP/err"; then
			t_fail "$vh/$b: generation failed: $(head -n 2 "$TMP/err")"; continue
		fi
		if "$TOOL" "$d" >"$TMP/out" 2>&1; then t_ok "$vh/$b: $(tail -n 1 "$TMP/out")"
		else t_fail "$vh/$b: $(cat "$TMP/out" | head -n 12)"; fi
		# the twins by content, not by name: the live RosAlloc space named "main space 1"
		if grep -q 'dalvik-main space 1' "$d/maps"; then
			sed -i 's/dalvik-main space (deleted)/dalvik-TWIN/; s/dalvik-main space 1 (deleted)/dalvik-main space (deleted)/
				s/dalvik-TWIN/dalvik-main space 1 (deleted)/' "$d/maps"
			if "$TOOL" "$d" >"$TMP/out" 2>&1; then t_ok "$v/$b, twins' names swapped: $(tail -n 1 "$TMP/out" | cut -d';' -f1)"
			else t_fail "$v/$b, twins' names swapped: $(head -n 12 "$TMP/out")"; fi
		fi
		rm -rf "$d"
	done
done
t_done

#!/bin/sh
# test_damage_trunc.sh - a core cut short carves what it holds (issue 23).  build/tools/
# damage_trunc (tests/tools/damage_trunc.c) cuts a core at every PT_LOAD segment boundary and
# at 20 random offsets (fixed seed), carves each cut in-process and checks: carve succeeds and
# writes heap.hprof and case.db, the image's cut_bytes equals the file bytes the headers list
# past the cut and a "capture" anomaly names them, and every object whose bytes and whose
# Class's bytes lie in the kept part is carved as in the whole core; a cut that takes
# java.lang.Class itself may be refused (no usable heap).  On samples/android11-64bit and the
# real ART 11 capture realart/cms-collections (19 segments, 80 MB).
# Open: an object whose allocator metadata was cut (the free-list LOS's allocation info
# table past the cut) is not walked: 4 of 216 objects of the sample (LOS arrays), 1 of 7669
# of the capture; --min-recall holds those cuts to that.
. "$(dirname "$0")/lib.sh"
REAL=$CORPUS/images/realart
TRUNC=build/tools/damage_trunc
t_need zstd && t_built "$TRUNC" || { t_done; exit; }
t_scratch

trunc_run() {   # NAME CORE MAPS MIN_RECALL
	mkdir -p "$W/out"
	if "$TRUNC" "$2" "$3" --random 20 --min-recall "$4" --out "$W/out" >"$W/$1.txt" 2>&1; then
		t_ok "$1: $(grep -c '^ok' "$W/$1.txt") cuts carve what they hold ($(grep -c 'refused' "$W/$1.txt") without java.lang.Class refused)"
	else
		t_fail "$1: $(tail -n 1 "$W/$1.txt")"
	fi
	cut -c1-300 "$W/$1.txt"
	rm -rf "$W/out"
}

cp samples/android11-64bit/core "$W/sample.core"
trunc_run sample "$W/sample.core" samples/android11-64bit/maps 0.97
rm -f "$W/sample.core"
if t_corpus "$REAL/cms-collections"; then
	if zstd -q -dc "$REAL/cms-collections/core.zst" >"$W/cms.core"; then
		trunc_run cms-collections "$W/cms.core" "$REAL/cms-collections/maps.txt" 0.9998
	else
		t_fail "cms-collections: zstd"
	fi
	rm -f "$W/cms.core"
fi
t_done

#!/bin/sh
# test_damage_roots.sh - one damaged word in the objects java.lang.Class is recognised by
# must not refuse the image (issue 23).  build/tools/damage_sweep --roots N damages, one word
# at a time, every word of java.lang.Class, of the DexCache its check reads, of its name_
# String (when set), of java.lang.Object's Class and of java.lang.String's Class, with N of
# the sweep's values per word (0, 0xffffffff, 0x7fffffff, 0x80000000, a near-miss heap
# address, a random word); every run must carve, write heap.hprof and case.db, and keep
# >= 99% of the undamaged carve's objects the damage did not touch.
# Before: one zero word in java.lang.Class's class word, super_class_, class_flags_ or
# status_, or in java.lang.Object's Class (class word, super, sizes), refused the image
# ("no java.lang.Class found", exit 1); damage to the DexCache's class word cost 12% of the
# sample (every Class naming the DexCache dropped), to java.lang.String's Class status_ 29%.
# Images: samples/android11-64bit (6 values per word, about 1000 carves of a 1 MB image) and
# the real ART 11 capture realart/cms-collections (1 value per word: each carve reads an
# 80 MB core, about 0.5 s of CPU).
. "$(dirname "$0")/lib.sh"
REAL=$CORPUS/images/realart
SWEEP=build/tools/damage_sweep
t_need zstd && t_built "$SWEEP" || { t_done; exit; }
t_scratch

roots() {   # NAME CORE MAPS VALUES: the sweep's table, then one verdict
	rm -rf "$W/out"   # carve writes into a folder of its own outputs only
	"$SWEEP" "$2" "$3" --roots "$4" --out "$W/out" >"$W/$1.txt" 2>&1
	rc=$?
	cut -c1-300 "$W/$1.txt"
	[ $rc -eq 0 ] && t_ok "$1: every word of the java.lang.Class roots damaged, every run carved at >= 0.99" ||
		t_fail "$1: $(grep -c '^FAIL' "$W/$1.txt") root objects below 0.99 or failed carves (exit $rc)"
}

cp samples/android11-64bit/core "$W/sample.core"
roots sample "$W/sample.core" samples/android11-64bit/maps 6
rm -f "$W/sample.core"

cap=cms-collections
if t_corpus "$REAL/$cap"; then
	if zstd -q -dc "$REAL/$cap/core.zst" >"$W/$cap.core"; then
		roots "$cap" "$W/$cap.core" "$REAL/$cap/maps.txt" 1
	else
		t_fail "$cap: zstd"
	fi
	rm -f "$W/$cap.core"
fi
t_done

#!/bin/sh
# test_walk_sweep.sh - corruption sweeps of the space walkers (tests/tools/sweep_walk.c):
# page-map bytes, run headers, 7.0+ free-list links (cycles, out-of-run, misaligned),
# 5.x/6.0 bitmap bits, region words and array lengths, dlmalloc chunk heads, LOS
# allocation-info entries.  No crash, no hang (20 s alarm per walk), and an anomaly for
# every damage that is always detectable.  Synthetic images of six families under
# ASan/UBSan; two real captures (RosAlloc, region space) with the plain build.
. "$(dirname "$0")/lib.sh"
SYNTH=$PWD/build/synth
ASAN_TOOL=$PWD/build/asan/tools/sweep_walk
TOOL=$PWD/build/tools/sweep_walk
[ -x "$SYNTH" ] && [ -x "$ASAN_TOOL" ] || { t_skip "build/synth or the ASan sweep tool missing"; t_done; exit $?; }
for vb in 5.0/32 6.0/64 7.0/32 7.1/64 9/32 11/64; do
	v=${vb%/*} b=${vb#*/}
	d=$TMP/$v-$b
	if ! "$SYNTH" --version "$v" --bits "$b" --seed 7 --size small --out "$d" >/dev/null 2>"$TMP/err"; then
		t_fail "$vb: generation failed: $(head -n 2 "$TMP/err")"; continue
	fi
	if "$ASAN_TOOL" "$d/core" "$d/maps" 240 "$b" >"$TMP/out" 2>&1; then
		t_ok "$vb: $(grep -c '^ok ' "$TMP/out") kinds, $(grep -E '^ok .* [1-9][0-9]* rounds' "$TMP/out" | awk '{printf "%s%s %s/%s", s, $2, $5, $3; s=", "}')"
	else
		t_fail "$vb: $(grep -E '^(FAIL|round|sweep)' "$TMP/out" | head -n 5) $(tail -n 3 "$TMP/out")"
	fi
	rm -rf "$d"
done
if [ -d "$CORPUS/images/realart" ] && command -v zstd >/dev/null 2>&1; then
	for cap in cms-collections cc-collections; do
		dir=$CORPUS/images/realart/$cap
		zstd -q -d "$dir/core.zst" -o "$TMP/core" || { t_fail "$cap: cannot decompress"; continue; }
		if "$TOOL" "$TMP/core" "$dir/maps.txt" 96 11 >"$TMP/out" 2>&1; then
			t_ok "$cap: $(grep -E '^ok .* [1-9][0-9]* rounds' "$TMP/out" | awk '{printf "%s%s %s/%s", s, $2, $5, $3; s=", "}')"
		else
			t_fail "$cap: $(grep -E '^(FAIL|round|sweep)' "$TMP/out" | head -n 5) $(tail -n 3 "$TMP/out")"
		fi
		rm -f "$TMP/core"
	done
else
	t_skip "realart corpus or zstd missing"
fi
t_done

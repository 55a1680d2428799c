#!/bin/sh
# bench/synth.sh - generation speed of the synthetic image generator on a multi-GB heap.
# Prints MB/s of core written (by wall clock and by CPU time) and the peak RSS.
#   SYNTH_BENCH_MB   object bytes to generate (default 2048 = 2 GiB)
#   SYNTH_BENCH_VER  Android version (default 11: region space; 7.1 for RosAlloc)
set -eu
cd "$(dirname "$0")/.."
mb=${SYNTH_BENCH_MB:-2048}
ver=${SYNTH_BENCH_VER:-11}
out=build/bench-synth
rm -rf "$out"
[ -x build/synth ] || make -s build/synth
cmd="build/synth --version $ver --bits 64 --seed 1 --size $mb --truth no --out $out"
echo "$cmd"
/usr/bin/time -f '%e %U %S %M' -o build/bench-synth.time $cmd
read -r wall user sys rss_kb <build/bench-synth.time
core=$(stat -c %s "$out/core")
alloc=$(du -k "$out/core" | cut -f1)
objs=$(sed -n 's/^ "objects": \([0-9]*\),$/\1/p' "$out/truth.json")
awk -v c="$core" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss_kb" -v o="$objs" -v a="$alloc" 'BEGIN {
	mb = c / 1048576
	printf "core: %.0f MB (%.0f MB on disk), %d objects\n", mb, a / 1024, o
	printf "generation: %.1f s wall, %.1f s CPU -> %.1f MB/s wall, %.1f MB/s CPU\n", w, u + s, mb / w, mb / (u + s)
	printf "peak RSS: %.0f MB\n", r / 1024
}'
rm -rf "$out" build/bench-synth.time

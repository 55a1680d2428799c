#!/bin/sh
# bench/walk.sh - speed of the space walkers on big synthetic heaps: for a RosAlloc image
# (Android 7.1) and a region-space image (11), `artcarve walk` over every object space, with
# the walk's own time (MB/s of object spaces and of the core), the command's peak RSS, and
# `cat` and `gzip -1` over the same core bytes in the same run as the baseline.
#   WALK_BENCH_MB   object bytes per image (default 1024)
set -eu
cd "$(dirname "$0")/.."
mb=${WALK_BENCH_MB:-1024}
[ -x build/synth ] && [ -x build/artcarve ] || make -s build/synth build/artcarve
for ver in 7.1 11; do
	out=build/bench-walk-$ver
	rm -rf "$out"
	build/synth --version "$ver" --bits 64 --seed 1 --size "$mb" --truth no --out "$out" >/dev/null
	core=$(stat -c %s "$out/core")
	cat "$out/core" >/dev/null                       # same page-cache state for everyone
	/usr/bin/time -f '%e %M' -o "$out/time" build/artcarve walk "$out/core" --maps "$out/maps" >"$out/walk"
	read -r wall rss_kb <"$out/time"
	/usr/bin/time -f '%e' -o "$out/cat.time" cat "$out/core" >/dev/null
	/usr/bin/time -f '%e' -o "$out/gzip.time" gzip -1 -c "$out/core" >/dev/null
	line=$(grep '^time: walk' "$out/walk")
	objs=$(sed -n 's/^candidates: allocated \([0-9]*\), free \([0-9]*\).*/\1 + \2/p' "$out/walk")
	awk -v c="$core" -v w="$wall" -v r="$rss_kb" -v cat="$(cat "$out/cat.time")" -v gz="$(cat "$out/gzip.time")" \
	    -v l="$line" -v v="$ver" -v o="$objs" 'BEGIN {
		mb = c / 1048576
		printf "%s: core %.0f MB, candidates %s\n", v, mb, o
		printf "  %s\n", l
		printf "  artcarve walk (runtime model + walk): %.2f s wall -> %.0f MB/s of core; peak RSS %.0f MB (the mapped core's pages included)\n",
			w, mb / w, r / 1024
		printf "  baseline over the same bytes: cat %.0f MB/s, gzip -1 %.0f MB/s\n", mb / (cat > 0 ? cat : 0.01),
			mb / (gz > 0 ? gz : 0.01)
	}'
	rm -rf "$out"
done

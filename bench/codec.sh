#!/bin/sh
# bench/codec.sh - codec throughput on a real JVM heap dump of at least 100 MB.
# Generates the dump with bench/HeapGen.java (HotSpotDiagnosticMXBean.dumpHeap), then times,
# in the same run and on the same file: artcarve convert, crunch, decrunch (when this build
# has them), hprof-info (the reader alone), and gzip -1.  For each: seconds, MB/s of the
# HPROF, peak RSS (/usr/bin/time %M), output size, and ratios against gzip -1.
#   bench/codec.sh [NODES]        (default 600000 nodes, about 128 MB; `make bench` runs it)
# Environment: ART (default build/artcarve), BENCH_DIR (default build/bench).
set -u
cd "$(dirname "$0")/.." || exit 2
ART=${ART:-$PWD/build/artcarve}
DIR=${BENCH_DIR:-$PWD/build/bench}
NODES=${1:-600000}
TIME=/usr/bin/time
mkdir -p "$DIR"
for tool in javac java gzip "$TIME"; do
	command -v "$tool" >/dev/null 2>&1 || { echo "bench: $tool is missing (make deps)"; exit 2; }
done
[ -x "$ART" ] || { echo "bench: $ART is missing (make)"; exit 2; }

H=$DIR/heap.hprof
if [ ! -s "$H" ] || [ "$(cat "$DIR/nodes" 2>/dev/null)" != "$NODES" ]; then
	javac -d "$DIR" bench/HeapGen.java || exit 2
	rm -f "$H"
	java -Xmx3g -cp "$DIR" HeapGen "$H" "$NODES" || exit 2
	echo "$NODES" >"$DIR/nodes"
fi
SIZE=$(wc -c <"$H")
[ "$SIZE" -ge 100000000 ] || { echo "bench: $H is only $SIZE bytes (< 100 MB): raise NODES"; exit 2; }
cat "$H" >/dev/null      # same page-cache state for every tool
echo "input: $H, $SIZE bytes ($(awk -v s="$SIZE" 'BEGIN { printf "%.1f", s / 1e6 }') MB), $("$ART" hprof-info "$H" | sed -n 's/^version: //p'), id size $("$ART" hprof-info "$H" | sed -n 's/^id size: //p')"

# measure NAME OUTPUT CMD...: runs CMD under /usr/bin/time, prints one result line
measure() {
	name=$1 out=$2; shift 2
	if ! "$TIME" -f "%e %M" -o "$DIR/time.txt" "$@" >/dev/null 2>"$DIR/err.txt"; then
		printf '%-12s FAILED: %s\n' "$name" "$(tail -n 1 "$DIR/err.txt")"; return 1
	fi
	read -r secs rss <"$DIR/time.txt"
	osize=0; [ -n "$out" ] && [ -f "$out" ] && osize=$(wc -c <"$out")
	echo "$name $secs $rss $osize" >>"$DIR/results.txt"
}
: >"$DIR/results.txt"
measure gzip-1 "$DIR/heap.hprof.gz" sh -c 'gzip -1 -c "$1" >"$2"' sh "$H" "$DIR/heap.hprof.gz"
measure hprof-info "" "$ART" hprof-info "$H"
measure convert "$DIR/conv.hprof" "$ART" convert "$H" "$DIR/conv.hprof"
if "$ART" crunch --help >/dev/null 2>&1; then
	measure crunch "$DIR/heap.bmd" "$ART" crunch "$H" "$DIR/heap.bmd" &&
	measure decrunch "$DIR/heap.dec.hprof" "$ART" decrunch "$DIR/heap.bmd" "$DIR/heap.dec.hprof"
else
	echo "crunch:   not available in this build"
	echo "decrunch: not available in this build"
fi

report() { # report SIZE RESULTS: the table
awk -v size="$1" '
	{ name[NR] = $1; secs[NR] = $2; rss[NR] = $3; out[NR] = $4; if ($1 == "gzip-1") g = NR }
	END {
		printf "%-12s %8s %9s %10s %12s %12s %12s\n", "tool", "seconds", "MB/s", "peak RSS", "output", "speed/gzip", "size/gzip"
		for (i = 1; i <= NR; i++) {
			s = secs[i] > 0 ? secs[i] : 0.01
			gs = secs[g] > 0 ? secs[g] : 0.01
			ratio = (out[i] > 0 && out[g] > 0) ? sprintf("%.3f", out[i] / out[g]) : "-"
			printf("%-12s %8.2f %9.1f %7.1f MB %12d %11.2fx %12s\n", name[i], secs[i], size / 1e6 / s,
			       rss[i] / 1024, out[i], gs / s, ratio)
		}
		print "MB/s = HPROF bytes / seconds; speed/gzip = gzip -1 seconds / tool seconds (above 1 = faster);"
		print "size/gzip = output bytes / gzip -1 output bytes; peak RSS = max resident set (/usr/bin/time %M)"
	}' "$2"
}
report "$SIZE" "$DIR/results.txt"

# convert does real work only on Android (1.0.3) input: time it on the largest realart capture
SHARED=${ARTCARVE_SHARED:-$(cd .. && pwd)/shared}
A=$SHARED/corpus/images/realart/cc-nodes-nogc/heap.hprof.zst
if [ -f "$A" ] && command -v zstd >/dev/null 2>&1; then
	zstd -q -dc "$A" >"$DIR/android.hprof" || exit 2
	ASIZE=$(wc -c <"$DIR/android.hprof")
	echo
	echo "Android input: realart cc-nodes-nogc heap.hprof, $ASIZE bytes, $("$ART" hprof-info "$DIR/android.hprof" | sed -n 's/^version: //p')"
	cat "$DIR/android.hprof" >/dev/null
	mv "$DIR/results.txt" "$DIR/results-jvm.txt"
	: >"$DIR/results.txt"
	measure gzip-1 "$DIR/android.hprof.gz" sh -c 'gzip -1 -c "$1" >"$2"' sh "$DIR/android.hprof" "$DIR/android.hprof.gz"
	measure convert "$DIR/android-conv.hprof" "$ART" convert "$DIR/android.hprof" "$DIR/android-conv.hprof"
	if "$ART" crunch --help >/dev/null 2>&1; then
		measure crunch "$DIR/android.bmd" "$ART" crunch "$DIR/android.hprof" "$DIR/android.bmd"
	fi
	report "$ASIZE" "$DIR/results.txt"
fi

#!/bin/sh
# bench/codec.sh - the codec and HPROF tools against their peers, each pair run in the same
# invocation, interleaved (artcarve, peer, artcarve, peer...), RUNS times; the table shows the
# medians and their ratio, and whether the target of each row holds:
#   convert      Debian hprof-conv, on every realart heap.hprof and on a >= 80 MB Android
#                HPROF: at least as fast, peak RSS within 2x, byte-identical output
#   crunch       zstd -1 on the >= 100 MB JVM dump, with 8-byte ids (as the JVM wrote it) and
#                4-byte ids (below): at least as fast
#   crunch ids   the 4-byte dump with ids 1, 2, 3... (as decrunch numbers them) against the
#                same dump with 8-aligned ids: at most 20% more time and memory
#   hprof-info   `cat FILE >/dev/null` of the same file: at most 2x its time
#   memory       crunch and decrunch (--badoo and --mat) of the 100 MB dump: peak RSS < 32 MB
# Inputs, made here (cached in BENCH_DIR):
#   heap.hprof     bench/HeapGen.java through HotSpotDiagnosticMXBean.dumpHeap (8-byte ids)
#   heap4u.hprof   heap.hprof crunched and decrunched with --id-size 4 (ids 1, 2, 3...)
#   heap4a.hprof   heap4u.hprof with every object id * 8 (build/tools/hprof_ids): aligned
#   android.hprof  the records of the realart captures (ART's own HPROF output) after one
#                  1.0.3 header, repeated until the file reaches 80 MB
# Times are wall-clock medians (date +%s%N around /usr/bin/time, which gives the peak RSS and
# the CPU time, user + system, shown beside: on a loaded machine the wall time also depends on
# the CPU share a program gets, and zstd reads and writes on a second thread).
#   bench/codec.sh [NODES]     (default 640000 nodes: a 137 MB dump, 104 MB with 4-byte ids)
# Environment: ART (default build/artcarve), BENCH_DIR (default build/bench), RUNS (default 5),
# ARTCARVE_SHARED (default ../shared), HPROF_CONV.  Exit 0 when every target holds, else 1.
set -u
cd "$(dirname "$0")/.." || exit 2
ART=${ART:-$PWD/build/artcarve}
IDS=$PWD/build/tools/hprof_ids
DIR=${BENCH_DIR:-$PWD/build/bench}
NODES=${1:-640000}
RUNS=${RUNS:-5}
TIME=/usr/bin/time
HC=${HPROF_CONV:-/usr/lib/android-sdk/platform-tools/hprof-conv}
SHARED=${ARTCARVE_SHARED:-$(cd .. && pwd)/shared}
mkdir -p "$DIR"
for tool in javac java zstd "$TIME" "$HC"; do
	command -v "$tool" >/dev/null 2>&1 || { echo "bench: $tool is missing (make deps)"; exit 2; }
done
[ -x "$ART" ] && [ -x "$IDS" ] || { echo "bench: $ART or $IDS is missing (make)"; exit 2; }

# ---- inputs ----------------------------------------------------------------------------------
H=$DIR/heap.hprof
if [ ! -s "$H" ] || [ "$(cat "$DIR/nodes" 2>/dev/null)" != "$NODES" ]; then
	javac -d "$DIR" bench/HeapGen.java || exit 2
	rm -f "$H" "$DIR/heap4u.hprof" "$DIR/heap4a.hprof"
	java -Xmx3g -cp "$DIR" HeapGen "$H" "$NODES" >/dev/null || exit 2
	echo "$NODES" >"$DIR/nodes"
fi
if [ ! -s "$DIR/heap4a.hprof" ]; then
	"$ART" crunch -q "$H" "$DIR/gen.bmd" && "$ART" decrunch -q --badoo --id-size 4 "$DIR/gen.bmd" "$DIR/heap4u.hprof" &&
		"$IDS" "$DIR/heap4u.hprof" "$DIR/heap4a.hprof" 8 0 >/dev/null || exit 2
	rm -f "$DIR/gen.bmd"
fi
A=$DIR/android.hprof
if [ ! -s "$A" ]; then
	set -- "$SHARED"/corpus/images/realart/*/heap.hprof.zst
	[ -f "$1" ] || { echo "bench: no realart captures under $SHARED/corpus/images/realart"; exit 2; }
	for z; do zstd -q -dc "$z" >"$DIR/ra.hprof" && tail -c +32 "$DIR/ra.hprof" >"$DIR/ra-$(basename "$(dirname "$z")").body" || exit 2; done
	head -c 31 "$DIR/ra.hprof" >"$A"    # "JAVA PROFILE 1.0.3" NUL, id size, timestamp
	while [ "$(wc -c <"$A")" -lt 80000000 ]; do cat "$DIR"/ra-*.body >>"$A"; done
	rm -f "$DIR"/ra-*.body "$DIR/ra.hprof"
fi
size() { wc -c <"$1"; }
for f in "$H" "$DIR/heap4u.hprof" "$DIR/heap4a.hprof"; do
	[ "$(size "$f")" -ge 100000000 ] || { echo "bench: $f is under 100 MB: raise NODES"; exit 2; }
done
mb() { awk -v s="$1" 'BEGIN { printf "%.1f MB", s / 1e6 }'; }
echo "JVM dump:     $H, $(mb "$(size "$H")"), 8-byte ids"
echo "4-byte ids:   heap4u.hprof $(mb "$(size "$DIR/heap4u.hprof")") (ids 1, 2, 3...), heap4a.hprof (ids * 8)"
echo "Android:      $A, $(mb "$(size "$A")"), realart records after one 1.0.3 header"
echo "runs:         $RUNS interleaved per pair, medians; machine load $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# ---- measuring -------------------------------------------------------------------------------
# run KEY CMD...: one timed run appended to $DIR/runs.txt as "KEY microseconds rssKB cpu-s"
run() {
	key=$1; shift
	t0=$(date +%s%N)
	if ! "$TIME" -f "%M %U %S" -o "$DIR/rss.txt" "$@" >/dev/null 2>"$DIR/err.txt"; then
		echo "bench: $key failed: $(tail -n 1 "$DIR/err.txt")"; exit 1
	fi
	t1=$(date +%s%N)
	echo "$key $(( (t1 - t0) / 1000 )) $(tail -n 1 "$DIR/rss.txt" | awk '{ print $1, $2 + $3 }')" >>"$DIR/runs.txt"
}
# median KEY FIELD (2 = microseconds, 3 = KB, 4 = CPU seconds)
median() {
	awk -v k="$1" -v f="$2" '$1 == k { print $f }' "$DIR/runs.txt" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; else print 0 }'
}
: >"$DIR/runs.txt"
: >"$DIR/table.txt"
fails=0
# row LABEL KEY_ART KEY_PEER KIND LIMIT: KIND speed = peer time / art time >= LIMIT; slower =
# art time / peer time <= LIMIT; rss = art RSS / peer RSS <= LIMIT
row() {
	ta=$(median "$2" 2); tp=$(median "$3" 2); ra=$(median "$2" 3); rp=$(median "$3" 3)
	r=$(awk -v a="$ta" -v p="$tp" -v ra="$ra" -v rp="$rp" -v k="$4" 'BEGIN {
		if (k == "speed") printf "%.2f", p / a; else if (k == "slower") printf "%.2f", a / p; else printf "%.2f", ra / rp }')
	ok=$(awk -v r="$r" -v l="$5" -v k="$4" 'BEGIN { print (k == "speed" ? r >= l : r <= l) ? "yes" : "NO" }')
	[ "$ok" = yes ] || fails=$((fails + 1))
	case $4 in speed) want=">= $5x faster" ;; slower) want="<= $5x the time" ;; *) want="<= $5x the RSS" ;; esac
	printf "%-42s %7.3f s %6.2f %6.1f MB | %-14s %7.3f s %6.2f %6.1f MB | %5s  %-16s %s\n" "$1" \
		"$(awk -v t="$ta" 'BEGIN { print t / 1e6 }')" "$(median "$2" 4)" "$(awk -v r="$ra" 'BEGIN { print r / 1024 }')" "$6" \
		"$(awk -v t="$tp" 'BEGIN { print t / 1e6 }')" "$(median "$3" 4)" "$(awk -v r="$rp" 'BEGIN { print r / 1024 }')" "$r" "$want" "$ok" >>"$DIR/table.txt"
}
# limit LABEL KEY LIMIT_KB: peak RSS below a fixed bound
limit() {
	ra=$(median "$2" 3); ta=$(median "$2" 2)
	ok=$(awk -v r="$ra" -v l="$3" 'BEGIN { print r < l ? "yes" : "NO" }')
	[ "$ok" = yes ] || fails=$((fails + 1))
	printf "%-42s %7.3f s %6.2f %6.1f MB | %-14s %7s   %6s %6s    | %5s  %-16s %s\n" "$1" "$(awk -v t="$ta" 'BEGIN { print t / 1e6 }')" \
		"$(median "$2" 4)" "$(awk -v r="$ra" 'BEGIN { print r / 1024 }')" "-" "-" "-" "-" "-" "RSS < $(($3 / 1024)) MB" "$ok" >>"$DIR/table.txt"
}
same() {
	if cmp -s "$1" "$2"; then echo "identical: $3"; else echo "DIFFERENT: $3"; fails=$((fails + 1)); fi
}

# convert: every realart capture and the 80 MB Android file, against hprof-conv
n=0
for z in "$SHARED"/corpus/images/realart/*/heap.hprof.zst; do
	c=$(basename "$(dirname "$z")")
	zstd -q -f -dc "$z" >"$DIR/ra-$c.hprof" || exit 2
	cat "$DIR/ra-$c.hprof" >/dev/null
	i=0; while [ $i -lt "$RUNS" ]; do
		run "conv-$c" "$ART" convert "$DIR/ra-$c.hprof" "$DIR/ra-$c.ac"
		run "hc-$c" "$HC" "$DIR/ra-$c.hprof" "$DIR/ra-$c.hc"
		i=$((i + 1)); done
	same "$DIR/ra-$c.ac" "$DIR/ra-$c.hc" "convert = hprof-conv on realart $c ($(mb "$(size "$DIR/ra-$c.hprof")"))"
	row "convert realart $c ($(mb "$(size "$DIR/ra-$c.hprof")"))" "conv-$c" "hc-$c" speed 1 hprof-conv
	row "  peak RSS" "conv-$c" "hc-$c" rss 2 hprof-conv
	rm -f "$DIR/ra-$c.ac" "$DIR/ra-$c.hc" "$DIR/ra-$c.hprof"
	n=$((n + 1))
done
cat "$A" >/dev/null
i=0; while [ $i -lt "$RUNS" ]; do
	run conv-android "$ART" convert "$A" "$DIR/android.ac"
	run hc-android "$HC" "$A" "$DIR/android.hc"
	i=$((i + 1)); done
same "$DIR/android.ac" "$DIR/android.hc" "convert = hprof-conv on the $(mb "$(size "$A")") Android file"
row "convert Android $(mb "$(size "$A")")" conv-android hc-android speed 1 hprof-conv
row "  peak RSS" conv-android hc-android rss 2 hprof-conv
rm -f "$DIR/android.ac" "$DIR/android.hc"

# crunch against zstd -1, and unaligned against aligned 4-byte ids
for v in heap heap4a heap4u; do
	f=$DIR/$v.hprof
	cat "$f" >/dev/null
	i=0; while [ $i -lt "$RUNS" ]; do
		run "crunch-$v" "$ART" crunch -q "$f" "$DIR/$v.bmd"
		[ $v = heap4u ] || run "zstd-$v" zstd -1 -q -f "$f" -o "$DIR/$v.zst"
		i=$((i + 1)); done
done
same "$DIR/heap4u.bmd" "$DIR/heap4a.bmd" "crunch of unaligned and aligned 4-byte ids (the BMD renumbers them)"
row "crunch, 8-byte ids ($(mb "$(size "$H")"))" crunch-heap zstd-heap speed 1 "zstd -1"
row "crunch, 4-byte ids ($(mb "$(size "$DIR/heap4a.hprof")"))" crunch-heap4a zstd-heap4a speed 1 "zstd -1"
row "crunch, 4-byte ids 1,2,3.. vs 8-aligned" crunch-heap4u crunch-heap4a slower 1.2 "aligned ids"
row "  peak RSS" crunch-heap4u crunch-heap4a rss 1.2 "aligned ids"

# hprof-info against reading the file
i=0; while [ $i -lt "$RUNS" ]; do
	run info "$ART" hprof-info "$H"
	run cat cat "$H"
	i=$((i + 1)); done
row "hprof-info ($(mb "$(size "$H")"))" info cat slower 2 "cat >/dev/null"

# memory of crunch and decrunch on the 100 MB dump
i=0; while [ $i -lt 3 ]; do
	run decrunch "$ART" decrunch -q --badoo "$DIR/heap.bmd" "$DIR/heap.dec.hprof"
	run decrunch-mat "$ART" decrunch -q --mat "$DIR/heap.bmd" "$DIR/heap.mat.hprof"
	i=$((i + 1)); done
limit "crunch, 8-byte ids" crunch-heap 32768
limit "decrunch --badoo (Badoo layout), $(mb "$(size "$DIR/heap.bmd")") BMD" decrunch 32768
limit "decrunch --mat (with the JDK's names)" decrunch-mat 32768
rm -f "$DIR/heap.dec.hprof" "$DIR/heap.mat.hprof" "$DIR"/*.zst

echo
printf "%-42s %-26s | %-41s | %5s  %-16s %s\n" "work" "artcarve: wall, CPU s, RSS" "peer: wall, CPU s, RSS" "ratio" "target" "met"
cat "$DIR/table.txt"
echo "medians of $RUNS interleaved runs; ratio: peer wall time / artcarve wall time for '>= faster',"
echo "artcarve / peer for '<= the time' and for RSS"
echo "$n realart captures compared; $fails target(s) missed"
[ "$fails" -eq 0 ]

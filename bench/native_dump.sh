#!/bin/sh
# bench/native_dump.sh - parse speed and memory of `artcarve native-dump` on a native heap
# dump of NATIVE_BENCH_MB (default 100) MB made by tests/tools/nd_gen (v1.2, 64-bit, 2000
# call sites of up to 16 frames, records repeated until the size is reached), with `wc -l`
# over the same file in the same run as the baseline.  Prints MB/s (wall and CPU) of both, the
# tool's peak RSS (which counts the pages of the mapped file it touched) and its anonymous
# memory (call sites and tables; it must not grow with the file).  Also the record_allocs
# replay on a file of NATIVE_BENCH_REC_OPS (default 400000) lines.
set -eu
cd "$(dirname "$0")/.."
mb=${NATIVE_BENCH_MB:-100}
ops=${NATIVE_BENCH_REC_OPS:-400000}
[ -x build/tools/nd_gen ] && [ -x build/artcarve ] || make -s build/artcarve build/tools/nd_gen
tmp=$(mktemp -d "${TMPDIR:-/tmp}/artcarve-bench-ndump.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/syms" <<'SYMS'
lib /system/lib64/libc.so
seg 0 0 40000 0
seg 40000 40000 80000 1
fn malloc 41000 200
fn calloc 41200 180
fn realloc 41400 400
lib /system/lib64/libbench.so
seg 0 0 200000 1
fn bench_a 1000 8000
fn bench_b 9000 10000
fn bench_c 19000 20000
lib /apex/com.android.art/lib64/libart.so
seg 0 0 400000 1
SYMS

# run NAME FILE: the tool and wc -l over FILE, each after a read that warms the page cache
run() {
	size=$(stat -c %s "$2")
	cat "$2" >/dev/null
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/t.nd" build/artcarve native-dump "$2" >"$tmp/out.txt"
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/t.wc" wc -l "$2" >/dev/null
	build/artcarve native-dump "$2" >/dev/null &
	pid=$!
	anon=0
	while kill -0 "$pid" 2>/dev/null; do
		a=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
		[ "${a:-0}" -gt "$anon" ] && anon=$a
		sleep 0.05
	done
	wait "$pid" || true
	read -r w u s r <"$tmp/t.nd"
	read -r ww wu ws wr <"$tmp/t.wc"
	awk -v n="$1" -v sz="$size" -v w="$w" -v u="$u" -v s="$s" -v r="$r" -v ww="$ww" -v wu="$wu" -v ws="$ws" \
	    -v wr="$wr" -v anon="$anon" -v recs="$(grep -m1 '^records:\|^entries:' "$tmp/out.txt")" 'BEGIN {
		m = sz / 1e6; c = u + s; wc = wu + ws
		printf "%s: %.0f MB, %s\n", n, m, recs
		printf "  native-dump: %.2f s wall, %.0f MB/s wall, %.0f MB/s CPU; peak RSS %.1f MB (mapped file pages included), anonymous %.1f MB (sampled)\n",
			w, m / (w > 0 ? w : 0.01), m / (c > 0 ? c : 0.01), r / 1024, anon / 1024
		printf "  wc -l:       %.2f s wall, %.0f MB/s wall, %.0f MB/s CPU; peak RSS %.1f MB\n",
			ww, m / (ww > 0 ? ww : 0.01), m / (wc > 0 ? wc : 0.01), wr / 1024
	}'
}

build/tools/nd_gen dump --version 2 --bits 64 --seed 1 --sites 2000 --syms "$tmp/syms" --target-mb "$mb" \
	--out "$tmp/heap.txt" --truth "$tmp"
run "native heap dump v1.2" "$tmp/heap.txt"
build/tools/nd_gen dump --version 2 --bits 64 --seed 2 --sites 2000 --bt-info --syms "$tmp/syms" \
	--target-mb "$mb" --out "$tmp/heap-bt.txt" --truth "$tmp"
run "native heap dump v1.2 with bt_info" "$tmp/heap-bt.txt"
rm -f "$tmp/heap.txt" "$tmp/heap-bt.txt"
build/tools/nd_gen rec --seed 3 --ops "$ops" --timed --out "$tmp/rec.txt" --truth "$tmp"
run "record_allocs" "$tmp/rec.txt"

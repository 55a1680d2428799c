#!/bin/sh
# native_dump_seeds.sh OUTDIR - the seed corpora of fuzz_native_dump and fuzz_record_allocs:
# small files from tests/tools/nd_gen (every dump version, 32/64-bit, bt_info, v1.0's wrong
# counts; record_allocs with and without times) and a few hand-written corner cases.
# tests/shell/test_native_dump.sh checks that tests/fuzz/corpus holds exactly this output.
set -e
cd "$(dirname "$0")/../../.."
out=$1
gen=build/tools/nd_gen
d=$out/fuzz_native_dump r=$out/fuzz_record_allocs
mkdir -p "$d" "$r"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
syms=$tmp/syms
cat >"$syms" <<'SYMS'
lib /system/lib64/libfake.so
seg 0 0 440 0
seg 1000 1000 2000 1
seg 3e68 2e68 1a8 0
fn fake_alloc 1100 40
fn fake_main 1140 200
lib /vendor/lib/libnosym.so
seg 0 0 3000 1
SYMS
for v in 0 1 2; do
	"$gen" dump --version $v --bits 64 --seed $((v + 1)) --sites 4 --syms "$syms" --out "$d/gen-v1.$v-64.txt" --truth "$tmp" >/dev/null
	"$gen" dump --version $v --bits 32 --seed $((v + 7)) --sites 3 --syms "$syms" --out "$d/gen-v1.$v-32.txt" --truth "$tmp" >/dev/null
done
"$gen" dump --version 2 --bits 64 --seed 5 --sites 4 --bt-info --syms "$syms" --out "$d/gen-v1.2-bt-info.txt" --truth "$tmp" >/dev/null
"$gen" dump --version 0 --bits 32 --seed 6 --sites 4 --bad-num --syms "$syms" --out "$d/gen-v1.0-bad-num.txt" --truth "$tmp" >/dev/null
printf 'Android Native Heap Dump v1.2\n\nBuild fingerprint: '"'"'a'"'"'b'"'"'\n\nTotal memory: 0\nAllocation records: 0\nBacktrace size: 4\n\nMAPS\nCould not open /proc/self/maps\nEND\n' >"$d/hand-no-maps.txt"
printf 'Android Native Heap Dump v1.2\n\nTotal memory: 8\nAllocation records: 1\nBacktrace size: 2\n\nz 1  sz        8  num    1  bt 1010 2020\n  bt_info {"/a \\"q\\".so" 10 "op\\"\\" 1" 4} {"" 2020 "" 0}\nMAPS\n1000-2000 r-xp 00000000 00:00 1    /a "q".so\nEND\n' >"$d/hand-quotes.txt"
printf 'Android Native Heap Dump v1.0\n\nTotal memory: 5\nAllocation records: 1\nBacktrace size: 1\n\nz 0  sz        5  num    1  bt\r\nMAPS\r\nEND\r\n' >"$d/hand-crlf-no-frames.txt"
"$gen" rec --seed 1 --ops 60 --out "$r/gen-64.txt" --truth "$tmp" >/dev/null
"$gen" rec --seed 2 --ops 60 --bits 32 --timed --out "$r/gen-32-timed.txt" --truth "$tmp" >/dev/null
printf '1: malloc 0x10 8\n1: free 0x10\n1: free 0x10\n2: free 0x20\n2: realloc 0x30 0x10 4\n2: realloc 0x0 0x30 0\n2: calloc 0x40 18446744073709551615 1\n3: thread_done 0x0 99\n' >"$r/hand-events.txt"

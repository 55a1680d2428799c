#!/bin/sh
# test_native.sh - `artcarve native` against the ground truth of tests/tools/img_mdgen.c:
# ELF cores of processes whose native heap holds malloc_debug allocations for each option
# mix (guards of several sizes, fill, backtrace in the 7.x/8.x header, free_track, 32- and
# 64-bit), with injected overflows, underflows and use-after-free writes, and backtraces into
# small libraries built here with the C compiler.  tests/tools/native_cmp.py checks every
# allocation, damaged byte, frame and the inferred option set, and prints per mix:
#   allocations found/truth, damage found/injected, frames named/truth;
# and tests/tools/native_totals.py the totals (live and freed bytes, per size class and per
# backtrace) of the report, of case.db and of report.html's native section against sums of
# the truth.
# Then: --maps (regions by name), --options given, --symbols DIR with a core that holds no
# library bytes, no symbols at all (frames placed, unnamed), the text report, usage errors,
# and truncation and corruption sweeps of a core under ASan (exit 0 or 1, never a crash).
. "$(dirname "$0")/lib.sh"
GEN=$PWD/build/tools/img_mdgen
CMP=$PWD/tests/tools/native_cmp.py
TOTALS=$PWD/tests/tools/native_totals.py
t_need cc python3 nm readelf jq || { t_done; exit; }

# the libraries: exported functions (found in .dynsym and .symtab alike)
mkdir -p "$TMP/src" "$TMP/sym/system/lib64" "$TMP/sym/system/lib"
cat >"$TMP/src/md.c" <<'SRC'
int md_site_a(int x) { int y = 0; for (int i = 0; i < x; i++) y += i * x; return y; }
int md_site_b(int x) { return md_site_a(x) * 3 + md_site_a(x + 1); }
int md_site_c(const char *s) { int n = 0; while (s[n]) n++; return n + md_site_b(n); }
int md_site_d(int *v, int n) { int s = 0; for (int i = 0; i < n; i++) s ^= v[i] << (i & 7); return s; }
SRC
cc -shared -fPIC -O0 -o "$TMP/sym/system/lib64/libmd.so" "$TMP/src/md.c" &&
	cc -m32 -shared -fPIC -nostdlib -O0 -o "$TMP/sym/system/lib/libmd.so" "$TMP/src/md.c"
t_check "two libraries built with cc (64-bit, and 32-bit with -m32 -nostdlib)" \
	test -s "$TMP/sym/system/lib64/libmd.so" -a -s "$TMP/sym/system/lib/libmd.so"
# the generator maps each library whole at file offset 0: its text must load at p_offset == p_vaddr
for l in lib64 lib; do
	readelf -lW "$TMP/sym/system/$l/libmd.so" | awk '$1=="LOAD" && $7 ~ /E/ && $2 != $3 {bad=1} END{exit bad}'
	t_check "$l/libmd.so: executable segment at p_offset == p_vaddr" test $? -eq 0
done
syms() { nm -S --defined-only "$TMP/sym/system/$1/libmd.so" | awk '$3=="T" && $4 ~ /^md_site/ {printf " --sym %s:%s:%s", $4, $1, $2}'; }

# MIX name bits era front rear frames flags...
total_w=0 total_f=0
mix() {
	name=$1 bits=$2 era=$3 front=$4 rear=$5 frames=$6; shift 6
	if [ "$bits" = 64 ]; then l=lib64; else l=lib; fi
	d=$TMP/$name; mkdir -p "$d"
	# shellcheck disable=SC2046
	"$GEN" --out "$d" --bits "$bits" --era "$era" --front "$front" --rear "$rear" --frames "$frames" \
		--count 60 --seed "$(printf %s "$name" | cksum | cut -d' ' -f1)" \
		--lib "/system/$l/libmd.so=$TMP/sym/system/$l/libmd.so" $(syms $l) "$@" || { t_fail "$name: generator"; return; }
	echo "# mix $name: $(sed -n 's/^mix\t//p' "$d/truth.tsv")"
	"$ART" native --json "$d/core" >"$d/r.json" 2>"$d/err"
	t_check "$name: native exits 0 ($(head -c 200 "$d/err"))" test $? -eq 0
	if python3 "$CMP" "$d/truth.tsv" "$d/r.json"; then t_ok "$name: every allocation, damaged byte and frame as the truth"
	else t_fail "$name: differs from the truth"; fi
	if python3 "$TOTALS" "$d/truth.tsv" "$d/r.json" >"$d/totals"; then t_ok "$name: totals as the truth's sums $(head -n 1 "$d/totals")"
	else t_fail "$name: totals: $(cat "$d/totals")"; fi
	"$ART" native --json --maps "$d/maps" "$d/core" >"$d/rm.json" 2>"$d/err"
	if python3 "$CMP" "$d/truth.tsv" "$d/rm.json" >"$d/cmp_maps" && grep -q '"regions_by": "name"' "$d/rm.json"; then
		t_ok "$name: the same through --maps (the [anon:libc_malloc] region by name)"
	else t_fail "$name: through --maps: $(cat "$d/cmp_maps" "$d/err" | head -5)"; fi
}

mix a9_64_guard32_fill        64 9 32 32 0  --fill-alloc
mix a9_64_front64_rear16_ft   64 9 64 16 0  --fill-alloc --free-track
mix a9_64_guard8_ft           64 9 8 8 0    --free-track
mix a9_32_rear32              32 9 0 32 0
mix a9_32_guard24_fill_ft     32 9 24 24 0  --fill-alloc --free-track
mix a7_64_bt16_guard32_ft     64 7 32 32 16 --fill-alloc --free-track
mix a7_64_bt16_front32        64 7 32 0 16
mix a7_64_bt16_fill           64 7 0 0 16   --fill-alloc
mix a7_64_bt32_guard128_fill  64 7 128 128 32 --fill-alloc
mix a7_32_bt8_guard16_fill    32 7 16 16 8  --fill-alloc
mix a7_32_bt16_ft             32 7 0 0 16   --free-track

# --options given: the same answers, the option set reported as given
d=$TMP/a7_64_bt16_guard32_ft
"$ART" native --json --options "guard=32 backtrace=16 fill free_track" "$d/core" >"$d/ro.json" 2>"$d/err"
if python3 "$CMP" "$d/truth.tsv" "$d/ro.json" >"$d/cmp_o" && grep -q '"options_from": "--options"' "$d/ro.json"; then
	t_ok "--options \"guard=32 backtrace=16 fill free_track\": the same allocations"
else t_fail "--options: $(head -5 "$d/cmp_o" "$d/err")"; fi
# a 9.0+ heap read with backtrace given: no frames block in the header, found anyway
d=$TMP/a9_64_guard32_fill
"$ART" native --json --options "guard=32 backtrace fill" "$d/core" >"$d/ro.json" 2>"$d/err"
grep -q '"options": "guard=32 fill_on_alloc fill_on_free"' "$d/ro.json" && python3 "$CMP" "$d/truth.tsv" "$d/ro.json" | grep -q 'allocations 60/60 found (60 reported)' 
t_check "9.0+ heap with backtrace given: the header holds no frames ($(grep -o '"options": "[^"]*"' "$d/ro.json"))" test $? -eq 0

# symbols from --symbols DIR when the core holds no library bytes; none without it
d=$TMP/nobytes; mkdir -p "$d"
"$GEN" --out "$d" --bits 64 --era 7 --front 16 --rear 16 --frames 16 --count 40 --seed 99 --no-lib-bytes \
	--lib "/system/lib64/libmd.so=$TMP/sym/system/lib64/libmd.so" $(syms lib64) --fill-alloc
echo "# mix nobytes: $(sed -n 's/^mix\t//p' "$d/truth.tsv") (the core holds no library bytes)"
"$ART" native --json --symbols "$TMP/sym" "$d/core" >"$d/r.json" 2>"$d/err"
if python3 "$CMP" "$d/truth.tsv" "$d/r.json"; then t_ok "--symbols DIR: every frame named from DIR/system/lib64/libmd.so"
else t_fail "--symbols DIR"; fi
"$ART" native --json "$d/core" >"$d/rn.json" 2>"$d/err"
if python3 "$CMP" "$d/truth.tsv" "$d/rn.json" --no-symbols && grep -q '"problem": "no ELF bytes' "$d/rn.json"; then
	t_ok "no symbols: frames placed as lib+offset, unnamed, with the reason"
else t_fail "no symbols: frames not placed or named anyway"; fi

# the text report prints damage the way malloc_debug logs it
d=$TMP/a7_64_bt16_guard32_ft
"$ART" native "$d/core" >"$d/r.txt" 2>"$d/err"
t_check "text report: 'rear-guard: allocation[N] = 0xNN (expected 0xbb)' lines" grep -q 'rear-guard: allocation\[[0-9]*\] = 0x[0-9a-f][0-9a-f] (expected 0xbb)' "$d/r.txt"
t_check "text report: frames as '#00 pc 0x... /system/lib64/libmd.so+0x... (md_site_...)'" grep -q '#00 pc 0x[0-9a-f]* /system/lib64/libmd.so+0x[0-9a-f]* (md_site_[a-d]+0x[0-9a-f]*)' "$d/r.txt"
t_check "text report: use-after-free lines" grep -q 'use-after-free: allocation\[[0-9]*\] = 0x[0-9a-f]* (expected 0xef)' "$d/r.txt"
live=$(jq .totals.live_bytes "$d/r.json") freed=$(jq .totals.freed_bytes "$d/r.json")
t_check "text report: totals line 'all: live N (${live} bytes, ...) freed N (${freed} bytes, ...)' as --json's" \
	grep -q "^  all: live [0-9]* ($live bytes, [0-9]* usable) freed [0-9]* ($freed bytes, [0-9]* usable) tag-corrupted [0-9]*$" "$d/r.txt"
"$ART" native "$d/core" >"$d/r2.txt" 2>&1
t_check "the same input gives the same bytes" cmp -s "$d/r.txt" "$d/r2.txt"

# usage errors
"$ART" native --options "guard=99999" "$d/core" >/dev/null 2>"$TMP/err"; rc=$?
t_check "--options guard=99999: usage error ($(head -c 120 "$TMP/err"))" test $rc -eq 2
"$ART" native --options "frobnicate" "$d/core" >/dev/null 2>"$TMP/err"; rc=$?
t_check "--options frobnicate: usage error naming it" sh -c "test $rc -eq 2 && grep -q frobnicate '$TMP/err'"
"$ART" native >/dev/null 2>&1; t_check "no IMAGE: usage error" test $? -eq 2
"$ART" native --help | grep -q 'usage: artcarve native'; t_check "native --help" test $? -eq 0

# carve --native: a synthetic ART process (samples/android11-64bit) with a malloc_debug heap
# beside it, joined as one maps-dir; case.db's native tables and report.html against the truth
SPLIT=$PWD/build/tools/img_split
d=$TMP/a7_64_bt16_guard32_ft
"$SPLIT" samples/android11-64bit/core samples/android11-64bit/maps maps-dir "$TMP/art" &&
	"$SPLIT" "$d/core" "$d/maps" maps-dir "$TMP/md" && mkdir -p "$TMP/both" &&
	cp "$TMP/art/"*.bin "$TMP/md/"*.bin "$TMP/both/" && cat "$TMP/art/maps" "$TMP/md/maps" | sort >"$TMP/both/maps"
"$ART" carve --json --native --symbols "$TMP/sym" "$TMP/both" -o "$TMP/out" >"$TMP/carve.json" 2>"$TMP/err"
t_check "carve --native on the joined image exits 0 ($(head -c 200 "$TMP/err"))" test $? -eq 0
if python3 "$CMP" "$d/truth.tsv" "$TMP/out/case.db"; then t_ok "case.db native tables: every allocation, damaged byte and frame as the truth"
else t_fail "case.db native tables differ from the truth"; fi
if python3 "$TOTALS" "$d/truth.tsv" "$TMP/out/case.db" >"$TMP/totals"; then t_ok "case.db native_totals as the truth's sums $(head -n 1 "$TMP/totals")"
else t_fail "case.db native_totals: $(cat "$TMP/totals")"; fi
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["native"]["allocations"])' "$TMP/carve.json")
t_check "carve summary: native.allocations = $n = the truth's $(grep -c '^alloc' "$d/truth.tsv")" test "$n" = "$(grep -c '^alloc' "$d/truth.tsv")"
ndmg=$(grep -o 'rear-guard: allocation\[' "$TMP/out/report.html" | wc -l)
t_check "report.html: Native heap section with $ndmg rear-guard lines (truth $(grep -c 'rear-guard' "$d/truth.tsv"))" \
	sh -c "grep -q 'id=\"native\"' '$TMP/out/report.html' && test $ndmg -eq $(grep -c 'rear-guard' "$d/truth.tsv")"
if python3 "$TOTALS" "$d/truth.tsv" "$TMP/out/report.html" "$TMP/out/case.db" >"$TMP/rtotals"; then
	t_ok "report.html native totals (overall, size classes, backtraces by first allocation) as the truth's sums $(head -n 1 "$TMP/rtotals")"
else t_fail "report.html native totals: $(cat "$TMP/rtotals")"; fi
nbt=$(sqlite3 "$TMP/out/case.db" "SELECT count(*) FROM native_totals WHERE kind = 'backtrace'")
nrow=$(sed -n '/<table id="native-backtraces">/,/<\/table>/p' "$TMP/out/report.html" | grep -c '^<tr><td class="a">')
t_check "report.html: $nrow backtrace rows = case.db's $nbt backtrace totals" sh -c "[ '$nrow' -gt 0 ] && [ '$nrow' = '$nbt' ]"
"$ART" carve --json "$TMP/both" -o "$TMP/out2" >/dev/null 2>&1
t_check "without --native: no native tables; report.html's native section says it was not examined" \
	sh -c "! sqlite3 '$TMP/out2/case.db' 'select 1 from native_scan' 2>/dev/null &&
		grep -A1 'id=\"native\"' '$TMP/out2/report.html' | grep -q 'Not examined: the carve ran without --native' &&
		! grep -q 'id=\"native-totals\"' '$TMP/out2/report.html'"
"$ART" carve --json --native "$TMP/art" -o "$TMP/out4" >/dev/null 2>&1
t_check "--native on an image without malloc_debug evidence: report.html says none was found, no totals" \
	sh -c "grep -q 'No malloc_debug allocation found in the regions scanned' '$TMP/out4/report.html' &&
		! grep -q 'id=\"native-totals\"' '$TMP/out4/report.html' &&
		[ \"\$(sqlite3 '$TMP/out4/case.db' 'SELECT allocations FROM native_scan')\" = 0 ]"
"$ART" carve --symbols x "$TMP/both" -o "$TMP/out3" >/dev/null 2>&1
t_check "--symbols without --native: usage error" test $? -eq 2

# sweeps under ASan: truncated cores and corrupted heap bytes give exit 0 or 1, never a crash
if [ -x "$ASAN_ART" ]; then
	src=$TMP/a7_64_bt16_guard32_ft/core
	size=$(wc -c <"$src"); bad=0 runs=0
	for len in $(awk -v n="$size" 'BEGIN{for (i = 0; i < n; i += int(n / 37) + 1) print i; print n - 1}'); do
		head -c "$len" "$src" >"$TMP/cut"
		"$ASAN_ART" native "$TMP/cut" >/dev/null 2>"$TMP/err"; rc=$?
		runs=$((runs + 1))
		case $rc in 0|1) ;; *) bad=$((bad + 1)); echo "  cut at $len: exit $rc: $(head -c 300 "$TMP/err")" ;; esac
	done
	t_check "truncation sweep: $runs cut cores, exit 0 or 1 under ASan" test $bad -eq 0
	bad=0 runs=0
	for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
		cp "$src" "$TMP/flip"
		python3 - "$TMP/flip" "$seed" <<'PY'
import random, sys
p, seed = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, "rb").read())
r = random.Random(seed)
for _ in range(64):   # heap bytes and header words: offsets past the note, any value
    i = r.randrange(len(b) // 8, len(b))
    b[i] = r.choice([0, 0xff, 0xaa, 0xbb, 0xeb, 0xef, 0x0d, 0xd0, 0xe7, 0x1e, r.randrange(256)])
open(p, "wb").write(b)
PY
		"$ASAN_ART" native --json "$TMP/flip" >"$TMP/flip.json" 2>"$TMP/err"; rc=$?
		runs=$((runs + 1))
		case $rc in 0) python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/flip.json" || bad=$((bad + 1)) ;;
		1) ;; *) bad=$((bad + 1)); echo "  flip seed $seed: exit $rc: $(head -c 300 "$TMP/err")" ;; esac
	done
	t_check "corruption sweep: $runs cores with 64 bytes changed each, exit 0 (valid JSON) or 1 under ASan" test $bad -eq 0
else
	t_fail "no ASan build at $ASAN_ART (make asan)"
fi
t_done

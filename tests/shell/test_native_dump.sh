#!/bin/sh
# test_native_dump.sh - `artcarve native-dump` against the ground truth of tests/tools/nd_gen.c:
# native heap dumps v1.0/v1.1/v1.2 (32/64-bit, bt_info, v1.0's wrong NUM counts) whose frames
# lie in small ELF libraries built here with the C compiler (named through --symbols DIR, or
# through the v1.2 bt_info lines), and record_allocs files with known live allocations,
# double frees and unknown frees.  Every call site, folded line, library total, live
# allocation and event is compared; then malformed and truncated files, and a truncation and
# corruption sweep (ASan/UBSan build every 4th run).
. "$(dirname "$0")/lib.sh"
GEN=$PWD/build/tools/nd_gen
[ -x "$GEN" ] || { t_fail "build/tools/nd_gen is not built (make all)"; t_done; exit; }
t_need cc readelf nm jq || { t_done; exit; }

# -- the libraries: nd_a and nd_b with functions of different sizes; the MAPS section names
#    them /system/lib64/libnd_a.so ...; libnd_gone.so is mapped but absent from DIR
SYMDIR=$TMP/symbols
mkdir -p "$SYMDIR/system/lib64"
mklib() {  # NAME NFUNCS
	{
		i=0
		while [ $i -lt "$2" ]; do
			echo "int nd_$1_f$i(int x) { volatile int v = x; for (int k = 0; k < $((i % 5 + 1)) * 3; k++) v = v * 31 + k; return v; }"
			i=$((i + 1))
		done
	} >"$TMP/$1.c"
	cc -shared -fPIC -O0 -o "$SYMDIR/system/lib64/lib$1.so" "$TMP/$1.c" || return 1
}
mklib nd_a 12 && mklib nd_b 7 && mklib nd_gone 3 || { t_fail "cc -shared failed"; t_done; exit; }
# syms: segments from readelf, functions from nm (type T, the nd_ ones)
syms() {  # NAME WITH_FUNCS
	so=$SYMDIR/system/lib64/lib$1.so
	echo "lib /system/lib64/lib$1.so"
	readelf -lW "$so" | awk '$1 == "LOAD" { x = ($0 ~ / R E / || $0 ~ /RWE/) ? 1 : 0; print "seg", $3, $2, $6, x }' |
		sed 's/0x//g'
	[ "$2" = 1 ] && nm -S --defined-only "$so" | awk '$3 ~ /^[Tt]$/ && $4 ~ /^nd_/ { print "fn", $4, $1, $2 }'
	return 0
}
{ syms nd_a 1; syms nd_b 1; syms nd_gone 0; } >"$TMP/syms"
rm "$SYMDIR/system/lib64/libnd_gone.so"
echo "# libraries: $(grep -c '^fn' "$TMP/syms") functions, $(grep -c '^seg' "$TMP/syms") segments"

# label of a JSON frame, as the text and folded outputs write it
JQ_FRAME='(if (.lib // "") != "" then "\(.lib)+\(.offset)" else .pc end) + (if .symbol then " (\(.symbol)+\(.symbol_offset))" else "" end)'

# check_dump NAME GEN-ARGS [TOOL-ARGS]
check_dump() {
	name=$1 gargs=$2 targs=$3
	d=$TMP/$name
	mkdir -p "$d"
	# shellcheck disable=SC2086
	"$GEN" dump $gargs --syms "$TMP/syms" --out "$d/heap.txt" --truth "$d" || { t_fail "$name: nd_gen failed"; return; }
	# shellcheck disable=SC2086
	if ! "$ART" native-dump $targs --json "$d/heap.txt" >"$d/out.json" 2>"$d/err"; then
		t_fail "$name: native-dump failed: $(cat "$d/err")"; return
	fi
	jq -r '"version \(.version)", "records \(.records)", "allocations \(.allocations)", "bytes \(.bytes)",
		"call_sites \(.call_sites)", "num_trusted \(.num_trusted)", "zygote_child_bytes \(.zygote_child_bytes)",
		"maps_lines \(.maps_lines)"' "$d/out.json" >"$d/got.summary"
	t_same "$name: summary ($(tr '\n' ' ' <"$d/summary"))" "$d/got.summary" "$d/summary"
	jq -r ".call_sites_by_bytes[] | \"\(.bytes) \(.allocations) \(.records) \(.zygote_child_bytes) \" + ([.frames[] | $JQ_FRAME] | join(\"|\"))" \
		"$d/out.json" | sort >"$d/got.sites"
	sort "$d/sites" >"$d/want.sites"
	t_same "$name: $(wc -l <"$d/want.sites") call sites, $(tr '|' '\n' <"$d/want.sites" | wc -l) frames (bytes, allocations, records, frames)" \
		"$d/got.sites" "$d/want.sites"
	if jq -e '[.call_sites_by_bytes[].bytes] as $b | $b == ($b | sort | reverse)' "$d/out.json" >/dev/null; then
		t_ok "$name: call sites ordered by bytes"
	else t_fail "$name: call sites not ordered by bytes"; fi
	jq -r '.libraries[] | "\(if .name == "" then "" else .name end) \(.self_bytes) \(.self_allocations) \(.bytes) \(.allocations) \(.sites)"' \
		"$d/out.json" | sort >"$d/got.libs"
	sort "$d/libs" >"$d/want.libs"
	t_same "$name: $(wc -l <"$d/want.libs") libraries (self and inclusive totals)" "$d/got.libs" "$d/want.libs"
	# shellcheck disable=SC2086
	"$ART" native-dump $targs --folded "$d/heap.txt" | sort >"$d/got.folded"
	sort "$d/folded" >"$d/want.folded"
	t_same "$name: folded stacks" "$d/got.folded" "$d/want.folded"
	syms_want=$(grep -o ' ([^ ]*+0x[0-9a-f]*)' "$d/sites" | wc -l)
	syms_got=$(jq '[.call_sites_by_bytes[].frames[] | select(.symbol)] | length' "$d/out.json")
	echo "# $name: symbols resolved $syms_got of $syms_want expected frames"
}

check_dump v10-64 "--version 0 --bits 64 --seed 11 --sites 60"
check_dump v10-32-badnum "--version 0 --bits 32 --seed 12 --sites 40 --bad-num"
check_dump v11-64-symbols "--version 1 --bits 64 --seed 13 --sites 80 --symbols" "--symbols $SYMDIR"
check_dump v11-32 "--version 1 --bits 32 --seed 14 --sites 30"
check_dump v12-64-btinfo "--version 2 --bits 64 --seed 15 --sites 70 --bt-info"
check_dump v12-64-btinfo-symbols "--version 2 --bits 64 --seed 16 --sites 70 --bt-info" "--symbols $SYMDIR"
check_dump v12-32-symbols "--version 2 --bits 32 --seed 17 --sites 50 --symbols" "--symbols $SYMDIR"
if jq -e '[.call_sites_by_bytes[].frames[] | select(.symbol_problem != null)] | length > 0' "$TMP/v11-64-symbols/out.json" >/dev/null &&
	jq -e '[.call_sites_by_bytes[].frames[] | select(.symbol_problem != null) | .lib] | unique == ["/system/lib64/libnd_gone.so"]' \
		"$TMP/v11-64-symbols/out.json" >/dev/null; then
	t_ok "frames in the library missing from --symbols DIR say why they have no symbol"
else t_fail "symbol_problem is not given exactly for libnd_gone.so's frames"; fi

if jq -e '[.call_sites_by_bytes[].frames[] | select(.symbol) | .symbol_from] | unique == ["elf"]' \
	"$TMP/v12-64-btinfo-symbols/out.json" >/dev/null; then
	t_ok "with --symbols, the ELF files name the frames (bt_info only without them)"
else t_fail "with --symbols and bt_info, some frames are not named from the ELF files"; fi

# -- record_allocs
check_rec() {
	name=$1 gargs=$2
	d=$TMP/$name
	mkdir -p "$d"
	# shellcheck disable=SC2086
	"$GEN" rec $gargs --out "$d/rec.txt" --truth "$d" || { t_fail "$name: nd_gen failed"; return; }
	if ! "$ART" native-dump --json "$d/rec.txt" >"$d/out.json" 2>"$d/err"; then
		t_fail "$name: native-dump failed: $(cat "$d/err")"; return
	fi
	jq -r '"entries \(.entries)", (.operations | to_entries[] | "\(.key) \(.value)"), "threads \(.threads)",
		"failed_allocations \(.failed_allocations)", "null_frees \(.null_frees)",
		"live_allocations \(.live_allocations)", "live_bytes \(.live_bytes)", "peak_live_bytes \(.peak_live_bytes)",
		(.event_counts | to_entries[] | "\(.key) \(.value)")' "$d/out.json" >"$d/got.summary"
	t_same "$name: summary ($(tr '\n' ' ' <"$d/summary"))" "$d/got.summary" "$d/summary"
	jq -r '.live[] | "\(.pointer) \(.size) \(.operation) \(.thread) \(.line)"' "$d/out.json" >"$d/got.live"
	t_same "$name: $(wc -l <"$d/live") live allocations (pointer, size, call, thread, line)" "$d/got.live" "$d/live"
	jq -r '.events[] | "\(.kind) \(.pointer) \(.operation) \(.thread) \(.line) \(.previous_line // 0)"' "$d/out.json" >"$d/got.events"
	t_same "$name: $(wc -l <"$d/events") events ($(cut -d' ' -f1 "$d/events" | sort | uniq -c | tr -s ' ' | tr '\n' ','))" \
		"$d/got.events" "$d/events"
	"$ART" native-dump --folded "$d/rec.txt" >"$d/got.folded"
	t_same "$name: folded live bytes per thread and call" "$d/got.folded" "$d/folded"
}
check_rec rec-64 "--seed 21 --ops 4000"
check_rec rec-32-timed "--seed 22 --ops 3000 --bits 32 --timed"

# -- malformed lines: one error naming file, line and column
D=$TMP/v11-32/heap.txt
L=$(grep -n '^z ' "$D" | sed -n 3p | cut -d: -f1)
sed "${L}s/  sz / sx /" "$D" >"$TMP/bad1.txt"
"$ART" native-dump "$TMP/bad1.txt" >/dev/null 2>"$TMP/e1"; rc=$?
C=$(sed -n "${L}p" "$TMP/bad1.txt" | awk '{ print index($0, " sx") + 1 }')
want="artcarve native-dump: $TMP/bad1.txt:$L:$C: expected \"sz\" and the allocation size"
if [ $rc -eq 1 ] && [ "$(cat "$TMP/e1")" = "$want" ]; then t_ok "bad record line: exit 1, '$(cat "$TMP/e1")'"
else t_fail "bad record line: exit $rc, '$(cat "$TMP/e1")', expected '$want'"; fi
R=$TMP/rec-64/rec.txt
sed '7s/: \([a-z_]*\) 0x/: \1 0y/' "$R" >"$TMP/bad2.txt"
"$ART" native-dump "$TMP/bad2.txt" >/dev/null 2>"$TMP/e2"; rc=$?
C=$(sed -n 7p "$TMP/bad2.txt" | awk '{ print index($0, "0y") + 1 }')
if [ $rc -eq 1 ] && grep -q "^artcarve native-dump: $TMP/bad2.txt:7:$C: " "$TMP/e2" && [ "$(wc -l <"$TMP/e2")" -eq 1 ]; then
	t_ok "bad record_allocs pointer: '$(cat "$TMP/e2")'"
else t_fail "bad record_allocs pointer: exit $rc, '$(cat "$TMP/e2")', expected line 7 column $C"; fi
sed '9s/malloc/mallocx/;9s/calloc/callocx/;9s/free/freex/;9s/realloc/reallocx/;9s/memalign/memalignx/;9s/thread_done/thread_donex/' "$R" >"$TMP/bad3.txt"
"$ART" native-dump "$TMP/bad3.txt" >/dev/null 2>"$TMP/e3"; rc=$?
if [ $rc -eq 1 ] && grep -q "bad3.txt:9:[0-9]*: unknown operation" "$TMP/e3"; then t_ok "unknown operation: '$(cat "$TMP/e3")'"
else t_fail "unknown operation: exit $rc, '$(cat "$TMP/e3")'"; fi

# -- truncation: a dump cut inside its records reports what it read and fails
D=$TMP/v12-64-btinfo/heap.txt
size=$(wc -c <"$D")
cut=$((size / 2))
head -c "$cut" "$D" >"$TMP/cut.txt"
want_records=$(head -c "$cut" "$D" | head -n "$(head -c "$cut" "$D" | wc -l)" | grep -c '^z ')
"$ART" native-dump --json "$TMP/cut.txt" >"$TMP/cut.json" 2>"$TMP/ecut"; rc=$?
got_records=$(jq .records "$TMP/cut.json" 2>/dev/null)
if [ $rc -eq 1 ] && [ "$got_records" = "$want_records" ] && [ "$(jq .complete "$TMP/cut.json")" = false ] &&
	grep -q "truncated at line .*: read $want_records records of the" "$TMP/ecut"; then
	t_ok "dump cut at byte $cut of $size: exit 1, report of $got_records records, '$(cat "$TMP/ecut")'"
else t_fail "dump cut at byte $cut: exit $rc, records $got_records (want $want_records), '$(cat "$TMP/ecut")'"; fi
R=$TMP/rec-32-timed/rec.txt
head -c $(($(wc -c <"$R") - 3)) "$R" >"$TMP/rcut.txt"
"$ART" native-dump --json "$TMP/rcut.txt" >"$TMP/rcut.json" 2>"$TMP/ercut"; rc=$?
want_lines=$(($(wc -l <"$R") - 1))
if [ $rc -eq 1 ] && [ "$(jq .entries "$TMP/rcut.json")" = "$want_lines" ] && grep -q "truncated in line $((want_lines + 1))" "$TMP/ercut"; then
	t_ok "record_allocs cut in its last line: exit 1, $want_lines entries replayed, '$(cat "$TMP/ercut")'"
else t_fail "record_allocs cut: exit $rc, entries $(jq .entries "$TMP/rcut.json" 2>/dev/null) (want $want_lines), '$(cat "$TMP/ercut")'"; fi

# -- the fuzz seed corpora are what tests/fuzz/seedgen/native_dump_seeds.sh writes today
if sh tests/fuzz/seedgen/native_dump_seeds.sh "$TMP/seeds" &&
	diff -r "$TMP/seeds/fuzz_native_dump" tests/fuzz/corpus/fuzz_native_dump >"$TMP/sd" &&
	diff -r "$TMP/seeds/fuzz_record_allocs" tests/fuzz/corpus/fuzz_record_allocs >>"$TMP/sd"; then
	t_ok "fuzz seeds: $(ls "$TMP/seeds"/* | wc -l) files regenerate identical"
else t_fail "fuzz seeds differ from tests/fuzz/seedgen/native_dump_seeds.sh's output: $(head -c 300 "$TMP/sd")"; fi

# -- sweeps: every cut and mutant exits 0 or 1 with one stderr line (ASan/UBSan build every 4th)
[ -x "$ASAN_ART" ] || ASAN_ART=$ART
sweep_fail=0 sweep_runs=0
sweep_one() {  # FILE LABEL
	sweep_runs=$((sweep_runs + 1))
	bin=$ART
	[ $((sweep_runs % 4)) -eq 0 ] && bin=$ASAN_ART
	timeout 60 "$bin" native-dump "$1" >/dev/null 2>"$TMP/serr"
	rc=$?
	case $rc in
	0) ;;
	1) [ "$(wc -l <"$TMP/serr")" -eq 1 ] || { sweep_fail=$((sweep_fail + 1)); echo "# $2: $(wc -l <"$TMP/serr") stderr lines"; } ;;
	*) sweep_fail=$((sweep_fail + 1)); echo "# $2 ($bin): exit $rc: $(head -c 300 "$TMP/serr")" ;;
	esac
}
for src in "$TMP/v10-32-badnum/heap.txt" "$TMP/v12-64-btinfo/heap.txt" "$TMP/rec-32-timed/rec.txt"; do
	n=$(wc -c <"$src")
	i=0
	while [ $i -lt 40 ]; do
		head -c $((n * i / 40)) "$src" >"$TMP/sw.txt"
		sweep_one "$TMP/sw.txt" "$(basename "$(dirname "$src")") cut at $((n * i / 40))"
		i=$((i + 1))
	done
	i=1
	while [ $i -lt 40 ]; do
		p=$((n * i / 40 + i))
		cp "$src" "$TMP/sw.txt"
		for v in 0 32 45 49 122 255; do
			printf "\\$(printf %03o "$v")" | dd of="$TMP/sw.txt" bs=1 seek="$p" conv=notrunc 2>/dev/null
			sweep_one "$TMP/sw.txt" "$(basename "$(dirname "$src")") byte $p = $v"
		done
		i=$((i + 1))
	done
done
if [ $sweep_fail -eq 0 ]; then t_ok "sweep: $sweep_runs cut or corrupted files exited 0 or 1 with one message"
else t_fail "sweep: $sweep_fail of $sweep_runs runs misbehaved"; fi
t_done

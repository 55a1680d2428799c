#!/bin/sh
# tier: quick
# test_hprof_convert.sh - `artcarve convert` against Debian hprof-conv's output (golden), its
# documented differences (1.0.2 pass-through, --app-only without empty segments) and failures
# (exit 1, one line naming the offset, no output file).
. "$(dirname "$0")/lib.sh"
H=$CORPUS/hprof
t_need jq && t_corpus "$H" || { t_done; exit; }
expect() { if [ "$2" = "$3" ]; then t_ok "$1 = $3"; else t_fail "$1 = $2, expected $3"; fi; }
O=$TMP/out; mkdir -p "$O"

# golden: byte-identical to hprof-conv 29.0.6 on the KitKat dialer dump
if "$ART" convert "$H/dialer.android-hprof" "$O/dialer.hprof"; then
	t_same "convert dialer" "$O/dialer.hprof" "$H/badoo-golden/dialer.hprof-conv.hprof"
else t_fail "convert dialer failed"; fi

# the other Android dumps: standard tags only, same objects, record count unchanged
for f in leak_service_binder.hprof leak_service_binder_ignored.hprof; do
	"$ART" convert "$H/$f" "$O/$f" || { t_fail "convert $f"; continue; }
	"$ART" hprof-info --json "$H/$f" >"$TMP/in.json" && "$ART" hprof-info --json "$O/$f" >"$TMP/out.json" || { t_fail "info $f"; continue; }
	expect "$f: version" "$(jq -r .version "$TMP/out.json")" "JAVA PROFILE 1.0.2"
	expect "$f: objects and records kept" "$(jq -c '[.classes, .instances, .object_arrays, .primitive_arrays, .record_count, .root_count]' "$TMP/out.json")" \
		"$(jq -c '[.classes, .instances, .object_arrays, .primitive_arrays, .record_count, .root_count]' "$TMP/in.json")"
	expect "$f: Android sub-records left" "$(jq '[.sub_records | keys[] | select(test("INTERNED|FINALIZING|DEBUGGER|VM_INTERNAL|JNI_MONITOR|UNREACHABLE|CLEANUP|NODATA|HEAP_DUMP_INFO"))] | length' "$TMP/out.json")" 0
done

# the real ART captures (Android 8-13 runtimes, 4 KiB-20 MB): byte-identical to hprof-conv itself
HC=/usr/lib/android-sdk/platform-tools/hprof-conv
if [ -x "$HC" ] || t_need hprof-conv; then
	[ -x "$HC" ] || HC=hprof-conv
	real=0
	for z in "$CORPUS"/images/realart/*/heap.hprof.zst; do
		[ -f "$z" ] || continue
		real=$((real + 1))
		n=$(basename "$(dirname "$z")")
		zstd -q -dc "$z" >"$TMP/ra.hprof" || { t_fail "$n: zstd"; continue; }
		"$HC" "$TMP/ra.hprof" "$TMP/ra-hc.hprof" >/dev/null 2>&1 || { t_fail "$n: hprof-conv failed"; continue; }
		if "$ART" convert "$TMP/ra.hprof" "$TMP/ra-ac.hprof"; then t_same "convert realart $n = hprof-conv" "$TMP/ra-ac.hprof" "$TMP/ra-hc.hprof"
		else t_fail "convert realart $n failed"; fi
	done
	[ "$real" -ge 8 ] && t_ok "$real realart captures compared" || t_fail "only $real realart captures found"
fi

# standard input passes through unchanged (hprof-conv would refuse it); conversion is idempotent
for f in RI.hprof hprof-slurp-hprof-32.hprof badoo-golden/jdk17-jvm.hprof; do
	n=$(basename "$f")
	if "$ART" convert "$H/$f" "$O/$n"; then t_same "convert $n (already standard)" "$O/$n" "$H/$f"
	else t_fail "convert $n failed"; fi
done
if "$ART" convert "$O/dialer.hprof" "$O/dialer2.hprof"; then t_same "convert is idempotent" "$O/dialer2.hprof" "$O/dialer.hprof"
else t_fail "reconvert failed"; fi

# --app-only (hprof-conv -z): zygote instances/arrays go, classes and roots stay, no empty segment
if "$ART" convert --app-only -v "$H/dialer.android-hprof" "$O/app.hprof" 2>"$TMP/v"; then
	"$ART" hprof-info --json "$H/dialer.android-hprof" >"$TMP/in.json"
	"$ART" hprof-info --json "$O/app.hprof" >"$TMP/app.json"
	expect "app-only: objects = app heap objects + every class" \
		"$(jq -c '[.classes, .instances, .object_arrays, .primitive_arrays, .root_count]' "$TMP/app.json")" \
		"$(jq -c '[.classes, (.heaps[] | select(.name == "app") | .instances, .object_arrays, .primitive_arrays), .root_count]' "$TMP/in.json")"
	# hprof-conv -z leaves 177 of the 636 segments empty (tools/hprof-conv/HprofConv.c); we leave them out
	expect "app-only: segments" "$(jq .segments "$TMP/app.json")" 459
	grep -q "177 empty heap dump records left out" "$TMP/v" && t_ok "app-only reports 177 dropped segments" || t_fail "app-only stats: $(cat "$TMP/v")"
	rm -f "$O/app.hprof"
else t_fail "convert --app-only failed"; fi
rm -f "$O"/*

# failures: exit 1, one line naming an offset, nothing left in the output directory
fails() { # fails NAME INPUT
	"$ART" convert "$2" "$O/x.hprof" 2>"$TMP/err"; rc=$?
	left=$(ls -A "$O" | wc -l)
	if [ $rc -eq 1 ] && [ "$left" -eq 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "0x[0-9a-f]" "$TMP/err"; then
		t_ok "$1: $(cat "$TMP/err")"
	else t_fail "$1: exit $rc, $left files left, stderr: $(cat "$TMP/err")"; fi
	rm -f "$O"/* "$O"/.[!.]*
}
head -c 2000000 "$H/dialer.android-hprof" >"$TMP/cut"; fails "truncated input" "$TMP/cut"
# (octal escapes: dash's printf has no \x)
printf 'JAVA PROFILE 1.0.3\000\000\000\000\004\000\000\000\000\000\000\000\000\034\000\000\000\000\000\000\000\002\167\000' >"$TMP/badsub"
fails "unknown sub-record tag" "$TMP/badsub"
grep -q "unknown tag 0x77" "$TMP/err" && t_ok "names the unknown tag" || t_fail "unknown tag message: $(cat "$TMP/err")"
printf 'JAVA PROFILE 2.0\0\0\0\0\4\0\0\0\0\0\0\0\0' >"$TMP/v2"; fails "unknown version" "$TMP/v2"
"$ART" convert "$H/RI.hprof" >/dev/null 2>&1; expect "one argument: exit status" $? 2
"$ART" convert --frobnicate "$H/RI.hprof" "$O/x" >/dev/null 2>&1; expect "unknown option: exit status" $? 2
"$ART" convert "$H/RI.hprof" "$TMP/no/such/dir/x.hprof" >/dev/null 2>&1; expect "unwritable output: exit status" $? 3
"$ART" convert --help | grep -q "^usage: artcarve convert" && t_ok "--help" || t_fail "--help"
t_done

#!/bin/sh
# test_disasm.sh - `artcarve disasm`: method selection (exact names with '[', globs), naming
# through the DEX (inside the OAT, 5.x-7.x) or by position (no DEX), call targets named,
# --list/--sample/--json consistency, and hostile inputs: copies of corpus OATs (made here in
# $TMP) with corrupted method headers, code offsets and truncations give clear errors or
# warnings and never read outside the mapped code (also run under ASan/UBSan).
. "$(dirname "$0")/lib.sh"

A=$CORPUS/art
t_need jq perl && t_corpus "$A" || { t_done; exit; }
AM=$A/a5.1_arm_nexus5-LMY47I/am.odex
ARM64=$A/a10_art074_arm64_samsung-a8s/HardcoderService.odex
# listed FILE NAME: NAME is a line of the --list output in FILE
listed() { grep -q " $2\$" "$1"; }
corrupt_ok() { [ "$1" -eq 0 ] && ! listed "$TMP/out" "$name"; }
offset_ok() { [ "$nf" = 1 ] && [ "$rc" -le 1 ] && ! listed "$TMP/out" "$name" &&
	{ [ "$v" = 00000000 ] || grep -q "left out as corrupt" "$TMP/err"; }; }
patch() {
	perl -e 'open(my $f, "+<", $ARGV[0]) or die; binmode $f; seek($f, $ARGV[1], 0); print $f pack("H*", $ARGV[2]);' "$1" "$2" "$3"
}

# --- selection and naming ---
main='Lcom/android/commands/am/Am;->main([Ljava/lang/String;)V'
"$ART" disasm "$AM" "$main" >"$TMP/main.txt" 2>&1
t_check "exact name with '[' selects one method" [ "$(grep -c '^Lcom/' "$TMP/main.txt")" = 1 ]
t_check "its code is Thumb-2 with instructions" grep -q 'thumb2, code 0x' "$TMP/main.txt"
"$ART" disasm --list "$AM" 'Lcom/android/commands/am/Am;->*' >"$TMP/glob.txt"
n=$(wc -l <"$TMP/glob.txt")
t_check "glob selects the methods of one class ($n)" [ "$n" -gt 5 ]
t_check "every glob match is in that class" [ "$(grep -vc 'Lcom/android/commands/am/Am;->' "$TMP/glob.txt")" = 0 ]
"$ART" disasm --list "$AM" '*' | awk '{ print $3 }' >"$TMP/names"
t_check "DEX names are Lpkg/Class;->name(sig)" [ "$(grep -vc '^L[^;]*;->[^(]*(.*)' "$TMP/names")" = 0 ]
t_check "names are unique per compiled method" [ "$(sort "$TMP/names" | uniq -d | wc -l)" = 0 ]
"$ART" disasm --list "$ARM64" '*' | awk '{ print $3 }' >"$TMP/pos"
t_check "without the DEX names are positional" [ "$(grep -vc '^dex[0-9]*:class[0-9]*:method[0-9]*$' "$TMP/pos")" = 0 ]
"$ART" disasm --json --sample 7 "$AM" '*' >"$TMP/s.json"
t_check "--sample 7 gives 7 methods" [ "$(jq length "$TMP/s.json")" = 7 ]
t_check "--json sizes equal the sum of instruction sizes" \
	[ "$(jq '[.[] | .size == ([.instructions[].size] | add)] | all' "$TMP/s.json")" = true ]
"$ART" disasm --json --sample 7 "$AM" '*' >"$TMP/s2.json"
t_same "--sample is deterministic" "$TMP/s2.json" "$TMP/s.json"
"$ART" disasm --json "$A/a9_art056_arm64_lineage16-eify/boot-core-libart.oat" '*' >"$TMP/lib.json"
t_check "direct calls to other compiled methods are named" \
	[ "$(jq '[.[].instructions[] | select(.mnemonic == "bl") | .comment // "" | test("^dex0:class[0-9]+:method[0-9]+$")] | any' "$TMP/lib.json")" = true ]
t_check "thread-register operands are named" \
	[ "$(jq '[.[].instructions[] | .comment // "" | startswith("Thread+0x")] | any' "$TMP/lib.json")" = true ]
"$ART" disasm "$AM" 'Lno/Such;->thing()V' >/dev/null 2>"$TMP/err"; rc=$?
nomatch_ok() { [ "$rc" -eq 1 ] && grep -q "no compiled method matches" "$TMP/err"; }
t_check "no match: status 1 with a message" nomatch_ok

# --- usage ---
"$ART" disasm "$AM" >/dev/null 2>&1; t_check "missing METHOD: usage (2)" [ $? -eq 2 ]
"$ART" disasm --sample 0 "$AM" '*' >/dev/null 2>&1; t_check "--sample 0: usage (2)" [ $? -eq 2 ]
"$ART" disasm --frob "$AM" '*' >/dev/null 2>&1; t_check "unknown option: usage (2)" [ $? -eq 2 ]

# --- hostile inputs (copies in $TMP) ---
# the method header's code size sits right before the code (4 bytes, all versions)
pick=$("$ART" disasm --list --json "$ARM64" '*' | jq -r '.[3] | "\(.file_offset) \(.method)"')
off=${pick%% *} name=${pick#* }
for v in 00000000 ffffffff ffffff7f 00000100; do
	cp "$ARM64" "$TMP/c.odex"
	patch "$TMP/c.odex" $((off - 4)) "$v"
	for bin in "$ART" "$ASAN_ART"; do
		[ -x "$bin" ] || continue
		"$bin" disasm --list "$TMP/c.odex" '*' >"$TMP/out" 2>"$TMP/err"; rc=$?
		t_check "code size $v ($(basename "$(dirname "$bin")")): listed without that method, status 0 (rc $rc)" \
			corrupt_ok $rc
		t_check "code size $v: warning names the method header" grep -q "left out as corrupt, first: .*method code at 0x" "$TMP/err"
	done
done
# code_offset fields: find the u32 holding the chosen method's code offset in oatdata and break it
# code_offset is oatdata-relative: the method's address minus the oatdata symbol's value
oatdata=$(readelf -Ws --dyn-syms "$ARM64" 2>/dev/null | awk '$8 == "oatdata" { print $2; exit }')
code=$(printf '%x' $(( $("$ART" disasm --list --json "$ARM64" '*' | jq -r '.[3].address') - 0x$oatdata )))
for v in 00000000 ffffffff 01000000; do
	cp "$ARM64" "$TMP/o.odex"
	nf=$(perl -e 'local $/; open(my $f, "<", $ARGV[0]); binmode $f; my $d = <$f>; my $k = pack("V", hex($ARGV[1]));
		my ($c, $p) = (0, 0); while (($p = index($d, $k, $p)) >= 0) { if ($p < 0x3000) { substr($d, $p, 4) = pack("H*", $ARGV[2]); $c++ } $p += 4 }
		open(my $o, ">", $ARGV[0]); binmode $o; print $o $d; print STDERR $c;' "$TMP/o.odex" "$code" "$v" 2>&1)
	"$ASAN_ART" disasm --list "$TMP/o.odex" '*' >"$TMP/out" 2>"$TMP/err"; rc=$?
	t_check "code offset $v ($nf field, rc $rc): no crash, the method is gone, a warning says why" offset_ok
done
# truncations of the whole file
size=$(wc -c <"$AM")
for cut in 100 4096 $((size / 2)) $((size - 1)); do
	head -c "$cut" "$AM" >"$TMP/t.odex"
	"$ASAN_ART" disasm --list "$TMP/t.odex" '*' >/dev/null 2>"$TMP/err"; rc=$?
	t_check "truncated to $cut bytes: rejected or partial, no crash (rc $rc: $(head -c 120 "$TMP/err"))" [ $rc -le 1 ]
done
t_done

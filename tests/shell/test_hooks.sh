#!/bin/sh
# test_hooks.sh - `artcarve hooks`: no false positives on the clean corpus, and every injected
# hook found.  Hooked inputs are built here, in $TMP, from copies of corpus files:
#   inline  the first bytes of a compiled method overwritten with a Frida-style trampoline
#           (arm64 ldr x16,#8; br x16; .quad T  and  b +64MiB; Thumb-2 ldr.w pc,[pc]; .word T;
#           x86_64 jmp [rip]; .quad T; x86 push T; ret)
#   entry   an ArtMethod's quick entry point in a boot image rewritten to an address outside
#           every known code mapping (layout of ART 10: LengthPrefixedArray header = pointer
#           size, entry_point_from_quick_compiled_code_ at +32 (64-bit) / +24 (32-bit),
#           runtime/art_method.h @R70..R14)
. "$(dirname "$0")/lib.sh"

A=$CORPUS/art
t_need jq perl && t_corpus "$A" || { t_done; exit; }

# patch FILE OFFSET HEX: overwrites bytes in place (the copy in $TMP)
patch() {
	perl -e 'open(my $f, "+<", $ARGV[0]) or die; binmode $f; seek($f, $ARGV[1], 0); print $f pack("H*", $ARGV[2]);' "$1" "$2" "$3"
}

hooks_count() { "$ART" hooks --json "$1" | jq '.hooks | length'; }

# --- clean inputs: every corpus OAT/ODEX and every ART image file ---
for f in "$A"/*/*.oat "$A"/*/*.odex "$A"/*/*.art; do
	[ -f "$f" ] || continue
	n=$(hooks_count "$f" 2>"$TMP/err") || { t_fail "${f#"$A"/}: $(cat "$TMP/err")"; continue; }
	t_check "clean ${f#"$A"/}: no hooks" [ "$n" = 0 ]
done
t_check "boot.art (arm64, 10): every ArtMethod checked against boot.oat" \
	[ "$("$ART" hooks --json "$A/a10_art074_arm64_samsung-a8s/boot.art" | jq '.methods_checked > 20000 and .entries_unverified == 0')" = true ]

# --- inline hooks, one per ISA ---
# inline_case NAME FILE ALIGN HEX EXPECTED_TARGET(|+OFFSET)
inline_case() {
	name=$1 src=$2 align=$3 hex=$4 want=$5
	cp "$src" "$TMP/h.oat"
	# the 5th method of at least 32 bytes whose code is ALIGN-aligned
	"$ART" disasm --list --json "$src" '*' | jq -r --argjson a "$align" \
		'[.[] | select(.size >= 32) | select((.address | ltrimstr("0x") | explode | map(if . >= 97 then . - 87 else . - 48 end) | reduce .[] as $d (0; . * 16 + $d)) % $a == 0)][4] |
		 "\(.file_offset) \(.address) \(.method)"' >"$TMP/pick"
	read -r off addr method <"$TMP/pick"
	case $want in +*) want=$(printf '0x%x' $((addr + ${want#+}))) ;; esac
	patch "$TMP/h.oat" "$off" "$hex"
	"$ART" hooks --json "$TMP/h.oat" >"$TMP/h.json" || { t_fail "$name: hooks failed"; return; }
	# (deduplicated code: the report may name another method sharing these bytes)
	got=$(jq -r '.hooks | length, .[0].kind, .[0].code, .[0].target' "$TMP/h.json" | tr '\n' ' ')
	t_check "$name: one inline hook at $method ($addr) -> $want (got: $got)" \
		[ "$got" = "1 inline $addr $want " ]
}
inline_case "arm64 ldr x16,#8; br x16" "$A/a10_art074_arm64_samsung-a8s/HardcoderService.odex" 4 \
	5000005800021fd6001000007f000000 0x7f00001000
inline_case "arm64 b +64MiB" "$A/a9_art056_arm64_lineage16-eify/boot-core-libart.oat" 4 00000015 +0x4000000
inline_case "Thumb-2 ldr.w pc,[pc]" "$A/a5.1_arm_nexus5-LMY47I/am.odex" 4 dff800f001100040 0x40001000
inline_case "Thumb-2 b.w far" "$A/a10_art074_arm_samsung-a8s/boot.oat" 4 00f100b8 +0x100004
inline_case "x86_64 jmp [rip]" "$A/a11_art085_x86_64_aosp-emulator/ethernet-service.odex" 1 \
	ff2500000000001000007f000000 0x7f00001000
inline_case "x86 push imm; ret" "$A/a11_art085_x86_aosp-emulator/com.android.location.provider.odex" 1 \
	6800100040c3 0x40001000

# --- entry point hooks in boot image files (ART 10, 64- and 32-bit) ---
# entry_case NAME DIR PTRSIZE ENTRY_OFFSET HEX_VALUE WANT
entry_case() {
	name=$1 dir=$2 p=$3 at=$4 hex=$5 want=$6
	rm -rf "$TMP/img" && mkdir "$TMP/img" && cp "$dir/boot.art" "$dir/boot.oat" "$TMP/img/"
	"$ART" art-file --json "$TMP/img/boot.art" | jq -r '.files[0] // .[0] | "\(.sections["art-methods"].offset) \(.header.image_begin)"' >"$TMP/sec"
	read -r sec begin <"$TMP/sec"
	method=$((sec + p))          # the first ArtMethod of the first array
	patch "$TMP/img/boot.art" $((method + at)) "$hex"
	"$ART" hooks --json "$TMP/img/boot.art" >"$TMP/h.json" || { t_fail "$name: hooks failed"; return; }
	got=$(jq -r '.hooks | length, .[0].kind, .[0].art_method, .[0].code' "$TMP/h.json" | tr '\n' ' ')
	t_check "$name: one entry hook at ArtMethod $(printf '0x%x' $((begin + method))) (got: $got)" \
		[ "$got" = "1 entry $(printf '0x%x' $((begin + method))) $want " ]
}
entry_case "boot.art arm64" "$A/a10_art074_arm64_samsung-a8s" 8 32 001000adde7f0000 0x7fdead001000
entry_case "boot.art arm" "$A/a10_art074_arm_samsung-a8s" 4 24 010000e0 0xe0000001


# --- a memory image (maps + region files) built from the arm64 boot image and its OAT, mapped
# where the image header puts them; plus an uncaptured JIT code cache mapping ---
D=$A/a10_art074_arm64_samsung-a8s
M=$TMP/mem
mkdir -p "$M"
"$ART" art-file --json "$D/boot.art" | jq -r '.files[0] // .[0] | "\(.header.image_begin) \(.header.image_size) \(.header.oat_file_begin) \(.sections["art-methods"].offset)"' >"$TMP/hdr"
read -r ibegin isize obegin msec <"$TMP/hdr"
region() { # START SIZE PERMS OFFSET NAME SRC SRCOFF (SRC "-" = not captured)
	s=$(printf '%x' $(($1))) e=$(printf '%x' $(( ($1 + $2 + 4095) / 4096 * 4096 )))
	printf '%s-%s %s %08x 00:00 0 %s\n' "$s" "$e" "$3" $(($4)) "$5" >>"$M/maps"
	[ "$6" = - ] || tail -c +$(($7 + 1)) "$6" | head -c $(($2)) >"$M/$s-$e.bin"
}
: >"$M/maps"
region "$ibegin" "$isize" rw-p 0 /system/framework/arm64/boot.art "$D/boot.art" 0
readelf -lW "$D/boot.oat" | awk '$1 == "LOAD" && $5 != "0x000000" { print $2, $3, $5, ($0 ~ / R E /) ? "x" : "r" }' |
	head -n 2 >"$TMP/segs"
while read -r off va fsz flg; do
	if [ "$flg" = x ]; then perms=r-xp; else perms=r--p; fi
	region $((obegin + va)) "$fsz" "$perms" "$off" /system/framework/arm64/boot.oat "$D/boot.oat" "$off"
done <"$TMP/segs"
region 0x7e000000 0x100000 rwxp 0 "[anon:dalvik-jit-code-cache]" - 0
"$ART" hooks --json "$M" >"$TMP/m.json" 2>"$TMP/err" || t_fail "memory image: $(cat "$TMP/err")"
t_check "memory image: no hooks, every ArtMethod checked against the mapped OAT" \
	[ "$(jq '(.hooks | length) == 0 and .methods_checked > 20000 and .entries_unverified == 0' "$TMP/m.json")" = true ]
"$ART" disasm --json --sample 3 "$M" '*' >"$TMP/md.json" && "$ART" disasm --json --sample 3 "$D/boot.oat" '*' >"$TMP/fd.json"
t_check "memory image: disasm at runtime addresses, same bytes as the file" \
	[ "$(jq -s '[.[0], .[1]] | (.[0] | map(.address)) as $m | (.[1] | map(.address)) as $f |
		(.[0] | map([.instructions[].bytes] | join(""))) == (.[1] | map([.instructions[].bytes] | join(""))) and
		$m != $f' "$TMP/md.json" "$TMP/fd.json")" = true ]
ifile=$M/$(printf '%x' $((ibegin)))-*.bin
ifile=$(echo $ifile)
entry=$((msec + 8 + 32))
cp "$ifile" "$TMP/img.keep"
patch "$ifile" "$entry" 0001007e00000000       # into the JIT code cache: known code
t_check "memory image: an entry point in the JIT code cache is not a hook" [ "$(hooks_count "$M")" = 0 ]
patch "$ifile" "$entry" 001000adde7f0000       # anonymous memory: a hook
"$ART" hooks --json "$M" >"$TMP/m.json"
t_check "memory image: an entry point outside known code is found" \
	[ "$(jq -r '.hooks | length, .[0].kind, .[0].code' "$TMP/m.json" | tr '\n' ' ')" = "1 entry 0x7fdead001000 " ]
cp "$TMP/img.keep" "$ifile"
# an inline hook written into the mapped OAT code of a method an ArtMethod enters
code=$(jq -r '.[1].address' "$TMP/md.json")
xfile=$(grep ' r-xp ' "$M/maps" | awk '{ print $1 }')
patch "$M/$xfile.bin" $((code - 0x${xfile%-*})) 5000005800021fd6001000007f000000
"$ART" hooks --json "$M" >"$TMP/m.json"
t_check "memory image: an inline hook in mapped OAT code is found" \
	[ "$(jq -r '.hooks | length, .[0].kind, .[0].code, .[0].target' "$TMP/m.json" | tr '\n' ' ')" = "1 inline $code 0x7f00001000 " ]

# --- usage and rejected input ---
"$ART" hooks >/dev/null 2>&1; t_check "no input: usage error (2)" [ $? -eq 2 ]
"$ART" hooks --bogus x >/dev/null 2>&1; t_check "unknown option: usage error (2)" [ $? -eq 2 ]
printf 'not an image' >"$TMP/junk"
"$ART" hooks "$TMP/junk" >/dev/null 2>"$TMP/err"; rc=$?
t_check "junk input rejected (1): $(cat "$TMP/err")" [ $rc -eq 1 ]
t_done

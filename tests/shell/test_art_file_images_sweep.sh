#!/bin/sh
# test_art_file_images_sweep.sh - hostile variants of real ART images through
# `artcarve art-file`: truncations, every header word set to 0 / 0xffffffff / value+1, and
# sampled words of the objects section (class pointers, lengths, sizes) set to 0 /
# 0xffffffff / value+8.  Each run must exit 0 or 1 (never crash, never 3), and a rejection
# is one line on stderr naming an offset or address.  Part of the sweep runs under ASan.
. "$(dirname "$0")/lib.sh"

ARTDIR=$CORPUS/art
t_corpus "$ARTDIR" || { t_done; exit; }

u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
poke32() { # FILE OFFSET VALUE: little-endian u32
	v=$(($3 & 0xffffffff))
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24 & 255)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

runs=0 bad=0
# run BIN FILE WHAT: checks the exit status and the error line
run() {
	runs=$((runs + 1))
	"$1" art-file "$2" >/dev/null 2>"$TMP/err"
	rc=$?
	lines=$(wc -l <"$TMP/err")
	case $rc in
	0) [ "$lines" -eq 0 ] && return 0 ;;
	1) [ "$lines" -eq 1 ] && grep -q '0x[0-9a-f]' "$TMP/err" && return 0 ;;
	esac
	bad=$((bad + 1))
	[ $bad -le 10 ] && t_fail "$3: exit $rc, stderr: $(head -c 300 "$TMP/err")"
	return 1
}

# sweep BIN SOURCE [COMPANION...]: mutations of SOURCE in a folder of its own (with companions)
sweep() {
	bin=$1 src=$2
	shift 2
	name=${src##*/} dir=$TMP/sweep
	rm -rf "$dir" && mkdir -p "$dir"
	for c in "$@"; do cp "$c" "$dir/"; done
	f=$dir/$name
	len=$(wc -c <"$src")
	cp "$src" "$f" && run "$bin" "$f" "$name unmodified" || return
	# header size of the version: the walk starts at the first object after it
	"$ART" art-file "$f" >"$TMP/rep"
	hdr=$(($(sed -n 's/^  begin: //p' "$TMP/rep"))) oend=$(($(sed -n 's/^  objects_end: //p' "$TMP/rep")))
	for cut in 0 3 7 8 $((hdr - 8)) $((hdr - 1)) $hdr $((hdr + 8)) $((len / 3)) $((len / 2)) $((len - 4097)) $((len - 1)); do
		[ $cut -ge 0 ] && [ $cut -lt "$len" ] || continue
		head -c $cut "$src" >"$f"
		run "$bin" "$f" "$name cut at $cut"
	done
	off=4
	while [ $off -lt $hdr ]; do
		old=$(u32 "$src" $off)
		for v in 0 4294967295 $((old + 1)); do
			[ "$v" = "$old" ] && continue
			cp "$src" "$f" && poke32 "$f" $off $v
			run "$bin" "$f" "$name header word $off = $v"
		done
		off=$((off + 4))
	done
	# objects section words, deterministic sample (uncompressed files only: compressed
	# data changes decode as damaged lz4 blocks, covered by the header words above)
	grep -q '^storage: uncompressed' "$TMP/rep" || return
	i=0
	while [ $i -lt "${SAMPLES:-24}" ]; do
		off=$(( (hdr + (i * 7919 * 8) % (oend - hdr)) / 4 * 4 ))
		old=$(u32 "$src" $off)
		for v in 0 4294967295 $((old + 8)); do
			cp "$src" "$f" && poke32 "$f" $off $v
			run "$bin" "$f" "$name object word $off = $v"
		done
		i=$((i + 1))
	done
}

A=$ARTDIR
sweep "$ART" "$A/a7.0_art029_arm_mt6580-shelly/boot-conscrypt.art" "$A/a7.0_art029_arm_mt6580-shelly/boot-conscrypt.oat"
sweep "$ART" "$A/a7.1.1_art030_arm64_nextbit-robin/boot-core-junit.art"
sweep "$ART" "$A/a9_art056_arm64_lineage16-eify/services.art"
sweep "$ART" "$A/a10_art074_arm64_samsung-a8s/boot-core-libart.art"
SAMPLES=12 sweep "$ART" "$A/a11_art085_x86_aosp-emulator/boot-ext.art"
if [ -x "$ASAN_ART" ]; then
	SAMPLES=16 sweep "$ASAN_ART" "$A/a8.1_art046_arm_iflytek-msm8953/boot.art" "$A/a8.1_art046_arm_iflytek-msm8953/boot.oat" \
		"$A/a8.1_art046_arm_iflytek-msm8953/boot.vdex"
	sweep "$ASAN_ART" "$A/a11_art085_x86_64_aosp-emulator/boot-ext.art"
else
	t_fail "no ASan build at $ASAN_ART (make asan)"
fi
[ $bad -eq 0 ] && t_ok "$runs hostile variants: exit 0/1, one-line errors naming an offset" ||
	t_fail "$bad of $runs hostile variants misbehaved"
t_done

#!/bin/sh
# test_image_sweep.sh - hostile cores and listings: truncations and corrupted fields must
# give exit 0 or 1 with one line on stderr, never a crash or a hang.
#   1. the generated core of tests/tools/img_coregen.h (unit 64, 1.4 KB): truncations
#      (every length through the program headers, then every 5th; exit 1 each), and 0xff at
#      every offset of the headers and notes plus 0x00 or 0x80 at two thirds of them (a
#      sample also under ASan);
#   2. one real capture's core (decompressed into $TMP, kept sparse): each program-header
#      field set to 0, 0xffffffff, all ones and file size + 1, the ELF header fields, a
#      sample of note bytes, and truncations at sampled lengths;
#   3. a maps listing with broken lines given to --maps (exit 1 naming the line).
. "$(dirname "$0")/lib.sh"
SPLIT=$PWD/build/tools/img_split

# run_one LABEL WANT FILE: WANT is "1" (must be rejected) or "01" (either)
bad=0 runs=0
run_one() {
	runs=$((runs + 1))
	timeout 20 "$ART" info --image-only "$3" >/dev/null 2>"$TMP/err"
	rc=$?
	lines=$(wc -l <"$TMP/err")
	case "$2:$rc" in
	1:1|01:1) [ "$lines" -eq 1 ] && return ;;
	01:0) [ "$lines" -eq 0 ] && return ;;
	esac
	bad=$((bad + 1))
	[ "$bad" -le 5 ] && echo "  $1: exit $rc, $lines stderr lines: $(head -c 200 "$TMP/err")"
}

# poke FILE OFFSET VALUE WIDTH: writes VALUE little-endian in WIDTH bytes at OFFSET
# (sh has no local variables: the pk_ names keep the callers' loop counters intact)
poke() {
	pk_i=0 pk_v=$3 pk_s=""
	while [ $pk_i -lt "$4" ]; do
		pk_s="$pk_s\\$(printf %03o $((pk_v & 255)))"
		pk_v=$((pk_v >> 8)); pk_i=$((pk_i + 1))
	done
	printf "$pk_s" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# --- 1. the generated core ---
"$SPLIT" --mkcore 64 "$TMP/gen.core" "$TMP/gen.maps" || t_fail "mkcore"
size=$(wc -c <"$TMP/gen.core")
"$ART" info --image-only "$TMP/gen.core" >/dev/null && t_ok "generated core loads" || t_fail "generated core"
hdr=$(( 64 + 56 * 6 + 600 ))      # headers + the note segment (the segment data follows)
# a cut inside the headers or notes is refused; one in the segment data is an acquisition
# that stopped early: loaded, the lost bytes not captured, and `info` says so
# where the note segment (the first program header) ends: p_offset + p_filesz
note_end=$(( $(od -An -t u8 -j 72 -N 8 "$TMP/gen.core") + $(od -An -t u8 -j 96 -N 8 "$TMP/gen.core") ))
bad=0 runs=0 n=0 cut_ok=0 cuts=0
while [ $n -lt "$size" ]; do
	head -c $n "$TMP/gen.core" >"$TMP/cut.core"
	if [ $n -lt $note_end ]; then
		run_one "cut at $n" 1 "$TMP/cut.core"
	else
		run_one "cut at $n" 01 "$TMP/cut.core"
		cuts=$((cuts + 1))
		"$ART" info --image-only "$TMP/cut.core" 2>/dev/null | grep -q "^cut short: the file ends $((size - n)) bytes early" &&
			cut_ok=$((cut_ok + 1))
	fi
	# every length through the program headers, then every 5th (test_image.c cuts at all)
	if [ $n -lt 400 ]; then n=$((n + 1)); else n=$((n + 5)); fi
done
[ $bad -eq 0 ] && t_ok "generated core: $runs truncations rejected with one line or loaded" || t_fail "generated core: $bad of $runs truncations"
[ $cut_ok -gt 0 ] && [ $cut_ok -eq $cuts ] &&
	t_ok "generated core: $cut_ok cuts in the segment data (from $note_end) loaded, info names the bytes lost" ||
	t_fail "generated core: $cut_ok of $cuts cuts in the segment data (from $note_end) loaded and named"

bad=0 runs=0
cp "$TMP/gen.core" "$TMP/mut.core" && chmod u+w "$TMP/mut.core"
off=0
while [ $off -lt "$hdr" ]; do
	vals=255
	[ $((off % 3)) -eq 0 ] && vals="255 0"
	[ $((off % 3)) -eq 1 ] && vals="255 128"
	for v in $vals; do
		poke "$TMP/mut.core" $off $v 1
		run_one "byte $off = $v" 01 "$TMP/mut.core"
	done
	dd if="$TMP/gen.core" of="$TMP/mut.core" bs=1 skip=$off seek=$off count=1 conv=notrunc status=none
	off=$((off + 1))
done
[ $bad -eq 0 ] && t_ok "generated core: $runs byte corruptions handled" || t_fail "generated core: $bad of $runs corruptions"

if [ -x "$ASAN_ART" ]; then
	bad=0 runs=0 off=0
	while [ $off -lt "$hdr" ]; do
		poke "$TMP/mut.core" $off 255 1
		ART=$ASAN_ART run_one "asan byte $off" 01 "$TMP/mut.core"
		dd if="$TMP/gen.core" of="$TMP/mut.core" bs=1 skip=$off seek=$off count=1 conv=notrunc status=none
		off=$((off + 13))
	done
	[ $bad -eq 0 ] && t_ok "generated core under ASan: $runs corruptions" || t_fail "ASan: $bad of $runs"
else
	t_fail "no ASan build at $ASAN_ART (make asan)"
fi

# --- 2. a real core ---
real=""
for d in "$CORPUS"/images/realart/cms-collections "$CORPUS"/images/realart/*; do
	[ -f "$d/core.zst" ] && { real=$d; break; }
done
if ! t_need zstd; then :
elif [ -z "$real" ]; then
	t_corpus "$CORPUS/images/realart" && t_fail "no capture with core.zst under $CORPUS/images/realart"
else
	zstd -dq "$real/core.zst" -o "$TMP/real.full" && cp --sparse=always "$TMP/real.full" "$TMP/real.core" && chmod u+w "$TMP/real.core" &&
		rm -f "$TMP/real.full"
	rsize=$(wc -c <"$TMP/real.core")
	head -c 4096 "$TMP/real.core" >"$TMP/real.head"
	phnum=$(od -An -tu2 -j56 -N2 "$TMP/real.head" | tr -d ' ')
	"$ART" info --image-only "$TMP/real.core" >/dev/null && t_ok "$(basename "$real"): core loads ($phnum program headers)" ||
		t_fail "real core"
	restore() { dd if="$TMP/real.head" of="$TMP/real.core" bs=1 skip="$1" seek="$1" count="$2" conv=notrunc status=none; }
	bad=0 runs=0 i=0
	while [ $i -lt "$phnum" ]; do
		base=$((64 + 56 * i))
		for field in 0:4 4:4 8:8 16:8 32:8 40:8; do
			fo=${field%:*} w=${field#*:}
			for v in 0 4294967295 -1 $((rsize + 1)); do
				poke "$TMP/real.core" $((base + fo)) "$v" "$w"
				run_one "phdr $i +$fo = $v" 01 "$TMP/real.core"
				restore $((base + fo)) "$w"
			done
		done
		i=$((i + 1))
	done
	# ELF header: class, data, type, machine, phoff, shoff, ehsize, phentsize, phnum, shnum, shstrndx
	for field in 4:1 5:1 16:2 18:2 32:8 40:8 52:2 54:2 56:2 60:2 62:2; do
		fo=${field%:*} w=${field#*:}
		for v in 0 4294967295 -1 $((rsize + 1)); do
			poke "$TMP/real.core" "$fo" "$v" "$w"
			run_one "ehdr +$fo = $v" 01 "$TMP/real.core"
			restore "$fo" "$w"
		done
	done
	# note bytes (the PT_NOTE follows the program headers)
	off=$((64 + 56 * phnum))
	while [ $off -lt 4096 ]; do
		poke "$TMP/real.core" $off 255 1
		run_one "note byte $off" 01 "$TMP/real.core"
		restore $off 1
		off=$((off + 37))
	done
	[ $bad -eq 0 ] && t_ok "real core: $runs corrupted header fields handled" || t_fail "real core: $bad of $runs corruptions"
	cmp -s -n 4096 "$TMP/real.head" "$TMP/real.core" && t_ok "real core headers restored after each run" ||
		t_fail "real core headers not restored"

	# truncations, longest first (each cut shortens the same sparse copy)
	bad=0 runs=0
	# (the segment data starts at 8192 in the realart cores: a cut there or later loads)
	for n in $((rsize - 1)) $((rsize / 2)) $((rsize / 7)) 8192 4097 4096 4000 $((64 + 56 * phnum + 10)) $((64 + 56 * phnum)) 200 64 63 4 1 0; do
		[ "$n" -lt "$rsize" ] || continue
		truncate -s "$n" "$TMP/real.core"
		if [ "$n" -ge 8192 ]; then run_one "real cut at $n" 01 "$TMP/real.core"; else run_one "real cut at $n" 1 "$TMP/real.core"; fi
	done
	[ $bad -eq 0 ] && t_ok "real core: $runs truncations refused (headers, notes) or loaded (data)" || t_fail "real core: $bad of $runs truncations"
	rm -f "$TMP/real.core"
fi

# --- 3. broken maps listings ---
cp "$TMP/gen.maps" "$TMP/bad.maps"
echo "12c00000-12c01000 rwzp 00000000 00:00 0 [anon:x]" >>"$TMP/bad.maps"
"$ART" info --image-only "$TMP/gen.core" --maps "$TMP/bad.maps" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q "maps line 8" "$TMP/err" && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
	t_ok "broken maps line: $(cat "$TMP/err")" || t_fail "broken maps line: exit $rc: $(cat "$TMP/err")"
"$ART" info --image-only "$TMP/gen.core" --maps "$TMP/missing.maps" >/dev/null 2>"$TMP/err"
[ $? -eq 3 ] && t_ok "missing maps file: exit 3" || t_fail "missing maps file"
"$ART" info >/dev/null 2>&1
[ $? -eq 2 ] && t_ok "no IMAGE: exit 2" || t_fail "no IMAGE"
t_done

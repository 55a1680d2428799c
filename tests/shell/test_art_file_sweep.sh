#!/bin/sh
# test_art_file_sweep.sh - hostile-input sweep of `art-file` over the real DEX/VDEX/OAT files
# of $CORPUS/art: truncated copies (dense near the start, where the headers are, then spread
# over the file) and copies with one byte changed (header bytes and sampled offsets, each set
# to 0x00 or 0xff, and to the byte + 1).  Every run must end with exit 0 or 1, within 10 s, and a
# rejection must be one line on stderr that names an offset ("0x...").  The release binary
# runs everything; the ASan/UBSan binary runs a slice of it (see ASAN_EVERY).
. "$(dirname "$0")/lib.sh"
ART_DIR=$CORPUS/art
t_corpus "$ART_DIR" || { t_done; exit; }
ASAN_EVERY=${ASAN_EVERY:-8}     # every Nth case also runs under ASan

runs=0 asan_runs=0 bad=0
# check_run NAME BIN FILE: runs art-file on FILE, judges exit status and message
check_run() {
	timeout 10 "$2" art-file "$3" >/dev/null 2>"$TMP/err"
	rc=$?
	runs=$((runs + 1))
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
		bad=$((bad + 1)); t_fail "$1: exit $rc: $(head -n 3 "$TMP/err" | tr '\n' ' ')"; return
	fi
	if grep -q 'AddressSanitizer\|runtime error\|LeakSanitizer' "$TMP/err"; then
		bad=$((bad + 1)); t_fail "$1: sanitizer report: $(grep -m1 'ERROR\|runtime error' "$TMP/err")"; return
	fi
	if [ "$rc" -eq 1 ]; then
		lines=$(wc -l <"$TMP/err")
		if [ "$lines" -ne 1 ] || ! grep -q '0x[0-9a-f]' "$TMP/err"; then
			bad=$((bad + 1)); t_fail "$1: rejection is not one line naming an offset: $(head -n 2 "$TMP/err" | tr '\n' ' ')"
		fi
	fi
}

# offsets: 0..63 every 8, 64..511 every 64, 12 points spread over the file, and the end
offsets() {
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < 64 && i < n; i += 8) print i
		for (i = 64; i < 512 && i < n; i += 64) print i
		for (k = 1; k <= 12; k++) { o = int(n * k / 13); if (o >= 512) print o }
		if (n > 1) print n - 1
		if (n > 4) print n - 4 }' | sort -n | uniq
}

case_no=0
for f in "$ART_DIR"/*/*.dex "$ART_DIR"/*/*.vdex "$ART_DIR"/*/*.oat "$ART_DIR"/*/*.odex; do
	[ -f "$f" ] || continue
	name=${f#"$ART_DIR"/}
	size=$(wc -c <"$f")
	ext=${f##*.}
	work=$TMP/work.$ext
	before=$bad
	# truncations
	for len in $(offsets "$size"); do
		head -c "$len" "$f" >"$work"
		case_no=$((case_no + 1))
		check_run "$name cut at $len" "$ART" "$work"
		if [ $((case_no % ASAN_EVERY)) -eq 0 ] && [ -x "$ASAN_ART" ]; then
			check_run "$name cut at $len (asan)" "$ASAN_ART" "$work"; asan_runs=$((asan_runs + 1))
		fi
	done
	# single-byte corruptions on one private copy, restored after each case
	cp "$f" "$work"
	chmod u+w "$work"
	for off in $(offsets "$size"); do
		orig=$(od -An -tu1 -j "$off" -N1 "$f" | tr -d ' ')
		for val in $(( (off / 8) % 2 ? 0 : 255 )) $(((orig + 1) % 256)); do
			[ "$val" -eq "$orig" ] && continue
			printf "\\$(printf %o "$val")" | dd of="$work" bs=1 seek="$off" conv=notrunc 2>/dev/null
			case_no=$((case_no + 1))
			check_run "$name byte 0x$(printf %x "$off")=$val" "$ART" "$work"
			if [ $((case_no % ASAN_EVERY)) -eq 0 ] && [ -x "$ASAN_ART" ]; then
				check_run "$name byte 0x$(printf %x "$off")=$val (asan)" "$ASAN_ART" "$work"; asan_runs=$((asan_runs + 1))
			fi
		done
		printf "\\$(printf %o "$orig")" | dd of="$work" bs=1 seek="$off" conv=notrunc 2>/dev/null
	done
	[ "$bad" -eq "$before" ] && t_ok "$name: truncations and byte changes handled"
done
[ "$runs" -gt 0 ] || t_fail "no input files found under $ART_DIR"
echo "# $runs runs, $asan_runs under ASan"
t_done

#!/bin/sh
# test_hprof_sweep.sh - hostile-input sweep over every corpus HPROF: truncations (every length
# in the first 64 bytes, lengths around sampled record boundaries, evenly spaced lengths) and
# single-byte corruptions (sampled header, record-header and body positions; values 0x00,
# 0xff and the byte with its low bit flipped) go through each tool in SWEEP_TOOLS.  A tool
# must exit 0 or 1 (never crash, hang, or report an internal error), print exactly one line
# naming an offset when it exits 1, and leave its output directory empty then.  Every
# SWEEP_ASAN_EVERY-th run uses the ASan/UBSan build.
#
# Extending: a tool is a shell function `NAME BIN INPUT OUTDIR` that runs one command and
# returns its exit status; add it to SWEEP_TOOLS (for HPROF inputs) or call
# `sweep_file FILE TOOL...` for other inputs (e.g. BMD files through decrunch).
. "$(dirname "$0")/lib.sh"
H=$CORPUS/hprof
SWEEP_ASAN_EVERY=${SWEEP_ASAN_EVERY:-10}
SWEEP_BOUNDARY_RECORDS=${SWEEP_BOUNDARY_RECORDS:-6}
SWEEP_SPACED=${SWEEP_SPACED:-10}
SWEEP_CORRUPT_RECORDS=${SWEEP_CORRUPT_RECORDS:-4}

tool_hprof_info() { "$1" hprof-info "$2" >/dev/null; }
tool_convert() { "$1" convert "$2" "$3/out.hprof"; }
SWEEP_TOOLS="tool_hprof_info tool_convert"
# the bmd helper adds e.g.: tool_crunch() { "$1" crunch "$2" "$3/out.bmd"; }
if "$ART" crunch --help >/dev/null 2>&1; then
	tool_crunch() { "$1" crunch "$2" "$3/out.bmd"; }
	SWEEP_TOOLS="$SWEEP_TOOLS tool_crunch"
fi

[ -x "$ASAN_ART" ] || ASAN_ART=$ART
# the binaries run through wrappers that stop a hang after 60 s (exit 124 = failure)
for w in art:$ART asan:$ASAN_ART; do
	printf '#!/bin/sh\nexec timeout 60 %s "$@"\n' "${w#*:}" >"$TMP/${w%%:*}"
	chmod +x "$TMP/${w%%:*}"
done
O=$TMP/out
M=$TMP/mutant
sweep_n=0

# sweep_check TOOL LABEL: runs TOOL on $M, records a failure line in $TMP/fail
sweep_check() {
	sweep_n=$((sweep_n + 1))
	bin=$TMP/art
	[ $((sweep_n % SWEEP_ASAN_EVERY)) -eq 0 ] && bin=$TMP/asan
	rm -rf "$O"; mkdir "$O"
	"$1" "$bin" "$M" "$O" 2>"$TMP/err"
	rc=$?
	why=
	case $rc in
	0) ;;
	1)
		if [ "$(wc -l <"$TMP/err")" -ne 1 ]; then why="$(wc -l <"$TMP/err") lines on stderr"
		elif ! grep -q '0x[0-9a-f]' "$TMP/err"; then why="message names no offset"
		elif [ -n "$(ls -A "$O")" ]; then why="left $(ls -A "$O" | tr '\n' ' ')"
		fi ;;
	*) why="exit $rc" ;;
	esac
	[ -n "$why" ] && echo "$1 on $2 ($(basename "$bin")): $why: $(head -c 300 "$TMP/err")" >>"$TMP/fail"
	return 0
}

# sweep_lengths FILE: the truncation lengths, largest first
sweep_lengths() {
	size=$(wc -c <"$1")
	{
		i=0; while [ $i -lt 64 ] && [ $i -lt "$size" ]; do echo $i; i=$((i + 1)); done
		# around sampled record boundaries, and inside their headers and bodies
		"$ART" hprof-info --records "$1" 2>/dev/null | awk -v n="$SWEEP_BOUNDARY_RECORDS" '
			{ off[NR] = $1 + 0; len[NR] = $4 }
			END { if (NR == 0) exit; step = NR / n; if (step < 1) step = 1
			      for (k = 1; k <= NR; k += step) { r = int(k); o = off[r]; l = len[r]
				print o - 1; print o; print o + 1; print o + 5; print o + 8
				print o + 9 + int(l / 2); print o + 9 + l - 1 }
			      o = off[NR]; print o; print o + 1 }'
		i=1; while [ $i -le "$SWEEP_SPACED" ]; do echo $((size * i / (SWEEP_SPACED + 1))); i=$((i + 1)); done
	} | awk -v size="$size" '$1 >= 0 && $1 < size' | sort -nru
}

# sweep_positions FILE: byte positions to corrupt
sweep_positions() {
	{
		for p in 0 12 13 17 18 19 22 23 27 30; do echo $p; done
		"$ART" hprof-info --records "$1" 2>/dev/null | awk -v n="$SWEEP_CORRUPT_RECORDS" '
			{ off[NR] = $1 + 0; len[NR] = $4; tag[NR] = $2 }
			END { if (NR == 0) exit; step = NR / n; if (step < 1) step = 1
			      for (k = 1; k <= NR; k += step) { r = int(k); o = off[r]
				print o; print o + 5; print o + 8; if (len[r] > 0) print o + 9 }
			      # inside the first heap dump: the first sub-records and a middle one
			      for (r = 1; r <= NR; r++) if (tag[r] ~ /^HEAP_DUMP(_SEGMENT)?$/) {
				o = off[r] + 9; l = len[r]
				print o + 1; print o + 4; print o + 10; print o + 14; print o + int(l / 2); break } }'
	} | awk -v size="$(wc -c <"$1")" '$1 >= 0 && $1 < size' | sort -nu
}

# sweep_file FILE TOOL...: truncations and corruptions of FILE through each TOOL
sweep_file() {
	f=$1; shift
	name=$(basename "$f")
	: >"$TMP/fail"
	runs_before=$sweep_n
	cp "$f" "$M" && chmod u+w "$M"
	for n in $(sweep_lengths "$f"); do
		truncate -s "$n" "$M"
		for t in "$@"; do sweep_check "$t" "$name truncated to $n"; done
	done
	cp "$f" "$M" && chmod u+w "$M"
	for p in $(sweep_positions "$f"); do
		orig=$(od -An -tu1 -j "$p" -N1 "$f" | tr -d ' ')
		for v in 0 255 $((orig ^ 1)); do
			[ "$v" -eq "$orig" ] && continue
			printf "\\$(printf %03o "$v")" | dd of="$M" bs=1 seek="$p" conv=notrunc 2>/dev/null
			for t in "$@"; do sweep_check "$t" "$name byte $p = $v"; done
		done
		printf "\\$(printf %03o "$orig")" | dd of="$M" bs=1 seek="$p" conv=notrunc 2>/dev/null
	done
	runs=$((sweep_n - runs_before))
	if [ -s "$TMP/fail" ]; then
		t_fail "$name: $(wc -l <"$TMP/fail") of $runs runs misbehaved:"; head -n 10 "$TMP/fail"
	else
		t_ok "$name: $runs runs ($*) exited 0 or 1 cleanly"
	fi
}

if [ ! -d "$H" ]; then t_skip "no HPROF corpus at $H"; t_done; exit; fi
for f in "$H"/*.hprof "$H"/*-hprof "$H"/badoo-golden/*.hprof; do
	[ -f "$f" ] || continue
	# shellcheck disable=SC2086
	sweep_file "$f" $SWEEP_TOOLS
done
t_done

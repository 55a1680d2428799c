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

. "$(dirname "$0")/sweep_lib.sh"

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
	sweep_corrupt "$f" "$name" "$(sweep_positions "$f")" "$@"
	sweep_report "$name" "$runs_before" "runs ($*)"
}

t_corpus "$H" || { t_done; exit; }
for f in "$H"/*.hprof "$H"/*-hprof "$H"/badoo-golden/*.hprof; do
	[ -f "$f" ] || continue
	# shellcheck disable=SC2086
	sweep_file "$f" $SWEEP_TOOLS
done
t_done

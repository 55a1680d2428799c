#!/bin/sh
# test_codec_sweep.sh - hostile-input sweep of decrunch over the corpus BMD files (crunch over
# the corpus HPROF files is swept by test_hprof_sweep.sh): truncations (the first 32 lengths,
# around sampled record boundaries from tests/tools/bmd_records, evenly spaced lengths) and
# single-byte corruptions (header bytes, sampled record starts and bodies; values 0x00, 0xff
# and the low bit flipped), through `decrunch --badoo` and `decrunch --mat`, both with
# --max-output 64M (a corrupted count may legitimately ask for gigabytes of zeros).
# Each run must exit 0 or 1 (never crash, hang or report an internal error), print exactly
# one line naming an offset when it exits 1, and leave no output file behind then.
. "$(dirname "$0")/lib.sh"
G=$CORPUS/hprof/badoo-golden
RECORDS=$PWD/build/tools/bmd_records
SWEEP_ASAN_EVERY=${SWEEP_ASAN_EVERY:-8}
SAMPLES=${SWEEP_BOUNDARY_RECORDS:-6}

. "$(dirname "$0")/sweep_lib.sh"

tool_decrunch() { "$1" decrunch -q --badoo --max-output 64M "$2" "$3/out.hprof"; }
# --no-jdk: the sweep is about the BMD; the JDK modules (read by test_codec_loaders.sh) would
# only add their loading time to every run
tool_decrunch_mat() { "$1" decrunch -q --mat --no-jdk --max-output 64M "$2" "$3/out.hprof"; }
# with the installed JDK's java.base module (one fifth of the truncations): pass A holds its
# strings back until the classes they may name are read, and writes them then
JMOD=/usr/lib/jvm/default-java/jmods/java.base.jmod
tool_decrunch_jdk() { "$1" decrunch -q --mat --jdk "$JMOD" --max-output 64M "$2" "$3/out.hprof"; }

lengths() { # lengths FILE: truncation points, largest first
	size=$(wc -c <"$1")
	{
		i=0; while [ $i -lt 32 ]; do echo $i; i=$((i + 1)); done
		"$RECORDS" "$1" 2>/dev/null | awk -v n="$SAMPLES" '
			{ off[NR] = $1 + 0; len[NR] = $4 + 0 }
			END { step = NR / n; if (step < 1) step = 1
			      for (k = 2; k <= NR; k += step) { r = int(k); o = off[r]; l = len[r]
				print o - 1; print o; print o + 1; print o + int(l / 2); print o + l - 1 }
			      print off[NR] + 1 }'
		i=1; while [ $i -le 8 ]; do echo $((size * i / 9)); i=$((i + 1)); done
	} | awk -v size="$size" '$1 >= 0 && $1 < size' | sort -nru
}

positions() { # positions FILE: bytes to corrupt
	{
		for p in 0 1 2 5 10 18 19 20 21 22; do echo $p; done
		"$RECORDS" "$1" 2>/dev/null | awk -v n="$SAMPLES" '
			{ off[NR] = $1 + 0; len[NR] = $4 + 0; tag[NR] = $3 }
			END { step = NR / n; if (step < 1) step = 1
			      for (k = 2; k <= NR; k += step) { r = int(k); print off[r]; print off[r] + 1; print off[r] + int(len[r] / 2) }
			      # the first record of each kind: its tag and first fields
			      for (r = 2; r <= NR; r++) if (!(tag[r] in seen)) { seen[tag[r]] = 1; print off[r] + 1; print off[r] + 2; print off[r] + 3 } }'
	} | awk -v size="$(wc -c <"$1")" '$1 >= 0 && $1 < size' | sort -nu
}

sweep() { # sweep FILE
	f=$1 name=$(basename "$1")
	: >"$TMP/fail"
	before=$sweep_n
	cp "$f" "$M" && chmod u+w "$M"
	for n in $(lengths "$f"); do
		truncate -s "$n" "$M"
		sweep_check tool_decrunch "$name truncated to $n"
		[ $((n % 3)) -eq 0 ] && sweep_check tool_decrunch_mat "$name truncated to $n"
		[ $((n % 5)) -eq 1 ] && sweep_check tool_decrunch_jdk "$name truncated to $n"
	done
	sweep_corrupt "$f" "$name" "$(positions "$f")" tool_decrunch tool_decrunch_mat
	sweep_report "$name" "$before" "decrunch runs"
}

t_corpus "$G" || { t_done; exit; }
[ -f "$JMOD" ] || t_fail "no $JMOD (make deps installs default-jdk-headless)"
for f in "$G"/*.bmd; do sweep "$f"; done

# an output limit below the real size is refused with the offending offset, no file left
rm -rf "$O"; mkdir "$O"
"$ART" decrunch -q --max-output 1M "$G/dialer.bmd" "$O/x.hprof" 2>"$TMP/err"
rc=$?
if [ $rc = 1 ] && grep -q 'limit' "$TMP/err" && [ -z "$(ls -A "$O")" ]; then t_ok "--max-output 1M refused: $(cat "$TMP/err")"
else t_fail "--max-output 1M: exit $rc, $(cat "$TMP/err")"; fi
t_done

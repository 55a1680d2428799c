#!/bin/sh
# test_codec_sweep.sh - hostile-input sweep of decrunch over the corpus BMD files (crunch over
# the corpus HPROF files is swept by test_hprof_sweep.sh): truncations (the first 32 lengths,
# around sampled record boundaries from tests/tools/bmd_records, evenly spaced lengths) and
# single-byte corruptions (header bytes, sampled record starts and bodies; values 0x00, 0xff
# and the low bit flipped), through `decrunch` and `decrunch --mat`, both with
# --max-output 64M (a corrupted count may legitimately ask for gigabytes of zeros).
# Each run must exit 0 or 1 (never crash, hang or report an internal error), print exactly
# one line naming an offset when it exits 1, and leave no output file behind then.
. "$(dirname "$0")/lib.sh"
G=$CORPUS/hprof/badoo-golden
RECORDS=$PWD/build/tools/bmd_records
EVERY_ASAN=${SWEEP_ASAN_EVERY:-8}
SAMPLES=${SWEEP_BOUNDARY_RECORDS:-6}

[ -x "$ASAN_ART" ] || ASAN_ART=$ART
for w in art:$ART asan:$ASAN_ART; do
	printf '#!/bin/sh\nexec timeout 60 %s "$@"\n' "${w#*:}" >"$TMP/${w%%:*}"
	chmod +x "$TMP/${w%%:*}"
done
O=$TMP/out
M=$TMP/mutant
n_runs=0

tool_decrunch() { "$1" decrunch -q --max-output 64M "$2" "$3/out.hprof"; }
tool_decrunch_mat() { "$1" decrunch -q --mat --max-output 64M "$2" "$3/out.hprof"; }

check() { # check TOOL LABEL
	n_runs=$((n_runs + 1))
	bin=$TMP/art
	[ $((n_runs % EVERY_ASAN)) -eq 0 ] && bin=$TMP/asan
	rm -rf "$O"; mkdir "$O"
	"$1" "$bin" "$M" "$O" 2>"$TMP/err"
	rc=$? why=
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
	before=$n_runs
	cp "$f" "$M" && chmod u+w "$M"
	for n in $(lengths "$f"); do
		truncate -s "$n" "$M"
		check tool_decrunch "$name truncated to $n"
		[ $((n % 3)) -eq 0 ] && check tool_decrunch_mat "$name truncated to $n"
	done
	cp "$f" "$M" && chmod u+w "$M"
	for p in $(positions "$f"); do
		orig=$(od -An -tu1 -j "$p" -N1 "$f" | tr -d ' ')
		for v in 0 255 $((orig ^ 1)); do
			[ "$v" -eq "$orig" ] && continue
			printf "\\$(printf %03o "$v")" | dd of="$M" bs=1 seek="$p" conv=notrunc 2>/dev/null
			check tool_decrunch "$name byte $p = $v"
			check tool_decrunch_mat "$name byte $p = $v"
		done
		printf "\\$(printf %03o "$orig")" | dd of="$M" bs=1 seek="$p" conv=notrunc 2>/dev/null
	done
	runs=$((n_runs - before))
	if [ -s "$TMP/fail" ]; then
		t_fail "$name: $(wc -l <"$TMP/fail") of $runs runs misbehaved:"; head -n 10 "$TMP/fail"
	else
		t_ok "$name: $runs decrunch runs exited 0 or 1 cleanly"
	fi
}

if [ ! -d "$G" ]; then t_skip "no golden corpus at $G"; t_done; exit; fi
for f in "$G"/*.bmd; do sweep "$f"; done

# an output limit below the real size is refused with the offending offset, no file left
rm -rf "$O"; mkdir "$O"
"$ART" decrunch -q --max-output 1M "$G/dialer.bmd" "$O/x.hprof" 2>"$TMP/err"
rc=$?
if [ $rc = 1 ] && grep -q 'limit' "$TMP/err" && [ -z "$(ls -A "$O")" ]; then t_ok "--max-output 1M refused: $(cat "$TMP/err")"
else t_fail "--max-output 1M: exit $rc, $(cat "$TMP/err")"; fi
t_done

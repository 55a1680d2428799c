# tests/shell/sweep_lib.sh - the hostile-input sweep harness shared by the sweep tests; source
# it after lib.sh with SWEEP_ASAN_EVERY set.  A tool is a shell function `NAME BIN INPUT OUTDIR`
# running one command on the mutant $M.  Each run must exit 0 or 1 (never crash, hang or report
# an internal error), print exactly one line naming an offset when it exits 1, and leave $O
# empty then; every SWEEP_ASAN_EVERY-th run uses the ASan/UBSan build.
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

# sweep_corrupt FILE NAME POSITIONS TOOL...: sets each byte at POSITIONS (a list) to 0x00, 0xff
# and its value with the low bit flipped, runs every TOOL on each mutant; $M ends as FILE
sweep_corrupt() {
	f=$1 name=$2 positions=$3; shift 3
	cp "$f" "$M" && chmod u+w "$M"
	for p in $positions; do
		orig=$(od -An -tu1 -j "$p" -N1 "$f" | tr -d ' ')
		for v in 0 255 $((orig ^ 1)); do
			[ "$v" -eq "$orig" ] && continue
			printf "\\$(printf %03o "$v")" | dd of="$M" bs=1 seek="$p" conv=notrunc 2>/dev/null
			for t in "$@"; do sweep_check "$t" "$name byte $p = $v"; done
		done
		printf "\\$(printf %03o "$orig")" | dd of="$M" bs=1 seek="$p" conv=notrunc 2>/dev/null
	done
}

# sweep_report NAME RUNS_BEFORE WHAT: one verdict for the runs since RUNS_BEFORE
sweep_report() {
	runs=$((sweep_n - $2))
	if [ -s "$TMP/fail" ]; then
		t_fail "$1: $(wc -l <"$TMP/fail") of $runs runs misbehaved:"; head -n 10 "$TMP/fail"
	else
		t_ok "$1: $runs $3 exited 0 or 1 cleanly"
	fi
}

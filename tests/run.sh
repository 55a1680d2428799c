#!/bin/sh
# tests/run.sh - runs the test programs and prints the total as "N passed, N failed, N skipped".
#   build/tests/*        unit tests (gcc, -O2)
#   build/asan/tests/*   the same unit tests under ASan/UBSan
#   build/asan/fuzz/*    every fuzz target replaying tests/fuzz/{corpus,regress}/<target>
#   tests/check_layers.sh  the layer order of the source tree
#   tests/shell/*.sh     end-to-end and golden tests of the artcarve binary
# Usage: tests/run.sh [--quick] [PATTERN...]
#   --quick    the quick tier (`make check-quick`): every unit test, fuzz replay and the layer
#              check, and only the shell tests with a line "# tier: quick" in their first 10
#              lines (a new shell test declares its tier there; without it, it is full-only)
#   PATTERN    run only the programs whose name (as printed: build/asan/tests/test_x,
#              tests/shell/test_x.sh) contains PATTERN, a substring or shell glob; several
#              patterns run the union.  No match at all is a failure.
# Each program prints "RESULT <passed> <failed> [<skipped>]" as its last line; a program
# that crashes, prints no RESULT or was not built counts as one failure.  The end of the run
# lists the slowest programs (wall seconds; all of them in build/test-logs/timings.txt), and
# the summary "N passed, N failed, N skipped" is always the last line.
# The real corpus ($ARTCARVE_SHARED/corpus, default ../shared/corpus) is required: without it
# the run fails.  ARTCARVE_NO_CORPUS=1 lets a local run without it go on; the summary then
# says loudly how many checks the missing corpus skipped.
cd "$(dirname "$0")/.." || exit 2
quick=0
case ${1:-} in --quick) quick=1; shift ;; --help|-h) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
passed=0 failed=0 skipped=0 no_corpus_skips=0 ran=0
log_dir=build/test-logs
mkdir -p "$log_dir"
# the wall time of each program, "<ns> <name>"; private to this run (two runs at once in one
# tree must not mix theirs), copied to $log_dir/timings.txt at the end
timings=$(mktemp "${TMPDIR:-/tmp}/artcarve-timings.XXXXXX") || exit 2
trap 'rm -f "$timings"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ARTCARVE_SHARED="${ARTCARVE_SHARED:-$(cd .. && pwd)/shared}"
corpus=$ARTCARVE_SHARED/corpus
if [ ! -d "$corpus" ]; then
	if [ "${ARTCARVE_NO_CORPUS:-}" = 1 ]; then
		echo "*** NO CORPUS at $corpus: ARTCARVE_NO_CORPUS=1, the corpus checks are skipped (not a CI pass) ***"
	else
		echo "FAIL no corpus at $corpus: set ARTCARVE_SHARED, or ARTCARVE_NO_CORPUS=1 for a local run without it"
		failed=$((failed + 1))
	fi
fi

# selected NAME: true when NAME is to run (no PATTERN, or one of them matches)
selected() {
	[ $# -gt 1 ] || return 0
	sel_name=$1; shift
	for sel_p; do
		case $sel_name in *$sel_p*) return 0 ;; esac
	done
	return 1
}
# quick_shell FILE: true when the shell test FILE declares "# tier: quick" in its first 10 lines
quick_shell() { sed -n '1,10p' "$1" | grep -qx '# tier: quick'; }

# now_ns: the time in nanoseconds (GNU date)
now_ns() { date +%s%N; }

run_one() {
	name=$1; shift
	ran=$((ran + 1))
	log="$log_dir/$(echo "$name" | tr '/' '_').log"
	t0=$(now_ns)
	"$@" >"$log" 2>&1
	rc=$?
	echo "$(( $(now_ns) - t0 )) $name" >>"$timings"
	res=$(grep '^RESULT ' "$log" | tail -n 1)
	if [ -z "$res" ]; then
		echo "FAIL $name: no RESULT line (exit $rc); last lines of $log:"; tail -n 15 "$log"
		failed=$((failed + 1)); return
	fi
	no_corpus_skips=$((no_corpus_skips + $(grep -c '^skip - NO CORPUS' "$log")))
	set -- $res
	p=$2 f=$3 s=${4:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$f" -ne 0 ]; then
		echo "FAIL $name ($p passed, $f failed, exit $rc):"; grep -E '^(FAIL|not ok)' "$log" | head -n 40
		[ "$rc" -ne 0 ] && tail -n 20 "$log"
	else
		if [ "$s" -ne 0 ]; then echo "ok   $name ($p passed, $s skipped)"; else echo "ok   $name ($p passed)"; fi
	fi
}

# missing FILE: a test program that `make all asan` should have built is a failure
missing() { ran=$((ran + 1)); echo "FAIL $1: not built (make all asan)"; failed=$((failed + 1)); }

for src in tests/unit/test_*.c; do
	n=$(basename "$src" .c)
	for t in "build/tests/$n" "build/asan/tests/$n"; do
		selected "$t" "$@" || continue
		if [ -x "$t" ]; then run_one "$t" "$t"; else missing "$t"; fi
	done
done
# every fuzz target replays its corpus (required: a missing or empty folder fails in
# run_one.c) and its regressions (optional: a target may have none yet)
for src in tests/fuzz/fuzz_*.c; do
	n=$(basename "$src" .c)
	t=build/asan/fuzz/$n
	selected "$t" "$@" || continue
	if [ -x "$t" ]; then run_one "$t" "$t" "tests/fuzz/corpus/$n" --optional "tests/fuzz/regress/$n"
	else missing "$t"; fi
done
if selected tests/check_layers.sh "$@"; then run_one tests/check_layers.sh sh tests/check_layers.sh; fi
for t in tests/shell/test_*.sh; do
	selected "$t" "$@" || continue
	if [ "$quick" = 1 ] && ! quick_shell "$t"; then continue; fi
	run_one "$t" sh "$t"
done
if [ "$ran" -eq 0 ]; then
	echo "FAIL no test program matches:$(printf " '%s'" "$@")"
	failed=$((failed + 1))
fi

# the slowest programs first (all of them, in nanoseconds, in $log_dir/timings.txt)
if [ -s "$timings" ]; then
	sort -k1,1nr "$timings" >"$log_dir/timings.txt"
	echo "slowest of $(wc -l <"$timings") programs (wall seconds; all in $log_dir/timings.txt):"
	head -n 10 "$log_dir/timings.txt" | awk '{ printf "%8.2f  %s\n", $1 / 1e9, $2 }'
	awk '{ t += $1 } END { printf "total %.1f s\n", t / 1e9 }' "$timings"
fi

if [ "$no_corpus_skips" -ne 0 ]; then
	echo "*** NO CORPUS: $no_corpus_skips checks skipped because $corpus is absent (ARTCARVE_NO_CORPUS=1) ***"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

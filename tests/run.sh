#!/bin/sh
# tests/run.sh - runs every test program and prints the total as "N passed, N failed, N skipped".
#   build/tests/*        unit tests (gcc, -O2)
#   build/asan/tests/*   the same unit tests under ASan/UBSan
#   build/asan/fuzz/*    every fuzz target replaying tests/fuzz/{corpus,regress}/<target>
#   tests/shell/*.sh     end-to-end and golden tests of the artcarve binary
# Each program prints "RESULT <passed> <failed> [<skipped>]" as its last line; a program
# that crashes, prints no RESULT or was not built counts as one failure.
# The real corpus ($ARTCARVE_SHARED/corpus, default ../shared/corpus) is required: without it
# the run fails.  ARTCARVE_NO_CORPUS=1 lets a local run without it go on; the summary then
# says loudly how many checks the missing corpus skipped.
cd "$(dirname "$0")/.." || exit 2
passed=0 failed=0 skipped=0 no_corpus_skips=0
log_dir=build/test-logs
mkdir -p "$log_dir"
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

run_one() {
	name=$1; shift
	log="$log_dir/$(echo "$name" | tr '/' '_').log"
	"$@" >"$log" 2>&1
	rc=$?
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
missing() { echo "FAIL $1: not built (make all asan)"; failed=$((failed + 1)); }

for src in tests/unit/test_*.c; do
	n=$(basename "$src" .c)
	for t in "build/tests/$n" "build/asan/tests/$n"; do
		if [ -x "$t" ]; then run_one "$t" "$t"; else missing "$t"; fi
	done
done
# every fuzz target replays its corpus (required: a missing or empty folder fails in
# run_one.c) and its regressions (optional: a target may have none yet)
for src in tests/fuzz/fuzz_*.c; do
	n=$(basename "$src" .c)
	t=build/asan/fuzz/$n
	if [ -x "$t" ]; then run_one "$t" "$t" "tests/fuzz/corpus/$n" --optional "tests/fuzz/regress/$n"
	else missing "$t"; fi
done
run_one tests/check_layers.sh sh tests/check_layers.sh
for t in tests/shell/test_*.sh; do run_one "$t" sh "$t"; done

if [ "$no_corpus_skips" -ne 0 ]; then
	echo "*** NO CORPUS: $no_corpus_skips checks skipped because $corpus is absent (ARTCARVE_NO_CORPUS=1) ***"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

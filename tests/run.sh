#!/bin/sh
# tests/run.sh - runs every test program and prints the total as "N passed, N failed, N skipped".
#   build/tests/*        unit tests (gcc, -O2)
#   build/asan/tests/*   the same unit tests under ASan/UBSan
#   build/asan/fuzz/*    every fuzz target replaying tests/fuzz/{corpus,regress}/<target>
#   tests/shell/*.sh     end-to-end and golden tests of the artcarve binary
# Each program prints "RESULT <passed> <failed> [<skipped>]" as its last line; a program
# that crashes or prints no RESULT counts as one failure.
cd "$(dirname "$0")/.." || exit 2
passed=0 failed=0 skipped=0
log_dir=build/test-logs
mkdir -p "$log_dir"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ARTCARVE_SHARED="${ARTCARVE_SHARED:-$(cd .. && pwd)/shared}"

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

for t in build/tests/test_*; do [ -x "$t" ] && run_one "$t" "$t"; done
for t in build/asan/tests/test_*; do [ -x "$t" ] && run_one "$t" "$t"; done
for t in build/asan/fuzz/fuzz_*; do
	[ -x "$t" ] || continue
	n=$(basename "$t")
	run_one "$t" "$t" "tests/fuzz/corpus/$n" "tests/fuzz/regress/$n"
done
run_one tests/check_layers.sh sh tests/check_layers.sh
for t in tests/shell/test_*.sh; do [ -f "$t" ] && run_one "$t" sh "$t"; done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

# tests/shell/lib.sh - helpers for shell tests; source it, call t_ok/t_fail/t_skip, end with t_done.
# ART=build/artcarve, ASAN_ART=build/asan/artcarve, SHARED=../shared, TMP=a fresh directory.
cd "$(dirname "$0")/../.." || exit 2
ART=${ART:-$PWD/build/artcarve}
ASAN_ART=$PWD/build/asan/artcarve
SHARED=${ARTCARVE_SHARED:-$(cd .. && pwd)/shared}
CORPUS=$SHARED/corpus
TMP=$(mktemp -d "${TMPDIR:-/tmp}/artcarve-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
t_pass=0 t_failn=0 t_skipn=0
t_ok()   { t_pass=$((t_pass + 1)); echo "ok - $*"; }
t_fail() { t_failn=$((t_failn + 1)); echo "not ok - $*"; }
t_skip() { t_skipn=$((t_skipn + 1)); echo "skip - $*"; }
# t_check NAME CMD...: passes when CMD exits 0
t_check() { n=$1; shift; if "$@"; then t_ok "$n"; else t_fail "$n"; fi; }
# t_same NAME GOT WANT: compares two files byte for byte and names the first difference
t_same() {
	if cmp -s "$2" "$3"; then t_ok "$1: identical to $(basename "$3")"
	else t_fail "$1: $(cmp "$2" "$3" 2>&1 | head -n 1) ($(wc -c <"$2") vs $(wc -c <"$3") bytes)"; fi
}
t_done() { echo "RESULT $t_pass $t_failn $t_skipn"; [ "$t_failn" -eq 0 ]; }

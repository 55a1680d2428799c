# tests/shell/lib.sh - helpers for shell tests; source it, call t_ok/t_fail/t_skip, end with t_done.
# A skip is only for ARTCARVE_NO_CORPUS=1 without the corpus: a known gap is a failure.
# ART=build/artcarve, ASAN_ART=build/asan/artcarve, SHARED=../shared, TMP=a fresh directory.
# Tier: a test that runs in about 2 s or less puts the line "# tier: quick" in its first 10
# lines and joins `make check-quick` (tests/run.sh --quick); every test runs in `make check`.
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
# The real corpus is required: without it every test fails, unless ARTCARVE_NO_CORPUS=1 (a
# local run without ../shared), which turns each corpus check into a skip named "NO CORPUS"
# that tests/run.sh repeats in its summary.
NO_CORPUS=0
if [ ! -d "$CORPUS" ]; then
	if [ "${ARTCARVE_NO_CORPUS:-}" = 1 ]; then
		NO_CORPUS=1
		echo "# NO CORPUS: $CORPUS is absent and ARTCARVE_NO_CORPUS=1: corpus checks are skipped"
	else
		t_fail "no corpus at $CORPUS (set ARTCARVE_SHARED, or ARTCARVE_NO_CORPUS=1 for a local run without it)"
		t_done; exit
	fi
fi
# t_corpus PATH: true when PATH (a corpus file or folder) exists; otherwise a failure, or with
# ARTCARVE_NO_CORPUS=1 and no corpus at all a "NO CORPUS" skip, and false.
t_corpus() {
	[ -e "$1" ] && return 0
	if [ "$NO_CORPUS" = 1 ]; then t_skip "NO CORPUS: $1 not checked (ARTCARVE_NO_CORPUS=1)"
	else t_fail "no corpus at $1"; fi
	return 1
}
# t_need CMD...: true when every CMD is installed; otherwise a failure naming the missing ones
# (`make deps` installs them all), and false.
t_need() {
	t_need_missing=
	for t_need_c; do command -v "$t_need_c" >/dev/null 2>&1 || t_need_missing="$t_need_missing $t_need_c"; done
	[ -z "$t_need_missing" ] && return 0
	t_fail "not installed:$t_need_missing (make deps installs it)"
	return 1
}
# t_scratch: W, a scratch folder on tmpfs (/dev/shm) when there is one, else $TMP, removed at
# exit (for tests that rewrite large cores many times)
t_scratch() {
	if [ -d /dev/shm ] && W=$(mktemp -d /dev/shm/artcarve-test.XXXXXX); then
		trap 'rm -rf "$TMP" "$W"' EXIT
	else
		W=$TMP
	fi
}
# t_built PROGRAM: true when the test program is built; otherwise a failure and false
t_built() {
	[ -x "$1" ] && return 0
	t_fail "no $1 (make all)"
	return 1
}
# t_core_patch CORE VA VALUE: the 4 bytes at VA of an ELF64 core (in a PT_LOAD's data) set to
# VALUE, little-endian; t_core_copy CORE DST SRC N: the N bytes at SRC copied over those at DST
# (damage tests; python3); t_core_read CORE VA prints the 4 bytes at VA (0x...)
t_core_patch() { t_core_edit patch "$@"; }
t_core_read() { t_core_edit read "$@"; }
t_core_copy() { t_core_edit copy "$@"; }
t_core_edit() {
	python3 - "$@" <<'EOF'
import struct, sys
mode, path, dst = sys.argv[1], sys.argv[2], int(sys.argv[3], 16)
if mode == 'patch':
    data = struct.pack('<I', int(sys.argv[4], 16))
with open(path, 'r+b') as f:
    h = f.read(64)
    phoff, = struct.unpack_from('<Q', h, 32)
    phentsize, phnum = struct.unpack_from('<HH', h, 54)
    def offset(va, n):
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            t, _, off, vaddr, _, fsz, _, _ = struct.unpack('<IIQQQQQQ', f.read(56))
            if t == 1 and vaddr <= va and va + n <= vaddr + fsz:
                return off + va - vaddr
        sys.exit(1)
    if mode == 'read':
        f.seek(offset(dst, 4))
        print('0x%x' % struct.unpack('<I', f.read(4)))
        sys.exit(0)
    if mode == 'copy':
        n = int(sys.argv[5])
        f.seek(offset(int(sys.argv[4], 16), n))
        data = f.read(n)
    f.seek(offset(dst, len(data)))
    f.write(data)
EOF
}

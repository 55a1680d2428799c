#!/bin/sh
# test_carve_sweep.sh - corruption sweep of `artcarve carve` (the object model, reachability
# and the HPROF writer behind it): in the embedded 11 and 6.0 samples, the class word, the
# word at +8 (array length, String count, a first field) and a reference field of objects the
# truth lists are set to 0x00, 0xff and their value with the low bit flipped, one byte at a
# time.  Every run must exit 0 (damaged content is reported, not fatal) or 1 with one line
# naming an offset, never crash or hang (tests/shell/sweep_lib.sh; every 5th run under
# ASan/UBSan); and every corruption of a class word must change what is carved (one object
# fewer, or an anomaly, or another class count), never pass silently.
. "$(dirname "$0")/lib.sh"
SWEEP_ASAN_EVERY=5
. "$(dirname "$0")/sweep_lib.sh"
command -v python3 >/dev/null 2>&1 || { t_fail "python3 is needed (make deps)"; t_done; exit; }

# carve_tool BIN INPUT OUTDIR: one carve of the mutant, its summary beside OUTDIR
carve_tool() {
	"$1" carve --json "$2" --maps "$maps" -o "$3/x" >"$TMP/carve.json" || return $?
	rm -rf "$3/x"   # a complete run: its output is not what the harness checks
}

# file offsets of the class word, +8 and +12 of every Nth allocated object in truth.jsonl
positions() {
	python3 - "$1" "$2" "$3" <<'EOF'
import json, struct, sys
core, truth, step = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = open(core, 'rb').read()
if d[4] == 2:
    phoff, = struct.unpack_from('<Q', d, 0x20); n, = struct.unpack_from('<H', d, 0x38)
    segs = [struct.unpack_from('<IIQQQQQQ', d, phoff + i * 56) for i in range(n)]
    segs = [(s[3], s[2], s[5]) for s in segs if s[0] == 1]
else:
    phoff, = struct.unpack_from('<I', d, 0x1c); n, = struct.unpack_from('<H', d, 0x2c)
    segs = [struct.unpack_from('<IIIIIIII', d, phoff + i * 32) for i in range(n)]
    segs = [(s[2], s[1], s[4]) for s in segs if s[0] == 1]
objs = [json.loads(l) for l in open(truth)]
objs = [o for o in objs if o['alloc'] == 'allocated' and o['space'] in ('main', 'region', 'non-moving')]
out = []
for o in objs[::step]:
    a = int(o['addr'], 16)
    for va, off, size in segs:
        if va <= a < va + size - 16:
            out += [off + a - va, off + a - va + 8, off + a - va + 12]
print(' '.join(str(p) for p in out))
EOF
}

for s in android11-64bit android6.0-32bit; do
	dir=samples/$s
	maps=$dir/maps
	rm -rf "$TMP/base"   # carve writes into an empty folder
	"$ART" carve --json "$dir/core" --maps "$maps" -o "$TMP/base" >"$TMP/base.json" || { t_fail "$s: carve failed"; continue; }
	base=$(sed -n 's/^  "objects": \([0-9]*\),/\1/p' "$TMP/base.json")
	pos=$(positions "$dir/core" "$dir/truth.jsonl" 3)
	rm -f "$TMP/fail"
	n0=$sweep_n
	sweep_corrupt "$dir/core" "$s" "$pos" carve_tool
	sweep_report "$s: class words, lengths and references of $(echo "$pos" | wc -w) places" "$n0" "carves"

	# a class word that names nothing must never be carved as the object it was
	quiet=0 tried=0
	cp "$dir/core" "$M" && chmod u+w "$M"
	for p in $(echo "$pos" | tr ' ' '\n' | awk 'NR % 3 == 1' | head -n 12); do
		orig=$(od -An -tu1 -j "$p" -N1 "$dir/core" | tr -d ' ')
		printf '\377' | dd of="$M" bs=1 seek="$p" conv=notrunc 2>/dev/null
		tried=$((tried + 1))
		if "$ART" carve --json "$M" --maps "$maps" --force -o "$TMP/one" >"$TMP/one.json" 2>/dev/null; then
			got=$(sed -n 's/^  "objects": \([0-9]*\),/\1/p' "$TMP/one.json")
			[ "$got" = "$base" ] && jq -e '.anomalies.total == 0' "$TMP/one.json" >/dev/null && quiet=$((quiet + 1))
		fi
		printf "\\$(printf %03o "$orig")" | dd of="$M" bs=1 seek="$p" conv=notrunc 2>/dev/null
	done
	if [ "$quiet" -eq 0 ]; then t_ok "$s: each of $tried damaged class words changed what was carved"
	else t_fail "$s: $quiet of $tried damaged class words passed unnoticed"; fi
done
t_done

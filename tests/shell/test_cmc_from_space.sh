#!/bin/sh
# test_cmc_from_space.sh - residue of dead objects in the mark-compact from-space
# (rosalloc/walk/cmc.c) on synthetic CMC images (build/synth --heap cmc): the dead objects the
# generator left there are carved as residue and nothing else is (the survivors' old copies
# are dropped: with the dead objects zeroed, no residue at all); a from-space above 4 GiB
# that holds data is an anomaly, not carved; random damage to the from-space under ASan/UBSan
# neither crashes nor turns into allocated objects.
. "$(dirname "$0")/lib.sh"
SYNTH=$PWD/build/synth
[ -x "$SYNTH" ] && [ -x "$ASAN_ART" ] || { t_fail "build/synth or $ASAN_ART missing (make all asan)"; t_done; exit; }
t_need python3 jq || { t_done; exit; }

# file offset and captured length of the mapping named NAME in core ("off len va")
seg() {
	python3 - "$1" "$2" "$3" <<'EOF'
import struct, sys
core, maps, name = sys.argv[1], sys.argv[2], sys.argv[3]
va = None
for line in open(maps):
    if name in line and ' rw-p ' in line:
        va = int(line.split('-')[0], 16)
        break
b = open(core, 'rb').read()
is64 = b[4] == 2
if is64:
    phoff, phentsize, phnum = struct.unpack_from('<Q', b, 32)[0], *struct.unpack_from('<HH', b, 54)
else:
    phoff, phentsize, phnum = struct.unpack_from('<I', b, 28)[0], *struct.unpack_from('<HH', b, 42)
for i in range(phnum):
    p = phoff + i * phentsize
    if is64:
        typ, _, off, vaddr, _, filesz = struct.unpack_from('<IIQQQQ', b, p)
    else:
        typ, off, vaddr, _, filesz = struct.unpack_from('<IIIII', b, p)
    if typ == 1 and vaddr == va:
        print(off, filesz, va)
        sys.exit(0)
sys.exit(1)
EOF
}

residue() { jq -r '.states.content.residue | "\(.truth) \(.matched) \(.same) \(.result) \(.result_right)"' "$1"; }

for v in 14 16; do
	d=$TMP/$v-32
	"$SYNTH" --version $v --heap cmc --bits 32 --seed 4 --size small --out "$d" >/dev/null 2>&1 ||
		{ t_fail "$v/32: generating"; continue; }
	set -- $(seg "$d/core" "$d/maps" "mark-compact from-space") || { t_fail "$v/32: no from-space segment"; continue; }
	off=$1 len=$2
	ndead=$(grep -c '"space":"cmc-from-space"' "$d/truth.jsonl")
	# carved as residue: every dead object, nothing more
	if "$ART" carve "$d/core" --maps "$d/maps" --include residue -q -o "$d/out" >/dev/null 2>"$d/err" &&
		"$ART" validate --json "$d/out/heap.hprof" "$d/truth.jsonl" >"$d/v.json" 2>>"$d/err"; then
		r=$(residue "$d/v.json")
		[ "$r" = "$ndead $ndead $ndead $ndead $ndead" ] && [ "$ndead" -gt 0 ] &&
			t_ok "$v/32: $ndead dead objects in the from-space, all carved as residue, nothing else" ||
			t_fail "$v/32: residue truth/matched/same/result/right $r, dead $ndead"
	else t_fail "$v/32: carve or validate: $(head -n 2 "$d/err")"; fi
	# the survivors' copies alone: zero every byte of the from-space past the main block
	# (the first truth residue object starts the dead tail)
	first=$(grep '"space":"cmc-from-space"' "$d/truth.jsonl" | head -n 1 | sed 's/.*"addr":"\(0x[0-9a-f]*\)".*/\1/')
	base=$(sed -n 's/^\([0-9a-f]*\)-.*mark-compact from-space.*/\1/p' "$d/maps" | head -n 1)
	cut=$((first - 0x$base))
	cp "$d/core" "$d/core.copies"
	dd if=/dev/zero of="$d/core.copies" bs=1 seek=$((off + cut)) count=$((len - cut)) conv=notrunc 2>/dev/null
	if "$ART" carve --json "$d/core.copies" --maps "$d/maps" --include residue -q -o "$d/out2" >"$d/c2.json" 2>"$d/err"; then
		n=$(jq '.states.residue // .residue // 0' "$d/c2.json")
		[ "$n" = 0 ] && t_ok "$v/32: only survivors' copies in the from-space: no residue" ||
			t_fail "$v/32: only copies, yet $n residue objects"
	else t_fail "$v/32: carve (copies only): $(head -n 2 "$d/err")"; fi
	# random damage under ASan/UBSan: 30 rounds of 16 random words in the from-space
	bad=0
	for i in $(seq 1 30); do
		cp "$d/core" "$d/core.bad"
		python3 -c "
import random, sys
r = random.Random($i * 7919 + $v)
with open(sys.argv[1], 'r+b') as f:
    for _ in range(16):
        f.seek($off + r.randrange($len // 8) * 8)
        f.write(r.getrandbits(64).to_bytes(8, 'little'))" "$d/core.bad"
		"$ASAN_ART" carve --json "$d/core.bad" --maps "$d/maps" --include residue -q -o "$d/out3" >"$d/c3.json" 2>"$d/err3"
		rc=$?
		if [ $rc -gt 1 ] || grep -q 'Sanitizer' "$d/err3"; then
			bad=$((bad + 1)); echo "round $i: exit $rc $(grep -m1 -E 'Sanitizer|error' "$d/err3")"
		fi
		rm -rf "$d/out3"
	done
	[ $bad = 0 ] && t_ok "$v/32: 30 rounds of from-space damage under ASan/UBSan: no crash" ||
		t_fail "$v/32: $bad of 30 damaged from-spaces failed"
	rm -rf "$d"
done

# 64-bit: the from-space lies above 4 GiB; data there is reported, not carved
d=$TMP/16-64
if "$SYNTH" --version 16 --heap cmc --bits 64 --seed 4 --size tiny --out "$d" >/dev/null 2>&1 &&
	set -- $(seg "$d/core" "$d/maps" "mark-compact from-space"); then
	printf 'live?\0\0\0' | dd of="$d/core" bs=1 seek=$(($1 + 64)) conv=notrunc 2>/dev/null
	"$ART" carve --json "$d/core" --maps "$d/maps" --include residue -q -o "$d/out" >"$d/c.json" 2>"$d/err"
	if jq -e '[.anomalies.records[] | select(.message | test("above 4 GiB: not carved"))] | length == 1' "$d/c.json" >/dev/null &&
		jq -e '.states.residue == 0' "$d/c.json" >/dev/null; then
		t_ok "64-bit from-space with data above 4 GiB: reported, not carved"
	else t_fail "64-bit from-space: $(jq -c '.anomalies.records, .states' "$d/c.json" 2>&1 | cut -c1-300) $(head -n 2 "$d/err")"; fi
else t_fail "16/64: generating or finding the from-space"; fi
t_done

#!/bin/sh
# test_cmc_from_space.sh - residue of dead objects in the mark-compact from-space
# (rosalloc/walk/cmc.c) on synthetic CMC images (build/synth --heap cmc): the dead objects the
# generator left there are carved as residue and nothing else is (the survivors' old copies
# are dropped: with the dead objects zeroed, no residue at all); above 4 GiB (64-bit: 14-oat230,
# 14, 15, 16, 15 and 16 with 16 KiB pages) the same at the real addresses, with the HPROF ids of
# the alias window in case.db; a from-space with no free window below 4 GiB is an anomaly, not
# carved; random damage to the from-space under ASan/UBSan neither crashes nor turns into
# allocated objects.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/visualvm_lib.sh"
SYNTH=$PWD/build/synth
[ -x "$SYNTH" ] && [ -x "$ASAN_ART" ] || { t_fail "build/synth or $ASAN_ART missing (make all asan)"; t_done; exit; }
t_need python3 jq sqlite3 || { t_done; exit; }

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

# damage_rounds DIR OFF LEN ROUNDS SEED LABEL: ROUNDS copies of DIR/core, each with 16 random
# 8-byte words written into [OFF, OFF + LEN) of the file (the from-space), carved with the
# ASan/UBSan build: an exit above 1 (not "ran" or "found damage") or a sanitizer report fails.
damage_rounds() {
	dr_bad=0
	for i in $(seq 1 "$4"); do
		cp "$1/core" "$1/core.bad"
		python3 -c "
import random, sys
r = random.Random($i * 7919 + $5)
with open(sys.argv[1], 'r+b') as f:
    for _ in range(16):
        f.seek($2 + r.randrange($3 // 8) * 8)
        f.write(r.getrandbits(64).to_bytes(8, 'little'))" "$1/core.bad"
		"$ASAN_ART" carve --json "$1/core.bad" --maps "$1/maps" --include residue -q -o "$1/out3" >"$1/c3.json" 2>"$1/err3"
		rc=$?
		if [ $rc -gt 1 ] || grep -q 'Sanitizer' "$1/err3"; then
			dr_bad=$((dr_bad + 1)); echo "round $i: exit $rc $(grep -m1 -E 'Sanitizer|error' "$1/err3")"
		fi
		rm -rf "$1/out3"
	done
	[ $dr_bad = 0 ] && t_ok "$6: $4 rounds of damage to the from-space under ASan/UBSan: no crash" ||
		t_fail "$6: $dr_bad of $4 damaged from-spaces failed"
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
	damage_rounds "$d" "$off" "$len" 30 "$v" "$v/32"
	rm -rf "$d"
done

# 64-bit: the from-space lies above 4 GiB (MapAnonymousAligned without low_4gb); its residue
# is carved with model addresses in an alias window below 4 GiB, and every output gives the
# real address: objects.jsonl and case.db (with the HPROF id beside it), validate against the
# truth's real addresses
for fam in 14-oat230 14 15 16 15:16k 16:16k; do
	v=${fam%%:*} page=
	[ "$v" != "$fam" ] && page="--page ${fam#*:}"
	d=$TMP/$v-64${page:+-16k}
	# shellcheck disable=SC2086
	"$SYNTH" --version $v --heap cmc --bits 64 $page --seed 1 --size small --out "$d" >/dev/null 2>&1 ||
		{ t_fail "$fam/64: generating"; continue; }
	base=$(sed -n 's/^\([0-9a-f]*\)-\([0-9a-f]*\) .*mark-compact from-space.*/\1 \2/p' "$d/maps" | head -n 1)
	lo=$((0x${base% *})) hi=$((0x${base#* }))
	ndead=$(grep -c '"space":"cmc-from-space"' "$d/truth.jsonl")
	if ! { [ "$lo" -ge 4294967296 ] && [ "$ndead" -gt 0 ]; }; then
		t_fail "$fam/64: from-space at $lo with $ndead dead objects (expected data above 4 GiB)"; continue
	fi
	if ! "$ART" carve "$d/core" --maps "$d/maps" --include residue -q -o "$d/out" >/dev/null 2>"$d/err" ||
		! "$ART" validate --json "$d/out/heap.hprof" "$d/truth.jsonl" >"$d/v.json" 2>>"$d/err"; then
		t_fail "$fam/64: carve or validate: $(head -n 2 "$d/err")"; continue
	fi
	# the residue objects.jsonl gives in the from-space, by real address, against the truth's
	grep '"space":"cmc-from-space"' "$d/truth.jsonl" | sed 's/^{"addr":"\(0x[0-9a-f]*\)".*/\1/' | sort >"$d/t.addr"
	jq -r 'select(.content == "residue" and .space_kind == "MarkCompactMap") | .address' \
		"$d/out/objects.jsonl" | sort >"$d/c.addr"
	carved=$(wc -l <"$d/c.addr") right=$(comm -12 "$d/t.addr" "$d/c.addr" | wc -l)
	r=$(residue "$d/v.json")
	set -- $r
	echo "$fam/64: from-space 0x${base% *}: residue truth $ndead, carved $carved, right $right;" \
		"validate residue truth/matched/same/result/right $r"
	[ "$carved" = "$ndead" ] && [ "$right" = "$ndead" ] && [ "$2" = "$3" ] && [ "$3" = "$4" ] && [ "$4" = "$5" ] &&
		[ "$2" -ge "$ndead" ] &&
		t_ok "$fam/64: $ndead dead objects above 4 GiB carved as residue at their real addresses (recall = precision = 1)" ||
		t_fail "$fam/64: residue truth $ndead, carved $carved, right $right, validate $r"
	# case.db: the same objects by real address, each with its HPROF id below 4 GiB; MAT's id
	# of the first one leads back to it
	first=$(head -n 1 "$d/t.addr")
	id=$(jq -r --arg a "$first" 'select(.address == $a) | .hprof_id' "$d/out/objects.jsonl")
	q=$(sqlite3 "$d/out/case.db" "SELECT (SELECT count(*) FROM objects WHERE address >= $lo AND address < $hi AND content = 'residue'),
		(SELECT count(*) FROM hprof_ids), (SELECT printf('0x%x', hprof_id) FROM hprof_ids WHERE address = $first),
		(SELECT count(*) FROM hprof_ids h JOIN objects o USING(address) WHERE h.hprof_id >= 4294967296 OR o.content != 'residue');" 2>&1)
	[ "$q" = "$ndead|$ndead|$id|0" ] && [ -n "$id" ] && [ "$id" != "null" ] &&
		t_ok "$fam/64: case.db holds the $ndead at their real addresses, hprof_ids maps $first to $id as objects.jsonl does" ||
		t_fail "$fam/64: case.db gives '$q', objects.jsonl hprof_id of $first '$id' (dead $ndead)"
	if [ "$fam" = 16 ]; then
		# an independent HPROF reader loads the AddressAlias class and instance beside the objects
		"$ART" carve --json "$d/core" --maps "$d/maps" --include residue -q -o "$d/vv" >"$d/vv.json" 2>"$d/err"
		[ "$(jq '.output.alias_windows' "$d/vv.json")" = 1 ] && t_ok "16/64: heap.hprof holds one address alias window" ||
			t_fail "16/64: alias windows in heap.hprof: $(jq -c .output "$d/vv.json")"
		check_visualvm "16/64 --include residue" "$d/vv/heap.hprof" "$d/vv.json"
		cp -r "$d" "$TMP/keep-16-64"
	fi
	rm -rf "$d"
done

# no window below 4 GiB is free (every gap mapped in the listing): reported, not carved
d=$TMP/keep-16-64
if [ -d "$d" ]; then
	python3 - "$d/maps" >"$d/maps.full" <<'EOF2'
import sys
lines = open(sys.argv[1]).read().splitlines()
spans = sorted((int(l.split('-')[0], 16), int(l.split()[0].split('-')[1], 16)) for l in lines)
out, at = list(lines), 0x10000
for b, e in spans + [(1 << 32, 1 << 32)]:
    if b > at and at < (1 << 32):
        out.append('%08x-%08x ---p 00000000 00:00 0    [anon:filler]' % (at, min(b, 1 << 32)))
    at = max(at, e)
print('\n'.join(sorted(out, key=lambda l: int(l.split('-')[0], 16))))
EOF2
	"$ART" carve --json "$d/core" --maps "$d/maps.full" --include residue -q -o "$d/out2" >"$d/c.json" 2>"$d/err"
	if jq -e '[.anomalies.records[] | select(.message | test("lies above 4 GiB and no unmapped window"))] | length == 1' "$d/c.json" >/dev/null &&
		jq -e '.states.residue == 0' "$d/c.json" >/dev/null; then
		t_ok "64-bit from-space with no free window below 4 GiB: reported once, not carved"
	else t_fail "no window: $(jq -c '.anomalies.records, .states' "$d/c.json" 2>&1 | cut -c1-300) $(head -n 2 "$d/err")"; fi
	# a live reference into the alias window names nothing: the first element of an allocated
	# object array is set to the HPROF id of a residue object; the value is kept as read
	# (objects.jsonl), the residue stays unreachable, and heap.hprof writes the element null
	"$ART" carve "$d/core" --maps "$d/maps" --include residue -q -o "$d/o1" >/dev/null 2>&1
	arr=$(jq -r 'select(.kind == "object-array" and .alloc == "allocated" and .length > 0) | .address' "$d/o1/objects.jsonl" | head -n 1)
	alias=$(jq -r 'select(.hprof_id) | .hprof_id' "$d/o1/objects.jsonl" | head -n 1)
	real=$(jq -r 'select(.hprof_id) | .address' "$d/o1/objects.jsonl" | head -n 1)
	cp "$d/core" "$d/core.ref"
	python3 - "$d/core.ref" "$arr" "$alias" <<'EOF2'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
va, v = int(sys.argv[2], 16) + 12, int(sys.argv[3], 16)
phoff = struct.unpack_from('<Q', b, 32)[0]; phentsize, phnum = struct.unpack_from('<HH', b, 54)
for i in range(phnum):
    typ, _, off, vaddr, _, filesz = struct.unpack_from('<IIQQQQ', b, phoff + i * phentsize)
    if typ == 1 and vaddr <= va < vaddr + filesz:
        struct.pack_into('<I', b, off + va - vaddr, v)
        open(sys.argv[1], 'wb').write(b)
        sys.exit(0)
sys.exit(1)
EOF2
	"$ART" carve "$d/core.ref" --maps "$d/maps" --include residue -q -o "$d/o2" >/dev/null 2>"$d/err"
	kept=$(jq -r --arg a "$arr" 'select(.address == $a) | "\(.alloc) \(.elements[0])"' "$d/o2/objects.jsonl")
	reach=$(sqlite3 "$d/o2/case.db" "SELECT reach FROM objects WHERE address = $real" 2>&1)
	inh=$(python3 - "$d/o2/heap.hprof" "$arr" <<'EOF2'
import struct, sys
b = open(sys.argv[1], 'rb').read()
i = b.find(b'\x22' + struct.pack('>II', int(sys.argv[2], 16), 0))
print('0x%x' % struct.unpack_from('>I', b, i + 17)[0] if i >= 0 else 'none')
EOF2
)
	echo "array $arr element 0 set to $alias (the id of $real): objects.jsonl '$kept', residue reach '$reach', heap.hprof element $inh"
	[ "$kept" = "allocated $alias" ] && [ "$reach" = unreachable ] && [ "$inh" = 0x0 ] &&
		t_ok "a reference into the alias window names no object (kept as read, residue unreachable, null in heap.hprof)" ||
		t_fail "reference into the window: objects.jsonl '$kept', reach '$reach', heap.hprof '$inh' $(head -n 2 "$d/err")"
	# random damage to the from-space above 4 GiB under ASan/UBSan
	set -- $(seg "$d/core" "$d/maps" "mark-compact from-space")
	damage_rounds "$d" "$1" "$2" 15 64 "16/64 (above 4 GiB)"
else t_fail "16/64: no image kept for the window and damage checks"; fi
t_done

#!/bin/sh
# test_damage_class_index.sh - one damaged word in one java.lang.Class must cost only that
# class.  On real ART 11 captures (CMS/RosAlloc and CC/region space) the class_def index
# (Class.dex_class_def_idx_, +80) or the type index (dex_type_idx_, +84, class.h @R11) of one
# class is overwritten with 0x7fffffff or 0x80000000, for a boot class with many instances and
# an app class with a subclass-free hierarchy; then `carve` and `validate` against the
# runtime's own HPROF:
#   - the DexCache's DEX is still found (the other classes outvote the damaged one);
#   - the damaged class is read through its other index (the class_def whose super class is
#     its own): an anomaly says so, and recall, precision and field agreement stay 1.
# Before, either value made the whole DEX unknown: every class of the DEX lost its name and
# fields (42% of a heap for a boot class).
. "$(dirname "$0")/lib.sh"
REAL=$CORPUS/images/realart
t_need zstd jq python3 && t_corpus "$REAL" || { t_done; exit; }

# patch CORE VA VALUE: the 4 bytes at VA of an ELF64 core (its PT_LOAD), little-endian
patch() {
	python3 - "$1" "$2" "$3" <<'EOF'
import struct, sys
path, va, val = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16)
with open(path, 'r+b') as f:
    h = f.read(64)
    phoff, = struct.unpack_from('<Q', h, 32)
    phentsize, phnum = struct.unpack_from('<HH', h, 54)
    for i in range(phnum):
        f.seek(phoff + i * phentsize)
        t, _, off, vaddr, _, fsz, _, _ = struct.unpack('<IIQQQQQQ', f.read(56))
        if t == 1 and vaddr <= va < vaddr + fsz:
            f.seek(off + va - vaddr)
            f.write(struct.pack('<I', val))
            sys.exit(0)
sys.exit(1)
EOF
}

for cap in cms-collections cc-collections; do
	dir=$REAL/$cap w=$TMP/$cap
	mkdir -p "$w"
	zstd -q -dc "$dir/core.zst" >"$w/core" || { t_fail "$cap: zstd"; continue; }
	"$ART" classes "$w/core" --maps "$dir/maps.txt" >"$w/classes" 2>&1 || { t_fail "$cap: classes"; continue; }
	for name in 'java.util.HashMap$Node' 'java.lang.Integer' 'CollectionsHeap$Leaf'; do
		addr=$(awk -v n="$name" '$1 == "class" && $3 == n { print $2; exit }' "$w/classes")
		[ -n "$addr" ] || { t_fail "$cap: no class $name"; continue; }
		for field in 80:class_def 84:type; do
			off=${field%%:*} what=${field#*:}
			for val in 0x7fffffff 0x80000000; do
				n="$cap: $name $what index = $val"
				cp "$w/core" "$w/damaged"
				patch "$w/damaged" "$(printf '0x%x' $((addr + off)))" "$val" || { t_fail "$n: patch"; continue; }
				if ! "$ART" carve "$w/damaged" --maps "$dir/maps.txt" -o "$w/out" --skip bmd,report,db,jsonl,strings \
					>"$w/sum" 2>"$w/err"; then
					t_fail "$n: carve failed: $(head -n 2 "$w/err")"; continue
				fi
				"$ART" validate --json "$w/out/heap.hprof" "$dir/heap.hprof.zst" >"$w/v.json" 2>"$w/err" ||
					{ t_fail "$n: validate: $(head -n 2 "$w/err")"; continue; }
				figures=$(jq -r '[.objects.recall, .objects.precision, .fields.objects.agreement] | @tsv' "$w/v.json")
				echo "$n: recall, precision, field agreement $figures"
				if [ "$figures" = "$(printf '1\t1\t1')" ] &&
					grep -q "anomaly class $addr .*disagree with its DexCache's DEX (damage): read as class_def" "$w/sum"; then
					t_ok "$n: the class read through its other index, the heap whole"
				else
					t_fail "$n: $figures; $(grep -m 2 'anomaly' "$w/sum" | cut -c1-240)"
				fi
			done
		done
	done
	rm -f "$w/core" "$w/damaged"
done
t_done

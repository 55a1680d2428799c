#!/bin/sh
# test_realart_runtime.sh - the runtime model against the real ART captures.
# For every capture in $CORPUS/images/realart/ (core + the runtime's own HPROF):
#   - `info` spaces (kind, begin, end) equal truth.json "spaces", with --maps (names) and
#     without (content only);
#   - `info` class count equals the number of CLASS_DUMPs in the HPROF;
#   - `classes`: every class's instance fields (name, type, order) equal its CLASS_DUMP, for
#     100% of classes, with and without --maps.  The HPROF's synthetic fields (ART's hprof.cc
#     appends "value" to java.lang.String and "runtimeInternalObjects" to DexCache and
#     java.lang.ClassLoader; they are not fields of the objects) are removed first.
# Mismatches are printed.  A summary table ends the log.  On cc-collections and
# cms-collections also: the ASan build's class list, and a seeded corruption sweep over bytes
# of Class objects and DEX headers (tests/tools/sweep_classes.c: no crash, no hang).
. "$(dirname "$0")/lib.sh"
REAL=$CORPUS/images/realart
TOOL=$PWD/build/tools/hprof_classes
t_need zstd && t_corpus "$REAL" || { t_done; exit; }

# "KIND BEGIN END" of truth.json's spaces
truth_spaces() {
	awk '/"spaces": \[/ { f = 1; next } f && /^ \]/ { f = 0 }
	     f && /"kind"/ { gsub(/[",]/, "", $2); k = $2 }
	     f && /"begin"/ { gsub(/[",]/, "", $2); b = $2 }
	     f && /"end"/ { gsub(/[",]/, "", $2); print k, b, $2 }' "$1" | sort
}
# "KIND BEGIN END" of the object spaces `info` reports (not inactive twins, not single LOS allocations)
info_spaces() {
	awk '$1 == "space" && $2 != "LargeObjectAllocation" && !/ backup / { print $2, $3, $4 }' "$1" | sort
}
# `classes` text -> "NAME: field type, ..." with HPROF basic type names
norm_classes() {
	awk '/^class / { if (n) print line; line = $3 ":"; nf = 0; n = 1; next }
	     /^  field / { t = $3; if (t !~ /^(boolean|char|float|double|byte|short|int|long)$/) t = "object"
			   line = line (nf++ ? ", " : " ") $4 " " t }
	     END { if (n) print line }' "$1" | sort
}
norm_hprof() {
	"$TOOL" "$1" | sed -e 's/^\(java\.lang\.String:.*\), value object$/\1/' \
		-e 's/^\(java\.lang\.DexCache:.*\), runtimeInternalObjects object$/\1/' \
		-e 's/^\(java\.lang\.ClassLoader:.*\), runtimeInternalObjects object$/\1/' | sort
}

summary=$TMP/summary
printf '%-16s %-7s %-14s %-22s %s\n' capture maps "spaces equal" "classes (found/hprof)" "field layouts equal" >"$summary"
caps=0
for dir in "$REAL"/*/; do
	cap=$(basename "$dir")
	[ -f "$dir/core.zst" ] || continue
	caps=$((caps + 1))
	w=$TMP/$cap
	mkdir -p "$w"
	if ! zstd -q -d "$dir/core.zst" -o "$w/core" || ! zstd -q -d "$dir/heap.hprof.zst" -o "$w/heap.hprof"; then
		t_fail "$cap: cannot decompress"; continue
	fi
	truth_spaces "$dir/truth.json" >"$w/truth.spaces"
	norm_hprof "$w/heap.hprof" >"$w/hprof.classes"
	hprof_n=$(wc -l <"$w/hprof.classes")
	for mode in maps content; do
		if [ $mode = maps ]; then set -- --maps "$dir/maps.txt"; else set --; fi
		if ! "$ART" info "$w/core" "$@" >"$w/info.$mode" 2>"$w/info.$mode.err"; then
			t_fail "$cap ($mode): info failed: $(cat "$w/info.$mode.err")"; continue
		fi
		info_spaces "$w/info.$mode" >"$w/spaces.$mode"
		if cmp -s "$w/spaces.$mode" "$w/truth.spaces"; then
			t_ok "$cap ($mode): spaces equal truth.json ($(wc -l <"$w/truth.spaces") spaces)"
			sp="$(wc -l <"$w/truth.spaces")/$(wc -l <"$w/truth.spaces")"
		else
			t_fail "$cap ($mode): spaces differ from truth.json:"; diff "$w/spaces.$mode" "$w/truth.spaces" | sed 's/^/    /'
			sp="$(comm -12 "$w/spaces.$mode" "$w/truth.spaces" | wc -l)/$(wc -l <"$w/truth.spaces")"
		fi
		n=$(sed -n 's/^classes: \([0-9]*\) .*/\1/p' "$w/info.$mode")
		if [ "$n" = "$hprof_n" ]; then t_ok "$cap ($mode): $n classes, as in the HPROF"
		else t_fail "$cap ($mode): info counts '$n' classes, the HPROF has $hprof_n"; fi

		if ! "$ART" classes "$w/core" "$@" >"$w/classes.$mode" 2>"$w/classes.$mode.err"; then
			t_fail "$cap ($mode): classes failed: $(cat "$w/classes.$mode.err")"; continue
		fi
		norm_classes "$w/classes.$mode" >"$w/art.classes"
		same=$(comm -12 "$w/art.classes" "$w/hprof.classes" | wc -l)
		if cmp -s "$w/art.classes" "$w/hprof.classes"; then
			t_ok "$cap ($mode): instance fields of all $hprof_n classes equal the HPROF CLASS_DUMPs"
		else
			t_fail "$cap ($mode): $same of $hprof_n classes have the HPROF's fields; differences (< artcarve, > hprof):"
			diff "$w/art.classes" "$w/hprof.classes" | grep '^[<>]' | head -n 20 | cut -c1-200 | sed 's/^/    /'
		fi
		unchecked=$(grep -c ' unchecked$' "$w/classes.$mode")
		if [ "$unchecked" -eq 0 ]; then t_ok "$cap ($mode): every derived field layout agrees with object_size_"
		else t_fail "$cap ($mode): $unchecked field layouts disagree with object_size_ / reference counts"; fi
		printf '%-16s %-7s %-14s %-22s %s\n' "$cap" $mode "$sp" "$(wc -l <"$w/art.classes")/$hprof_n" \
			"$same/$hprof_n" >>"$summary"
	done
	# the ASan build on one capture of each layout, and corruption sweeps inside Class objects
	# and DEX headers (seeded; the core is mapped copy-on-write, never written)
	case $cap in cc-collections|cms-collections)
		if "$ASAN_ART" classes "$w/core" >"$w/asan.out" 2>"$w/asan.err" && cmp -s "$w/asan.out" "$w/classes.content"; then
			t_ok "$cap: ASan build gives the same class list"
		else
			t_fail "$cap: ASan build: $(head -n 5 "$w/asan.err")"
		fi
		if [ $cap = cms-collections ]; then sweep=$PWD/build/tools/sweep_classes n=100
		else sweep=$PWD/build/asan/tools/sweep_classes n=20; fi
		if "$sweep" "$w/core" $n 20261122 "$dir/maps.txt" >"$w/sweep.out" 2>&1; then
			t_ok "$cap: $(sed -n 1p "$w/sweep.out")"
		else
			t_fail "$cap: corruption sweep:"; grep -v '^RESULT' "$w/sweep.out" | head -n 10 | sed 's/^/    /'
		fi ;;
	esac
	rm -f "$w/core" "$w/heap.hprof"
done
[ "$caps" -gt 0 ] || t_fail "no capture with core.zst under $REAL"
cat "$summary"
t_done

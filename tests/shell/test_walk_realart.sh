#!/bin/sh
# test_walk_realart.sh - the space walkers against the runtime's own view of every real ART
# capture ($CORPUS/images/realart/*/ and realart-full/*/: core, maps, art-dump.txt, HPROF).
# tests/tools/walk_realart.c compares run by run with RosAlloc::DumpPageMap (CMS: bracket,
# pages, thread-local, all-free; page-level allocations), region by region with
# RegionSpace::DumpNonFreeRegions (CC: state; objects_allocated and top of regions that are
# no TLAB), and object by object with the HPROF (every real object is an allocated
# candidate; every allocated candidate is an HPROF object or a retired Class; no free
# candidate is one), and requires no anomaly.  Also: `artcarve walk --json` is valid JSON
# with the same allocated count, so is the walk without --maps (spaces found by content), and
# the ASan build walks the two collections captures.
# A summary table ends the log.
. "$(dirname "$0")/lib.sh"
TOOL=$PWD/build/tools/walk_realart
t_need zstd jq && t_corpus "$CORPUS/images/realart" || { t_done; exit; }
[ -x "$TOOL" ] || { t_fail "no $TOOL (make all)"; t_done; exit; }
summary=$TMP/summary caps=0
printf '%-22s %-16s %-14s %-30s %s\n' capture "runs/large" regions "objects hprof/allocated/retired" "free" >"$summary"
for dir in "$CORPUS"/images/realart/*/ "$CORPUS"/images/realart-full/*/; do
	[ -f "$dir/core.zst" ] || continue
	caps=$((caps + 1))
	cap=$(basename "$dir")
	w=$TMP/$cap
	mkdir -p "$w"
	if ! zstd -q -d "$dir/core.zst" -o "$w/core" || ! zstd -q -d "$dir/heap.hprof.zst" -o "$w/heap.hprof"; then
		t_fail "$cap: cannot decompress"; continue
	fi
	"$TOOL" "$w/core" "$dir/maps.txt" "$dir/art-dump.txt" "$w/heap.hprof" >"$w/cmp" 2>&1
	rc=$?
	sed 's/^/  /' "$w/cmp"
	n=$(grep -c '^check ' "$w/cmp")
	[ "$n" -ge 4 ] || t_fail "$cap: walk_realart ran $n checks (exit $rc)"
	grep '^check ' "$w/cmp" | while read -r _ name verdict rest; do
		if [ "$verdict" = ok ]; then echo "ok - $cap ${name%:} $rest"; else echo "not ok - $cap ${name%:} $rest"; fi
	done >"$w/verdicts"
	while read -r line; do
		case "$line" in "ok - "*) t_ok "${line#ok - }" ;; *) t_fail "${line#not ok - }" ;; esac
	done <"$w/verdicts"
	[ "$rc" -eq 0 ] || t_fail "$cap: walk_realart exit $rc"
	rl=$(sed -n 's/^summary rosalloc: runs \([0-9/]*\), large \([0-9/]*\).*/\1 \2/p' "$w/cmp")
	rg=$(sed -n 's/^summary regions: \([0-9/]*\) matched.*/\1/p' "$w/cmp")
	ob=$(sed -n 's/^summary objects: hprof \([0-9]*\), allocated \([0-9]*\), retired \([0-9]*\), free \([0-9]*\)/\1 \2 \3|\4/p' "$w/cmp")
	printf '%-22s %-16s %-14s %-30s %s\n' "$cap" "${rl:--}" "${rg:--}" "${ob%|*}" "${ob#*|}" >>"$summary"
	# the command: --json parses and agrees on the allocated count
	if "$ART" walk --json "$w/core" --maps "$dir/maps.txt" >"$w/walk.json" 2>"$w/walk.err"; then
		got=$(jq '.allocated' "$w/walk.json" 2>/dev/null)
		want=$(sed -n 's/^summary objects: hprof [0-9]*, allocated \([0-9]*\),.*/\1/p' "$w/cmp")
		if [ -n "$got" ] && [ "$got" = "$want" ]; then t_ok "$cap: walk --json allocated $got"
		else t_fail "$cap: walk --json allocated '$got', tool $want"; fi
	else
		t_fail "$cap: artcarve walk --json failed: $(head -n 1 "$w/walk.err")"
	fi
	# without the maps listing (spaces found by content): the same allocated count, no anomaly
	if "$ART" walk "$w/core" >"$w/walk.content" 2>"$w/walk.err"; then
		want=$(sed -n 's/^summary objects: hprof [0-9]*, allocated \([0-9]*\),.*/\1/p' "$w/cmp")
		got=$(sed -n 's/^candidates: allocated \([0-9]*\),.*/\1/p' "$w/walk.content")
		an=$(sed -n 's/^anomalies: //p' "$w/walk.content")
		if [ "$got" = "$want" ] && [ "$an" = 0 ]; then t_ok "$cap: walk without --maps: allocated $got, no anomaly"
		else t_fail "$cap: walk without --maps: allocated $got (want $want), anomalies $an"; fi
	else
		t_fail "$cap: walk without --maps failed: $(head -n 1 "$w/walk.err")"
	fi
	case "$cap" in *collections)
		if [ -x "$ASAN_ART" ] && "$ASAN_ART" walk "$w/core" --maps "$dir/maps.txt" >"$w/asan.out" 2>"$w/asan.err"; then
			t_ok "$cap: ASan walk ($(grep '^candidates' "$w/asan.out"))"
		else
			t_fail "$cap: ASan walk: $(head -n 3 "$w/asan.err" | tr '\n' ' ')"
		fi ;;
	esac
	rm -f "$w/core" "$w/heap.hprof"
done
[ "$caps" -gt 0 ] || t_fail "no capture with core.zst under $CORPUS/images/realart"
cat "$summary"
t_done

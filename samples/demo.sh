#!/bin/sh
# samples/demo.sh - the main job on the embedded samples (run by `make demo`): carve the
# synthetic Android 11 process image samples/android11-64bit (made by `make samples`), show
# what was found (objects per state, the dropped chat messages and session tokens) next to the
# image's ground truth, then every output carve wrote, with its size and how to open it; then
# the Android 14 sample whose heap is the mark-compact (CMC) collector's bump-pointer space,
# with the residue of its from-space above 4 GiB.
set -eu
cd "$(dirname "$0")/.."
out=build/demo
rm -rf "$out"
mkdir -p "$out"
s=samples/android11-64bit
echo "== the sample: $s (see $s/README)"
sed -n 1,3p "$s/README"
echo
echo "== artcarve carve $s/core --maps $s/maps -o $out"
./build/artcarve carve "$s/core" --maps "$s/maps" -o "$out" >"$out-carve.txt"
sed -n '/^objects:/p;/^states:/,/^  unknown/p' "$out-carve.txt"
echo
echo "== dropped objects (allocated, unreachable): what the app let go and no GC has swept"
sed -n '/^DROPPED/,/^spaces:/p' "$out-carve.txt" | sed '$d'
echo
echo "== the carved dropped objects next to the generator's truth ($s/truth.jsonl)"
for c in com.example.chat.Message com.example.auth.SessionToken; do
	got=$(sed -n '/^dropped:/,/^  sample_strings:/p' "$out-carve.txt" | awk -v c="$c" '$2 == c { print $1 }')
	want=$(grep "\"class\":\"$c\"" "$s/truth.jsonl" | grep -c '"alloc":"allocated".*"reach":"unreachable"')
	echo "   $c: ${got:-0} dropped found by carve, $want in the truth"
done
echo

# how_to FILE: one line on opening an output of carve
how_to() {
	case ${1##*/} in
	heap.hprof) echo "Eclipse MAT: File > Open Heap Dump (dropped objects: artcarve.mark.Unreachable[]);" \
		"Android Studio: carve --android, Profiler > Load from file" ;;
	heap.bmd) echo "the heap as BMD for transport: artcarve decrunch $1 heap-again.hprof" ;;
	case.db) echo "sqlite3 $1  (tables, views and example queries: README, case.db; one below)" ;;
	objects.jsonl) echo "jq -r 'select(.class == \"java.lang.String\" and .reach == \"unreachable\") | .value' $1" ;;
	strings.tsv) echo "grep -i token $1  (a bulk_extractor feature file)" ;;
	report.html) echo "open it in a browser: xdg-open $1  (one self-contained page with the heap map)" ;;
	*) echo "see README, carve" ;;
	esac
}

echo "== the outputs carve wrote (the summary is in $out/carve.txt)"
sed -n 's/^ *wrote \(.*\) (\([0-9]*\) bytes)$/\1 \2/p' "$out-carve.txt" | while read -r path bytes; do
	printf '   %-26s %10s bytes  %s\n' "$path" "$bytes" "$(how_to "$path")"
done
if [ -f "$out/case.db" ]; then
	q="SELECT hex, value FROM dropped_strings ORDER BY address LIMIT 6"
	echo
	echo "== $out/case.db (SQLite; tables, views and example queries: README.md, \"Case database\")"
	echo "   sqlite3 $out/case.db \"$q\""
	sqlite3 "$out/case.db" "$q" | sed 's/^/   /'
fi
if [ -f "$out/heap.hprof" ]; then
	echo
	echo "== artcarve hprof-info $out/heap.hprof"
	./build/artcarve hprof-info "$out/heap.hprof" | sed -n '/^classes:/,/^roots:/p'
fi
echo
c=samples/android14-64bit-cmc
echo "== an Android 14 module under the mark-compact collector: $c (see $c/README)"
echo "   its main space is a bump-pointer space (no RosAlloc page map, no regions), told apart by content"
./build/artcarve carve "$c/core" --maps "$c/maps" -o "$out/cmc" >"$out-cmc.txt"
sed -n '/^layout:/p;/^objects:/p;/^spaces:/,/^strings:/p' "$out-cmc.txt" | sed '$d'
echo "   the collector's from-space above 4 GiB still holds the heap before the last compaction;"
echo "   carve --include residue gives its dead objects at their real addresses (objects.jsonl):"
./build/artcarve carve "$c/core" --maps "$c/maps" --include residue -q -o "$out/cmc-residue" >/dev/null
grep -m 2 '"hprof_id"' "$out/cmc-residue/objects.jsonl" | cut -c1-150
echo
echo "== which layouts are checked against real runtimes (make check: tests/shell/test_carve.sh, test_realart_layouts.sh)"
echo "   heaps made by real ART 10 (CC, CMS), ART 11 (CC, CMS) and ART 14 (CC, CMC) runtimes, each carved and"
echo "   validated against the runtime's own HPROF of the same moment (../shared/corpus/images/realart*);"
echo "   those runtimes lack what a device has: no boot image and no zygote (boot classes lie in the ordinary"
echo "   spaces), interpreter only (no JIT or AOT code), a host x86_64 process with Android 10's class library."
echo "   Android 5.0-9, 12, 13, 15 and 16 heaps are checked on synthetic images (tests/synth) and real boot images."
echo
echo "demo outputs are in $out/ (carve.txt, $(cd "$out" && ls | grep -v '^carve.txt$' | tr '\n' ' ' | sed 's/ $//; s/ /, /g'))"

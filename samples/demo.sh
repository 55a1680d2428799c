#!/bin/sh
# samples/demo.sh - the main job on the embedded samples (run by `make demo`): carve the
# synthetic Android 11 process image samples/android11-64bit (made by `make samples`) into an
# HPROF heap dump, show what was found (objects per state, the dropped chat messages and
# session tokens), and put it next to the image's ground truth.
set -eu
cd "$(dirname "$0")/.."
out=build/demo
mkdir -p "$out"
s=samples/android11-64bit
echo "== the sample: $s (see $s/README)"
sed -n 1,3p "$s/README"
echo
echo "== artcarve carve $s/core --maps $s/maps -o $out"
./build/artcarve carve "$s/core" --maps "$s/maps" -o "$out" >"$out/carve.txt"
sed -n '/^objects:/p;/^states:/,/^  unknown/p' "$out/carve.txt"
echo
echo "== dropped objects (allocated, unreachable): what the app let go and no GC has swept"
sed -n '/^DROPPED/,/^spaces:/p' "$out/carve.txt" | sed '$d'
echo
echo "== the carved dropped objects next to the generator's truth ($s/truth.jsonl)"
for c in com.example.chat.Message com.example.auth.SessionToken; do
	got=$(sed -n '/^dropped:/,/^  sample_strings:/p' "$out/carve.txt" | awk -v c="$c" '$2 == c { print $1 }')
	want=$(grep "\"class\":\"$c\"" "$s/truth.jsonl" | grep -c '"alloc":"allocated".*"reach":"unreachable"')
	echo "   $c: ${got:-0} dropped found by carve, $want in the truth"
done
echo
echo "== $out/heap.hprof (open it in Eclipse MAT or VisualVM; dropped objects are listed"
echo "   under the class artcarve.mark.Unreachable[])"
./build/artcarve hprof-info "$out/heap.hprof" | sed -n '/^classes:/,/^roots:/p'
echo
q="SELECT hex, value FROM dropped_strings ORDER BY address LIMIT 6"
echo "== $out/case.db (SQLite; tables, views and example queries: README.md, \"Case database\")"
echo "   sqlite3 $out/case.db \"$q\""
sqlite3 "$out/case.db" "$q" | sed 's/^/   /'
echo
echo "demo outputs are in $out/ (carve.txt, $(cd "$out" && ls | grep -v '^carve.txt$' | tr '\n' ' ' | sed 's/ $//; s/ /, /g'))"

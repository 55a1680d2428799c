#!/bin/sh
# samples/demo.sh - the main job on the embedded samples (run by `make demo`): load a
# synthetic Android 11 process image (samples/android11-64bit, made by `make samples`) with
# the artcarve commands that exist, and show its ground truth next to it.
set -eu
cd "$(dirname "$0")/.."
out=build/demo
mkdir -p "$out"
s=samples/android11-64bit
echo "== the sample: $s (see $s/README)"
sed -n 1,3p "$s/README"
echo
echo "== artcarve info --maps $s/maps $s/core"
./build/artcarve info --maps "$s/maps" "$s/core" | tee "$out/info.txt" | grep -v '^  0000' | head -n 30
echo
echo "== artcarve classes (the app's classes, named from Class.name_ or the DEX in the image)"
./build/artcarve classes --maps "$s/maps" "$s/core" >"$out/classes.txt"
grep -A 12 'com.example.chat.Message ' "$out/classes.txt" | head -n 8
echo "   ($(grep -c '^class ' "$out/classes.txt") classes; all in $out/classes.txt)"
echo
echo "== the ground truth: dropped chat messages (unreachable) and session tokens"
grep '"class":"com.example.chat.Message"' "$s/truth.jsonl" | grep -c '"reach":"unreachable"' |
	sed 's/^/   unreachable messages: /'
grep '"class":"java.lang.String"' "$s/truth.jsonl" | grep -o '"string":"eyJ[^"]*"' | head -n 3 | sed 's/^/   /'
echo
echo "== artcarve hprof-info $s/truth.hprof (the truth as a heap dump)"
./build/artcarve hprof-info "$s/truth.hprof" | head -n 12
echo
echo "demo outputs are in $out/"

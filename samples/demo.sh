#!/bin/sh
# samples/demo.sh - the main job on the embedded sample (run by `make demo`).
set -eu
cd "$(dirname "$0")/.."
out=build/demo
mkdir -p "$out"
./build/artcarve --help
echo
echo "demo outputs are in $out/"

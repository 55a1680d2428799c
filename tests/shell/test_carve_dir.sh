#!/bin/sh
# tier: quick
# test_carve_dir.sh - carve's output folder keeps one image's evidence (carver/pipeline/carve_dir.h):
#   - every output records the image's SHA-256 (sha256sum of the core): heap.hprof's STRING
#     "artcarve:image-sha256=HEX", objects.jsonl's first line, strings.tsv's "# Image-SHA256:",
#     case.db's inputs row, report.html's input table; heap.bmd keeps heap.hprof's string;
#   - manifest.json lists exactly the files of DIR with their sizes and SHA-256 (sha256sum
#     agrees) and the image's;
#   - a second carve into the same DIR, of the same or another image, with or without --skip,
#     exits 2 with one line naming the files, and DIR is unchanged;
#   - --force replaces an earlier run's outputs all together: another image with --skip db
#     leaves no case.db of the first; a temporary a killed run left is removed; a file carve
#     never writes refuses DIR even with --force, and stays;
#   - --digest pages: every output records "pages-sha256:HEX", the page digest that a Python
#     reading of the core gives (sha256.h: the non-zero 4 KiB pages with their offsets, then
#     the size), the same for a copy of the core with a 1 GiB hole at its end and for a full
#     copy of that (no holes), and the summary's image_sha256 is it.
. "$(dirname "$0")/lib.sh"
t_need jq sqlite3 sha256sum || { t_done; exit; }
A=samples/android11-64bit B=samples/android6.0-32bit
sha() { sha256sum <"$1" | cut -c1-64; }
ha=$(sha "$A/core") hb=$(sha "$B/core")

# provenance NAME DIR HEX: every output of DIR names the image HEX
provenance() {
	d=$2 h=$3 bad=
	grep -aq "artcarve:image-sha256=$h" "$d/heap.hprof" || bad="$bad heap.hprof"
	[ "$(head -n 1 "$d/objects.jsonl" | jq -r .image_sha256)" = "$h" ] || bad="$bad objects.jsonl"
	grep -qx "# Image-SHA256: $h" "$d/strings.tsv" || bad="$bad strings.tsv"
	if [ -f "$d/case.db" ]; then
		[ "$(sqlite3 "$d/case.db" "SELECT sha256 FROM inputs WHERE role = 'image'")" = "$h" ] || bad="$bad case.db"
	fi
	grep -q "$h" "$d/report.html" || bad="$bad report.html"
	"$ART" decrunch --mat -q "$d/heap.bmd" "$TMP/bmd.hprof" 2>/dev/null &&
		grep -aq "artcarve:image-sha256=$h" "$TMP/bmd.hprof" || bad="$bad heap.bmd"
	[ "$(jq -r .image.sha256 "$d/manifest.json")" = "$h" ] || bad="$bad manifest.json"
	if [ -z "$bad" ]; then t_ok "$1: every output records the image's SHA-256 ${h%"${h#????????????}"}..."
	else t_fail "$1: the image's SHA-256 $h is missing from:$bad"; fi
}

# manifest NAME DIR: manifest.json lists every other file of DIR and its subfolders (indicators/), with sha256sum's digest
manifest() {
	listed=$(jq -r '.outputs[] | "\(.sha256)  \(.file)"' "$2/manifest.json" | LC_ALL=C sort -k2)
	files=$(cd "$2" && find . -type f | sed "s|^\./||" | grep -vx manifest.json | LC_ALL=C sort | tr '\n' ' ')
	names=$(echo "$listed" | awk '{print $2}' | tr '\n' ' ')
	if [ "$files" = "$names" ] && (cd "$2" && echo "$listed" | sha256sum -c --quiet --strict -) >"$TMP/sumerr" 2>&1 &&
		[ "$(jq '[.outputs[].bytes] | add' "$2/manifest.json")" = "$(cd "$2" && cat $files | wc -c)" ]; then
		t_ok "$1: manifest.json lists the $(echo "$listed" | wc -l) files of DIR ($files) and sha256sum -c agrees"
	else t_fail "$1: manifest.json lists [$names], DIR holds [$files]: $(head -n 3 "$TMP/sumerr")"; fi
}

d=$TMP/out
if "$ART" carve "$A/core" --maps "$A/maps" -o "$d" >/dev/null 2>"$TMP/err"; then
	provenance "android11-64bit" "$d" "$ha"
	manifest "android11-64bit" "$d"
else t_fail "carve $A: $(head -n 2 "$TMP/err")"; fi
cp -a "$d" "$TMP/before"

# refused: DIR_STATE NAME RC: exit 2, one line naming DIR and a file, DIR unchanged
refused() {
	if [ "$2" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "$d holds .*heap.hprof" "$TMP/err" &&
		diff -r "$TMP/before" "$d" >/dev/null; then
		t_ok "$1: exit 2, DIR unchanged: $(cat "$TMP/err")"
	else t_fail "$1: exit $2, DIR $(diff -rq "$TMP/before" "$d" | head -n 2 | tr '\n' ' '): $(head -n 2 "$TMP/err")"; fi
}
"$ART" carve "$A/core" --maps "$A/maps" -o "$d" >/dev/null 2>"$TMP/err"
refused "the same image again" $?
"$ART" carve "$B/core" --maps "$B/maps" --skip db -o "$d" >/dev/null 2>"$TMP/err"
refused "another image with --skip db" $?

touch "$d/notes.txt"
cp "$d/notes.txt" "$TMP/before/"
"$ART" carve "$B/core" --maps "$B/maps" --force -o "$d" >/dev/null 2>"$TMP/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "notes.txt" "$TMP/err" && diff -r "$TMP/before" "$d" >/dev/null; then
	t_ok "--force with a file carve never writes: exit 2, nothing removed: $(cat "$TMP/err")"
else t_fail "--force with notes.txt in DIR: exit $rc: $(head -n 2 "$TMP/err")"; fi
rm -f "$d/notes.txt"

echo partial >"$d/.heap.hprof.AbC123"
if "$ART" carve "$B/core" --maps "$B/maps" --force --skip db -o "$d" >/dev/null 2>"$TMP/err"; then
	left=$(ls -A "$d" | tr '\n' ' ')
	if [ ! -e "$d/case.db" ] && [ ! -e "$d/.heap.hprof.AbC123" ]; then
		t_ok "--force --skip db, another image: the first image's case.db and the stale temporary are gone ($left)"
	else t_fail "--force --skip db: DIR holds $left"; fi
	provenance "android6.0-32bit over android11-64bit" "$d" "$hb"
	manifest "android6.0-32bit over android11-64bit" "$d"
	grep -aq "artcarve:image-sha256=$ha" "$d/heap.hprof" "$d/objects.jsonl" "$d/strings.tsv" "$d/manifest.json" &&
		t_fail "--force: an output still names the first image" || t_ok "--force: no output names the first image"
else t_fail "carve --force --skip db: $(head -n 2 "$TMP/err")"; fi

# pages_digest FILE: the page digest as carve --digest pages records it, computed here apart
pages_digest() {
	python3 -c '
import hashlib, struct, sys
h, at = hashlib.sha256(), 0
with open(sys.argv[1], "rb") as f:
    while True:
        page = f.read(4096)
        if not page:
            break
        if page.count(0) != len(page):
            h.update(struct.pack(">Q", at) + page)
        at += len(page)
h.update(struct.pack(">Q", at))
print("pages-sha256:" + h.hexdigest())' "$1"
}
t_need python3 truncate && {
	holed=$TMP/holed.core full=$TMP/full.core
	cp "$A/core" "$holed" && truncate -s +1G "$holed" && cp --sparse=never "$holed" "$full"
	hp=$(pages_digest "$holed")
	dp=$TMP/pages
	if "$ART" carve "$holed" --maps "$A/maps" --digest pages --json -o "$dp" >"$TMP/pages.json" 2>"$TMP/err"; then
		provenance "--digest pages, a 1 GiB hole" "$dp" "$hp"
		manifest "--digest pages" "$dp"
		t_check "--digest pages: the summary's image_sha256 is $hp" [ "$(jq -r .image_sha256 "$TMP/pages.json")" = "$hp" ]
	else t_fail "carve --digest pages: $(head -n 2 "$TMP/err")"; fi
	rm -rf "$dp"
	if "$ART" carve "$full" --maps "$A/maps" --digest pages --skip bmd,db,jsonl,strings,report,indicators \
		-o "$dp" >/dev/null 2>"$TMP/err"; then
		got=$(jq -r .image.sha256 "$dp/manifest.json")
		[ "$got" = "$hp" ] && t_ok "--digest pages: the full copy (no hole) gives the holed one's: $hp" ||
			t_fail "--digest pages: full copy $got, holed copy $hp"
	else t_fail "carve --digest pages (full copy): $(head -n 2 "$TMP/err")"; fi
	rm -f "$full"
}
t_done

#!/bin/sh
# test_report_browser.sh - report.html used as an investigator uses it, in headless Chromium
# driven through Selenium and Debian's chromium-driver (tests/tools/report_browser.py):
#   - on every sample (tests/synth's messenger-like app: com.example.chat.Message, one in
#     four dropped): the first screen shows the app's dropped objects decoded and names the
#     class among the dropped classes, a link to its table; every dropped
#     Message of the sample's truth.jsonl is a row of the page with its text, sender (a String,
#     or a Person shown by its name) and time;
#     the search box finds the class and a String and their hits lead to them; an address
#     opens the object's view (decoded fields, why no root reaches it; for a live one the
#     path from a root); a heap-map cell lists its objects;
#   - the same on the synthetic messenger (Messenger$Message, whose table is not the first)
#     and on a real capture (realart/cc-nodes-nogc, the app class Nodes$Node), without a truth
#     of dropped fields.
# A browser that does not start fails the test.  Screenshots of the first screens are left
# in build/test-logs/report-*.png.
. "$(dirname "$0")/lib.sh"
REAL=$CORPUS/images/realart/cc-nodes-nogc
t_need zstd chromium chromedriver || { t_done; exit; }
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import selenium' 2>/dev/null ||
	{ t_fail "python3-selenium missing (make deps)"; t_done; exit; }
t_corpus "$REAL" || { t_done; exit; }
shots=$PWD/build/test-logs
mkdir -p "$shots"

# drive NAME HTML ARGS...: the driver's ok / not ok lines, counted here
drive() {
	name=$1 html=$2; shift 2
	if ! timeout 300 /usr/bin/python3 tests/tools/report_browser.py "$html" "$@" >"$TMP/drive.out" 2>"$TMP/drive.err"; then
		t_fail "$name: the browser run failed: $(grep -v '^#' "$TMP/drive.err" | tail -n 3)"
	fi
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) t_ok "$name: ${line#ok - }" ;;
		"not ok - "*) t_fail "$name: ${line#not ok - }" ;;
		esac
	done <"$TMP/drive.out"
	grep -q '^ok - ' "$TMP/drive.out" || t_fail "$name: the driver checked nothing"
}

for s in samples/*/; do
	s=${s%/} n=$(basename "$s")
	if "$ART" carve "$s/core" --maps "$s/maps" --skip hprof,bmd,db -o "$TMP/$n" >/dev/null 2>"$TMP/err"; then
		drive "$n" "$TMP/$n/report.html" --app com.example.chat.Message --truth "$s/truth.jsonl" \
			--shot "$shots/report-$n.png"
	else
		t_fail "$n: carve failed: $(head -n 3 "$TMP/err")"
	fi
done

# the synthetic messenger (build/synth --workload messenger): Messenger$Message is not the
# biggest dropped app class (the generator's Leaf filler is), so its table is not the first;
# the first screen's line of classes must still name it and lead to it
if build/synth --version 11 --bits 64 --workload messenger --out "$TMP/msg" >"$TMP/msg.log" 2>&1 &&
	"$ART" carve "$TMP/msg/core" --maps "$TMP/msg/maps" --skip hprof,bmd,db,jsonl -o "$TMP/msg/out" >/dev/null 2>"$TMP/err"; then
	drive "synthetic messenger 11/64" "$TMP/msg/out/report.html" --app 'com.example.messenger.Messenger$Message' \
		--truth "$TMP/msg/truth.jsonl" --shot "$shots/report-messenger.png"
	# a field referencing a primitive array reads as its type and length, its link beside
	# (its numbers would fill the cell); one referencing a Person as the Person's Strings
	cell=$(grep -o '<td>byte\[[0-9]*\] <a ' "$TMP/msg/out/report.html" | head -n 1)
	echo "# a byte[] field's cell: $cell"
	t_check "synthetic messenger: a byte[] field's cell is its type and length and a link" [ -n "$cell" ]
	cell=$(grep -o '<td>Person{name=&quot;[^<]*<a ' "$TMP/msg/out/report.html" | head -n 1)
	echo "# a Person field's cell: $cell"
	t_check "synthetic messenger: a Person field's cell is the Person's Strings and a link" [ -n "$cell" ]
else
	t_fail "synthetic messenger: synth or carve failed: $(tail -n 3 "$TMP/msg.log" "$TMP/err")"
fi
rm -rf "$TMP/msg"

if zstd -q -d "$REAL/core.zst" -o "$TMP/real.core" &&
	"$ART" carve "$TMP/real.core" --maps "$REAL/maps.txt" --skip hprof,bmd,db,jsonl -o "$TMP/real" >/dev/null 2>"$TMP/err"; then
	drive "realart/cc-nodes-nogc" "$TMP/real/report.html" --app 'Nodes$Node' --shot "$shots/report-cc-nodes-nogc.png"
else
	t_fail "realart/cc-nodes-nogc: carve failed: $(head -n 3 "$TMP/err")"
fi
rm -f "$TMP/real.core"
t_done

#!/bin/sh
# test_report.sh - report.html, the page `artcarve carve` writes beside heap.hprof, on the
# embedded Android 11 sample and on a real capture (realart/cc-nodes-nogc):
#   - a real browser (headless Chromium) loads it: the page's inline script marks the DOM
#     loaded with no script error (window.onerror counts them; a copy with a broken script
#     must show one, so the check can fail), the heap map SVG has one group per object space
#     `info --json` lists (the map LOS's allocations drawn inside it), and it renders to a PNG;
#   - every figure marked data-k="<json path>" equals the carve --json summary's (states,
#     confidence, strings, dropped, the top 10 classes and dropped classes, layout, ...), and
#     the input files are listed with the size and SHA-256 that wc and sha256sum give;
#   - it is self-contained: no tag has a src= or an href= leading out of the page, no <link>,
#     the style sheet no url() or @import (text from the image may hold URLs: it is escaped, so
#     it holds no tag), and the
#     same input gives the same bytes;
#   - a String of the sample patched to read "<script>" shows escaped, and the page's own
#     script is the only one.
# The escaper itself is unit-tested in tests/unit/test_report.c.
. "$(dirname "$0")/lib.sh"
REAL=$CORPUS/images/realart/cc-nodes-nogc
t_need jq zstd chromium || { t_done; exit; }
t_corpus "$REAL" || { t_done; exit; }

# chrome_run OUT ARGS...: headless Chromium, output to OUT (a fresh profile: no state shared
# between runs; root needs --no-sandbox)
chrome_run() {
	out=$1; shift
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
		--user-data-dir="$TMP/profile" "$@" >"$out" 2>"$TMP/chrome.err"
}

# expected_groups INFO_JSON: the object spaces the map draws (LOS allocations inside a map LOS
# are drawn in it)
expected_groups() {
	jq '[.spaces[] | .kind] as $k | ($k | map(select(IN("ImageSpace", "RosAllocSpace", "DlMallocSpace",
		"ZygoteSpace", "RegionSpace", "BumpPointerSpace", "LargeObjectMapSpace", "FreeListSpace"))) | length)
		+ (if ($k | index("LargeObjectMapSpace")) then 0 else ($k | map(select(. == "LargeObjectAllocation")) | length) end)' "$1"
}

# check_figures NAME HTML JSON: every data-k cell against the summary
check_figures() {
	grep -o 'data-k="[^"]*">[^<]*<' "$2" | sed 's/^data-k="\([^"]*\)">\([^<]*\)<$/\1\t\2/;
		s/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&#39;/'"'"'/g; s/&amp;/\&/g' >"$TMP/figures.tsv"
	n=0 bad=0
	while IFS="$(printf '\t')" read -r key got; do
		want=$(jq -r --arg k "$key" 'reduce ($k | split("."))[] as $p (.;
			if type == "array" then .[$p | tonumber] elif type == "object" then .[$p] else null end) // "ABSENT"' "$3")
		case "$key" in
		top_classes.*|dropped.top_classes.*) [ "$want" = ABSENT ] && continue ;;   # the page lists more
		esac
		n=$((n + 1))
		[ "$got" = "$want" ] || { bad=$((bad + 1)); echo "  $1: $key: page $got, summary $want"; }
	done <"$TMP/figures.tsv"
	tops=$(grep -c '^top_classes\.[0-9]*\.objects' "$TMP/figures.tsv")
	want_tops=$(jq '.top_classes | length' "$3")
	if [ "$bad" -eq 0 ] && [ "$n" -ge 30 ] && [ "$tops" -ge "$want_tops" ]; then
		t_ok "$1: $n figures equal the summary's (objects $(jq .objects "$3"), dropped $(jq .dropped.objects "$3"), $want_tops top classes)"
	else
		t_fail "$1: $bad of $n figures differ from the summary ($tops top-class rows, summary $want_tops)"
	fi
}

# check_inputs NAME HTML IMAGE MAPS: the input files listed with the size and digest that wc and
# sha256sum (an independent SHA-256) give
check_inputs() {
	sed -n 's|^<tr><td>\([^<]*\)</td><td class="r">\([0-9]*\)</td><td class="a" data-sha256="[0-9]*">\([0-9a-f]*\)</td></tr>$|\1 \2 \3|p' "$2" >"$TMP/inputs"
	want=$(for f in "$3" "$4"; do echo "$f $(wc -c <"$f") $(sha256sum "$f" | cut -d' ' -f1)"; done)
	if [ "$(cat "$TMP/inputs")" = "$want" ]; then
		t_ok "$1: input files, sizes and SHA-256 as sha256sum gives: $(cut -d' ' -f3 "$TMP/inputs" | cut -c1-16 | tr '\n' ' ')"
	else
		t_fail "$1: input files on the page: '$(cat "$TMP/inputs")', want '$want'"
	fi
}

# check_page NAME DIR IMAGE MAPS: figures, self-containment, determinism, browser
check_page() {
	html=$2/report.html
	[ -s "$html" ] || { t_fail "$1: no report.html"; return; }
	check_figures "$1" "$html" "$2.json"
	grep -o '<[a-zA-Z][^>]*>' "$html" | grep -i -E 'src=|href="[^#]|^<link' >"$TMP/outside"
	sed -n 's/.*<style>\(.*\)<\/style>.*/\1/p' "$html" | grep -i -E 'url\(|@import|https?:' >>"$TMP/outside"
	ext=$(wc -l <"$TMP/outside")
	if [ "$ext" -eq 0 ]; then t_ok "$1: self-contained ($(wc -c <"$html") bytes; no tag with src= or an href= out of the page, no <link>, no url() or @import)"
	else t_fail "$1: $ext tags refer outside: $(head -n 2 "$TMP/outside" | cut -c1-200)"; fi
	check_inputs "$1" "$html" "$3" "$4"
	"$ART" carve "$3" --maps "$4" --skip hprof -o "$2.again" >/dev/null 2>&1
	# the time of the analysis and the command line (another here) are what differs
	sed '/data-prov="time"/d; /data-prov="argv"/d' "$2.again/report.html" >"$2.again/page"
	sed '/data-prov="time"/d; /data-prov="argv"/d' "$html" >"$2.page"
	t_same "$1: a second run's report.html (but for its time and command line)" "$2.again/page" "$2.page"
	"$ART" info --json "$3" --maps "$4" >"$2.info.json"
	want=$(expected_groups "$2.info.json")
	groups=$(grep -c '<g class="space"' "$html")
	chrome_run "$2.dom" --dump-dom "file://$html"
	loaded=$(sed -n 's/.*<html[^>]*data-loaded="\([^"]*\)".*/\1/p' "$2.dom")
	errors=$(sed -n 's/.*<html[^>]*data-errors="\([^"]*\)".*/\1/p' "$2.dom")
	drawn=$(sed -n 's/.*<html[^>]*data-map-spaces="\([^"]*\)".*/\1/p' "$2.dom")
	if [ "$loaded" = yes ] && [ "$errors" = 0 ] && [ "$drawn" = "$want" ] && [ "$groups" = "$want" ]; then
		t_ok "$1: Chromium loaded it with 0 script errors; the heap map has $drawn space groups, as info lists $want object spaces"
	else
		t_fail "$1: Chromium: loaded '$loaded', errors '$errors', map groups '$drawn' in the DOM and $groups in the file, want $want ($(head -c 300 "$TMP/chrome.err"))"
	fi
	chrome_run "$2.shot" --window-size=1200,2000 --screenshot="$2.png" "file://$html"
	if [ "$(head -c 8 "$2.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		[ "$(wc -c <"$2.png")" -gt 20000 ]; then
		t_ok "$1: rendered to a $(wc -c <"$2.png")-byte PNG"
	else
		t_fail "$1: no PNG rendered ($(head -c 300 "$TMP/chrome.err"))"
	fi
}

# the sample, with one String patched to "<script>" (same length as "hello #1")
s=samples/android11-64bit
cp "$s/core" "$TMP/core"
off=$(grep -a -b -o 'hello #1' "$TMP/core" | head -n 1 | cut -d: -f1)
if [ -n "$off" ]; then
	printf '<script>' | dd of="$TMP/core" bs=1 seek="$off" conv=notrunc 2>/dev/null
fi
if "$ART" carve --json "$TMP/core" --maps "$s/maps" -o "$TMP/sample" >"$TMP/sample.json" 2>"$TMP/err"; then
	check_page "sample $s" "$TMP/sample" "$TMP/core" "$s/maps"
	scripts=$(grep -o -i '<script[^>]*>' "$TMP/sample/report.html" | LC_ALL=C sort | uniq -c | tr -s ' ' | tr '\n' ';')
	want=' 1 <script type="application/json" id="search">; 1 <script type="application/json" id="views">; 1 <script>;'
	if [ -n "$off" ] && [ "$scripts" = "$want" ] && grep -q '&quot;&lt;script&gt;&quot;' "$TMP/sample/report.html" &&
		grep -q '"\\u003cscript>"' "$TMP/sample/report.html"; then
		t_ok "sample: the String patched to <script> at file offset $off shows as &lt;script&gt; (\\u003cscript> in the page's data); its <script> elements are the page's own:$scripts"
	else
		t_fail "sample: patched string at '$off': script elements '$scripts', escaped form $(grep -c '&lt;script&gt;' "$TMP/sample/report.html")"
	fi
	# the error check can fail: a broken script in a copy is counted
	sed 's|</body>|<script>no_such_function();</script></body>|' "$TMP/sample/report.html" >"$TMP/broken.html"
	chrome_run "$TMP/broken.dom" --dump-dom "file://$TMP/broken.html"
	errors=$(sed -n 's/.*<html[^>]*data-errors="\([^"]*\)".*/\1/p' "$TMP/broken.dom")
	if [ "$errors" = 1 ]; then t_ok "a copy with a broken script: Chromium reports 1 script error"
	else t_fail "a copy with a broken script: errors '$errors' (want 1)"; fi
else
	t_fail "sample: carve failed: $(head -n 3 "$TMP/err")"
fi

# a real capture
if zstd -q -d "$REAL/core.zst" -o "$TMP/real.core" &&
	"$ART" carve --json "$TMP/real.core" --maps "$REAL/maps.txt" -o "$TMP/real" >"$TMP/real.json" 2>"$TMP/err"; then
	check_page "realart/cc-nodes-nogc" "$TMP/real" "$TMP/real.core" "$REAL/maps.txt"
else
	t_fail "realart/cc-nodes-nogc: carve failed: $(head -n 3 "$TMP/err")"
fi
rm -f "$TMP/real.core"
t_done

#!/bin/sh
# test_strings.sh - `artcarve strings` and carve's objects.jsonl and strings.tsv:
#   - on every real capture (realart/ and realart-full/): every String of the runtime's own
#     HPROF (heap.hprof.zst, read by tests/tools/hprof_strings.py, which shares no code with
#     artcarve) is listed at the same address with the same text; the figures per capture
#     (HPROF strings, String objects, residue finds, ms) end the log;
#   - --grep: a regex that matches a known string lists it and only matching strings (each
#     checked with Python's re), one that matches nothing lists nothing, a bad regex is a
#     usage error (exit 2, one line); --state: every listed string has the states asked,
#     the counts add up to the whole list, an unknown state is a usage error;
#   - the same input lists the same bytes twice;
#   - residue on the synthetic samples and on a synthetic image of every family x bitness
#     (dlmalloc keeps freed bodies): every residue run is part of the text of a String
#     truth.jsonl lists (a freed char[] may hold a copy of a live String's text) or lies in
#     the bytes of an object it lists as freed (a freed byte[] of random bytes), every
#     string-body the whole text of a String it lists as freed, and every String object is
#     one truth.jsonl lists at that address with that text;
#   - under ASan/UBSan (build/asan/artcarve), the samples list the same bytes;
#   - carve's objects.jsonl: jq parses every line, one line per object of the summary, the
#     keys in the documented order; strings.tsv: the bulk_extractor header, one line per
#     String of the summary, three tab-separated fields each; both byte-identical across two
#     runs (a sample and a real capture).
. "$(dirname "$0")/lib.sh"
REAL=$CORPUS/images/realart
FULL=$CORPUS/images/realart-full
t_need zstd jq python3 || { t_done; exit; }
t_corpus "$REAL" && t_corpus "$FULL" || { t_done; exit; }
HS=tests/tools/hprof_strings.py
summary=$TMP/summary
printf '%-22s %12s %12s %9s %8s\n' capture hprof_strings objects residue ms >"$summary"

ms_now() { date +%s%3N; }

for dir in "$REAL"/*/ "$FULL"/*/; do
	cap=$(basename "$dir")
	[ -f "$dir/core.zst" ] || continue
	w=$TMP/$cap
	mkdir -p "$w"
	if ! zstd -q -d "$dir/core.zst" -o "$w/core" || ! zstd -q -d "$dir/heap.hprof.zst" -o "$w/heap.hprof"; then
		t_fail "$cap: cannot decompress"; continue
	fi
	t0=$(ms_now)
	if ! "$ART" strings --json "$w/core" --maps "$dir/maps.txt" >"$w/s.json" 2>"$w/err"; then
		t_fail "$cap: strings failed: $(head -n 2 "$w/err")"; rm -f "$w/core"; continue
	fi
	t1=$(ms_now)
	if python3 "$HS" compare "$w/heap.hprof" "$w/s.json" >"$w/cmp" 2>&1; then
		t_ok "$cap: $(head -n 1 "$w/cmp")"
	else
		t_fail "$cap: $(head -n 6 "$w/cmp" | tr '\n' ' ')"
	fi
	objects=$(jq '[.[] | select(.source == "object")] | length' "$w/s.json")
	residue=$(jq '[.[] | select(.source != "object")] | length' "$w/s.json")
	printf '%-22s %12s %12s %9s %8s\n' "$cap" "$(sed -n 's/^hprof strings \([0-9]*\),.*/\1/p' "$w/cmp")" \
		"$objects" "$residue" $((t1 - t0)) >>"$summary"
	case $cap in cms-collections|cc-nodes-nogc)
		"$ART" strings --json "$w/core" --maps "$dir/maps.txt" >"$w/s2.json" 2>/dev/null
		t_same "$cap: strings --json, second run" "$w/s2.json" "$w/s.json"
		"$ART" strings "$w/core" --maps "$dir/maps.txt" >"$w/t1" 2>/dev/null
		"$ART" strings "$w/core" --maps "$dir/maps.txt" >"$w/t2" 2>/dev/null
		t_same "$cap: strings (text), second run" "$w/t2" "$w/t1"
		lines=$(wc -l <"$w/t1")
		if [ "$lines" -eq "$(jq length "$w/s.json")" ]; then t_ok "$cap: text lists $lines strings, as --json"
		else t_fail "$cap: text lists $lines strings, --json $(jq length "$w/s.json")"; fi
		# --state: each value's list holds only that value, and each kind's lists add up
		for kind in alloc content reach; do
			case $kind in alloc) vals="allocated free" ;; content) vals="intact partial residue" ;;
				reach) vals="reachable unreachable unknown" ;; esac
			total=0
			for v in $vals; do
				"$ART" strings --json --state "$v" "$w/core" --maps "$dir/maps.txt" >"$w/st.json" 2>"$w/err"
				n=$(jq length "$w/st.json")
				bad=$(jq --arg k "$kind" --arg v "$v" '[.[] | select(.[$k] != $v)] | length' "$w/st.json")
				want=$(jq --arg k "$kind" --arg v "$v" '[.[] | select(.[$k] == $v)] | length' "$w/s.json")
				if [ "$bad" = 0 ] && [ "$n" = "$want" ]; then t_ok "$cap: --state $v lists $n strings, all $v"
				else t_fail "$cap: --state $v lists $n ($bad not $v), the whole list has $want"; fi
				total=$((total + n))
			done
			if [ "$total" -eq "$(jq length "$w/s.json")" ]; then t_ok "$cap: the $kind states add up to $total"
			else t_fail "$cap: the $kind states add up to $total, not $(jq length "$w/s.json")"; fi
		done
		"$ART" strings --json --state dropped "$w/core" --maps "$dir/maps.txt" >"$w/st.json" 2>/dev/null
		want=$(jq '[.[] | select(.alloc == "allocated" and .reach == "unreachable")] | length' "$w/s.json")
		if [ "$(jq length "$w/st.json")" = "$want" ]; then t_ok "$cap: --state dropped lists the $want allocated unreachable strings"
		else t_fail "$cap: --state dropped lists $(jq length "$w/st.json"), want $want"; fi
		# --grep: positive (a known text, and only matches), negative, bad regex
		known=$(jq -r '[.[] | select(.value != null and (.value | test("^[A-Za-z]{6,}$")))][0].value' "$w/s.json")
		"$ART" strings --json --grep "^$known\$" "$w/core" --maps "$dir/maps.txt" >"$w/g.json" 2>/dev/null
		want=$(jq --arg k "$known" '[.[] | select(.value == $k)] | length' "$w/s.json")
		if [ "$want" -ge 1 ] && [ "$(jq length "$w/g.json")" = "$want" ]; then
			t_ok "$cap: --grep '^$known\$' lists the $want strings with that text"
		else t_fail "$cap: --grep '^$known\$' lists $(jq length "$w/g.json"), want $want"; fi
		"$ART" strings --json --grep 'Error|[0-9]{3}' "$w/core" --maps "$dir/maps.txt" >"$w/g.json" 2>/dev/null
		if python3 -c '
import json, re, sys
g = json.load(open(sys.argv[1])); a = json.load(open(sys.argv[2]))
r = re.compile("Error|[0-9]{3}")
want = [s for s in a if s["value"] is not None and r.search(s["value"])]
sys.exit(0 if g == want and len(g) > 0 else print(len(g), len(want)) or 1)' "$w/g.json" "$w/s.json"; then
			t_ok "$cap: --grep 'Error|[0-9]{3}' lists exactly the $(jq length "$w/g.json") strings Python's re matches"
		else t_fail "$cap: --grep 'Error|[0-9]{3}' differs from Python's re"; fi
		"$ART" strings --json --grep 'no such text here x7q' "$w/core" --maps "$dir/maps.txt" >"$w/g.json" 2>/dev/null
		if [ "$(cat "$w/g.json")" = "[]" ]; then t_ok "$cap: --grep of an absent text lists nothing ([])"
		else t_fail "$cap: --grep of an absent text: $(head -c 200 "$w/g.json")"; fi
		;;
	esac
	rm -f "$w/core" "$w/heap.hprof"
done

# usage errors: one line, exit 2, nothing on stdout
s=samples/android11-64bit
for args in "--grep (" "--grep a{2,1}" "--state bogus" "--state free,nosuch" "--min-run 0"; do
	# shellcheck disable=SC2086
	"$ART" strings $args "$s/core" --maps "$s/maps" >"$TMP/u.out" 2>"$TMP/u.err"
	rc=$?
	if [ $rc -eq 2 ] && [ ! -s "$TMP/u.out" ] && [ "$(wc -l <"$TMP/u.err")" -eq 1 ]; then
		t_ok "strings $args: usage error, exit 2: $(cat "$TMP/u.err")"
	else t_fail "strings $args: exit $rc, stdout $(wc -c <"$TMP/u.out") bytes, $(cat "$TMP/u.err")"; fi
done

# residue: each find is part of a String truth.jsonl calls free (a string-body: all of one);
# String objects: each at a truth.jsonl String's address with its text
check_synth() { # NAME DIR JSON
	if python3 -c '
import json, sys
found = json.load(open(sys.argv[1]))
truth = [json.loads(l) for l in open(sys.argv[2])]
strs = {int(t["addr"], 16): t.get("string") for t in truth if t.get("kind") == "string"}
freed = [t.get("string") or "" for t in truth if t.get("kind") == "string" and t.get("alloc") == "free"]
made = [t.get("string") or "" for t in truth if t.get("kind") == "string"]
spans = [(int(t["addr"], 16), int(t["addr"], 16) + t["size"]) for t in truth if t.get("alloc") == "free"]
res = [s for s in found if s["source"] != "object"]
def inside(s):
    a = int(s["address"], 16)
    return any(lo <= a and a + s["length"] * (1 if s["compressed"] else 2) <= hi for lo, hi in spans)
bad = [s["value"] for s in res if not (any(s["value"] == t for t in freed) if s["source"] == "string-body"
                                       else any(s["value"] in t for t in made) or inside(s))]
objs = [s for s in found if s["source"] == "object"]
wrong = [s["address"] for s in objs if int(s["address"], 16) not in strs or
         (s["value"] is not None and strs[int(s["address"], 16)] is not None and s["value"] != strs[int(s["address"], 16)])]
kinds = {}
for s in res:
    kinds[s["source"]] = kinds.get(s["source"], 0) + 1
print(len(objs), "String objects (", len(wrong), "not a truth String with that text", wrong[:3], "),",
      len(res), "residue finds", kinds, "of", len(freed), "freed Strings in truth.jsonl, not from the text of one:", bad[:3])
sys.exit(1 if bad or wrong or not objs else 0)' "$3" "$2/truth.jsonl" >"$3.res" 2>&1; then
		t_ok "$1: $(cat "$3.res")"
	else t_fail "$1: $(cat "$3.res")"; fi
}
for s in samples/*/; do
	n=$(basename "$s")
	"$ART" strings --json "$s/core" --maps "$s/maps" >"$TMP/$n.json" 2>"$TMP/$n.err" ||
		{ t_fail "sample $n: strings failed: $(head -n 1 "$TMP/$n.err")"; continue; }
	check_synth "sample $n" "$s" "$TMP/$n.json"
done
bodies=0
for v in $(build/synth --list | cut -d' ' -f1); do
	for b in 32 64; do
		d=$TMP/synth-$v-$b
		if ! build/synth --version "$v" --bits $b --seed 3 --size small --out "$d" >/dev/null 2>&1 ||
			! "$ART" strings --json "$d/core" --maps "$d/maps" >"$d.json" 2>"$d.err"; then
			t_fail "synth $v/$b: generation or strings failed: $(head -n 2 "$d.err" 2>/dev/null)"; continue
		fi
		check_synth "synth $v/$b" "$d" "$d.json"
		bodies=$((bodies + $(jq '[.[] | select(.source == "string-body")] | length' "$d.json")))
		rm -rf "$d"
	done
done
if [ "$bodies" -gt 0 ]; then t_ok "$bodies String bodies recovered from freed chunks across the families"
else t_fail "no String body recovered from any family's freed chunks"; fi

# the same under ASan/UBSan (residue scan included)
if [ -x "$ASAN_ART" ]; then
	for s in samples/*/; do
		n=$(basename "$s")
		if "$ASAN_ART" strings --json "$s/core" --maps "$s/maps" >"$TMP/$n.asan.json" 2>"$TMP/$n.asan.err" &&
			cmp -s "$TMP/$n.asan.json" "$TMP/$n.json"; then
			t_ok "sample $n: the ASan build lists the same $(jq length "$TMP/$n.json") strings, no sanitizer report"
		else t_fail "sample $n: ASan build: $(head -n 3 "$TMP/$n.asan.err")"; fi
	done
else
	t_fail "build/asan/artcarve missing (make asan)"
fi

# carve's objects.jsonl and strings.tsv on a sample and a real capture
check_outputs() { # NAME CORE MAPS
	o=$TMP/out-$1
	if ! "$ART" carve --json "$2" --maps "$3" -o "$o" >"$o.json" 2>"$o.err" ||
		! "$ART" carve "$2" --maps "$3" -o "$o.2" >/dev/null 2>&1; then
		t_fail "$1: carve failed: $(head -n 2 "$o.err")"; return
	fi
	objs=$(jq .objects "$o.json")
	lines=$(wc -l <"$o/objects.jsonl")
	if jq -c . "$o/objects.jsonl" >"$o/parsed" 2>"$o/jq.err" && [ "$(wc -l <"$o/parsed")" -eq "$lines" ] &&
		[ "$lines" -eq "$objs" ]; then
		t_ok "$1: jq parses all $lines lines of objects.jsonl, one per object of the summary ($objs)"
	else t_fail "$1: objects.jsonl $lines lines, jq $(wc -l <"$o/parsed" 2>/dev/null) ($(head -c 200 "$o/jq.err")), summary $objs"; fi
	if python3 -c '
import json, sys
data = open(sys.argv[1], "rb").read()
text = data.decode("utf-8")            # strict: invalid UTF-8 raises
bad = [c for c in text if ord(c) < 0x20 and c != "\n"]
n = 0
for line in text.splitlines():
    json.loads(line, parse_constant=lambda c: sys.exit("non-JSON constant " + c))
    n += 1
print(n, "lines", len(data), "bytes")
sys.exit(1 if bad else 0)' "$o/objects.jsonl" >"$o/py" 2>&1; then
		t_ok "$1: objects.jsonl is strict UTF-8 JSON (Python json, no NaN tokens, no raw control characters): $(cat "$o/py")"
	else t_fail "$1: objects.jsonl: $(tail -n 2 "$o/py")"; fi
	keys=$(jq -c 'select(.kind == "class") | keys_unsorted' "$o/objects.jsonl" | head -n 1)
	# a Class object is a root (class statics): "root" follows "reach"
	want='["address","class","class_address","kind","size","space","space_kind","place","alloc","content","reach","root","confidence","fields","describes","instance_fields","static_fields","statics"]'
	skeys=$(jq -c 'select(.class == "java.lang.String") | keys_unsorted' "$o/objects.jsonl" | head -n 1)
	swant='["address","class","class_address","kind","size","space","space_kind","place","alloc","content","reach","confidence","fields","length","compressed","value"]'
	if [ "$keys" = "$want" ] && [ "$skeys" = "$swant" ]; then t_ok "$1: objects.jsonl keys in the documented order (Class and String lines)"
	else t_fail "$1: objects.jsonl keys $keys / $skeys"; fi
	if [ "$(jq -s '[.[] | select(.class == "java.lang.String" and has("value"))] | length' "$o/objects.jsonl")" = "$(jq .strings.total "$o.json")" ]; then
		t_ok "$1: objects.jsonl holds the summary's $(jq .strings.total "$o.json") strings"
	else t_fail "$1: objects.jsonl strings differ from the summary's $(jq .strings.total "$o.json")"; fi
	rows=$(grep -vc '^#' "$o/strings.tsv")
	head -n 6 "$o/strings.tsv" >"$o/head"
	if [ "$rows" -eq "$(jq .strings.total "$o.json")" ] && [ "$(sed -n 1p "$o/head")" = "# BANNER FILE NOT PROVIDED (-b option)" ] &&
		[ "$(sed -n 3p "$o/head")" = "# Feature-Recorder: strings" ] && grep -q '^# Offsets: virtual addresses' "$o/head" &&
		[ "$(sed -n 6p "$o/head")" = "# Feature-File-Version: 1.1" ] &&
		[ "$(grep -v '^#' "$o/strings.tsv" | awk -F '\t' 'NF != 3' | wc -l)" -eq 0 ]; then
		t_ok "$1: strings.tsv: bulk_extractor header, $rows lines of 3 tab-separated fields, one per String of the summary"
	else t_fail "$1: strings.tsv: $rows rows (summary $(jq .strings.total "$o.json")), header $(tr '\n' '|' <"$o/head")"; fi
	# one spelling of addresses: 0x + lowercase hex, no zero padding, the same as objects.jsonl's
	grep -v '^#' "$o/strings.tsv" | cut -f1 | sort >"$o/tsv.addr"
	jq -r 'select(.class == "java.lang.String" and has("value")) | .address' "$o/objects.jsonl" | sort >"$o/jsonl.addr"
	if [ "$(grep -cv '^0x[1-9a-f][0-9a-f]*$' "$o/tsv.addr")" -eq 0 ] && cmp -s "$o/tsv.addr" "$o/jsonl.addr"; then
		t_ok "$1: strings.tsv addresses as 0x + hex, equal to objects.jsonl's String addresses ($(head -n 1 "$o/tsv.addr"), ...)"
	else t_fail "$1: strings.tsv addresses: $(grep -v '^0x[1-9a-f][0-9a-f]*$' "$o/tsv.addr" | head -n 2 | tr '\n' ' ') / $(diff "$o/tsv.addr" "$o/jsonl.addr" | head -n 3 | tr '\n' ' ')"; fi
	t_same "$1: objects.jsonl, second run" "$o.2/objects.jsonl" "$o/objects.jsonl"
	t_same "$1: strings.tsv, second run" "$o.2/strings.tsv" "$o/strings.tsv"
	rm -rf "$o" "$o.2"
}
check_outputs sample-android11-64bit samples/android11-64bit/core samples/android11-64bit/maps
check_outputs sample-android6.0-32bit samples/android6.0-32bit/core samples/android6.0-32bit/maps
if build/synth --version 5.0 --bits 32 --seed 1 --size small --out "$TMP/s50" >/dev/null 2>&1; then
	check_outputs synth-5.0-32bit "$TMP/s50/core" "$TMP/s50/maps"
else t_fail "synth 5.0/32: generation failed"; fi
if zstd -q -d "$REAL/cms-collections/core.zst" -o "$TMP/cms-core"; then
	check_outputs cms-collections "$TMP/cms-core" "$REAL/cms-collections/maps.txt"
	rm -f "$TMP/cms-core"
else t_fail "cms-collections: cannot decompress"; fi

cat "$summary"
t_done

#!/bin/sh
# test_decode.sh - the object decoder (output/decode) through objects.jsonl and `artcarve show`:
#   - every collections capture of the real corpus (realart, realart10, realart14, -full): the
#     entries of every ArrayList, LinkedList, ArrayDeque, HashMap, LinkedHashMap, HashSet and
#     TreeMap in objects.jsonl equal those tests/tools/hprof_containers.py walks on its own in
#     the runtime's own heap.hprof (Strings as text, boxes as values, enums by name);
#   - the synthetic messenger (build/synth --workload messenger; 11/64 region space, 7.1/64
#     RosAlloc, 6.0/32): every Messenger$Message of truth.jsonl, dropped ones included, has
#     in objects.jsonl its id, read flag (a boolean), body text and its timestamp as an
#     inferred UTC time, and in `show --json --depth 1` its sender's and recipient's names;
#     the inbox ArrayList lists the truth's kept messages in order, the outbox LinkedList and
#     the contacts HashMap their entries; `show` prints the text form with the body;
#   - README's jq query and show example on samples/android11-64bit give what README shows;
#   - damage (bytes of the synthetic core changed): an ArrayList size past its backing array,
#     a cycle in the LinkedList, a HashMap bucket naming memory the image lacks: `show` gives
#     what reads and says why the rest does not (also under ASan/UBSan).
. "$(dirname "$0")/lib.sh"
t_need zstd jq python3 || { t_done; exit; }
t_corpus "$CORPUS/images/realart" || { t_done; exit; }
SYNTH=build/synth
HC=tests/tools/hprof_containers.py

# ---- real captures: containers against the runtime's own HPROF ----
for d in "$CORPUS"/images/realart*/*collections*; do
	[ -f "$d/core.zst" ] || continue
	name=$(basename "$(dirname "$d")")/$(basename "$d")
	w=$TMP/real/$(echo "$name" | tr / _)
	mkdir -p "$w"
	zstd -dqf "$d/core.zst" -o "$w/core" && zstd -dqf "$d/heap.hprof.zst" -o "$w/heap.hprof" || {
		t_fail "$name: cannot decompress"; continue; }
	if ! "$ART" carve -q "$w/core" --maps "$d/maps.txt" -o "$w/out" --skip hprof,bmd,db,strings,report >/dev/null 2>"$w/err"; then
		t_fail "$name: carve failed: $(head -n 2 "$w/err")"
		continue
	fi
	if python3 "$HC" "$w/heap.hprof" "$w/out/objects.jsonl" >"$w/cmp" 2>&1; then
		t_ok "$name: objects.jsonl entries equal the HPROF's containers: $(awk '{printf "%s %s/%s; ", $1, $7, $5}' "$w/cmp")"
	else
		cat "$w/cmp"
		t_fail "$name: containers differ from the HPROF's"
	fi
	rm -f "$w/core" "$w/heap.hprof"
done

# ---- the synthetic messenger ----
# check_messages DIR OUT: every message of the truth against objects.jsonl and show --json
check_messages() {
	python3 - "$1/truth.jsonl" "$2/objects.jsonl" "$2/show.json" <<'EOF'
import datetime, json, sys
truth = {}
for line in open(sys.argv[1], encoding='utf-8'):
    o = json.loads(line)
    truth[o['addr']] = o
carved = {}
for line in open(sys.argv[2], encoding='utf-8'):
    o = json.loads(line)
    carved[o['address']] = o
shown = {o['addr']: o for o in json.load(open(sys.argv[3], encoding='utf-8'))}
def field(o, name):
    return next(f['value'] for f in o['fields'] if f['name'] == name)
def text(addr):
    return truth[addr]['string'] if addr else None
def body(t, f):
    # a body String the allocator freed while its message lives on is no carved object: the
    # message gives its address, or its text when the class word survived (outside)
    b = field(t, 'body')
    if truth[b]['alloc'] == 'free':
        got = f['body']
        return text(b) if isinstance(got, dict) and got.get('outside') and got['addr'] == b else \
            (text(b) if got == b else ('freed body %s given as %r' % (b, got)))
    return f['body']['text']
msgs = [o for o in truth.values() if o['class'].endswith('Messenger$Message') and o['alloc'] == 'allocated']
bad, dropped, freed = [], 0, 0
for t in msgs:
    c, s = carved.get(t['addr']), shown.get(t['addr'])
    if not c or not s:
        bad.append('%s not carved or not shown' % t['addr']); continue
    dropped += t['reach'] == 'unreachable'
    f, sf = c['fields'], s['fields']
    ms = field(t, 'timestamp')
    iso = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S') + \
        ('.%03dZ' % (ms % 1000) if ms % 1000 else 'Z')
    want = (field(t, 'id'), bool(field(t, 'read')), text(field(t, 'body')), iso,
            text(field(truth[field(t, 'sender')], 'name')), text(field(truth[field(t, 'recipient')], 'name')), t['reach'])
    freed += truth[field(t, 'body')]['alloc'] == 'free'
    got = (f['id'], f['read'], body(t, f), c.get('inferred_times', {}).get('timestamp'),
           sf['sender']['object']['fields']['name']['text'], sf['recipient']['object']['fields']['name']['text'], c['reach'])
    if want != got:
        bad.append('%s truth %r carved %r' % (t['addr'], want, got))
print('%d messages (%d dropped, %d with a freed body) with id, read, body, inferred time, sender and recipient names; %d differ' %
      (len(msgs), dropped, freed, len(bad)))
for b in bad[:5]:
    print('  ' + b)
sys.exit(1 if bad or not msgs or not dropped else 0)
EOF
}

# check_inbox DIR OUT: the inbox ArrayList's entries are the truth's kept messages in order
check_inbox() {
	python3 - "$1/truth.jsonl" "$2/objects.jsonl" <<'EOF'
import json, sys
truth = {}
for line in open(sys.argv[1], encoding='utf-8'):
    o = json.loads(line)
    truth[o['addr']] = o
def field(o, name):
    return next(f['value'] for f in o['fields'] if f['name'] == name)
carved = {}
for line in open(sys.argv[2], encoding='utf-8'):
    o = json.loads(line)
    if o['class'] in ('java.util.ArrayList', 'java.util.LinkedList', 'java.util.HashMap'):
        carved[o['class']] = o
# the inbox holds the reachable messages of the first 40 (ids 5000-5039; the outbox the next
# five) in creation order
inbox = sorted((field(o, 'id'), o['addr']) for o in truth.values()
               if o['class'].endswith('Messenger$Message') and o['reach'] == 'reachable' and field(o, 'id') < 5040)
want = [a for _, a in inbox]
e = carved['java.util.ArrayList']['entries']
got = e['items']
lk, hm = carved['java.util.LinkedList']['entries'], carved['java.util.HashMap']['entries']
keys = sorted(i['key']['text'] for i in hm['items'])
print('inbox: %d entries (truth %d), outbox: %d of %d, contacts: %s' % (len(got), len(want), lk['given'], lk['size'], keys))
ok = got == want and e['given'] == e['size'] == len(want) and lk['given'] == lk['size'] == 5 and \
    len(keys) == 6 and 'incomplete' not in e
sys.exit(0 if ok else 1)
EOF
}

for spec in "11 64" "7.1 64" "6.0 32"; do
	set -- $spec
	w=$TMP/synth-$1-$2
	if ! "$SYNTH" --version "$1" --bits "$2" --workload messenger --out "$w" >"$w.log" 2>&1; then
		t_fail "synth $1/$2 messenger: $(tail -n 1 "$w.log")"
		continue
	fi
	if ! "$ART" carve -q "$w/core" --maps "$w/maps" -o "$w/out" --skip hprof,bmd,db,strings,report >/dev/null 2>"$w/err"; then
		t_fail "synth $1/$2: carve failed: $(head -n 2 "$w/err")"
		continue
	fi
	addrs=$(jq -r 'select(.class == "com.example.messenger.Messenger$Message") | .address' "$w/out/objects.jsonl")
	# shellcheck disable=SC2086
	"$ART" show --json --depth 1 "$w/core" --maps "$w/maps" $addrs >"$w/out/show.json" 2>"$w/err" ||
		t_fail "synth $1/$2: show --json failed: $(head -n 2 "$w/err")"
	if check_messages "$w" "$w/out" >"$w/msg" 2>&1; then t_ok "synth $1/$2: $(head -n 1 "$w/msg")"
	else cat "$w/msg"; t_fail "synth $1/$2: messages differ from the truth"; fi
	if check_inbox "$w" "$w/out" >"$w/inbox" 2>&1; then t_ok "synth $1/$2: $(cat "$w/inbox")"
	else cat "$w/inbox"; t_fail "synth $1/$2: containers differ from the truth"; fi
	first=$(echo "$addrs" | head -n 1)
	body=$(jq -r --arg a "$first" 'select(.address == $a) | .fields.body.text' "$w/out/objects.jsonl")
	"$ART" show "$w/core" --maps "$w/maps" "$first" >"$w/show.txt" 2>&1
	if grep -qF "java.lang.String body = \"$body\"" "$w/show.txt" && grep -q "time inferred" "$w/show.txt"; then
		t_ok "synth $1/$2: show $first prints the body \"$body\" and the inferred time"
	else cat "$w/show.txt"; t_fail "synth $1/$2: show $first lacks the body or the time"; fi
done

# ---- README's jq example (carve outputs for scripts) on the Android 11 sample ----
S=samples/android11-64bit
if "$ART" carve -q "$S/core" --maps "$S/maps" -o "$TMP/sample" --skip hprof,bmd,db,strings,report >/dev/null 2>"$TMP/sample.err"; then
	jq -r 'select(.class == "com.example.chat.Message" and .reach == "unreachable") |
	      [.fields.id, .fields.sender.text, .fields.text.text, .inferred_times.timestamp] | @tsv' \
		"$TMP/sample/objects.jsonl" >"$TMP/sample.tsv"
	want=$(printf '1001\tmallory\thello #1\t2023-11-14T22:14:20Z\n1004\tcarol\tdone #4\t2023-11-14T22:17:20Z')
	if [ "$(head -n 2 "$TMP/sample.tsv")" = "$want" ]; then
		t_ok "README's jq query lists the sample's dropped messages as shown ($(wc -l <"$TMP/sample.tsv") rows)"
	else t_fail "README's jq query gives: $(head -n 2 "$TMP/sample.tsv")"; fi
	"$ART" show "$S/core" --maps "$S/maps" 0x12c40070 >"$TMP/sample.show" 2>&1
	if sed -n 2p "$TMP/sample.show" | grep -qxF '  sender="mallory" text="hello #1" timestamp=2023-11-14T22:14:20Z id=1001 read=true'; then
		t_ok "README's show example: $(sed -n 2p "$TMP/sample.show")"
	else t_fail "README's show example: $(head -n 3 "$TMP/sample.show")"; fi
else
	t_fail "carve of $S failed: $(head -n 2 "$TMP/sample.err")"
fi

# ---- damage: sizes, cycles and references that do not hold ----
w=$TMP/synth-11-64
if [ -f "$w/out/objects.jsonl" ]; then
	cp "$w/core" "$w/core.bad"
	python3 - "$w/core.bad" "$w/out/objects.jsonl" >"$w/patch" 2>&1 <<'EOF'
import json, struct, sys
core, jsonl = sys.argv[1], sys.argv[2]
objs, layout = {}, {}
for line in open(jsonl, encoding='utf-8'):
    o = json.loads(line)
    objs.setdefault(o['class'], []).append(o)
    if o['kind'] == 'class' and o.get('describes'):
        layout[o['describes']] = {f['name']: f['offset'] for f in o['instance_fields']}
data = bytearray(open(core, 'rb').read())
phoff, phentsize, phnum = struct.unpack_from('<QHH', data, 32)[0], *struct.unpack_from('<HH', data, 54)
segs = []
for i in range(phnum):
    t, _, off, va, _, filesz = struct.unpack_from('<IIQQQQ', data, phoff + i * phentsize)
    if t == 1:
        segs.append((va, off, filesz))
def put32(va, v):
    for b, off, n in segs:
        if b <= va < b + n:
            struct.pack_into('<I', data, off + va - b, v); return
    raise SystemExit('0x%x not in the core' % va)
def addr(o):
    return int(o['address'], 16)
al = objs['java.util.ArrayList'][0]
put32(addr(al) + layout['java.util.ArrayList']['size'], 1000)                 # past the 40 slots
ll = objs['java.util.LinkedList'][0]
nodes = sorted(objs['java.util.LinkedList$Node'], key=lambda o: o['fields']['next'] is None)
last = nodes[-1]                                                              # next == null
put32(addr(last) + layout['java.util.LinkedList$Node']['next'], int(ll['fields']['first'], 16))
hm = objs['java.util.HashMap'][0]
table = next(o for o in objs['java.util.HashMap$Node[]'] if o['address'] == hm['fields']['table'])
put32(addr(table) + 12, 0x0badd000)       # bucket 0 (Array::DataOffset(4) = 12): memory not captured
open(core, 'wb').write(data)
print(al['address'], ll['address'], hm['address'])
EOF
	read -r al ll hm <"$w/patch" || true
	for bin in "$ART" "$ASAN_ART"; do
		if ! "$bin" show --json "$w/core.bad" --maps "$w/maps" "$al" "$ll" "$hm" >"$w/bad.json" 2>"$w/bad.err"; then
			t_fail "$(basename "$(dirname "$bin")")/artcarve show on the damaged containers: $(head -n 3 "$w/bad.err") $(cat "$w/patch")"
			continue
		fi
		got=$(jq -r '.[] | "\(.class) \(.entries.size) \(.entries.given) \(.entries.incomplete)"' "$w/bad.json")
		echo "$got"
		want="java.util.ArrayList 1000 40 the size field is larger than the backing array
java.util.LinkedList 5 5 more nodes than the size field says (a cycle, or damage)"
		hmline=$(echo "$got" | grep HashMap)
		if [ "$(echo "$got" | grep -v HashMap)" = "$want" ] && echo "$hmline" | grep -q "^java.util.HashMap 6 [0-5] a reference leaves the model"; then
			t_ok "$bin: damaged containers show what reads and why not: $(echo "$got" | tr '\n' ';')"
		else
			t_fail "$bin: damaged containers: $(echo "$got" | tr '\n' ';') (patch: $(cat "$w/patch"))"
		fi
	done
else
	t_fail "no synthetic messenger carve to damage"
fi
t_done

#!/bin/sh
# test_case_db.sh - DIR/case.db, the SQLite case database `artcarve carve` writes, on the
# default sample (samples/android11-64bit, with its generator's truth.jsonl) and on a real
# capture (realart/cms-nodes-nogc, with the runtime's truth.json):
#   - the sqlite3 shell opens it, PRAGMA integrity_check is ok, application_id / user_version;
#   - its row counts equal the summary's (`carve --json`): objects, objects per state,
#     classes, strings, anomalies kept and counted, roots per source;
#   - every query of the README's "Case database" section (between the case-db-query markers)
#     runs, and its answer is checked against an independent figure: the --json summary, the
#     sample's truth.jsonl, the capture's truth.json, sha256sum; a README query this test does
#     not check is a failure;
#   - two runs give the same `sqlite3 .dump` except the runs row;
#   - errors: an unwritable DIR (as an unprivileged user) and a case.db that cannot be
#     completed (file size limit) give a one-line error and leave no case.db, no other output
#     and no temporary file.
# The time and size case.db adds on the real capture end the log.
. "$(dirname "$0")/lib.sh"
t_need sqlite3 jq zstd sha256sum || { t_done; exit; }
SAMPLE=samples/android11-64bit
CAP=$CORPUS/images/realart/cms-nodes-nogc

# the README's queries: names, and the SQL of one
query_names() { sed -n 's/^<!-- case-db-query \(.*\) -->$/\1/p' README.md; }
query_sql() {
	awk -v n="$1" '$0 == "<!-- case-db-query " n " -->" { on = 1; next }
		on && /^<!-- \/case-db-query -->/ { exit }
		on && !/^```/ { print }' README.md
}
# q DB NAME [@PARAM VALUE]: runs README query NAME on DB
q() {
	if [ $# -ge 4 ]; then sqlite3 -batch "$1" ".param set $3 $4" "$(query_sql "$2")"
	else sqlite3 -batch "$1" "$(query_sql "$2")"; fi
}
# same NAME GOT_FILE WANT_FILE: equal sorted lines
same_lines() {
	sort "$2" >"$2.s"; sort "$3" >"$3.s"
	if cmp -s "$2.s" "$3.s"; then t_ok "$1 ($(wc -l <"$2.s") lines)"
	else t_fail "$1: $(diff "$2.s" "$3.s" | head -n 6 | tr '\n' ' ')"; fi
}
eq() { if [ "$2" = "$3" ]; then t_ok "$1: $2"; else t_fail "$1: got '$2', want '$3'"; fi; }

checked="dropped-strings dropped-by-class class-by-state free-by-class who-references path-from-root app-dropped-fields dropped-messages inputs"
want=$(echo $checked | tr ' ' '\n' | sort | tr '\n' ' ')
have=$(query_names | sort | tr '\n' ' ')
eq "README queries are the ones this test checks" "$have" "$want"
for n in $(query_names); do
	[ -n "$(query_sql "$n")" ] || t_fail "README query $n is empty"
done

# check_db NAME DB JSON: the database against the summary
check_db() {
	db=$2 js=$3
	eq "$1: integrity_check" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
	eq "$1: application_id, user_version" "$(sqlite3 "$db" 'PRAGMA application_id; PRAGMA user_version' | tr '\n' ' ')" "1634890851 5 "
	eq "$1: objects = summary's" "$(sqlite3 "$db" 'SELECT count(*) FROM objects')" "$(jq .objects "$js")"
	for st in allocated free; do
		eq "$1: $st objects" "$(sqlite3 "$db" "SELECT count(*) FROM objects WHERE allocation = '$st'")" "$(jq .states.$st "$js")"
	done
	for st in intact partial residue; do
		eq "$1: $st objects" "$(sqlite3 "$db" "SELECT count(*) FROM objects WHERE content = '$st'")" "$(jq .states.$st "$js")"
	done
	for st in reachable unreachable unknown; do
		eq "$1: $st objects" "$(sqlite3 "$db" "SELECT count(*) FROM objects WHERE reach = '$st'")" "$(jq .states.$st "$js")"
	done
	eq "$1: classes = summary's" "$(sqlite3 "$db" 'SELECT count(*) FROM classes')" "$(jq .classes "$js")"
	eq "$1: strings = summary's" "$(sqlite3 "$db" 'SELECT count(*) FROM strings')" "$(jq .strings.total "$js")"
	eq "$1: anomalies counted (runtime, carving)" \
		"$(sqlite3 "$db" "SELECT coalesce(sum(total), 0) FROM anomaly_counts WHERE phase = 'runtime'; SELECT coalesce(sum(total), 0) FROM anomaly_counts WHERE phase = 'carving'" | tr '\n' ' ')" \
		"$(jq .runtime_anomalies.total "$js") $(jq .anomalies.total "$js") "
	eq "$1: anomalies kept" "$(sqlite3 "$db" 'SELECT count(*) FROM anomalies')" "$(jq '.runtime_anomalies.kept + .anomalies.kept' "$js")"
	sqlite3 "$db" 'SELECT source, count(*) FROM roots GROUP BY source' >"$TMP/roots.got"
	jq -r '.roots[] | select(.roots > 0 and .source != "dex cache strings") | "\(.source)|\(.roots)"' "$js" >"$TMP/roots.want"
	same_lines "$1: roots per source = summary's" "$TMP/roots.got" "$TMP/roots.want"
	# the summary's dropped strings and top dropped classes
	eq "$1: dropped-strings rows = summary's dropped strings" "$(q "$db" dropped-strings | wc -l)" "$(jq .strings.dropped "$js")"
	q "$db" dropped-by-class >"$TMP/dbc.got"
	jq -r '.dropped.top_classes[] | "\(.class)|\(.origin)|\(.objects)"' "$js" >"$TMP/dbc.want"
	head -n "$(wc -l <"$TMP/dbc.want")" "$TMP/dbc.got" >"$TMP/dbc.top"
	same_lines "$1: dropped-by-class, top classes = summary's" "$TMP/dbc.top" "$TMP/dbc.want"
	eq "$1: dropped-by-class total = summary's dropped" "$(awk -F'|' '{ n += $3 } END { print n + 0 }' "$TMP/dbc.got")" "$(jq .dropped.objects "$js")"
	# class-by-state of the summary's first top class adds up to its count
	top=$(jq -r '.top_classes[0].class' "$js")
	eq "$1: class-by-state of $top adds up to the summary's count" \
		"$(q "$db" class-by-state @class "'$top'" | awk -F'|' '{ n += $4 } END { print n + 0 }')" "$(jq '.top_classes[0].objects' "$js")"
	# free-by-class adds up to the free objects per content
	q "$db" free-by-class >"$TMP/free.got"
	eq "$1: free-by-class partial, residue = summary's" \
		"$(awk -F'|' '$2 == "partial" { p += $3 } $2 == "residue" { r += $3 } END { print p + 0, r + 0 }' "$TMP/free.got")" \
		"$(jq -r '"\(.states.partial) \(.states.residue)"' "$js")"
	# inputs: sizes and digests as sha256sum and stat see the files
	q "$db" inputs >"$TMP/inputs.got"
	: >"$TMP/inputs.want"
	awk -F'|' '{ print $4 }' "$TMP/inputs.got" | while read -r f; do
		echo "$(sed -n "s#|$f\$##p" "$TMP/inputs.got" | cut -d'|' -f1)|$(wc -c <"$f" | tr -d ' ')|$(sha256sum "$f" | cut -d' ' -f1)|$f"
	done >"$TMP/inputs.want"
	same_lines "$1: inputs = sha256sum and sizes of the files" "$TMP/inputs.got" "$TMP/inputs.want"
	eq "$1: inputs are the image and the maps listing" "$(cut -d'|' -f1 "$TMP/inputs.got" | tr '\n' ' ')" "image maps "
}

# same_dump NAME DB1 DB2: .dump equal except the runs row
same_dump() {
	sqlite3 "$2" .dump | grep -v '^INSERT INTO runs ' >"$TMP/d1"
	sqlite3 "$3" .dump | grep -v '^INSERT INTO runs ' >"$TMP/d2"
	if [ -s "$TMP/d1" ] && cmp -s "$TMP/d1" "$TMP/d2"; then
		t_ok "$1: two runs give the same .dump except the runs row ($(wc -l <"$TMP/d1") lines)"
	else
		t_fail "$1: .dump differs: $(diff "$TMP/d1" "$TMP/d2" | head -n 4 | cut -c1-200 | tr '\n' ' ')"
	fi
	eq "$1: one runs row each" "$(sqlite3 "$2" 'SELECT count(*) FROM runs')$(sqlite3 "$3" 'SELECT count(*) FROM runs')" 11
}

# ---- the default sample, against its truth.jsonl ----
s=$SAMPLE
if "$ART" carve --json "$s/core" --maps "$s/maps" -o "$TMP/s1" >"$TMP/s1.json" 2>"$TMP/s1.err" &&
	"$ART" carve --json "$s/core" --maps "$s/maps" -o "$TMP/s2" >/dev/null 2>&1; then
	db=$TMP/s1/case.db
	check_db sample "$db" "$TMP/s1.json"
	same_dump sample "$db" "$TMP/s2/case.db"
	tj=$s/truth.jsonl
	q "$db" dropped-strings >"$TMP/ds.got"
	jq -r 'select(.kind == "string" and .alloc == "allocated" and .reach == "unreachable") | "\(.addr)|\(.string)"' "$tj" >"$TMP/ds.want"
	same_lines "sample: dropped-strings = truth.jsonl's dropped strings" "$TMP/ds.got" "$TMP/ds.want"
	q "$db" dropped-by-class | awk -F'|' '{ print $1 "|" $3 }' >"$TMP/dc.got"
	jq -r 'select(.alloc == "allocated" and .reach == "unreachable") | .class' "$tj" | sort | uniq -c |
		awk '{ print $2 "|" $1 }' >"$TMP/dc.want"
	same_lines "sample: dropped-by-class = truth.jsonl's" "$TMP/dc.got" "$TMP/dc.want"
	# the truth also lists free objects the carve does not find (free-by-class is checked against
	# the summary above and, on a residue object, in tests/unit/test_model.c): allocated ones here
	for c in com.example.chat.Message com.example.auth.SessionToken java.lang.String; do
		q "$db" class-by-state @class "'$c'" | grep '^allocated|' >"$TMP/cs.got"
		jq -r --arg c "$c" 'select(.class == $c and .alloc == "allocated") | "\(.alloc)|\(.content)|\(.reach)"' "$tj" |
			sort | uniq -c | awk '{ print $2 "|" $1 }' >"$TMP/cs.want"
		same_lines "sample: class-by-state $c, allocated = truth.jsonl's" "$TMP/cs.got" "$TMP/cs.want"
	done
	echo "# free-by-class: $(q "$db" free-by-class | wc -l) rows; truth.jsonl lists $(jq -r 'select(.alloc == "free") | .class' "$tj" | wc -l) free objects"
	# who references each dropped string: the truth's objects with a field holding its address
	# (truth.jsonl lists no array elements: the query's array rows are counted apart)
	arrays=0
	for hex in $(cut -d'|' -f1 "$TMP/ds.want" | head -n 5); do
		q "$db" who-references @target "$(printf '%d' "$hex")" >"$TMP/wr.all"
		grep -v '|\[' "$TMP/wr.all" | cut -d'|' -f1-3 >"$TMP/wr.got"
		arrays=$((arrays + $(grep -c '|\[' "$TMP/wr.all")))
		jq -r --arg t "$hex" '. as $o | .fields[]?, .statics[]? | select(.value == $t) | "\($o.addr)|\($o.class)|\(.name)"' "$tj" >"$TMP/wr.want"
		same_lines "sample: who-references $hex = truth.jsonl's referring fields" "$TMP/wr.got" "$TMP/wr.want"
	done
	echo "# who-references: $arrays array referrers (not in truth.jsonl) not compared"
	# path from a root to every reachable Message: each field step is a field of the truth's
	# object holding the next address, each array step names an object-array of the truth
	# longer than its index, it starts at a Class (class statics) or the image roots and ends
	# at the target; a dropped Message has none
	bad=0 n=0
	for hex in $(jq -r 'select(.class == "com.example.chat.Message" and .reach == "reachable") | .addr' "$tj"); do
		n=$((n + 1))
		q "$db" path-from-root @target "$(printf '%d' "$hex")" >"$TMP/p.got"
		last=$(tail -n 1 "$TMP/p.got" | cut -d'|' -f2)
		first=$(head -n 1 "$TMP/p.got" | cut -d'|' -f2)
		[ "$last" = "$hex" ] || { bad=$((bad + 1)); echo "# $hex: path ends at '$last'"; continue; }
		kind=$(jq -r --arg a "$first" 'select(.addr == $a) | .kind' "$tj")
		[ "$kind" = class ] || [ "$(jq -r .image.image_roots "$s/truth.json")" = "$first" ] ||
			{ bad=$((bad + 1)); echo "# $hex: path starts at $first ($kind), no root"; continue; }
		awk -F'|' 'NR > 1 { print prev "|" via "|" $2 } { prev = $2; via = $5 }' "$TMP/p.got" | while IFS='|' read -r from via to; do
			case $via in
			\[*) idx=${via#[}; idx=${idx%]}
				jq -n -e --arg a "$from" --argjson i "$idx" '[inputs | select(.addr == $a and .kind == "object-array" and .length > $i)] | length > 0' "$tj" >/dev/null ||
					echo "# $hex: $from $via -> $to is no array element of the truth" ;;
			*) jq -n -e --arg a "$from" --arg f "$via" --arg t "$to" '[inputs | select(.addr == $a) | .fields[]?, .statics[]? | select(.name == $f and .value == $t)] | length > 0' "$tj" >/dev/null ||
					echo "# $hex: $from.$via -> $to is no field of the truth" ;;
			esac
		done >"$TMP/p.bad"
		[ -s "$TMP/p.bad" ] && { bad=$((bad + 1)); cat "$TMP/p.bad"; }
	done
	eq "sample: path-from-root for $n reachable Messages checked against truth.jsonl, bad" "$bad" 0
	[ "$n" -gt 0 ] || t_fail "sample: no reachable Message to follow"
	hex=$(jq -r 'select(.class == "com.example.chat.Message" and .reach == "unreachable") | .addr' "$tj" | head -n 1)
	eq "sample: path-from-root of dropped Message $hex" "$(q "$db" path-from-root @target "$(printf '%d' "$hex")" | wc -l)" 0
else
	t_fail "sample: carve failed: $(head -n 3 "$TMP/s1.err")"
fi

# check_real_addresses NAME DB DIR CORE: one spelling of addresses across case.db and
# strings.tsv, the Strings' holders as strings.tsv gives them, and the objects' file offsets
# against the core's bytes (an object's first word is its class's address)
check_real_addresses() {
	sqlite3 "$2" "SELECT hex || '|' || holder FROM dropped_strings" | sort >"$TMP/dsh.got"
	grep -v '^#' "$3/strings.tsv" | awk -F '\t' '$3 ~ /; allocated [a-z]+ unreachable / {
		c = $3; sub(/^[^;]*; /, "", c); sub(/; allocated [a-z]+ unreachable .*$/, "", c); print $1 "|" c }' | sort >"$TMP/dsh.want"
	same_lines "$1: dropped_strings hex and holder = strings.tsv's" "$TMP/dsh.got" "$TMP/dsh.want"
	eq "$1: hex spelled 0x + hex without zero padding, as objects.jsonl" \
		"$(sqlite3 "$2" "SELECT count(*) FROM objects_named WHERE hex NOT GLOB '0x[1-9a-f]*'")|$(sqlite3 "$2" "SELECT hex FROM objects_named ORDER BY address LIMIT 1")" \
		"0|$(jq -r 'select(.address) | .address' "$3/objects.jsonl" | head -n 1)"
	eq "$1: every String has a holder kind" "$(sqlite3 "$2" "SELECT count(*) FROM strings WHERE holder_kind NOT IN ('object', 'root', 'dex cache', 'unknown', 'none')")" 0
	bad=0 n=0
	sqlite3 -separator ' ' "$2" "SELECT o.file_offset, c.address, i.path FROM objects o JOIN classes c ON c.id = o.class_id
		JOIN inputs i ON i.id = o.input_id WHERE o.address % 997 = 0 OR o.rowid % 5000 = 0" >"$TMP/fo"
	while read -r off cls path; do
		n=$((n + 1))
		[ "$path" = "$4" ] && [ "$(od -An -tu4 -j "$off" -N4 "$4" | tr -d ' ')" = "$cls" ] || bad=$((bad + 1))
	done <"$TMP/fo"
	eq "$1: $n objects' file_offset in the core holds their class word, bad" "$bad" 0
	[ "$n" -ge 50 ] || t_fail "$1: only $n objects' file offsets checked"
	eq "$1: objects without a file offset" "$(sqlite3 "$2" "SELECT count(*) FROM objects WHERE file_offset IS NULL")" 0
}

# check_node_fields NAME DB UNREACHABLE: the README's app-dropped-fields query for Nodes$Node
# gives every dropped Node (truth.json's count), each with the same fields, as the workload
# wrote them: stamp = 0xCAFEBABE00000000 | id (realart README), next declared Nodes$Node
check_node_fields() {
	q "$2" app-dropped-fields @class "'Nodes\$Node'" >"$TMP/nf"
	python3 - "$TMP/nf" "$3" <<'PY' >"$TMP/nf.out"
import sys
nodes = {}
for line in open(sys.argv[1], encoding="utf-8"):
    hexa, field, typ, value, time_utc = line.rstrip("\n").split("|")
    nodes.setdefault(hexa, {"type": None})[field] = value
    if field == "next":
        nodes[hexa]["type"] = typ
bad = [h for h, f in nodes.items()
       if int(f["stamp"]) % (1 << 64) != (0xCAFEBABE << 32 | int(f["id"])) or f["type"] != "Nodes$Node"]
print(len(nodes), len(set(len(f) for f in nodes.values())), len(bad), bad[:3])
PY
	eq "$1: app-dropped-fields Nodes\$Node: dropped Nodes, distinct field counts, bad stamps (truth: $3 unreachable)" \
		"$(cat "$TMP/nf.out")" "$3 1 0 []"
}

# check_messages NAME DB TRUTH_JSONL: the README's dropped-messages query against the synthetic
# messenger's truth: every allocated unreachable Messenger$Message with its body's text, its
# sender's name and its timestamp as UTC
check_messages() {
	q "$2" dropped-messages >"$TMP/msg.got"
	PYTHONPATH=tests/tools python3 - "$3" <<'PY' >"$TMP/msg.want"
import sys, datetime
from truth_jsonl import load, field
objs = load(sys.argv[1])
for a in sorted(objs, key=lambda x: int(x, 16)):
    o = objs[a]
    if not o["class"].endswith("Messenger$Message") or o["alloc"] != "allocated" or o["reach"] != "unreachable":
        continue
    body = objs[field(o, "body")]["string"]
    sender = objs[field(objs[field(o, "sender")], "name")]["string"]
    t = datetime.datetime.fromtimestamp(field(o, "timestamp") / 1000, datetime.timezone.utc)
    ms = t.microsecond // 1000
    print("%s|%s|%s|%s" % (a, body, sender, t.strftime("%Y-%m-%dT%H:%M:%S") + (".%03d" % ms if ms else "") + "Z"))
PY
	if [ -s "$TMP/msg.want" ] && cmp -s "$TMP/msg.got" "$TMP/msg.want"; then
		t_ok "$1: dropped-messages = truth.jsonl's $(wc -l <"$TMP/msg.want") dropped messages with body, sender and time ($(head -n 1 "$TMP/msg.got"))"
	else
		t_fail "$1: dropped-messages differs from truth.jsonl: $(diff "$TMP/msg.got" "$TMP/msg.want" | head -n 4 | tr '\n' ' ')"
	fi
}
m=$TMP/messenger
if build/synth --version 11 --bits 64 --seed 1 --size small --workload messenger --out "$m" >/dev/null 2>&1 &&
   "$ART" carve "$m/core" --maps "$m/maps" -o "$m/out" --skip hprof,bmd,jsonl,strings,report -q >/dev/null 2>"$m/err"; then
	check_messages "synth messenger 11/64" "$m/out/case.db" "$m/truth.jsonl"
	eq "synth messenger 11/64: the app's classes lead the dropped classes" \
		"$(q "$m/out/case.db" dropped-by-class | head -n 1 | cut -d'|' -f2)" app
else
	t_fail "synth messenger: generation or carve failed: $(head -n 2 "$m/err" 2>/dev/null)"
fi

# ---- a real capture, against the summary and the runtime's truth.json ----
if t_corpus "$CAP"; then
	w=$TMP/real
	mkdir -p "$w"
	if zstd -q -d "$CAP/core.zst" -o "$w/core"; then
		t0=$(date +%s%N)
		"$ART" carve --json --skip db "$w/core" --maps "$CAP/maps.txt" -o "$w/nodb" >"$w/nodb.json" 2>"$w/err"
		t1=$(date +%s%N)
		if "$ART" carve --json "$w/core" --maps "$CAP/maps.txt" -o "$w/o1" >"$w/o1.json" 2>"$w/err"; then
			t2=$(date +%s%N)
			db=$w/o1/case.db
			check_db cms-nodes-nogc "$db" "$w/o1.json"
			want=$(jq '.classes["Nodes$Node"].unreachable' "$CAP/truth.json")
			eq 'cms-nodes-nogc: class-by-state Nodes$Node allocated unreachable = truth.json' \
				"$(q "$db" class-by-state @class "'Nodes\$Node'" | awk -F'|' '$1 == "allocated" && $3 == "unreachable" { print $4 }')" "$want"
			eq 'cms-nodes-nogc: dropped-by-class Nodes$Node, the first row, is the app'"'"'s with truth.json'"'"'s count' \
				"$(q "$db" dropped-by-class | head -n 1)" "Nodes\$Node|app|$want"
			kept=$(sqlite3 "$db" "SELECT address FROM objects_named WHERE class_name = 'Nodes\$Node' AND reach = 'reachable' ORDER BY address LIMIT 1")
			gone=$(sqlite3 "$db" "SELECT address FROM objects_named WHERE class_name = 'Nodes\$Node' AND reach = 'unreachable' ORDER BY address LIMIT 1")
			q "$db" path-from-root @target "$kept" >"$w/p.got"
			root=$(head -n 1 "$w/p.got" | cut -d'|' -f2)
			if [ "$(tail -n 1 "$w/p.got" | cut -d'|' -f2)" = "$(printf '0x%x' "$kept")" ] && [ -n "$(head -n 1 "$w/p.got" | cut -d'|' -f4)" ]; then
				t_ok "cms-nodes-nogc: path-from-root of a kept Node: $(cut -d'|' -f2,3 "$w/p.got" | tr '\n' ' ')"
			else
				t_fail "cms-nodes-nogc: path-from-root of a kept Node $kept: $(tr '\n' ' ' <"$w/p.got")"
			fi
			eq "cms-nodes-nogc: path-from-root of a dropped Node" "$(q "$db" path-from-root @target "$gone" | wc -l)" 0
			q "$db" who-references @target "$kept" >"$w/wr"
			eq "cms-nodes-nogc: who-references of the kept Node names the path's last step" \
				"$(grep -c "^$(sed -n '$!h; ${x; p}' "$w/p.got" | cut -d'|' -f2)|" "$w/wr")" 1
			check_real_addresses cms-nodes-nogc "$db" "$w/o1" "$w/core"
			check_node_fields cms-nodes-nogc "$db" "$want"
			"$ART" carve "$w/core" --maps "$CAP/maps.txt" -o "$w/o2" >/dev/null 2>&1
			same_dump cms-nodes-nogc "$db" "$w/o2/case.db"
			echo "# cms-nodes-nogc: case.db $(wc -c <"$db") bytes, heap.hprof $(wc -c <"$w/o1/heap.hprof") bytes;" \
				"carve $(( (t1 - t0) / 1000000 )) ms without case.db, $(( (t2 - t1) / 1000000 )) ms with it (root $root)"
		else
			t_fail "cms-nodes-nogc: carve failed: $(head -n 3 "$w/err")"
		fi
		rm -rf "$w"
	else
		t_fail "cms-nodes-nogc: cannot decompress"
	fi
fi

# ---- errors: nothing partial is left ----
# an unwritable DIR, for a user who may not write there (root writes anywhere: it runs the
# carve as nobody through setpriv)
d=$TMP/ro
mkdir -p "$d"
cp "$SAMPLE/core" "$SAMPLE/maps" "$TMP/" && chmod 755 "$TMP" && chmod 644 "$TMP/core" "$TMP/maps" && chmod 555 "$d"
as_user=
if [ "$(id -u)" = 0 ]; then
	t_need setpriv && as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
if [ "$(id -u)" != 0 ] || [ -n "$as_user" ]; then
	$as_user "$ART" carve "$TMP/core" --maps "$TMP/maps" -o "$d" >"$TMP/ro.out" 2>"$TMP/ro.err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/ro.err")" -eq 1 ] && [ -z "$(ls -A "$d")" ]; then
		t_ok "unwritable DIR: exit $rc, one line: $(cat "$TMP/ro.err")"
	else
		t_fail "unwritable DIR: exit $rc, stderr $(head -c 300 "$TMP/ro.err"), DIR holds: $(ls -A "$d" | tr '\n' ' ')"
	fi
fi
# case.db that cannot be completed: a file size limit above heap.hprof's size, below case.db's
d=$TMP/full
hb=$(wc -c <"$TMP/s1/heap.hprof") cb=$(wc -c <"$TMP/s1/case.db")
lim=$(( (hb + cb) / 2 / 512 ))   # ulimit -f counts 512-byte blocks (POSIX sh)
(trap '' XFSZ; ulimit -f "$lim"; exec "$ART" carve "$SAMPLE/core" --maps "$SAMPLE/maps" -o "$d") >"$TMP/full.out" 2>"$TMP/full.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$TMP/full.err")" -eq 1 ] && grep -q 'case.db' "$TMP/full.err" && [ -z "$(ls -A "$d")" ]; then
	t_ok "case.db past a file size limit of $lim blocks (heap.hprof $hb, case.db $cb bytes): exit $rc, one line: $(cat "$TMP/full.err"), DIR empty"
else
	t_fail "file size limit of $lim blocks: exit $rc, stderr $(head -c 300 "$TMP/full.err"), DIR holds: $(ls -A "$d" | tr '\n' ' ')"
fi
t_done

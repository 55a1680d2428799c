#!/bin/sh
# test_find.sh - carve's indicators (output/find) on the four samples, whose generator plants
# them (tests/synth/work.c make_indicators): a URL, an e-mail address, a phone number and an
# IPv4 address in chat messages, a Luhn-valid card number and a Luhn-invalid one, an
# Account.password field; the session tokens' JWT-like strings and secret byte[]s.
#   - each planted indicator whose String the carve holds (an object of case.db; a String
#     freed into an empty free place has no row, or, when its bytes survive the free, the
#     place's residue row at the String's address) is a row of
#     case.db's `indicators` with the String's address as truth.jsonl has it (hex in the
#     canonical spelling), class java.lang.String, the state truth.jsonl gives (reachable:
#     live, unreachable: dropped, freed: free) and the holder's field
#     com.example.chat.Message.text when truth's Message holding it is allocated (a freed
#     object's references are stale: no holder); a String not carved has no row; every
#     kind is found in at least one sample;
#   - the invalid card's String is in the truth and no indicator has its digits;
#   - the password: a `secret` row, value the String's text, field
#     com.example.auth.Account.password; each carved SessionToken whose secret byte[] the
#     carve holds: a `secret` row at that byte[] with 64 hex digits;
#   - the feature file of each kind: the bulk_extractor header, then per row address+offset,
#     value, context; as many lines as the summary's count of that kind (--json) and as
#     case.db's rows;
#   - --skip indicators writes neither the folder nor the table.
# Then the synthetic messenger (build/synth --workload messenger: 11/64, 7.1/64, 6.0/32), whose
# generator plants what the scan must reach beyond objects' own text: a secret in a static
# field (Messenger.authToken) and a URL in a byte[] that dlmalloc freed, its class word under
# the bin links.  The secret is a row at the String truth.jsonl holds with that text, field
# "static com.example.messenger.Messenger.authToken", live; the URL a row at the freed byte[]'s
# address (found in truth.jsonl by the FNV-1a of its bytes, alloc free), no class and no
# field, state residue, source place, offset 18 (the array's data at 12, then "seen: "), and
# the url.txt line "ADDR+18, URL, free place in non moving space@ADDR+18; no holder; residue;
# place".
. "$(dirname "$0")/lib.sh"
t_need jq sqlite3 python3 || { t_done; exit; }

# truth_state TRUTH TEXT: the state of the String with text TEXT in truth.jsonl
truth_state() {
	jq -r --arg t "$2" 'select(.kind == "string" and .string == $t) |
		if .alloc == "free" then "free" elif .reach == "reachable" then "live"
		elif .reach == "unreachable" then "dropped" else "unknown" end' "$1" | head -n 1
}
# truth_addr TRUTH TEXT: its address as truth.jsonl spells it
truth_addr() {
	jq -r --arg t "$2" 'select(.kind == "string" and .string == $t) | .addr' "$1" | head -n 1
}
# all COND...: true when every condition (a shell command line, run by eval) holds
all() { for c in "$@"; do eval "$c" || return 1; done; }
canon() { python3 -c "print(hex(int('$1', 16)))"; }
# truth_holder TRUTH ADDR: the alloc of the Message whose text field is the String at ADDR
truth_holder() {
	jq -r --arg a "$2" 'select(.class == "com.example.chat.Message") |
		select(any(.fields[]; .name == "text" and .value == $a)) | .alloc' "$1" | head -n 1
}
carved() { [ "$(sqlite3 "$1" "SELECT count(*) FROM objects WHERE address = $2")" = 1 ]; }

cat >"$TMP/planted" <<'LIST'
url|https://chat.example.com/join/7f3a9c|invite: https://chat.example.com/join/7f3a9c
email|alice.smith@example.org|write to alice.smith@example.org
phone|+1 415-555-0132|call me on +1 415-555-0132
ipv4|192.168.17.42|vpn at 192.168.17.42 again
card|4111 1111 1111 1111|pay with 4111 1111 1111 1111 please
LIST

found_kinds=
for s in samples/android6.0-32bit samples/android7.1-64bit samples/android11-64bit samples/android14-64bit-cmc; do
	name=$(basename "$s")
	out=$TMP/$name
	if ! "$ART" carve "$s/core" --maps "$s/maps" -q -o "$out" --skip hprof,bmd,report,jsonl,strings --json \
		>"$TMP/$name.json" 2>"$TMP/$name.err"; then
		t_fail "$name: carve failed: $(cat "$TMP/$name.err")"
		continue
	fi
	db=$out/case.db
	while IFS='|' read -r kind value text; do
		addr=$(truth_addr "$s/truth.jsonl" "$text")
		[ -n "$addr" ] || { t_fail "$name: no String '$text' in the truth"; continue; }
		hex=$(canon "$addr")
		state=$(truth_state "$s/truth.jsonl" "$text")
		got=$(sqlite3 "$db" "SELECT hex, class, field, state FROM indicators WHERE kind = '$kind' AND value = '$value'")
		if ! carved "$db" "$hex"; then
			# its bytes, when they survive a free that took the class word, are a residue place's
			echo "$name $kind '$value': its String $hex ($state in the truth) is not an object of the carve; rows: '$got'"
			t_check "$name: $kind $value: a String not carved has no row, or its place's residue row" \
				sh -c "[ -z '$got' ] || [ '$got' = '$hex|||residue' ]"
			continue
		fi
		field=
		[ "$(truth_holder "$s/truth.jsonl" "$addr")" = allocated ] && field=com.example.chat.Message.text
		want="$hex|java.lang.String|$field|$state"
		echo "$name $kind '$value': got '$got', truth '$want'"
		t_check "$name: $kind $value found at its String with its field and state" [ "$got" = "$want" ]
		[ "$got" = "$want" ] && found_kinds="$found_kinds $kind"
	done <"$TMP/planted"
	bad=$(truth_addr "$s/truth.jsonl" "not a card 4111 1111 1111 1112")
	nbad=$(sqlite3 "$db" "SELECT count(*) FROM indicators WHERE value LIKE '%1112%'")
	echo "$name: Luhn-invalid card String at ${bad:-?}, indicators holding its digits: $nbad"
	t_check "$name: the Luhn-invalid card is not an indicator" all '[ -n "$bad" ]' '[ "$nbad" = 0 ]'

	addr=$(truth_addr "$s/truth.jsonl" hunter2-Correct-Horse)
	want="$(canon "$addr")|com.example.auth.Account.password|$(truth_state "$s/truth.jsonl" hunter2-Correct-Horse)"
	got=$(sqlite3 "$db" "SELECT hex, field, state FROM indicators WHERE kind = 'secret' AND value = 'hunter2-Correct-Horse'")
	echo "$name secret password: got '$got', truth '$want'"
	t_check "$name: the password field is a secret with its holder field" all '[ -n "$addr" ]' '[ "$got" = "$want" ]'
	want=$(jq -r 'select(.class == "com.example.auth.SessionToken") |
			[.addr, (.fields[] | select(.name == "secret") | .value)] | join(" ")' "$s/truth.jsonl" |
		while read -r tok sec; do
			carved "$db" "$tok" && carved "$db" "$sec" && canon "$sec"
		done | sort | tr '\n' ' ')
	got=$(sqlite3 "$db" "SELECT hex FROM indicators WHERE kind = 'secret' AND length(value) = 64
		AND field = 'com.example.auth.SessionToken.secret' ORDER BY hex" | tr '\n' ' ')
	echo "$name SessionToken.secret byte[]s: got '$got', carved '$want'"
	t_check "$name: every carved token's secret byte[] as hex" all '[ -n "$got" ]' '[ "$got" = "$want" ]'

	for kind in url email phone ipv4 ipv6 jwt bearer card secret; do
		f=$out/indicators/$kind.txt
		count=$(jq -r ".indicators.$kind" "$TMP/$name.json")
		lines=$(grep -vc '^#' "$f")
		rows=$(sqlite3 "$db" "SELECT count(*) FROM indicators WHERE kind = '$kind'")
		fields=$(grep -v '^#' "$f" | awk -F '\t' 'NF != 3' | wc -l)
		t_check "$name: $kind.txt: $lines lines, summary $count, case.db $rows, all of three fields" \
			all '[ "$lines" = "$count" ]' '[ "$rows" = "$count" ]' '[ "$fields" = 0 ]' \
			"grep -q '^# Feature-File-Version: 1.1\$' '$f'" "grep -q '^# Feature-Recorder: $kind\$' '$f'"
	done
	# the feature file's offset is the object's address plus the match's offset in it
	line=$(grep -v '^#' "$out/indicators/url.txt" | head -n 1 | cut -f1,2)
	row=$(sqlite3 -separator '	' "$db" "SELECT address + offset, value FROM indicators WHERE kind = 'url'
		ORDER BY address, offset LIMIT 1")
	t_check "$name: url.txt's first line is case.db's first url row ($row)" all '[ -n "$row" ]' '[ "$line" = "$row" ]'
done
SECRET=mk_live_7Qz2Vx9Lp4Rt8Wn3
URL=https://drop.example.net/c2/upload?id=4711
for spec in "11 64" "7.1 64" "6.0 32"; do
	set -- $spec
	w=$TMP/messenger-$1-$2
	if ! build/synth --version "$1" --bits "$2" --workload messenger --out "$w" >"$w.log" 2>&1 ||
		! "$ART" carve -q "$w/core" --maps "$w/maps" -o "$w/out" --skip hprof,bmd,jsonl,strings,report \
			>/dev/null 2>"$w.err"; then
		t_fail "messenger $1/$2: synth or carve failed: $(tail -n 2 "$w.log" "$w.err")"
		continue
	fi
	db=$w/out/case.db
	want="$(canon "$(truth_addr "$w/truth.jsonl" "$SECRET")")|java.lang.String|static com.example.messenger.Messenger.authToken|live"
	got=$(sqlite3 "$db" "SELECT hex, class, field, state FROM indicators WHERE kind = 'secret' AND value = '$SECRET'")
	echo "messenger $1/$2 static secret: got '$got', truth '$want'"
	t_check "messenger $1/$2: the static authToken is a secret with its static field" [ "$got" = "$want" ]
	fnv=$(python3 -c '
import sys
h = 0xcbf29ce484222325
for c in sys.argv[1].encode():
    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
print("%016x" % h)' "seen: $URL (deleted draft)")
	addr=$(jq -r --arg h "$fnv" 'select(.data_fnv1a64 == $h and .alloc == "free") | .addr' "$w/truth.jsonl" | head -n 1)
	[ -n "$addr" ] && hex=$(canon "$addr") || hex=none
	want="$hex|||residue|place|18"
	got=$(sqlite3 "$db" "SELECT hex, class, field, state, source, offset FROM indicators WHERE kind = 'url' AND value = '$URL'")
	echo "messenger $1/$2 residue URL: got '$got', truth '$want' (the byte[] freed at ${addr:-?})"
	t_check "messenger $1/$2: the URL in the freed chunk is a residue row of its place" [ "$got" = "$want" ]
	[ -n "$addr" ] && line="$(($addr + 18))	$URL	free place in non moving space@$hex+18; no holder; residue; place"
	t_check "messenger $1/$2: url.txt names the place: '$line'" grep -qxF "$line" "$w/out/indicators/url.txt"
	# README's query: the residue finds with their place's space
	got=$(sqlite3 "$db" "SELECT i.kind, i.value, i.hex, i.offset, s.name FROM indicators i
		JOIN spaces s ON i.address >= s.va_begin AND i.address < s.va_end WHERE i.state = 'residue'")
	t_check "messenger $1/$2: README's residue query gives '$got'" [ "$got" = "url|$URL|$hex|18|non moving space" ]
done

for kind in url email phone ipv4 card; do
	t_check "$kind found in at least one sample" [ -n "$(echo "$found_kinds" | tr ' ' '\n' | grep -x "$kind")" ]
done

s=samples/android11-64bit
"$ART" carve "$s/core" --maps "$s/maps" -q -o "$TMP/skip" --skip hprof,bmd,report,jsonl,strings,indicators >/dev/null
t_check "--skip indicators: no folder" [ ! -e "$TMP/skip/indicators" ]
t_check "--skip indicators: no table" \
	[ "$(sqlite3 "$TMP/skip/case.db" "SELECT count(*) FROM sqlite_master WHERE name = 'indicators'")" = 0 ]
t_done

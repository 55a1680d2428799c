#!/bin/sh
# test_yara.sh - `artcarve yara` and `carve --yara` with tests/yara_rules.yar (a plain string,
# a wide string, a hex string, a regular expression, a condition joining two strings with
# `and`, an ascii+wide string):
#   - on the four samples (tests/synth/work.c plants the texts): chat_invite matches the
#     invite message's String (truth.jsonl's address) with its holder field and state;
#     wide_password the password String in its UTF-16 form; jwt_header_hex and session_regex
#     every carved SessionToken.token String (case.db's strings); card_and_pay both its
#     strings in the valid card's message and nothing in the Luhn-invalid one (no "pay with");
#     `carve --yara` writes as many yara_matches rows as `yara --json` lists matches, the same
#     rows, and a summary count;
#   - on a real capture (realart/cc-collections): the Strings whose stored 8-bit text holds
#     "art.gc." are exactly those `artcarve strings` lists with that text;
#   - rules that do not compile: exit 1 and one line naming the file and line.
. "$(dirname "$0")/lib.sh"
t_need jq sqlite3 python3 zstd || { t_done; exit; }
REAL=$CORPUS/images/realart/cc-collections
t_corpus "$REAL" || { t_done; exit; }
RULES=tests/yara_rules.yar
# all COND...: true when every condition (a shell command line, run by eval) holds
all() { for c in "$@"; do eval "$c" || return 1; done; }
canon() { python3 -c "print(hex(int('$1', 16)))"; }
truth_addr() { jq -r --arg t "$2" 'select(.kind == "string" and .string == $t) | .addr' "$1" | head -n 1; }
truth_state() {
	jq -r --arg t "$2" 'select(.kind == "string" and .string == $t) |
		if .alloc == "free" then "free" elif .reach == "reachable" then "live"
		elif .reach == "unreachable" then "dropped" else "unknown" end' "$1" | head -n 1
}

for s in samples/android6.0-32bit samples/android7.1-64bit samples/android11-64bit samples/android14-64bit-cmc; do
	name=$(basename "$s")
	j=$TMP/$name.json
	if ! "$ART" yara --json "$RULES" "$s/core" --maps "$s/maps" >"$j" 2>"$TMP/err"; then
		t_fail "$name: yara failed: $(cat "$TMP/err")"
		continue
	fi
	"$ART" carve "$s/core" --maps "$s/maps" -q -o "$TMP/$name" --skip hprof,bmd,report,jsonl,strings,indicators \
		--yara "$RULES" --json >"$TMP/$name.sum"
	db=$TMP/$name/case.db
	# a plain string matches an 8-bit String as stored, a UTF-16 one (before 8.0) in its UTF-8
	# form; a wide string the other way round
	plain=stored wide=utf16
	[ "$(jq -r 'select(.kind == "string") | .compressed' "$s/truth.jsonl" | grep -c true)" = 0 ] && plain=utf8 wide=stored
	hex=$(canon "$(truth_addr "$s/truth.jsonl" "invite: https://chat.example.com/join/7f3a9c")")
	want="$hex|com.example.chat.Message.text|$(truth_state "$s/truth.jsonl" "invite: https://chat.example.com/join/7f3a9c")|$plain"
	got=$(jq -r '.[] | select(.rule == "chat_invite") | "\(.address)|\(.field)|\(.state)|\(.form)"' "$j")
	echo "$name chat_invite: got '$got', truth '$want'"
	t_check "$name: chat_invite at the invite String, its field and state" [ "$got" = "$want" ]
	hex=$(canon "$(truth_addr "$s/truth.jsonl" hunter2-Correct-Horse)")
	got=$(jq -r '.[] | select(.rule == "wide_password") | "\(.address)|\(.form)|\(.string)|\(.field)"' "$j")
	t_check "$name: wide_password at the password String's UTF-16 form ($got)" \
		[ "$got" = "$hex|$wide|\$pw|com.example.auth.Account.password" ]
	want=$(sqlite3 "$db" "SELECT printf('0x%x', address) FROM strings WHERE value LIKE 'eyJhbGciOiJIUzI1NiJ9.session-%'
		ORDER BY address" | tr '\n' ' ')
	for rule in jwt_header_hex session_regex; do
		got=$(jq -r --arg r "$rule" '.[] | select(.rule == $r and .source == "string") | .address' "$j" |
			tr '\n' ' ')
		t_check "$name: $rule at every carved session token String ($got)" all '[ -n "$want" ]' '[ "$got" = "$want" ]'
	done
	card=$(truth_addr "$s/truth.jsonl" "pay with 4111 1111 1111 1111 please")
	got=$(jq -r '.[] | select(.rule == "card_and_pay") | "\(.address)\(.string)"' "$j" | tr '\n' ' ')
	if [ "$(sqlite3 "$db" "SELECT count(*) FROM objects WHERE address = $card")" = 1 ]; then
		want="$(canon "$card")\$pay $(canon "$card")\$visa "
	else
		want=   # the String went into an empty free place (not an object of the carve)
	fi
	t_check "$name: card_and_pay: both strings in the card message only ('$got')" [ "$got" = "$want" ]
	nmatch=$(jq length "$j")
	rows=$(sqlite3 "$db" "SELECT count(*) FROM yara_matches")
	sqlite3 "$db" "SELECT rule || ' ' || hex || ' ' || offset || ' ' || form FROM yara_matches ORDER BY id" >"$TMP/rows"
	jq -r '.[] | "\(.rule) \(.address) \(.offset) \(.form)"' "$j" >"$TMP/list"
	same=no
	cmp -s "$TMP/rows" "$TMP/list" && same=yes
	t_check "$name: carve --yara: $rows rows, yara --json $nmatch matches, the same, summary $(jq .yara.matches "$TMP/$name.sum")" \
		all '[ "$rows" = "$nmatch" ]' '[ "$same" = yes ]' '[ "$(jq .yara.matches "$TMP/$name.sum")" = "$nmatch" ]'
done

zstd -q -d "$REAL/core.zst" -o "$TMP/real-core"
"$ART" yara --json "$RULES" "$TMP/real-core" --maps "$REAL/maps.txt" >"$TMP/real.json"
t_check "real capture: yara exits 0" [ $? = 0 ]
"$ART" strings --json --no-residue "$TMP/real-core" --maps "$REAL/maps.txt" |
	jq -r '.[] | select(.value | contains("art.gc.")) | select(.compressed) | .address' | sort >"$TMP/want"
jq -r '.[] | select(.rule == "art_gc_names" and .source == "string" and .form == "stored") | .address' "$TMP/real.json" |
	sort -u >"$TMP/got"
echo "real capture: $(wc -l <"$TMP/want") 8-bit Strings hold art.gc., yara matched $(wc -l <"$TMP/got")"
t_check "real capture: art_gc_names matches exactly the Strings holding art.gc." \
	all '[ -s "$TMP/want" ]' 'cmp -s "$TMP/want" "$TMP/got"'

printf 'rule bad {\n strings: $a = "x"\n condition: $b\n}\n' >"$TMP/bad.yar"
"$ART" yara "$TMP/bad.yar" samples/android11-64bit/core >"$TMP/out" 2>"$TMP/err"
rc=$?
echo "bad rules: exit $rc, stderr: $(cat "$TMP/err")"
t_check "rules that do not compile: exit 1, one line naming the file and line" \
	all '[ $rc = 1 ]' '[ "$(wc -l <"$TMP/err")" = 1 ]' 'grep -q "bad.yar:[0-9]*: " "$TMP/err"'
"$ART" carve samples/android11-64bit/core -q -o "$TMP/badcarve" --yara "$TMP/bad.yar" >/dev/null 2>"$TMP/err"
rc=$?
t_check "carve --yara with bad rules: exit 1 before writing ($(cat "$TMP/err"))" all '[ $rc = 1 ]' '[ ! -e "$TMP/badcarve" ]'
t_done

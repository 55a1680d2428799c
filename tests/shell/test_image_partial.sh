#!/bin/sh
# tier: quick
# test_image_partial.sh - a directory dump whose region file is shorter than its listing says
# carves what it holds (issue 23).  samples/android11-64bit/core is rewritten by
# build/tools/img_split as a maps + region-files directory, a memfetch dump and a Volatility 3
# dump; the file of the region space (0x12c00000-0x12c80000, 512 KiB, "Memory range ... (524288
# bytes)" in mfetch.lst, the range in the Volatility 3 name) is cut to its first region
# (256 KiB).  Each form must: carve with exit 0 and write every output; name the missing bytes
# in one "capture" anomaly (file NAME holds 262144 of its 524288 bytes) and in `info`'s "cut short:"
# line; keep every object the whole form carves outside the cut-off half.
# Before: the missing tail was read as not captured with no word of it (no anomaly, no
# cut_bytes: the summary and info said nothing of the absent 256 KiB).
# (Volatility 2 files give the region's end by their size: a cut there cannot be told.  No
# form records unreadable pages: Volatility zero-fills them without a list, memfetch and the
# maps directory skip them.)
. "$(dirname "$0")/lib.sh"
SPLIT=build/tools/img_split
S=samples/android11-64bit
t_need jq && t_built "$SPLIT" || { t_done; exit; }

region_file() {   # FORM DIR: the file holding 0x12c00000
	case $1 in
	memfetch) awk '/^\[[0-9]+\] / { f = $2; sub(":$", "", f) } /0x12c00000/ { print f; exit }' "$2/mfetch.lst" ;;
	*) ls "$2" | grep -i '12c00000-' ;;
	esac
}

for form in maps-dir memfetch vol3; do
	d=$TMP/$form
	if ! "$SPLIT" "$S/core" "$S/maps" "$form" "$d" >/dev/null; then t_fail "$form: img_split"; continue; fi
	"$ART" carve "$d" --maps "$S/maps" -o "$TMP/whole-$form" >"$TMP/whole.txt" 2>"$TMP/err" ||
		{ t_fail "$form: whole carve: $(head -n 2 "$TMP/err")"; continue; }
	f=$(region_file "$form" "$d")
	[ -n "$f" ] && [ "$(wc -c <"$d/$f")" -eq 524288 ] || { t_fail "$form: no 512 KiB region-space file ($f)"; continue; }
	truncate -s 262144 "$d/$f"
	if ! "$ART" carve "$d" --maps "$S/maps" -o "$TMP/cut-$form" >"$TMP/cut.txt" 2>"$TMP/err"; then
		t_fail "$form: carve of the cut dump failed: $(head -n 2 "$TMP/err")"; continue
	fi
	outputs=$(ls "$TMP/cut-$form" | wc -l)
	[ "$outputs" -eq "$(ls "$TMP/whole-$form" | wc -l)" ] && t_ok "$form: every output written ($outputs)" ||
		t_fail "$form: $outputs outputs of $(ls "$TMP/whole-$form" | wc -l)"
	msg="$(grep -c '^  anomaly capture ' "$TMP/cut.txt") $(grep -m 1 '^  anomaly capture ' "$TMP/cut.txt")"
	echo "$form: capture anomaly: $msg"
	case $msg in
	"1 "*"lack 262144 bytes"*"file $f holds 262144 of its 524288 bytes"*)
		t_ok "$form: one capture anomaly names $f and the 262144 bytes missing" ;;
	*) t_fail "$form: capture anomaly: $msg" ;;
	esac
	line=$("$ART" info --image-only "$d" --maps "$S/maps" | grep '^cut short:')
	echo "$form: info: $line"
	case $line in
	"cut short: the file ends 262144 bytes early; 1 regions from 0x12c00000"*"$f"*) t_ok "$form: info says what is absent" ;;
	*) t_fail "$form: info: '$line'" ;;
	esac
	# every object of the whole dump outside the cut half [0x12c40000, 0x12c80000) is carved
	jq -r 'select(.address | ltrimstr("0x") | ascii_downcase | (length > 8 or . < "12c40000" or . >= "12c80000")) | .address' \
		"$TMP/whole-$form/objects.jsonl" | sort >"$TMP/want"
	jq -r '.address' "$TMP/cut-$form/objects.jsonl" | sort >"$TMP/got"
	lost=$(comm -23 "$TMP/want" "$TMP/got" | wc -l)
	echo "$form: $(wc -l <"$TMP/want") objects outside the cut half, $lost lost"
	[ -s "$TMP/want" ] && [ "$lost" -eq 0 ] && t_ok "$form: every object outside the cut half carved" ||
		t_fail "$form: $lost objects outside the cut half lost: $(comm -23 "$TMP/want" "$TMP/got" | head -n 3 | tr '\n' ' ')"
	rm -rf "$d" "$TMP/whole-$form" "$TMP/cut-$form"
done
t_done

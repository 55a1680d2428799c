#!/bin/sh
# test_realart_layouts.sh - where LinkFields puts instance fields, against the offsets the
# real runtimes wrote themselves.
# A whole-process capture holds every class's ArtFields (LinearAlloc): ART's own offsets,
# which `classes` reports with fields_from=ifields_.  A trimmed capture of the same runtime
# and workload holds only the DEX: `classes` places the fields with the layout row's
# LinkFields rule (fields_from=dex).  For every such pair (ART 10 and 11: 6.0-11's rule,
# largest gap first; ART 14: 12+'s, smallest gap first):
#   - every class with fields in both lists each field at the same offset (counts printed);
#   - ART 11 (found by content, alike in 12 and 13 but for the rule): `info` says some
#     classes' ArtFields fit only 11's rule and none only 12's;
#   - the DEX magic libart.so holds as a constant is counted as a rejected candidate, not
#     reported as a damaged DEX (no `dex` anomaly).
# The generator (tests/synth, written from the AOSP sources apart from the carver) against
# the same runtimes: every class of a synthetic 14 (11) image whose fields (names and types)
# are those of a class of the real 14 (11) capture has them at the same offsets; for 14 the
# workload's Harness (two booleans after a long's 4-byte gap: 28 and 29 on 12+, 28 and 30
# before) is among them.
. "$(dirname "$0")/lib.sh"
t_need zstd || { t_done; exit; }
SYNTH=$PWD/build/synth

# CLASSES_TXT -> "CLASS<TAB>FROM<TAB>FIELD<TAB>TYPE<TAB>OFFSET" per field, sorted
field_rows() {
	awk '/^class / { name = $3; from = ""
			 for (i = 4; i <= NF; i++) if ($i ~ /^fields_from=/) { from = $i; sub(/^fields_from=/, "", from) } }
	     /^  field / { off = $2; sub(/^\+/, "", off); print name "\t" from "\t" $4 "\t" $3 "\t" off }' "$1" |
		LC_ALL=C sort -t "$(printf '\t')" -k1,1 -k3,3
}
# FIELD_ROWS -> "CLASS<TAB>FROM<TAB>field type, ...<TAB>field type +off, ..." per class
class_rows() {
	awk -F '\t' '$1 != c { if (c != "") print c "\t" f "\t" s "\t" o; c = $1; f = $2; s = ""; o = "" }
		     { s = s $3 " " $4 ", "; o = o $3 " " $4 " +" $5 ", " }
		     END { if (c != "") print c "\t" f "\t" s "\t" o }' "$1"
}
# classes IMAGE MAPS OUT: `classes` into OUT, its class rows into OUT.rows
classes_of() {
	if ! "$ART" classes "$1" ${2:+--maps "$2"} >"$3" 2>"$3.err"; then
		t_fail "classes $1: $(head -n 2 "$3.err")"; return 1
	fi
	field_rows "$3" >"$3.fields" && class_rows "$3.fields" >"$3.rows"
}
# unpack CAPTURE_DIR OUT: the core of a capture
unpack() { zstd -q -dc "$1/core.zst" >"$2" || { t_fail "$1: cannot decompress"; return 1; }; }

# compare_pair NAME TRIMMED_DIR FULL_DIR
compare_pair() {
	n=$1 w=$TMP/$1
	mkdir -p "$w"
	unpack "$2" "$w/trim.core" && classes_of "$w/trim.core" "$2/maps.txt" "$w/trim" || return
	rm -f "$w/trim.core"
	unpack "$3" "$w/full.core" && classes_of "$w/full.core" "$3/maps.txt" "$w/full" || return
	"$ART" info "$w/full.core" --maps "$3/maps.txt" >"$w/full.info" 2>&1
	rm -f "$w/full.core"
	awk -F '\t' '$2 == "ifields_" { print $1 "\t" $4 }' "$w/full.rows" | LC_ALL=C sort >"$w/art"
	awk -F '\t' '$2 == "dex" { print $1 "\t" $4 }' "$w/trim.rows" | LC_ALL=C sort >"$w/dex"
	cut -f1 "$w/art" >"$w/art.names"
	cut -f1 "$w/dex" >"$w/dex.names"
	LC_ALL=C comm -12 "$w/art.names" "$w/dex.names" >"$w/both"
	both=$(wc -l <"$w/both")
	LC_ALL=C join -t "$(printf '\t')" "$w/both" "$w/art" >"$w/art.both"
	LC_ALL=C join -t "$(printf '\t')" "$w/both" "$w/dex" >"$w/dex.both"
	differ=$(LC_ALL=C comm -3 "$w/art.both" "$w/dex.both" | cut -f1 | LC_ALL=C sort -u | wc -l)
	fields=$(awk -F '\t' '{ n += gsub(/ \+/, "&", $2) } END { print n + 0 }' "$w/art.both")
	printf '%s: %s classes with ArtField offsets (full capture) and LinkFields offsets (trimmed), %s fields; %s differ\n' \
		"$n" "$both" "$fields" "$differ"
	if [ "$both" -ge 300 ] && [ "$differ" -eq 0 ]; then
		t_ok "$n: LinkFields places every field of $both classes ($fields fields) where ART did"
	else
		t_fail "$n: $differ of $both classes placed otherwise: $(LC_ALL=C comm -3 "$w/art.both" "$w/dex.both" | head -n 4 | cut -c1-300)"
	fi
	layout=$(grep -m1 'layout family' "$w/full.info")
	echo "$n: $layout"
	# libart.so's own bytes hold a "dex\n035" constant: a rejected magic, not a damaged DEX
	if grep -q "^  (1 DEX magics in libraries' own bytes" "$w/full.info" && ! grep -q '^  anomaly dex ' "$w/full.info"; then
		t_ok "$n: the DEX magic in libart.so's bytes is a rejected candidate, not a dex anomaly"
	else
		t_fail "$n: DEX magics: $(grep -i 'DEX magics\|anomaly dex' "$w/full.info" | head -n 2)"
	fi
	case $n in 11-*)
		if echo "$layout" | grep -Eq 'LinkFields as 11 .*: [1-9][0-9]* classes'"'"' ArtFields fit only it, 0 fit only 12'; then
			t_ok "$n: the row's LinkFields rule settled by the ArtFields (11, not 12/13)"
		else
			t_fail "$n: no LinkFields evidence in: $layout"
		fi ;;
	esac
}

# synth_vs_real NAME SYNTH_VERSION SYNTH_HEAP REAL_ROWS REQUIRED_CLASS
synth_vs_real() {
	n=$1 w=$TMP/synth-$2
	if ! "$SYNTH" --version "$2" --bits 64 ${3:+--heap "$3"} --seed 1 --size tiny --out "$w" >/dev/null 2>"$TMP/synth.err"; then
		t_fail "synth $2: $(head -n 2 "$TMP/synth.err")"; return
	fi
	classes_of "$w/core" "$w/maps" "$w/cls" || return
	# class, its field names and types -> its offsets; same name and same fields on both sides
	awk -F '\t' '{ print $1 "|" $3 "\t" $4 }' "$w/cls.rows" | LC_ALL=C sort >"$w/syn"
	awk -F '\t' '$2 == "ifields_" { print $1 "|" $3 "\t" $4 }' "$4" | LC_ALL=C sort >"$w/real"
	cut -f1 "$w/syn" >"$w/syn.keys"
	cut -f1 "$w/real" >"$w/real.keys"
	LC_ALL=C comm -12 "$w/syn.keys" "$w/real.keys" >"$w/both"
	LC_ALL=C join -t "$(printf '\t')" "$w/both" "$w/syn" >"$w/syn.both"
	LC_ALL=C join -t "$(printf '\t')" "$w/both" "$w/real" >"$w/real.both"
	names=$(cut -d '|' -f1 "$w/both" | tr '\n' ' ')
	printf '%s: synthetic %s and the real capture share %s classes with the same fields: %s\n' \
		"$n" "$2" "$(wc -l <"$w/both")" "$names"
	if ! grep -q "^$5|" "$w/both"; then
		t_fail "$n: $5 not among the classes compared"
	elif LC_ALL=C cmp -s "$w/syn.both" "$w/real.both"; then
		t_ok "$n: the generator's $2 places every field of them as the real runtime ($(grep "^$5|" "$w/syn.both" | cut -f2))"
	else
		t_fail "$n: generator and runtime differ: $(LC_ALL=C diff "$w/syn.both" "$w/real.both" | head -n 4 | cut -c1-300)"
	fi
}

R14=$CORPUS/images/realart14 R11=$CORPUS/images/realart R11F=$CORPUS/images/realart-full R10=$CORPUS/images/realart10
if t_corpus "$R14" && t_corpus "$R11" && t_corpus "$R11F" && t_corpus "$R10"; then
	compare_pair 14-cmc "$R14/cmc-collections" "$R14/cmc-collections-full"
	compare_pair 14-cc "$R14/cc-nodes-nogc" "$R14/cc-nodes-nogc-full"
	compare_pair 11-cms "$R11/cms-collections" "$R11F/cms-collections-full"
	compare_pair 11-cc "$R11/cc-nodes-nogc" "$R11F/cc-nodes-nogc-full"
	compare_pair 10-cms "$R10/cms-collections" "$R10/cms-collections-full"
	compare_pair 10-cc "$R10/cc-nodes-nogc" "$R10/cc-nodes-nogc-full"
	synth_vs_real 14 14 cmc "$TMP/14-cmc/full.rows" Harness
	synth_vs_real 11 11 "" "$TMP/11-cms/full.rows" java.lang.DexCache
fi
t_done

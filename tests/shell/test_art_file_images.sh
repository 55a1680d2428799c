#!/bin/sh
# tier: quick
# test_art_file_images.sh - `artcarve art-file` on every ART image (.art) of the real
# corpus: the walk of the objects section ends exactly at its end, the class pointers of
# boot image components and app images resolve when the primary boot.art is in the same
# folder, the naming share is reported and is complete for the classes whose DEX is there
# (the image's own OAT, plus its VDEX from 8.0), and the decoded header fields equal the
# decoded columns of the corpus manifest.tsv.
. "$(dirname "$0")/lib.sh"

ARTDIR=$CORPUS/art
t_corpus "$ARTDIR" || { t_done; exit; }

# value of "  key: v" at the given indentation from a report
field() { sed -n "s/^$2$1: //p" "$3" | head -n 1; }
# numeric value (decimal or 0x hex) of a manifest/report token
num() { printf '%d' "$1" 2>/dev/null || echo "bad:$1"; }

# the image's own DEX should be present: its OAT is there (holding the dex before image 043,
# 8.0), and from 043 on a VDEX that embeds dex files (the VDEX reader says so; the 10/11
# VDEX files of the corpus keep verifier deps only)
own_dex_expected() {
	f=$1 v=$2 stem=${1%.art}
	[ -f "$stem.oat" ] || [ -f "$stem.odex" ] || return 1
	[ "$v" -lt 43 ] && return 0
	[ -f "$stem.vdex" ] && "$ART" art-file "$stem.vdex" 2>/dev/null | grep -q '^dex_embedded: yes'
}

files=0
for f in "$ARTDIR"/*/*.art; do
	[ -f "$f" ] || continue
	files=$((files + 1))
	rel=${f#"$ARTDIR"/}
	out=$TMP/out.txt
	if ! "$ART" art-file "$f" >"$out" 2>"$TMP/err.txt"; then
		t_fail "$rel: art-file failed: $(cat "$TMP/err.txt")"
		continue
	fi
	v=$(field version "" "$out")
	# walk: ends exactly at the objects section end, every object checked in the live bitmap
	end=$(field end "  " "$out") oend=$(field objects_end "  " "$out") objs=$(field objects "  " "$out")
	bm=$(field bitmap_checked "  " "$out")
	if [ "$(field exact "  " "$out")" = yes ] && [ -n "$end" ] && [ "$end" = "$oend" ] && [ "$objs" -gt 0 ] &&
		[ "$bm" = "$objs" ]; then
		t_ok "$rel: walk of $objs objects ends exactly at the objects section end $oend"
	else
		t_fail "$rel: walk end $end, objects end $oend, objects $objs, bitmap-checked $bm"
	fi
	# class pointers: components and app images resolve fully next to their primary boot.art
	outside=$(field class_pointers_outside "  " "$out") kinds=$(field classes_outside "  " "$out")
	dir=${f%/*}
	if [ "${f##*/}" != boot.art ] && [ -f "$dir/boot.art" ] &&
		[ "$(head -c 7 "$dir/boot.art" | tail -c 3)" = "$v" ]; then
		if [ "$outside" = 0 ]; then
			t_ok "$rel: all $objs class pointers resolve (primary boot.art present)"
		else
			t_fail "$rel: $outside class pointers ($kinds classes) outside the loaded images"
		fi
	else
		t_ok "$rel: $outside of $objs class pointers point at $kinds classes of images not in the folder (reported)"
	fi
	# naming: share reported; every class whose DEX was found is named; own DEX found when present
	total=$(field total "  " "$out") named=$(field named "  " "$out") share=$(field share_named "  " "$out")
	backed=$(field dex_backed "  " "$out") bnamed=$(field dex_backed_named "  " "$out")
	own=$(field own_dex "  " "$out") ownf=$(field own_dex_found "  " "$out")
	mism=$(field name_field_mismatched "  " "$out")
	if [ -n "$share" ] && [ "$backed" = "$bnamed" ] && [ "$mism" = 0 ]; then
		t_ok "$rel: classes named $named/$total ($share), $bnamed/$backed through the dex"
	else
		t_fail "$rel: named $named/$total ($share), dex-backed $bnamed/$backed, name_ mismatches $mism"
	fi
	if own_dex_expected "$f" "$v"; then
		if [ "$own" = "$ownf" ] && [ "$own" -gt 0 ]; then
			t_ok "$rel: own DEX present: $ownf/$own dex files found, $bnamed/$backed dex-backed classes named"
		else
			t_fail "$rel: own DEX present but $ownf/$own dex files found ($bnamed/$backed named)"
		fi
	fi
	# header fields against manifest.tsv's decoded columns
	line=$(awk -F '\t' -v k="$rel" '$1 == k' "$ARTDIR/manifest.tsv")
	mver=$(printf '%s' "$line" | cut -f8)
	[ "$mver" = "$v" ] && t_ok "$rel: version $v = manifest" || t_fail "$rel: version $v, manifest '$mver'"
	pairs=$(printf '%s' "$line" | cut -f9 | grep -o "'[a-z_]*': '*[0-9a-fx]*" | tr -d "' ")
	checked=0 bad=
	for p in $pairs; do
		key=${p%%:*} want=${p#*:}
		got=$(field "$key" "  " "$out")
		if [ "$(num "$got")" = "$(num "$want")" ]; then checked=$((checked + 1)); else bad="$bad $key=$got(manifest $want)"; fi
	done
	if [ -z "$bad" ] && [ "$checked" -ge 5 ]; then
		t_ok "$rel: $checked header fields equal manifest.tsv"
	else
		t_fail "$rel: header fields differ from manifest.tsv:$bad ($checked equal)"
	fi
done
[ "$files" -ge 20 ] && t_ok "$files image files in the corpus" || t_fail "only $files image files found"

# JSON has the same keys
f=$ARTDIR/a7.0_art029_arm_mt6580-shelly/boot-conscrypt.art
if [ -f "$f" ]; then
	"$ART" art-file --json "$f" >"$TMP/j.json"
	grep -q '"exact": true' "$TMP/j.json" && grep -q '"share_named": "100.0%"' "$TMP/j.json" &&
		grep -q '"kind": "art"' "$TMP/j.json" && t_ok "json report" || t_fail "json report: $(head -c 300 "$TMP/j.json")"
	# every class of conscrypt is named through its own DEX, and deterministically
	if "$ART" art-file "$f" >"$TMP/a" 2>"$TMP/err" && "$ART" art-file "$f" >"$TMP/b" 2>>"$TMP/err"; then
		t_same "deterministic output" "$TMP/a" "$TMP/b"
	else
		t_fail "art-file $(basename "$f") (twice): $(head -n 2 "$TMP/err")"
	fi
	n=$(field by_dex "  " "$TMP/a") total=$(field total "  " "$TMP/a")
	[ "$n" = "$total" ] && [ "$n" -gt 0 ] && t_ok "conscrypt: all $n classes named through its own dex" ||
		t_fail "conscrypt: $n of $total classes named through the dex"
fi
t_done

#!/bin/sh
# test_image_forms.sh - every container form of the same process image loads to the same
# regions and bytes.  For each real capture in $CORPUS/images/realart/*/ the ELF core is
# decompressed into $TMP and rewritten by build/tools/img_split (its own ELF parsing) as a
# maps + region-files directory, a memfetch dump, a Volatility 2 and a Volatility 3 dump;
# `artcarve info --json --hash` of each (names from the capture's maps.txt) must equal that
# of the core, region by region, FNV-1a hash of the captured bytes included.  The core's
# segments must also match truth.json (bounds, protection) and, joined with maps.txt, carry
# the ART mapping names ("[anon:dalvik-NAME]").  The same runs on the generated core of
# tests/tools/img_coregen.h, where Volatility 2 (whose files give no end) must differ
# exactly by the region whose tail the core did not capture.
. "$(dirname "$0")/lib.sh"
SPLIT=$PWD/build/tools/img_split

# info --json without container, path and the cut_* totals (a directory form's file shorter
# than its region is counted as cut short, test_image_partial.sh; the generated core's
# uncaptured tails, p_filesz < p_memsz, are no cut)
strip_json() { grep -v '^  "container"\|^  "path"' "$1" | sed 's/, "cut_bytes": [^}]*}/}/'; }

# forms_same LABEL CORE MAPS FORM...: info of each form equals info of the core
forms_same() {
	label=$1 core=$2 maps=$3; shift 3
	"$ART" info --image-only --json --hash "$core" --maps "$maps" >"$TMP/core.json" || { t_fail "$label: info core"; return; }
	strip_json "$TMP/core.json" >"$TMP/want.json"
	for form in "$@"; do
		rm -rf "$TMP/$form"
		if ! "$SPLIT" "$core" "$maps" "$form" "$TMP/$form"; then t_fail "$label: img_split $form"; continue; fi
		if ! "$ART" info --image-only --json --hash "$TMP/$form" --maps "$maps" >"$TMP/$form.json" 2>"$TMP/err"; then
			t_fail "$label: info $form: $(cat "$TMP/err")"; continue
		fi
		c=$(sed -n 's/^  "container": "\(.*\)",$/\1/p' "$TMP/$form.json")
		strip_json "$TMP/$form.json" >"$TMP/got.json"
		t_same "$label: $form ($c) regions and bytes" "$TMP/got.json" "$TMP/want.json"
	done
}

t_need zstd jq || { t_done; exit; }

n=0
t_corpus "$CORPUS/images/realart" &&
for dir in "$CORPUS"/images/realart/*/; do
	[ -f "$dir/core.zst" ] || continue
	name=$(basename "$dir")
	n=$((n + 1))
	core=$TMP/core
	rm -f "$core"
	zstd -dq "$dir/core.zst" -o "$core" || { t_fail "$name: zstd"; continue; }

	# the core alone: one region per PT_LOAD of truth.json, same bounds and protection
	"$ART" info --image-only --json "$core" >"$TMP/plain.json" || t_fail "$name: info core"
	jq -r '.core.segments[] | "\(.vaddr) \(.size) \(.flags)"' "$dir/truth.json" >"$TMP/want.txt"
	jq -r '.regions[] | "\(.start) \(.captured) \(.prot)"' "$TMP/plain.json" >"$TMP/got.txt"
	t_same "$name: core segments match truth.json" "$TMP/got.txt" "$TMP/want.txt"

	# joined with maps.txt: every captured region carries its ART mapping name
	"$ART" info --image-only --json "$core" --maps "$dir/maps.txt" >"$TMP/named.json" || t_fail "$name: info --maps"
	jq -r '.core.segments[] | "\(.vaddr) [anon:dalvik-\(.name)]"' "$dir/truth.json" >"$TMP/want.txt"
	jq -r '.regions[] | select(.captured > 0) | "\(.start) \(.name)"' "$TMP/named.json" >"$TMP/got.txt"
	t_same "$name: names from maps.txt" "$TMP/got.txt" "$TMP/want.txt"
	lines=$(grep -c . "$dir/maps.txt")
	regions=$(jq '.totals.regions' "$TMP/named.json")
	if [ "$regions" -ge "$lines" ]; then t_ok "$name: $regions regions cover the $lines maps lines"
	else t_fail "$name: $regions regions for $lines maps lines"; fi

	forms_same "$name" "$core" "$dir/maps.txt" maps-dir memfetch vol2 vol3

	# a maps.txt beside a Volatility dump is picked up without --maps
	cp "$dir/maps.txt" "$TMP/vol3/maps.txt"
	if "$ART" info --image-only --json --hash "$TMP/vol3" >"$TMP/own.json" 2>"$TMP/err"; then
		strip_json "$TMP/own.json" >"$TMP/got.json"
		t_same "$name: vol3 with its own maps.txt" "$TMP/got.json" "$TMP/want.json"
	else
		t_fail "$name: info of vol3 with its own maps.txt: $(head -n 2 "$TMP/err")"
	fi
	rm -rf "$TMP"/core "$TMP"/maps-dir "$TMP"/memfetch "$TMP"/vol2 "$TMP"/vol3
done
if [ "$n" -gt 0 ]; then t_ok "$n real captures"
elif [ "$NO_CORPUS" = 0 ]; then t_fail "no real captures under $CORPUS/images/realart"; fi

# the generated core: partial capture (p_memsz > p_filesz), NT_FILE names, abutting segments
"$SPLIT" --mkcore 4096 "$TMP/gen.core" "$TMP/gen.maps" || t_fail "mkcore"
forms_same generated "$TMP/gen.core" "$TMP/gen.maps" maps-dir memfetch vol3
rm -rf "$TMP/vol2"
"$SPLIT" "$TMP/gen.core" "$TMP/gen.maps" vol2 "$TMP/vol2"
"$ART" info --image-only --json --hash "$TMP/vol2" --maps "$TMP/gen.maps" >"$TMP/vol2.json"
strip_json "$TMP/vol2.json" >"$TMP/got.json"
d=$(diff "$TMP/want.json" "$TMP/got.json" | grep -c '^[<>]')
# the region with the uncaptured tail is one region in the core, two (captured head, then
# a maps-only tail) in Volatility 2, and the totals line differs by that region
if [ "$d" -eq 5 ] && grep -q '"start": "0x12c0d000", "end": "0x12c0e000", "prot": "rw-", "captured": 0' "$TMP/got.json"; then
	t_ok "generated: vol2 differs only by the uncaptured tail"
else t_fail "generated: vol2 differs in $d lines"; diff "$TMP/want.json" "$TMP/got.json"; fi
"$ART" info --image-only "$TMP/gen.core" >"$TMP/gen.txt" || t_fail "generated: info text"
grep -q '^  0000000012c00000-0000000012c02000 r-x         8192 /system/bin/app_process64$' "$TMP/gen.txt" &&
	t_ok "generated: NT_FILE name without --maps" || t_fail "generated: NT_FILE name: $(cat "$TMP/gen.txt")"
# a mapping name with bytes that are no UTF-8 (0xff 0xfe): info --json stays valid JSON, the
# bytes as U+FFFD (one escaper for every JSON output)
sed '1s/$/ \xff\xfe/' "$TMP/gen.maps" >"$TMP/bad.maps"
if "$ART" info --image-only --json "$TMP/gen.core" --maps "$TMP/bad.maps" >"$TMP/bad.json" 2>"$TMP/err" &&
	name=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["regions"][0]["name"].encode("unicode_escape").decode())' "$TMP/bad.json" 2>"$TMP/err") &&
	case $name in *'\ufffd\ufffd') true ;; *) false ;; esac; then
	t_ok "info --json with 0xff 0xfe in a mapping name: valid JSON, name ends in $name"
else
	t_fail "info --json with 0xff 0xfe in a mapping name: $(head -c 300 "$TMP/err") $(head -c 300 "$TMP/bad.json")"
fi
t_done

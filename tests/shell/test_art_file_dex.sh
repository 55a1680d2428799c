#!/bin/sh
# tier: quick
# test_art_file_dex.sh - golden test of `art-file` on the real corpus ($CORPUS/art):
#  1. every DEX (the .dex files, and every DEX inside the VDEX/OAT/ODEX files, written out
#     with --extract-dex) has the same string/type/proto/field/method/class counts as
#     Debian's `dexdump -f` reports for the same extracted file, and the counts art-file
#     printed for the container equal those of the extracted file;
#  2. every OAT/ODEX/VDEX decodes, and its kind, version, ELF class/machine, oatdata offset,
#     ISA and key/value pairs equal the fields manifest.tsv decoded (values there are cut
#     at 120 characters: compared as prefixes);
#  3. the number of DEX files extracted equals the dex count the file declares when the
#     DEX bytes are in the file (OAT < 124 or a VDEX with embedded dex files).
. "$(dirname "$0")/lib.sh"
ART_DIR=$CORPUS/art
t_corpus "$ART_DIR" && t_need dexdump || { t_done; exit; }

COUNT_KEYS="strings types protos fields methods classes"

# "strings N" ... from dexdump -f (-i: DEX files in a VDEX are quickened, checksum differs)
dexdump_counts() {
	dexdump -i -f "$1" 2>/dev/null | sed -n \
		-e 's/^string_ids_size *: \([0-9]*\)$/strings \1/p' -e 's/^type_ids_size *: \([0-9]*\)$/types \1/p' \
		-e 's/^proto_ids_size *: \([0-9]*\)$/protos \1/p' -e 's/^field_ids_size *: \([0-9]*\)$/fields \1/p' \
		-e 's/^method_ids_size *: \([0-9]*\)$/methods \1/p' -e 's/^class_defs_size *: \([0-9]*\)$/classes \1/p'
}
# the same keys from an art-file text report (any indentation), in report order
art_counts() {
	sed -n 's/^ *\(strings\|types\|protos\|fields\|methods\|classes\): \([0-9]*\)$/\1 \2/p' "$1"
}

n=0
for f in "$ART_DIR"/*/*.dex "$ART_DIR"/*/*.vdex "$ART_DIR"/*/*.oat "$ART_DIR"/*/*.odex; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	name=${f#"$ART_DIR"/}
	out=$TMP/$n
	mkdir -p "$out/dex"
	if ! "$ART" art-file --extract-dex "$out/dex" "$f" >"$out/report.txt" 2>"$out/err.txt"; then
		t_fail "$name: art-file failed: $(cat "$out/err.txt")"; continue
	fi
	# (3) extracted count versus the declared count
	declared=$(sed -n 's/^\(dex_count\|dex_file_count\): \([0-9]*\)$/\2/p' "$out/report.txt")
	embedded=yes
	grep -q '^dex_embedded: no$' "$out/report.txt" && embedded=no
	grep -q 'dex_in: apk/jar\|dex_in: vdex' "$out/report.txt" && ! grep -q '^ *extracted:' "$out/report.txt" && embedded=no
	got=$(ls "$out/dex" | wc -l)
	if [ "$embedded" = yes ] && [ -n "$declared" ] && [ "$got" -ne "$declared" ]; then
		t_fail "$name: extracted $got DEX files, the file declares $declared"
	fi
	# (1) container counts == extracted file counts == dexdump counts
	art_counts "$out/report.txt" >"$out/container.txt"
	: >"$out/extracted.txt"
	for d in $(ls "$out/dex" | sort -t- -k2 -n); do
		"$ART" art-file "$out/dex/$d" >"$out/one.txt" 2>&1 || { t_fail "$name: $d: $(cat "$out/one.txt")"; continue; }
		art_counts "$out/one.txt" >"$out/ours.txt"
		dexdump_counts "$out/dex/$d" >"$out/theirs.txt"
		if [ ! -s "$out/theirs.txt" ]; then
			t_fail "$name: $d: dexdump printed no header"
		elif cmp -s "$out/ours.txt" "$out/theirs.txt"; then
			t_ok "$name: $d: $(tr '\n' ' ' <"$out/ours.txt")= dexdump -f"
		else
			t_fail "$name: $d: art-file [$(tr '\n' ' ' <"$out/ours.txt")] dexdump [$(tr '\n' ' ' <"$out/theirs.txt")]"
		fi
		cat "$out/ours.txt" >>"$out/extracted.txt"
	done
	if [ "$got" -gt 0 ]; then
		t_same "$name: container counts equal the extracted files'" "$out/container.txt" "$out/extracted.txt"
	fi
done
[ "$n" -gt 0 ] || t_fail "no DEX/VDEX/OAT file found in $ART_DIR"

# (2) decoded fields versus manifest.tsv
MANIFEST=$ART_DIR/manifest.tsv
tab=$(printf '\t')
while IFS="$tab" read -r file repo commit src size sha kind version details; do
	case "$kind" in vdex|"oat(ELF)"|dex) ;; *) continue ;; esac
	f=$ART_DIR/$file
	[ -f "$f" ] || { t_fail "$file: listed in manifest.tsv but missing"; continue; }
	rep=$TMP/manifest.txt
	if ! "$ART" art-file "$f" >"$rep" 2>"$TMP/merr.txt"; then
		t_fail "$file: $(cat "$TMP/merr.txt")"; continue
	fi
	want_kind=$kind; [ "$kind" = "oat(ELF)" ] && want_kind=oat
	bad=""
	grep -qx "kind: $want_kind" "$rep" || bad="$bad kind"
	grep -qx "version: $version" "$rep" || bad="$bad version($version)"
	field() { printf '%s\n' "$details" | sed -n "s/.*'$1': '\([^']*\)'.*/\1/p"; }
	if [ "$want_kind" = oat ]; then
		elf=$(field elf); isa=$(field isa); od=$(field oatdata_off)
		[ -n "$elf" ] && { grep -qx "elf: $elf" "$rep" || bad="$bad elf($elf)"; }
		[ -n "$isa" ] && { grep -qx "isa: $isa" "$rep" || bad="$bad isa($isa)"; }
		[ -n "$od" ] && { grep -qx "oatdata_offset: $od" "$rep" || bad="$bad oatdata_off($od)"; }
		kvs=$(printf '%s\n' "$details" | sed -n "s/.*'kv': {\(.*\)}}$/\1/p")
		nkv=0
		printf '%s\n' "$kvs" | sed "s/', '/'\n'/g" >"$TMP/kv.txt"
		while IFS= read -r pair; do
			[ -n "$pair" ] || continue
			key=$(printf '%s' "$pair" | sed -n "s/^'\([^']*\)': '.*/\1/p")
			val=$(printf '%s' "$pair" | sed -n "s/^'[^']*': '\(.*\)'\{0,1\}$/\1/p" | sed "s/'$//")
			nkv=$((nkv + 1))
			grep -qF -- "kv: $key=$val" "$rep" && continue
			# The runtime reads pairs only inside key_value_store_size (OatHeader::
			# GetStoreValueByKey, runtime/oat.cc @ android-11.0.0_r1).  A manifest key that
			# starts exactly at the store's end, while the pairs art-file printed fill the
			# store to its last byte, was read past the store by the manifest's decoder
			# (the x86 com.android.location.provider.odex: 'n3' is the data that follows the
			# store): art-file is right to leave it out.
			kv_off=$(sed -n 's/^key_value_offset: //p' "$rep") kv_size=$(sed -n 's/^key_value_size: //p' "$rep")
			kv_end=$((kv_off + kv_size))
			kv_used=$(sed -n 's/^  kv: //p' "$rep" | LC_ALL=C awk '{ n += length($0) + 1 } END { print n + 0 }')
			if [ "$kv_used" -eq "$kv_size" ] &&
			   tail -c +$((kv_end + 1)) "$f" | head -c $((${#key} + 1)) | tr '\0' '=' | grep -qx -- "$key="; then
				t_ok "$file: manifest key '$key' starts at 0x$(printf %x $kv_end), past the store, which art-file's pairs fill ($kv_used of $kv_size bytes)"
			else
				bad="$bad kv($key; pairs use $kv_used of $kv_size bytes)"
			fi
		done <"$TMP/kv.txt"
		[ "$nkv" -gt 0 ] || [ -z "$kvs" ] || bad="$bad kv-parse"
	fi
	if [ -z "$bad" ]; then t_ok "$file: $want_kind $version matches manifest.tsv"
	else t_fail "$file: differs from manifest.tsv in:$bad"; fi
done <"$MANIFEST"
t_done

#!/bin/sh
# tier: quick
# test_boot_runtime.sh - the runtime model on boot images of real devices (Android 7.1, 9, 10;
# 32- and 64-bit) from $CORPUS/art: each set's uncompressed .art files are laid out at their
# image_begin in a maps-dir image (a listing + one file per region, built here at test time),
# then `info` must take the layout family and pointer size from the image header, and the
# classes `classes` finds inside each image must be exactly the classes that `art-file`'s
# object-by-object walk of the same file counts (an independent decoder: art/mirror/mirror_walk.c).
. "$(dirname "$0")/lib.sh"
ART_DIR=$CORPUS/art
t_corpus "$ART_DIR" && t_need jq || { t_done; exit; }

u32() { od -An -tu4 -j "$2" -N 4 "$1" | tr -d ' '; }

# build_set NAME FILE... : a maps-dir in $TMP/NAME; prints nothing, returns 1 if a file is compressed
build_set() {
	out=$TMP/$1; shift
	mkdir -p "$out"; : >"$out/maps.unsorted"
	for f in "$@"; do
		v=$(dd if="$f" bs=1 skip=4 count=3 2>/dev/null)
		case $v in 07*|08*|09*|1*) b=16 ;; *) b=8 ;; esac
		begin=$(u32 "$f" $b); size=$(u32 "$f" $((b + 4)))
		[ "$(wc -c <"$f")" -ge "$size" ] || return 1     # compressed image: not laid out here
		len=$(( (size + 4095) / 4096 * 4096 ))
		name=$(printf '%x-%x' "$begin" $((begin + len)))
		head -c "$len" "$f" >"$out/$name.bin"
		printf '%s rw-p 00000000 00:00 0 /system/framework/%s\n' "$name" "$(basename "$f")" >>"$out/maps.unsorted"
	done
	sort "$out/maps.unsorted" >"$out/maps"; rm "$out/maps.unsorted"
}

check_set() {
	set_name=$1 family=$2 ptr=$3; shift 3
	files=
	for f in "$@"; do files="$files $ART_DIR/$set_name/$f"; done
	# shellcheck disable=SC2086
	# (every set named below is stored uncompressed: a compressed file means the corpus changed)
	if ! build_set "$set_name" $files; then t_fail "$set_name: a compressed image cannot be laid out"; return; fi
	dir=$TMP/$set_name
	if ! "$ART" info "$dir" >"$dir/info" 2>&1; then t_fail "$set_name: info: $(tail -n 1 "$dir/info")"; return; fi
	if grep -q "^ART runtime: layout family $family (.*found by image header" "$dir/info" &&
	   grep -q "^pointer size: $ptr, found by image header" "$dir/info"; then
		t_ok "$set_name: layout $family and pointer size $ptr from the image header"
	else
		t_fail "$set_name: $(grep -E '^(ART runtime|pointer size)' "$dir/info" | tr '\n' ' ')"
	fi
	"$ART" classes "$dir" >"$dir/classes" 2>"$dir/classes.err" || { t_fail "$set_name: classes: $(cat "$dir/classes.err")"; return; }
	for f in "$@"; do
		p=$ART_DIR/$set_name/$f
		line=$(grep " /system/framework/$f\$" "$dir/maps")
		lo=$((0x${line%%-*})); rest=${line#*-}; hi=$((0x${rest%% *}))
		mine=$(awk -v lo=$lo -v hi=$hi '$1 == "class" { a = 0; h = substr($2, 3)
			for (i = 1; i <= length(h); i++) a = a * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			if (a >= lo && a < hi) n++ } END { print n + 0 }' "$dir/classes")
		walk=$("$ART" art-file "$p" 2>/dev/null | sed -n '/^walk:/,/^[a-z]/s/^  classes: //p' | head -n 1)
		if [ -n "$walk" ] && [ "$mine" = "$walk" ]; then
			t_ok "$set_name/$f: $mine classes, as art-file's object walk"
		else
			t_fail "$set_name/$f: classes finds $mine classes, art-file's walk '${walk:-nothing}'"
		fi
	done
	named=$(grep -c '^class 0x[0-9a-f]* [^-]' "$dir/classes"); total=$(grep -c '^class ' "$dir/classes")
	echo "# $set_name: $total classes, $named named (no DEX in the set: names from name_, primitive and component types)"
}

check_set a10_art074_arm64_samsung-a8s 10 8 boot.art boot-core-libart.art
check_set a10_art074_arm_samsung-a8s 10 4 boot.art
check_set a9_art056_arm64_lineage16-eify 9 8 boot.art boot-core-libart.art
check_set a9_art056_arm_lineage16-eify 9 4 boot.art
check_set a7.1.1_art030_arm64_nextbit-robin 7.1 8 boot.art boot-core-libart.art boot-core-junit.art
check_set a7.1.1_art030_arm_nextbit-robin 7.1 4 boot.art
# command-line behaviour on the sets built above and on an image without ART
d10=$TMP/a10_art074_arm64_samsung-a8s
"$ART" classes >/dev/null 2>&1; t_check "classes without IMAGE: exit 2" [ $? -eq 2 ]
"$ART" classes "$d10" --art-version 4.4 >/dev/null 2>"$TMP/err"; rc=$?
if [ $rc -eq 2 ] && grep -q "known layout families" "$TMP/err"; then t_ok "unknown --art-version: exit 2, families named"
else t_fail "unknown --art-version: exit $rc: $(cat "$TMP/err")"; fi
"$ART" classes "$d10" --art-version 11 >/dev/null 2>"$TMP/err"; rc=$?
t_check "an Android 10 image read as 11: refused (exit 1), not misread" [ $rc -eq 1 ]
mkdir -p "$TMP/plain"
head -c 65536 /dev/zero | tr '\0' 'x' >"$TMP/plain/10000000-10010000.bin"
echo "10000000-10010000 rw-p 00000000 00:00 0 [anon:something]" >"$TMP/plain/maps"
"$ART" classes "$TMP/plain" >/dev/null 2>"$TMP/err"; rc=$?
t_check "classes on an image without ART: exit 1 ($(cat "$TMP/err"))" [ $rc -eq 1 ]
"$ART" info "$TMP/plain" >"$TMP/out" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "^ART runtime: not found" "$TMP/out"; then t_ok "info on an image without ART: exit 0, says so"
else t_fail "info on an image without ART: exit $rc"; fi
if "$ART" info --json "$d10" >"$TMP/json" 2>&1 &&
   jq -e '.art.layout == "10" and .classes.count == 2844 and (.boot_images | length) == 2' "$TMP/json" >/dev/null; then
	t_ok "info --json: one JSON object with the ART keys"
else
	t_fail "info --json: $(head -c 300 "$TMP/json")"
fi
t_done

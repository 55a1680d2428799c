#!/bin/sh
# tier: quick
# test_walk_boot.sh - the image-space walker on boot images of real devices (Android 7.1, 9,
# 10; 32- and 64-bit) from $CORPUS/art, laid out at their image_begin in a maps-dir image as
# tests/shell/test_boot_runtime.sh does, each with its live bitmap mapped as ImageSpace maps
# it ("imagespace <file> live-bitmap <n>", the bitmap section of the file): per image, `artcarve walk --objects` must yield as
# many image candidates as `art-file`'s object-by-object walk of the same file counts
# (art/mirror/mirror_walk.c, an independent walk over the file), with no anomaly.  Objects
# whose class lives in a boot image component the set leaves out are sized by the bitmap.
. "$(dirname "$0")/lib.sh"
ART_DIR=$CORPUS/art
t_corpus "$ART_DIR" || { t_done; exit; }

u32() { od -An -tu4 -j "$2" -N 4 "$1" | tr -d ' '; }

# build_set NAME FILE... : a maps-dir in $TMP/NAME; returns 1 if a file is compressed
build_set() {
	out=$TMP/$1; shift
	mkdir -p "$out"; : >"$out/maps.unsorted"; n=0
	for f in "$@"; do
		v=$(dd if="$f" bs=1 skip=4 count=3 2>/dev/null)
		case $v in 07*|08*|09*|1*) b=16 ;; *) b=8 ;; esac
		begin=$(u32 "$f" $b); size=$(u32 "$f" $((b + 4)))
		[ "$(wc -c <"$f")" -ge "$size" ] || return 1
		len=$(( (size + 4095) / 4096 * 4096 ))
		name=$(printf '%x-%x' "$begin" $((begin + len)))
		head -c "$len" "$f" >"$out/$name.bin"
		printf '%s rw-p 00000000 00:00 0 /system/framework/%s\n' "$name" "$(basename "$f")" >>"$out/maps.unsorted"
		# the image's live bitmap, as ImageSpace maps it: "imagespace <file> live-bitmap <n>"
		bo=$("$ART" art-file "$f" 2>/dev/null | sed -n '/^live_bitmap:/,/^[a-z]/s/^  file_offset: //p')
		bs=$("$ART" art-file "$f" 2>/dev/null | sed -n '/^live_bitmap:/,/^[a-z]/s/^  size: //p')
		if [ -n "$bo" ] && [ -n "$bs" ]; then
			bva=$((0x7f0000000000 + n * 0x1000000)); n=$((n + 1))
			blen=$(( (bs + 4095) / 4096 * 4096 ))
			bname=$(printf '%x-%x' "$bva" $((bva + blen)))
			{ dd if="$f" bs=4096 skip=$((bo / 4096)) count=$((blen / 4096)) 2>/dev/null; head -c "$blen" /dev/zero; } |
				head -c "$blen" >"$out/$bname.bin"
			printf '%s rw-p 00000000 00:00 0 [anon:dalvik-imagespace /system/framework/%s live-bitmap %d]\n' \
				"$bname" "$(basename "$f")" "$n" >>"$out/maps.unsorted"
		fi
	done
	sort "$out/maps.unsorted" >"$out/maps"; rm "$out/maps.unsorted"
}

check_set() {
	set_name=$1; shift
	files=
	for f in "$@"; do files="$files $ART_DIR/$set_name/$f"; done
	# shellcheck disable=SC2086
	if ! build_set "$set_name" $files; then t_fail "$set_name: a compressed image cannot be laid out"; return; fi
	dir=$TMP/$set_name
	if ! "$ART" walk --objects "$dir" >"$dir/walk" 2>"$dir/walk.err"; then
		t_fail "$set_name: walk: $(head -n 1 "$dir/walk.err")"; return
	fi
	an=$(sed -n 's/^anomalies: //p' "$dir/walk")
	[ "$an" = 0 ] && t_ok "$set_name: walk records no anomaly" || t_fail "$set_name: $an anomalies: $(grep '^  anomaly' "$dir/walk" | head -n 3)"
	for f in "$@"; do
		line=$(grep " /system/framework/$f\$" "$dir/maps")
		begin=0x${line%%-*}
		mine=$(awk -v b="$begin" '$1 == "object" && $5 == "image" && $6 == "where=" b' "$dir/walk" | wc -l)
		theirs=$("$ART" art-file "$ART_DIR/$set_name/$f" 2>/dev/null | sed -n '/^walk:/,/^[a-z]/s/^  objects: //p' | head -n 1)
		if [ -n "$theirs" ] && [ "$mine" -eq "$theirs" ]; then t_ok "$set_name/$f: $mine objects, as art-file's walk"
		else t_fail "$set_name/$f: walk yields $mine image objects, art-file's walk '${theirs:-nothing}'"; fi
	done
}

check_set a10_art074_arm64_samsung-a8s boot.art boot-core-libart.art
check_set a10_art074_arm_samsung-a8s boot.art
check_set a9_art056_arm64_lineage16-eify boot.art boot-core-libart.art
check_set a9_art056_arm_lineage16-eify boot.art
check_set a7.1.1_art030_arm64_nextbit-robin boot.art boot-core-libart.art boot-core-junit.art
check_set a7.1.1_art030_arm_nextbit-robin boot.art
t_done

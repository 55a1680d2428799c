#!/bin/sh
# test_sparse_image.sh - holes cost nothing and change nothing (issue 24): the image layer
# finds the data runs of its input files with SEEK_DATA / SEEK_HOLE and the content scans
# skip the holes, which must not change a byte of what is carved.
#  1. realart14 cmc-collections-full (2.3 GB apparent, mostly holes) decompressed sparse
#     (zstd --sparse) and dense (--no-sparse): heap.hprof and objects.jsonl identical.
#     The SHA-256 of the sparse core that case.db records (its holes hashed unread) is
#     sha256sum's.
#  2. the Android 14 CMC sample rewritten as a maps-dir (build/tools/img_split, sparse region
#     files), then the same with a 4 GiB region between its heap mappings whose file is a
#     hole between a page of text at each end: heap.hprof and objects.jsonl identical, `info`
#     lists the region, case.db's SHA-256 of its file is sha256sum's; and the hole costs
#     nothing: the carve with it takes at most 1,024 more minor page faults (4 MiB of pages;
#     reading the hole would take >= 65,536 even at 64 KiB a fault) than the one without.
# Times are not checked here (bench/carve.sh prints them): page faults are, as they do not
# depend on the machine's load.
. "$(dirname "$0")/lib.sh"
t_need zstd sqlite3 sha256sum || { t_done; exit; }
[ -x /usr/bin/time ] || { t_fail "not installed: /usr/bin/time (package time; make deps installs it)"; t_done; exit; }
SPLIT=$PWD/build/tools/img_split
C=$CORPUS/images/realart14/cmc-collections-full

# apparent and allocated size of a file, for the log
sizes() { echo "$(stat -c %s "$1") bytes apparent, $(( $(stat -c '%b * %B' "$1") )) allocated"; }
# same_digest NAME CASE_DB FILE: the SHA-256 case.db records for FILE is sha256sum's
same_digest() {
	got=$(sqlite3 -batch "$2" "SELECT sha256 FROM inputs WHERE path = '$3'")
	want=$(sha256sum "$3" | cut -c1-64)
	echo "# $1: case.db $got, sha256sum $want"
	t_check "$1: case.db's SHA-256 is sha256sum's" [ -n "$got" ] && [ "$got" = "$want" ]
}

if t_corpus "$C/core.zst"; then
	zstd -q -d -f --sparse "$C/core.zst" -o "$TMP/sparse.core" &&
		zstd -q -d -f --no-sparse "$C/core.zst" -o "$TMP/dense.core" || t_fail "cmc-collections-full: cannot decompress"
	echo "# sparse core: $(sizes "$TMP/sparse.core"); dense core: $(sizes "$TMP/dense.core")"
	for k in sparse dense; do
		skip=bmd,report,strings
		[ "$k" = sparse ] || skip=$skip,db
		"$ART" carve "$TMP/$k.core" --maps "$C/maps.txt" -q -o "$TMP/out-$k" --skip "$skip" \
			>/dev/null 2>"$TMP/err-$k" || t_fail "cmc-collections-full $k: carve failed: $(head -c 300 "$TMP/err-$k")"
	done
	rm -f "$TMP/dense.core"
	same_digest "cmc-collections-full sparse core" "$TMP/out-sparse/case.db" "$TMP/sparse.core"
	echo "# comparing out-sparse/heap.hprof ($(wc -c <"$TMP/out-sparse/heap.hprof") bytes) with out-dense/heap.hprof"
	t_same "cmc-collections-full sparse heap.hprof" "$TMP/out-sparse/heap.hprof" "$TMP/out-dense/heap.hprof"
	t_same "cmc-collections-full sparse objects.jsonl" "$TMP/out-sparse/objects.jsonl" "$TMP/out-dense/objects.jsonl"
	rm -rf "$TMP/sparse.core" "$TMP/out-sparse" "$TMP/out-dense"
fi

# 2. a 4 GiB hole in a synthetic image
S=$PWD/samples/android14-64bit-cmc
if [ ! -x "$SPLIT" ]; then
	t_fail "build/tools/img_split not built (make all)"
else
	"$SPLIT" "$S/core" "$S/maps" maps-dir "$TMP/md" || t_fail "img_split maps-dir"
	cp -r "$TMP/md" "$TMP/md-hole"
	hole=7000000000-7100000000    # between the non-moving space and the native heap: unused
	{ cat "$S/maps"; echo "$hole rw-p 00000000 00:00 0"; } | sort >"$TMP/md-hole/maps"
	# a page of text at each end (no pointer, nothing to carve), a hole between
	for at in 0 1048575; do
		yes artcarve | head -c 4096 | dd of="$TMP/md-hole/$hole.bin" bs=4096 seek=$at conv=notrunc status=none
	done
	echo "# $hole.bin: $(sizes "$TMP/md-hole/$hole.bin")"
	for k in md md-hole; do
		/usr/bin/time -f '%R' -o "$TMP/faults-$k" "$ART" carve "$TMP/$k" --include residue -q -o "$TMP/out-$k" \
			--skip bmd,report,strings >/dev/null 2>"$TMP/err-$k" ||
			t_fail "$k: carve failed: $(head -c 300 "$TMP/err-$k")"
	done
	f0=$(tail -n 1 "$TMP/faults-md") f1=$(tail -n 1 "$TMP/faults-md-hole")
	echo "# minor page faults: $f0 without the 4 GiB hole, $f1 with it"
	t_check "4 GiB hole: at most 1,024 more page faults ($f1 vs $f0)" [ "$f1" -le $((f0 + 1024)) ]
	regions() { "$ART" info "$1" 2>/dev/null | grep -c "$2" || true; }
	n=$(regions "$TMP/md-hole" 7000000000)
	echo "# info lists the 4 GiB region on $n line(s)"
	t_check "the 4 GiB hole region is loaded" [ "$n" -ge 1 ]
	# the two images differ (the hole's region): the outputs record each one's SHA-256
	unsha() {   # DIR FILE: FILE of DIR with its image's SHA-256 (manifest.json) as IMAGE
		LC_ALL=C sed "s/$(jq -r .image.sha256 "$1/manifest.json")/IMAGE/g" "$1/$2" >"$1/$2.unsha"
	}
	for k in md md-hole; do unsha "$TMP/out-$k" heap.hprof; unsha "$TMP/out-$k" objects.jsonl; done
	echo "# comparing out-md-hole/heap.hprof ($(wc -c <"$TMP/out-md-hole/heap.hprof") bytes) with out-md/heap.hprof, each image's SHA-256 aside"
	t_same "4 GiB hole: heap.hprof" "$TMP/out-md-hole/heap.hprof.unsha" "$TMP/out-md/heap.hprof.unsha"
	t_same "4 GiB hole: objects.jsonl" "$TMP/out-md-hole/objects.jsonl.unsha" "$TMP/out-md/objects.jsonl.unsha"
	same_digest "4 GiB hole" "$TMP/out-md-hole/case.db" "$TMP/md-hole/$hole.bin"
fi
t_done

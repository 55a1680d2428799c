#!/bin/sh
# test_carve_threads.sh - `carve --threads N` writes the same bytes as `--threads 1` (issue 24):
# every output (heap.hprof, heap.bmd, objects.jsonl, strings.tsv byte for byte, report.html
# but its command line and time of analysis, case.db's `.dump` but its runs row) of the four
# samples and of two real whole-process captures (realart14 cmc-collections-full, sparse;
# realart-full cc-nodes-nogc-full), with
# --threads 1 and 2 (2: the input hashes taken beside the model's build and walk, model_finish's
# reference check and reach_doubt's DEX-literal search in two parts on two threads where the
# model has 2,048 objects or more: the real captures, then the writers on two threads,
# heap.hprof's SHA-256 on a thread of its own), and 8 on one sample (more
# threads than jobs); with --skip hprof (heap.bmd then writes its own HPROF on its thread) on one
# sample; manifest.json's digest of heap.hprof (hashed as written) checked against sha256sum in
# every run; --threads 0 is a usage error.
. "$(dirname "$0")/lib.sh"
t_need sqlite3 zstd || { t_done; exit; }

# compare NAME DIR1 DIR2: every output of DIR2 is DIR1's
compare() {
	n=0
	for f in heap.hprof heap.bmd objects.jsonl strings.tsv report.html; do
		[ -f "$2/$f" ] || [ -f "$3/$f" ] || continue
		if [ "$f" = report.html ]; then   # but for its command line and time of analysis
			grep -v 'data-prov="time"\|data-prov="argv"' "$2/$f" >"$TMP/r1"
			grep -v 'data-prov="time"\|data-prov="argv"' "$3/$f" >"$TMP/r2"
			t_same "$1 $f (its command line and time of analysis aside)" "$TMP/r2" "$TMP/r1"
		else
			t_same "$1 $f" "$3/$f" "$2/$f"
		fi
		n=$((n + 1))
	done
	if [ -f "$2/case.db" ]; then
		sqlite3 "$2/case.db" .dump | grep -v '^INSERT INTO runs ' >"$TMP/d1"
		sqlite3 "$3/case.db" .dump | grep -v '^INSERT INTO runs ' >"$TMP/d2"
		t_same "$1 case.db .dump ($(wc -l <"$TMP/d1") lines, the runs row aside)" "$TMP/d2" "$TMP/d1"
		n=$((n + 1))
	fi
	echo "# $1: $n outputs compared"
	manifest_hprof "$1, its --threads 1 run" "$2"
	manifest_hprof "$1" "$3"
}

# manifest_hprof NAME DIR: manifest.json's SHA-256 of heap.hprof (hashed as written: inline
# with --threads 1, on the hashing thread with more) is sha256sum's of the file
manifest_hprof() {
	[ -f "$2/heap.hprof" ] || return 0
	got=$(grep '"file": "heap.hprof"' "$2/manifest.json" | sed -n 's/.*"sha256": "\([0-9a-f]*\)".*/\1/p')
	want=$(sha256sum "$2/heap.hprof" | cut -d' ' -f1)
	echo "# $1: manifest.json heap.hprof $got, sha256sum $want"
	t_check "$1: manifest.json's SHA-256 of heap.hprof is the file's" [ "$got" = "$want" ]
}

# carve_t NAME OUT THREADS IMAGE [ARGS...]: a carve that must succeed
carve_t() {
	name=$1 out=$2 threads=$3
	shift 3
	"$ART" carve "$@" -q -o "$out" --threads "$threads" >"$TMP/sum" 2>"$TMP/err" ||
		t_fail "$name --threads $threads: carve failed: $(head -c 300 "$TMP/err")"
}

for s in android6.0-32bit android7.1-64bit android11-64bit android14-64bit-cmc; do
	S=$PWD/samples/$s
	carve_t "$s" "$TMP/$s-1" 1 "$S/core" --maps "$S/maps"
	carve_t "$s" "$TMP/$s-2" 2 "$S/core" --maps "$S/maps"
	compare "$s --threads 2" "$TMP/$s-1" "$TMP/$s-2"
done
S=$PWD/samples/android11-64bit
carve_t android11-64bit "$TMP/t8" 8 "$S/core" --maps "$S/maps"
compare "android11-64bit --threads 8" "$TMP/android11-64bit-1" "$TMP/t8"
for t in 1 2; do
	carve_t "android11-64bit --skip hprof" "$TMP/nohprof-$t" "$t" "$S/core" --maps "$S/maps" --skip hprof
done
t_check "--skip hprof: no heap.hprof written" [ ! -e "$TMP/nohprof-2/heap.hprof" ]
compare "android11-64bit --skip hprof --threads 2" "$TMP/nohprof-1" "$TMP/nohprof-2"
rm -rf "$TMP"/android* "$TMP"/t8 "$TMP"/nohprof-*

for c in realart14/cmc-collections-full realart-full/cc-nodes-nogc-full; do
	C=$CORPUS/images/$c
	t_corpus "$C/core.zst" || continue
	zstd -q -d -f --sparse "$C/core.zst" -o "$TMP/core" || t_fail "$c: cannot decompress"
	for t in 1 2; do
		carve_t "$c" "$TMP/real-$t" "$t" "$TMP/core" --maps "$C/maps.txt"
	done
	compare "$c --threads 2" "$TMP/real-1" "$TMP/real-2"
	rm -rf "$TMP/core" "$TMP"/real-*
done

S=$PWD/samples/android11-64bit
"$ART" carve "$S/core" -q -o "$TMP/zero" --threads 0 >/dev/null 2>"$TMP/err"
rc=$?
echo "# --threads 0: exit $rc, $(head -n 1 "$TMP/err")"
t_check "--threads 0 is a usage error (exit 2)" [ "$rc" -eq 2 ]
t_done

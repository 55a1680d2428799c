#!/bin/sh
# test_ahat.sh - AOSP's ahat (tools/ahat of ART's source: the ART team's own heap-dump reader,
# the Android platform's) opens every HPROF artcarve writes for readers, with the object
# counts the tool itself reports (`hprof-info`: classes + instances + object arrays +
# primitive arrays = the instances ahat's parser builds): carve's heap.hprof in both
# flavours (default 1.0.2 and --android 1.0.3) on a sample and a real capture, `convert` of
# ART's own HPROF, plain `decrunch` (the default layout) and `decrunch --mat` (its synonym)
# of carve's heap.bmd (both flavours) and of Badoo's golden BMD.  `decrunch --badoo` writes
# Badoo's exact bytes (its primitive array class names stay hashed, as Badoo writes them): a
# compatibility format that MAT, VisualVM and ahat all refuse, checked byte for byte in
# test_codec_golden.sh, not here.
# ahat is built by ../shared/tools/ahat/build.sh (from Debian's source package of
# android-platform-art) when $AHAT_W/ahat.jar (default /tmp/ahat) is missing: a build that
# fails is a failure.
. "$(dirname "$0")/lib.sh"
t_need java javac jar zstd || { t_done; exit; }
AH=$SHARED/tools/ahat
t_corpus "$AH/build.sh" || { t_done; exit; }
W=${AHAT_W:-${TMPDIR:-/tmp}/ahat}
if [ ! -f "$W/ahat.jar" ]; then
	if AHAT_W=$W bash "$AH/build.sh" >"$TMP/build.log" 2>&1; then t_ok "ahat built: $(tail -n 1 "$TMP/build.log")"
	else t_fail "ahat build failed: $(tail -n 3 "$TMP/build.log")"; t_done; exit; fi
fi

# ahat_counts NAME HPROF: ahat loads HPROF with hprof-info's object count
ahat_counts() {
	if ! "$ART" hprof-info "$2" >"$TMP/info" 2>"$TMP/info.err"; then
		t_fail "$1: hprof-info: $(head -n 1 "$TMP/info.err")"; return
	fi
	want=$(awk -F': ' '$1 == "classes" || $1 == "instances" || $1 == "object arrays" || $1 == "primitive arrays" {n += $2} END {print n}' "$TMP/info")
	out=$(AHAT_W=$W bash "$AH/check.sh" "$2" 2>&1)
	got=$(echo "$out" | sed -n 's/^AHAT OK .* reachable_instances: \([0-9]*\) .*/\1/p')
	if [ -n "$got" ] && [ "$got" = "$want" ]; then
		t_ok "$1: ahat loads $got objects, as hprof-info counts ($(echo "$out" | sed 's/.* heaps: /heaps: /'))"
	else t_fail "$1: ahat: ${out:-no output} (hprof-info: $want objects)"; fi
}

# decrunched NAME BMD: BMD decrunched with no option and with --mat, each loaded by ahat
decrunched() {
	for opt in "" --mat; do
		if "$ART" decrunch $opt -q "$2" "$TMP/dec.hprof" 2>"$TMP/err"; then
			ahat_counts "$1 decrunched ${opt:-(no option)}" "$TMP/dec.hprof"
		else t_fail "$1: decrunch $opt: $(head -n 1 "$TMP/err")"; fi
		rm -f "$TMP/dec.hprof"
	done
}

# carved NAME CORE MAPS: both flavours of heap.hprof and their heap.bmd decrunched
carved() {
	for fl in "" --android; do
		d=$TMP/out$fl
		rm -rf "$d"
		if ! "$ART" carve $fl "$2" --maps "$3" --skip db,jsonl,strings,report -o "$d" >/dev/null 2>"$TMP/err"; then
			t_fail "$1 $fl: carve failed: $(head -n 2 "$TMP/err")"; continue
		fi
		ahat_counts "$1 ${fl:-default}: heap.hprof" "$d/heap.hprof"
		decrunched "$1 ${fl:-default}: heap.bmd" "$d/heap.bmd"
		rm -rf "$d"
	done
}

carved "sample android11-64bit" samples/android11-64bit/core samples/android11-64bit/maps
REAL=$CORPUS/images/realart/cc-collections
if t_corpus "$REAL/core.zst"; then
	zstd -q -d -f "$REAL/core.zst" -o "$TMP/core" && carved "realart cc-collections" "$TMP/core" "$REAL/maps.txt"
	zstd -q -d -f "$REAL/heap.hprof.zst" -o "$TMP/art.hprof" &&
		ahat_counts "realart cc-collections: ART's own heap.hprof" "$TMP/art.hprof"
	if "$ART" convert "$TMP/art.hprof" "$TMP/conv.hprof" 2>"$TMP/err"; then
		ahat_counts "realart cc-collections: convert of ART's heap.hprof" "$TMP/conv.hprof"
	else t_fail "convert: $(head -n 1 "$TMP/err")"; fi
	rm -f "$TMP/core" "$TMP/art.hprof" "$TMP/conv.hprof"
fi
G=$CORPUS/hprof/badoo-golden
if t_corpus "$G/dialer.bmd"; then
	decrunched "Badoo's golden dialer.bmd" "$G/dialer.bmd"
fi
t_done

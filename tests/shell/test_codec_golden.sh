#!/bin/sh
# tier: quick
# test_codec_golden.sh - crunch/decrunch against the outputs of Badoo's original Java tools
# (shared/corpus/hprof/badoo-golden, MANIFEST.md), the 8-byte identifier round trip (object
# counts through hprof-info before and after), and the structure of `decrunch` output (the
# default, --mat its synonym; --badoo is Badoo's layout)
# (tests/tools/bmd_hprof_check.c: strings before use, LOAD_CLASS + CLASS_DUMP for every
# referenced class, payloads match class chains, 1.0.2 + segments + one HEAP_DUMP_END).
. "$(dirname "$0")/lib.sh"
G=$CORPUS/hprof/badoo-golden
CHECK=$PWD/build/tools/bmd_hprof_check

t_corpus "$G" || { t_done; exit; }

# crunch: Badoo's HprofCruncher output, byte for byte
for pair in "../dialer.android-hprof dialer" "../hprof-slurp-hprof-32.hprof hprof-slurp-hprof-32" \
	"jdk17-jvm-id4.hprof jdk17-jvm-id4"; do
	set -- $pair
	if "$ART" crunch -q "$G/$1" "$TMP/$2.bmd" 2>"$TMP/err"; then
		t_same "crunch $(basename "$1")" "$TMP/$2.bmd" "$G/$2.bmd"
	else
		t_fail "crunch $(basename "$1"): $(cat "$TMP/err")"
	fi
done

# decrunch --badoo: Badoo's BmdDecruncher output (no dictionary), byte for byte
for n in dialer hprof-slurp-hprof-32; do
	if "$ART" decrunch -q --badoo "$G/$n.bmd" "$TMP/$n.hprof" 2>"$TMP/err"; then
		t_same "decrunch --badoo $n.bmd" "$TMP/$n.hprof" "$G/$n.decrunched.hprof"
		t_check "decrunch --badoo $n.bmd: structure" "$CHECK" "$TMP/$n.hprof"
	else
		t_fail "decrunch --badoo $n.bmd: $(cat "$TMP/err")"
	fi
done

# the same bytes twice (determinism)
if "$ART" crunch -q "$G/jdk17-jvm-id4.hprof" "$TMP/again.bmd" 2>"$TMP/err"; then
	t_same "crunch is deterministic" "$TMP/again.bmd" "$TMP/jdk17-jvm-id4.bmd"
else
	t_fail "crunch jdk17-jvm-id4.hprof again: $(cat "$TMP/err")"
fi

# the summary counts what the corpus manifest states for dialer
"$ART" crunch "$G/../dialer.android-hprof" "$TMP/d2.bmd" 2>"$TMP/sum"
if grep -q "3571 classes, 24612 instances, 1919 object arrays, 13585 primitive arrays" "$TMP/sum"; then
	t_ok "crunch summary counts dialer's objects"
else
	t_fail "crunch summary: $(cat "$TMP/sum")"
fi

# counts of an HPROF through hprof-info: classes instances object-arrays primitive-arrays
counts() { "$ART" hprof-info --json "$1" | jq -r '[.classes, .instances, .object_arrays, .primitive_arrays] | @tsv'; }

# 8-byte identifiers: every class, instance and array survives crunch + decrunch, and the
# id-size marker brings the width back
J8=$G/jdk17-jvm.hprof
if "$ART" crunch -q "$J8" "$TMP/j8.bmd" 2>"$TMP/err"; then
	t_ok "crunch accepts 8-byte identifiers"
	want=$(counts "$J8")
	for mode in badoo mat; do
		flag=--$mode
		if "$ART" decrunch -q $flag "$TMP/j8.bmd" "$TMP/j8-$mode.hprof" 2>"$TMP/err"; then
			got=$(counts "$TMP/j8-$mode.hprof")
			if [ "$got" = "$want" ]; then t_ok "id8 $mode round trip keeps classes/instances/arrays ($want)"
			else t_fail "id8 $mode round trip: counts $got, expected $want"; fi
			idsz=$("$ART" hprof-info --json "$TMP/j8-$mode.hprof" | jq -r .id_size)
			[ "$idsz" = 8 ] && t_ok "id8 $mode: output id size 8" || t_fail "id8 $mode: output id size $idsz"
		else
			t_fail "decrunch $flag id8: $(cat "$TMP/err")"
		fi
	done
	"$ART" decrunch -q --id-size 4 "$TMP/j8.bmd" "$TMP/j8-4.hprof" &&
		[ "$(counts "$TMP/j8-4.hprof")" = "$want" ] && t_ok "id8 BMD decrunched to 4-byte ids keeps the counts" ||
		t_fail "id8 BMD decrunched with --id-size 4"
	# the BMD stream equals the 4-byte one apart from the marker: same size class
	s8=$(wc -c <"$TMP/j8.bmd"); s4=$(wc -c <"$G/jdk17-jvm-id4.bmd")
	[ $((s8 - s4)) -lt 1000 ] && [ $((s8 - s4)) -gt -1000 ] && t_ok "id8 BMD is about the id4 size ($s8 vs $s4)" ||
		t_fail "id8 BMD size $s8 vs id4 $s4"
else
	t_fail "crunch $J8: $(cat "$TMP/err")"
fi

# --mat: structure a MAT-style loader needs, and the same object counts as the source
for n in dialer hprof-slurp-hprof-32 jdk17-jvm-id4; do
	src=$G/$n.hprof; [ -f "$src" ] || src=$G/../$n.hprof; [ -f "$src" ] || src=$G/../dialer.android-hprof
	if "$ART" decrunch -q --mat "$G/$n.bmd" "$TMP/$n-mat.hprof" 2>"$TMP/err"; then
		out=$("$CHECK" --mat "$TMP/$n-mat.hprof")
		case $out in ok:*) t_ok "decrunch --mat $n: $out" ;; *) t_fail "decrunch --mat $n: $out" ;; esac
		v=$("$ART" hprof-info --json "$TMP/$n-mat.hprof" | jq -r '[.version, .heap_dumps, .heap_dump_ends] | @tsv')
		[ "$v" = "JAVA PROFILE 1.0.2	0	1" ] && t_ok "decrunch --mat $n: 1.0.2, segments, one END" ||
			t_fail "decrunch --mat $n: $v"
		a=$(counts "$TMP/$n-mat.hprof"); b=$(counts "$src")
		[ "$a" = "$b" ] && t_ok "decrunch --mat $n: counts match the source ($a)" ||
			t_fail "decrunch --mat $n: counts $a, source $b"
		if "$ART" decrunch -q "$G/$n.bmd" "$TMP/$n-plain.hprof" 2>"$TMP/err"; then
			t_same "plain decrunch $n = decrunch --mat" "$TMP/$n-plain.hprof" "$TMP/$n-mat.hprof"
		else t_fail "plain decrunch $n: $(cat "$TMP/err")"; fi
	else
		t_fail "decrunch --mat $n: $(cat "$TMP/err")"
	fi
done
# --mat and --badoo name different layouts: asking for both is a usage error, no file left
"$ART" decrunch -q --mat --badoo "$G/dialer.bmd" "$TMP/both.hprof" 2>"$TMP/err"; rc=$?
[ $rc = 2 ] && [ ! -e "$TMP/both.hprof" ] && t_ok "--mat --badoo: exit 2 ($(cat "$TMP/err"))" ||
	t_fail "--mat --badoo: exit $rc $(cat "$TMP/err")"
# the checker itself rejects Badoo-style output under --mat (1.0.3 header / HEAP_DUMP)
if "$CHECK" --mat "$TMP/dialer.hprof" >/dev/null 2>&1; then t_fail "checker accepts a 1.0.3 HEAP_DUMP file as --mat"
else t_ok "checker rejects Badoo output under --mat"; fi

t_done

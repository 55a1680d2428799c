#!/bin/sh
# test_validate.sh - `artcarve validate` on the real captures and the synthetic samples:
# - every realart capture's HPROF against itself: 100% everywhere (figures printed), and its
#   object counts against truth.json (the capture tool's own count of objects, of ART's records
#   that are no objects and of unreachable objects);
# - against a copy perturbed by tests/tools/hprof_perturb (objects dropped, fields changed,
#   objects invented, String texts changed): the figures move by exactly those amounts;
# - each sample's truth.hprof against its truth.jsonl: 100%, reachability included;
# - damaged inputs: exit 1 and one line on stderr, never a crash (also under ASan).
. "$(dirname "$0")/lib.sh"
PERTURB=$PWD/build/tools/hprof_perturb

for tool in jq zstd; do
	command -v $tool >/dev/null 2>&1 || { t_fail "$tool is needed (make deps)"; t_done; exit; }
done

# expect NAME GOT WANT
expect() { if [ "$2" = "$3" ]; then t_ok "$1 = $3"; else t_fail "$1 = $2, expected $3"; fi; }
j() { jq -r "$2" "$1"; }

# every ratio of a self-comparison is 1, every "missing" figure 0
self_check() { # NAME JSON
	n=$1 f=$2
	printf '%s: objects %s recall %s precision %s; fields %s/%s (prim %s/%s ref %s/%s static %s/%s elements %s/%s); strings %s/%s; unreachable %s/%s, false unreachable %s\n' "$n" \
		"$(j "$f" .objects.truth)" "$(j "$f" .objects.recall)" "$(j "$f" .objects.precision)" \
		"$(j "$f" .fields.objects.equal)" "$(j "$f" .fields.objects.compared)" \
		"$(j "$f" .fields.primitive.equal)" "$(j "$f" .fields.primitive.compared)" \
		"$(j "$f" .fields.reference.equal)" "$(j "$f" .fields.reference.compared)" \
		"$(j "$f" .fields.static.equal)" "$(j "$f" .fields.static.compared)" \
		"$(j "$f" .fields.elements.equal)" "$(j "$f" .fields.elements.compared)" \
		"$(j "$f" .strings.equal)" "$(j "$f" .strings.truth)" \
		"$(j "$f" .reach.unreachable_called_unreachable)" "$(j "$f" .reach.truth_unreachable)" \
		"$(j "$f" .reach.false_unreachable)"
	expect "$n: recall, precision" "$(j "$f" '[.objects.recall, .objects.precision] | @tsv')" "1	1"
	expect "$n: every kind" "$(j "$f" '[.by_kind[] | .recall, .precision] | map(select(. != null and . != 1)) | length')" "0"
	expect "$n: missed, invented, class mismatches, classes differing" \
		"$(j "$f" '[.missed, .invented, .class_mismatches, .classes_differing] | @tsv')" "0	0	0	0"
	expect "$n: objects with every field equal" "$(j "$f" '.fields.objects.equal == .fields.objects.compared and .fields.objects.compared == .objects.truth')" "true"
	expect "$n: fields, arrays, elements agree" \
		"$(j "$f" '[.fields.primitive, .fields.reference, .fields.static, .fields.arrays, .fields.elements] | map(.equal == .compared) | all')" "true"
	expect "$n: missing, extra, undecodable" "$(j "$f" '[.fields.missing, .fields.extra, .fields.undecodable] | @tsv')" "0	0	0"
	expect "$n: strings" "$(j "$f" '.strings.equal == .strings.truth and .strings.no_text_in_result == 0')" "true"
	expect "$n: reachability" "$(j "$f" '.reach.unreachable_called_unreachable == .reach.truth_unreachable and .reach.false_unreachable == 0 and .reach.unreachable_called_reachable == 0')" "true"
}

# ---- realart captures --------------------------------------------------------------------------
found=0 vpo_total=0
t_corpus "$CORPUS/images/realart" &&
for dir in "$CORPUS"/images/realart/*/ "$CORPUS"/images/realart-full/*/; do
	[ -f "$dir/heap.hprof.zst" ] || continue
	found=$((found + 1))
	n=$(basename "$dir")
	out=$TMP/$n.json
	if ! "$ART" validate --json "$dir/heap.hprof.zst" "$dir/heap.hprof.zst" >"$out" 2>"$TMP/err"; then
		t_fail "$n: validate: $(cat "$TMP/err")"; continue
	fi
	self_check "$n" "$out"
	# the capture tool's counts (truth.json): only the array a String's value field names is
	# ART's synthetic copy of its characters; a real array in the slot right after an empty
	# String is an object (value_position_objects; the unit test builds one)
	t=$dir/truth.json
	expect "$n: objects = truth.json" "$(j "$out" .truth.objects)" "$(j "$t" .hprof.objects)"
	expect "$n: String value arrays = truth.json" \
		"$(j "$out" .truth.not_objects.string_value_array)" "$(j "$t" .hprof.synthetic_records_not_objects.string_value_array)"
	vpo_total=$((vpo_total + $(j "$out" .truth.value_position_objects)))
	expect "$n: class statics and runtime-internal arrays as truth.json" \
		"$(j "$out" '[.truth.not_objects.class_statics_array, .truth.not_objects.runtime_internal_object_array] | @tsv')" \
		"$(j "$t" '[.hprof.synthetic_records_not_objects.class_statics_array, .hprof.synthetic_records_not_objects.runtime_internal_object_array] | @tsv')"
	expect "$n: instances, object arrays, primitive arrays, classes as truth.json" \
		"$(j "$out" '[.truth.by_kind.instance, .truth.by_kind["object-array"], .truth.by_kind["primitive-array"], .truth.by_kind.class] | @tsv')" \
		"$(j "$t" '[.hprof.objects_by_kind.instance, .hprof.objects_by_kind.object_array, .hprof.objects_by_kind.primitive_array, .hprof.objects_by_kind.class] | @tsv')"
	expect "$n: unreachable = truth.json" "$(j "$out" .reach.truth_unreachable)" "$(j "$t" .hprof.unreachable_objects)"

	# perturbed copy
	zstd -q -dc "$dir/heap.hprof.zst" >"$TMP/truth.hprof" || { t_fail "$n: zstd"; continue; }
	D=5 F=7 I=3 S=4
	if ! "$PERTURB" "$TMP/truth.hprof" "$TMP/p.hprof" --drop $D --field $F --invent $I --string $S >"$TMP/perturb.log" 2>&1; then
		t_fail "$n: hprof_perturb: $(tail -n 1 "$TMP/perturb.log")"; continue
	fi
	"$ART" validate --json "$TMP/p.hprof" "$dir/heap.hprof.zst" >"$TMP/p.json" 2>"$TMP/err" || { t_fail "$n: validate perturbed: $(cat "$TMP/err")"; continue; }
	T=$(j "$out" .objects.truth)
	p=$TMP/p.json
	printf '%s perturbed (drop %s, field %s, invent %s, string %s): recall %s precision %s fields %s/%s strings %s/%s\n' "$n" $D $F $I $S \
		"$(j "$p" .objects.recall)" "$(j "$p" .objects.precision)" "$(j "$p" .fields.objects.equal)" "$(j "$p" .fields.objects.compared)" \
		"$(j "$p" .strings.equal)" "$(j "$p" .strings.compared)"
	expect "$n perturbed: truth, matched, result, result matched" \
		"$(j "$p" '[.objects.truth, .objects.matched, .objects.result, .objects.result_matched] | @tsv')" \
		"$T	$((T - D))	$((T - D + I))	$((T - D))"
	expect "$n perturbed: missed, invented, class mismatches" "$(j "$p" '[.missed, .invented, .class_mismatches] | @tsv')" "$D	$I	0"
	expect "$n perturbed: objects compared, all fields equal" \
		"$(j "$p" '[.fields.objects.compared, .fields.objects.equal] | @tsv')" "$((T - D))	$((T - D - F))"
	expect "$n perturbed: primitive fields that differ" "$(j "$p" '.fields.primitive.compared - .fields.primitive.equal')" "$F"
	expect "$n perturbed: references, statics, elements all equal" \
		"$(j "$p" '[.fields.reference, .fields.static, .fields.elements] | map(.equal == .compared) | all')" "true"
	expect "$n perturbed: String texts that differ" "$(j "$p" '.strings.compared - .strings.equal')" "$S"
	expect "$n perturbed: the changed objects are the ones reported" \
		"$(j "$p" '[.fields.examples.first[].id] | sort | join(" ")')" \
		"$(sed -n 's/^field \(0x[0-9a-f]*\) .*/\1/p' "$TMP/perturb.log" | sort | tr '\n' ' ' | sed 's/ $//')"
	expect "$n perturbed: the dropped objects are the missed ones" \
		"$(j "$p" '[.missed_examples.first[].id] | sort | join(" ")')" \
		"$(sed -n 's/^drop \(0x[0-9a-f]*\)$/\1/p' "$TMP/perturb.log" | sort | tr '\n' ' ' | sed 's/ $//')"
done
[ "$NO_CORPUS" = 1 ] || [ $found -gt 0 ] || t_fail "no capture with heap.hprof.zst under $CORPUS/images/realart"
# cc-nodes-nogc (2), cms-nodes-nogc (1) and cc-nodes-nogc-full (2) hold arrays right after an
# empty String: counted as objects above, so truth.json's corrected figures were met with them
[ "$NO_CORPUS" = 1 ] || expect "arrays right after an empty String, all captures" "$vpo_total" "5"

# ---- synthetic samples ------------------------------------------------------------------
for s in samples/*/; do
	[ -f "$s/truth.jsonl" ] && [ -f "$s/truth.hprof" ] || continue
	n=$(basename "$s")
	out=$TMP/$n.json
	if ! "$ART" validate --json "$s/truth.hprof" "$s/truth.jsonl" >"$out" 2>"$TMP/err"; then
		t_fail "$n: validate: $(cat "$TMP/err")"; continue
	fi
	printf '%s: truth.hprof vs truth.jsonl: objects %s recall %s precision %s fields %s/%s unreachable %s/%s (strings: truth.hprof has no String text, %s without)\n' "$n" \
		"$(j "$out" .objects.truth)" "$(j "$out" .objects.recall)" "$(j "$out" .objects.precision)" \
		"$(j "$out" .fields.objects.equal)" "$(j "$out" .fields.objects.compared)" \
		"$(j "$out" .reach.unreachable_called_unreachable)" "$(j "$out" .reach.truth_unreachable)" "$(j "$out" .strings.no_text_in_result)"
	expect "$n: recall, precision" "$(j "$out" '[.objects.recall, .objects.precision] | @tsv')" "1	1"
	expect "$n: classes differing" "$(j "$out" .classes_differing)" "0"
	expect "$n: every field and element" "$(j "$out" '.fields.objects.equal == .fields.objects.compared and .fields.objects.compared == .objects.truth')" "true"
	expect "$n: missing, extra, undecodable" "$(j "$out" '[.fields.missing, .fields.extra, .fields.undecodable] | @tsv')" "0	0	0"
	expect "$n: reachability (truth.hprof's roots against truth.jsonl)" \
		"$(j "$out" '[.states.reach.reachable.same == .states.reach.reachable.matched, .states.reach.unreachable.same == .states.reach.unreachable.matched, .reach.false_unreachable == 0] | all')" "true"
	expect "$n: the free objects are not in truth.hprof" "$(j "$out" '.states.alloc.free.matched')" "0"
	"$ART" validate --json "$s/truth.jsonl" "$s/truth.jsonl" >"$out" 2>"$TMP/err" || { t_fail "$n: jsonl self: $(cat "$TMP/err")"; continue; }
	expect "$n: truth.jsonl against itself: strings, states" \
		"$(j "$out" '[.strings.equal == .strings.truth, (.states[] | .[] | select(.truth > 0) | .same == .truth)] | all')" "true"
done

# ---- text output, usage, damaged input ---------------------------------------------------------
s=samples/android11-64bit
if [ -f "$s/truth.hprof" ]; then
	"$ART" validate "$s/truth.hprof" "$s/truth.jsonl" >"$TMP/text" 2>&1
	expect "text report: exit" "$?" "0"
	expect "text report: recall line" "$(grep -c '^  recall     100.00% ' "$TMP/text")" "1"
	"$ART" validate --json "$s/truth.hprof" "$s/truth.jsonl" >"$TMP/a.json" && "$ART" validate --json "$s/truth.hprof" "$s/truth.jsonl" >"$TMP/b.json"
	t_same "json report is deterministic" "$TMP/a.json" "$TMP/b.json"
	"$ART" validate "$s/truth.hprof" >/dev/null 2>&1; expect "one input: usage exit" "$?" "2"
	"$ART" validate --per-class x "$s/truth.hprof" "$s/truth.jsonl" >/dev/null 2>&1; expect "bad --per-class: usage exit" "$?" "2"
	"$ART" validate "$TMP/absent" "$s/truth.jsonl" >/dev/null 2>&1; expect "absent file: exit" "$?" "3"

	hostile() { # NAME FILE: exit 1 with one line on stderr, with both binaries
		for bin in "$ART" "$ASAN_ART"; do
			[ -x "$bin" ] || continue
			"$bin" validate "$2" "$s/truth.jsonl" >/dev/null 2>"$TMP/err"
			rc=$?
			if [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ]; then t_ok "$1 ($(basename "$bin")): exit 1: $(cat "$TMP/err")"
			else t_fail "$1 ($(basename "$bin")): exit $rc, stderr: $(head -c 300 "$TMP/err")"; fi
		done
	}
	size=$(wc -c <"$s/truth.hprof")
	head -c $((size / 2)) "$s/truth.hprof" >"$TMP/half.hprof"; hostile "truncated HPROF" "$TMP/half.hprof"
	head -c 40 "$s/truth.hprof" >"$TMP/head.hprof"; hostile "HPROF header only, cut in a record" "$TMP/head.hprof"
	cp "$s/truth.hprof" "$TMP/corrupt.hprof"; chmod u+w "$TMP/corrupt.hprof"
	printf '\377\377\377\377' | dd of="$TMP/corrupt.hprof" bs=1 seek=36 conv=notrunc 2>/dev/null
	hostile "HPROF with a record length of 4 GiB" "$TMP/corrupt.hprof"
	: >"$TMP/empty"; hostile "empty file" "$TMP/empty"
	printf 'hello\n' >"$TMP/text.txt"; hostile "text file" "$TMP/text.txt"
	head -c 3000 "$s/truth.jsonl" >"$TMP/cut.jsonl"; hostile "truth.jsonl cut inside a line" "$TMP/cut.jsonl"
	zstd -q -c "$s/truth.hprof" >"$TMP/t.zst" && head -c 2000 "$TMP/t.zst" >"$TMP/cut.zst" && hostile "truncated .zst" "$TMP/cut.zst"
	"$ART" validate --json "$TMP/t.zst" "$s/truth.jsonl" >"$TMP/z.json" 2>"$TMP/err"
	expect "zstd-compressed RESULT: exit" "$?" "0"
	expect "zstd-compressed RESULT: recall" "$(j "$TMP/z.json" .objects.recall)" "1"
else
	t_fail "no samples/android11-64bit/truth.hprof (make samples)"
fi
t_done

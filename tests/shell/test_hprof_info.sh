#!/bin/sh
# test_hprof_info.sh - golden facts of the HPROF corpus (shared/corpus/hprof/MANIFEST.md) and of
# the realart captures (truth.json "hprof" section) through `artcarve hprof-info --json`, plus
# the text output, usage errors and rejected inputs.
. "$(dirname "$0")/lib.sh"
H=$CORPUS/hprof

jget() { jq -r "$2" "$1"; }
# expect NAME GOT WANT
expect() { if [ "$2" = "$3" ]; then t_ok "$1 = $3"; else t_fail "$1 = $2, expected $3"; fi; }
info() { # info FILE OUT.json
	if "$ART" hprof-info --json "$1" >"$2" 2>"$TMP/err" && jq -e . "$2" >/dev/null; then return 0; fi
	t_fail "hprof-info $(basename "$1"): $(cat "$TMP/err")"; return 1
}
# facts FILE.json 'jq expression producing one line' WANT
facts() { expect "$(basename "$1" .json): $2" "$(jq -c -r "$2" "$1")" "$3"; }

t_need jq zstd && t_corpus "$H" || { t_done; exit; }

j=$TMP/dialer.json
if info "$H/dialer.android-hprof" "$j"; then
	facts "$j" '[.version, .id_size] | @tsv' "JAVA PROFILE 1.0.3	4"
	facts "$j" '[.classes, .instances, .primitive_arrays, .object_arrays] | @tsv' "3571	24612	13585	1919"
	facts "$j" '[.segments, .heap_dump_ends, .heap_dumps] | @tsv' "636	1	0"
	facts "$j" '[.heaps[] | select(.name == "zygote") | .id, .infos] | @tsv' "90	530"
	facts "$j" '[.heaps[] | select(.name == "app") | .id, .infos] | @tsv' "65	19"
	facts "$j" '[.roots.ROOT_INTERNED_STRING, .roots.ROOT_FINALIZING, .roots.ROOT_DEBUGGER] | @tsv' "7286	1	3"
	# every object sits in a named heap, and the per-heap counts add up to the totals
	facts "$j" '[.heaps[].objects] | add' "43687"
	facts "$j" '[.heaps[] | select(.name == "default")] | length' "0"
	facts "$j" '.records.STRING == .strings and .records.LOAD_CLASS == .load_classes' "true"
fi

j=$TMP/leak_service_binder.json
if info "$H/leak_service_binder.hprof" "$j"; then
	facts "$j" '[.version, .id_size, .segments, .heap_dump_ends] | @tsv' "JAVA PROFILE 1.0.3	4	647	1"
	facts "$j" '[.classes, .instances] | @tsv' "3645	25183"
	facts "$j" '[.heaps[].name] | sort | join(",")' "app,zygote"
fi
j=$TMP/leak_service_binder_ignored.json
if info "$H/leak_service_binder_ignored.hprof" "$j"; then
	facts "$j" '[.version, .id_size, .segments, .heap_dump_ends] | @tsv' "JAVA PROFILE 1.0.3	4	640	1"
	facts "$j" '[.classes, .instances] | @tsv' "3630	24782"
	facts "$j" '[.heaps[].name] | sort | join(",")' "app,zygote"
fi
j=$TMP/RI.json
if info "$H/RI.hprof" "$j"; then
	facts "$j" '[.version, .id_size, .segments, .heap_dump_ends, .heap_dumps] | @tsv' "JAVA PROFILE 1.0.2	4	1	1	0"
	facts "$j" '[.records | has("CONTROL_SETTINGS", "START_THREAD", "END_THREAD", "STACK_FRAME", "STACK_TRACE")] | all' "true"
	facts "$j" '.records | has("HEAP_DUMP_INFO")' "false"
fi
j=$TMP/slurp.json
if info "$H/hprof-slurp-hprof-32.hprof" "$j"; then
	facts "$j" '[.version, .id_size, .heap_dumps, .segments] | @tsv' "JAVA PROFILE 1.0.1	4	1	0"
	facts "$j" '[.records | has("ALLOC_SITES", "CONTROL_SETTINGS", "START_THREAD", "END_THREAD")] | all' "true"
fi
j=$TMP/jdk17.json
if info "$H/badoo-golden/jdk17-jvm.hprof" "$j"; then
	facts "$j" '[.version, .id_size, .segments, .heap_dump_ends] | @tsv' "JAVA PROFILE 1.0.2	8	4	1"
fi
j4=$TMP/jdk17-id4.json
if info "$H/badoo-golden/jdk17-jvm-id4.hprof" "$j4"; then
	facts "$j4" '.id_size' "4"
	expect "id-4 narrowing keeps every object" "$(jq -c '[.classes, .instances, .object_arrays, .primitive_arrays, .roots]' "$j4")" \
		"$(jq -c '[.classes, .instances, .object_arrays, .primitive_arrays, .roots]' "$j")"
fi
j=$TMP/conv.json
if info "$H/badoo-golden/dialer.hprof-conv.hprof" "$j"; then
	facts "$j" '[.version, .classes, .instances, .primitive_arrays, .object_arrays] | @tsv' "JAVA PROFILE 1.0.2	3571	24612	13585	1919"
	facts "$j" '[.sub_records | keys[] | select(. == "HEAP_DUMP_INFO" or startswith("0x"))] | length' "0"
	facts "$j" '.roots.ROOT_UNKNOWN' "7290"
fi

# realart captures: ART writes each String's value and each class's statics as extra arrays,
# which truth.json lists as synthetic records.  A single heap holds every object and record:
# its count is taken from .hprof.objects, not .hprof.heaps, which in the -nogc captures still
# lacks the arrays right after an empty String that the corrected .objects counts (2, 1, 2)
real=0
t_corpus "$CORPUS/images/realart" &&
for d in "$CORPUS"/images/realart/*/; do
	[ -f "$d/heap.hprof.zst" ] || continue
	real=$((real + 1))
	n=$(basename "$d")
	zstd -q -dc "$d/heap.hprof.zst" >"$TMP/$n.hprof" || { t_fail "$n: zstd"; continue; }
	j=$TMP/$n.json
	info "$TMP/$n.hprof" "$j" || continue
	t=$d/truth.json
	want=$(jq -c '.hprof | [.format, .id_size, .objects_by_kind.class, .objects_by_kind.instance,
		.objects_by_kind.object_array + .synthetic_records_not_objects.runtime_internal_object_array,
		.objects_by_kind.primitive_array + .synthetic_records_not_objects.string_value_array
			+ .synthetic_records_not_objects.class_statics_array,
		(if (.heaps | length) == 1 then {(.heaps | keys[0]): (.objects + ($s | add))}
		 else (.heaps | to_entries | map({(.key): (.value + ($s | add))}) | add) end)]' \
		--argjson s "$(jq -c '[.hprof.synthetic_records_not_objects[]]' "$t")" "$t")
	got=$(jq -c '[.version, .id_size, .classes, .instances, .object_arrays, .primitive_arrays,
		(.heaps | map({(.name): .objects}) | add)]' "$j")
	expect "$n: objects by kind and heap" "$got" "$want"
	want=$(jq -c '.hprof.roots | to_entries | map({("ROOT_" + (.key | ascii_upcase)): .value}) | add | to_entries | sort_by(.key) | from_entries' "$t")
	got=$(jq -c '.roots | to_entries | sort_by(.key) | from_entries' "$j")
	expect "$n: roots by kind" "$got" "$want"
	rm -f "$TMP/$n.hprof"
done
[ "$NO_CORPUS" = 1 ] || [ "$real" -gt 0 ] || t_fail "no capture with heap.hprof.zst under $CORPUS/images/realart"

# text output names the same numbers
"$ART" hprof-info "$H/dialer.android-hprof" >"$TMP/dialer.txt" 2>&1
for line in "classes: 3571" "instances: 24612" "object arrays: 1919" "primitive arrays: 13585" "segments: 636"; do
	if grep -qx "$line" "$TMP/dialer.txt"; then t_ok "text has '$line'"; else t_fail "text lacks '$line'"; fi
done
grep -q "^  zygote   id 0x5a: .* 530 HEAP_DUMP_INFO$" "$TMP/dialer.txt" && t_ok "text lists the zygote heap" || t_fail "text lacks the zygote heap"

# rejected inputs: exit 1 and one line naming the offset
rejects() { # rejects NAME FILE PATTERN
	"$ART" hprof-info "$2" >/dev/null 2>"$TMP/err"; rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "$3" "$TMP/err"; then t_ok "$1 rejected: $(cat "$TMP/err")"
	else t_fail "$1: exit $rc, stderr: $(cat "$TMP/err")"; fi
}
printf 'JAVA PROFILE 1.0.9\0\0\0\0\4\0\0\0\0\0\0\0\0' >"$TMP/v9"; rejects "version 1.0.9" "$TMP/v9" "offset 0x0: unsupported HPROF version"
printf 'JAVA PROFILE 1.0.2\0\0\0\0\2\0\0\0\0\0\0\0\0' >"$TMP/id2"; rejects "id size 2" "$TMP/id2" "offset 0x13: identifier size 2"
printf 'hello world, not a heap dump\n' >"$TMP/text"; rejects "text file" "$TMP/text" "offset 0x0: not an HPROF file"
head -c 100000 "$H/dialer.android-hprof" >"$TMP/cut"; rejects "truncated dialer" "$TMP/cut" "at 0x[0-9a-f]*"
: >"$TMP/empty"; rejects "empty file" "$TMP/empty" "offset 0x0"
"$ART" hprof-info >/dev/null 2>&1; expect "no argument exit status" $? 2
"$ART" hprof-info --bogus x >/dev/null 2>&1; expect "unknown option exit status" $? 2
"$ART" hprof-info "$TMP/does-not-exist" >/dev/null 2>&1; rc=$?; [ $rc -ne 0 ] && t_ok "missing file fails ($rc)" || t_fail "missing file exit 0"
"$ART" hprof-info --help | grep -q "^usage: artcarve hprof-info FILE" && t_ok "--help" || t_fail "--help"
t_done

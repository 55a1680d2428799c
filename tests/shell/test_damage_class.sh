#!/bin/sh
# test_damage_class.sh - one damaged word in one java.lang.Class must cost only that
# class.  On real ART 11 captures (CMS/RosAlloc and CC/region space) the class_def index
# (Class.dex_class_def_idx_, +80) or the type index (dex_type_idx_, +84, class.h @R11) of one
# class is overwritten with 0x7fffffff or 0x80000000, for a boot class with many instances and
# an app class with a subclass-free hierarchy; then `carve` and `validate` against the
# runtime's own HPROF:
#   - the DexCache's DEX is still found (the other classes outvote the damaged one);
#   - the damaged class is read through its other index (the class_def whose super class is
#     its own): an anomaly says so, and recall, precision and field agreement stay 1.
# Before, either value made the whole DEX unknown: every class of the DEX lost its name and
# fields (42% of a heap for a boot class).
# And class_size_ (+72) of the sample's com.example.synth.App set to 0x100000 (its statics
# then cannot be placed, its object runs past its region): carve still writes every output
# (before: exit 1, "reading 1048576 bytes ... not captured", nothing written), a statics
# anomaly names the class, and validate against the sample's truth keeps
# recall 1 and loses at most the class's own fields and one false object inside it.
. "$(dirname "$0")/lib.sh"
REAL=$CORPUS/images/realart
t_need zstd jq python3 && t_corpus "$REAL" || { t_done; exit; }

for cap in cms-collections cc-collections; do
	dir=$REAL/$cap w=$TMP/$cap
	mkdir -p "$w"
	zstd -q -dc "$dir/core.zst" >"$w/core" || { t_fail "$cap: zstd"; continue; }
	"$ART" classes "$w/core" --maps "$dir/maps.txt" >"$w/classes" 2>&1 || { t_fail "$cap: classes"; continue; }
	for name in 'java.util.HashMap$Node' 'java.lang.Integer' 'CollectionsHeap$Leaf'; do
		addr=$(awk -v n="$name" '$1 == "class" && $3 == n { print $2; exit }' "$w/classes")
		[ -n "$addr" ] || { t_fail "$cap: no class $name"; continue; }
		for field in 80:class_def 84:type; do
			off=${field%%:*} what=${field#*:}
			for val in 0x7fffffff 0x80000000; do
				n="$cap: $name $what index = $val"
				cp "$w/core" "$w/damaged"
				t_core_patch "$w/damaged" "$(printf '0x%x' $((addr + off)))" "$val" || { t_fail "$n: patch"; continue; }
				if ! "$ART" carve "$w/damaged" --maps "$dir/maps.txt" -o "$w/out" --force --skip bmd,report,db,jsonl,strings \
					>"$w/sum" 2>"$w/err"; then
					t_fail "$n: carve failed: $(head -n 2 "$w/err")"; continue
				fi
				"$ART" validate --json "$w/out/heap.hprof" "$dir/heap.hprof.zst" >"$w/v.json" 2>"$w/err" ||
					{ t_fail "$n: validate: $(head -n 2 "$w/err")"; continue; }
				figures=$(jq -r '[.objects.recall, .objects.precision, .fields.objects.agreement] | @tsv' "$w/v.json")
				echo "$n: recall, precision, field agreement $figures"
				if [ "$figures" = "$(printf '1\t1\t1')" ] &&
					grep -q "anomaly class $addr .*disagree with its DexCache's DEX (damage): read as class_def" "$w/sum"; then
					t_ok "$n: the class read through its other index, the heap whole"
				else
					t_fail "$n: $figures; $(grep -m 2 'anomaly' "$w/sum" | cut -c1-240)"
				fi
			done
		done
	done
	rm -f "$w/core" "$w/damaged"
done

s=samples/android11-64bit
cp "$s/core" "$TMP/sample.core"
addr=$("$ART" classes "$TMP/sample.core" --maps "$s/maps" | awk '$1 == "class" && $3 == "com.example.synth.App" { print $2 }')
if [ -z "$addr" ] || ! t_core_patch "$TMP/sample.core" "$(printf '0x%x' $((addr + 72)))" 0x100000; then
	t_fail "sample: no class com.example.synth.App to damage"
elif ! "$ART" carve --json "$TMP/sample.core" --maps "$s/maps" -o "$TMP/sample" >"$TMP/sample.json" 2>"$TMP/err"; then
	t_fail "sample class_size_ 0x100000: carve failed: $(head -n 2 "$TMP/err")"
else
	"$ART" validate --json "$TMP/sample/heap.hprof" "$s/truth.jsonl" >"$TMP/sv.json" 2>"$TMP/err" || t_fail "sample: validate: $(cat "$TMP/err")"
	figures=$(jq -r '[.objects.recall, .objects.precision, .fields.objects.compared - .fields.objects.equal] | @tsv' "$TMP/sv.json")
	outputs=$(ls "$TMP/sample" | tr '\n' ' ')
	echo "sample class_size_ 0x100000: recall, precision, objects with a field differing: $figures; outputs: $outputs"
	if jq -e '.objects.recall == 1 and .objects.precision >= 0.99 and (.fields.objects.compared - .fields.objects.equal) <= 1' "$TMP/sv.json" >/dev/null &&
		jq -e --arg a "$addr" '[.anomalies.records[] | select(.code == "statics" and .address == $a)] | length == 1' "$TMP/sample.json" >/dev/null &&
		[ -s "$TMP/sample/heap.hprof" ] && [ -s "$TMP/sample/case.db" ]; then
		t_ok "sample class_size_ 0x100000: every output written, the damage costs the class ($figures)"
	else
		t_fail "sample class_size_ 0x100000: $figures, anomalies $(jq -c '.anomalies.by_code' "$TMP/sample.json"), outputs $outputs"
	fi
fi

# object_size_ (+96) of com.example.chat.Message set to 16, below its fields (up to +33): the
# model sizes its instances by it, so the HPROF writer met fields past the object's size and
# failed the whole carve (exit 1, "object at 0x12c40000: a field at +16 past its size 16",
# nothing written).  Now every output is written, the fields past the size as zero, and the
# summary counts the objects (damaged_objects) and names the first.
cp "$s/core" "$TMP/small.core"
"$ART" classes "$s/core" --maps "$s/maps" >"$TMP/classes.txt"
addr=$(awk '$1 == "class" && $3 == "com.example.chat.Message" { print $2 }' "$TMP/classes.txt")
if [ -z "$addr" ] || ! t_core_patch "$TMP/small.core" "$(printf '0x%x' $((addr + 96)))" 0x10; then
	t_fail "sample: no class com.example.chat.Message to damage"
elif ! "$ART" carve "$TMP/small.core" --maps "$s/maps" -o "$TMP/small" >"$TMP/small.txt" 2>"$TMP/err"; then
	t_fail "sample Message object_size_ 16: carve failed: $(head -n 2 "$TMP/err")"
else
	outputs=$(ls "$TMP/small" | wc -l) first=$(grep 'first_damaged_object:' "$TMP/small.txt")
	echo "sample Message object_size_ 16: $outputs outputs; $(grep 'damaged_objects:' "$TMP/small.txt"); $first"
	case $first in
	*"object at 0x"*": a field at +16 past its size 16"*)
		[ "$outputs" -eq 8 ] && t_ok "sample Message object_size_ 16: every output written, the damaged objects named" ||
			t_fail "sample Message object_size_ 16: $outputs outputs" ;;
	*) t_fail "sample Message object_size_ 16: no damaged object named: $first" ;;
	esac
fi

# super_class_ (+32) of com.example.synth.Base set to com.example.chat.Message and Message's
# to Base: a loop of super classes.  Before, the BMD encoder met the loop in heap.hprof and
# failed the carve (exit 1, "class 0x12c00168: superclass chain is cyclic", nothing written);
# now the loop is cut where it closes with a class anomaly and every output is written.
cp "$s/core" "$TMP/loop.core"
base=$(awk '$1 == "class" && $3 == "com.example.synth.Base" { print $2 }' "$TMP/classes.txt")
msg=$(awk '$1 == "class" && $3 == "com.example.chat.Message" { print $2 }' "$TMP/classes.txt")
if [ -z "$base" ] || [ -z "$msg" ] || ! t_core_patch "$TMP/loop.core" "$(printf '0x%x' $((base + 32)))" "$msg" ||
	! t_core_patch "$TMP/loop.core" "$(printf '0x%x' $((msg + 32)))" "$base"; then
	t_fail "sample: no classes Base and Message to loop"
elif ! "$ART" carve "$TMP/loop.core" --maps "$s/maps" -o "$TMP/loop" >"$TMP/loop.txt" 2>"$TMP/err"; then
	t_fail "sample super class loop: carve failed: $(head -n 2 "$TMP/err")"
else
	outputs=$(ls "$TMP/loop" | wc -l) line=$(grep -m 1 'closes a loop of super classes' "$TMP/loop.txt")
	echo "sample super class loop: $outputs outputs; $line"
	[ "$outputs" -eq 8 ] && [ -n "$line" ] && t_ok "sample super class loop: cut with an anomaly, every output written" ||
		t_fail "sample super class loop: $outputs outputs, anomaly '$line'"
fi
t_done

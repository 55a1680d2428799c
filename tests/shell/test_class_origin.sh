#!/bin/sh
# test_class_origin.sh - where each class comes from (art/runtime/runtime_origin.c) against the
# runtime's own HPROF: on one capture of each real runtime (ART 10, 11, 14; a trimmed and a
# full-process core), `artcarve classes` gives every class an origin= and the HPROF's
# CLASS_DUMP gives its class loader (tests/tools/hprof_classes --loaders).  These runtimes
# have no system jars with a class loader: a null loader is the boot class path ("boot"), any
# other is the test app's PathClassLoader ("app").  Every class must agree; the app classes
# the capture's truth.json counts objects of (the workload's own: Harness, Nodes$Node,
# CollectionsHeap$...) must be among them, java.lang.String boot.  `carve`'s summary lists
# the app's dropped classes first, and with --all-classes by count alone; case.db's classes
# table has the same origins.
. "$(dirname "$0")/lib.sh"
TOOL=$PWD/build/tools/hprof_classes
t_need zstd sqlite3 jq && t_built "$TOOL" || { t_done; exit; }

printf '%-34s %8s %6s %6s %s\n' capture classes boot app "agree with the HPROF's loaders" >"$TMP/summary"
for cap in realart/cc-nodes-nogc realart10/cms-collections realart14/cmc-collections realart-full/cms-collections-full; do
	dir=$CORPUS/images/$cap
	t_corpus "$dir/core.zst" || continue
	w=$TMP/$(echo "$cap" | tr / _)
	mkdir -p "$w"
	if ! zstd -q -d "$dir/core.zst" -o "$w/core" || ! zstd -q -d "$dir/heap.hprof.zst" -o "$w/heap.hprof"; then
		t_fail "$cap: cannot decompress"; continue
	fi
	if ! "$ART" classes "$w/core" --maps "$dir/maps.txt" >"$w/classes.txt" 2>"$w/classes.err"; then
		t_fail "$cap: classes failed: $(head -n 1 "$w/classes.err")"; continue
	fi
	awk '$1 == "class" { for (i = 4; i <= NF; i++) if ($i ~ /^origin=/) { o = $i; sub(/^origin=/, "", o) }
			     print $3, o }' "$w/classes.txt" | sort >"$w/ours"
	"$TOOL" --loaders "$w/heap.hprof" |
		awk '{ l = $NF; $NF = ""; sub(/ $/, ""); print $0, (l == "loader=0x0" ? "boot" : "app") }' | sort >"$w/truth"
	n=$(wc -l <"$w/truth")
	boot=$(grep -c ' boot$' "$w/ours")
	app=$(grep -c ' app$' "$w/ours")
	agree=$(comm -12 "$w/ours" "$w/truth" | wc -l)
	printf '%-34s %8s %6s %6s %s/%s\n' "$cap" "$(wc -l <"$w/ours")" "$boot" "$app" "$agree" "$n" >>"$TMP/summary"
	if [ "$agree" -eq "$n" ] && [ "$(wc -l <"$w/ours")" -eq "$n" ] && [ "$app" -gt 0 ]; then
		t_ok "$cap: all $n classes' origins equal the HPROF's class loaders ($app app, $boot boot)"
	else
		t_fail "$cap: $agree of $n classes agree; first differences:"
		diff "$w/ours" "$w/truth" | head -n 10
	fi
	# the workload's classes of truth.json (every class outside the class library's packages)
	jq -r '.classes | keys[]' "$dir/truth.json" | grep -v -E '^(java|javax|android|libcore|dalvik|sun|jdk|com|org)\.|^[a-z]+(\[\])+$' |
		sed 's/$/ app/' | sort >"$w/app.truth"
	missing=$(comm -23 "$w/app.truth" "$w/ours" | head -n 3 | tr '\n' ';')
	t_check "$cap: the workload's $(wc -l <"$w/app.truth") classes of truth.json are app ($(head -n 3 "$w/app.truth" | tr '\n' ' ')...) ${missing:+missing: $missing}" \
		test -s "$w/app.truth" -a -z "$missing"
	t_check "$cap: java.lang.String is boot" grep -qx 'java.lang.String boot' "$w/ours"
done

# carve: the summary's dropped classes lead with the app's; case.db's classes carry the origin
cap=realart/cc-nodes-nogc
w=$TMP/realart_cc-nodes-nogc
if [ -f "$w/core" ]; then
	if "$ART" carve "$w/core" --maps "$CORPUS/images/$cap/maps.txt" -o "$w/out" --skip hprof,bmd,jsonl,strings,report --json >"$w/carve.json" 2>"$w/carve.err" &&
	   "$ART" carve "$w/core" --maps "$CORPUS/images/$cap/maps.txt" -o "$w/out2" --skip hprof,bmd,jsonl,strings,report,db --json --all-classes >"$w/carve2.json" 2>>"$w/carve.err"; then
		first=$(jq -r '.dropped.top_classes[0] | "\(.class) \(.origin) \(.objects)"' "$w/carve.json")
		t_check "$cap: summary's first dropped class is the app's Nodes\$Node ($first; truth: 40000 unreachable)" \
			test "$first" = 'Nodes$Node app 40000'
		all=$(jq -r '.dropped.top_classes[0] | "\(.class) \(.origin) \(.objects)"' "$w/carve2.json")
		t_check "$cap: with --all-classes the first is the largest count ($all)" \
			test "$(jq '[.dropped.top_classes[].objects] | . == (sort | reverse)' "$w/carve2.json")" = true
		sql=$(sqlite3 "$w/out/case.db" "SELECT name || ' ' || origin FROM classes ORDER BY name" | sort)
		t_check "$cap: case.db classes.origin equals classes' origin= for every class" \
			test "$sql" = "$(sort "$w/ours")"
		loc=$(sqlite3 "$w/out/case.db" "SELECT dex_location FROM classes WHERE name = 'Nodes\$Node[]'")
		t_check "$cap: case.db dex_location of Nodes\$Node[] is its element's ($loc)" \
			test "$loc" = "$(jq -r '.art_mappings_in_core[].name | select(startswith("classes.dex extracted")) | sub("classes.dex extracted in memory from "; "")' "$CORPUS/images/$cap/truth.json" | grep workloads)"
	else
		t_fail "$cap: carve failed: $(head -n 1 "$w/carve.err")"
	fi
fi
cat "$TMP/summary"
t_done

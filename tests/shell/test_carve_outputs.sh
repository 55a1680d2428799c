#!/bin/sh
# test_carve_outputs.sh - what every output of `artcarve carve` owes its user, checked over
# whatever DIR holds (so outputs added later are covered without a change here), on the
# embedded samples and two real captures (CMS + RosAlloc, CC + region space):
#   - determinism: a second run with the same input, options and DIR gives every file of DIR
#     byte for byte (case.db, when there is one, as `sqlite3 .dump` without its runs rows: the
#     one place that holds the run's time and command line; manifest.json without case.db's
#     SHA-256, for the same reason);
#   - heap.bmd is `artcarve crunch` of heap.hprof (the same bytes), in both flavours (default
#     1.0.2 and --android 1.0.3); `decrunch --mat` of it gives an HPROF that VisualVM loads with
#     the class and instance counts carve reports; --android's heap.hprof loads in VisualVM
#     with them too; with --skip hprof heap.bmd is the same file and DIR holds nothing else;
#   - a failed run leaves no output and no temporary in DIR: an image that is rejected (exit
#     1), a DIR no file can be created in (exit 3), a write that fails half-way (a file size
#     limit, exit 3), a commit that fails (DIR/heap.bmd a directory, with --force, exit 3: the
#     heap.hprof committed before it is removed), a DIR that cannot be created (exit 3);
#   - progress: under a pseudo-terminal (script) a run of over a second draws '\r'-overwritten
#     lines with the phase, percent and MB/s and ends them with a newline; with stderr a file,
#     or with -q, stderr stays empty.
. "$(dirname "$0")/lib.sh"
t_need jq java javac sqlite3 script zstd || { t_done; exit; }
. tests/shell/visualvm_lib.sh
REAL=$CORPUS/images/realart

# db_dump FILE: the SQL dump of a case database without the rows of its runs table (the
# whole dump when it has none)
db_dump() {
	cp "$1" "$TMP/dump.db" && sqlite3 "$TMP/dump.db" "DELETE FROM runs;" 2>/dev/null
	sqlite3 "$TMP/dump.db" .dump
	rm -f "$TMP/dump.db"
}

# the two outputs that record when the run happened (case.db's runs row, report.html's time
# of analysis) are compared without it, and manifest.json without their digests
NOW_SHA='del(.outputs[] | select(.file == "case.db" or .file == "report.html") | .sha256)'
# same_outputs NAME DIR1 DIR2: the same files (those of subfolders as SUB/FILE), each identical
same_outputs() {
	l1=$(cd "$2" && find . -type f | sed 's#^\./##' | LC_ALL=C sort | tr '\n' ' ')
	l2=$(cd "$3" && find . -type f | sed 's#^\./##' | LC_ALL=C sort | tr '\n' ' ')
	if [ -z "$l1" ] || [ "$l1" != "$l2" ]; then
		t_fail "$1: the two runs wrote other files: [$l1] vs [$l2]"; return
	fi
	for f in $l1; do
		if [ "$f" = manifest.json ]; then
			jq "$NOW_SHA" "$2/$f" >"$TMP/m1.json"
			jq "$NOW_SHA" "$3/$f" >"$TMP/m2.json"
			t_same "$1: manifest.json without case.db's and report.html's SHA-256, twice" "$TMP/m2.json" "$TMP/m1.json"
		elif [ "$f" = report.html ]; then
			grep -v 'data-prov="time"' "$2/$f" >"$TMP/r1.html"
			grep -v 'data-prov="time"' "$3/$f" >"$TMP/r2.html"
			t_same "$1: report.html ($(wc -c <"$2/$f") bytes) without its time of analysis, twice" "$TMP/r2.html" "$TMP/r1.html"
		elif [ "$f" = case.db ]; then
			db_dump "$2/$f" >"$TMP/dump1.sql"
			db_dump "$3/$f" >"$TMP/dump2.sql"
			t_same "$1: case.db ($(wc -l <"$TMP/dump1.sql") lines of sqlite3 .dump without the runs rows) twice" \
				"$TMP/dump2.sql" "$TMP/dump1.sql"
		else
			t_same "$1: $f ($(wc -c <"$2/$f") bytes) twice" "$3/$f" "$2/$f"
		fi
	done
}

# check_bmd NAME DIR JSON: heap.bmd is heap.hprof crunched, and decrunches to an HPROF that
# VisualVM reads with carve's counts
check_bmd() {
	if [ ! -f "$2/heap.bmd" ]; then t_fail "$1: no heap.bmd in $(ls "$2" | tr '\n' ' ')"; return; fi
	if "$ART" crunch -q "$2/heap.hprof" "$TMP/crunched.bmd" 2>"$TMP/crunch.err"; then
		t_same "$1: heap.bmd ($(wc -c <"$2/heap.bmd") bytes for $(wc -c <"$2/heap.hprof") of heap.hprof) vs crunch of heap.hprof" \
			"$2/heap.bmd" "$TMP/crunched.bmd"
	else
		t_fail "$1: crunch of heap.hprof failed: $(head -n 2 "$TMP/crunch.err")"
	fi
	# a name of its own each time: VisualVM keeps an index beside the file it read
	bmd_n=$((bmd_n + 1))
	if "$ART" decrunch --mat -q "$2/heap.bmd" "$TMP/decrunched-$bmd_n.hprof" 2>"$TMP/decrunch.err"; then
		check_visualvm "$1: heap.bmd decrunched --mat" "$TMP/decrunched-$bmd_n.hprof" "$3"
	else
		t_fail "$1: decrunch --mat heap.bmd failed: $(head -n 2 "$TMP/decrunch.err")"
	fi
	rm -f "$TMP/crunched.bmd" "$TMP/decrunched-$bmd_n.hprof"
}
bmd_n=0

# check_input NAME CORE MAPS
check_input() {
	d=$TMP/run
	rm -rf "$d" "$TMP/first"
	if ! "$ART" carve --json "$2" --maps "$3" -o "$d" >"$TMP/first.json" 2>"$TMP/err"; then
		t_fail "$1: carve failed: $(head -n 3 "$TMP/err")"; return
	fi
	mv "$d" "$TMP/first"
	if ! "$ART" carve --json "$2" --maps "$3" -o "$d" >"$TMP/again.json" 2>"$TMP/err"; then
		t_fail "$1: second carve failed: $(head -n 3 "$TMP/err")"; return
	fi
	same_outputs "$1" "$TMP/first" "$d"
	check_bmd "$1" "$d" "$TMP/first.json"

	rm -rf "$d"
	if "$ART" carve --json --android "$2" --maps "$3" -o "$d" >"$TMP/android.json" 2>"$TMP/err"; then
		check_visualvm "$1 --android: heap.hprof" "$d/heap.hprof" "$TMP/android.json"
		check_bmd "$1 --android" "$d" "$TMP/android.json"
	else
		t_fail "$1 --android: carve failed: $(head -n 3 "$TMP/err")"
	fi

	rm -rf "$d"
	if "$ART" carve "$2" --maps "$3" --skip hprof -o "$d" >/dev/null 2>"$TMP/err" &&
		[ "$(ls -A "$d" | tr '\n' ' ')" = "$(ls -A "$TMP/first" | grep -v '^heap\.hprof$' | tr '\n' ' ')" ] &&
		cmp -s "$d/heap.bmd" "$TMP/first/heap.bmd"; then
		t_ok "$1: --skip hprof writes the same heap.bmd and leaves no heap.hprof or temporary ($(ls -A "$d" | tr '\n' ' '))"
	else
		t_fail "$1: --skip hprof: DIR holds [$(ls -A "$d" | tr '\n' ' ')], heap.bmd $(cmp "$d/heap.bmd" "$TMP/first/heap.bmd" 2>&1) $(head -n 2 "$TMP/err")"
	fi
	rm -rf "$d"
}

for s in samples/*/; do
	[ -f "$s/core" ] && check_input "sample $(basename "$s")" "$s/core" "$s/maps"
done
for cap in cms-collections cc-collections; do
	t_corpus "$REAL/$cap/core.zst" || continue
	zstd -q -d -f "$REAL/$cap/core.zst" -o "$TMP/core" || { t_fail "$cap: cannot decompress"; continue; }
	check_input "$cap" "$TMP/core" "$REAL/$cap/maps.txt"
	rm -f "$TMP/core"
done

# ---- failures leave nothing ----
s=samples/android11-64bit
# no_output NAME DIR RC WANT_RC: exit status as expected and DIR absent or empty
no_output() {
	left=$(ls -A "$2" 2>/dev/null | tr '\n' ' ')
	if [ "$3" -eq "$4" ] && [ -z "$left" ]; then t_ok "$1: exit $3, nothing in DIR ($(head -c 120 "$TMP/err"))"
	else t_fail "$1: exit $3 (want $4), DIR holds [$left]: $(head -n 2 "$TMP/err")"; fi
}
head -c 65536 /dev/zero >"$TMP/zeros"
"$ART" carve "$TMP/zeros" -o "$TMP/rejected" >/dev/null 2>"$TMP/err"
no_output "an image of zeros (rejected)" "$TMP/rejected" $? 1
( trap '' XFSZ; ulimit -f 64; exec "$ART" carve "$s/core" --maps "$s/maps" -o "$TMP/limited" >/dev/null 2>"$TMP/err" )
no_output "a file size limit of 64 blocks (the write fails half-way)" "$TMP/limited" $? 3
mkdir -p "$TMP/commit/heap.bmd"
"$ART" carve "$s/core" --maps "$s/maps" --force -o "$TMP/commit" >/dev/null 2>"$TMP/err"
rc=$?
rmdir "$TMP/commit/heap.bmd"
no_output "DIR/heap.bmd a directory (the commit fails after heap.hprof's)" "$TMP/commit" $rc 3
if [ "$(id -u)" -ne 0 ]; then
	mkdir -p "$TMP/ro" && chmod 555 "$TMP/ro"
	"$ART" carve "$s/core" --maps "$s/maps" -o "$TMP/ro" >/dev/null 2>"$TMP/err"
	no_output "a read-only DIR" "$TMP/ro" $? 3
	chmod 755 "$TMP/ro"
fi
# a directory no one (root included) can create (in /proc/self)
"$ART" carve "$s/core" --maps "$s/maps" -o /proc/self/out >/dev/null 2>"$TMP/err"
rc=$?
if [ $rc -eq 3 ] && grep -q '/proc/self/out' "$TMP/err"; then t_ok "-o /proc/self/out: exit 3, $(head -n 1 "$TMP/err")"
else t_fail "-o /proc/self/out: exit $rc: $(head -n 2 "$TMP/err")"; fi

# ---- progress ----
# A short run on a terminal is silent: the sample carves in well under PROGRESS_DELAY (1 s).
script -qc "$ART carve --json $s/core --maps $s/maps -o $TMP/p0 >$TMP/p0.json" /dev/null >"$TMP/tty0" 2>&1
ms=$(jq .time.ms "$TMP/p0.json")
if [ -f "$TMP/p0/heap.hprof" ] && [ ! -s "$TMP/tty0" ] && [ "${ms:-1000}" -lt 1000 ]; then
	t_ok "a ${ms} ms run on a terminal: no progress (under a second)"
else
	t_fail "a ${ms:-?} ms run of the sample on a terminal (want under a second, silent): $(tr '\r' '\n' <"$TMP/tty0" | head -n 3)"
fi
rm -rf "$TMP/p0"
# A long one shows it.  The synthetic heap grows (192, 384, 768 MiB of objects) until its carve
# takes 1.5 s, well past the delay, so that only one outcome is right: progress, well formed.
big=$TMP/big ms=0
for size in 192 384 768; do
	rm -rf "$big" "$TMP/p1"
	build/synth --version 11 --bits 64 --seed 1 --size $size --truth no --out "$big" >/dev/null 2>"$TMP/err" ||
		{ ms=; break; }
	script -qc "$ART carve --json $big/core --maps $big/maps -o $TMP/p1 >$TMP/p1.json" /dev/null >"$TMP/tty" 2>&1
	ms=$(jq .time.ms "$TMP/p1.json")
	[ "${ms:-0}" -ge 1500 ] && break
done
if [ -z "$ms" ]; then
	t_fail "synth --size $size failed: $(head -n 2 "$TMP/err")"
elif [ "$ms" -lt 1500 ]; then
	t_fail "the carve of $size MiB of objects took $ms ms, under 1.5 s: progress not checked"
else
	# lines naming a phase, and among them lines with a percent and a rate (writers that do not
	# report how far they got show their phase alone)
	phases=$(tr '\r' '\n' <"$TMP/tty" | grep -c '^carve: [a-z]')
	lines=$(tr '\r' '\n' <"$TMP/tty" | grep -c 'carve: .*%.* MB/s')
	last=$(tr '\r' '\n' <"$TMP/tty" | grep -v '^$' | tail -n 1)
	if [ "$phases" -ge 3 ] && [ "$lines" -ge 1 ] && [ "$(tail -c 1 "$TMP/tty" | od -An -c | tr -d ' ')" = '\n' ] &&
		echo "$last" | grep -q '^carve: done in'; then
		t_ok "a ${ms} ms run on a terminal ($size MiB): $phases progress lines, $lines with percent and rate (e.g. '$(tr '\r' '\n' <"$TMP/tty" | grep 'MB/s' | sed -n 1p | sed 's/ *$//')'), last '$(echo "$last" | sed 's/ *$//')', ending with a newline"
	else
		t_fail "a ${ms} ms run on a terminal: $phases progress lines, $lines with percent and rate, stderr: $(tr '\r' '\n' <"$TMP/tty" | head -n 5)"
	fi
fi
if [ -f "$big/core" ]; then
	echo "# heap.hprof $(wc -c <"$TMP/p1/heap.hprof") bytes, heap.bmd $(wc -c <"$TMP/p1/heap.bmd") bytes"
	rm -rf "$TMP/p1"
	"$ART" carve "$big/core" --maps "$big/maps" -o "$TMP/p2" >/dev/null 2>"$TMP/p2.err"
	if [ -f "$TMP/p2/heap.hprof" ] && [ ! -s "$TMP/p2.err" ]; then t_ok "stderr a file: nothing written to it"
	else t_fail "stderr a file: $(wc -c <"$TMP/p2.err") bytes: $(tr '\r' '\n' <"$TMP/p2.err" | head -n 3)"; fi
	rm -rf "$TMP/p2"
	script -qc "$ART carve -q $big/core --maps $big/maps -o $TMP/p3 >/dev/null" /dev/null >"$TMP/tty3" 2>&1
	if [ -f "$TMP/p3/heap.hprof" ] && [ ! -s "$TMP/tty3" ]; then t_ok "-q on a terminal: no progress"
	else t_fail "-q on a terminal: $(wc -c <"$TMP/tty3") bytes: $(tr '\r' '\n' <"$TMP/tty3" | head -n 3)"; fi
	rm -rf "$TMP/p3" "$big"
fi
t_done

#!/bin/sh
# tests/tools/output_digests.sh ARTCARVE [DIR...] - one line per carve output of every capture:
# "capture file sha256".  Run before and after a change that must not alter behaviour and
# diff the two listings (the samples and every real capture of ../shared/corpus/images by
# default).  case.db is digested through `.dump` without its runs row (the run's time and
# command line), manifest.json without the outputs' digests; the summary without its time:
# section; report.html without its time of analysis (the line marked data-prov="time"); the
# temporary path of a decompressed core.zst is replaced by CORE wherever an output names it,
# the temporary folder by OUT.
art=${1:?usage: output_digests.sh ARTCARVE [CAPTURE_DIR...]}; shift
[ $# -gt 0 ] || set -- samples/*/ ../shared/corpus/images/realart*/*/
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
for d in "$@"; do
	d=${d%/}
	if [ -f "$d/core.zst" ]; then
		zstd -q -d "$d/core.zst" -o "$tmp/core" || exit 2; core=$tmp/core; maps=$d/maps.txt
	elif [ -f "$d/core" ]; then core=$d/core; maps=$d/maps
	else continue; fi
	rm -rf "$tmp/out"
	if ! "$art" carve --android "$core" --maps "$maps" -o "$tmp/out" >"$tmp/summary" 2>"$tmp/err"; then
		echo "$d carve-failed $(head -n 1 "$tmp/err")"; continue
	fi
	sed '/^time:/,/^[^ ]/{/^time:/d;/^ /d}' "$tmp/summary" | sed "s#$tmp#OUT#g" >"$tmp/out/summary.txt"
	sqlite3 "$tmp/out/case.db" .dump | grep -v '^INSERT INTO runs' >"$tmp/out/case.dump"
	rm -f "$tmp/out/case.db"
	# a decompressed core is read from the random $tmp: the outputs that name the image's
	# path (case.db's inputs, strings.tsv's header, report.html) get one fixed name for it
	# manifest.json: without the outputs' digests (each file is digested below; case.db's and
	# report.html's hold the time of the run, strings.tsv's and the feature files' the random
	# path of a decompressed core)
	[ -f "$tmp/out/manifest.json" ] &&
		jq 'del(.outputs[].sha256)' "$tmp/out/manifest.json" >"$tmp/m" &&
		mv "$tmp/m" "$tmp/out/manifest.json"
	for f in case.dump strings.tsv report.html manifest.json $(cd "$tmp/out" && ls indicators/*.txt 2>/dev/null); do
		[ -f "$tmp/out/$f" ] && sed -i "s#$tmp/core#CORE#g" "$tmp/out/$f"
	done
	[ -f "$tmp/out/report.html" ] && sed -i "/data-prov=\"time\"/d; s#$tmp#OUT#g" "$tmp/out/report.html"
	# files of subfolders (indicators/) as SUBFOLDER/FILE
	for f in $(cd "$tmp/out" && find . -type f | sed 's#^\./##' | LC_ALL=C sort); do
		echo "$d $f $(sha256sum <"$tmp/out/$f" | cut -c1-64)"
	done
	rm -f "$tmp/core"
done

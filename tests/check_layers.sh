#!/bin/sh
# tests/check_layers.sh - enforces the one-way dependency order of the source trees:
#   foundation (carver/{err,ck,cursor,wbuf,xalloc,outfile,arena,mapfile,cli}) -> carver/image
#   -> art/ -> rosalloc/ (space walkers, then the object model) -> output/ -> carver/{main,commands,cmd_*,pipeline}
# and that each third-party header is included by exactly one wrapper file.
cd "$(dirname "$0")/.." || exit 2
status=0
rank() {
	case "$1" in
	carver/err.*|carver/ck.*|carver/cursor.*|carver/wbuf.*|carver/xalloc.*|carver/outfile.*|carver/arena.*|carver/mapfile.*|carver/cli.*|carver/progress.*) echo 0 ;;
	carver/image*|carver/container*|carver/maps*|carver/elfcore*|carver/elfw*|carver/zipw*) echo 1 ;;
	art/*) echo 2 ;;
	rosalloc/*) echo 3 ;;
	output/*) echo 4 ;;
	carver/*) echo 5 ;;
	*) echo 9 ;;
	esac
}
for f in carver/*.[ch] art/*.[ch] rosalloc/*.[ch] output/*.[ch]; do
	[ -f "$f" ] || continue
	r=$(rank "$f")
	dir=$(dirname "$f")
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case "$inc" in */*) target=$inc ;; *) target=$dir/$inc ;; esac
		tr=$(rank "$target")
		if [ "$tr" -gt "$r" ]; then
			echo "layer violation: $f (layer $r) includes $inc (layer $tr)"; status=1
		fi
	done
done
for h in libelf.h gelf.h capstone/capstone.h sqlite3.h zlib.h zstd.h lz4.h; do
	n=$(grep -l "#include <$h>" carver/*.[ch] art/*.[ch] rosalloc/*.[ch] output/*.[ch] 2>/dev/null | sed 's/\.[ch]$//' | sort -u | wc -l)
	if [ "$n" -gt 1 ]; then
		echo "<$h> is included by more than one wrapper:"; grep -l "#include <$h>" carver/*.[ch] art/*.[ch] rosalloc/*.[ch] output/*.[ch]; status=1
	fi
done
[ $status -eq 0 ] && echo "layers ok"
exit $status

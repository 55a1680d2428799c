#!/bin/sh
# tests/check_layers.sh - enforces the one-way dependency order of the source tree.
#
# The order is the list of layer folders in LAYERS below, lowest first; a file may use
# (include, or call at link time) only files of its own folder or of a lower one.  Every
# source file must sit in one of these folders, and every folder named must exist.
# Arrows are checked twice: the #include lines of every .c/.h, and the undefined symbols of
# every object file of the build (nm), which also sees calls that no header declares.
# Each third-party header is included by exactly one wrapper file.
# Usage: tests/check_layers.sh [BUILD_OBJ_DIR]   (default build/obj; link check skipped if absent)
cd "$(dirname "$0")/.." || exit 2
LAYERS="carver/base carver/image carver/nheap art/format art/mirror art/runtime art/code rosalloc/probe rosalloc/walk rosalloc/model rosalloc/native output/hprof output/bmd output/validate output/export output/report output/db carver/cli"
OBJ=${1:-build/obj}
status=0

# rank of a file: the position of its own folder (rosalloc/walk/x.c is in rosalloc/walk, not
# in rosalloc)
rank() {
	i=0
	for l in $LAYERS; do
		[ "${1%/*}" = "$l" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}

sources=$(find carver art rosalloc output -name '*.[ch]' 2>/dev/null | sort)
for l in $LAYERS; do
	[ -d "$l" ] || { echo "layer folder $l does not exist"; status=1; }
done
for f in $sources; do
	[ "$(rank "$f")" -ge 0 ] || { echo "$f is in no layer folder"; status=1; }
done

# include arrows
for f in $sources; do
	r=$(rank "$f")
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case "$inc" in */*) target=$inc ;; *) target=$(dirname "$f")/$inc ;; esac
		[ -f "$target" ] || { echo "$f includes $inc, which does not exist"; status=1; continue; }
		tr=$(rank "$target")
		if [ "$tr" -gt "$r" ]; then
			echo "layer violation: $f (${f%/*}) includes $inc (${target%/*})"; status=1
		fi
	done
done

# link-time arrows: which object defines each symbol, and who needs it
if [ -d "$OBJ" ]; then
	defs=$(mktemp) uses=$(mktemp)
	trap 'rm -f "$defs" "$uses"' EXIT
	for l in $LAYERS; do
		find "$OBJ/$l" -maxdepth 1 -name '*.o' 2>/dev/null
	done | sort | while read -r o; do
		src=${o#"$OBJ"/}; src=${src%.o}.c
		nm -P --defined-only "$o" 2>/dev/null | awk -v s="$src" '$2 ~ /^[TDRB]$/ {print $1, s}' >>"$defs"
		nm -P --undefined-only "$o" 2>/dev/null | awk -v s="$src" '{print $1, s}' >>"$uses"
	done
	sort -o "$defs" "$defs"; sort -o "$uses" "$uses"
	join "$uses" "$defs" | while read -r sym user definer; do
		ur=$(rank "$user"); dr=$(rank "$definer")
		if [ "$dr" -gt "$ur" ]; then
			echo "link-time layer violation: $user calls $sym, defined in $definer"; echo x
		fi
	done >"$uses.out"
	if grep -q '^x$' "$uses.out"; then grep -v '^x$' "$uses.out"; status=1; fi
	rm -f "$uses.out"
	echo "link-time arrows checked over $(wc -l <"$defs") defined symbols in $OBJ"
else
	echo "no object files in $OBJ: link-time arrows not checked (run make first)"
	status=1
fi

for h in libelf.h gelf.h capstone/capstone.h sqlite3.h zlib.h zstd.h lz4.h; do
	n=$(grep -l "#include <$h>" $sources 2>/dev/null | sed 's/\.[ch]$//' | sort -u | wc -l)
	if [ "$n" -gt 1 ]; then
		echo "<$h> is included by more than one wrapper:"; grep -l "#include <$h>" $sources; status=1
	fi
done
echo "layers (lowest first): $LAYERS"
if [ $status -eq 0 ]; then echo "layers ok"; echo "RESULT 1 0"; else echo "RESULT 0 1"; fi
exit $status

#!/bin/sh
# tests/check_layers.sh - enforces the one-way dependency order of the source tree.
#
# The order is the list of layer folders in LAYERS below, lowest first; a file may use
# (include, or call at link time) only files of its own folder or of a lower one.  Every
# source file must sit in one of these folders, and every folder named must exist.
# Arrows are checked twice: the #include lines of every .c/.h, and the undefined symbols of
# every object file of the build (nm), which also sees calls that no header declares.
# Each third-party header is included by exactly one wrapper file, and only the files of
# carver/wrap include third-party headers.
# Usage: tests/check_layers.sh [BUILD_OBJ_DIR]   (default build/obj; link check skipped if absent)
cd "$(dirname "$0")/.." || exit 2
# The layers, lowest first; README.md's "Layout" table lists the same folders in the same
# order with what each holds (checked below).
LAYERS=
layer() { LAYERS="$LAYERS${LAYERS:+ }$1"; }
layer carver/base       # foundation: cursors, errors, checked arithmetic, buffers, output files
layer carver/wrap       # the third-party wrappers (libelf, zlib, zstd, lz4, SQLite, Capstone, libyara)
layer carver/image      # process memory images and maps listings, the ELF symboliser
layer carver/native     # native heap evidence: dump and record_allocs files, malloc_debug scan
layer art/format        # ART's files: image headers, OAT, VDEX, DEX, layout rows per release
layer art/mirror        # mirror objects in an image
layer art/runtime       # the runtime model: spaces, classes, statics, native roots
layer art/code          # compiled code, hooks, ART's side of the disassembler
layer rosalloc/probe    # allocator probes for the space finder
layer rosalloc/walk     # the space walkers
layer rosalloc/model    # the object model, states, reachability, referrers
layer output/hprof      # HPROF format, reader, writer, carve's HPROF, conversion
layer output/bmd        # BMD and the HPROF <-> BMD codec
layer output/compare    # the comparison engine behind `validate`
layer output/decode     # the object decoder: typed fields, Strings inline, containers' entries
layer output/find       # indicators (URLs, e-mail, phones, IPs, JWTs, cards, secret fields) and YARA
layer output/export     # objects.jsonl, strings.tsv
layer output/report     # report.html
layer output/db         # case.db
layer carver/pipeline   # the carving pipeline
layer carver/cli        # the command line
OBJ=${1:-build/obj}
status=0

# rank FILE: sets rk to the position of FILE's own folder (rosalloc/walk/x.c is in
# rosalloc/walk, not in rosalloc), -1 when it is in none (no subshell: called per include)
rank() {
	rk=0
	for l in $LAYERS; do
		[ "${1%/*}" = "$l" ] && return
		rk=$((rk + 1))
	done
	rk=-1
}

sources=$(find carver art rosalloc output -name '*.[ch]' 2>/dev/null | sort)
for l in $LAYERS; do
	[ -d "$l" ] || { echo "layer folder $l does not exist"; status=1; }
done
for f in $sources; do
	rank "$f"; [ "$rk" -ge 0 ] || { echo "$f is in no layer folder"; status=1; }
done

# include arrows
for f in $sources; do
	rank "$f"; r=$rk
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case "$inc" in */*) target=$inc ;; *) target=${f%/*}/$inc ;; esac
		[ -f "$target" ] || { echo "$f includes $inc, which does not exist"; status=1; continue; }
		rank "$target"
		if [ "$rk" -gt "$r" ]; then
			echo "layer violation: $f (${f%/*}) includes $inc (${target%/*})"; status=1
		fi
	done
done

# link-time arrows: which object defines each symbol, and who needs it
if [ -d "$OBJ" ]; then
	defs=$(mktemp) uses=$(mktemp)
	trap 'rm -f "$defs" "$uses"' EXIT
	objs=$(for l in $LAYERS; do find "$OBJ/$l" -maxdepth 1 -name '*.o' 2>/dev/null; done | sort)
	# one nm for all objects: "OBJ/dir/x.o: symbol type ..." -> "symbol dir/x.c"
	src_of='{ f = $1; sub(/:$/, "", f); f = substr(f, length(obj) + 2); sub(/\.o$/, ".c", f) }'
	if [ -n "$objs" ]; then
		nm -A -P --defined-only $objs 2>/dev/null | awk -v obj="$OBJ" "$src_of"' $3 ~ /^[TDRB]$/ { print $2, f }' >"$defs"
		nm -A -P --undefined-only $objs 2>/dev/null | awk -v obj="$OBJ" "$src_of"' { print $2, f }' >"$uses"
	fi
	sort -o "$defs" "$defs"; sort -o "$uses" "$uses"
	# the same ranks as rank(), in awk: one process for every (symbol, user, definer) line
	join "$uses" "$defs" | awk -v layers="$LAYERS" '
		BEGIN { n = split(layers, l, " "); for (i = 1; i <= n; i++) r[l[i]] = i - 1 }
		function rank(f) { sub(/\/[^\/]*$/, "", f); return (f in r) ? r[f] : -1 }
		rank($3) > rank($2) { print "link-time layer violation: " $2 " calls " $1 ", defined in " $3; print "x" }
	' >"$uses.out"
	if grep -q '^x$' "$uses.out"; then grep -v '^x$' "$uses.out"; status=1; fi
	rm -f "$uses.out"
	echo "link-time arrows checked over $(wc -l <"$defs") defined symbols in $OBJ"
else
	echo "no object files in $OBJ: link-time arrows not checked (run make first)"
	status=1
fi

# third-party headers: only the wrappers of carver/wrap include them, one wrapper each
third_party='libelf\.h|gelf\.h|capstone/[^>]*|zlib\.h|zstd\.h|lz4[a-z]*\.h|sqlite3\.h|yara\.h|yara/[^>]*'
for f in $(grep -lE "^#include <($third_party)>" $sources 2>/dev/null); do
	case "$f" in
	carver/wrap/*) ;;
	*) echo "$f includes $(grep -oE "<($third_party)>" "$f" | head -n 1): only carver/wrap may"; status=1 ;;
	esac
done
for h in libelf.h gelf.h capstone/capstone.h sqlite3.h zlib.h zstd.h lz4.h yara.h; do
	n=$(grep -l "#include <$h>" $sources 2>/dev/null | sed 's/\.[ch]$//' | sort -u | wc -l)
	if [ "$n" -gt 1 ]; then
		echo "<$h> is included by more than one wrapper:"; grep -l "#include <$h>" $sources; status=1
	fi
done
# README.md's layer table: its first column, in order, is LAYERS
readme=$(awk '/^\| layer \(lowest first\) \|/ { t = 1; next } t && !/^\|/ { exit }
	t && !/^\|---/ { split($0, c, "|"); f = c[2]; gsub(/[ `]/, "", f); sub(/\/$/, "", f); print f }' README.md | tr '\n' ' ')
if [ "${readme% }" != "$LAYERS" ]; then
	echo "README.md's layer table (\"| layer (lowest first) |\") differs from LAYERS:"
	echo "  README.md: ${readme% }"; echo "  LAYERS:    $LAYERS"; status=1
else
	echo "README.md's layer table lists the $(echo $LAYERS | wc -w) folders of LAYERS in order"
fi
echo "layers (lowest first): $LAYERS"
if [ $status -eq 0 ]; then echo "layers ok"; echo "RESULT 1 0"; else echo "RESULT 0 1"; fi
exit $status

# test_synth_classes.sh - `artcarve classes --json` on every synthetic family x bitness agrees with
# the generator's truth class by class: address, name, super, object size, instance fields
# (name, type, offset).  The generator is an independent implementation of ART's field layout
# (LinkFields in runtime/class_linker.cc at each release); any disagreement is a failure.
. "$(dirname "$0")/lib.sh"
SYNTH=$PWD/build/synth
t_need python3 || { t_done; exit; }
[ -x "$SYNTH" ] || { t_fail "no $SYNTH (make all)"; t_done; exit; }
for vh in 5.0 5.1 6.0 7.0 7.1 8.0 8.1 9 10 11 12 13 14-oat230 14 15 16 14:cmc 16:cmc; do
	v=${vh%:cmc}; heap=; [ "$v" = "$vh" ] || heap=cmc
	for b in 32 64; do
		d=$TMP/$v-$b
		"$SYNTH" --version "$v" ${heap:+--heap $heap} --bits "$b" --seed 1 --size tiny --out "$d" >/dev/null 2>&1 ||
			{ t_fail "$v/$b: generating the image"; continue; }
		if ! "$ART" classes --json --maps "$d/maps" "$d/core" >"$d/classes.json" 2>"$d/err"; then
			t_fail "$v/$b: artcarve classes: $(head -n 1 "$d/err")"; continue
		fi
		if python3 tests/tools/synth_classes_cmp.py "$d/truth.json" "$d/classes.json" >"$d/cmp" 2>&1; then
			t_ok "$v/$b: $(tail -n 1 "$d/cmp")"
		else
			t_fail "$v/$b: $(tail -n 1 "$d/cmp")"; head -n 5 "$d/cmp"
		fi
	done
done
# image 108 holds two rows, told apart by the OAT version of boot.oat (230: the ClassLoader
# without name_) or, with that header masked, by java.lang.ClassLoader's own "parent" field
command -v jq >/dev/null 2>&1 || t_fail "jq missing"
for v in 14-oat230 14; do
	d=$TMP/oat-$v
	"$SYNTH" --version "$v" --bits 64 --seed 1 --size tiny --out "$d" >/dev/null 2>&1 || { t_fail "$v: generating"; continue; }
	python3 -c "
import sys
b = open(sys.argv[1], 'rb').read()
i = b.find(b'oat\n2')
assert i > 0 and b.find(b'oat\n2', i + 1) < 0, 'one OatHeader'
open(sys.argv[2], 'wb').write(b[:i] + b'OAT\n' + b[i + 4:])" "$d/core" "$d/core.nooat" || { t_fail "$v: masking the OatHeader"; continue; }
	for c in core core.nooat; do
		got=$("$ART" info --json --maps "$d/maps" "$d/$c" 2>"$d/err" | jq -r '.art.layout + " | " + .art.layout_how')
		case "$c:$v:$got" in
		core:*:"$v | "*"OAT header version"*) t_ok "$v: $got";;
		core.nooat:14-oat230:"14-oat230 | "*"ClassLoader as row 14-oat230"*) t_ok "$v, OatHeader masked: $got";;
		core.nooat:14:"14 | image header version 108"*) t_ok "$v, OatHeader masked: $got";;
		*) t_fail "$v $c: layout '$got' $(head -n 2 "$d/err")";;
		esac
	done
done
t_done

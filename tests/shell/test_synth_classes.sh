# test_synth_classes.sh - `artcarve classes --json` on every synthetic family x bitness agrees with
# the generator's truth class by class: address, name, super, object size, instance fields
# (name, type, offset).  The generator is an independent implementation of ART's field layout
# (LinkFields in runtime/class_linker.cc at each release); any disagreement is a failure.
. "$(dirname "$0")/lib.sh"
SYNTH=$PWD/build/synth
t_need python3 || { t_done; exit; }
[ -x "$SYNTH" ] || { t_fail "no $SYNTH (make all)"; t_done; exit; }
for vh in 5.0 5.1 6.0 7.0 7.1 8.0 8.1 9 10 11 12 13 14 15 16 14:cmc 16:cmc; do
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
t_done

# test_synth_mirror.sh - the mirror decoder on generated images of every String layout: 5.0/5.1
# (array_ char[] + offset_ + count_), 6.0-7.1 (inline UTF-16) and 8.0+ (compressed or UTF-16):
# every allocated String of the truth decodes to its text through art/mirror/mirror.c with the
# layout and pointer size the runtime found (build/tools/mirror_strings), and `artcarve classes`
# names the classes whose Class.name_ the app set from that String, not from the DEX.
. "$(dirname "$0")/lib.sh"
SYNTH=$PWD/build/synth
TOOL=$PWD/build/tools/mirror_strings
command -v python3 >/dev/null 2>&1 && [ -x "$SYNTH" ] && [ -x "$TOOL" ] ||
	{ t_fail "build/synth, build/tools/mirror_strings or python3 missing"; t_done; exit; }
for vb in 5.0/32 5.0/64 5.1/32 5.1/64 6.0/32 7.1/64 8.0/64 11/32 12/64 14/32 15/64 16/32; do
	v=${vb%/*} b=${vb#*/}
	d=$TMP/$v-$b
	"$SYNTH" --version "$v" --bits "$b" --seed 1 --size tiny --out "$d" >/dev/null 2>&1 ||
		{ t_fail "$vb: generating the image"; continue; }
	python3 tests/tools/synth_mirror_cmp.py addrs "$d/truth.jsonl" >"$d/addrs"
	if ! "$TOOL" --maps "$d/maps" "$d/core" <"$d/addrs" >"$d/strings" 2>"$d/err"; then
		t_fail "$vb: mirror_strings: $(head -n 1 "$d/err")"
	elif python3 tests/tools/synth_mirror_cmp.py strings "$d/truth.jsonl" "$d/strings" "$v" >"$d/cmp" 2>&1; then
		t_ok "$vb: $(tail -n 1 "$d/cmp")"
	else
		t_fail "$vb: $(tail -n 1 "$d/cmp")"; head -n 5 "$d/cmp"
	fi
	if ! "$ART" classes --json --maps "$d/maps" "$d/core" >"$d/classes.json" 2>"$d/err"; then
		t_fail "$vb: artcarve classes: $(head -n 1 "$d/err")"
	elif python3 tests/tools/synth_mirror_cmp.py names "$d/truth.jsonl" "$d/classes.json" >"$d/names" 2>&1; then
		t_ok "$vb: $(tail -n 1 "$d/names")"
	else
		t_fail "$vb: $(tail -n 1 "$d/names")"; head -n 5 "$d/names"
	fi
done
t_done

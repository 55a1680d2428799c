# tier: quick
# test_anomalies.sh - damaged input is recorded and the run goes on: on a synthetic ART 11
# image (build/synth), one Class object that nothing else refers to is overwritten in a copy
# of the core; `info` and `classes` (text and --json) must still succeed, count one more
# rejected Class candidate (the runtime model alone cannot tell a damaged Class from a word
# equal to java.lang.Class's address inside another object: no anomaly there), list every
# other class exactly as before, and `carve` must record the damage as an anomaly at the
# class's address (the walkers know an object starts there).  And
# `art-file` on a boot image whose folder holds a second image with a damaged header: the
# walk of the first is unchanged, the second is left out and recorded.
. "$(dirname "$0")/lib.sh"
jq() { command jq "$@" >/dev/null; }
SYNTH=$PWD/build/synth
command -v python3 >/dev/null 2>&1 && command -v jq >/dev/null 2>&1 && [ -x "$SYNTH" ] ||
	{ t_fail "build/synth, python3 or jq missing"; t_done; exit; }
d=$TMP/img
"$SYNTH" --version 11 --bits 64 --seed 1 --size tiny --out "$d" >/dev/null 2>&1 || { t_fail "generating the image"; t_done; exit; }
"$ART" classes --json --maps "$d/maps" "$d/core" >"$TMP/before.json" &&
"$ART" classes --maps "$d/maps" "$d/core" >"$TMP/before.txt" &&
"$ART" info --json --maps "$d/maps" "$d/core" >"$TMP/info-before.json" || { t_fail "sound image: artcarve failed"; t_done; exit; }
t_check "sound image: no anomaly (text)" grep -qx 'anomalies: none' "$TMP/before.txt"
t_check "sound image: no anomaly (json)" jq -e '.anomalies.total == 0 and .anomalies.by_code.class == 0' "$TMP/before.json"

# a class no other class names as super or component; its file offset from the core's PT_LOADs;
# bytes 8..19 (class_loader_, component_type_, dex_cache_: heap references) set to 0xff
victim=$(python3 - "$TMP/before.json" "$d/core" "$TMP/damaged" <<'PY'
import json, struct, sys
cl = json.load(open(sys.argv[1]))['classes']
used = {c[k]['address'] for c in cl for k in ('super', 'component') if c[k]}
leaf = [c for c in cl if c['address'] not in used and c['name'] and c['fields_from'] == 'dex']
va = int(leaf[-1]['address'], 16)
core = bytearray(open(sys.argv[2], 'rb').read())
phoff, = struct.unpack_from('<Q', core, 32)
phentsize, phnum = struct.unpack_from('<HH', core, 54)
for i in range(phnum):
    p_type, _, off, vaddr, _, filesz = struct.unpack_from('<IIQQQQ', core, phoff + i * phentsize)
    if p_type == 1 and vaddr <= va < vaddr + filesz:
        at = off + va - vaddr
        core[at + 8:at + 20] = b'\xff' * 12
        open(sys.argv[3], 'wb').write(core)
        print('0x%x %s' % (va, leaf[-1]['name']))
        break
PY
)
addr=${victim%% *}
[ -n "$addr" ] || { t_fail "no leaf class found to damage"; t_done; exit; }
echo "damaging the class at $victim"

if "$ART" classes --json --maps "$d/maps" "$TMP/damaged" >"$TMP/after.json" 2>"$TMP/err" &&
   "$ART" classes --maps "$d/maps" "$TMP/damaged" >"$TMP/after.txt" 2>>"$TMP/err" &&
   "$ART" info --json --maps "$d/maps" "$TMP/damaged" >"$TMP/info-after.json" 2>>"$TMP/err" &&
   "$ART" info --maps "$d/maps" "$TMP/damaged" >"$TMP/info-after.txt" 2>>"$TMP/err"; then
	t_ok "damaged image: info and classes succeed"
else
	t_fail "damaged image: $(head -n 1 "$TMP/err")"; t_done; exit
fi
t_check "classes --json: one more rejected candidate, no anomaly" jq -e \
	'.rejected == 1 and .anomalies.total == 0' "$TMP/after.json"
t_check "info --json: the same count" jq -e '.classes.rejected == 1 and .anomalies.total == 0' "$TMP/info-after.json"
t_check "info text: the rejected candidate counted" grep -q "; 0 retired and 1 rejected candidates not listed;" "$TMP/info-after.txt"
if "$ART" carve --json --maps "$d/maps" "$TMP/damaged" -o "$TMP/carved" >"$TMP/carve.json" 2>"$TMP/err"; then
	t_check "carve: the damaged Class recorded at $addr" jq -e --arg a "$addr" \
		'[.anomalies.records[] | select(.address == $a and .code == "object_class" and .cause == "corrupt")] | length == 1' \
		"$TMP/carve.json"
else
	t_fail "carve of the damaged image: $(head -n 1 "$TMP/err")"
fi
# every other class as before: the text without the damaged class's block and the anomaly lines
# (text addresses are zero-padded to 8 digits: 0x%08llx)
taddr=$(printf '0x%08x' "$addr")
strip() { awk -v a="$taddr" '/^anomalies:/ { exit } /^class / { skip = ($2 == a) } !skip' "$1"; }
strip "$TMP/before.txt" >"$TMP/before.rest"
strip "$TMP/after.txt" >"$TMP/after.rest"
n_before=$(grep -c '^class ' "$TMP/before.txt"); n_after=$(grep -c '^class ' "$TMP/after.txt")
t_check "classes: $n_after listed, one fewer than $n_before" [ "$n_after" -eq $((n_before - 1)) ]
t_check "classes: the damaged class was listed before" grep -q "^class $taddr " "$TMP/before.txt"
t_check "classes: $(wc -l <"$TMP/before.rest") lines compared" [ "$(grep -c '^class ' "$TMP/before.rest")" -eq $((n_before - 1)) ]
t_same "classes: every other class and field unchanged" "$TMP/after.rest" "$TMP/before.rest"
command jq -S 'del(.anomalies) | .classes |= map(select(.address != "'"$addr"'")) | del(.count) | del(.rejected)' "$TMP/before.json" >"$TMP/b.json"
command jq -S 'del(.anomalies) | del(.count) | del(.rejected)' "$TMP/after.json" >"$TMP/a.json"
t_same "classes --json: every other class unchanged" "$TMP/a.json" "$TMP/b.json"

# art-file: a folder image that does not load is recorded, the walk goes on
set_dir=$CORPUS/art/a9_art056_arm64_lineage16-eify
if [ ! -f "$set_dir/boot.art" ]; then
	t_fail "$set_dir/boot.art missing"; t_done; exit
fi
mkdir -p "$TMP/set" "$TMP/alone"
cp "$set_dir/boot.art" "$TMP/alone/"
"$ART" art-file --json "$TMP/alone/boot.art" >"$TMP/alone.json" || t_fail "art-file on boot.art alone"
cp "$set_dir/boot.art" "$set_dir/boot-core-libart.art" "$TMP/set/"
"$ART" art-file --json "$TMP/set/boot.art" >"$TMP/set-before.json" || t_fail "art-file on the sound folder"
printf 'art\n999\0' | dd of="$TMP/set/boot-core-libart.art" bs=1 conv=notrunc 2>/dev/null
"$ART" art-file --json "$TMP/set/boot.art" >"$TMP/set-after.json" &&
"$ART" art-file "$TMP/set/boot.art" >"$TMP/set-after.txt" || t_fail "art-file with a damaged folder image"
t_check "art-file: sound folder, no anomaly" jq -e '.files[0].anomalies.total == 0' "$TMP/set-before.json"
t_check "art-file --json: the damaged image is recorded" jq -e \
	'.files[0].anomalies.total == 1 and .files[0].anomalies.image_header == 1 and
	 (.files[0].anomalies.records[0] | test("boot-core-libart.art.*unsupported version 999"))' "$TMP/set-after.json"
t_check "art-file text: the record" grep -q '^    image_header .*boot-core-libart.art\] unsupported: ' "$TMP/set-after.txt"
# left out, the damaged image is as if it were not there: the walk equals boot.art's alone
command jq -S '.files[0].walk' "$TMP/alone.json" >"$TMP/walk-alone"
command jq -S '.files[0].walk' "$TMP/set-after.json" >"$TMP/walk-after"
t_check "art-file: a walk was reported" [ "$(wc -c <"$TMP/walk-alone")" -gt 100 ]
t_same "art-file: the walk equals boot.art's alone" "$TMP/walk-after" "$TMP/walk-alone"
t_done

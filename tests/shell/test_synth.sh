#!/bin/sh
# tests/shell/test_synth.sh - the synthetic image generator (build/synth) against the
# independent checker (tests/tools/synthcheck.py): every layout family x bitness at small size,
# determinism, random seeds, and `artcarve info` on the images.
. "$(dirname "$0")/lib.sh"
SYNTH=$PWD/build/synth
CHECK="python3 $PWD/tests/tools/synthcheck.py"

t_need python3 || { t_done; exit; }
[ -x "$SYNTH" ] || { t_fail "no $SYNTH (make all)"; t_done; exit; }

t_check "selftest: LinkFields re-derives every mirror layout" "$SYNTH" --selftest
versions=$("$SYNTH" --list | cut -d' ' -f1)
nv=$(echo "$versions" | wc -l)
[ "$nv" -ge 14 ] && t_ok "$nv layout families listed (5.0-16)" || t_fail "families: $versions"

# and the mark-compact heap and 16 KiB pages of the families that have them (--list: "15 cc cmc 16k")
cmcs=$("$SYNTH" --list | awk '$3 == "cmc" { print $1 ":cmc" } $4 == "16k" { print $1 "::16k"; print $1 ":cmc:16k" }')
[ -n "$cmcs" ] && t_ok "CMC heap and 16 KiB page families: $(echo $cmcs)" || t_fail "no family lists the CMC heap"
for vh in $versions $cmcs; do
	# V[:HEAP[:PAGE]]: the family, its heap (cmc: the mark-compact one of 14+), 16k pages (15+, 64-bit)
	v=${vh%%:*}; heap=$(echo "$vh:" | cut -d: -f2); page=$(echo "$vh::" | cut -d: -f3)
	bl="32 64"; [ -z "$page" ] || bl=64
	for b in $bl; do
		d=$TMP/$v-$b
		if ! "$SYNTH" --version "$v" ${heap:+--heap $heap} ${page:+--page $page} --bits "$b" --seed 1 --size small --out "$d" 2>"$TMP/err"; then
			t_fail "$vh/$b: generation failed: $(cat "$TMP/err")"; continue
		fi
		out=$($CHECK "$d" 2>&1)
		case "$out" in
		*agree) case "$out" in *DISAGREE*) t_fail "$vh/$b: $(echo "$out" | head -n 5)";; *) t_ok "$vh/$b: checker agrees ($(echo "$out" | tail -n 2 | head -n 1 | sed 's/.*: //' | cut -c1-90))";; esac;;
		*) t_fail "$vh/$b: checker: $(echo "$out" | head -n 5)";;
		esac
		# the ELF class follows the bitness
		cls=$(od -An -tu1 -j4 -N1 "$d/core" | tr -d ' ')
		[ "$cls" = "$((b / 32))" ] && t_ok "$vh/$b: ELF class $cls" || t_fail "$vh/$b: ELF class $cls"
		# naming style: ashmem for 5.0-9, [anon:dalvik-...] for 10+
		case $v in 1[0-9]|1[0-9]-*) pat='\[anon:dalvik-main space';; *) pat='/dev/ashmem/dalvik-main space.* (deleted)';; esac
		grep -q "$pat" "$d/maps" && t_ok "$vh/$b: maps naming style" || t_fail "$vh/$b: maps naming style"
		if "$ART" info --json --maps "$d/maps" "$d/core" >"$TMP/info.json" 2>"$TMP/info.err"; then
			if $CHECK --info "$d" "$TMP/info.json" >"$TMP/info.out" 2>&1; then
				t_ok "$vh/$b: artcarve info: $(tail -n 1 "$TMP/info.out")"
			else
				t_fail "$vh/$b: artcarve info: $(head -n 4 "$TMP/info.out")"
			fi
		else t_fail "$vh/$b: artcarve info: $(head -n 3 "$TMP/info.err")"; fi
		# CMC: the moving space is a "main space" without a page map, read as a BumpPointerSpace
		# (by content), and the collector's maps are reported
		if [ "$heap" = cmc ]; then
			if jq -e '[.spaces[] | select(.kind == "BumpPointerSpace" and .name == "main space")] | length == 1' "$TMP/info.json" >/dev/null 2>&1 &&
				jq -e '[.spaces[] | select(.kind == "MarkCompactMap")] | length >= 3' "$TMP/info.json" >/dev/null 2>&1; then
				t_ok "$vh/$b: main space read as a BumpPointerSpace, mark-compact maps reported"
			else t_fail "$vh/$b: spaces: $(jq -c '[.spaces[] | {kind, name}]' "$TMP/info.json" | cut -c1-300)"; fi
		fi
	done
done

# determinism: same options, same bytes
"$SYNTH" --version 6.0 --bits 32 --seed 5 --size tiny --out "$TMP/d1" &&
"$SYNTH" --version 6.0 --bits 32 --seed 5 --size tiny --out "$TMP/d2"
for f in core maps truth.jsonl truth.json truth.hprof hooks.json README; do
	t_same "determinism $f" "$TMP/d1/$f" "$TMP/d2/$f"
done
"$SYNTH" --version 6.0 --bits 32 --seed 6 --size tiny --out "$TMP/d3"
cmp -s "$TMP/d1/core" "$TMP/d3/core" && t_fail "seed 5 and 6 give the same core" || t_ok "another seed, another core"

# property test: random seeds over random families (seeded by the date, printed for replay)
base=${SYNTH_SEED:-$(date +%s)}
echo "# property seeds start at $base (SYNTH_SEED=$base to replay)"
n=0 bad=0
for i in $(seq 0 23); do
	s=$((base + i))
	v=$(echo "$versions" | sed -n "$((s % nv + 1))p")
	b=$((32 + 32 * ((s / nv) % 2)))
	d=$TMP/p$i
	if "$SYNTH" --version "$v" --bits $b --seed $s --size tiny --out "$d" 2>/dev/null &&
	   $CHECK "$d" >"$TMP/pout" 2>&1; then n=$((n + 1))
	else bad=$((bad + 1)); echo "property: seed $s $v/$b:"; head -n 5 "$TMP/pout"; fi
	rm -rf "$d"
done
[ $bad = 0 ] && t_ok "property: $n random images agree with their truth" || t_fail "property: $bad of $((n + bad)) disagree"

# truth.hprof loads in VisualVM's heap library (Debian visualvm) with every object and value
VVJAR=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
if ! t_need javac java; then :
elif [ ! -f "$VVJAR" ]; then t_fail "no VisualVM heap library at $VVJAR (make deps installs visualvm)"
elif ! javac -cp "$VVJAR" -d "$TMP/vv" tests/tools/HprofLoad.java 2>"$TMP/javac.err"; then
	t_fail "javac HprofLoad.java: $(head -n 3 "$TMP/javac.err")"
else
	for vb in 5.0/32 7.1/64 11/64; do
		d=$TMP/${vb%/*}-${vb#*/}
		python3 tests/tools/synthcheck.py --hprof-ids "$d" |
			java -cp "$VVJAR:$TMP/vv" HprofLoad "$d/truth.hprof" >"$TMP/vv.out" 2>&1
		out=$(python3 tests/tools/synthcheck.py --visualvm "$d" "$TMP/vv.out")
		case "$out" in *"visualvm agrees"*) t_ok "$vb: VisualVM loads truth.hprof: $(echo "$out" | tail -n 1)";;
		*) t_fail "$vb: VisualVM: $(echo "$out" | head -n 5) $(head -n 3 "$TMP/vv.out")";; esac
	done
fi

# --inject-hooks: `artcarve hooks` finds exactly the hooked ArtMethods (hooks.json) and no
# others; the same image without hooks has none.  The maps+region-files form (img_split) is
# used; the ELF core directly is tried too.
hooks_set() { jq -r '.hooks[].art_method' "$1" | sort | tr '\n' ' '; }
if ! t_need jq; then :
elif [ ! -x build/tools/img_split ]; then t_fail "no build/tools/img_split (make all): hooks not checked"
else
	for vb in 7.1/64 9/64 11/64; do   # (img_split reads ELF64 cores only)
		v=${vb%/*} b=${vb#*/} d=$TMP/hk-$v-$b
		for n in 0 3; do
			"$SYNTH" --version "$v" --bits "$b" --seed 3 --size tiny --inject-hooks $n --out "$d-$n" 2>/dev/null &&
			build/tools/img_split "$d-$n/core" "$d-$n/maps" maps-dir "$d-$n/dir" >/dev/null 2>&1 ||
				{ t_fail "$vb: generating / splitting the hooked image"; continue; }
			if "$ART" hooks --json "$d-$n/dir" >"$d-$n/got.json" 2>"$TMP/hk.err"; then
				want=$(hooks_set "$d-$n/hooks.json") got=$(hooks_set "$d-$n/got.json")
				checked=$(jq .methods_checked "$d-$n/got.json") total=$(jq .art_methods "$d-$n/hooks.json")
				[ "$want" = "$got" ] && [ "$checked" = "$total" ] &&
					t_ok "$vb: artcarve hooks finds the $n injected hooks among $total ArtMethods" ||
					t_fail "$vb: hooks: want [$want] got [$got], checked $checked of $total"
			else
				t_fail "$vb: artcarve hooks: $(head -n 2 "$TMP/hk.err")"
			fi
		done
		if "$ART" hooks --json --maps "$d-3/maps" "$d-3/core" >"$d-3/core.json" 2>"$TMP/hk.err" &&
		   [ "$(hooks_set "$d-3/core.json")" = "$(hooks_set "$d-3/hooks.json")" ]; then
			t_ok "$vb: artcarve hooks on the ELF core"
		else
			t_fail "$vb: artcarve hooks on the ELF core: $(head -n 1 "$TMP/hk.err"), want [$(hooks_set "$d-3/hooks.json")]"
		fi
	done
fi

# samples/: the committed bytes match their checksums, and `make samples` reproduces them
if (cd samples && sha256sum --quiet -c SHA256SUMS) >"$TMP/sums.out" 2>&1; then
	t_ok "samples/ match samples/SHA256SUMS"
else
	t_fail "samples/ differ from SHA256SUMS: $(head -n 3 "$TMP/sums.out")"
fi
if make -s samples SAMPLES_DIR="$TMP/samples" >/dev/null 2>"$TMP/make.err"; then
	t_same "make samples reproduces SHA256SUMS" "$TMP/samples/SHA256SUMS" samples/SHA256SUMS
	for s in samples/android*/; do
		out=$($CHECK "$s" 2>&1 | tail -n 1)
		[ "$out" = agree ] && t_ok "$s: checker agrees" || t_fail "$s: checker: $out"
	done
else
	t_fail "make samples: $(head -n 3 "$TMP/make.err")"
fi

# bad usage
"$SYNTH" --version 4.4 --bits 32 --out "$TMP/x" 2>/dev/null; [ $? = 2 ] && t_ok "unknown version: exit 2" || t_fail "unknown version"
t_done

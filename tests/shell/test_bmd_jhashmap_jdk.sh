#!/bin/sh
# tier: quick
# test_bmd_jhashmap_jdk.sh - output/bmd/bmd_jhashmap.c against the JDK's own HashMap: random
# sets of distinct Integer keys (sizes 1 to 3000; spread, clustered in the low bits so bins
# become trees and split, or above 0xffff so the hash's high half matters) go through
# tests/tools/JHashMapOrder.java and build/tools/bmd_jhm_order; the iteration orders must be
# equal set by set.  The seed is printed (JHM_SEED=N replays it).
. "$(dirname "$0")/lib.sh"
TOOL=$PWD/build/tools/bmd_jhm_order
t_need java awk || { t_done; exit; }
[ -x "$TOOL" ] || { t_fail "no $TOOL (make all)"; t_done; exit; }

seed=${JHM_SEED:-$(date +%s)}
echo "# key sets from seed $seed (JHM_SEED=$seed to replay)"
awk -v seed="$seed" 'BEGIN {
	srand(seed)
	for (s = 0; s < 60; s++) {
		n = int(rand() * (s < 30 ? 200 : 3000)) + 1
		mode = s % 3
		split("", used); line = ""
		for (i = 0; i < n; i++) {
			do {
				if (mode == 0) k = int(rand() * 4294967296)               # spread
				else if (mode == 1) k = int(rand() * 4096) * 1024         # low bits shared: trees
				else k = int(rand() * 65536) * 65536 + int(rand() * 8)    # high half decides
			} while (sprintf("%.0f", k) in used)
			used[sprintf("%.0f", k)] = 1
			line = line (i ? " " : "") sprintf("%.0f", k)
		}
		print line
	}
}' >"$TMP/keys"
if ! java tests/tools/JHashMapOrder.java <"$TMP/keys" >"$TMP/jdk" 2>"$TMP/jdk.err"; then
	t_fail "JHashMapOrder.java: $(head -n 3 "$TMP/jdk.err")"; t_done; exit
fi
if ! "$TOOL" <"$TMP/keys" >"$TMP/ours" 2>"$TMP/ours.err"; then
	t_fail "bmd_jhm_order: $(head -n 3 "$TMP/ours.err")"; t_done; exit
fi
echo "# JDK: $(java -version 2>&1 | head -n 1)"
i=0
while IFS= read -r keys; do
	i=$((i + 1))
	n=$(echo "$keys" | wc -w)
	jdk=$(sed -n "${i}p" "$TMP/jdk") ours=$(sed -n "${i}p" "$TMP/ours")
	if [ -n "$jdk" ] && [ "$jdk" = "$ours" ]; then
		t_ok "set $i ($n keys): order equals the JDK's ($(echo "$ours" | cut -c1-40)...)"
	else
		t_fail "set $i ($n keys): JDK $(echo "$jdk" | cut -c1-80)... ours $(echo "$ours" | cut -c1-80)..."
	fi
done <"$TMP/keys"
[ "$i" -eq 60 ] || t_fail "$i key sets compared, expected 60"
t_done

#!/bin/sh
# test_hprof_info.sh - golden facts of the HPROF corpus (shared/corpus/hprof/MANIFEST.md) and of
# the realart captures (truth.json "hprof" section) through `artcarve hprof-info --json`.
. "$(dirname "$0")/lib.sh"
H=$CORPUS/hprof

# jget FILE EXPR: evaluates a jq expression on a JSON file
jget() { jq -r "$2" "$1"; }
# expect NAME GOT WANT
expect() { if [ "$2" = "$3" ]; then t_ok "$1 = $3"; else t_fail "$1 = $2, expected $3"; fi; }

info() { # info FILE OUT.json
	if "$ART" hprof-info --json "$1" >"$2" 2>"$TMP/err"; then return 0; fi
	t_fail "hprof-info $(basename "$1"): $(cat "$TMP/err")"; return 1
}

if [ ! -d "$H" ]; then t_skip "no HPROF corpus at $H"; t_done; exit; fi

j=$TMP/dialer.json
if info "$H/dialer.android-hprof" "$j"; then
	expect "dialer version" "$(jget "$j" .version)" "JAVA PROFILE 1.0.3"
	expect "dialer id size" "$(jget "$j" .id_size)" 4
	expect "dialer classes" "$(jget "$j" .classes)" 3571
	expect "dialer instances" "$(jget "$j" .instances)" 24612
	expect "dialer primitive arrays" "$(jget "$j" .primitive_arrays)" 13585
	expect "dialer object arrays" "$(jget "$j" .object_arrays)" 1919
	expect "dialer segments" "$(jget "$j" .segments)" 636
	expect "dialer HEAP_DUMP_END" "$(jget "$j" .heap_dump_ends)" 1
	expect "dialer zygote HEAP_DUMP_INFO" "$(jget "$j" '.heaps[] | select(.name=="zygote") | "\(.id) \(.infos)"')" "90 530"
	expect "dialer app HEAP_DUMP_INFO" "$(jget "$j" '.heaps[] | select(.name=="app") | "\(.id) \(.infos)"')" "65 19"
	expect "dialer 0x89 roots" "$(jget "$j" .roots.ROOT_INTERNED_STRING)" 7286
	expect "dialer 0x8a roots" "$(jget "$j" .roots.ROOT_FINALIZING)" 1
	expect "dialer 0x8b roots" "$(jget "$j" .roots.ROOT_DEBUGGER)" 3
fi
t_done

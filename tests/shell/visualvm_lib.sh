# tests/shell/visualvm_lib.sh - VisualVM's heap library (Debian visualvm) as an independent
# HPROF reader, shared by the carve tests; source it after lib.sh.  It compiles
# tests/tools/HprofLoad.java once (vv=yes), or records one failure naming what is missing.
JAR=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
vv=no
if [ -f "$JAR" ] && command -v javac >/dev/null 2>&1 &&
	javac -cp "$JAR" -d "$TMP" tests/tools/HprofLoad.java 2>"$TMP/javac.err"; then
	vv=yes
else
	t_fail "VisualVM heap library or javac missing ($(head -n 1 "$TMP/javac.err" 2>/dev/null))"
fi

# check_visualvm NAME HPROF JSON: VisualVM loads HPROF with the class and instance counts the
# carve summary JSON reports (instances + arrays + string character arrays + mark arrays +
# address alias and walk gap instances; classes + the five mark classes + the alias and walk
# gap classes when used)
check_visualvm() {
	[ $vv = yes ] || return
	out=$(java -cp "$JAR:$TMP" HprofLoad "$2" </dev/null 2>"$TMP/vv.err")
	got_c=$(echo "$out" | sed -n 's/^classes //p'); got_i=$(echo "$out" | sed -n 's/^instances //p')
	want_c=$(jq '.output.classes + 5 + (if (.output.alias_windows // 0) > 0 then 1 else 0 end) +
		(if (.output.walk_gaps // 0) > 0 then 1 else 0 end)' "$3")
	want_i=$(jq '.output | .instances + .object_arrays + .primitive_arrays + .string_arrays + .mark_arrays +
		(.alias_windows // 0) + (.walk_gaps // 0)' "$3")
	if [ -n "$got_c" ] && [ "$got_c" = "$want_c" ] && [ "$got_i" = "$want_i" ]; then
		t_ok "$1: VisualVM loads $got_c classes and $got_i instances, as carve reports"
	else
		t_fail "$1: VisualVM: classes '$got_c' instances '$got_i', carve says $want_c and $want_i $(head -n 2 "$TMP/vv.err")"
	fi
}

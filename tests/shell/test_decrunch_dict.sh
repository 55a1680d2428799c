#!/bin/sh
# test_decrunch_dict.sh - hashed-string recovery from a JAR.  Compiles a small Java program
# (javac + jar, at test time, into $TMP), dumps its own heap with
# HotSpotDiagnosticMXBean.dumpHeap (64-bit JVM: 8-byte identifiers), crunches it, then
# decrunches with and without the JAR: the program's class names must come back in clear
# only with it (HotSpot writes "dictest/Holder", the names JarStringReader yields).
. "$(dirname "$0")/lib.sh"

t_need javac jar java jq || { t_done; exit; }

mkdir -p "$TMP/src/dictest" "$TMP/classes"
cat >"$TMP/src/dictest/DumpMe.java" <<'EOF'
package dictest;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class DumpMe {
    static Holder keep;

    public static void main(String[] args) throws Exception {
        Holder h = new Holder();
        for (int i = 0; i < 50; i++) h.nodes.add(new Holder.Node(i, "node-" + i));
        h.widget = new Widget$Part();
        keep = h;
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
    }
}
EOF
cat >"$TMP/src/dictest/Holder.java" <<'EOF'
package dictest;

import java.util.ArrayList;
import java.util.List;

public class Holder {
    List<Node> nodes = new ArrayList<>();
    Widget$Part widget;
    long stamp = 42L;

    static class Node {
        final int value;
        final String label;
        Node(int value, String label) { this.value = value; this.label = label; }
    }
}
EOF
cat >"$TMP/src/dictest/Widget\$Part.java" <<'EOF'
package dictest;

public class Widget$Part {
    double weight = 1.5;
}
EOF

if ! javac -d "$TMP/classes" "$TMP/src/dictest/"*.java 2>"$TMP/err"; then
	t_fail "javac: $(head -n 3 "$TMP/err")"; t_done; exit
fi
(cd "$TMP/classes" && jar cf "$TMP/dictest.jar" dictest) || { t_fail "jar failed"; t_done; exit; }
if ! java -cp "$TMP/dictest.jar" dictest.DumpMe "$TMP/heap.hprof" 2>"$TMP/err"; then
	t_fail "heap dump: $(head -n 3 "$TMP/err")"; t_done; exit
fi
t_ok "heap dump of the test program ($(wc -c <"$TMP/heap.hprof") bytes)"

idsz=$("$ART" hprof-info --json "$TMP/heap.hprof" | jq -r .id_size)
# (the 8-byte identifier path is what this dump is for: another size is a failure)
if [ "$idsz" = 8 ]; then t_ok "64-bit JVM dump has 8-byte ids"; else t_fail "JVM wrote id size '$idsz', expected 8"; fi

if "$ART" crunch -q "$TMP/heap.hprof" "$TMP/heap.bmd" 2>"$TMP/err"; then
	t_ok "crunch"
else
	t_fail "crunch: $(cat "$TMP/err")"; t_done; exit
fi

# names as HotSpot writes them: package/Class, nested classes with '$'
names="dictest/DumpMe dictest/Holder dictest/Holder\$Node dictest/Widget\$Part"
has_name() { LC_ALL=C grep -a -c -F "$2" "$1" >/dev/null; }

"$ART" decrunch -q "$TMP/heap.bmd" "$TMP/plain.hprof" 2>"$TMP/err" || t_fail "decrunch without JAR: $(cat "$TMP/err")"
for n in $names; do
	if has_name "$TMP/plain.hprof" "$n"; then t_fail "$n in clear without a dictionary"
	else t_ok "$n hashed without a dictionary"; fi
done

if "$ART" decrunch "$TMP/heap.bmd" "$TMP/dict.hprof" "$TMP/dictest.jar" 2>"$TMP/err"; then
	for n in $names; do
		if has_name "$TMP/dict.hprof" "$n"; then t_ok "$n recovered from the JAR"
		else t_fail "$n not recovered from the JAR"; fi
	done
	rec=$(sed -n 's/.*, \([0-9]*\) recovered).*/\1/p' "$TMP/err")
	[ "${rec:-0}" -ge 4 ] && t_ok "summary reports $rec recovered strings" || t_fail "summary: $(cat "$TMP/err")"
	# the recovered file is still a consistent HPROF with the same objects
	a=$("$ART" hprof-info --json "$TMP/dict.hprof" | jq -r '[.classes, .instances] | @tsv')
	b=$("$ART" hprof-info --json "$TMP/heap.hprof" | jq -r '[.classes, .instances] | @tsv')
	[ "$a" = "$b" ] && t_ok "classes/instances unchanged ($a)" || t_fail "counts $a vs $b"
else
	t_fail "decrunch with JAR: $(cat "$TMP/err")"
fi

# --mat output with the JAR: loadable structure and the names in clear
if "$ART" decrunch -q --mat "$TMP/heap.bmd" "$TMP/mat.hprof" "$TMP/dictest.jar" 2>"$TMP/err"; then
	out=$(build/tools/bmd_hprof_check --mat "$TMP/mat.hprof")
	case $out in ok:*) t_ok "--mat with JAR: $out" ;; *) t_fail "--mat with JAR: $out" ;; esac
	has_name "$TMP/mat.hprof" "dictest/Holder" && t_ok "--mat keeps recovered names" || t_fail "--mat lost names"
else
	t_fail "decrunch --mat with JAR: $(cat "$TMP/err")"
fi

# --jdk with a module of the program's classes, built by jmod as the JDK's modules are: the
# classes the dump's strings name are inflated, so their names and their fields' names come back
t_need jmod && {
mkdir -p "$TMP/mod"
echo 'module dictest { requires java.management; requires jdk.management; }' >"$TMP/module-info.java"
if javac -d "$TMP/mod" "$TMP/module-info.java" "$TMP/src/dictest/"*.java 2>"$TMP/err" &&
	jmod create --class-path "$TMP/mod" "$TMP/dictest.jmod" 2>"$TMP/err"; then
	if "$ART" decrunch --jdk "$TMP/dictest.jmod" "$TMP/heap.bmd" "$TMP/jdk.hprof" 2>"$TMP/err"; then
		miss=""
		for n in $names stamp widget nodes; do has_name "$TMP/jdk.hprof" "$n" || miss="$miss $n"; done
		[ -z "$miss" ] && t_ok "--jdk module: class and field names recovered ($(sed -n 's/.*(\(.*\)),.*/\1/p' "$TMP/err" | head -n 1))" ||
			t_fail "--jdk module: not recovered:$miss"
	else
		t_fail "decrunch --jdk module: $(cat "$TMP/err")"
	fi
	# a BMD naming none of its classes decrunches to Badoo's bytes: pass A holds its strings,
	# LOAD_CLASS and LEGACY records while the module is read and writes them in BMD order
	# (hprof-slurp's strings are interleaved with class definitions)
	for n in dialer hprof-slurp-hprof-32; do
		G=$SHARED/corpus/hprof/badoo-golden
		"$ART" decrunch -q --badoo --jdk "$TMP/dictest.jmod" "$G/$n.bmd" "$TMP/$n.hprof" 2>"$TMP/err" &&
			cmp -s "$TMP/$n.hprof" "$G/$n.decrunched.hprof" && t_ok "--badoo --jdk module, $n.bmd: Badoo's output byte for byte" ||
			t_fail "--badoo --jdk module, $n.bmd: differs from Badoo's output $(cat "$TMP/err")"
	done
	"$ART" decrunch -q --jdk "$TMP/heap.hprof" "$TMP/heap.bmd" "$TMP/x.hprof" 2>"$TMP/err"
	rc=$?; [ $rc = 2 ] && t_ok "--jdk FILE not a .jmod: exit 2 ($(cat "$TMP/err"))" || t_fail "--jdk FILE.hprof: exit $rc"
	head -c 2000 "$TMP/dictest.jmod" >"$TMP/cut.jmod"
	"$ART" decrunch -q --jdk "$TMP/cut.jmod" "$TMP/heap.bmd" "$TMP/x.hprof" 2>"$TMP/err"
	rc=$?; [ $rc = 1 ] && grep -q cut.jmod "$TMP/err" && t_ok "truncated jmod rejected: $(cat "$TMP/err")" ||
		t_fail "truncated jmod: exit $rc $(cat "$TMP/err")"
else
	t_fail "jmod create: $(head -n 3 "$TMP/err")"
fi
}

# string sources other than .jar/.apk/.dex are a usage error; a broken JAR is rejected
"$ART" decrunch -q "$TMP/heap.bmd" "$TMP/x.hprof" "$TMP/heap.hprof" 2>"$TMP/err"
rc=$?; [ $rc = 2 ] && t_ok "unknown string source: exit 2" || t_fail "unknown string source: exit $rc"
[ ! -e "$TMP/x.hprof" ] && t_ok "no output left after a usage error" || t_fail "output left behind"
head -c 100 "$TMP/dictest.jar" >"$TMP/broken.jar"
"$ART" decrunch -q "$TMP/heap.bmd" "$TMP/x.hprof" "$TMP/broken.jar" 2>"$TMP/err"
rc=$?; [ $rc = 1 ] && t_ok "truncated JAR rejected: $(cat "$TMP/err")" || t_fail "truncated JAR: exit $rc"
[ ! -e "$TMP/x.hprof" ] && t_ok "no output left after a rejected JAR" || t_fail "output left behind"

t_done

#!/bin/sh
# test_codec_loaders.sh - decrunched files through an independent HPROF loader: VisualVM's
# heap library (Debian package visualvm, org-graalvm-visualvm-lib-jfluid-heap.jar), driven by
# a small Java program compiled here.  `decrunch --mat` output of the corpus BMDs (4- and
# 8-byte ids) must load with the class, object and root counts of the original HPROF, every
# instance's fields must decode, and int[] must resolve by name.  For a JVM dump, the names
# decrunch --mat recovers from the installed JDK's jmods must let VisualVM compute every
# instance's size as it does on the original (its ObjectSizeSettings reads java/lang/System.props).
. "$(dirname "$0")/lib.sh"
G=$CORPUS/hprof/badoo-golden
JAR=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar

t_need javac java || { t_done; exit; }
[ -f "$JAR" ] || { t_fail "no VisualVM heap library at $JAR (make deps installs visualvm)"; t_done; exit; }
t_corpus "$G" || { t_done; exit; }

cat >"$TMP/Load.java" <<'EOF2'
import org.graalvm.visualvm.lib.jfluid.heap.*;
import java.io.File;

public class Load {
    public static void main(String[] a) throws Exception {
        Heap h = HeapFactory.createHeap(new File(a[0]));
        long objects = 0, fields = 0;
        for (JavaClass c : h.getAllClasses()) {
            objects += c.getInstancesCount();
            for (Instance i : c.getInstances())
                fields += i.getFieldValues().size();
        }
        JavaClass ia = h.getJavaClassByName("int[]");
        System.out.println(h.getAllClasses().size() + " " + objects + " " + h.getGCRoots().size() + " "
                + (ia == null ? "no-int[]" : "int[]=" + ia.getInstancesCount()));
    }
}
EOF2
cat >"$TMP/Sizes.java" <<'EOF2'
import org.graalvm.visualvm.lib.jfluid.heap.*;
import java.io.File;

public class Sizes {
    public static void main(String[] a) throws Exception {
        Heap h = HeapFactory.createHeap(new File(a[0]));
        long n = 0, bytes = 0;
        for (JavaClass c : h.getAllClasses())
            for (Instance i : c.getInstances()) {
                bytes += i.getSize();
                n++;
            }
        System.out.println("sizes of " + n + " instances: " + bytes + " bytes");
    }
}
EOF2
if ! javac -cp "$JAR" -d "$TMP" "$TMP/Load.java" "$TMP/Sizes.java" 2>"$TMP/err"; then
	t_fail "javac Load.java: $(head -n 3 "$TMP/err")"; t_done; exit
fi
# VisualVM writes an index cache beside the file it loads: the corpus (read-only, and input that
# is never written) is loaded through a link in $TMP, so the cache lands there.
load() {
	case "$1" in "$TMP"/*) f=$1 ;; *) f=$TMP/orig.$(basename "$1"); ln -sf "$1" "$f" ;; esac
	java -cp "$JAR:$TMP" Load "$f" 2>"$TMP/err" | tail -n 1
}

# dialer (Android) and the 1.0.1 JVM dump (4-byte ids).  Badoo's own layout fails here ("Invalid type 8": primitive
# array classes are found by name, and Badoo hashes "byte[]"); --mat restores those names.
for n in dialer hprof-slurp-hprof-32; do
	src=$G/../dialer.android-hprof; [ $n = dialer ] || src=$G/../$n.hprof
	want=$(load "$src")
	"$ART" decrunch -q --mat "$G/$n.bmd" "$TMP/$n.hprof" || { t_fail "decrunch --mat $n"; continue; }
	got=$(load "$TMP/$n.hprof")   # VisualVM caches an index beside each file: one name per file
	[ -n "$got" ] && [ "$got" = "$want" ] && t_ok "VisualVM loads decrunch --mat $n like the original ($got)" ||
		t_fail "VisualVM on decrunch --mat $n: '$got', original '$want' $(head -n 2 "$TMP/err")"
done

# 8-byte identifiers: crunch + decrunch --mat of the JDK 17 dump
if "$ART" crunch -q "$G/jdk17-jvm.hprof" "$TMP/j8.bmd" && "$ART" decrunch -q --mat "$TMP/j8.bmd" "$TMP/j8.hprof"; then
	want=$(load "$G/jdk17-jvm.hprof"); got=$(load "$TMP/j8.hprof")
	[ -n "$got" ] && [ "$got" = "$want" ] && t_ok "VisualVM loads the id-8 round trip like the original ($got)" ||
		t_fail "VisualVM on the id-8 round trip: '$got', original '$want' $(head -n 2 "$TMP/err")"
	# instance sizes: the original, then the round trip with the JDK's names (the default
	# jmods and the JDK home given explicitly read the same) and without them
	ln -sf "$G/jdk17-jvm.hprof" "$TMP/orig-sizes.hprof"
	want=$(java -cp "$JAR:$TMP" Sizes "$TMP/orig-sizes.hprof" 2>"$TMP/err" | tail -n 1)
	got=$(java -cp "$JAR:$TMP" Sizes "$TMP/j8.hprof" 2>"$TMP/err" | tail -n 1)
	[ -n "$got" ] && [ "$got" = "$want" ] && t_ok "VisualVM computes the id-8 round trip's instance sizes like the original's ($got)" ||
		t_fail "VisualVM sizes of the id-8 round trip: '$got', original '$want' $(grep -m 2 -i 'exception' "$TMP/err")"
	if "$ART" decrunch -q --mat --jdk /usr/lib/jvm/default-java "$TMP/j8.bmd" "$TMP/j8-home.hprof"; then
		t_same "decrunch --mat --jdk JDK_HOME = the default jmods" "$TMP/j8-home.hprof" "$TMP/j8.hprof"
	else t_fail "decrunch --mat --jdk /usr/lib/jvm/default-java"; fi
	with=$("$ART" decrunch --mat "$TMP/j8.bmd" "$TMP/j8-b.hprof" 2>&1 | sed -n 's/.* \([0-9]*\) recovered.*/\1/p')
	without=$("$ART" decrunch --mat --no-jdk "$TMP/j8.bmd" "$TMP/j8-n.hprof" 2>&1 | sed -n 's/.* \([0-9]*\) recovered.*/\1/p')
	[ -n "$with" ] && [ -n "$without" ] && [ "$with" -gt $((without + 5000)) ] &&
		t_ok "the JDK's names recover $with hashed strings, $without without them" ||
		t_fail "recovered with the JDK '$with', without '$without'"
else
	t_fail "crunch/decrunch of jdk17-jvm.hprof"
fi
"$ART" decrunch -q --mat --jdk "$TMP/no-such-jdk" "$G/dialer.bmd" "$TMP/x.hprof" 2>"$TMP/err"; rc=$?
[ $rc = 3 ] && [ ! -e "$TMP/x.hprof" ] && grep -q "no-such-jdk" "$TMP/err" && t_ok "a missing --jdk path: exit 3, no output ($(cat "$TMP/err"))" ||
	t_fail "missing --jdk path: exit $rc, $(cat "$TMP/err")"
"$ART" decrunch -q --mat --jdk /usr/lib/jvm/default-java --no-jdk "$G/dialer.bmd" "$TMP/x.hprof" 2>/dev/null
[ $? = 2 ] && t_ok "--jdk with --no-jdk: usage error" || t_fail "--jdk with --no-jdk accepted"
t_done

/* JHashMapOrder.java - the JDK's own HashMap<Integer, Integer> iteration order, the oracle for
 * output/bmd/bmd_jhashmap.c (tests/unit/test_bmd_jhashmap.c, tests/shell/test_bmd_jhashmap_jdk.sh).
 * Run as `java tests/tools/JHashMapOrder.java < keys`. */
import java.io.*;
import java.util.*;

/* One line of decimal keys (unsigned 32-bit, as Integer bit patterns) in, one line of
 * insertion indices in HashMap<Integer, Integer>.values() order out. */
public class JHashMapOrder {
    public static void main(String[] a) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null;) {
            HashMap<Integer, Integer> m = new HashMap<>();
            String[] t = line.trim().split("\\s+");
            int i = 0;
            for (String s : t)
                if (!s.isEmpty())
                    m.put((int) Long.parseLong(s), i++);
            StringBuilder b = new StringBuilder();
            for (int v : m.values())
                b.append(v).append(',');
            out.append(b).append('\n');
        }
        System.out.print(out);
    }
}

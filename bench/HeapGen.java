// HeapGen.java - builds a large, linked object graph on a real JVM and writes a heap dump of it
// with HotSpotDiagnosticMXBean.dumpHeap (HPROF 1.0.2, 8-byte ids), for bench/codec.sh.
//   java -Xmx2g HeapGen OUT.hprof [NODES]
// Every field type appears (boolean, byte, char, short, int, long, float, double, references),
// with primitive arrays of every element type, object arrays, and strings (some non-ASCII).
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class HeapGen {
    static class Node {
        boolean flag;
        byte b;
        char c;
        short s;
        int i;
        long l;
        float f;
        double d;
        Node next;
        Node other;
        Object payload;
        String name;
    }

    static class Leaf extends Node {
        int[] ints;
        long stamp;
    }

    static final class Holder {
        static List<Node> roots = new ArrayList<>();
        static Map<String, Node> index = new HashMap<>();
        static Object[] misc;
    }

    static Object payload(int k) {
        switch (k % 9) {
            case 0: return new boolean[] { true, false, k % 2 == 0 };
            case 1: return new byte[] { (byte) k, (byte) (k >> 8), 7, 8 };
            case 2: return new char[] { 'a', (char) ('a' + k % 26), '\u00e9' };
            case 3: return new short[] { (short) k, (short) -k };
            case 4: return new int[] { k, k * 3, -k, 42 };
            case 5: return new long[] { k * 1000003L, -1L };
            case 6: return new float[] { k * 0.5f, Float.NaN };
            case 7: return new double[] { k * 0.25, Math.PI };
            default: return new Object[] { "s" + k, null, Integer.valueOf(k) };
        }
    }

    public static void main(String[] args) throws Exception {
        String out = args.length > 0 ? args[0] : "heap.hprof";
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 600000;
        Node prev = null;
        for (int k = 0; k < n; k++) {
            Node x = (k % 5 == 0) ? new Leaf() : new Node();
            x.flag = (k & 1) != 0;
            x.b = (byte) k;
            x.c = (char) ('A' + k % 26);
            x.s = (short) (k * 7);
            x.i = k;
            x.l = k * 31L << 20;
            x.f = k / 3.0f;
            x.d = k / 7.0;
            x.name = (k % 10 == 0) ? "n\u00f6de-" + k : "node-" + k;
            x.payload = payload(k);
            x.next = prev;
            if (prev != null && k % 3 == 0) x.other = prev.next;
            if (x instanceof Leaf) {
                ((Leaf) x).ints = new int[k % 16];
                ((Leaf) x).stamp = System.nanoTime();
            }
            prev = x;
            if (k % 1000 == 0) {
                Holder.roots.add(x);
                Holder.index.put(x.name, x);
            }
        }
        Holder.roots.add(prev);
        Holder.misc = new Object[] { new String[] { "alpha", "\u4e2d\u6587" }, new int[1 << 16] };
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(out, true);
        System.out.println("wrote " + out + " with " + n + " nodes; roots " + Holder.roots.size());
    }
}

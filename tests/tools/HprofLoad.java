// HprofLoad.java - loads an HPROF with VisualVM's heap library (Debian visualvm,
// org.graalvm.visualvm.lib.jfluid.heap) and prints what it sees, so a test can compare it
// with the generator's truth: "classes N", "instances N" (class dumps excluded), then one line
// "obj <id hex> <class name> <field>=<value>..." per object id given on stdin.
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.util.List;

import org.graalvm.visualvm.lib.jfluid.heap.FieldValue;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectFieldValue;
import org.graalvm.visualvm.lib.jfluid.heap.PrimitiveArrayInstance;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectArrayInstance;

public class HprofLoad {
    public static void main(String[] args) throws Exception {
        Heap heap = HeapFactory.createHeap(new File(args[0]));
        List<JavaClass> classes = heap.getAllClasses();
        long instances = 0;
        for (JavaClass c : classes)
            instances += c.getInstancesCount();
        System.out.println("classes " + classes.size());
        System.out.println("instances " + instances);
        System.out.println("roots " + heap.getGCRoots().size());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            long id = Long.parseLong(line.trim(), 16);
            Instance i = heap.getInstanceByID(id);
            if (i == null) {
                System.out.println("obj " + Long.toHexString(id) + " MISSING");
                continue;
            }
            StringBuilder sb = new StringBuilder("obj " + Long.toHexString(id) + " " + i.getJavaClass().getName());
            if (i instanceof PrimitiveArrayInstance)
                sb.append(" length=").append(((PrimitiveArrayInstance) i).getLength());
            else if (i instanceof ObjectArrayInstance)
                sb.append(" length=").append(((ObjectArrayInstance) i).getLength());
            else
                for (Object o : i.getFieldValues()) {
                    FieldValue f = (FieldValue) o;
                    String v = f.getValue();
                    if (f instanceof ObjectFieldValue) {
                        Instance r = ((ObjectFieldValue) f).getInstance();
                        v = r == null ? "null" : Long.toHexString(r.getInstanceId());
                    }
                    sb.append(' ').append(f.getField().getName()).append('=').append(v);
                }
            System.out.println(sb);
        }
    }
}

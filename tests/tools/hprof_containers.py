#!/usr/bin/env python3
"""hprof_containers.py - test tool: the entries of the JDK containers of an HPROF heap dump,
walked on their own (no artcarve code) from the instance dumps by field name, compared with the
"entries" of carve's objects.jsonl at the same addresses.

  hprof_containers.py HPROF OBJECTS.jsonl

Containers: java.util.ArrayList (elementData, size), LinkedList (first, size; Node item,
next), ArrayDeque (elements, head, tail), HashMap and LinkedHashMap (table; Node key, value,
next), HashSet (map: its keys), TreeMap (root; TreeMapEntry left, key, value, right, in
order).  A value compares as a String's text, a box's value (java.lang.Integer ... Double,
Character as its character), an enum constant's name, null, or the address of any other
object; hash containers
compare as multisets (their order is the table's).  Prints one line per class (containers,
entries, equal) and the first differences; exit 0 when every container with entries matches
and at least one of each class with entries was found, 1 otherwise, 2 on bad input."""
import json
import struct
import sys

import hprof_strings

BOXES = {'java.lang.Integer', 'java.lang.Long', 'java.lang.Short', 'java.lang.Byte',
         'java.lang.Double', 'java.lang.Float', 'java.lang.Character', 'java.lang.Boolean'}
FORMATS = {4: '>?', 5: '>H', 6: '>f', 7: '>d', 8: '>b', 9: '>h', 10: '>i', 11: '>q'}
LISTS = {'java.util.ArrayList', 'java.util.LinkedList', 'java.util.ArrayDeque'}
MAPS = {'java.util.HashMap', 'java.util.LinkedHashMap', 'java.util.TreeMap'}
SETS = {'java.util.HashSet', 'java.util.LinkedHashSet'}
BOUND = 1000000


class Heap(hprof_strings.Hprof):
    def index(self):
        self.inst = {obj: (cls, off) for obj, cls, off, _ in self.strings}
        self.texts = dict(self.each_string())
        self.plans = {}

    def field(self, obj, name):
        cls, off = self.inst[obj]
        if cls not in self.plans:
            self.plans[cls] = {n: (t, o) for n, t, o in reversed(self.layout(cls))}
        t, o = self.plans[cls][name]
        if t == 2:
            return self.rid(off + o)
        return struct.unpack_from(FORMATS[t], self.d, off + o)[0]

    def elements(self, arr):
        cnt, off = self.obj_arrays.get(arr, (0, 0))
        return [self.rid(off + k * self.idsize) for k in range(cnt)]

    def value(self, ref):
        if ref == 0:
            return None
        if ref in self.texts:
            return self.texts[ref]
        if ref in self.inst and self.name_of(self.inst[ref][0]) in BOXES:
            v = self.field(ref, 'value')
            return chr(v) if self.name_of(self.inst[ref][0]) == 'java.lang.Character' else v
        if ref in self.inst and self.is_enum(self.inst[ref][0]):
            return self.texts.get(self.field(ref, 'name'))
        return '0x%x' % ref

    def is_enum(self, cid):
        for _ in range(4096):
            if cid not in self.classes:
                return False
            cid = self.classes[cid][0]
            if self.name_of(cid) == 'java.lang.Enum':
                return True
        return False

    def chain(self, node, item, key=None):
        out = []
        while node and len(out) < BOUND:
            out.append((self.value(self.field(node, key)), self.value(self.field(node, item))) if key
                       else self.value(self.field(node, item)))
            node = self.field(node, 'next')
        return out

    def tree(self, node):
        out, stack = [], []
        while (node or stack) and len(out) < BOUND:
            if node:
                stack.append(node)
                node = self.field(node, 'left')
                continue
            node = stack.pop()
            out.append((self.value(self.field(node, 'key')), self.value(self.field(node, 'value'))))
            node = self.field(node, 'right')
        return out

    def entries(self, obj, name):
        if name == 'java.util.ArrayList':
            return [self.value(r) for r in self.elements(self.field(obj, 'elementData'))[:self.field(obj, 'size')]]
        if name == 'java.util.LinkedList':
            return self.chain(self.field(obj, 'first'), 'item')
        if name == 'java.util.ArrayDeque':
            el, head, tail = self.elements(self.field(obj, 'elements')), self.field(obj, 'head'), self.field(obj, 'tail')
            out = []
            while el and head != tail and len(out) < len(el):
                out.append(self.value(el[head]))
                head = (head + 1) % len(el)
            return out
        if name == 'java.util.TreeMap':
            return self.tree(self.field(obj, 'root'))
        if name in SETS:
            return [k for k, _ in self.entries(self.field(obj, 'map'), self.name_of(self.inst[self.field(obj, 'map')][0]))]
        out = []
        for b in self.elements(self.field(obj, 'table')):
            out.extend(self.chain(b, 'value', 'key'))
        return out


def carved_value(v):
    if isinstance(v, dict):
        return v['text'] if 'text' in v else v.get('value', v.get('enum'))
    return v


def carved_entries(line):
    items = line['entries']['items']
    if line['entries']['kind'] == 'map':
        return [(carved_value(i['key']), carved_value(i['value'])) for i in items]
    return [carved_value(i) for i in items]


def canon(entries, unordered):
    return sorted(entries, key=repr) if unordered else entries


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().split('\n\n')[0], file=sys.stderr)
        return 2
    try:
        h = hprof_strings.load(argv[1], Heap)
        h.index()
    except (ValueError, struct.error, IndexError, KeyError) as e:
        print('hprof_containers: %s: %s' % (argv[1], e), file=sys.stderr)
        return 2
    carved = {}
    with open(argv[2], encoding='utf-8') as f:
        for text in f:
            line = json.loads(text)
            if line['class'] in LISTS | MAPS | SETS:
                carved[int(line['address'], 16)] = line
    per, bad = {}, []
    for obj, (cls, _) in sorted(h.inst.items()):
        name = h.name_of(cls)
        if name not in LISTS | MAPS | SETS:
            continue
        want = h.entries(obj, name)
        got = carved_entries(carved[obj]) if obj in carved and 'entries' in carved[obj] else None
        unordered = name in SETS or name in ('java.util.HashMap', 'java.util.LinkedHashMap')
        c = per.setdefault(name, [0, 0, 0])
        c[0] += 1
        c[1] += len(want)
        if got is not None and canon(got, unordered) == canon(want, unordered):
            c[2] += len(want)
        else:
            bad.append('%s 0x%x: hprof %d entries %r, carved %r' % (name, obj, len(want), want[:3],
                                                                   None if got is None else got[:3]))
    for name in sorted(per):
        print('%-24s containers %5d entries %6d equal %6d' % (name, *per[name]))
    for b in bad[:5]:
        print('  differs: %s' % b[:300])
    return 1 if bad or not per else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""hprof_strings.py - test tool: the java.lang.String values of an HPROF heap dump, read on
its own (no artcarve code), compared with `artcarve strings --json`.

  hprof_strings.py list HPROF              one JSON line per String: {"address", "value"}
  hprof_strings.py compare HPROF LIST.json every String of HPROF must be in LIST (the JSON
                                           array `artcarve strings --json` prints) at the
                                           same address with the same text; prints the
                                           counts and the first differences; exit 0 when
                                           all are found, 1 otherwise, 2 on bad input

HPROF as the JDK and ART write it (JAVA PROFILE 1.0.2/1.0.3, 4- or 8-byte identifiers):
STRING, LOAD_CLASS, HEAP_DUMP / HEAP_DUMP_SEGMENT with the standard sub-records and
Android's (HEAP_DUMP_INFO, ROOT_INTERNED_STRING ... ROOT_JNI_MONITOR, UNREACHABLE,
PRIMITIVE_ARRAY_NODATA).  A String instance's text is its `value` field's array: byte[]
(8-bit characters, Latin-1) or char[] (UTF-16 big-endian in HPROF, lone surrogates kept),
`count` characters of it (ART's writer, runtime/hprof/hprof.cc, gives `value` to Strings).
"""
import json
import struct
import sys

TYPE_SIZE = {4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}   # 2 (object) = id size


class Hprof:
    def __init__(self, data):
        self.d = data
        end = data.index(b'\0')
        self.version = data[:end].decode('ascii', 'replace')
        self.idsize = struct.unpack_from('>I', data, end + 1)[0]
        if self.idsize not in (4, 8):
            raise ValueError('identifier size %d' % self.idsize)
        self.pos = end + 1 + 4 + 8
        self.names = {}          # string id -> text
        self.class_name = {}     # class id -> name string id
        self.classes = {}        # class id -> (super id, [(name id, type)])
        self.strings = []        # (address, class id, payload offset, payload length)
        self.arrays = {}         # id -> (type, count, offset)
        self.obj_arrays = {}     # id -> (count, offset of the first element id)

    def rid(self, off):
        return struct.unpack_from('>I' if self.idsize == 4 else '>Q', self.d, off)[0]

    def parse(self):
        d, n = self.d, len(self.d)
        while self.pos < n:
            if n - self.pos < 9:
                raise ValueError('record header cut at %d' % self.pos)
            tag, _, length = struct.unpack_from('>BII', d, self.pos)
            body = self.pos + 9
            if length > n - body:
                raise ValueError('record at %d runs past the end' % self.pos)
            if tag == 0x01:
                self.names[self.rid(body)] = d[body + self.idsize:body + length].decode('utf-8', 'replace')
            elif tag == 0x02:
                cid = self.rid(body + 4)
                self.class_name[cid] = self.rid(body + 8 + self.idsize)
            elif tag in (0x0c, 0x1c):
                self.heap(body, body + length)
            self.pos = body + length

    def heap(self, p, end):
        d, i = self.d, self.idsize
        fixed = {0xff: i, 0x01: 2 * i, 0x02: i + 8, 0x03: i + 8, 0x04: i + 4, 0x05: i, 0x06: i + 4, 0x07: i,
                 0x08: i + 8, 0x89: i, 0x8a: i, 0x8b: i, 0x8c: i, 0x8d: i, 0x8e: i + 8, 0x90: i, 0xfe: 4 + i}
        while p < end:
            t = d[p]
            p += 1
            if t in fixed:
                p += fixed[t]
            elif t == 0x20:
                p = self.class_dump(p)
            elif t == 0x21:
                obj, cls = self.rid(p), self.rid(p + i + 4)
                ln = struct.unpack_from('>I', d, p + 2 * i + 4)[0]
                self.strings.append((obj, cls, p + 2 * i + 8, ln))
                p += 2 * i + 8 + ln
            elif t == 0x22:
                cnt = struct.unpack_from('>I', d, p + i + 4)[0]
                self.obj_arrays[self.rid(p)] = (cnt, p + 2 * i + 8)
                p += 2 * i + 8 + cnt * i
            elif t == 0x23:
                obj = self.rid(p)
                cnt, et = struct.unpack_from('>IB', d, p + i + 4)
                if et not in TYPE_SIZE:
                    raise ValueError('array element type %d at %d' % (et, p))
                self.arrays[obj] = (et, cnt, p + i + 9)
                p += i + 9 + cnt * TYPE_SIZE[et]
            elif t == 0xc3:
                p += i + 9
            else:
                raise ValueError('heap sub-record 0x%02x at %d' % (t, p - 1))
        if p != end:
            raise ValueError('heap dump segment overruns at %d' % p)

    def vsize(self, t):
        return self.idsize if t == 2 else TYPE_SIZE[t]

    def class_dump(self, p):
        d, i = self.d, self.idsize
        cid, sup = self.rid(p), self.rid(p + i + 4)
        p += 7 * i + 4 + 4
        (ncp,) = struct.unpack_from('>H', d, p)
        p += 2
        for _ in range(ncp):
            t = d[p + 2]
            p += 3 + self.vsize(t)
        (nst,) = struct.unpack_from('>H', d, p)
        p += 2
        for _ in range(nst):
            t = d[p + i]
            p += i + 1 + self.vsize(t)
        (nin,) = struct.unpack_from('>H', d, p)
        p += 2
        fields = []
        for _ in range(nin):
            fields.append((self.rid(p), d[p + i]))
            p += i + 1
        self.classes[cid] = (sup, fields)
        return p

    def name_of(self, cid):
        return self.names.get(self.class_name.get(cid), '')

    def layout(self, cid):
        """[(field name, type, offset in the payload)] of an instance: own class first."""
        out, off, seen = [], 0, 0
        while cid in self.classes and seen < 4096:
            sup, fields = self.classes[cid]
            for nid, t in fields:
                out.append((self.names.get(nid, ''), t, off))
                off += self.vsize(t)
            cid, seen = sup, seen + 1
        return out

    def each_string(self):
        plans = {}
        for obj, cls, off, ln in self.strings:
            name = self.name_of(cls)
            if name not in ('java.lang.String', 'java/lang/String'):
                continue
            if cls not in plans:
                plans[cls] = {n: (t, o) for n, t, o in reversed(self.layout(cls))}
            plan = plans[cls]
            if 'value' not in plan or 'count' not in plan:
                continue
            t, o = plan['value']
            vid = self.rid(off + o) if t == 2 else 0
            count = struct.unpack_from('>i', self.d, off + plan['count'][1])[0]
            yield obj, self.text(vid, count)

    def text(self, vid, count):
        if vid not in self.arrays:
            return '' if count == 0 else None
        et, cnt, off = self.arrays[vid]
        n = min(cnt, max(count, 0))
        if et == 8:
            return self.d[off:off + n].decode('latin-1')
        if et == 5:
            return self.d[off:off + 2 * n].decode('utf-16-be', 'surrogatepass')
        return None


def load(path, cls=Hprof):
    """The parsed heap dump at path (ValueError, struct.error, IndexError on bad input)."""
    with open(path, 'rb') as f:
        h = cls(f.read())
    h.parse()
    return h


def main(argv):
    if len(argv) < 3 or argv[1] not in ('list', 'compare') or (argv[1] == 'compare') != (len(argv) == 4):
        print(__doc__.strip().split('\n\n')[0], file=sys.stderr)
        return 2
    try:
        h = load(argv[2])
    except (ValueError, struct.error, IndexError) as e:
        print('hprof_strings: %s: %s' % (argv[2], e), file=sys.stderr)
        return 2
    if argv[1] == 'list':
        for addr, text in h.each_string():
            print(json.dumps({'address': '0x%x' % addr, 'value': text}))
        return 0
    with open(argv[3], encoding='utf-8') as f:
        carved = {}
        for s in json.load(f):
            if s['source'] == 'object':
                carved[int(s['address'], 16)] = s['value']
    truth = found = same = 0
    missing, different = [], []
    for addr, text in h.each_string():
        truth += 1
        if addr not in carved:
            missing.append('0x%x %r' % (addr, (text or '')[:60]))
            continue
        found += 1
        if carved[addr] == text:
            same += 1
        else:
            different.append('0x%x hprof %r carved %r' % (addr, (text or '')[:60], (carved[addr] or '')[:60]))
    print('hprof strings %d, at a carved String address %d, same text %d, carved Strings %d' %
          (truth, found, same, len(carved)))
    for m in missing[:5]:
        print('  missing %s' % m)
    for m in different[:5]:
        print('  different %s' % m)
    return 0 if truth and same == truth else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))

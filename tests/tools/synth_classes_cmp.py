#!/usr/bin/env python3
"""synth_classes_cmp.py TRUTH.json CLASSES.json: compares `artcarve classes --json` with the
generator's truth: every truth class is found at its address with its name, super, object size
and instance fields (name, type, offset, in order); fields the tool derived from the DEX
must reproduce the Class's object size and reference count.  Prints each mismatch; exit 1
on any."""
import json, sys

PRIM = {'Z': 'boolean', 'B': 'byte', 'C': 'char', 'S': 'short', 'I': 'int', 'J': 'long',
        'F': 'float', 'D': 'double', 'V': 'void'}

def java_name(desc):
    dims = 0
    while desc.startswith('['):
        dims += 1
        desc = desc[1:]
    base = PRIM.get(desc) or desc[1:-1].replace('/', '.')
    return base + '[]' * dims

def main():
    truth = json.load(open(sys.argv[1]))
    got = json.load(open(sys.argv[2]))
    by_addr = {int(c['address'], 16): c for c in got['classes']}
    bad = 0
    for t in truth['classes']:
        addr = int(t['addr'], 16)
        g = by_addr.get(addr)
        if g is None:
            print(f"missing class {t['name']} at {t['addr']}"); bad += 1; continue
        problems = []
        if g['name'] != t['name']:
            problems.append(f"name {g['name']!r}")
        gsup = (g.get('super') or {}).get('address')
        if (int(gsup, 16) if gsup else None) != (int(t['super'], 16) if isinstance(t['super'], str) and t['super'].startswith('0x') else (by_name_addr(truth, t['super']))):
            problems.append(f"super {gsup}")
        # ART keeps object_size_ 0 for variable-size classes (Class, String, arrays)
        variable = t['name'].endswith('[]') or t['name'] in ('java.lang.Class', 'java.lang.String')
        if t.get('object_size') and not variable and g.get('object_size') != t['object_size']:
            problems.append(f"object_size {g.get('object_size')} != {t['object_size']}")
        want = [(f['name'], java_name(f['type']), f['offset']) for f in t['fields'] if not f['static']]
        have = [(f['name'], f['type'], f['offset']) for f in g.get('fields', [])]
        # 5.x/6.0 keep ifields_ sorted by name, later versions by offset: compare by name
        if want and sorted(have) != sorted(want):
            diff = sorted(set(have) ^ set(want))
            problems.append(f"fields differ (tool vs truth): {diff}")
        # offsets re-derived by the tool's LinkFields must reproduce the generator's
        # object_size_ and num_reference_instance_fields_ (written by its own LinkFields)
        if g.get('fields_from') == 'dex' and not g.get('fields_checked'):
            problems.append("fields derived from the DEX do not reproduce object_size_ and the reference count")
        if problems:
            print(f"{t['name']} at {t['addr']}: " + '; '.join(problems)); bad += 1
    print(f"{len(truth['classes']) - bad}/{len(truth['classes'])} classes agree")
    return 1 if bad else 0

def by_name_addr(truth, name):
    if name is None:
        return None
    for c in truth['classes']:
        if c['name'] == name:
            return int(c['addr'], 16)
    return -1

sys.exit(main())

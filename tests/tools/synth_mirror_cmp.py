#!/usr/bin/env python3
"""synth_mirror_cmp.py: checks the mirror decoder against the generator's truth.jsonl.

  addrs TRUTH.jsonl              prints the address of every allocated, intact String (5.x:
                                 whose char[] is allocated and intact too)
  strings TRUTH.jsonl OUT FAMILY  OUT = build/tools/mirror_strings output: every String
                                 decodes to the truth's text and the runtime chose FAMILY
  names TRUTH.jsonl CLASSES.json every Class whose name_ the generator set is named by
                                 `artcarve classes` from name_, with the truth's name, and
                                 the name_ String holds Class.getName() (dots; arrays
                                 "[L...;")
Prints each mismatch and a summary line; exit 1 on any mismatch."""
import json, sys


def objects(path):
    with open(path) as f:
        for line in f:
            yield json.loads(line)


def intact(o):
    return o is not None and o['alloc'] == 'allocated' and o['content'] == 'intact'


def intact_strings(truth):
    """Allocated, intact Strings; 5.x: whose char[] (field value) is allocated and intact too
    (an unreachable String may outlive its char[], which a sweep freed and zeroed)."""
    objs = list(objects(truth))
    by_addr = {int(o['addr'], 16): o for o in objs}
    out = []
    for o in objs:
        if o.get('kind') != 'string' or not intact(o):
            continue
        arr = next((f['value'] for f in o['fields'] if f['name'] == 'value'), None)
        if arr is not None and not intact(by_addr.get(int(arr, 16))):
            continue
        out.append(o)
    return out


def cmd_addrs(truth):
    for o in intact_strings(truth):
        print(o['addr'])
    return 0


def cmd_strings(truth, out, family):
    want = {int(o['addr'], 16): o['string'] for o in intact_strings(truth)}
    got, layout, bad = {}, None, 0
    with open(out) as f:
        for line in f:
            parts = line.rstrip('\n').split('\t')
            if parts[0] == 'layout':
                layout = parts[1]
            elif len(parts) == 3:
                got[int(parts[0], 16)] = (parts[1], parts[2])
    if layout != family:
        print(f"runtime layout {layout}, generated {family}")
        bad += 1
    for a, text in sorted(want.items()):
        status, val = got.get(a, ('missing', ''))
        value = bytes.fromhex(val).decode('utf-8', 'replace') if status == 'ok' else None
        if value != text:
            print(f"string at {a:#x}: {status} {value if value is not None else val!r}, truth {text!r}")
            bad += 1
    print(f"{len(want) - bad}/{len(want)} strings equal (layout {layout})")
    return 1 if bad or not want else 0


def cmd_names(truth, classes):
    objs = list(objects(truth))
    strings = {int(o['addr'], 16): o.get('string') for o in objs if o.get('kind') == 'string'}
    got = {int(c['address'], 16): c for c in json.load(open(classes))['classes']}
    named, bad = 0, 0
    for o in objs:
        if o.get('kind') != 'class' or o['alloc'] != 'allocated':
            continue
        ref = next((f['value'] for f in o['fields'] if f['name'] == 'name'), None)
        if not ref:
            continue
        named += 1
        desc = o['descriptor']
        dotted = desc.replace('/', '.') if desc.startswith('[') else desc[1:-1].replace('/', '.')
        c = got.get(int(o['addr'], 16))
        text = strings.get(int(ref, 16))
        if text != dotted:
            print(f"class {o['describes']}: name_ String {text!r}, expected {dotted!r}")
            bad += 1
        if c is None or c['name'] != o['describes'] or c['name_from'] != 'name_':
            print(f"class {o['describes']} at {o['addr']}: artcarve says "
                  f"{(c or {}).get('name')!r} from {(c or {}).get('name_from')!r}")
            bad += 1
    print(f"{named - bad}/{named} classes with name_ named from name_")
    return 1 if bad or named == 0 else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'addrs':
        return cmd_addrs(sys.argv[2])
    if len(sys.argv) == 5 and sys.argv[1] == 'strings':
        return cmd_strings(sys.argv[2], sys.argv[3], sys.argv[4])
    if len(sys.argv) == 4 and sys.argv[1] == 'names':
        return cmd_names(sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


sys.exit(main())

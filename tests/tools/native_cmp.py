#!/usr/bin/env python3
"""native_cmp.py TRUTH.tsv REPORT.json|CASE.db [--no-symbols]

Compares `artcarve native --json` with the truth img_mdgen wrote: every allocation (state,
size, usable size, header, zygote flag, fill counts, first bytes), every damaged byte
(kind, offset from the pointer, found, expected), every backtrace frame (pc, library, file
offset, symbol, symbol offset) and the option set inferred.  A case.db (`carve --native`) is
read through its native_* tables into the same shape.  Prints what it compares and one
summary line; exits 1 on any difference."""
import json
import sqlite3
import sys


def load_db(path):
    """The native tables of case.db as the JSON report of `artcarve native` would hold them."""
    db = sqlite3.connect(path)
    (opts,) = db.execute("SELECT options FROM native_scan").fetchone()
    rows = []
    for r in db.execute("SELECT pointer, header, state, size, usable_size, zygote, fill_alloc_bytes,"
                        " fill_free_bytes, first_bytes FROM native_allocations ORDER BY pointer"):
        a = {"pointer": "0x%x" % r[0], "header": "0x%x" % r[1], "state": r[2], "size": r[3], "usable_size": r[4],
             "zygote": bool(r[5]), "fill_alloc_bytes": r[6], "fill_free_bytes": r[7],
             "first_bytes_hex": bytes(r[8] or b"").hex()}
        a["damage"] = [{"kind": k, "offset": o, "found": "0x%02x" % f, "expected": "0x%02x" % x}
                       for k, o, f, x in db.execute("SELECT kind, offset, found, expected FROM native_damage"
                                                     " WHERE pointer = ?", (r[0],))]
        a["backtrace"] = [{"pc": "0x%x" % pc, "lib": lib, "lib_offset": None if lo is None else "0x%x" % lo,
                           "symbol": sym, "symbol_offset": None if so is None else "0x%x" % so}
                          for pc, lib, lo, sym, so in db.execute("SELECT pc, lib, lib_offset, symbol, symbol_offset"
                                                                  " FROM native_frames WHERE pointer = ? ORDER BY idx",
                                                                  (r[0],))]
        rows.append(a)
    return {"options": opts, "list": rows}


def load_truth(path):
    mix, allocs = {}, {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "mix":
            mix = dict(kv.split("=") for kv in f[1].split())
        elif f[0] == "alloc":
            allocs[int(f[1], 16)] = {"state": f[2], "size": int(f[3]), "usable_size": int(f[4]),
                                     "header": int(f[5], 16), "zygote": f[6] == "1",
                                     "damage": set(), "frames": []}
        elif f[0] == "damage":
            allocs[int(f[1], 16)]["damage"].add((f[2], int(f[3]), int(f[4], 16), int(f[5], 16)))
        elif f[0] == "frame":
            allocs[int(f[1], 16)]["frames"].append((int(f[3], 16), f[4], int(f[5], 16), f[6], int(f[7], 16)))
        elif f[0] == "fill":
            a = allocs[int(f[1], 16)]
            a["fill_alloc_bytes"], a["fill_free_bytes"], a["first"] = int(f[2]), int(f[3]), f[4]
    return mix, allocs


def main():
    truth, report = sys.argv[1], sys.argv[2]
    no_symbols = "--no-symbols" in sys.argv
    mix, want = load_truth(truth)
    rep = load_db(report) if report.endswith(".db") else json.load(open(report))
    got = {int(a["pointer"], 16): a for a in rep["list"]}
    bad = []
    dmg_want = dmg_found = fr_want = fr_named = 0
    for p, w in sorted(want.items()):
        g = got.get(p)
        dmg_want += len(w["damage"])
        fr_want += len(w["frames"])
        if g is None:
            bad.append("allocation 0x%x (%s, size %d) not found" % (p, w["state"], w["size"]))
            continue
        for k in ("state", "size", "usable_size", "zygote", "fill_alloc_bytes", "fill_free_bytes"):
            if g[k] != w[k]:
                bad.append("0x%x %s: got %r, truth %r" % (p, k, g[k], w[k]))
        if int(g["header"], 16) != w["header"]:
            bad.append("0x%x header: got %s, truth 0x%x" % (p, g["header"], w["header"]))
        if g["first_bytes_hex"] != w["first"]:
            bad.append("0x%x first bytes: got %s, truth %s" % (p, g["first_bytes_hex"], w["first"]))
        gd = set((d["kind"], d["offset"], int(d["found"], 16), int(d["expected"], 16)) for d in g.get("damage", []))
        dmg_found += len(gd & w["damage"])
        for d in sorted(w["damage"] - gd):
            bad.append("0x%x damage %s not found" % (p, d))
        for d in sorted(gd - w["damage"]):
            bad.append("0x%x damage %s reported, not injected" % (p, d))
        gf = g.get("backtrace", [])
        if len(gf) != len(w["frames"]):
            bad.append("0x%x: %d frames, truth %d" % (p, len(gf), len(w["frames"])))
        for i, (f, t) in enumerate(zip(gf, w["frames"])):
            pc, lib, off, sym, soff = t
            if int(f["pc"], 16) != pc or f["lib"] != lib or int(f.get("lib_offset") or "0x0", 16) != off:
                bad.append("0x%x frame %d: got %s %s+%s, truth 0x%x %s+0x%x" % (p, i, f["pc"], f["lib"],
                           f.get("lib_offset"), pc, lib, off))
            elif no_symbols:
                if f["symbol"] is not None:
                    bad.append("0x%x frame %d named %s without symbols" % (p, i, f["symbol"]))
            elif f["symbol"] != sym or int(f.get("symbol_offset") or "0x0", 16) != soff:
                bad.append("0x%x frame %d: got %s+%s, truth %s+0x%x" % (p, i, f["symbol"], f.get("symbol_offset"),
                           sym, soff))
            else:
                fr_named += 1
    for p in sorted(set(got) - set(want)):
        bad.append("allocation 0x%x reported, not in the truth" % p)
    # the option set: what a heap can show of it
    al = 16 if mix["bits"] == "64" else 8
    front = (int(mix["front"]) + al - 1) // al * al
    exp = []
    if front and front == int(mix["rear"]):
        exp.append("guard=%d" % front)
    else:
        if front:
            exp.append("front_guard=%d" % front)
        if int(mix["rear"]):
            exp.append("rear_guard=%s" % mix["rear"])
    if int(mix["frames"]):
        exp.append("backtrace=%s" % mix["frames"])
    if mix["fill_alloc"] == "1":
        exp.append("fill_on_alloc")
    if mix["free_track"] == "1":
        exp.append("free_track")
    exp = " ".join(exp) or "none"
    if rep["options"] != exp:
        bad.append("options: got '%s', truth '%s'" % (rep["options"], exp))
    for b in bad[:40]:
        print("  DIFF " + b)
    print("  allocations %d/%d found (%d reported), damage %d/%d found, frames %s %d/%d, options '%s' (truth '%s')"
          % (len(set(got) & set(want)), len(want), len(got), dmg_found, dmg_want,
             "placed" if no_symbols else "named", fr_named if not no_symbols else fr_want - sum(
                 1 for b in bad if " frame " in b), fr_want, rep["options"], exp))
    sys.exit(1 if bad else 0)


main()

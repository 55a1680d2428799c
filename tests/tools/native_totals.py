#!/usr/bin/env python3
"""native_totals.py TRUTH.tsv REPORT.json|CASE.db|REPORT.html [CASE.db]

Checks the totals of `artcarve native --json` (its "totals" object), of case.db's
native_totals table or of report.html's native section (its tables native-totals,
native-size-classes and native-backtraces; a backtrace is told by its first allocation,
whose frames come from the case.db given beside it) against sums made here from the truth
img_mdgen wrote: live and freed
allocations with their requested and usable bytes, overall, per size class (usable size) and
per backtrace (the exact frame PCs).  Prints the overall figures and the group counts; exits 1
on any difference."""
import html.parser
import json
import sqlite3
import sys

KEYS = ("live", "live_bytes", "live_usable_bytes", "freed", "freed_bytes", "freed_usable_bytes", "tag_corrupted")


def zero():
    return dict.fromkeys(KEYS, 0)


def add(t, state, size, usable):
    if state == "live":
        t["live"] += 1
        t["live_bytes"] += size
        t["live_usable_bytes"] += usable
    elif state == "freed":
        t["freed"] += 1
        t["freed_bytes"] += size
        t["freed_usable_bytes"] += usable
    else:
        t["tag_corrupted"] += 1


def truth_totals(path):
    allocs, frames = {}, {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "alloc":
            allocs[int(f[1], 16)] = (f[2], int(f[3]), int(f[4]))
        elif f[0] == "frame":
            frames.setdefault(int(f[1], 16), []).append((int(f[2]), int(f[3], 16)))
    every, by_size, by_bt = zero(), {}, {}
    for p, (state, size, usable) in allocs.items():
        bt = tuple(pc for _, pc in sorted(frames.get(p, [])))
        for t in (every, by_size.setdefault(usable, zero()), by_bt.setdefault(bt, zero())):
            add(t, state, size, usable)
    return every, by_size, by_bt


class Tables(html.parser.HTMLParser):
    """The rows (lists of cell texts, header cells included) of every table with an id."""

    def __init__(self):
        super().__init__()
        self.tables, self.cur, self.row, self.cell = {}, None, None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.cur = dict(attrs).get("id")
            if self.cur:
                self.tables[self.cur] = []
        elif tag == "tr" and self.cur:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.tables[self.cur].append(self.row)
            self.row = None
        elif tag == "table":
            self.cur = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def html_totals(path, db_path):
    p = Tables()
    p.feed(open(path, encoding="utf-8").read())
    figures = lambda cells: dict(zip(KEYS, (int(c) for c in cells)))
    rows = lambda tid: [r for r in p.tables.get(tid, [])[1:]]
    every = figures(rows("native-totals")[0][1:]) if rows("native-totals") else None
    by_size = {int(r[0]): figures(r[1:]) for r in rows("native-size-classes")}
    by_first = {int(r[0], 16): (int(r[1]), figures(r[3:])) for r in rows("native-backtraces")}
    pcs = {}
    for ptr, pc in sqlite3.connect(db_path).execute("SELECT pointer, pc FROM native_frames ORDER BY pointer, idx"):
        pcs.setdefault(ptr, []).append(pc)
    return every, by_size, by_first, pcs


def report_totals(path):
    """(overall, {usable: totals}, {first pointer: (frames, totals)}) and {pointer: pcs}"""
    if path.endswith(".html"):
        return html_totals(path, sys.argv[3])
    if path.endswith(".db"):
        db = sqlite3.connect(path)
        cols = "kind, usable_size, first_pointer, frames, " + ", ".join(KEYS)
        every, by_size, by_first = None, {}, {}
        for r in db.execute("SELECT %s FROM native_totals ORDER BY rowid" % cols):
            t = dict(zip(KEYS, r[4:]))
            if r[0] == "all":
                every = t
            elif r[0] == "size_class":
                by_size[r[1]] = t
            else:
                by_first[r[2]] = (r[3], t)
        pcs = {}
        for p, pc in db.execute("SELECT pointer, pc FROM native_frames ORDER BY pointer, idx"):
            pcs.setdefault(p, []).append(pc)
        return every, by_size, by_first, pcs
    rep = json.load(open(path))
    t = rep["totals"]
    every = {k: t[k] for k in KEYS}
    by_size = {c["usable_size"]: {k: c[k] for k in KEYS} for c in t["by_size_class"]}
    by_first = {int(b["first_pointer"], 16): (b["frames"], {k: b[k] for k in KEYS}) for b in t["by_backtrace"]}
    pcs = {int(a["pointer"], 16): [int(f["pc"], 16) for f in a.get("backtrace", [])] for a in rep["list"]}
    return every, by_size, by_first, pcs


def main():
    w_all, w_size, w_bt = truth_totals(sys.argv[1])
    g_all, g_size, g_first, pcs = report_totals(sys.argv[2])
    g_bt = {tuple(pcs.get(p, [])): t for p, (n, t) in g_first.items()}
    bad = []
    if g_all != w_all:
        bad.append("overall: got %r, truth %r" % (g_all, w_all))
    if g_size != w_size:
        bad.append("size classes differ: got %d (%r), truth %d" % (len(g_size), sorted(g_size.items())[:2], len(w_size)))
    if g_bt != w_bt or len(g_first) != len(w_bt):
        bad.append("backtraces differ: got %d groups, truth %d" % (len(g_first), len(w_bt)))
    order = [t["live_bytes"] for _, t in g_first.values()] if not sys.argv[2].endswith(".db") else []
    if order != sorted(order, reverse=True):
        bad.append("backtraces not by live bytes, descending")
    print("# live %d (%d bytes, %d usable), freed %d (%d bytes, %d usable), %d size classes, %d backtraces"
          % (w_all["live"], w_all["live_bytes"], w_all["live_usable_bytes"], w_all["freed"], w_all["freed_bytes"],
             w_all["freed_usable_bytes"], len(w_size), len(w_bt)))
    for b in bad:
        print("# " + b)
    sys.exit(1 if bad else 0)


main()

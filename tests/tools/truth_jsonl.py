"""truth_jsonl.py - the synthetic generator's truth.jsonl (tests/synth) for the tests' checks:
load(path) -> {address: object}, field(o, name) -> the value of o's field name."""
import json


def load(path):
    objs = {}
    for line in open(path, encoding="utf-8"):
        o = json.loads(line)
        objs[o["addr"]] = o
    return objs


def field(o, name):
    return next(f["value"] for f in o["fields"] if f["name"] == name)

# SPDX-License-Identifier: BSD-3-Clause
"""Prints, as JSON, a Python expression over the JSON files given.

Usage: jget.py EXPR NAME=FILE...   (each FILE is bound to NAME)
Helpers: fn(p, name) -> a profile's function entry, st(p, name) -> its
user state entry, comm(m, ranks) -> a matrix's collectives entry for the
communicator with these world ranks, cid(m, ranks) -> that id,
bins(entry) -> {lo: count} of a histogram."""
import json
import sys


def fn(p, name):
    return next((e for e in p["functions"] if e["name"] == name), None)


def st(p, name):
    return next((e for e in p["states"] if e["name"] == name), None)


def cid(m, ranks):
    return next((c["id"] for c in m["communicators"]
                 if c["ranks"] == ranks), None)


def comm(m, ranks):
    i = cid(m, ranks)
    return next((c for c in m["collectives"] if c["comm"] == i), None)


def bins(e):
    return {b["lo"]: b["count"] for b in e["histogram"]}


env = {"fn": fn, "st": st, "cid": cid, "comm": comm, "bins": bins}
for a in sys.argv[2:]:
    k, v = a.split("=", 1)
    with open(v) as f:
        env[k] = json.load(f)
try:
    print(json.dumps(eval(sys.argv[1], env), sort_keys=True,
                     separators=(",", ":")))
except Exception as e:  # a missing key is a failed check, not a crash
    print("error: %s: %s" % (type(e).__name__, e))

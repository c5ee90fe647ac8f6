#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A strict check of a Chrome / Perfetto trace-event JSON file.

Usage: tefcheck.py FILE   (prints a JSON summary on stdout; problems on
stderr, exit 1).

JSON: strict parse (no NaN/Infinity, no control characters in strings,
valid UTF-8, no duplicate keys).  Trace Event Format rules: every event
has a known ph and the fields that ph needs; pid and tid are positive
integers (0 is Perfetto's idle process/thread); "X" slices on one thread
nest; every flow event ("s", "t", "f") binds to a slice ("X") of its
thread that contains its time, and each flow id has one "s" and one "f";
"b"/"e" async pairs match by (cat, id); counter ("C") args are numbers;
stack samples point into stackFrames, whose parents exist.
"""
import json
import sys
from collections import defaultdict

PHASES = {"X", "B", "E", "i", "I", "C", "s", "t", "f", "b", "e", "n", "M"}
bad = []


def no_dupes(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        bad.append("duplicate key in object: %r" % keys)
    return dict(pairs)


def reject_constant(c):
    raise ValueError("non-standard constant " + c)


def main(path):
    raw = open(path, "rb").read()
    text = raw.decode("utf-8")          # strict: invalid UTF-8 raises
    doc = json.loads(text, strict=True, object_pairs_hook=no_dupes,
                     parse_constant=reject_constant)
    evs = doc["traceEvents"]
    count = defaultdict(int)
    slices = defaultdict(list)          # (pid, tid) -> [(ts, end)]
    names = defaultdict(set)            # cat -> names of X slices
    flows = defaultdict(dict)           # id -> {ph: (pid, tid, ts)}
    asyncs = defaultdict(int)
    counters = defaultdict(int)         # counter name -> events
    meta = defaultdict(set)
    for e in evs:
        ph = e.get("ph")
        if ph not in PHASES:
            bad.append("unknown ph %r" % (e,))
            continue
        count[ph] += 1
        need = ["name", "pid"]
        if ph != "M" and ph != "C":
            need += ["tid", "ts"]
        if ph == "C":
            need += ["ts", "args"]
        if ph == "X":
            need += ["dur"]
        if ph in ("s", "t", "f", "b", "e"):
            need += ["id"]
        for k in need:
            if k not in e:
                bad.append("%s event without %s: %r" % (ph, k, e))
        for k in ("pid", "tid"):
            if k in e and (not isinstance(e[k], int) or e[k] <= 0):
                bad.append("%s %r not a positive integer: %r" % (k, e[k], e))
        for k in ("ts", "dur"):
            if k in e and (not isinstance(e[k], (int, float)) or e[k] < 0):
                bad.append("%s not a number >= 0: %r" % (k, e))
        # Times in integer ns: sums of decimal floats are not exact.
        if "ts" in e:
            e["ts"] = round(e["ts"] * 1000)
        if "dur" in e:
            e["dur"] = round(e["dur"] * 1000)
        if ph == "M":
            meta[e["name"]].add((e["pid"], e.get("tid")))
        elif ph == "X":
            slices[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
            names[e.get("cat", "")].add(e["name"])
        elif ph in ("s", "t", "f"):
            if ph in flows[e["id"]]:
                bad.append("flow id %r has two %s" % (e["id"], ph))
            flows[e["id"]][ph] = (e["pid"], e["tid"], e["ts"])
            if ph == "f" and e.get("bp") != "e":
                bad.append("flow end without bp e: %r" % e)
        elif ph in ("b", "e"):
            asyncs[(e.get("cat"), e["id"])] += 1 if ph == "b" else -1
        elif ph == "C":
            if not e["args"] or not all(
                    isinstance(v, (int, float)) for v in e["args"].values()):
                bad.append("counter args not numbers: %r" % e)
            counters[e["name"]] += 1
    # Nesting of X slices per thread.
    for key, v in slices.items():
        v.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for a, b in v:
            while stack and stack[-1] <= a and not (stack[-1] == a == b):
                stack.pop()
            if stack and b > stack[-1]:
                bad.append("slices on %r overlap without nesting at %r" %
                           (key, a))
                break
            stack.append(b)
    # Flow binding.
    def bound(pid, tid, ts):
        return any(a <= ts <= b for a, b in slices.get((pid, tid), ()))
    unbound = 0
    for fid, f in flows.items():
        if set(f) - {"t"} != {"s", "f"}:
            bad.append("flow %r lacks a start or an end: %r" % (fid, f))
        for ph, (pid, tid, ts) in f.items():
            if not bound(pid, tid, ts):
                unbound += 1
    if unbound:
        bad.append("%d flow events bind to no slice" % unbound)
    for k, v in asyncs.items():
        if v:
            bad.append("async %r: begins and ends differ by %d" % (k, v))
    if "process_name" not in meta or "thread_name" not in meta:
        bad.append("processes or threads not named")
    frames = doc.get("stackFrames", {})
    for fid, fr in frames.items():
        if "name" not in fr:
            bad.append("frame %r without name" % fid)
        if "parent" in fr and fr["parent"] not in frames:
            bad.append("frame %r: parent %r not defined" % (fid, fr["parent"]))
    samples = doc.get("samples", [])
    for s in samples:
        for k in ("ts", "tid", "sf", "name"):
            if k not in s:
                bad.append("sample without %s: %r" % (k, s))
        if s.get("sf") not in frames:
            bad.append("sample frame %r not defined" % s.get("sf"))
    out = {"ph": dict(count), "flows": len(flows),
           "state_names": sorted(names.get("state", ())),
           "thread_state_names": sorted(names.get("thread state", ())),
           "counters": dict(counters), "frames": len(frames),
           "samples": len(samples),
           "sample_weight": sum(s.get("weight", 1) for s in samples),
           "pids": sorted({p for p, _ in meta["process_name"]})}
    print(json.dumps(out, sort_keys=True))
    for b in bad[:20]:
        print("tefcheck: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1]))
    except (ValueError, KeyError, UnicodeDecodeError) as e:
        print("tefcheck: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        sys.exit(1)

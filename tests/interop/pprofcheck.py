#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Decodes a pprof profile (profile.proto, gzipped or not) by hand and
prints a JSON summary: sample types, total of each value, the labels'
keys and values, the mappings (file, build id), how many locations have
a mapping, time and duration.  Exit 1 when it does not decode."""
import gzip
import json
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    i, out = 0, []
    while i < len(b):
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        else:
            raise ValueError("wire type %d" % w)
        out.append((f, w, v))
    if i != len(b):
        raise ValueError("trailing bytes")
    return out


def packed(v):
    if isinstance(v, int):
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def main(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    top = fields(raw)
    strings = [bytes(v).decode("utf-8") for f, w, v in top if f == 6]
    S = lambda i: strings[i]
    types, totals, labels, maps, locs = [], None, {}, [], [0, 0]
    time_nanos = duration = None
    for f, w, v in top:
        if f == 1:
            d = dict((g, x) for g, _, x in fields(v))
            types.append("%s/%s" % (S(d.get(1, 0)), S(d.get(2, 0))))
        elif f == 2:
            vals = []
            for g, _, x in fields(v):
                if g == 2:
                    vals += packed(x)
                elif g == 3:
                    d = dict((h, y) for h, _, y in fields(x))
                    labels.setdefault(S(d.get(1, 0)), set()).add(d.get(3, 0))
            totals = vals if totals is None else [a + b for a, b in
                                                  zip(totals, vals)]
        elif f == 3:
            d = dict((g, x) for g, _, x in fields(v))
            maps.append({"id": d.get(1), "file": S(d.get(5, 0)),
                         "build_id": S(d.get(6, 0))})
        elif f == 4:
            d = dict((g, x) for g, _, x in fields(v))
            locs[1] += 1
            if d.get(2):
                locs[0] += 1
        elif f == 9:
            time_nanos = v
        elif f == 10:
            duration = v
    print(json.dumps({"sample_types": types, "totals": totals,
                      "labels": {k: sorted(v) for k, v in labels.items()},
                      "mappings": maps, "locations_mapped": locs[0],
                      "locations": locs[1], "time_nanos": time_nanos,
                      "duration_nanos": duration}, sort_keys=True))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1]))
    except (ValueError, IndexError, OSError) as e:
        print("pprofcheck: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        sys.exit(1)

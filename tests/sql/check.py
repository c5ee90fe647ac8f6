# SPDX-License-Identifier: BSD-3-Clause
"""Compares SQL results with clogtool stats --json.

check.py stats STATS.json QUERY.json   (query.sh's five statements, --json)
check.py python STATS.json EXTENSION LOG   (through Python's sqlite3)
"""
import json
import sqlite3
import sys


def compare(stats, states, kinds, msgs, procs, threads):
    bad = []
    want = {s["name"]: (s["count"], round(s["total_s"] * 1e9),
                        round(s["exclusive_s"] * 1e9))
            for s in stats["states"] if s["count"]}
    got = {r[0]: (r[1], r[2], r[3]) for r in states}
    # Names may repeat across states: stats lists each; sum them.
    merged = {}
    for s in stats["states"]:
        if s["count"]:
            c, t, e = merged.get(s["name"], (0, 0, 0))
            merged[s["name"]] = (c + s["count"], t + s["total_s"],
                                 e + s["exclusive_s"])
    for name, (c, t, e) in merged.items():
        g = got.get(name)
        if not g or g[0] != c or abs(g[1] - t * 1e9) > 1 + len(want) \
                or abs(g[2] - e * 1e9) > 1 + len(want):
            bad.append("state %s: sql %r, stats %r" % (name, g, (c, t, e)))
    if set(got) != set(merged):
        bad.append("state names differ: %r vs %r" % (sorted(got),
                                                      sorted(merged)))
    k = {r[0]: r[1] for r in kinds}
    for kind, n in stats["kinds"].items():
        if k.get(kind, 0) != n:
            bad.append("kind %s: sql %r, stats %r" % (kind, k.get(kind), n))
    m = stats["messages"]
    if tuple(msgs) != (m["count"], m["bytes"] if m["count"] else None,
                       m["unmatched"] if m["count"] else None):
        bad.append("messages: sql %r, stats %r" % (msgs, m))
    if tuple(procs) != (stats["ranks"], stats["streams"], stats["events"]):
        bad.append("processes: %r" % (procs,))
    if tuple(threads) != (stats["streams"], stats["events"]):
        bad.append("threads: %r" % (threads,))
    for b in bad:
        print("# " + b)
    return 1 if bad else 0


def main():
    stats = json.load(open(sys.argv[2]))
    if sys.argv[1] == "stats":
        text = open(sys.argv[3]).read()
        dec = json.JSONDecoder()
        res, i = [], 0
        while i < len(text):
            if text[i].isspace():
                i += 1
                continue
            obj, i = dec.raw_decode(text, i)
            res.append([list(r.values()) for r in obj])
        return compare(stats, res[0], res[1], res[2][0], res[3][0],
                       res[4][0])
    ext, log = sys.argv[3], sys.argv[4]
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(ext)
    for t in ("processes", "threads", "states", "events", "messages"):
        con.execute("CREATE VIRTUAL TABLE temp.%s USING clog(%s)"
                    % (t, "'" + log.replace("'", "''") + "'"))
    q = con.execute
    grouped = ("SELECT name, count(*), sum(duration), sum(exclusive)"
               " FROM states WHERE open = 0 GROUP BY name")
    # Interrupted mid-scan (the read-ahead worker, if any, is stopped),
    # then the same connection answers in full.
    steps = [0]

    def stop():
        steps[0] += 1
        return steps[0] > 3
    con.set_progress_handler(stop, 1000)
    try:
        q("SELECT sum(duration) FROM states").fetchone()
        print("# the interrupted query ran to its end")
        return 1
    except sqlite3.OperationalError as e:
        if "interrupt" not in str(e):
            raise
    con.set_progress_handler(None, 0)
    cur = q("SELECT start FROM states")   # left open mid-scan
    cur.fetchmany(3)
    return compare(
        stats,
        q(grouped).fetchall(),
        q("SELECT kind, count(*) FROM events GROUP BY kind").fetchall(),
        q("SELECT count(*), sum(bytes), sum(send_time IS NULL OR"
          " recv_time IS NULL) FROM messages").fetchone(),
        q("SELECT count(*), sum(threads), sum(events) FROM processes")
        .fetchone(),
        q("SELECT count(*), sum(events) FROM threads").fetchone())


sys.exit(main())

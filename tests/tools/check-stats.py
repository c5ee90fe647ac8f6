# SPDX-License-Identifier: BSD-3-Clause
# Compares `clogtool stats --json` with figures computed here from
# `clogtool print --tsv`: prints TAP lines "ok"/"not ok" (numbered from
# the caller's count in argv[3]) and the new count on the last line.
# usage: check-stats.py STATS.json PRINT.tsv N [KEY=INT...]
import json
import sys
from collections import defaultdict

stats = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
n = int(sys.argv[3])
checks = []


def check(cond, what, got=None, want=None):
    checks.append((bool(cond), what if cond else
                   "%s: got %r want %r" % (what, got, want)))


def eq(got, want, what):
    check(got == want, what, got, want)


def ns(text):
    s, frac = text.split(".")
    assert len(frac) == 9
    return int(s) * 10**9 + int(frac)


kinds = defaultdict(int)
per_rank = defaultdict(int)
streams = set()
stacks = defaultdict(list)
count = defaultdict(int)
total = defaultdict(int)
solo = defaultdict(int)
times = []
send_bytes = 0
for line in lines:
    t, rank, thread, kind, name, details = line.split("\t")
    t = ns(t)
    times.append(t)
    key = (int(rank), int(thread))
    streams.add(key)
    per_rank[int(rank)] += 1
    kinds[kind] += 1
    if kind == "begin":
        stacks[key].append((name, t))
    elif kind == "end":
        st = stacks[key]
        for i in range(len(st) - 1, -1, -1):
            if st[i][0] == name:
                count[name] += 1
                total[name] += t - st[i][1]
                del st[i]
                break
    elif kind == "solo":
        solo[name] += 1
    elif kind == "send":
        send_bytes += int(details.split(" size=")[1].split()[0])

eq(stats["events"], len(lines), "events")
eq(stats["ranks"], len({r for r, _ in streams}), "ranks")
eq(stats["threads"], len(streams), "threads")
eq(stats["t_first"], min(times) / 1e9, "t_first")
eq(stats["t_last"], max(times) / 1e9, "t_last")
check(times == sorted(times), "print output is in time order")
for k in ("begin", "end", "solo", "send", "recv", "loss"):
    eq(stats["kinds"][k], kinds[k], "kinds.%s" % k)
eq({p["rank"]: p["events"] for p in stats["per_rank"]}, dict(per_rank),
   "per_rank events")
eq(stats["messages"]["sends"], kinds["send"], "messages.sends")
eq(stats["messages"]["recvs"], kinds["recv"], "messages.recvs")
# The table holds P matched pairs and U lone ends: 2P + U records.
msgs = stats["messages"]
eq(2 * msgs["count"], kinds["send"] + kinds["recv"] + msgs["unmatched"],
   "message table holds every send and receive once")
if msgs["unmatched"] == 0:
    eq(msgs["bytes"], send_bytes, "messages.bytes = bytes sent")
got_count = {s["name"]: s["count"] for s in stats["states"] if s["count"]}
eq(got_count, dict(count), "state instance counts")
got_total = {s["name"]: s["total_s"] for s in stats["states"] if s["count"]}
eq(got_total, {k: v / 1e9 for k, v in total.items()}, "state total_s")
check(all(isinstance(s["color"], str) and s["color"] for s in stats["states"]),
      "every state has a colour")
eq({s["name"]: s["count"] for s in stats["solo_events"] if s["count"]},
   dict(solo), "solo event counts")
check(sum(count.values()) > 0 and kinds["send"] > 0 and len(solo) > 0,
      "the log has states, messages and solo events", None, None)

# Fixed expectations given as key=value (dotted keys for nested objects).
for arg in sys.argv[4:]:
    key, want = arg.split("=", 1)
    got = stats
    for part in key.split("."):
        got = got[part]
    eq(got, int(want), key)

for good, what in checks:
    n += 1
    print("%s %d - stats: %s" % ("ok" if good else "not ok", n, what))
print(n)

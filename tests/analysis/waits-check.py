# SPDX-License-Identifier: BSD-3-Clause
"""Checks clogtool waits --json against the same quantities recomputed
from the log's own state times (clogtool query --json), for the programs
of waits-prog.c.  Usage: waits-check.py MODE STATES.json WAITS.json
Prints one line per check: description TAB got TAB want."""
import json
import sys

mode, states_path, waits_path = sys.argv[1:4]
rows = json.load(open(states_path))
if rows and isinstance(rows[0], list):
    rows = rows[0]
w = json.load(open(waits_path))


def inst(name, rank):
    return sorted((r["start"], r["stop"]) for r in rows
                  if r["name"] == name and r["rank"] == rank)


def ranks_of(name):
    return sorted({r["rank"] for r in rows if r["name"] == name})


def check(what, got, want):
    print("%s\t%s\t%s" % (what, json.dumps(got), json.dumps(want)))


def group(kind, func):
    g = [x for x in w["groups"] if x["kind"] == kind and x["function"] == func]
    return g[0] if g else None


# Expected waits by construction: {rank: [ns, ...]} and the causes'
# ranks per wait, from the definitions in docs/ANALYSIS.md.
waits = {}
cause_ranks = set()


def add(rank, ns, cause):
    if ns > 0:
        waits.setdefault(rank, []).append(ns)
        cause_ranks.add(cause)


if mode == "latesender":
    kind, func = "late sender", "MPI_Recv"
    for (rs, re), (ss, se) in zip(inst("MPI_Recv", 0), inst("MPI_Send", 1)):
        add(0, min(ss, re) - rs, 1)
elif mode == "waitall":
    kind, func = "late sender", "MPI_Waitall"
    for (rs, re), (ss, se) in zip(inst("MPI_Waitall", 0),
                                  inst("MPI_Isend", 1)):
        add(0, min(ss, re) - rs, 1)
elif mode == "wrongorder":
    # Rank 0's first receive of each round waits for the second send;
    # the first send, earlier, is still not received.
    kind, func = "late sender, wrong order", "MPI_Recv"
    recvs, sends = inst("MPI_Recv", 0), inst("MPI_Send", 1)
    for i in range(0, min(len(recvs), len(sends)), 2):
        (rs, re), (fs, fe), (ss, se) = recvs[i], sends[i], sends[i + 1]
        check("wrongorder: round %d: the first send began before the "
              "receive" % (i // 2), fs < rs, True)
        add(0, min(ss, re) - rs, 1)
elif mode == "chain":
    # Rank 1's waits are charged to rank 3 through rank 2's wait.
    kind, func = "late sender", "MPI_Recv"
    for r, s in ((2, 3), (1, 2)):
        for (rs, re), (ss, se) in zip(inst("MPI_Recv", r),
                                      inst("MPI_Send", s)):
            add(r, min(ss, re) - rs, s)
    cause_ranks.add(3)
elif mode == "latereceiver":
    kind, func = "late receiver", "MPI_Ssend"
    for (ss, se), (rs, re) in zip(inst("MPI_Ssend", 0), inst("MPI_Recv", 1)):
        if rs > ss and se > rs:
            add(0, rs - ss, 1)
else:
    kind, func, root = {
        "allreduce": ("wait at N x N", "MPI_Allreduce", None),
        "bcast": ("late broadcast", "MPI_Bcast", 0),
        "reduce": ("early reduce", "MPI_Reduce", 0)}[mode]
    ranks = ranks_of(func)
    per = {r: inst(func, r) for r in ranks}
    n = min(len(v) for v in per.values())
    lasts = []
    for i in range(n):
        c = {r: per[r][i] for r in ranks}
        if mode == "allreduce":
            last = max(ranks, key=lambda r: (c[r][0], -r))
            lasts.append(last)
            for r in ranks:
                if r != last:
                    add(r, min(c[last][0], c[r][1]) - c[r][0], last)
        elif mode == "bcast":
            for r in ranks:
                if r != root:
                    add(r, min(c[root][0], c[r][1]) - c[r][0], root)
        else:
            first = min((r for r in ranks if r != root),
                        key=lambda r: (c[r][0], r))
            add(root, min(c[first][0], c[root][1]) - c[root][0], first)
    if mode == "allreduce":
        check("allreduce: rank 3 enters last every time", lasts, [3] * n)

g = group(kind, func)
check("%s: a %s group for %s" % (mode, kind, func), g is not None, True)
g = g or {"ranks": [], "calls": 0, "wait_ns": 0, "causes": [], "max_s": 0}
check("%s: the waiting ranks" % mode, g["ranks"], sorted(waits))
check("%s: calls that waited" % mode, g["calls"],
      sum(len(v) for v in waits.values()))
check("%s: wait in ns, as recomputed from the state times" % mode,
      g["wait_ns"], sum(sum(v) for v in waits.values()))
check("%s: the largest wait" % mode, round(g["max_s"] * 1e9),
      max([x for v in waits.values() for x in v] or [0]))
top = g["causes"][0] if g["causes"] else {"state": None, "rank": None}
check("%s: the top cause is Compute" % mode, top["state"], "Compute")
check("%s: causes on the ranks waited for" % mode,
      sorted({c["rank"] for c in g["causes"]} - cause_ranks), [])
check("%s: causes explain at most the wait" % mode,
      sum(c["ns"] for c in g["causes"]) <= g["wait_ns"] + len(g["causes"]),
      True)
# (wrongorder's rounds start with a barrier, the chain ends with one)
check("%s: only this kind of wait" % mode,
      sorted({x["kind"] for x in w["groups"]} - {"wait at barrier"}
             if mode in ("wrongorder", "chain") else
             {x["kind"] for x in w["groups"]}), [kind])

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Metric cells (mpe_metrics.h) and clogtool metrics on a program with
# known communication (metrics-prog.c) on 3 ranks: the standard cells
# equal what the program did, the guarded MPI_Send.time equals the
# durations of the MPI_Send states inside foo, the user timer holds them,
# and the aggregates at every level equal the sums of their parts.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
python=$(command -v /usr/bin/python3 || command -v python3) \
  || bail "python3 is needed"
clogtool=$top_builddir/clogtool
export MPE_METRIC_PERIOD=1ms
wrun 3 "$wb/metrics-prog"; ok $? "metrics-prog runs on 3 ranks"
[ "$(grep -c ' ok$' "$tap_tmp/run.out")" = 3 ]
ok $? "every rank reads its cells back as expected"
grep -v ' ok$' "$tap_tmp/run.out" | sed 's/^/# /'
log=$(ls "$tap_tmp"/log*.clog | head -1)
"$clogtool" verify -q "$log"; ok $? "the log verifies"
for lv in thread process node job; do
  "$clogtool" metrics --json --level $lv "$log" > "$tap_tmp/m-$lv.json"
  ok $? "clogtool metrics --json --level $lv"
done
"$clogtool" print --intervals --tsv "$log" > "$tap_tmp/iv.tsv"
ok $? "state instances"
"$clogtool" metrics --json --to 1ns "$log" > "$tap_tmp/m-early.json"
ok $? "a window before any sample"
"$clogtool" metrics --csv --level thread "$log" > "$tap_tmp/m.csv"
ok $? "clogtool metrics --csv"
"$clogtool" metrics "$log" > "$tap_tmp/m.txt"
ok $? "clogtool metrics (table)"

$python - "$tap_tmp" "$tap_n" "$tap_failed" <<'PY'
import json, sys
d = sys.argv[1]
n, failed = int(sys.argv[2]), int(sys.argv[3])
def ok(cond, what):
    global n, failed
    n += 1
    failed += not cond
    print(("ok %d - " if cond else "not ok %d - ") % n + what)
def load(lv):
    return {m["name"]: m for m in json.load(open("%s/m-%s.json" % (d, lv)))["metrics"]}
M = {lv: load(lv) for lv in ("thread", "process", "node", "job")}
P = M["process"]
def per_rank(name, want):
    got = P.get(name, {}).get("per_rank")
    ok(got == want, "%s per rank %s (got %s)" % (name, want, got))
per_rank("work", [10, 20, 30])
w = P["work"]
ok((w["sum"], w["min"], w["min_at"], w["max"], w["max_at"], w["mean"])
   == (60, 10, "rank 0", 30, "rank 2", 20),
   "work: sum, min, max with their ranks, mean")
ok(P["work"]["kind"] == "counter" and P["depth"]["kind"] == "level"
   and P["foo_send_time"]["kind"] == "timer", "kinds")
per_rank("depth", [3, 4, 5])
per_rank("in_foo", [0, 0, 0])
per_rank("msgs.sent", [15, 15, 15])
per_rank("bytes.sent", [10320] * 3)
per_rank("msgs.recv", [15, 15, 15])
per_rank("bytes.recv", [10320] * 3)
per_rank("MPI_Sendrecv.calls", [10, 10, 10])
per_rank("MPI_Recv.calls", [5, 5, 5])
per_rank("MPI_Alltoall.calls", [2, 2, 2])
per_rank("MPI_Send.calls", [3, 3, 3])  # guarded: only inside foo
per_rank("coll.calls", [2, 2, 2])
per_rank("coll.bytes", [2 * 2 * 3 * 25 * 4] * 3)
calls = [sum(m["per_rank"][r] for k, m in P.items()
             if k.endswith(".calls") and k not in ("mpi.calls", "coll.calls"))
         for r in range(3)]
per_rank("mpi.calls", calls)
# Channels: rank r -> r+1 carries everything r sent.
T = M["thread"]["chan.bytes.sent"]
objs = {o["name"]: o["value"] for o in T["objects"]}
ok(objs == {"rank %d -> rank %d" % (r, (r + 1) % 3): 10320 for r in range(3)},
   "chan.bytes.sent per channel (%s)" % objs)
ok({o["name"]: o["value"] for o in M["thread"]["chan.msgs.recv"]["objects"]}
   == {"rank %d -> rank %d" % (r, (r + 2) % 3): 15 for r in range(3)},
   "chan.msgs.recv per channel")
# Aggregates equal the sums of their parts at every level.
bad = []
for name, m in P.items():
    s = sum(o["value"] for o in m["objects"])
    for lv in ("thread", "node", "job"):
        x = M[lv][name]
        if sum(o["value"] for o in x["objects"]) != s or x["sum"] != s:
            bad.append((name, lv))
    if sum(m["per_rank"]) != s or m["sum"] != s:
        bad.append((name, "per_rank"))
    if m["mean"] != s / len(m["objects"]):
        bad.append((name, "mean"))
    vals = [o["value"] for o in m["objects"]]
    if m["min"] != min(vals) or m["max"] != max(vals):
        bad.append((name, "minmax"))
ok(not bad, "sums, means, min and max agree at every level %s" % bad[:4])
ok(len(M["job"]["work"]["objects"]) == 1 and M["job"]["work"]["sum"] == 60,
   "one job object")
# The guarded standard timer: exactly the MPI_Send states inside foo.
dur = [0, 0, 0]
cnt = [0, 0, 0]
for line in open("%s/iv.tsv" % d):
    f = line.rstrip("\n").split("\t")
    if len(f) < 6 or f[4] != "MPI_Send":
        continue
    depth = [x for x in " ".join(f[5:]).split() if x.startswith("depth=")]
    if depth and depth[0] != "depth=0":
        s, e = f[0].split("."), f[1].split(".")
        ns = (int(e[0]) * 10**9 + int(e[1])) - (int(s[0]) * 10**9 + int(s[1]))
        dur[int(f[2])] += ns
        cnt[int(f[2])] += 1
ok(cnt == [3, 3, 3], "3 MPI_Send states inside foo per rank (%s)" % cnt)
got = P["MPI_Send.time"]["per_rank"]
ok(all(abs(got[r] - dur[r]) <= 6 + dur[r] * 1e-5 for r in range(3)),
   "guarded MPI_Send.time %s equals those states' durations %s" % (got, dur))
ft = P["foo_send_time"]["per_rank"]
ok(all(ft[r] >= got[r] - 6 for r in range(3)),
   "the guarded user timer %s holds them" % ft)
E = {m["name"]: m for m in json.load(open("%s/m-early.json" % d))["metrics"]}
ok(E["work"]["sum"] == 0 and E["depth"]["sum"] == 0,
   "a window before any sample sees nothing")
rows = open("%s/m.csv" % d).read().splitlines()
ok(rows[0] == "metric,unit,level,object,value"
   and '"work","1",thread,"rank 2 thread 0",30' in rows, "CSV rows")
ok("work" in open("%s/m.txt" % d).read(), "table lists the metrics")
print("1..%d" % n)
sys.exit(1 if failed else 0)
PY

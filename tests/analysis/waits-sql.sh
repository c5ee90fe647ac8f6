#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The SQL tables waits and critical_path (sql/, docs/SQL.md) on logs of
# waits-prog.c: the same figures as clogtool waits --json and clogtool
# critical-path --json (one analysis library), each wait inside its
# call, and the cause known by construction (Compute on rank 3).
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
prog=$top_builddir/tests/analysis/waits-prog
# As in waits.sh: long enough to dominate scheduling noise.
d=60

# check TSV: "what<TAB>got<TAB>want" lines become tests.
check () {
  while IFS='	' read -r what got want; do
    [ "$got" = "$want" ]; ok $? "$mode: $what"
    [ "$got" = "$want" ] || diag "got $got, want $want"
  done < "$1"
}

for mode in allreduce chain; do
  wrun 4 "$prog" $mode $d; ok $? "$mode runs on 4 ranks"
  log=$(ls "$tap_tmp"/log*.clog 2>/dev/null | head -1)
  run 0 "$mode: clogtool waits --json" "$clogtool" waits --json "$log"
  cp "$tap_tmp/out" "$tap_tmp/w.json"
  run 0 "$mode: clogtool critical-path --json" \
    "$clogtool" critical-path --json "$log"
  cp "$tap_tmp/out" "$tap_tmp/p.json"
  run 0 "$mode: SELECT * FROM waits" "$clogtool" query --json "$log" \
    "SELECT * FROM waits"
  cp "$tap_tmp/out" "$tap_tmp/ws.json"
  run 0 "$mode: SELECT * FROM critical_path" "$clogtool" query --json \
    "$log" "SELECT * FROM critical_path"
  cp "$tap_tmp/out" "$tap_tmp/ps.json"
  $python - "$mode" "$tap_tmp/w.json" "$tap_tmp/ws.json" "$tap_tmp/p.json" \
    "$tap_tmp/ps.json" $d > "$tap_tmp/checks" <<'PY' || diag "check failed"
import json, sys
mode = sys.argv[1]; d = int(sys.argv[6])
def rows(f):
    s = json.load(open(f))
    return s[0] if s and isinstance(s[0], list) else s
w = json.load(open(sys.argv[2])); ws = rows(sys.argv[3])
p = json.load(open(sys.argv[4])); ps = rows(sys.argv[5])
def out(what, got, want):
    print("%s\t%s\t%s" % (what, json.dumps(got), json.dumps(want)))
out("some waits", len(ws) > 0, True)
out("sum(wait) is the total", sum(r["wait"] for r in ws), w["total_ns"])
got = {}
for r in ws:
    g = got.setdefault((r["kind"], r["name"], r["comm"]), [0, 0])
    g[0] += 1; g[1] += r["wait"]
want = {(g["kind"], g["function"], g["comm"]): [g["calls"], g["wait_ns"]]
        for g in w["groups"]}
out("calls and ns per kind, function and communicator",
    sorted(map(list, got.items())), sorted(map(list, want.items())))
out("every wait inside its call",
    [r for r in ws if r["duration"] is None or r["wait_start"] < r["start"]
     or r["wait_start"] + r["wait"] > r["start"] + r["duration"]], [])
names = ["MPI_Allreduce"] if mode == "allreduce" else ["MPI_Barrier",
                                                      "MPI_Recv"]
out("functions and threads",
    sorted({(r["name"], r["thread"]) for r in ws if r["name"] not in names
            or r["thread"] != 0}), [])
# By construction rank 3's Compute makes every other wait (chain: rank
# 2 directly, rank 1 through rank 2's wait).
big = [r for r in ws if r["rank"] != 3 and r["wait"] * 2 > d * 1000000]
out("the long waits' cause", sorted({(r["cause_state"], r["cause_rank"])
                                     for r in big}), [["Compute", 3]])
out("critical path items", sorted((i["rank"], i["name"], i["ns"]) for i in ps),
    sorted((i["rank"], i["state"], i["ns"]) for i in p["items"]))
out("critical path length", sum(i["ns"] for i in ps), p["length_ns"])
PY
  check "$tap_tmp/checks"
done

# The table is computed once: a self-join reads it twice.
run 0 "a self-join of waits" "$clogtool" query --csv "$log" \
  "SELECT count(*) FROM waits a JOIN waits b ON a.stream = b.stream
   AND a.start = b.start AND a.wait_start = b.wait_start"
n=$(tail -1 "$tap_tmp/out")
run 0 "count(*) FROM waits" "$clogtool" query --csv "$log" \
  "SELECT count(*) FROM waits"
[ "$n" = "$(tail -1 "$tap_tmp/out")" ]; ok $? "the join matches each wait once ($n)"

# The loadable extension has them too (it links the analysis library).
ext=$top_builddir/sql/.libs/clogsql
if [ -f "$ext.so" ] && command -v sqlite3 > /dev/null \
    && ! ldd "$ext.so" 2>/dev/null | grep -q 'lib[at]san'; then
  got=$(printf ".load %s\nCREATE VIRTUAL TABLE temp.w USING clog('%s', waits);\nSELECT count(*) FROM w;\n" \
          "$ext" "$log" | sqlite3 2>&1)
  [ "$got" = "$n" ]; ok $? "the sqlite3 shell's extension: $got waits"
else
  # A sanitizer's runtime cannot be loaded into the sqlite3 shell: the
  # gcc build checks the extension.
  diag "the extension's waits are checked in a build without sanitizers"
fi

# No MPI calls: no waits, and the critical path is the last rank's own
# states; a damaged block is an error, not a shorter table.
g=$tap_tmp/gen.clog
gen_log "$g"
run 0 "gen log: waits and critical_path" "$clogtool" query --csv "$g" \
  "SELECT (SELECT count(*) FROM waits),
          (SELECT sum(ns) FROM critical_path) > 0"
[ "$(tail -1 "$tap_tmp/out")" = "0,1" ]; ok $? "gen log: no waits, a path"
cp "$g" "$tap_tmp/bad.clog"
printf '\377\377\377\377' | dd of="$tap_tmp/bad.clog" bs=1 seek=2000 \
  conv=notrunc 2>/dev/null
for t in waits critical_path; do
  run 1 "damaged block: $t fails" "$clogtool" query "$tap_tmp/bad.clog" \
    "SELECT count(*) FROM $t"
  grep -q "checksum mismatch" "$tap_tmp/err"; ok $? "damaged block: $t says why"
done
finish

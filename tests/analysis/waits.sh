#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool waits on MPI programs whose waits are known by construction
# (waits-prog.c, 4 ranks): the kind, the waiting ranks, the calls, the
# wait itself (equal to the same quantity recomputed from the log's own
# state times, in ns) and the cause (Compute on the rank waited for);
# clogtool critical-path on two of them.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
prog=$top_builddir/tests/analysis/waits-prog
# Long enough to dominate scheduling noise on a loaded machine; nothing
# below compares a time with it.
d=60

sql="SELECT rank, name, start, \"end\" AS stop FROM states
     WHERE name LIKE 'MPI_%' OR name = 'Compute' ORDER BY rank, start"

for mode in latesender latereceiver allreduce bcast reduce waitall \
    wrongorder chain; do
  wrun 4 "$prog" $mode $d; ok $? "$mode runs on 4 ranks"
  log=$(ls "$tap_tmp"/log*.clog 2>/dev/null | head -1)
  run 0 "$mode: clogtool waits --json" "$clogtool" waits --json "$log"
  cp "$tap_tmp/out" "$tap_tmp/w.json"
  run 0 "$mode: the state times (clogtool query)" \
    "$clogtool" query --json "$log" "$sql"
  cp "$tap_tmp/out" "$tap_tmp/s.json"
  $python "$top_srcdir/tests/analysis/waits-check.py" $mode \
    "$tap_tmp/s.json" "$tap_tmp/w.json" > "$tap_tmp/checks" \
    || diag "waits-check.py failed"
  while IFS='	' read -r what got want; do
    [ "$got" = "$want" ]; ok $? "$what"
    [ "$got" = "$want" ] || diag "got $got, want $want"
  done < "$tap_tmp/checks"
  [ $mode = allreduce ] && cp "$log" "$tap_tmp/allreduce.clog"
  if [ $mode = allreduce ] || [ $mode = chain ]; then
    # The critical path: its items add up to its length, and the last
    # Compute of rank 3 (which everyone waited for) is on it, the
    # largest user state there.
    run 0 "$mode: clogtool critical-path --json" \
      "$clogtool" critical-path --json "$log"
    $python -c 'import json,sys
p = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
s = s[0] if s and isinstance(s[0], list) else s
last = max((r for r in s if r["name"] == "Compute" and r["rank"] == 3), key=lambda r: r["start"])
c3 = sum(i["ns"] for i in p["items"] if i["rank"] == 3 and i["state"] == "Compute")
user = [i for i in p["items"] if not i["state"].startswith("MPI_") and i["state"] != "(outside states)"]
print("items add up to the length\t%s\ttrue" % json.dumps(sum(i["ns"] for i in p["items"]) == p["length_ns"]))
print("the last Compute of rank 3 is on the path\t%s\ttrue" % json.dumps(c3 >= last["stop"] - last["start"]))
print("the largest user state on the path\t%s\t%s" % (json.dumps([user[0]["state"], user[0]["rank"]] if user else None), json.dumps(["Compute", 3])))' \
      "$tap_tmp/out" "$tap_tmp/s.json" > "$tap_tmp/checks" \
      || diag "critical-path check failed"
    while IFS='	' read -r what got want; do
      [ "$got" = "$want" ]; ok $? "$mode: critical path: $what"
      [ "$got" = "$want" ] || diag "got $got, want $want"
    done < "$tap_tmp/checks"
  fi
done

# The chain: rank 2's waits are caused by Compute on rank 3, and so are
# rank 1's, passed on through rank 2's wait (docs/ANALYSIS.md).
run 0 "chain: waits --by rank --json" "$clogtool" waits --by rank --json \
  "$(ls "$tap_tmp"/log*.clog | head -1)"
# causes RANK: the (state, rank) pairs explaining over 10% of its wait
causes () {
  $python -c 'import json,sys
g = [g for g in json.load(open(sys.argv[1]))["groups"] if g["rank"] == int(sys.argv[2])]
print(sorted({(c["state"], c["rank"]) for c in (g[0]["causes"] if g else []) if c["ns"] * 10 > g[0]["wait_ns"]}))' "$tap_tmp/out" "$1"
}
for r in 2 1; do
  got=$(causes $r)
  [ "$got" = "[('Compute', 3)]" ]
  ok $? "chain: rank $r waits for Compute on rank 3"
  [ "$got" = "[('Compute', 3)]" ] || diag "got $got"
done

# The table reads as a sentence; --by and --csv.
log=$tap_tmp/allreduce.clog
run 0 "allreduce: table" "$clogtool" waits "$log"
grep -q '^wait at N x N: MPI_Allreduce on .* waits .* in 9 calls on ranks 0-2' \
  "$tap_tmp/out"; ok $? "table: MPI_Allreduce waits in 9 calls on ranks 0-2"
grep -q '^  caused by Compute on rank 3: ' "$tap_tmp/out"
ok $? "table: caused by Compute on rank 3"
run 0 "waits --by rank --json" "$clogtool" waits --by rank --json "$log"
is_ranks=$($python -c 'import json,sys; print([g["rank"] for g in sorted(json.load(open(sys.argv[1]))["groups"], key=lambda g: g["rank"])])' "$tap_tmp/out")
[ "$is_ranks" = "[0, 1, 2]" ]; ok $? "--by rank: one group per waiting rank"
run 0 "waits --by comm --csv" "$clogtool" waits --by comm --csv "$log"
[ "$(head -1 "$tap_tmp/out")" = "kind,function,comm,ranks,calls,wait_s,max_s,causes" ]
ok $? "CSV header"
grep -q ',"0-2",9,.*"Compute@3=' "$tap_tmp/out"; ok $? "CSV: ranks 0-2, 9 calls, Compute@3"

# clogtool profile --waits: the same waits per MPI function.
run 0 "waits --json (total)" "$clogtool" waits --json "$log"
total=$($python -c 'import json,sys; print(json.load(open(sys.argv[1]))["total_ns"])' "$tap_tmp/out")
run 0 "profile --waits --json" "$clogtool" profile --waits --json "$log"
got=$($python -c 'import json,sys
f = [e for e in json.load(open(sys.argv[1]))["functions"] if e["name"] == "MPI_Allreduce"][0]
print(round(float(f["wait_s"]) * 1e9))' "$tap_tmp/out")
[ "$got" = "$total" ]; ok $? "profile --waits: MPI_Allreduce waited what waits says"
[ "$got" = "$total" ] || diag "got $got, want $total"
run 0 "profile --waits (table)" "$clogtool" profile --waits "$log"
grep -q '^MPI_Allreduce .* [0-9]*\.[0-9]\{9\}$' "$tap_tmp/out"
ok $? "profile --waits: a wait_s column"
run 2 "profile --waits --from" "$clogtool" profile --waits --from 1ms "$log"

# A log without MPI: no waits, exit 0.
gen_log "$tap_tmp/gen.clog" 2 1 500
run 0 "waits on a generated log" "$clogtool" waits --json "$tap_tmp/gen.clog"

# Bad input.
printf 'not a log' > "$tap_tmp/bad.clog"
run 2 "waits --by nonsense" "$clogtool" waits --by nonsense "$log"
run 2 "waits --json --csv" "$clogtool" waits --json --csv "$log"
run 2 "waits without a file" "$clogtool" waits
run 2 "critical-path without a file" "$clogtool" critical-path
run 1 "critical-path on a file that is no log" "$clogtool" critical-path \
  "$tap_tmp/bad.clog"
run 1 "waits on a file that is no log" "$clogtool" waits "$tap_tmp/bad.clog"
finish

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool profile and matrix against clogtool stats on a synthetic log
# (3 processes x 2 threads, nested states, messages): the same instance
# counts and times, the same messages and bytes; parts add up to their
# totals (ranks, time windows); --rank is that rank's share.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"
is () {
  [ "$1" = "$2" ]; ok $? "$3"
  [ "$1" = "$2" ] || diag "got $1, want $2"
}
jv () {
  e=$1; shift
  $python "$top_srcdir/tests/analysis/jget.py" "$e" "$@"
}
log=$tap_tmp/synth.clog
gen_log "$log" 3 2 4000 7
j=$tap_tmp
run 0 "stats --json" "$clogtool" stats --json "$log"; cp "$j/out" "$j/s.json"
run 0 "profile --json" "$clogtool" profile --json "$log"; cp "$j/out" "$j/p.json"
run 0 "matrix --json" "$clogtool" matrix --json "$log"; cp "$j/out" "$j/m.json"

# Every state of stats with instances is in the profile, alike.
is "$(jv 'len(p["states"]) >= 8 and min(e["calls"] for e in p["states"]) > 0' p="$j/p.json")" \
   true "profile: the generator's states, each with calls"
is "$(jv '[(x["name"], x["count"], x["total_s"], x["exclusive_s"]) for x in sorted(s["states"], key=lambda x: x["name"]) if x["count"]]' s="$j/s.json")" \
   "$(jv '[(x["name"], x["calls"], x["time_s"], x["exclusive_s"]) for x in sorted(p["functions"] + p["states"], key=lambda x: x["name"])]' p="$j/p.json")" \
   "profile: calls, time and exclusive time per state equal stats'"
is "$(jv '[m["messages"], m["total_bytes"], m["unmatched_sends"] + m["unmatched_recvs"]]' m="$j/m.json")" \
   "$(jv '[s["messages"]["count"], s["messages"]["bytes"], s["messages"]["unmatched"]]' s="$j/s.json")" \
   "matrix: messages and bytes equal stats'"
is "$(jv '[sum(map(sum, m["count"])), sum(map(sum, m["bytes"]))]' m="$j/m.json")" \
   "$(jv '[m["messages"], m["total_bytes"]]' m="$j/m.json")" \
   "matrix: the cells add up to the totals"
is "$(jv 'all(m["count"][i][i] == 0 for i in range(m["ranks"]))' m="$j/m.json")" \
   true "matrix: the generator sends nothing to itself"
is "$(jv '[e["name"] for e in p["states"] if e["calls"] != sum(r["calls"] for r in e["per_rank"]) or abs(e["time_s"] - sum(r["time_s"] for r in e["per_rank"])) > 1e-6]' p="$j/p.json")" \
   "[]" "profile: per-rank calls and times add up to each total"
is "$(jv 'abs(p["app_s"] - sum(r["app_s"] for r in p["per_rank"])) < 1e-6' p="$j/p.json")" \
   true "profile: application time is the sum of the ranks'"

# --rank: one rank's share of the whole.
run 0 "profile --rank 1 --json" "$clogtool" profile --json --rank 1 "$log"
cp "$j/out" "$j/p1.json"
is "$(jv 'sorted((e["name"], e["calls"], e["bytes"]) for e in q["states"])' q="$j/p1.json")" \
   "$(jv 'sorted((e["name"], e["per_rank"][1]["calls"], e["per_rank"][1]["bytes"]) for e in p["states"] if e["per_rank"][1]["calls"] or e["per_rank"][1]["bytes"])' p="$j/p.json")" \
   "profile --rank 1: rank 1's calls and bytes"

# Two windows that split the run add up to the whole.
mid=$(jv 'round((p["t_first"] + p["t_last"]) / 2, 6)' p="$j/p.json")
run 0 "profile --to $mid" "$clogtool" profile --json --to "$mid" "$log"
cp "$j/out" "$j/pa.json"
run 0 "profile --from ${mid}000001" "$clogtool" profile --json --from "${mid}000001" "$log"
cp "$j/out" "$j/pb.json"
is "$(jv 'sorted((e["name"], e["calls"] + next((f["calls"] for f in b["states"] if f["name"] == e["name"]), 0)) for e in a["states"])' a="$j/pa.json" b="$j/pb.json")" \
   "$(jv 'sorted((e["name"], e["calls"]) for e in p["states"])' p="$j/p.json")" \
   "profile: calls before and after the middle add up"
run 0 "matrix --to $mid" "$clogtool" matrix --json --to "$mid" "$log"
cp "$j/out" "$j/ma.json"
run 0 "matrix --from ${mid}000001" "$clogtool" matrix --json --from "${mid}000001" "$log"
cp "$j/out" "$j/mb.json"
is "$(jv '[[a["count"][i][k] + b["count"][i][k] for k in range(a["ranks"])] for i in range(a["ranks"])]' a="$j/ma.json" b="$j/mb.json")" \
   "$(jv 'm["count"]' m="$j/m.json")" \
   "matrix: messages before and after the middle add up, cell by cell"

# CSV: one line per state and rank with calls, totals on 'all' lines.
run 0 "profile --csv" "$clogtool" profile --csv "$log"
is "$(awk -F, 'NR > 1 && $3 == "all" { n += $4 } END { print n }' "$j/out")" \
   "$(jv 'sum(e["calls"] for e in p["states"])' p="$j/p.json")" \
   "profile --csv: the 'all' lines hold every call"
is "$(awk -F, 'NR > 1 && $3 != "all" { n += $4 } END { print n }' "$j/out")" \
   "$(jv 'sum(e["calls"] for e in p["states"])' p="$j/p.json")" \
   "profile --csv: so do the per-rank lines"

# Bad usage and bad files.
run 2 "profile --json --csv" "$clogtool" profile --json --csv "$log"
run 2 "profile --rank x" "$clogtool" profile --rank x "$log"
run 2 "profile --from after --to" "$clogtool" profile --from 2 --to 1 "$log"
run 2 "matrix --comm -1" "$clogtool" matrix --comm -1 "$log"
run 2 "matrix without a file" "$clogtool" matrix
head -c 1000 "$log" > "$j/cut.clog"
run 1 "profile of a truncated file" "$clogtool" profile "$j/cut.clog"
run 1 "matrix of a truncated file" "$clogtool" matrix "$j/cut.clog"
grep -q "cut.clog" "$j/err"; ok $? "the error names the file"
finish

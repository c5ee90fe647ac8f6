#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool matrix and profile on MPI programs with known patterns (a ring,
# an all-to-all with known sizes, master-worker, an exchange on a
# sub-communicator made by MPI_Comm_split), logged by liblmpe on 4
# ranks: the matrix must equal the pattern, the profile's calls and bytes
# what the program did.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
prog=$top_builddir/tests/analysis/patterns

# is GOT WANT WHAT
is () {
  [ "$1" = "$2" ]; ok $? "$3"
  [ "$1" = "$2" ] || diag "got $1, want $2"
}
# jv EXPR: the expression over m (matrix), p (profile), l (local matrix)
jv () {
  set -- "$1" m="$tap_tmp/m.json" p="$tap_tmp/p.json"
  [ -s "$tap_tmp/l.json" ] && set -- "$@" l="$tap_tmp/l.json"
  $python "$top_srcdir/tests/analysis/jget.py" "$@"
}
# pattern MODE: runs it, then matrix and profile as JSON
pattern () {
  rm -f "$tap_tmp"/*.json
  wrun 4 "$prog" "$1"; ok $? "$1 runs on 4 ranks"
  log=$(ls "$tap_tmp"/log*.clog 2>/dev/null | head -1)
  run 0 "$1: clogtool matrix --json" "$clogtool" matrix --json "$log"
  cp "$tap_tmp/out" "$tap_tmp/m.json"
  run 0 "$1: clogtool profile --json" "$clogtool" profile --json "$log"
  cp "$tap_tmp/out" "$tap_tmp/p.json"
}

# Ring: rank s sends 3 x 100(s+1) bytes to s+1.
pattern ring
is "$(jv 'm["ranks"]')" 4 "ring: 4 ranks"
is "$(jv 'm["count"]')" '[[0,3,0,0],[0,0,3,0],[0,0,0,3],[3,0,0,0]]' \
  "ring: count matrix"
is "$(jv 'm["bytes"]')" \
  '[[0,300,0,0],[0,0,600,0],[0,0,0,900],[1200,0,0,0]]' "ring: bytes matrix"
is "$(jv '[m["messages"], m["unmatched_sends"], m["unmatched_recvs"]]')" \
  '[12,0,0]' "ring: 12 messages, all matched"
is "$(jv '[fn(p,"MPI_Send")[k] for k in ("calls","bytes_sent","bytes_recv")]')" \
  '[12,3000,0]' "ring: MPI_Send 12 calls, 3000 bytes sent"
is "$(jv '[fn(p,"MPI_Recv")[k] for k in ("calls","bytes_sent","bytes_recv")]')" \
  '[12,0,3000]' "ring: MPI_Recv 12 calls, 3000 bytes received"
is "$(jv '[(r["rank"],r["calls"],r["bytes"]) for r in fn(p,"MPI_Send")["per_rank"]]')" \
  '[[0,3,300],[1,3,600],[2,3,900],[3,3,1200]]' "ring: MPI_Send per rank"
is "$(jv 'bins(fn(p,"MPI_Send"))')" '{"64":3,"128":3,"256":6}' \
  "ring: MPI_Send message sizes (100 | 200 | 300, 400)"
is "$(jv '[p["ranks"], len(p["per_rank"])]')" '[4,4]' "ring: 4 ranks profiled"
is "$(jv 'abs(sum(e["time_s"] for e in p["functions"]) - p["mpi_s"]) < 1e-6')" \
  true "ring: MPI time is the sum of the functions' times"
is "$(jv 'all(e["imbalance"]["min_s"] <= e["imbalance"]["mean_s"] <= e["imbalance"]["max_s"] for e in p["functions"])')" \
  true "ring: imbalance min <= mean <= max"
is "$(jv '[max(r["time_s"] for r in e["per_rank"]) == e["imbalance"]["max_s"] for e in p["functions"]].count(False)')" \
  0 "ring: imbalance max is the largest per-rank time"
run 0 "ring: profile --rank 2 --json" "$clogtool" profile --json --rank 2 "$log"
cp "$tap_tmp/out" "$tap_tmp/p.json"
is "$(jv '[p["ranks"], p["rank"], fn(p,"MPI_Send")["calls"], fn(p,"MPI_Send")["bytes"], fn(p,"MPI_Recv")["bytes"]]')" \
  '[1,2,3,900,600]' "ring: rank 2's own report"
run 1 "profile --rank 9: no such rank" "$clogtool" profile --rank 9 "$log"
run 0 "ring: matrix --csv" "$clogtool" matrix --csv "$log"
is "$(sed -n '1p;3p' "$tap_tmp/out" | cut -d, -f1-4 | tr '\n' ' ')" \
  "from,to,count,bytes 1,2,3,600 " "ring: CSV header and the cell 1 -> 2"
run 0 "ring: matrix --by bytes (table)" "$clogtool" matrix --by bytes "$log"
is "$(awk '$1 == 3 && NF == 5 { print $2 }' "$tap_tmp/out")" 1200 \
  "ring: table row 3, column 0 is 1200 bytes"

# All-to-all: s sends (4s + r + 1) * 8 bytes to each r != s, then an
# MPI_Alltoall of 4 ints per peer.
pattern alltoall
is "$(jv 'm["count"]')" '[[0,1,1,1],[1,0,1,1],[1,1,0,1],[1,1,1,0]]' \
  "alltoall: count matrix"
is "$(jv 'm["bytes"]')" \
  '[[0,16,24,32],[40,0,56,64],[72,80,0,96],[104,112,120,0]]' \
  "alltoall: bytes matrix"
is "$(jv '[comm(m,[0,1,2,3])[k] for k in ("calls","bytes_sent","bytes_recv")]')" \
  '[4,256,256]' "alltoall: MPI_Alltoall on world: 4 calls, 4 x 64 bytes each way"
is "$(jv '[fn(p,"MPI_Isend")[k] for k in ("calls","bytes_sent")]')" \
  '[12,816]' "alltoall: MPI_Isend 12 calls, 816 bytes"
is "$(jv '[fn(p,"MPI_Recv")[k] for k in ("calls","bytes_recv")]')" \
  '[12,816]' "alltoall: MPI_Recv 12 calls, 816 bytes"
is "$(jv '[fn(p,"MPI_Alltoall")[k] for k in ("calls","bytes_sent","bytes_recv")]')" \
  '[4,256,256]' "alltoall: profile of MPI_Alltoall"
is "$(jv 'bins(fn(p,"MPI_Alltoall"))')" '{"128":4}' \
  "alltoall: one 128-byte sample per MPI_Alltoall call"
is "$(jv '[fn(p,"MPI_Waitall")["calls"], fn(p,"MPI_Waitall")["bytes"]]')" \
  '[4,0]' "alltoall: MPI_Waitall 4 calls, no bytes"

# Master-worker: 10 tasks dealt round robin to 3 workers, results from
# any source, one empty stop message each.
pattern master
is "$(jv 'm["count"]')" '[[0,5,4,4],[4,0,0,0],[3,0,0,0],[3,0,0,0]]' \
  "master: count matrix (tasks + stop, results)"
is "$(jv 'm["bytes"]')" '[[0,16,12,12],[32,0,0,0],[24,0,0,0],[24,0,0,0]]' \
  "master: bytes matrix"
is "$(jv '[fn(p,"MPI_Send")[k] for k in ("calls","bytes_sent")]')" \
  '[23,120]' "master: MPI_Send 23 calls, 120 bytes"
is "$(jv '[fn(p,"MPI_Recv")[k] for k in ("calls","bytes_recv")]')" \
  '[23,120]' "master: MPI_Recv 23 calls, 120 bytes"
is "$(jv '[(r["rank"],r["calls"]) for r in fn(p,"MPI_Recv")["per_rank"]]')" \
  '[[0,10],[1,5],[2,4],[3,4]]' "master: MPI_Recv calls per rank"
is "$(jv 'bins(fn(p,"MPI_Send"))')" '{"0":3,"4":10,"8":10}' \
  "master: MPI_Send sizes (3 empty, 10 ints, 10 doubles)"

# Sub-communicator: halves {0,2} and {1,3}; local 0 sends 2 x 64 bytes
# to local 1, which answers 32; an MPI_Allreduce of 2 doubles on each.
pattern subcomm
is "$(jv 'm["count"]')" '[[0,0,2,0],[0,0,0,2],[1,0,0,0],[0,1,0,0]]' \
  "subcomm: world matrix"
is "$(jv '[comm(m,[0,2])[k] for k in ("calls","bytes_sent","bytes_recv","size")]')" \
  '[2,32,32,2]' "subcomm: MPI_Allreduce on {0,2}: 2 calls, 16 bytes each way per rank"
is "$(jv '[comm(m,[1,3])[k] for k in ("calls","bytes_sent","bytes_recv")]')" \
  '[2,32,32]' "subcomm: MPI_Allreduce on {1,3}"
is "$(jv '[f["name"] for f in comm(m,[0,2])["functions"]]')" '["MPI_Allreduce"]' \
  "subcomm: only MPI_Allreduce on the half"
id=$(jv 'cid(m,[0,2])')
run 0 "subcomm: matrix --comm $id --local --json" \
  "$clogtool" matrix --json --comm "$id" --local "$log"
cp "$tap_tmp/out" "$tap_tmp/l.json"
is "$(jv '[l["ranks"], l["members"], l["count"], l["bytes"]]')" \
  '[2,[0,2],[[0,2],[1,0]],[[0,128],[32,0]]]' \
  "subcomm: the half's topology by local rank"
is "$(jv '[l["messages"], l["collectives"][0]["calls"], len(l["collectives"])]')" \
  '[3,2,1]' "subcomm: --comm keeps the half's messages and collectives"
run 0 "subcomm: matrix --comm world" "$clogtool" matrix --json --comm world "$log"
cp "$tap_tmp/out" "$tap_tmp/l.json"
is "$(jv '[l["messages"], [c["comm"] for c in l["collectives"]]]')" '[0,[]]' \
  "subcomm: nothing on MPI_COMM_WORLD"
is "$(jv '[fn(p,"MPI_Allreduce")["calls"], fn(p,"MPI_Allreduce")["bytes"], fn(p,"MPI_Comm_split")["calls"]]')" \
  '[4,128,4]' "subcomm: profile of MPI_Allreduce and MPI_Comm_split"

# Windows: nothing before the run's start, everything up to its end.
run 0 "subcomm: matrix --to 0" "$clogtool" matrix --json --to 0 "$log"
cp "$tap_tmp/out" "$tap_tmp/l.json"
is "$(jv '[l["messages"], len(l["collectives"])]')" '[0,0]' \
  "subcomm: an empty window holds nothing"

# Bad input.
run 2 "matrix --by nonsense" "$clogtool" matrix --by nonsense "$log"
run 2 "matrix --local without --comm" "$clogtool" matrix --local "$log"
run 1 "matrix --comm of no communicator" "$clogtool" matrix --comm 12345 "$log"
printf 'not a log' > "$tap_tmp/bad.clog"
run 1 "matrix on a file that is no log" "$clogtool" matrix "$tap_tmp/bad.clog"
run 1 "profile on a file that is no log" "$clogtool" profile "$tap_tmp/bad.clog"
finish

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: monitor-run.sh MPIEXEC LOADPROG [NP] [RUNS]
# The live monitor's cost: bench/monitor-load (linked with liblmpe) on NP
# ranks, compute-bound and message-bound, with the monitor off, at 10 Hz
# (the default: a helper thread per rank, MPI_Init asking for
# MPI_THREAD_MULTIPLE) and at 10 Hz moved only by the wrapped calls
# (MPE_MONITOR_THREAD=no), interleaved; medians of RUNS and the median of
# the per-round slowdowns against off.  Also the round trip of a request
# and the late and skipped periods (the manager's report).
mpiexec=$1 prog=$2 np=${3:-16} runs=${4:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/monbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
median () { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
once () {  # label mode iters env...
  label=$1 mode=$2 iters=$3; shift 3
  env "$@" MPE_LOGFILE_PREFIX="$tmp/bench" MPE_MONITOR_REPORT=yes \
    timeout 900 "$mpiexec" -n "$np" "$prog" "$mode" "$iters" \
    > "$tmp/out" 2> "$tmp/err"
  awk '/^seconds/ {print $2}' "$tmp/out" >> "$tmp/$label"
  sed -n 's/.* \([0-9]*\) late, \([0-9]*\) skipped, \([0-9]*\) periods, round trip min \([^ ]*\) median \([^ ]*\) max \([^ ]*\) s/\4 \5 \6, late \1 skipped \2 of \3/p' \
    "$tmp/err" >> "$tmp/$label.rtt"
}
echo "ranks: $np, runs: $runs, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ $i -lt "$runs" ]; do
  once compute-off compute 30 X=1
  once compute-10 compute 30 MPE_MONITOR=10
  once compute-nt compute 30 MPE_MONITOR=10 MPE_MONITOR_THREAD=no
  once message-off message 2000 X=1
  once message-10 message 2000 MPE_MONITOR=10
  once message-nt message 2000 MPE_MONITOR=10 MPE_MONITOR_THREAD=no
  i=$((i + 1))
done
for k in compute message; do
  off=$(median < "$tmp/$k-off")
  echo "$k: off $off s"
  echo "#   off: $(tr '\n' ' ' < "$tmp/$k-off")"
  for c in 10 nt; do
    [ $c = 10 ] && what="10 Hz, helper thread" || what="10 Hz, wrapped calls only"
    on=$(median < "$tmp/$k-$c")
    slow=$(paste "$tmp/$k-$c" "$tmp/$k-off" | awk '{print ($1 / $2 - 1) * 100}' \
           | median)
    echo "$k, $what: $on s; slowdown (median of rounds) $(printf %+.2f "$slow") %"
    echo "#   runs: $(tr '\n' ' ' < "$tmp/$k-$c")"
    echo "#   round trip min/median/max (s) per run: $(tr '\n' '|' < "$tmp/$k-$c.rtt")"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

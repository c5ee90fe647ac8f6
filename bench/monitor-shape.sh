#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: monitor-shape.sh MPIEXEC LOADPROG [NPS] [RUNS] [STEPS]
# `make bench-monitor-shape`: the round trip of the live monitor's
# requests round the ring and down and up the tree (fan-out 8), on the
# message-bound bench/monitor-load at 10 Hz, for each rank count in NPS
# (default "4 8 16 32"; STEPS / ranks iterations each, STEPS default
# 4000, so every run passes about as many messages), with the requests
# moved by the wrapped MPI calls and by the helper thread
# (MPE_MONITOR_THREAD).  The shapes alternate within each round.  Per case: medians over RUNS of the manager's round
# trip min / median / max (ms), and requests late / sent.
mpiexec=$1 prog=$2 nps=${3:-4 8 16 32} runs=${4:-3} steps=${5:-4000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/monshape.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
median () { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
once () {  # np progress shape
  np=$1 progress=$2 shape=$3 mode=message thread=no
  [ "$progress" = thread ] && mode=message-mt thread=yes
  env MPE_LOGFILE_PREFIX="$tmp/bench" MPE_MONITOR=10 MPE_MONITOR_REPORT=yes \
    MPE_MONITOR_SHAPE="$shape" MPE_MONITOR_THREAD=$thread \
    timeout 900 "$mpiexec" -n "$np" "$prog" "$mode" $((steps / np)) \
    > "$tmp/out" 2> "$tmp/err"
  sed -n 's/.* \([0-9]*\) requests sent, [0-9]* returned, \([0-9]*\) late, .*round trip min \([^ ]*\) median \([^ ]*\) max \([^ ]*\) s$/\3 \4 \5 \2 \1/p' \
    "$tmp/err" >> "$tmp/$np-$progress-$shape"
}
echo "$(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ranks progress shape: round trip min / median / max (ms, medians of $runs runs); late / sent"
for np in $nps; do
  i=0
  while [ $i -lt "$runs" ]; do
    for progress in calls thread; do
      once "$np" $progress ring
      once "$np" $progress tree
    done
    i=$((i + 1))
  done
  for progress in calls thread; do
    for shape in ring tree; do
      f=$tmp/$np-$progress-$shape
      if [ ! -s "$f" ]; then
        echo "$np $progress $shape: no report"
        continue
      fi
      mn=$(awk '{print $1 * 1000}' "$f" | median)
      md=$(awk '{print $2 * 1000}' "$f" | median)
      mx=$(awk '{print $3 * 1000}' "$f" | median)
      late=$(awk '{l += $4; s += $5} END {print l "/" s}' "$f")
      printf "%3d %-6s %s: %.3g / %.3g / %.3g ms; late %s\n" \
        "$np" $progress $shape "$mn" "$md" "$mx" "$late"
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

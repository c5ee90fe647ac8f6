#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The monitor's tree past 8 ranks: 12 ranks, fan-out 2 (depth 3, inner
# ranks with one or two children) and 3.  monitor-prog "still" makes
# rank r log 10 (r + 1) events and then every rank sleep 3 s outside
# MPI, while the helper threads answer: the values then stay put, so a
# process-level sample must hold rank r's value = rank 0's + 10 r, and a
# job-level sample the exact sum, minimum, maximum and their holders of
# those 12 values.  Every request sent must come back.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
PROG=$B/tests/mpe/monitor-prog
TOP=$B/top/mpetop
export MPE_LOGFILE_PREFIX=tree12 MPE_MONITOR_SHAPE=tree
NP=12

# watch FANOUT LEVEL: mpetop records what the 12-rank job sends at 20 Hz.
watch () {
  rm -f addr rec.txt
  $TOP --batch 100000 --level "$2" --addr-file addr --record rec.txt \
    > top.txt 2> top.err &
  top_pid=$!
  i=0; while [ ! -s addr ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
  MPE_MONITOR=20 MPE_MONITOR_THREAD=yes MPE_MONITOR_REPORT=yes \
    MPE_MONITOR_FANOUT=$1 MPE_MONITOR_ADDR=$(cat addr) \
    run $NP $PROG still 3000
  job=$?
  wait $top_pid
  return $job
}
report () {
  sed -n "s/^MPE monitor: .* \([0-9]*\) $1.*/\1/p" err.txt | head -1
}

for f in 2 3; do
  watch $f process; ok $? "fan-out $f, process level: job and mpetop run"
  grep -q "tree of fan-out $f" err.txt; ok $? "fan-out $f: the requests went down a tree"
  sent=$(report "requests sent"); returned=$(report "returned")
  test -n "$sent" && test "$sent" -gt 0
  ok $? "fan-out $f, process level: requests sent ($sent)"
  is "fan-out $f, process level: every request came back" "$returned" "$sent"
  # Every sample: 12 slots, ranks 0..11 once each, one part each, every
  # rank visited; exact: rank r's value is rank 0's + 10 r.
  awk -v np=$NP '/^sample / { n++
       if ($5 != 1 || $8 != np || $9 != np) { bad++; print "# " $0 > "/dev/stderr"; next }
       split($10, z, ":"); exact = 1
       for (i = 10; i < 10 + np; i++) { split($i, f, ":")
         if (f[1] != i - 10 || f[7] != 1) { bad++; print "# " $0 > "/dev/stderr" }
         if (f[2] != z[2] + 10 * (i - 10)) exact = 0 }
       still += exact
       if (!exact) { off = ""
         for (i = 10; i < 10 + np; i++) { split($i, f, ":")
           if (f[2] != z[2] + 10 * (i - 10))
             off = off " rank " i - 10 " off by " f[2] - z[2] - 10 * (i - 10) }
         last_off = "seq " $2 ":" off } }
     END { print (bad || still < 3 ? "bad" : "good") " " still "/" n \
             (still < 3 ? "; last inexact " last_off : "") }' \
    rec.txt > chk.txt
  read verdict n < chk.txt
  is "fan-out $f, process level: every rank once, exact values ($n samples)" "$verdict" good

  watch $f job; ok $? "fan-out $f, job level: job and mpetop run"
  sent=$(report "requests sent"); returned=$(report "returned")
  is "fan-out $f, job level: every request came back ($sent)" "$returned" "$sent"
  # One slot of 12 parts; exact: sum = 12 min + 10 (0 + ... + 11),
  # max = min + 110, held by ranks 0 and 11.
  awk -v np=$NP '/^sample / { n++; split($10, f, ":")
       if ($5 != 3 || $9 != 1 || f[7] != np) { bad++; print "# " $0 > "/dev/stderr"; next }
       if (f[2] == np * f[3] + 660 && f[4] == f[3] + 110 && f[5] == 0 && f[6] == np - 1)
         still++ }
     END { print (bad || still < 3 ? "bad" : "good") " " still "/" n }' \
    rec.txt > chk.txt
  read verdict n < chk.txt
  is "fan-out $f, job level: 12 parts, exact sum, min and max ($n samples)" "$verdict" good
done

finish

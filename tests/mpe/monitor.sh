#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The live monitor: a ring of requests through every rank while the job
# runs, seen by mpetop.  Rank r's record count grows by r + 3 per step of
# monitor-prog, so every sample must show the ranks in that proportion,
# aggregates must name rank 0 as the minimum and the last rank as the maximum,
# every request sent must come back, a rank that computes for 2 s without
# MPI must show up as a late request, and the monitor must add nothing
# to the program's log.
# The requests go round a ring here; tests/mpe/monitor-tree.sh runs the
# same checks with MPE_MONITOR_SHAPE=tree, NP ranks and MPE_MONITOR_FANOUT.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
PROG=$B/tests/mpe/monitor-prog
export MPE_LOGFILE_PREFIX=monitor-prog
TOP=$B/top/mpetop
NP=${NP:-4}
last=$((NP - 1))
# The shape the manager reports, and its fan-out in the log (0: ring).
case ${MPE_MONITOR_SHAPE:-ring} in
  tree) shape="tree of fan-out ${MPE_MONITOR_FANOUT:-8}" fanout=${MPE_MONITOR_FANOUT:-8} ;;
  *) shape=ring fanout=0 ;;
esac

# report FIELD: a number from the manager's MPE_MONITOR_REPORT line.
report () {
  sed -n "s/^MPE monitor: .* \([0-9]*\) $1.*/\1/p" err.txt | head -1
}
# accounts WHAT: every period of the run, by the manager's clock, either
# had a request or is counted as skipped.
accounts () {
  s=$(report "requests sent"); k=$(report "skipped"); p=$(report "periods")
  test -n "$p" && test $((s + k)) -eq "$p"
  ok $? "$1: sent + skipped = periods ($s + $k of $p)"
}
# watch LEVEL [MPETOP-OPTION...]: mpetop recording what an NP-rank job
# sends at 50 Hz.
watch () {
  rm -f addr rec.txt
  level=$1; shift
  $TOP --batch 100000 --level "$level" "$@" --addr-file addr \
    --record rec.txt > top.txt 2> top.err &
  top_pid=$!
  i=0; while [ ! -s addr ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
  # Every wrapped call moves the request (no 200 us poll spacing, no
  # helper thread), so a request sees each rank at the end of one of its
  # barriers.
  MPE_MONITOR=50 MPE_MONITOR_POLL_US=1 MPE_MONITOR_THREAD=no \
    MPE_MONITOR_REPORT=yes \
    MPE_MONITOR_ADDR=$(cat addr) run $NP $PROG steady 300
  job=$?
  wait $top_pid
  return $job
}

# Off by default: no report, and the log holds exactly what it held
# before (the monitor logs nothing of its own).
run $NP $PROG steady 50; ok $? "monitor off: the job runs"
grep -q "MPE monitor" err.txt; test $? -ne 0; ok $? "monitor off: silent"
is "monitor off: no accounting in the log" \
  "$(val monitor-prog.clog const monitor.requests_sent)" none
$LOGCHECK monitor-prog.clog | grep '^count' > off.txt
test -s off.txt; ok $? "monitor off: the log has records"
MPE_MONITOR=100 MPE_MONITOR_REPORT=yes run $NP $PROG steady 50
ok $? "monitor on: the job runs"
$LOGCHECK monitor-prog.clog | grep '^count' > on.txt
cmp -s off.txt on.txt; ok $? "monitor on: the log's records are the program's"
sent=$(report "requests sent"); returned=$(report "returned")
test -n "$sent" && test "$sent" -gt 0; ok $? "monitor on: requests sent ($sent)"
is "monitor on: every request came back" "$returned" "$sent"
accounts "monitor on"
grep -q "^MPE monitor: [0-9.]* Hz, $shape, " err.txt
ok $? "monitor on: the requests went the expected way ($shape)"
is "monitor on: ... and the log says which" \
  "$(val monitor-prog.clog const monitor.tree_fanout)" "$fanout"
# The manager's accounting is in the log (constants monitor.*).
is "monitor on: the log holds the requests sent" \
  "$(val monitor-prog.clog const monitor.requests_sent)" "$sent"
is "monitor on: ... and returned" \
  "$(val monitor-prog.clog const monitor.requests_returned)" "$returned"
is "monitor on: ... and the rate" \
  "$(val monitor-prog.clog const monitor.hz_milli)" 100000
rtt=$(val monitor-prog.clog const monitor.rtt_median_ns)
test "$rtt" -gt 0 2>/dev/null; ok $? "monitor on: ... and the round trip ($rtt ns)"

# A named metric at the node level, chosen by the environment: the
# samples are in the log as "mpi.calls@node", with the accounting.
MPE_MONITOR=50 MPE_MONITOR_METRIC=mpi.calls MPE_MONITOR_LEVEL=node \
  run $NP $PROG steady 100
ok $? "named metric: the job runs"
$CLOGTOOL metrics --json monitor-prog.clog > m.json
python3 -c "
import json, sys
m = json.load(open('m.json'))['monitor']
ok = m['series'] == ['mpi.calls@node'] and m['requests_sent'] > 0 \\
     and m['requests_returned'] == m['requests_sent'] and m['hz'] == 50
sys.exit(0 if ok else 1)"
ok $? "named metric: clogtool metrics --json reports the monitor and its series"

# Process level: one slot per rank, each grows by r + 3 per step.
watch process; ok $? "process level: job and mpetop run"
grep -q "^hello 1 [0-9a-f]* $NP 1 " rec.txt; ok $? "process level: hello"
grep -c '^sample ' rec.txt > n.txt
test "$(cat n.txt)" -ge 5; ok $? "process level: samples arrive ($(cat n.txt))"
# Between two samples each rank advanced the same number of steps, within
# the one step a request can see a rank ahead of another at each end:
# growth / (r + 3) agrees within 2.5 (in all but 10% of the samples: a
# rank descheduled while the others run on, as under a parallel CI at a
# load of 20, puts one sample in ten off; monitor-tree12.sh checks exact
# values while the ranks stand still).
# The last samples are left out: there the ranks stop one after the
# other.
awk -v np=$NP '/^sample / && $9 == np {
       if ($5 != 1 || $8 != np) { bad++; next }
       n++; for (i = 10; i < 10 + np; i++) { split($i, f, ":"); v[n, f[1]] = f[2] } }
     END {
       for (k = 2; k <= n - 3; k++) {
         lo = 1e18; hi = -1
         for (r = 0; r < np; r++) {
           s = (v[k, r] - v[k - 1, r]) / (r + 3)
           if (s < lo) lo = s; if (s > hi) hi = s }
         if (hi - lo > 2.5) { bad++; print "# off at sample " k > "/dev/stderr" }
         good++ }
       print (bad > good / 10 ? "bad" : "good") " " good }' rec.txt > chk.txt
read verdict good < chk.txt
is "process level: every rank's value is in proportion (r + 3)" "$verdict" good
test "${good:-0}" -ge 3; ok $? "process level: enough samples checked ($good)"
grep -q '^stats ' rec.txt; ok $? "process level: the job's accounting arrives"
sent=$(report "requests sent"); returned=$(report "returned")
is "process level: every request came back" "$returned" "$sent"
grep -q 'round trip' top.txt; ok $? "process level: mpetop shows the round trip"

# Job level: one slot with NP parts, minimum rank 0, maximum the last,
# once 50 steps made the ranks far apart: a request reads the ranks a few
# steps apart (in the tree, a deeper rank later than a higher one), which
# can swap neighbours early on.
watch job; ok $? "job level: job and mpetop run"
# The shape is exact; the holders may swap in 5% of the samples when a
# rank is descheduled for long (as at the process level: seen under the
# parallel CI).
awk -v np=$NP '/^sample / { if ($9 != 1) { bad++; print "# " $0 > "/dev/stderr"; next }
       split($10, f, ":")
       if (f[7] != np) { bad++; print "# " $0 > "/dev/stderr" }
       else if (f[2] > 50 * np * (np + 5) / 2) {
         if (f[5] != 0 || f[6] != np - 1) { off++; print "# " $0 > "/dev/stderr" }
         good++ } }
     END { print (bad || off > good / 20 ? "bad" : "good") " " good }' \
  rec.txt > chk.txt
read verdict good < chk.txt
is "job level: one value, min on rank 0, max on rank $last" "$verdict" good
test "${good:-0}" -ge 3; ok $? "job level: enough samples checked ($good)"

# Node level: all ranks are on this host: one node, NP parts.
watch node; ok $? "node level: job and mpetop run"
awk -v np=$NP '/^sample / { split($10, f, ":")
       if ($9 != 1 || f[1] != 0 || f[7] != np) { bad++; print "# " $0 > "/dev/stderr" }
       n++ }
     END { print (bad || !n ? "bad" : "good") }' rec.txt > chk.txt
is "node level: one value per node, from $NP ranks" "$(cat chk.txt)" good

# One object: one value, from the one rank asked (the others add nothing;
# in the tree they answer with the header alone).
watch process --object $last; ok $? "one object: job and mpetop run"
awk -v np=$NP -v o=$last '/^sample / { split($10, f, ":")
       if ($5 != 1 || $6 != o || $8 != np || $9 != 1 || f[1] != o || f[7] != 1) {
         bad++; print "# " $0 > "/dev/stderr" }
       n++ }
     END { print (bad || !n ? "bad" : "good") " " n }' rec.txt > chk.txt
read verdict n < chk.txt
is "one object: rank $last's value alone, every rank visited ($n samples)" "$verdict" good

# A window slow to answer (stopped for 1 s while the job starts): the
# manager holds its first request until the window said "ready", so no
# sample of the default (process) level reaches it (the flake of the
# node and one-object checks above under a loaded CI).
rm -f addr rec.txt
$TOP --batch 100000 --level node --addr-file addr --record rec.txt \
  > top.txt 2> top.err &
top_pid=$!
i=0; while [ ! -s addr ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
kill -STOP $top_pid
(sleep 1; kill -CONT $top_pid) &
# 800 steps of at least 2 ms: the job outlasts the window's second.
MPE_MONITOR=50 MPE_MONITOR_ADDR=$(cat addr) run $NP $PROG steady 800
ok $? "slow window: the job runs"
wait
awk -v np=$NP '/^sample / { split($10, f, ":")
       if ($5 != 2 || $9 != 1 || f[7] != np) { bad++; print "# " $0 > "/dev/stderr" }
       n++ }
     END { print (bad || !n ? "bad" : "good") " " n }' rec.txt > chk.txt
read verdict n < chk.txt
is "slow window: only samples of the level it asked for ($n)" "$verdict" good

# Without the helper thread, a rank that computes 2 s without MPI stops
# the ring: the others wait for it inside MPI, where nothing moves
# requests, so about 40 periods at 20 Hz pass without a sample, and the
# accounting says so.
MPE_MONITOR=20 MPE_MONITOR_THREAD=no MPE_MONITOR_REPORT=yes \
  run $NP $PROG compute 100
ok $? "computing rank, no helper: the job runs"
skipped=$(report "skipped"); sent=$(report "requests sent"); returned=$(report "returned")
test -n "$skipped" && test "$skipped" -ge 30
ok $? "computing rank, no helper: the missed samples are counted ($skipped)"
is "computing rank, no helper: every request came back" "$returned" "$sent"
accounts "computing rank, no helper"
# With a helper thread per rank the ring keeps moving while rank 1
# computes and the others wait in MPI: samples go on (20 Hz over more
# than 2 s) and hardly any period is missed (at most one in four: a
# loaded machine delays the helper threads too, and a longer run then
# has more periods; without the helper, 2 s of 20 Hz are all missed).
# First asked for by a program that wants MPI_THREAD_MULTIPLE itself,
# then by default for an unmodified program calling MPI_Init: the
# wrappers ask MPI for MULTIPLE on its behalf, and the program still
# sees MPI_THREAD_SINGLE (monitor-prog aborts otherwise).
for mode in compute-mt compute; do
  if [ $mode = compute-mt ]; then
    what="helper thread, asked for"
    MPE_MONITOR=20 MPE_MONITOR_THREAD=yes MPE_MONITOR_REPORT=yes \
      run $NP $PROG $mode 100
  else
    what="helper thread, MPI_Init"
    MPE_MONITOR=20 MPE_MONITOR_REPORT=yes run $NP $PROG $mode 100
  fi
  ok $? "$what: the job runs"
  [ -s err.txt ] && grep -q 'MPI_Query_thread says' err.txt && diag "$(cat err.txt)"
  skipped=$(report "skipped"); sent=$(report "requests sent"); returned=$(report "returned")
  test -n "$sent" && test "$sent" -ge 35; ok $? "$what: samples during the computation ($sent)"
  test -n "$skipped" && test $((skipped * 4)) -le $((sent + skipped))
  ok $? "$what: few missed periods ($skipped of $((sent + skipped)))"
  is "$what: every request came back" "$returned" "$sent"
  accounts "$what"
  grep -q "MPE_MONITOR_THREAD needs" err.txt; test $? -ne 0
  ok $? "$what: no warning"
done

finish

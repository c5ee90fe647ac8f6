#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Threads that call neither MPI nor MPE_Counters_read (ctr-prog threads
# N: two spin N ms in state "Spin" and end before the finish, a third
# spins N ms in state "Sleep" and still runs at the finish): each is
# read when it starts and when it ends, the one still running by the
# finishing thread (perf allows it), so each thread's task clock holds
# its N ms, with the sampler on too (a reading at its last sample
# before is not the end), and the states' totals hold them.  A source
# that reads only from the set's own thread (the fake) has nothing for
# the thread still running: "no data", not 0.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
. "$top_srcdir/tests/counters/common.sh"
N=60
# tval FILE METRIC THREAD: thread THREAD of rank 0's final value.
tval () {
  $CLOGTOOL metrics --csv --level thread "$1" | awk -F, -v m="\"$2\"" \
    -v o="\"rank 0 thread $3\"" '$1 == m && $4 == o { v = $5 }
    END { print v == "" ? "none" : v }'
}
# pc STATE COUNTER: a state's counter total (profile --json; "None":
# no data).
pc () {
  $CLOGTOOL profile --json ctr.clog | python3 -c "import json, sys
j = json.load(sys.stdin)
v = [s for s in j['states'] if s['name'] == '$1'][0]['counters']['$2']
print(v if v is None else int(v))"
}

for hz in 0 100; do
  MPE_SAMPLE_HZ=$hz MPE_COUNTERS=task-clock run 1 "$PROG" threads $N; r=$?
  ok $r "sampler at $hz Hz: the job ran (rc $r)"
  [ $r -eq 0 ] || diag "$(cat err.txt)"
  for t in 1 2 3; do
    tc=$(tval ctr.clog task-clock $t)
    [ "$tc" != none ] && [ "$tc" -ge $((N * 1000000)) ] &&
      [ "$tc" -le $((N * 1000000 * 3 / 2)) ]
    ok $? "  thread $t: task clock $tc ns for its $N ms spun"
  done
  tc=$(pc Spin task-clock)
  within "$tc" $((2 * N * 1000000)) 5
  ok $? "  Spin (threads 1, 2, ended): $tc ns for $((2 * N)) ms spun"
  # Thread 3's last reading is the finish's, after its state ended and
  # the main thread woke: the state's end is interpolated over that
  # gap (3 ms of 60 on this loaded machine), so only a share is fixed.
  tc=$(pc Sleep task-clock)
  [ "$tc" -ge $((N * 1000000 / 2)) ] && [ "$tc" -le $((N * 1000000 * 3 / 2)) ]
  ok $? "  Sleep (thread 3, running at the finish): $tc ns for $N ms"
done
# Samples lie between two readings of their thread: cct leaves out (and
# says so) at most one per thread, a sample that came between the
# thread's start and its first reading (a slow start, as under ASan).
$CLOGTOOL cct --metric task-clock ctr.clog > /dev/null 2> cct-err.txt
ok $? "cct --metric task-clock reads it"
out=$(sed -n "s/.*note: \([0-9]*\) of [0-9]* samples are outside their thread's readings.*/\1/p" cct-err.txt)
[ "${out:-0}" -le 4 ]
ok $? "  samples have their thread's readings around them (${out:-0} left out, at most one per thread)"
[ -s cct-err.txt ] && diag "$(cat cct-err.txt)"


MPE_PLUGINS=$FAKE MPE_FAKE_SLOTS=0 MPE_COUNTERS=fake1,task-clock \
  run 1 "$PROG" threads $N; r=$?
ok $r "with the fake source too (rc $r)"
f=$(pc Spin fake1)
within "$f" $((2 * N * 1000)) 5
ok $? "  Spin: fake1 $f, read when its threads ended ($((2 * N * 1000)))"
is "  Sleep: fake1 has no data (JSON null)" "$(pc Sleep fake1)" None
$CLOGTOOL profile ctr.clog > p.txt
grep -q "^Sleep  *no data " p.txt
ok $? "  the table says \"no data\""
[ "$(pc Sleep task-clock)" != None ]
ok $? "  perf's task clock for it is there ($(pc Sleep task-clock))"
finish

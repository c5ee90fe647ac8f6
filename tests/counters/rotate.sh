#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Rotation of counter sets through the plugin ABI: a fake source
# (fake-counters.so: event fakeK counts K * 1000 per ms of the thread's
# CPU time, 2 slots) asked for 5 events rotates 3 sets at the
# instrumentation points.  The scaled estimates must give the known
# rates: fake1 = the time the fake's sets counted (which it prints, in
# the thread CPU clock it counts by) / 1 us within 2%, fakeK = K x fake1
# within 2% (a set's time unscaled would be 67% off); their standard
# errors are recorded as fakeK.err.  Perf's task clock (never rotated,
# read at the same points) is a second, independent check within 20%
# only: the kernel accounts it apart from the thread CPU clock, and the
# two were seen 8.5% apart in a loaded CI run and 11% apart here in a
# loop calling sched_yield, as MPICH's oversubscribed waits do.  With
# sampling on, a computation without any MPI call rotates at the timer
# samples (the fake's start and stop are signal-safe) with the same
# accuracy, and does not when the source is not signal-safe.  (The
# rotation logic's accuracy and shrinking error against an exact truth:
# tests/counters/test-rotate.)
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
. "$top_srcdir/tests/counters/common.sh"
export MPE_PLUGINS=$FAKE
export MPE_COUNTERS=task-clock,fake1,fake2,fake3,fake4,fake5
export MPE_COUNTERS_ROTATE=2ms
# fake_field NAME RANK: a figure of the fake's line for RANK in err.txt
# ("fake-counters: rank R: opened O started S counted U").
fake_field () {
  grep "^fake-counters: rank $2:" err.txt | sed "s/.* $1 \([0-9]*\).*/\1/"
}

run 2 "$PROG" barriers 100 3; r=$?
ok $r "barriers: the job ran with the fake source (rc $r)"
[ $r -eq 0 ] || diag "$(cat err.txt)"
for rk in 0 1; do
  opened=$(fake_field opened $rk)
  started=$(fake_field started $rk)
  counted=$(fake_field counted $rk)
  is "rank $rk: 5 events in 2 slots: 3 sets" "$opened" 3
  [ "$started" -ge 20 ] 2>/dev/null
  ok $? "rank $rk: the sets rotated ($started starts)"
  tc=$(mval ctr.clog task-clock $rk)
  f1=$(mval ctr.clog fake1 $rk)
  within "$f1" "$counted" 2
  ok $? "rank $rk: fake1 $f1 = the sets' counting time $counted us within 2%"
  within "$f1" "$(($tc / 1000))" 20
  ok $? "rank $rk: fake1 $f1 = task clock / 1 us ($tc ns) within 20%"
  for k in 2 3 4 5; do
    fk=$(mval ctr.clog fake$k $rk)
    within "$fk" "$(($f1 * $k))" 2
    ok $? "rank $rk: fake$k $fk = $k x fake1 within 2%"
    err=$(mval ctr.clog fake$k.err $rk)
    [ "$err" != none ] && [ "$err" -ge 0 ] && [ $((err * 100)) -le "$fk" ]
    ok $? "rank $rk: fake$k.err $err recorded, under 1% at constant rates"
  done
done
$CLOGTOOL verify ctr.clog > /dev/null; ok $? "the log verifies"

# Rotation at timer samples: 600 ms of computation, no MPI call in it.
MPE_SAMPLE_HZ=1000 run 1 "$PROG" compute 600; r=$?
ok $r "compute with samples: the job ran (rc $r)"
[ $r -eq 0 ] || diag "$(cat err.txt)"
n=$(fake_field started 0)
[ "$n" -ge 50 ] 2>/dev/null
ok $? "the sets rotated at the samples ($n starts in 600 ms without MPI calls)"
tc=$(mval ctr.clog task-clock 0)
f1=$(mval ctr.clog fake1 0)
counted=$(fake_field counted 0)
within "$f1" "$counted" 2
ok $? "fake1 $f1 = the sets' counting time $counted us within 2%"
within "$f1" "$(($tc / 1000))" 20
ok $? "fake1 $f1 = task clock / 1 us ($tc ns) within 20%"
for k in 3 5; do
  fk=$(mval ctr.clog fake$k 0)
  within "$fk" "$(($f1 * $k))" 2
  ok $? "fake$k $fk = $k x fake1 within 2%"
  err=$(mval ctr.clog fake$k.err 0)
  [ "$err" != none ] && [ "$err" -ge 0 ] && [ $((err * 100)) -le "$fk" ]
  ok $? "fake$k.err $err under 1%"
done
MPE_FAKE_SIGNAL_SAFE=0 MPE_SAMPLE_HZ=1000 run 1 "$PROG" compute 600; r=$?
ok $r "compute, the source not signal-safe: the job ran (rc $r)"
n=$(fake_field started 0)
[ "$n" -le 5 ] 2>/dev/null
ok $? "  no rotation at the samples ($n starts: at instrumentation points only)"

# Enough slots: nothing rotates, no .err, the same rates.
MPE_FAKE_SLOTS=0 run 1 "$PROG" barriers 60 3; r=$?
ok $r "barriers with unlimited slots (rc $r)"
is "one set opened" \
  "$(fake_field opened 0)" 1
is "no .err companion" "$(mval ctr.clog fake1.err 0)" none
# Unrotated, fake3 is the count itself: 3 x the counting time to 0.1%
# (rounding); the task clock again within 20% (see the top).
f3=$(mval ctr.clog fake3 0); tc=$(mval ctr.clog task-clock 0)
counted=$(fake_field counted 0)
within "$f3" "$((counted * 3))" 0.1
ok $? "fake3 $f3 = 3 x the set's counting time $counted us within 0.1%"
within "$f3" "$((tc * 3 / 1000))" 20
ok $? "fake3 $f3 = 3 x task clock $tc / 1 us within 20%"
finish

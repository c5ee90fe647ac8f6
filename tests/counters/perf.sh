#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# OS counters (perf software events) per thread: a program whose states
# have known counts (ctr-prog states N) gives at least those counts, and
# never more than the kernel's own account of the thread's whole life
# (getrusage, printed by ctr-prog at exit: a loaded machine preempts the
# spinning rank often, so only that bound is fixed); reads happen at the
# program's MPE_Counters_read and at timer samples only.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
. "$top_srcdir/tests/counters/common.sh"
N=20
export MPE_COUNTERS=task-clock,context-switches,cpu-migrations,page-faults,minor-faults,major-faults

run 2 "$PROG" states $N; r=$?
ok $r "states: the job ran (rc $r)"
[ $r -eq 0 ] || diag "$(cat err.txt)"
for rk in 0 1; do
  cs=$(mval ctr.clog context-switches $rk)
  life=$(awk -v r=$rk '$1 == "ctr-prog:" && $3 == r && $4 == "csw" { print $5 + $6 }' out.txt)
  [ "$cs" != none ] && [ "$cs" -ge $N ] && [ -n "$life" ] && [ "$cs" -le "$life" ]
  ok $? "rank $rk: context switches $cs: one per sleep ($N), at most the thread's life's ($life)"
  mf=$(mval ctr.clog minor-faults $rk)
  [ "$mf" != none ] && [ "$mf" -ge $((N * 64)) ]
  ok $? "rank $rk: minor faults $mf >= the $((N * 64)) pages touched"
  pf=$(mval ctr.clog page-faults $rk)
  [ "$pf" != none ] && [ "$pf" -ge "$mf" ]
  ok $? "rank $rk: page faults $pf >= minor faults"
  tc=$(mval ctr.clog task-clock $rk)
  [ "$tc" != none ] && [ "$tc" -ge $((N * 2000000)) ]
  ok $? "rank $rk: task clock $tc ns >= the $((N * 2)) ms spun"
  # The Fault state reads N * 16 pages of a file dropped from the page
  # cache, each a major fault (the kernel's count of the state is
  # printed); this host also reclaims cold file pages on its own (a
  # library's page read back once in a CI run), so the thread may have
  # more, but never more than its life's, as the kernel counted them.
  mj=$(mval ctr.clog major-faults $rk)
  st_mj=$(awk -v r=$rk '$1 == "ctr-prog:" && $3 == r && $4 == "fault" { print $6 }' out.txt)
  life_mj=$(awk -v r=$rk '$1 == "ctr-prog:" && $3 == r && $4 == "csw" { print $8 }' out.txt)
  if [ $DISK_FAULTS = yes ]; then
    [ -n "$st_mj" ] && [ "$st_mj" -ge $((N * 8)) ]
    ok $? "rank $rk: the Fault state took major faults ($st_mj for $((N * 16)) pages dropped)"
  else
    diag "the working directory is in memory: no major faults to take"
  fi
  [ "$mj" != none ] && [ -n "$life_mj" ] && [ "$mj" -ge "$st_mj" ] && [ "$mj" -le "$life_mj" ]
  ok $? "rank $rk: major faults $mj, at least the Fault state's ($st_mj), at most the thread's life's ($life_mj)"
done
$CLOGTOOL metrics --csv --level thread ctr.clog | grep -q '\.err"'
ok $((!$?)) "perf events never rotate: no .err companions"
$CLOGTOOL verify ctr.clog > /dev/null; ok $? "the log verifies"

# Reads at the thread's start and the program's points only: 1 + 1 + 8
# around the states + the
# finish; with the sampler on, also at its samples (100 ms of CPU spun
# at 200 Hz: about 20 more).
count () {
  $CLOGTOOL query ctr.clog "SELECT count(*) FROM metrics WHERE name='task-clock' AND rank=0" | tail -1
}
run 1 "$PROG" states 50; r=$?
is "no sampler: a reading at the start, at each MPE_Counters_read and the finish" \
  "$(count)" 11
MPE_SAMPLE_HZ=200 run 1 "$PROG" states 50; r=$?
n=$(count)
[ "$n" -ge 18 ]; ok $? "sampler at 200 Hz: readings at samples too ($n)"

# Off by default: no counter metric, nothing said.
unset MPE_COUNTERS
run 1 "$PROG" states 2; r=$?
ok $r "without MPE_COUNTERS the job runs"
is "... and records no counter" "$(mval ctr.clog task-clock 0)" none
is "... and says nothing" "$(grep -c 'counter' err.txt)" 0

# The configuration file's key does what the variable does.
printf 'counters = context-switches, minor-faults\n' > ctr.conf
MPE_CONFIG=$PWD/ctr.conf run 1 "$PROG" states 4; r=$?
ok $r "counters from MPE_CONFIG's file (rc $r)"
cs=$(mval ctr.clog context-switches 0)
[ "$cs" != none ] && [ "$cs" -ge 4 ]
ok $? "... are counted ($cs context switches for 4 sleeps)"
is "... and only those" "$(mval ctr.clog task-clock 0)" none

# A name no source knows is named once and the rest are counted.
MPE_COUNTERS=task-clock,no-such-event run 2 "$PROG" states 2; r=$?
ok $r "an unknown event does not stop the job"
is "it is named once" \
  "$(grep -c 'no counter source counts "no-such-event"' err.txt)" 1
[ "$(mval ctr.clog task-clock 1)" != none ]
ok $? "the known events are still counted"
finish

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A program logged by the wrappers alone (liblmpe), killed by SIGKILL,
# SIGTERM and MPI_Abort after its messages: the recovered log names the
# same MPI states as the finished twin run's log (the definitions are in
# the spill file from the first call on, not only at the finish), pairs
# them into states, and has every message the twin has.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
P=$B/tests/mpe/wrapcrash
N=3000
MPE_LOGFILE_PREFIX=$tap_tmp/wrapcrash; export MPE_LOGFILE_PREFIX
rm -rf "$MPE_TMPDIR"/*
run 2 $P finish $N; ok $? "finished twin run"
val wrapcrash.clog matched > /dev/null
grep '^state ' "$tap_tmp/val.out" | sort > fin-states.txt
grep -q '^state MPI_Send ' fin-states.txt; ok $? "twin: MPI_Send is a state"
fin_matched=$(val wrapcrash.clog matched)
is "twin: every message matched" "$fin_matched" $((N + 2))
for mode in kill term abort; do
  rm -rf "$MPE_TMPDIR"/*
  run 2 $P $mode $N
  fails $?; ok $? "$mode: the job fails"
  grep -q '^rank 1: received' out.txt; ok $? "$mode: rank 1 got past its messages"
  $CLOGTOOL recover --clean "$MPE_TMPDIR" -o $mode.clog > rec.txt 2>&1
  ok $? "$mode: clogtool recover"
  grep -q '^rank 1 .*did not finish' rec.txt; ok $? "$mode: rank 1 reported as not finished"
  val $mode.clog matched > /dev/null
  grep '^state ' "$tap_tmp/val.out" | sort > rec-states.txt
  is "$mode: MPI states named as in the twin" "$(cat rec-states.txt)" "$(cat fin-states.txt)"
  is "$mode: every message matched" "$(val $mode.clog matched)" "$fin_matched"
  is "$mode: nothing unmatched" "$(val $mode.clog unmatched)" 0
  $CLOGTOOL stats $mode.clog > st.txt 2>&1
  grep -q 'MPI_Send' st.txt; ok $? "$mode: stats shows MPI_Send"
  grep -q 'event-\?[0-9]' st.txt; [ $? -ne 0 ]; ok $? "$mode: no anonymous events"
  $CLOGTOOL verify $mode.clog > /dev/null 2>&1; ok $? "$mode: recovered log verifies"
done
# A snapshot of a running job (every rank waiting in MPI_Recv): the same
# MPI states, named.
rm -rf "$MPE_TMPDIR"/*
timeout 120 $MPIEXEC -n 2 $P hold $N > hold.txt 2> hold.err &
job=$!
i=0
while [ "$(grep -c '^rank' hold.txt)" -lt 2 ] && [ $i -lt 1200 ]; do
  sleep 0.1; i=$((i + 1))
done
is "hold: both ranks past their messages" "$(grep -c '^rank' hold.txt)" 2
$CLOGTOOL recover "$MPE_TMPDIR" -o snap.clog > rec.txt 2>&1
ok $? "snapshot: recover while the job runs"
kill $job; wait $job
val snap.clog matched > /dev/null
grep '^state ' "$tap_tmp/val.out" | sort > snap-states.txt
is "snapshot: MPI states named as in the twin" "$(cat snap-states.txt)" "$(cat fin-states.txt)"
is "snapshot: every message matched" "$(val snap.clog matched)" "$fin_matched"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o snap2.clog > /dev/null 2>&1
finish

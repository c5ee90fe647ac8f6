#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Without ring files (MPE_RING_DIR=none) a SIGKILLed process loses what
# it had not spilled: the recovered log marks the gap with a LOSS record
# on each such thread (clogtool stats counts it), and recover says why.
# A process whose crash handler saved its memory (SIGTERM) has no gap;
# ring files removed before recovery (as a reboot empties /dev/shm) are
# a gap too.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
P=$B/tests/mpe/wrapcrash
MPE_LOGFILE_PREFIX=$tap_tmp/wrapcrash; export MPE_LOGFILE_PREFIX
MPE_RING_DIR=none; export MPE_RING_DIR
# Enough messages that both ranks spilled before the kill.
N=40000
rm -rf "$MPE_TMPDIR"/*
MPE_BUFFER_MB=1 run 2 $P kill $N
fails $?; ok $? "kill without ring files: the job fails"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o kill.clog > rec.txt 2>&1; ok $? "recover"
is "both ranks' gaps said" "$(grep -c 'in memory only .* LOSS record marks the gap' rec.txt)" 2
is "a LOSS record on each rank" "$(val kill.clog lossrecs)" 2
lost=$(val kill.clog lost)
[ "$lost" != none ] && [ "$lost" -ge 2 ]; ok $? "the log has lost events ($lost)"
$CLOGTOOL stats kill.clog > st.txt 2>&1
grep -q 'loss 2)' st.txt; ok $? "stats: 2 LOSS records"
$CLOGTOOL verify kill.clog > /dev/null 2>&1; ok $? "recovered log verifies"
# SIGTERM: rank 1's handler saved its memory; rank 0 was SIGKILLed.
rm -rf "$MPE_TMPDIR"/*
MPE_BUFFER_MB=1 run 2 $P term $N
fails $?; ok $? "SIGTERM without ring files: the job fails"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o term.clog > rec.txt 2>&1; ok $? "recover"
grep -q '^rank 1 .*LOSS' rec.txt; [ $? -ne 0 ]; ok $? "rank 1 saved its memory: no gap"
grep -q '^rank 0 .*LOSS record marks the gap' rec.txt; ok $? "rank 0 (SIGKILLed): its gap said"
unset MPE_RING_DIR
rm -rf "$MPE_TMPDIR"/*
MPE_BUFFER_MB=1 run 2 $P kill $N
fails $?; ok $? "kill with ring files: the job fails"
run0=$(ls "$MPE_TMPDIR" | sed -n 's/^mpe-\([0-9a-f]*\)-000000-.*/\1/p')
test -n "$run0" && rm -f /dev/shm/mpe-$run0-*.ring
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o gone.clog > rec.txt 2>&1; ok $? "recover without its ring files"
is "ring files gone: both ranks' gaps said" "$(grep -c 'in memory only (no ring file) .* LOSS record marks the gap' rec.txt)" 2
is "ring files gone: a LOSS record on each rank" "$(val gone.clog lossrecs)" 2
finish

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A rank killed by a signal leaves its spill file; clogtool recover builds
# a valid log from it with (at least 99% of) the events it logged.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
# With the background spill thread (a half may be in flight when the
# signal comes) and without it.
for th in yes no; do
rm -rf "$MPE_TMPDIR"/*
# Rank 1 dies 300 ms after rank 0 went on to MPE_Finish_log, where rank 0
# waits for it until the launcher kills it.
MPE_SPILL_THREAD=$th MPE_BUFFER_MB=1 run 2 $B/tests/mpe/logmany 150000 1 1 11 300
test $? -ne 0; ok $? "spill thread $th: job fails when rank 1 gets SIGSEGV"
ls "$MPE_TMPDIR"/mpe-*-000001-*.spill > /dev/null 2>&1; ok $? "rank 1 left a spill file"
$CLOGTOOL recover "$MPE_TMPDIR" -o rec.clog > rec.txt 2>&1; ok $? "clogtool recover"
grep -q '^rank 1 .*did not finish' rec.txt; ok $? "recover reports the crash"
n=$(val rec.clog count 1 0 600)
[ "$n" != none ] && [ "$n" -ge 148500 ]; ok $? "rank 1: >= 99% of begins ($n of 150000)"
is "rank 1: every begin recovered" "$n" 150000
# Rank 0 was alive, waiting in MPE_Finish_log, when the launcher killed it
# (SIGKILL): it saved its memory while waiting, so nothing of it is lost.
is "rank 0 (alive, then killed): every begin recovered" \
  "$(val rec.clog count 0 0 600)" 150000
$B/clogtool verify rec.clog > /dev/null 2>&1; ok $? "recovered file verifies"
done

rm -rf "$MPE_TMPDIR"/*
MPE_SPILL_THREAD=yes MPE_BUFFER_MB=1 run 1 $B/tests/mpe/logmany 100000 1 0 15
test $? -ne 0; ok $? "job fails on SIGTERM"
$CLOGTOOL recover "$MPE_TMPDIR" -o term.clog > rec.txt 2>&1; ok $? "recover after SIGTERM"
is "SIGTERM: every begin recovered" "$(val term.clog count 0 0 600)" 100000
is "SIGTERM: every end recovered" "$(val term.clog count 0 0 601)" 100000

$CLOGTOOL recover "$tap_tmp/nothing-here" -o x.clog > rec.txt 2>&1
test $? -ne 0 && grep -q 'nothing-here' rec.txt; ok $? "missing input: clear error"
finish

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Counter readings (MPE_COUNTERS) are kept in memory until the merge; the
# crash path writes them to the spill file with the rest of memory.  A
# finished run that keeps its local files: the log recover rebuilds has
# the finished log's counter values, metric by metric.  A rank stopped by
# SIGTERM: its recovered task-clock, read once more in the handler,
# holds the CPU time it spent (300 ms of busy looping), not 0.  A
# SIGKILLed rank keeps the readings the sampler wrote to the spill file
# as it went (every 100 ms): its task-clock is not 0 either.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
P=$B/tests/mpe/wrapcrash
MPE_LOGFILE_PREFIX=$tap_tmp/wrapcrash; export MPE_LOGFILE_PREFIX
MPE_COUNTERS=task-clock; MPE_SAMPLE_HZ=100; WRAPCRASH_SPIN_MS=300
export MPE_COUNTERS MPE_SAMPLE_HZ WRAPCRASH_SPIN_MS
rm -rf "$MPE_TMPDIR"/*
MPE_DELETE_LOCALFILE=no run 2 $P finish 100; ok $? "finished twin, local files kept"
$CLOGTOOL metrics --csv wrapcrash.clog > fin.csv 2>&1
grep -q '^"task-clock"' fin.csv || skip_all "no task-clock counter here (perf events)"
$CLOGTOOL recover "$MPE_TMPDIR" -o kept.clog > rec.txt 2>&1; ok $? "recover the kept files"
grep -q 'counter readings' rec.txt; ok $? "recover reports counter readings"
grep -q 'not recoverable' rec.txt; [ $? -ne 0 ]; ok $? "a finished run lost nothing"
$CLOGTOOL metrics --csv kept.clog > kept.csv 2>&1
cmp -s fin.csv kept.csv; r=$?
ok $r "recovered metrics (counters included) equal the finished log's"
[ $r -eq 0 ] || diff fin.csv kept.csv | head -10 | sed 's/^/#   /'
rm -rf "$MPE_TMPDIR"/*
run 2 $P term 100
fails $?; ok $? "rank 1 stopped by SIGTERM"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o term.clog > rec.txt 2>&1; ok $? "recover"
v=$($CLOGTOOL metrics --csv term.clog | awk -F, '$1 == "\"task-clock\"" && $4 == "\"rank 1\"" { print $5 }')
[ -n "$v" ] && [ "$v" -ge 300000000 ]; ok $? "rank 1's task-clock holds its busy loop, read at the signal ($v ns)"
$CLOGTOOL verify term.clog > /dev/null 2>&1; ok $? "recovered log verifies"
rm -rf "$MPE_TMPDIR"/*
run 2 $P kill 100
fails $?; ok $? "rank 1 SIGKILLed"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o kill.clog > rec.txt 2>&1; ok $? "recover"
grep -q '^not recoverable (kept in process memory .*): call-path samples and call sites (MPE_SAMPLE_HZ)$' rec.txt
ok $? "SIGKILL: recover says the call-path samples are not recoverable"
for r in 0 1; do
  v=$($CLOGTOOL metrics --csv kill.clog | awk -F, -v r="\"rank $r\"" '$1 == "\"task-clock\"" && $4 == r { print $5 }')
  [ -n "$v" ] && [ "$v" -gt 0 ]; ok $? "SIGKILL: rank $r's task-clock is not lost ($v ns)"
done
$CLOGTOOL verify kill.clog > /dev/null 2>&1; ok $? "recovered log verifies"
finish

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The local files a run leaves when its log is not written are never
# silent: a process stopped by SIGTERM or MPI_Abort says where they are
# and how big; the next job started in the same place says they are
# there; `clogtool recover --list` shows each run with its sizes; a run
# that finished but could not write its log is reported as such, not as
# crashed.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
P=$B/tests/mpe/wrapcrash
MPE_LOGFILE_PREFIX=$tap_tmp/wrapcrash; export MPE_LOGFILE_PREFIX
# gone: waits until the processes named by the spill files have ended
# (the launcher may return before the killed ones are reaped).
gone () {
  for pid in $(ls "$MPE_TMPDIR" | sed -n 's/^mpe-.*-\([0-9]*\)\.spill$/\1/p'); do
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 600 ]; do
      sleep 0.1; i=$((i + 1))
    done
  done
}
for mode in term abort; do
  rm -rf "$MPE_TMPDIR"/*
  run 2 $P $mode 100
  fails $?; ok $? "$mode: the job fails"
  grep -q "^mpe: rank 1: the log was not written; what this process recorded is kept in $MPE_TMPDIR/mpe-.*\.spill (.* MB) and 1 ring file(s) .* MB of memory): \`clogtool recover $MPE_TMPDIR\` rebuilds the log" err.txt
  ok $? "$mode: rank 1 says where its files are, their size and how to rebuild"
  [ $? -eq 0 ] || sed 's/^/#   /' err.txt | head -5
done
# The abort run's files are still there (rank 0 was killed without a word).
gone
$CLOGTOOL recover --list "$MPE_TMPDIR" > list.txt 2>&1; ok $? "recover --list"
grep -q '^[0-9a-f]\{16\}  2/2 .*did not finish .* MB  2, [0-9.]* MB' list.txt
ok $? "--list: the run, 2 of 2 ranks, not finished, 2 ring files and sizes"
[ $? -eq 0 ] || sed 's/^/#   /' list.txt
MPE_TMPDIR=$MPE_TMPDIR $CLOGTOOL recover --list > list2.txt 2>&1
cmp -s list.txt list2.txt; ok $? "--list: MPE_TMPDIR is the default directory"
# The next job in the same place says so.
run 2 $P finish 10; ok $? "a finished run in the same place"
grep -q "^mpe: $MPE_TMPDIR holds the local files of 2 process(es) of earlier runs that did not finish their log (.* MB) and 2 ring file(s) in .* MB of memory): \`clogtool recover --list $MPE_TMPDIR\`" err.txt
ok $? "the next job says what earlier runs left"
[ $? -eq 0 ] || sed 's/^/#   /' err.txt | head -5
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o rec.clog > rec.txt 2>&1; ok $? "recover --clean"
run 2 $P finish 10; ok $? "again, once they are removed"
grep -q 'earlier runs' err.txt; [ $? -ne 0 ]; ok $? "nothing to say then"
# A finish that fails: the run is not reported as crashed.
rm -rf "$MPE_TMPDIR"/*
MPE_TEST_MERGE_FAIL=1:encode run 2 $P finish 10
ok $? "a run whose log could not be written"
$CLOGTOOL recover --list "$MPE_TMPDIR" > list.txt 2>&1
grep -q 'finished, log not written' list.txt; ok $? "--list: finished, log not written"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o rec.clog > rec.txt 2>&1; ok $? "recover it"
is "recover: both ranks finished, log not written" \
  "$(grep -c 'finished but its log could not be written' rec.txt)" 2
grep -q 'crashed or killed' rec.txt; [ $? -ne 0 ]; ok $? "recover: not 'crashed or killed'"
finish

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A rank killed by a signal leaves its spill file; clogtool recover builds
# a valid log from it with (at least 99% of) the events it logged.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
# With the background spill thread (a half may be in flight when the
# signal comes), with it writing what the logger packed (write-behind),
# and without it.
for th in yes write no; do
rm -rf "$MPE_TMPDIR"/*
# Rank 1 dies 300 ms after rank 0 went on to MPE_Finish_log, where rank 0
# waits for it until the launcher kills it.
MPE_SPILL_THREAD=$th MPE_BUFFER_MB=1 run 2 $B/tests/mpe/logmany 150000 1 1 11 300
fails $?; ok $? "spill thread $th: job fails when rank 1 gets SIGSEGV"
ls "$MPE_TMPDIR"/mpe-*-000001-*.spill > /dev/null 2>&1; ok $? "rank 1 left a spill file"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o rec.clog > rec.txt 2>&1; ok $? "clogtool recover"
grep -q '^rank 1 .*did not finish' rec.txt; ok $? "recover reports the crash"
n=$(val rec.clog count 1 0 600)
[ "$n" != none ] && [ "$n" -ge 148500 ]; ok $? "rank 1: >= 99% of begins ($n of 150000)"
is "rank 1: every begin recovered" "$n" 150000
# Rank 0 was alive, waiting in MPE_Finish_log, when the launcher killed it
# (SIGKILL): its ring file kept what it had not spilled.
is "rank 0 (alive, then killed): every begin recovered" \
  "$(val rec.clog count 0 0 600)" 150000
$B/clogtool verify rec.clog > /dev/null 2>&1; ok $? "recovered file verifies"
done

# A rank that is alive but blocked in MPI_Recv from the rank that dies is
# SIGKILLed by the launcher: no handler runs.  Its buffers are ring files
# in /dev/shm, so what it had not spilled is still there.
for th in yes write no; do
rm -rf "$MPE_TMPDIR"/*
MPE_SPILL_THREAD=$th MPE_BUFFER_MB=1 run 2 $B/tests/mpe/logmany 150000 3 1 11 300 1
fails $?; ok $? "spill thread $th: rank 0 blocked in MPI_Recv, rank 1 dies"
run0=$(ls "$MPE_TMPDIR" | sed -n 's/^mpe-\([0-9a-f]*\)-000000-.*/\1/p')
ls /dev/shm/mpe-$run0-000000-*.t0.ring > /dev/null 2>&1
ok $? "rank 0's ring file is in /dev/shm"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o blk.clog > rec.txt 2>&1; ok $? "recover"
grep -q '^rank 0 .*taken from its ring file' rec.txt; ok $? "recover reports ring events"
for t in 1 2 3; do
  is "spill thread $th: blocked rank 0 thread $t: every begin" \
    "$(val blk.clog count 0 $t 600)" 150000
  is "spill thread $th: blocked rank 0 thread $t: every end" \
    "$(val blk.clog count 0 $t 601)" 150000
done
is "spill thread $th: no begin recovered twice (nesting)" "$(val blk.clog badnest)" 0
test -z "$(ls "$MPE_TMPDIR")" && ! ls /dev/shm/mpe-$run0-* > /dev/null 2>&1
ok $? "recover --clean removed the spill and ring files"
done
# A second log in the same processes (MPE_Finish_log, then MPE_Init_log):
# the buffers kept from the first get new ring files (write-behind's with
# their frame areas).
for th in no write; do
rm -rf "$MPE_TMPDIR"/*
MPE_SPILL_THREAD=$th MPE_BUFFER_MB=1 run 2 $B/tests/mpe/logmany 150000 1 1 11 300 1 1
is "relog $th: first log complete" "$(val logmany-first.clog count 0 0 600)" 150000
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o relog.clog > rec.txt 2>&1; ok $? "relog $th: recover"
is "relog $th: blocked rank 0, second log: every begin" "$(val relog.clog count 0 0 600)" 150000
is "relog $th: nesting" "$(val relog.clog badnest)" 0
done

# Damaged ring files: garbage in the records, then a truncated file and a
# garbage header.  Recover keeps going and says so; it never crashes.
rm -rf "$MPE_TMPDIR"/*
MPE_SPILL_THREAD=no MPE_BUFFER_MB=1 run 2 $B/tests/mpe/logmany 150000 1 1 11 300 1
run0=$(ls "$MPE_TMPDIR" | sed -n 's/^mpe-\([0-9a-f]*\)-000000-.*/\1/p')
r0=$(ls /dev/shm/mpe-$run0-000000-*.t0.ring 2>/dev/null | head -1)
test -n "$r0"; ok $? "damaged ring: ring file there"
head -c 40000 /dev/urandom | dd of="$r0" bs=1 seek=20000 conv=notrunc 2>/dev/null
$CLOGTOOL recover "$MPE_TMPDIR" -o dmg.clog > rec.txt 2>&1; ok $? "garbage records: recover succeeds"
n=$(val dmg.clog count 0 0 600)
[ "$n" != none ] && [ "$n" -ge 147412 ] && [ "$n" -le 150000 ]; ok $? "garbage records: what could be read ($n)"
truncate -s 10000 "$r0"
$CLOGTOOL recover "$MPE_TMPDIR" -o dmg.clog > rec.txt 2>&1; ok $? "truncated ring: recover succeeds"
grep -q 'not a usable ring file' rec.txt; ok $? "truncated ring: reported"
head -c 4096 /dev/urandom > "$r0"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o dmg.clog > rec.txt 2>&1; ok $? "garbage header: recover succeeds"
$B/clogtool verify dmg.clog > /dev/null 2>&1; ok $? "garbage header: output verifies"

# The same without ring files: the blocked rank loses what it had not
# spilled (the case above is not saved by anything else).
rm -rf "$MPE_TMPDIR"/*
MPE_RING_DIR=none MPE_SPILL_THREAD=no MPE_BUFFER_MB=1 run 2 $B/tests/mpe/logmany 150000 1 1 11 300 1
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o none.clog > rec.txt 2>&1; ok $? "recover (no ring)"
n=$(val none.clog count 0 0 600)
[ "$n" != none ] && [ "$n" -lt 150000 ]; ok $? "MPE_RING_DIR=none: blocked rank 0 keeps only its spills ($n)"

# Killed in the middle of a spill (a test hook sends SIGKILL after the
# second frame reached the file): the records are both in the spill file
# and in the ring; each must be taken once.  The spill thread writes a
# half's frames at once while the logger goes on in the other half (in
# the ring only); without it the logger packs its round window by window
# and writes all its frames at once, so at the kill every record of the
# round is in the file and its copy in the ring must be dropped.  A
# frame holds at most 256 KB: the buffer (half of MPE_BUFFER_MB) holds
# more than two frames' worth.  Write-behind packs into two frame areas
# of the ring file and the spill thread writes a full one at once: with
# 4 MB, areas of 896 KB, the kill comes after the first area's write,
# its frames both in the file and in the ring.
for th in no yes write; do
rm -rf "$MPE_TMPDIR"/*
mb=32
[ $th = write ] && mb=4
MPE_TEST_KILL_IN_SPILL=2 MPE_SPILL_THREAD=$th MPE_BUFFER_MB=$mb run 1 $B/tests/mpe/logmany 600000
fails $?; ok $? "spill thread $th: killed in a spill"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o mid.clog > rec.txt 2>&1; ok $? "recover"
if [ $th != no ]; then
  grep -q 'taken from its ring file' rec.txt; ok $? "spill thread $th: ring used"
else
  is "spill thread $th: the ring's copies dropped" "$(val mid.clog count 0 0 600)" 524284
fi
b=$(val mid.clog count 0 0 600); e=$(val mid.clog count 0 0 601)
# The thread's buffer holds 524,288 states (1M records).  Without the
# spill thread the logger itself dies in its first spill, the buffer
# full.  With it, the buffer is two halves and the logger was somewhere
# in the second when the write of the first ended (all of it on an idle
# machine, half of it under load): only the first half is certain.
# Write-behind: the first area's frames (about 185,000 states).
case $th in no) min=524000 ;; yes) min=262000 ;; *) min=150000 ;; esac
[ "$b" != none ] && [ "$b" -ge $min ]; ok $? "spill thread $th: begins from blocks and ring ($b >= $min)"
# ... and may have logged a begin without its end.
[ "$e" = "$b" ] || { [ $th != no ] && [ "$e" = $((b - 1)) ]; }
ok $? "spill thread $th: as many ends as begins ($e, $b)"
is "spill thread $th: nothing twice (nesting)" "$(val mid.clog badnest)" 0
done

# Ring files of dead processes are swept at init when the spill file their
# header names is gone (nothing could recover them), kept while it is there.
rm -rf "$MPE_TMPDIR"/*
MPE_BUFFER_MB=1 run 2 $B/tests/mpe/logmany 1000 1 1 9 100 1
run0=$(ls "$MPE_TMPDIR" | sed -n 's/^mpe-\([0-9a-f]*\)-000000-.*/\1/p')
ls /dev/shm/mpe-$run0-00000[01]-*.t0.ring > sweep-before.txt 2>/dev/null
is "sweep: two ring files left by the killed job" "$(wc -l < sweep-before.txt)" 2
rm -f "$MPE_TMPDIR"/mpe-$run0-000000-*.spill
mkdir -p "$tap_tmp/other"
MPE_TMPDIR="$tap_tmp/other" run 1 $B/tests/mpe/logmany 10; ok $? "sweep: a later job"
! ls /dev/shm/mpe-$run0-000000-*.ring > /dev/null 2>&1; ok $? "sweep: orphaned ring file removed"
ls /dev/shm/mpe-$run0-000001-*.ring > /dev/null 2>&1; ok $? "sweep: ring file with its spill file kept"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o sweep.clog > rec.txt 2>&1
! ls /dev/shm/mpe-$run0-* > /dev/null 2>&1; ok $? "sweep: recover --clean removed the rest"

# No place for ring files: one warning, the buffers are plain memory and
# the log is complete.
MPE_RING_DIR="$tap_tmp/no/such/dir" run 2 $B/tests/mpe/logmany 1000
ok $? "ring directory missing: the job still runs"
grep -q 'cannot create the ring file' err.txt; ok $? "ring directory missing: warned"
is "ring directory missing: log complete" "$(val logmany.clog count 1 0 600)" 1000

# A run that finishes leaves no ring file.
rm -rf "$MPE_TMPDIR"/*
MPE_DELETE_LOCALFILE=no run 2 $B/tests/mpe/logmany 1000; ok $? "normal run"
run0=$(ls "$MPE_TMPDIR" | sed -n 's/^mpe-\([0-9a-f]*\)-000000-.*/\1/p')
test -n "$run0" && ! ls /dev/shm/mpe-$run0-* > /dev/null 2>&1
ok $? "no ring file left after MPE_Finish_log"

rm -rf "$MPE_TMPDIR"/*
MPE_SPILL_THREAD=yes MPE_BUFFER_MB=1 run 1 $B/tests/mpe/logmany 100000 1 0 15
fails $?; ok $? "job fails on SIGTERM"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o term.clog > rec.txt 2>&1; ok $? "recover after SIGTERM"
is "SIGTERM: every begin recovered" "$(val term.clog count 0 0 600)" 100000
is "SIGTERM: every end recovered" "$(val term.clog count 0 0 601)" 100000

$CLOGTOOL recover "$tap_tmp/nothing-here" -o x.clog > rec.txt 2>&1
test $? -ne 0 && grep -q 'nothing-here' rec.txt; ok $? "missing input: clear error"
finish

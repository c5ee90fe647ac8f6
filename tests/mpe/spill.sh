#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A 1 MiB buffer forces many spills; every event must survive.  With the
# spill write failing (test hook), the loss is counted and marked.  Both
# with the background spill thread (default) and without it.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
for MPE_SPILL_THREAD in yes write no; do
export MPE_SPILL_THREAD
diag "MPE_SPILL_THREAD=$MPE_SPILL_THREAD"
MPE_BUFFER_MB=1 run 2 $B/tests/mpe/logmany 150000 2; ok $? "logmany spilling"
for r in 0 1; do
  for t in 1 2; do
    is "rank $r thread $t: all begins" "$(val logmany.clog count $r $t 600)" 150000
    is "rank $r thread $t: all ends" "$(val logmany.clog count $r $t 601)" 150000
  done
done
is "nothing lost" "$(val logmany.clog lost)" 0
$LOGCHECK logmany.clog | grep -q '^state CLOG_Buffer_write2disk maroon$'
ok $? "flush state 280 defined"
f=$(val logmany.clog count 0 1 560)
[ "$f" != none ] && [ "$f" -ge 3 ]; ok $? "flushes logged as states ($f)"
is "flush states closed" "$(val logmany.clog count 0 1 561)" "$f"
is "nesting with flushes" "$(val logmany.clog badnest)" 0
is "spill files removed" "$(ls "$MPE_TMPDIR" | wc -l)" 0

MPE_BUFFER_MB=1 run 1 $B/tests/mpe/logmany 150000
total=$(val logmany.clog events)
MPE_TEST_SPILL_FAIL=1 MPE_BUFFER_MB=1 run 1 $B/tests/mpe/logmany 150000
ok $? "logmany with failing spill writes"
lost=$(sed -n 's/^mpe: rank 0 lost \([0-9]*\) events.*/\1/p' err.txt)
[ -n "$lost" ] && [ "$lost" -gt 0 ]; ok $? "loss reported at finalize ($lost)"
is "LOSS records add up to the reported loss" "$(val logmany.clog lost)" "$lost"
kept=$(val logmany.clog count 0 0 600)
[ "$kept" -lt 150000 ] && [ "$kept" -gt 0 ]; ok $? "events after the loss kept ($kept)"
# Every event is kept or counted lost (a LOSS record that was itself lost
# is counted by what it reported, not as one event).
is "failing writes: kept + lost = logged" \
  "$(( $(val logmany.clog events) + lost - $(val logmany.clog lossrecs) ))" "$total"
done

# Write-behind through the page cache (MPE_SPILL_DIRECT=no, as where the
# file system refuses direct I/O).
MPE_SPILL_THREAD=write MPE_SPILL_DIRECT=no MPE_BUFFER_MB=1 \
  run 2 $B/tests/mpe/logmany 150000 2
ok $? "write-behind, no direct I/O: logmany spilling"
is "write-behind, no direct I/O: all begins" \
  "$(val logmany.clog count 1 2 600)" 150000
is "write-behind, no direct I/O: nothing lost" "$(val logmany.clog lost)" 0
is "write-behind, no direct I/O: nesting" "$(val logmany.clog badnest)" 0

# The spill thread out of memory after gathering 2 frames of a half (a
# test hook): those go to the file first, then the rest one by one, so
# the thread's events stay in time order and every one survives.
MPE_TEST_GATHER_FRAMES=2 MPE_SPILL_THREAD=yes MPE_BUFFER_MB=32 \
  run 1 $B/tests/mpe/logmany 3000000
ok $? "gathering cut short: logmany spilling"
is "gathering cut short: all begins" "$(val logmany.clog count 0 0 600)" 3000000
is "gathering cut short: nothing lost" "$(val logmany.clog lost)" 0
is "gathering cut short: in time order" "$(val logmany.clog nonmonotonic)" 0
is "gathering cut short: nesting" "$(val logmany.clog badnest)" 0

# SPILL_TEST_SHRINK=K (1, 2 or 4; the sanitizer lanes set 4): the runs
# below with a buffer and a log K times smaller, the same rounds and
# spills (a logmany of 3M records took 3.8 s under ThreadSanitizer).
k=${SPILL_TEST_SHRINK:-1}
mb=$((8 / k))
big=$((1500000 / k))
part=$((100000 / k))

# Without the spill thread, a buffer of many windows: the logging thread
# packs each window of the round while it is in the cache and writes the
# round's frames at once.  Every event survives; with the spill directory
# a small tmpfs, a write is torn: the frames before the tear are kept,
# and every event is either in the log or counted lost.
export MPE_SPILL_THREAD=no
MPE_BUFFER_MB=$mb run 1 $B/tests/mpe/logmany $big
ok $? "windows: logmany spilling"
is "windows: all begins" "$(val logmany.clog count 0 0 600)" $big
is "windows: all ends" "$(val logmany.clog count 0 0 601)" $big
is "windows: nothing lost" "$(val logmany.clog lost)" 0
is "windows: nesting" "$(val logmany.clog badnest)" 0
# The first round's first half (packed at the round's end) is in the
# file before its windows (packed as they filled).
is "windows: in time order" "$(val logmany.clog nonmonotonic)" 0
f=$(val logmany.clog count 0 0 560)
[ "$f" != none ] && [ "$f" -ge 5 ]; ok $? "windows: rounds spilled ($f)"
total=$(val logmany.clog events)
# Past half of the first round (4 MiB, 262144 slots, for 200,000
# records; each a K-th with SPILL_TEST_SHRINK) but not to its end: the
# windows packed from halfway are never written; nothing is spilled and
# every event is in the log.
MPE_BUFFER_MB=$mb run 1 $B/tests/mpe/logmany $part
ok $? "three quarters of a round: logmany"
is "three quarters of a round: all begins" "$(val logmany.clog count 0 0 600)" $part
is "three quarters of a round: all ends" "$(val logmany.clog count 0 0 601)" $part
is "three quarters of a round: no flush" "$(val logmany.clog count 0 0 560)" none
# A small tmpfs as the spill directory: a write is torn, the frames
# before the tear are kept, and every event is either in the log or
# counted lost; the logger spilling itself, and write-behind (the spill
# thread writes what the logger packed, with direct I/O where tmpfs
# takes it, else through the page cache).
# Without the logger's own flush records: how many flushes a run makes
# depends on its timing (a full disk changes it), the program's events
# do not.
export MPE_LOG_OVERHEAD=no
for th in no write; do
MPE_SPILL_THREAD=$th MPE_BUFFER_MB=$mb run 1 $B/tests/mpe/logmany $big
total=$(val logmany.clog events)
for sz in $((300 / k))k $((1100 / k))k; do
  mkdir -p small
  in_mount_ns sh -c "mount -t tmpfs -o size=$sz tmpfs small &&
    MPE_SPILL_THREAD=$th MPE_TMPDIR=$tap_tmp/small MPE_BUFFER_MB=$mb \
    timeout 120 $MPIEXEC -n 1 $B/tests/mpe/logmany $big > out.txt 2> err.txt"
  ok $? "$th: spill directory of $sz: the job succeeds"
  kept=$(val logmany.clog events) lost=$(val logmany.clog lost)
  [ "$lost" != none ] && [ "$lost" -gt 0 ] && [ "$kept" -gt 0 ]
  ok $? "$th: spill directory of $sz: some kept ($kept), some lost ($lost)"
  # The LOSS records that mark the loss are records of their own.
  is "$th: spill directory of $sz: kept + lost = logged" \
    "$(( kept + lost - $(val logmany.clog lossrecs) ))" "$total"
  is "$th: spill directory of $sz: nesting" "$(val logmany.clog badnest)" 0
done
done
unset MPE_LOG_OVERHEAD

# A rank that waits at the finish for a late one saves memory to its
# spill file first (MPE_SAVE_ON_WAIT); the merge then reads memory, not
# that copy: write-behind's copy is PACKED frames, as its spills are.
# The kept files (MPE_DELETE_LOCALFILE=no) rebuild the same log.
for th in no write; do
rm -rf "$MPE_TMPDIR"/*
LOGMANY_LATE_MS=400 MPE_SAVE_ON_WAIT=yes MPE_DELETE_LOCALFILE=no \
  MPE_SPILL_THREAD=$th MPE_BUFFER_MB=8 run 2 $B/tests/mpe/logmany 100000 2
ok $? "save on wait, $th: the job succeeds"
for t in 1 2; do
  is "save on wait, $th: rank 0 thread $t: every begin once" \
    "$(val logmany.clog count 0 $t 600)" 100000
done
is "save on wait, $th: nesting" "$(val logmany.clog badnest)" 0
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o saved.clog > rec.txt 2>&1
ok $? "save on wait, $th: recover the kept files"
is "save on wait, $th: recovered: every begin once" \
  "$(val saved.clog count 0 1 600)" 100000
done
finish

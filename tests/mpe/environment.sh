#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The environment of a run: the log's default name and place, a previous
# log of that name, two jobs writing one name at once, a spill directory
# that is missing, read-only or fills up, and environment variables out
# of range (docs/FAULTS.md).
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
L=$B/tests/mpe/logmany
N=20000
finish_rc () { sed -n "s/^rank $1: MPE_Finish_log //p" out.txt; }

# The default name: the program's base name, in the current directory,
# however the program was started (not ../bin/monitor-prog.clog).
mkdir -p bin sub
cp "$B/tests/mpe/monitor-prog" bin/
(cd sub && timeout 120 $MPIEXEC -n 2 ../bin/monitor-prog steady 2 \
   > ../out.txt 2> ../err.txt)
ok $? "started as ../bin/monitor-prog: the job runs"
test -s sub/monitor-prog.clog && test ! -e bin/monitor-prog.clog
ok $? "its log is ./monitor-prog.clog, not next to the program"
# No argv (as Fortran's MPI_Init): the executable's name, not Unknown.
(cd sub && timeout 120 $MPIEXEC -n 2 "$B/tests/mpe/noargv" > ../out.txt \
   2> ../err.txt)
ok $? "MPI_Init (NULL, NULL): the job runs"
test -s sub/noargv.clog && test ! -e sub/Unknown.clog
ok $? "MPI_Init (NULL, NULL): the log is named after the executable"

# A previous log of the name is never replaced silently: it moves to
# NAME.1.clog, the next one to NAME.2.clog; MPE_LOG_REPLACE=yes replaces.
export MPE_LOG_OVERHEAD=no
run 2 $L 100; ok $? "first run"
first=$(val logmany.clog count 0 0 600)
run 2 $L 200; ok $? "second run"
is "the new log takes the name" "$(val logmany.clog count 0 0 600)" 200
is "the previous one is logmany.1.clog" "$(val logmany.1.clog count 0 0 600)" "$first"
grep -qxF "mpe: the previous logmany.clog is now logmany.1.clog" err.txt
ok $? "and rank 0 says so"
run 2 $L 300
is "a third run: the second log is logmany.2.clog" \
  "$(val logmany.2.clog count 0 0 600)" 200
MPE_LOG_REPLACE=yes run 2 $L 400
is "MPE_LOG_REPLACE=yes: replaced" "$(val logmany.clog count 0 0 600)" 400
test ! -e logmany.3.clog; ok $? "MPE_LOG_REPLACE=yes: nothing moved"
rm -f logmany*.clog

# Two jobs write one name at once: job A stops in its merge with its
# output half written (test hook) while job B writes the whole log under
# that name; then A finishes.  Each job's unfinished file is its own, so
# both logs are whole: B's moved aside, A's under the name.
MPE_TEST_MERGE_WAIT=0:assemble:$tap_tmp/go timeout 120 $MPIEXEC -n 2 \
  $L $N > outA.txt 2> errA.txt &
pid=$!
i=0
until grep -q "waiting for" errA.txt 2> /dev/null || [ $i -ge 1200 ]; do
  sleep 0.1; i=$((i + 1))
done
grep -q "waiting for" errA.txt; ok $? "same name: job A waits in its merge"
run 2 $L $((2 * N)); ok $? "same name: job B runs meanwhile"
is "same name: job B's MPE_Finish_log" "$(finish_rc 0)$(finish_rc 1)" 00
touch go; wait $pid; ok $? "same name: job A finishes"
is "same name: job A's MPE_Finish_log" \
  "$(sed -n 's/^rank [01]: MPE_Finish_log //p' outA.txt | tr -d '\n')" 00
$CLOGTOOL verify logmany.clog > /dev/null && $CLOGTOOL verify logmany.1.clog > /dev/null
ok $? "same name: both logs verify"
is "same name: job A's log is whole" "$(val logmany.clog count 1 0 601)" $N
is "same name: job B's log is whole" "$(val logmany.1.clog count 1 0 601)" $((2 * N))
rm -f logmany*.clog go

# A job whose finished output is replaced before it takes its name (by
# another process) reports a failure, never success for that file.
rm -f go
MPE_TEST_MERGE_WAIT=0:publish:$tap_tmp/go timeout 120 $MPIEXEC -n 2 \
  $L $N > out.txt 2> err.txt &
pid=$!
i=0
until grep -q "waiting for" err.txt 2> /dev/null || [ $i -ge 1200 ]; do
  sleep 0.1; i=$((i + 1))
done
part=$(ls logmany.clog.*.part 2> /dev/null)
test -n "$part" && cp "$part" other && mv other "$part"
ok $? "replaced output: another process replaced $part"
touch go; wait $pid
is "replaced output: MPE_Finish_log fails" "$(finish_rc 0)$(finish_rc 1)" 33
grep -q "is no longer the file this job wrote" err.txt
ok $? "replaced output: rank 0 says why"
test ! -e logmany.clog; ok $? "replaced output: not published"
$CLOGTOOL recover --clean -o rec.clog "$MPE_TMPDIR" > rec.txt 2>&1
is "replaced output: the printed command rebuilds it" "$(val rec.clog count 1 0 601)" $N
rm -f rec.clog logmany.clog.*.part go

# MPE_TMPDIR missing or read-only: said at the start, the spill files go
# to TMPDIR, and a job of 2 ranks that spills keeps every event.
mkdir -p fallback ro
export MPE_BUFFER_MB=1
MPE_TMPDIR=$tap_tmp/missing TMPDIR=$tap_tmp/fallback MPE_DELETE_LOCALFILE=no \
  run 2 $L 100000
ok $? "MPE_TMPDIR missing: the job runs"
grep -q "^mpe: rank 0: MPE_TMPDIR $tap_tmp/missing refused: No such file or directory .*; using $tap_tmp/fallback$" err.txt
ok $? "MPE_TMPDIR missing: said at the start, with the directory used"
is "MPE_TMPDIR missing: the spill files are in TMPDIR" \
  "$(ls fallback | grep -c '\.spill$')" 2
grep -q "^mpe: MPE_DELETE_LOCALFILE=no: kept [0-9.]* MiB of spill files (run [0-9a-f]*) in $tap_tmp/fallback$" err.txt
ok $? "MPE_DELETE_LOCALFILE=no: rank 0 says what is kept, how big and where"
is "MPE_TMPDIR missing: every event" "$(val logmany.clog count 1 0 601)" 100000
is "MPE_TMPDIR missing: nothing lost" "$(val logmany.clog lost)" 0
rm -f fallback/* logmany.clog
MPE_TMPDIR=$tap_tmp/ro TMPDIR=$tap_tmp/fallback in_mount_ns sh -c \
  "mount -t tmpfs -o ro,size=64k tmpfs ro && timeout 120 $MPIEXEC -n 2 \
   $L 100000 > out.txt 2> err.txt"
ok $? "MPE_TMPDIR read-only: the job runs"
grep -q "MPE_TMPDIR $tap_tmp/ro refused: Read-only file system" err.txt
ok $? "MPE_TMPDIR read-only: said at the start"
is "MPE_TMPDIR read-only: every event" "$(val logmany.clog count 1 0 601)" 100000
rm -f logmany.clog

# No directory takes files (MPE_TMPDIR, TMPDIR, /tmp, /var/tmp and the
# current directory all read-only): said at the start; the ranks log
# without a spill file, and LOSS records count every event past the
# buffers, exactly.
mkdir -p out
in_mount_ns sh -c "mount -t tmpfs -o ro tmpfs ro && cd ro && \
  MPE_TMPDIR=/tmp/nope TMPDIR=/tmp/nope MPE_LOGFILE_PREFIX=../out/x \
  timeout 120 $MPIEXEC -n 2 $MOUNT_NS sh -c 'mount -t tmpfs -o ro tmpfs /tmp \
  && mount -t tmpfs -o ro tmpfs /var/tmp && exec $L 100000' \
  > ../out.txt 2> ../err.txt"
ok $? "no spill directory: the job runs"
is "no spill directory: each rank says so at the start" \
  "$(grep -c '^mpe: rank [01]: MPE_TMPDIR /tmp/nope refused: No such file or directory, and no other temporary directory takes files: no spill file; events past the buffer will be lost, and a crash loses the log$' err.txt)" 2
kept=0
for r in 0 1; do
  kept=$((kept + $(val out/x.clog count $r 0 600) + $(val out/x.clog count $r 0 601)))
done
lost=$(val out/x.clog lost)
test "$lost" -gt 0; ok $? "no spill directory: events past the buffers lost ($lost)"
is "no spill directory: kept + lost = logged" $((kept + lost)) 400000
rm -rf out
# The same, and the log's directory read-only too: the finish fails, and
# nothing is promised that no file could rebuild.
in_mount_ns sh -c "mount -t tmpfs -o ro tmpfs ro && cd ro && \
  MPE_TMPDIR=/tmp/nope TMPDIR=/tmp/nope HOME=/tmp/nope MPE_LOGFILE_PREFIX=x \
  timeout 120 $MPIEXEC -n 2 $MOUNT_NS sh -c 'mount -t tmpfs -o ro tmpfs /tmp \
  && mount -t tmpfs -o ro tmpfs /var/tmp && exec $L 1000' \
  > ../out.txt 2> ../err.txt"
is "no spill directory, no log: MPE_Finish_log fails" "$(finish_rc 0)$(finish_rc 1)" 33
grep -qxF "mpe: x.clog was not written (file problem, in the merge's open phase), and no rank could keep a local file (no spill directory took one): the log cannot be rebuilt" err.txt &&
  ! grep -q "clogtool recover" err.txt
ok $? "no spill directory, no log: no rebuild promised"

# MPE_TMPDIR fills up during the run: the events that did not fit are
# lost, and LOSS records say how many, where it happened; the merge does
# not stage its work there, so the log is written, its times right.
n=2000000
mkdir -p small
MPE_TMPDIR=$tap_tmp/small in_mount_ns sh -c \
  "mount -t tmpfs -o size=512k tmpfs small && timeout 120 $MPIEXEC -n 2 \
   $L $n > out.txt 2> err.txt"
ok $? "MPE_TMPDIR full: the job runs"
is "MPE_TMPDIR full: MPE_Finish_log succeeds" "$(finish_rc 0)$(finish_rc 1)" 00
$CLOGTOOL verify logmany.clog > /dev/null; ok $? "MPE_TMPDIR full: the log verifies"
kept=0
for r in 0 1; do
  kept=$((kept + $(val logmany.clog count $r 0 600) + $(val logmany.clog count $r 0 601)))
done
lost=$(val logmany.clog lost)
test "$lost" -gt 0; ok $? "MPE_TMPDIR full: events were lost ($lost)"
is "MPE_TMPDIR full: kept + lost = logged" $((kept + lost)) $((4 * n))
test "$(val logmany.clog lossrecs)" -gt 0; ok $? "MPE_TMPDIR full: LOSS records mark where"
is "MPE_TMPDIR full: messages matched, in order" \
  "$(val logmany.clog matched) $(val logmany.clog violations)" "2 0"
rm -f logmany.clog
# The same, rank 1 killed after the disk filled: what the ring files hold
# comes back, and the LOSS records count exactly the rest (an area of
# frames that could not be written stays in the ring file until its loss
# is recorded).  (The ring files go to a /dev/shm of the test's own:
# another job's start would see the killed ranks' ring files there, and
# not their spill files, which are in this namespace's tmpfs, and remove
# them.)
MPE_TMPDIR=$tap_tmp/small in_mount_ns sh -c \
  "mount -t tmpfs -o size=512k tmpfs small && mount -t tmpfs tmpfs /dev/shm \
   && timeout 120 $MPIEXEC -n 2 \
   $L $n 1 1 9 200 > out.txt 2> err.txt; \
   $CLOGTOOL recover --clean -o rec.clog small > rec.txt 2>&1"
ok $? "MPE_TMPDIR full, then a kill: clogtool recover"
kept=0
for r in 0 1; do
  kept=$((kept + $(val rec.clog count $r 0 600) + $(val rec.clog count $r 0 601)))
done
lost=$(val rec.clog lost)
is "MPE_TMPDIR full, then a kill: kept + lost = logged" $((kept + lost)) $((4 * n))
[ $is_rc -eq 0 ] || sed 's/^/# /' rec.txt err.txt
is "MPE_TMPDIR full, then a kill: both messages, matched" \
  "$(val rec.clog matched)" 2
rm -f rec.clog
unset MPE_BUFFER_MB

# Environment variables: one parser, one form of message.
for v in abc -1 0; do
  MPE_BUFFER_MB=$v run 1 $L 100
  grep -qxF "mpe: MPE_BUFFER_MB=$v refused: $( [ $v = abc ] && echo 'not a number' || echo 'out of range') (accepted: a number from 1 MiB to 1048576 MiB); using 64 MiB" err.txt
  ok $? "MPE_BUFFER_MB=$v: refused, saying what is accepted"
done
MPE_SAMPLE_HZ=1e9 run 1 $L 100
grep -qxF "mpe: MPE_SAMPLE_HZ=1e9 adjusted: above the largest accepted, 100000 Hz; using 100000 Hz" err.txt
ok $? "MPE_SAMPLE_HZ=1e9: a number, above the largest accepted"
MPE_METRIC_PERIOD=5parsecs run 1 $L 100
grep -q "^mpe: MPE_METRIC_PERIOD=5parsecs refused: not a duration (accepted: a duration from 0 ns to 3600 s, in s, ms, us or ns (no unit: ns)); using 10 ms$" err.txt
ok $? "MPE_METRIC_PERIOD=5parsecs: not a duration"
MPE_MONITOR_SHAPE=star run 1 $L 100
grep -qxF "mpe: MPE_MONITOR_SHAPE=star refused: not a known choice (accepted: auto, ring, tree); using auto" err.txt
ok $? "MPE_MONITOR_SHAPE=star: not a known choice"
MPE_DELETE_LOCALFILE=maybe run 1 $L 100
grep -qxF "mpe: MPE_DELETE_LOCALFILE=maybe refused: not a boolean (accepted: yes/no, true/false, 1/0, on/off); using yes" err.txt
ok $? "MPE_DELETE_LOCALFILE=maybe: not a boolean"
# Larger than the machine: a 64 MiB /dev/shm holds the buffers' files;
# 100000 MiB is cut to half of it, said once, and the log is whole.
in_mount_ns sh -c "mount -t tmpfs -o size=64m tmpfs /dev/shm && \
  MPE_BUFFER_MB=100000 timeout 120 $MPIEXEC -n 2 $L $N > out.txt 2> err.txt"
ok $? "MPE_BUFFER_MB=100000: the job runs"
is "MPE_BUFFER_MB=100000: cut, said once" \
  "$(grep -c "^mpe: MPE_BUFFER_MB (100000 MiB a process) adjusted: 2 process(es) on this node would hold 200000 MiB, above half of [0-9]* MiB, /dev/shm's free space (the buffers are files there); using [0-9]* MiB a process$" err.txt)" 1
is "MPE_BUFFER_MB=100000: every event" "$(val logmany.clog count 1 0 601)" $N
is "MPE_BUFFER_MB=100000: one thread a rank" "$(val logmany.clog streams)" 2
# The same against a cgroup's limit (v1's memory controller, where this
# machine lets a test make a child group): 400 MiB under 256 MiB.
cg=/sys/fs/cgroup/memory/mpe-test-$$
if mkdir "$cg" 2> /dev/null; then
  echo $((256 << 20)) > "$cg/memory.limit_in_bytes"
  MPE_BUFFER_MB=400 sh -c "echo \$\$ > $cg/cgroup.procs && exec timeout 120 \
    $MPIEXEC -n 1 $L $N > out.txt 2> err.txt"
  ok $? "MPE_BUFFER_MB=400 in a cgroup of 256 MiB: the job runs"
  grep -qxF "mpe: MPE_BUFFER_MB (400 MiB a process) adjusted: 1 process(es) on this node would hold 400 MiB, above half of 256 MiB, the cgroup's memory.limit_in_bytes; using 128 MiB a process" err.txt
  ok $? "MPE_BUFFER_MB=400 in a cgroup of 256 MiB: cut to half of it, said"
  [ $? -eq 0 ] || sed 's/^/# /' err.txt
  rmdir "$cg"
else
  diag "no cgroup v1 memory controller to make a group in: not tried"
fi
finish

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The examples on 1, 2, 4 and 16 ranks; exact counts through the reader.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
EX=$B/examples

for n in 1 2 4; do
  rm -f cpilog.clog
  run $n $EX/cpilog/cpilog; ok $? "cpilog -n $n runs"
  is "cpilog -n $n: records" "$(val cpilog.clog events)" $((35 * n + 20 * (n - 1)))
  is "cpilog -n $n: streams" "$(val cpilog.clog streams)" $n
  is "cpilog -n $n: matched messages" "$(val cpilog.clog matched)" $((10 * (n - 1)))
  is "cpilog -n $n: unmatched" "$(val cpilog.clog unmatched)" 0
  is "cpilog -n $n: no arrow backwards" "$(val cpilog.clog violations)" 0
  is "cpilog -n $n: monotonic" "$(val cpilog.clog nonmonotonic)" 0
  is "cpilog -n $n: nesting" "$(val cpilog.clog badnest)" 0
  is "cpilog -n $n: last rank's Compute ends" "$(val cpilog.clog count $((n - 1)) 0 603)" 5
  grep -q "^mpe: wrote cpilog.clog (.* MB, $((35 * n + 20 * (n - 1))) events, $n ranks) in .* s$" err.txt
  ok $? "cpilog -n $n: one summary line"
done
is "cargo through the state's info format" \
  "$($LOGCHECK cpilog.clog | grep '^cargo 603 ' | sed 's/ sum=.*//')" \
  "cargo 603 intervals=100000"
is "cargo of a solo event" "$($LOGCHECK cpilog.clog | grep '^cargo 5000 ')" \
  "cargo 5000 round 0"
is "state definitions" "$($LOGCHECK cpilog.clog | grep '^state ' | tr '\n' ,)" \
  "state Broadcast red,state Compute blue,state Reduce green,"

# The demo's program: cpilog relinked with liblmpe (it calls MPE_Finish_log
# itself before MPI_Finalize): user states plus named MPI states.
rm -f cpilog.clog
run 4 $EX/cpilog/cpilog-auto; ok $? "cpilog-auto -n 4 runs"
is "cpilog-auto: MPI and user states" \
  "$($LOGCHECK cpilog.clog | grep '^state ' | sort | tr '\n' ,)" \
  "state Broadcast red,state Compute blue,state MPI_Bcast cyan,state MPI_Comm_rank white,state MPI_Comm_size white,state MPI_Reduce MediumPurple,state Reduce green,"
is "cpilog-auto: records" "$(val cpilog.clog events)" 300
is "cpilog-auto: matched messages" "$(val cpilog.clog matched)" 30
is "cpilog-auto: nesting" "$(val cpilog.clog badnest)" 0
# The merge writes the definitions before the blocks too, so a log cut
# short (the job killed while writing) still has its state names.
sz=$(wc -c < cpilog.clog)
head -c $((sz * 6 / 10)) cpilog.clog > cut.clog
$B/clogtool stats --tolerant cut.clog > cut.txt 2>&1
grep -q "^Compute  *blue " cut.txt && grep -q "^MPI_Bcast  *cyan " cut.txt
ok $? "a cut-short log keeps its state definitions"

rm -f *.clog
MPE_LOGFILE_PREFIX=fromenv run 2 $EX/cpilog/cpilog; ok $? "cpilog with MPE_LOGFILE_PREFIX"
test -f fromenv.clog && ! test -f cpilog.clog; ok $? "MPE_LOGFILE_PREFIX names the file"

run 16 $EX/ring/ring ring 3; ok $? "ring -n 16 runs"
is "ring -n 16: records" "$(val ring.clog events)" 237
is "ring -n 16: matched" "$(val ring.clog matched)" 48
is "ring -n 16: no arrow backwards" "$(val ring.clog violations)" 0
is "ring -n 16: rank 15 hops" "$(val ring.clog count 15 0 5000)" 3

run 2 $EX/threads/threads threads 3 500; ok $? "threads -n 2 runs"
is "threads: streams" "$(val threads.clog streams)" 8
for r in 0 1; do
  for t in 1 2 3; do
    is "threads: rank $r thread $t begins" "$(val threads.clog count $r $t 600)" 500
  done
done
is "threads: matched" "$(val threads.clog matched)" 6
is "threads: spill files removed" "$(ls "$MPE_TMPDIR" | wc -l)" 0
finish

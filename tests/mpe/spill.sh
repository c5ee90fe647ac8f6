#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A 1 MiB buffer forces many spills; every event must survive.  With the
# spill write failing (test hook), the loss is counted and marked.  Both
# with the background spill thread (default) and without it.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
for MPE_SPILL_THREAD in yes no; do
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

MPE_TEST_SPILL_FAIL=1 MPE_BUFFER_MB=1 run 1 $B/tests/mpe/logmany 150000
ok $? "logmany with failing spill writes"
lost=$(sed -n 's/^mpe: rank 0 lost \([0-9]*\) events.*/\1/p' err.txt)
[ -n "$lost" ] && [ "$lost" -gt 0 ]; ok $? "loss reported at finalize ($lost)"
is "LOSS records add up to the reported loss" "$(val logmany.clog lost)" "$lost"
kept=$(val logmany.clog count 0 0 600)
[ "$kept" -lt 150000 ] && [ "$kept" -gt 0 ]; ok $? "events after the loss kept ($kept)"
done
finish

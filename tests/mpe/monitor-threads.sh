#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The monitor's helper threads beside the loggers, for ThreadSanitizer
# (`make check-threads`): 12 ranks, tree of fan-out 2, 50 Hz, each
# helper thread reading its rank's record counts while the rank logs
# (MPE_PEEK) and then stands still.  Checks that hold on any load: the
# job ends cleanly (a TSan report makes it exit 66), the requests went
# down a tree and every one came back.  The exact values are checked by
# monitor-tree12.sh in the ordinary builds.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
export MPE_LOGFILE_PREFIX=threads12 MPE_MONITOR_SHAPE=tree

MPE_MONITOR=50 MPE_MONITOR_THREAD=yes MPE_MONITOR_REPORT=yes \
  MPE_MONITOR_FANOUT=2 run 12 "$B/tests/mpe/monitor-prog" still 1000
r=$?
ok $r "12 ranks with helper threads: the job ends cleanly (rc $r)"
[ $r -eq 0 ] || diag "$(head -20 err.txt)"
grep -q ThreadSanitizer err.txt; test $? -ne 0
ok $? "no ThreadSanitizer report"
grep -q "tree of fan-out 2" err.txt; ok $? "the requests went down a tree"
report () {
  sed -n "s/^MPE monitor: .* \([0-9]*\) $1.*/\1/p" err.txt | head -1
}
sent=$(report "requests sent"); returned=$(report "returned")
test -n "$sent" && test "$sent" -gt 0; ok $? "requests sent ($sent)"
is "every request came back" "$returned" "$sent"
finish

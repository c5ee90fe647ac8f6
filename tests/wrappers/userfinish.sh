#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The user calls MPE_Finish_log before MPI_Finalize (as cpilog does) with
# liblmpe linked: the MPI states the run used still get their names, the
# calls after the finish are not in the log, and MPI_Finalize writes no
# second log.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
wrun 4 "$wb/wprog-log" userfinish; ok $? "userfinish runs on 4 ranks"
n=$(ls "$tap_tmp"/log* 2>/dev/null | wc -l)
[ "$n" -eq 1 ]; ok $? "exactly one log file ($n)"
wlog; ok $? "log reads back"
has "total MPI_Bcast 4" "MPI_Bcast is a named state on every rank"
has "total MPI_Allreduce 4"
hasnt "^solo -?[0-9]+ " "no event lacks its definition"
hasnt "^total MPI_Barrier" "the Barrier after MPE_Finish_log is not logged"
for r in 0 1 2 3; do
  has "solo MPE_Comm_init $r 1"
done
"$top_builddir/clogtool" stats "$(ls "$tap_tmp"/log*)" > "$tap_tmp/stats"
! grep -q MPE_Comm_finalize "$tap_tmp/stats"
ok $? "no MPE_Comm_finalize definition (it is never logged here)"
nesting_ok
finish

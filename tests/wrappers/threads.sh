#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI_THREAD_MULTIPLE: 4 threads per rank, 50 messages each way per
# thread, every one logged and matched.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
wrun 2 "$wb/wprog-log" threads; ok $? "threads runs on 2 ranks"
wlog; ok $? "log reads back"
for r in 0 1; do
  o=$((1 - r))
  for t in 0 1 2 3; do
    has "send $r $o $t 16 50" "rank $r thread tag $t: 50 sends"
    has "recv $r $o $t 16 50" "rank $r thread tag $t: 50 receives"
  done
  has "state MPI_Isend $r 200"
  has "state MPI_Recv $r 200"
  has "state MPI_Wait $r 200"
  # As MPE2: one MPE_Comm_init per process (MPI_COMM_WORLD's; none for
  # the threads); MPE_Comm_finalize once, at MPI_Finalize.
  has "solo MPE_Comm_init $r 1" "rank $r: one MPE_Comm_init, none per thread"
  has "solo MPE_Comm_finalize $r 1"
done
has "messages 400 0"
nesting_ok
finish

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPE_Comm_init / MPE_Comm_finalize as MPE2 logs them: one per member of
# every communicator a logged call creates (split, dup, intercommunicator,
# merge) or MPI_Comm_free frees, plus world's at MPI_Init/MPI_Finalize;
# nothing for a communicator made and freed under MPI_Pcontrol(0).
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
wrun 4 "$wb/wprog-log" comms; ok $? "comms runs on 4 ranks"
wlog; ok $? "log reads back"
for r in 0 1 2 3; do
  has "solo MPE_Comm_init $r 5" "rank $r: world, split, dup, inter, merged"
  has "solo MPE_Comm_finalize $r 5" "rank $r: 4 frees and world's"
  has "state MPI_Comm_free $r 4" "rank $r: the free under Pcontrol(0) is not logged"
done
test "$(count '^solo MPE_Comm_init ')" -eq 4; ok $? "only ranks 0..3 have them"
nesting_ok
finish

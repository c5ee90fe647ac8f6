#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI_ANY_SOURCE/MPI_ANY_TAG resolved from the status, through Recv,
# Irecv+Wait (status ignored), Mprobe+Mrecv and Improbe+Imrecv.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
wrun 4 "$wb/wprog-log" wild; ok $? "wild runs on 4 ranks"
wlog; ok $? "log reads back"
for r in 1 2 3; do
  has "send $r 0 $((10 + r)) $((8 * r)) 4" "rank $r sends 4x $r doubles"
  has "recv 0 $r $((10 + r)) $((8 * r)) 4" "rank 0 logs the real source $r and tag"
done
hasnt "^recv 0 -" "no wildcard partner in the log"
has "state MPI_Recv 0 3"
has "state MPI_Mprobe 0 3"
has "state MPI_Mrecv 0 3"
has "state MPI_Imrecv 0 3"
has "state MPE_Irecv_waited 0 6" "Irecv and Imrecv completions"
has "messages 12 0"
# Every receive is stamped with the end of the call that completed it
# (Recv, Wait, Mrecv: one clock read for both records).
has "sametime recv 0 12" "all 12 receives at their call's end"
nesting_ok
finish

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Persistent requests on 4 ranks: sends at MPI_Startall, receives at
# completion, nothing for the final Waitall on inactive requests.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
wrun 4 "$wb/wprog-log" persist; ok $? "persist runs on 4 ranks"
wlog; ok $? "log reads back"
for r in 0 1 2 3; do
  right=$(( (r + 1) % 4 )); left=$(( (r + 3) % 4 ))
  has "send $r $right 9 20 4" "rank $r: 4 starts, 4 sends of 20 bytes"
  has "recv $r $left 9 20 4" "rank $r: 4 receives, none for inactive"
  has "state MPI_Send_init $r 1"
  has "state MPI_Recv_init $r 1"
  has "state MPI_Startall $r 4"
  has "state MPI_Waitall $r 5"
  has "state MPE_Isend_waited $r 4"
  has "state MPE_Irecv_waited $r 4"
  has "state MPI_Request_free $r 2"
done
has "messages 16 0"
nesting_ok
finish

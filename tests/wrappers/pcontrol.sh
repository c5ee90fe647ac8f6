#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI_Pcontrol(0) region: nothing logged inside, everything outside; a
# receive posted inside and completed outside is not drawn.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
wrun 4 "$wb/wprog-log" pcontrol; ok $? "pcontrol runs on 4 ranks"
wlog; ok $? "log reads back"
for r in 0 1 2 3; do
  right=$(( (r + 1) % 4 )); left=$(( (r + 3) % 4 ))
  has "send $r $right 1 8 1" "rank $r tag 1 (before) logged"
  has "send $r $right 3 8 1" "rank $r tag 3 (after) logged"
  has "recv $r $left 3 8 1"
  has "state MPI_Send $r 2" "rank $r: only the 2 sends outside"
  has "state MPI_Barrier $r 2"
  has "state MPI_Irecv $r 2"
  has "state MPI_Wait $r 3" "waits outside, including the tag-4 one"
done
hasnt "^(send|recv) [0-9]+ [0-9]+ [24] " "nothing from inside the region"
has "messages 8 0"
nesting_ok
finish

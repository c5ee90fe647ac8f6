#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Nonblocking ring on 4 ranks: Isend/Irecv completed by Waitall (status
# ignored), Wait, Testall and Waitsome.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
wrun 4 "$wb/wprog-log" iring; ok $? "iring runs on 4 ranks"
wlog; ok $? "log reads back"
for r in 0 1 2 3; do
  right=$(( (r + 1) % 4 )); left=$(( (r + 3) % 4 ))
  for t in 0 1 2 3 4 5; do
    has "send $r $right $t 64 1" "rank $r Isend tag $t"
    has "recv $r $left $t 64 1" "rank $r receive tag $t at completion"
  done
  has "state MPI_Isend $r 6"
  has "state MPI_Irecv $r 6"
  has "state MPI_Waitall $r 3"
  has "state MPI_Wait $r 2"
  has "state MPE_Irecv_waited $r 6" "every receive wrapped in MPE_Irecv_waited"
done
has "messages 24 0"
nesting_ok
finish

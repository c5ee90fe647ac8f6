#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Blocking ring on 4 ranks: states, arrows with exact sizes, Sendrecv,
# Ssend/Bsend/Rsend, PROC_NULL draws nothing.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
wrun 4 "$wb/wprog-log" ring; ok $? "ring runs on 4 ranks"
wlog; ok $? "log reads back"
for r in 0 1 2 3; do
  right=$(( (r + 1) % 4 )); left=$(( (r + 3) % 4 ))
  has "state MPI_Send $r 4" "rank $r: 3 ring sends + 1 to PROC_NULL"
  for t in 0 1 2; do
    has "send $r $right $t 40 1" "rank $r sends 40 bytes tag $t to $right"
    has "recv $r $left $t 40 1" "rank $r receives tag $t from $left"
  done
  has "send $r $right 50 16 1" "rank $r Sendrecv sends 2 doubles"
  has "recv $r $left 50 16 1" "rank $r Sendrecv receives 16 bytes (status)"
  has "send $r $right 51 12 1" "rank $r Sendrecv_replace send"
  has "recv $r $left 51 12 1" "rank $r Sendrecv_replace receive"
  has "state MPI_Sendrecv $r 1"
  has "state MPI_Sendrecv_replace $r 1"
  has "solo MPE_Comm_init $r 1"
  has "solo MPE_Comm_finalize $r 1"
done
has "state MPI_Recv 0 4" "rank 0: 3 ring receives + PROC_NULL"
has "state MPI_Recv 1 6" "rank 1: ring, Ssend and Bsend receives, PROC_NULL"
has "send 0 1 100 8 1" "Ssend arrow"
has "send 0 1 101 12 1" "Bsend arrow"
has "send 0 1 102 16 1" "Rsend arrow"
has "recv 1 0 100 8 1"
has "recv 1 0 101 12 1"
has "recv 1 0 102 16 1" "Irecv completed by Wait"
has "state MPI_Ssend 0 1"
has "state MPI_Bsend 0 1"
has "state MPI_Rsend 0 1"
has "state MPE_Irecv_waited 1 1"
has "state MPI_Buffer_attach 0 1"
hasnt "^(send|recv) [0-9]+ -?[0-9]+ 7 " "PROC_NULL traffic draws nothing"
has "total MPI_Send 16"
has "total MPI_Barrier 4"
has "messages 23 0" "3x4 ring + 8 Sendrecv + 3 between 0 and 1, all matched"
# One clock read stamps a state's begin and its send, and a receive and
# its state's end: every send and receive here shares its time.
has "sametime send 0 8" "rank 0: 3 Send, Sendrecv(_replace), S/B/Rsend"
has "sametime recv 0 5" "rank 0: 3 Recv, Sendrecv(_replace)"
has "sametime send 1 5"
has "sametime recv 1 8" "rank 1: also Ssend/Bsend receives, Irecv waited"
for r in 2 3; do
  has "sametime send $r 5"
  has "sametime recv $r 5"
done
nesting_ok
finish

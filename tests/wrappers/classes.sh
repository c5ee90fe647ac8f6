#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPE2's default classes, and MPE_WRAP_CLASSES changing them.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
wrun 2 "$wb/wprog-log" ring; ok $? "default classes"
wlog; ok $? "log reads back"
has "state MPI_Comm_rank 0 1" "COMM_INFO is logged by default"
has "state MPI_Buffer_attach 0 1" "MSG_INIT is logged by default"
MPE_WRAP_CLASSES=-COMM_INFO,-MSG_INIT wrun 2 "$wb/wprog-log" ring
ok $? "MPE_WRAP_CLASSES=-COMM_INFO,-MSG_INIT"
wlog; ok $? "log reads back"
hasnt "^state MPI_Comm_rank " "COMM_INFO switched off"
hasnt "^state MPI_Buffer_attach " "MSG_INIT switched off"
has "state MPI_Send 0 4" "MSG still logged"
has "messages 13 0" "and its arrows"
MPE_WRAP_CLASSES=none,+COLL wrun 2 "$wb/wprog-log" ring
ok $? "MPE_WRAP_CLASSES=none,+COLL"
wlog; ok $? "log reads back"
has "total MPI_Barrier 2" "only collectives"
hasnt "^state MPI_Send " "no point-to-point states"
has "messages 0 0" "no arrows"
finish

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Completion calls over a null, an active and an inactive persistent
# request: one receive only; MPI_UNDEFINED results log nothing.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
wrun 2 "$wb/wprog-log" waitany; ok $? "waitany runs on 2 ranks"
! grep -q "^wprog:" "$tap_tmp/run.err"; ok $? "MPI results as expected (index 1, then MPI_UNDEFINED)"
wlog; ok $? "log reads back"
has "recv 0 1 5 16 1" "the one real receive"
test "$(count '^recv ')" -eq 1; ok $? "exactly one receive record"
has "state MPI_Waitany 0 2"
has "state MPI_Testany 0 1"
has "state MPI_Waitsome 0 1"
has "state MPI_Testsome 0 1"
has "state MPE_Irecv_waited 0 1"
has "messages 1 0"
nesting_ok
finish

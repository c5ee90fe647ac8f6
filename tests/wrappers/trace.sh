#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libtmpe: every MPI call printed on entry and exit, prefixed by the
# rank, in MPE2's words (point-to-point calls with their arguments,
# collectives without); no log file.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
wrun 2 "$wb/wprog-trace" ring; ok $? "traced ring runs on 2 ranks"
out=$tap_tmp/run.out
c () { grep -cxF -- "$1" "$out"; }
test "$(c 'Starting MPI_Init...')" -eq 2; ok $? "MPI_Init starts without a rank prefix"
for r in 0 1; do
  o=$((1 - r))
  test "$(c "[$r] Ending MPI_Init")" -eq 1; ok $? "[$r] Ending MPI_Init"
  for t in 0 1 2; do
    test "$(c "[$r] Starting MPI_Send with count = 10, dest = $o, tag = $t...")" -eq 1
    ok $? "[$r] Send with count, dest and tag $t"
    test "$(c "[$r] Ending MPI_Recv from $o with tag $t")" -eq 1
    ok $? "[$r] Recv ends with source and tag $t"
  done
  test "$(c "[$r] Starting MPI_Sendrecv with sendtag 50, recvtag 50, dest $o, source $o ...")" -eq 1
  ok $? "[$r] Sendrecv with tags, dest and source (MPE2's line)"
  test "$(c "[$r] Ending MPI_Sendrecv")" -eq 1; ok $? "[$r] Sendrecv ends without a source, as MPE2's"
  test "$(c "[$r] Starting MPI_Sendrecv_replace with sendtag 51, recvtag 51, dest $o, source $o ...")" -eq 1
  ok $? "[$r] Sendrecv_replace (MPE2's line)"
  test "$(c "[$r] Starting MPI_Barrier...")" -eq 1; ok $? "[$r] Barrier"
  test "$(c "[$r] Ending MPI_Barrier")" -eq 1; ok $? "[$r] Barrier ends"
  test "$(c "[$r] Starting MPI_Finalize...")" -eq 1; ok $? "[$r] Finalize starts"
  test "$(c "[$r] Ending MPI_Finalize")" -eq 1; ok $? "[$r] Finalize ends"
  test "$(grep -c "^\[$r\] Starting MPI_Send " "$out")" -eq 4; ok $? "[$r] 4 sends (one to PROC_NULL)"
  test "$(( $(grep -c "^\[$r\] Starting " "$out") + 1 ))" -eq "$(grep -c "^\[$r\] Ending " "$out")"
  ok $? "[$r] an Ending line for each Starting line (and MPI_Init's)"
done
! grep -q "MPI_Wtime" "$out"; ok $? "MPI_Wtime is not traced"
test "$(c '[0] Starting MPI_Ssend with count = 2, dest = 1, tag = 100...')" -eq 1; ok $? "Ssend"
test "$(c '[1] Ending MPI_Recv from -1 with tag -1')" -eq 1; ok $? "PROC_NULL receive status"
test "$(c '[1] Starting MPI_Irecv with count = 4, source = 0, tag = 102 ...')" -eq 1; ok $? "Irecv (MPE2's ' ...')"
test "$(c '[0] Starting MPI_Bsend with count = 3, dest = 1, tag = 101...')" -eq 1; ok $? "Bsend"
test -z "$(ls "$tap_tmp"/log* 2>/dev/null)"; ok $? "no log file written"

# Collectives print their name only, as MPE2's libtmpe does (no root).
wrun 2 "$wb/wprog-trace" userfinish; ok $? "traced collectives run on 2 ranks"
for r in 0 1; do
  test "$(c "[$r] Starting MPI_Bcast...")" -eq 1; ok $? "[$r] Bcast: MPE2's line"
  test "$(c "[$r] Starting MPI_Allreduce...")" -eq 1; ok $? "[$r] Allreduce: MPE2's line"
  test "$(c "[$r] Ending MPI_Bcast")" -eq 1; ok $? "[$r] Bcast ends"
done
wrun 2 "$wb/wprog-trace" iring; ok $? "traced nonblocking ring runs on 2 ranks"
test "$(c "[0] Starting MPI_Isend with count = 8, dest = 1, tag = 0 ...")" -eq 1; ok $? "Isend (MPE2's ' ...')"
finish

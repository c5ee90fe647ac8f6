#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Collectives on sub-communicators: states with comm size, root and bytes.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
wrun 4 "$wb/wprog-log" subcoll; ok $? "subcoll runs on 4 ranks"
wlog; ok $? "log reads back"
sed 's/comm=[0-9a-fx]*/comm=C/' "$tap_tmp/sum" > "$tap_tmp/sum2"
mv "$tap_tmp/sum2" "$tap_tmp/sum"
for r in 0 1 2 3; do
  has "state MPI_Bcast $r 1"
  has "state MPI_Allreduce $r 1"
  has "state MPI_Barrier $r 1"
  has "cargo MPI_Allreduce $r comm=C np=2 root=-1 sent=16 recv=16"
  has "cargo MPI_Alltoall $r comm=C np=2 root=-1 sent=16 recv=16"
  has "cargo MPI_Barrier $r comm=C np=2 root=-1 sent=0 recv=0"
  has "cargo MPI_Allgather $r comm=C np=4 root=-1 sent=2 recv=8"
done
# local rank 1 of each half (world 2 and 3) is the Bcast root.
has "cargo MPI_Bcast 2 comm=C np=2 root=1 sent=16 recv=0"
has "cargo MPI_Bcast 0 comm=C np=2 root=1 sent=0 recv=16"
has "cargo MPI_Gather 0 comm=C np=2 root=0 sent=12 recv=24" "Gather root"
has "cargo MPI_Gather 2 comm=C np=2 root=0 sent=12 recv=0"
has "messages 0 0" "collectives draw no arrows"
nesting_ok
# MPE2's colours (its log_mpi_core.c; white where it set none).
f=$(ls "$tap_tmp"/log* | head -1)
"$top_builddir/tests/mpe/logcheck" "$f" > "$tap_tmp/defs"
for sc in "MPI_Allgather purple3" "MPI_Alltoall DarkViolet" "MPI_Allreduce purple" \
          "MPI_Bcast cyan" "MPI_Barrier yellow" "MPI_Gather white"; do
  grep -qx "state $sc" "$tap_tmp/defs"; ok $? "MPE2's colour: $sc"
done
finish

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A C++ program built with mpecc -mpicc=mpicxx -mpilog is logged.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
MPICXX=${MPICC%cc}cxx
cat > "$tap_tmp/ring.cc" <<'CXX'
#include <mpi.h>
#include <vector>
int main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  std::vector<int> v (5, rank);
  int other = 1 - rank;
  for (int i = 0; i < 2; i++)
    {
      if (rank == i)
        MPI_Send (v.data (), 5, MPI_INT, other, 3, MPI_COMM_WORLD);
      else
        MPI_Recv (v.data (), 5, MPI_INT, other, 3, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
    }
  MPI_Allreduce (MPI_IN_PLACE, v.data (), 5, MPI_INT, MPI_SUM,
                 MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}
CXX
MPECC_LIBDIR=$top_builddir/mpe/.libs MPECC_INCDIR=$top_srcdir/mpe/include \
  sh "$top_builddir/mpe/mpecc" -mpicc="$MPICXX" -mpilog "$tap_tmp/ring.cc" \
  -o "$tap_tmp/ringxx" 2> "$tap_tmp/cc.err"
r=$?; ok $r "mpecc -mpicc=mpicxx -mpilog builds the C++ program"
[ $r -eq 0 ] || sed 's/^/#   /' "$tap_tmp/cc.err" | head
wrun 2 "$tap_tmp/ringxx"; ok $? "C++ program runs on 2 ranks"
wlog; ok $? "log reads back"
has "send 0 1 3 20 1"
has "recv 1 0 3 20 1"
has "send 1 0 3 20 1"
has "recv 0 1 3 20 1"
has "total MPI_Allreduce 2"
has "messages 2 0"
finish

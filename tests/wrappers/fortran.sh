#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A Fortran program built with mpecc -mpicc=$MPIFC -mpilog is logged
# (MPICH's Fortran bindings call the C MPI_ functions).
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
cat > "$tap_tmp/pp.f90" <<'F90'
program pp
  use mpi
  implicit none
  integer :: ierr, rank, buf(6), st(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  buf = rank
  if (rank == 0) then
    call MPI_Send(buf, 6, MPI_INTEGER, 1, 4, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    call MPI_Recv(buf, 6, MPI_INTEGER, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, st, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program pp
F90
(cd "$tap_tmp" && MPECC_LIBDIR=$top_builddir/mpe/.libs \
  MPECC_INCDIR=$top_srcdir/mpe/include \
  sh "$top_builddir/mpe/mpecc" -mpicc="$MPIFC" -mpilog pp.f90 -o pp) \
  2> "$tap_tmp/cc.err"
r=$?; ok $r "mpecc -mpicc=\$MPIFC -mpilog builds the Fortran program"
[ $r -eq 0 ] || sed 's/^/#   /' "$tap_tmp/cc.err" | head
wrun 2 "$tap_tmp/pp"; ok $? "Fortran program runs on 2 ranks"
wlog; ok $? "log reads back"
has "send 0 1 4 24 1" "Fortran MPI_Send logged with 24 bytes"
has "recv 1 0 4 24 1" "Fortran MPI_Recv from ANY_SOURCE resolved to 0"
has "state MPI_Barrier 0 1"
has "state MPI_Barrier 1 1"
has "messages 1 0"
finish

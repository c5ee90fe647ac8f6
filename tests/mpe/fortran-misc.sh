#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Fortran bindings of MPE2's helpers: MPE_DECOMP1D, MPE_SEQ_BEGIN/END,
# MPE_COMM_GLOBAL_RANK, MPE_PRINT_DATATYPE_(UN)PACK_ACTION, against
# libmpe and libmpe_null, on 3 ranks.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
cat > misc.f90 <<'F90'
program misc
  use mpi
  implicit none
  integer :: ierr, me, np, s, e, half, hr, wr, vec
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPE_DECOMP1D(10, np, me, s, e)
  ! In rank order: each rank appends its line to one file inside the
  ! sequential section.
  call MPE_SEQ_BEGIN(MPI_COMM_WORLD, 1)
  open (unit=10, file='seq.txt', position='append', status='unknown')
  write (10, '(a,i0,a,i0,a,i0)') 'rank ', me, ' range ', s, ' ', e
  close (10)
  call MPE_SEQ_END(MPI_COMM_WORLD, 1)
  ! Ranks in descending order: local rank 0 is world rank np-1.
  call MPI_Comm_split(MPI_COMM_WORLD, 0, np - me, half, ierr)
  call MPI_Comm_rank(half, hr, ierr)
  call MPE_COMM_GLOBAL_RANK(half, 0, wr)
  if (me == 0) write (*, '(a,i0)') 'global rank of local 0: ', wr
  ! Every other integer of 4: two 4-byte copies each way.
  call MPI_Type_vector(2, 1, 2, MPI_INTEGER, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  if (me == 0) then
    call MPE_PRINT_DATATYPE_PACK_ACTION(1, vec, 0, 0)
    call MPE_PRINT_DATATYPE_UNPACK_ACTION(1, vec, 0, 100)
    call MPE_PRINT_DATATYPE_PACK_ACTION(3, MPI_INTEGER, 0, 0)
  end if
  call MPI_Type_free(vec, ierr)
  call MPI_Comm_free(half, ierr)
  call MPI_Finalize(ierr)
end program misc
F90
for lib in mpe mpe_null; do
  $MPIFC -o misc-$lib misc.f90 -L"$B/mpe/.libs" -l$lib \
    -Wl,-rpath,"$B/mpe/.libs" -Wl,-rpath,"$B/logfmt/.libs" > cc.txt 2>&1
  ok $? "fortran program builds with -l$lib"
  [ $? -eq 0 ] || sed 's/^/#   /' cc.txt | head
  rm -f seq.txt
  run 3 ./misc-$lib; ok $? "runs on 3 ranks (-l$lib)"
  is "MPE_DECOMP1D ranges, in rank order (MPE_SEQ_BEGIN/END, -l$lib)" \
    "$(tr '\n' , < seq.txt)" "rank 0 range 1 4,rank 1 range 5 7,rank 2 range 8 10,"
  is "MPE_COMM_GLOBAL_RANK (-l$lib)" "$(grep '^global' out.txt)" \
    "global rank of local 0: 2"
  is "MPE_PRINT_DATATYPE_PACK/UNPACK_ACTION (-l$lib)" \
    "$(grep '^Copy' out.txt | tr '\n' ,)" \
    "Copy 4 bytes from offset 0 to offset 0,Copy 4 bytes from offset 8 to offset 4,Copy 4 bytes from offset 0 to offset 100,Copy 4 bytes from offset 4 to offset 108,Copy 12 bytes from offset 0 to offset 0,"
done
finish

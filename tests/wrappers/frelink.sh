#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Fortran programs relinked by hand as MPE2's documentation shows
# (mpif77/mpif90 prog -llmpe -lmpe, no mpecc): the wrapper library is kept
# and the program is logged.  A C program linked with MPI before the
# wrappers is told once that nothing will be logged.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
libs=$top_builddir/mpe/.libs
fdir=$(dirname "$MPIFC")
cat > "$tap_tmp/pp.f" <<'F77'
      PROGRAM PP
      INCLUDE 'mpif.h'
      INTEGER IERR, ME, BUF(6), ST(MPI_STATUS_SIZE)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      IF (ME .EQ. 0) THEN
         CALL MPI_SEND(BUF, 6, MPI_INTEGER, 1, 4, MPI_COMM_WORLD, IERR)
      ELSE IF (ME .EQ. 1) THEN
         CALL MPI_RECV(BUF, 6, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, ST,
     &                 IERR)
      END IF
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL MPI_FINALIZE(IERR)
      END
F77
cat > "$tap_tmp/pp90.f90" <<'F90'
program pp90
  use mpi
  implicit none
  integer :: ierr, provided
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program pp90
F90
for fc in mpif77:pp.f mpif90:pp90.f90; do
  c=${fc%%:*}; src=${fc#*:}
  (cd "$tap_tmp" && "$fdir/$c" "$src" -o "${src%.*}" -L"$libs" \
     -Wl,-rpath,"$libs" -llmpe -lmpe) 2> "$tap_tmp/cc.err"
  ok $? "$c $src -llmpe -lmpe links"
  readelf -d "$tap_tmp/${src%.*}" | grep -q 'NEEDED.*liblmpe'
  ok $? "$c: liblmpe is kept in the link"
done
wrun 2 "$tap_tmp/pp"; ok $? "mpif77 program runs"
wlog; ok $? "mpif77 program wrote a log"
has "send 0 1 4 24 1" "mpif77: MPI_SEND logged"
has "recv 1 0 4 24 1" "mpif77: MPI_RECV logged"
has "state MPI_Barrier 0 1"
has "state MPI_Barrier 1 1"
wrun 2 "$tap_tmp/pp90"; ok $? "mpif90 program (MPI_Init_thread) runs"
wlog; ok $? "mpif90 program wrote a log"
has "state MPI_Barrier 0 2" "mpif90: both barriers logged on rank 0"
has "state MPI_Barrier 1 2" "mpif90: both barriers logged on rank 1"

# MPI first, wrappers after: said once, on rank 0.
cat > "$tap_tmp/late.c" <<'C'
#include <mpi.h>
int main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}
C
(cd "$tap_tmp" && $MPICC late.c -o late -Wl,--no-as-needed -lmpich \
   -L"$libs" -Wl,-rpath,"$libs" -llmpe -lmpe) 2> "$tap_tmp/cc.err"
ok $? "a program linked -lmpich -llmpe builds"
wrun 2 "$tap_tmp/late"; ok $? "and runs"
test "$(grep -c 'liblmpe: warning: the program.s MPI calls resolve to .*libmpich' "$tap_tmp/run.err")" -eq 1
ok $? "it is told once that its MPI calls will not be seen"
finish

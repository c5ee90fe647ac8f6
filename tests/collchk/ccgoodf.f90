! SPDX-License-Identifier: BSD-3-Clause
! Correct Fortran collectives (double precision, in place): must pass the
! checker unchanged.
program ccgoodf
  use mpi
  implicit none
  integer :: ierr, me, np
  double precision :: x(3), y(3)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  x = me + 1
  call MPI_Allreduce(x, y, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, x, 3, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Bcast(y, 3, MPI_DOUBLE_PRECISION, np - 1, MPI_COMM_WORLD, ierr)
  if (me == 0) print '(a,3f8.1,a,f8.1)', 'sum', y, ' max', x(1)
  call MPI_Finalize(ierr)
end program ccgoodf

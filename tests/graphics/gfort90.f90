! SPDX-License-Identifier: BSD-3-Clause
! MPE graphics from free-form Fortran (mpif90): each rank fills its
! square; rank 0 captures the frame (argument 1: the file prefix).
program gfort90
  implicit none
  include 'mpif.h'
  include 'mpe_graphicsf.h'
  integer :: graph, ierr, rank, bad
  integer :: colors(3)
  character(len=200) :: prefix
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, prefix)
  bad = 0
  call mpe_open_graphics(graph, MPI_COMM_WORLD, '', -1, -1, 120, 60, &
       MPE_GRAPH_COLLECTIVE, ierr)
  if (ierr /= MPE_SUCCESS) call mpi_abort(MPI_COMM_WORLD, 1, ierr)
  call mpe_make_color_array(graph, 3, colors, ierr)
  if (ierr /= MPE_SUCCESS .or. colors(1) /= 2 .or. colors(3) /= 4) bad = bad + 1
  ! colours(1) is hue 0: red; colours(2) hue 120: green
  call mpe_fill_rectangle(graph, 10 + 30 * rank, 10, 20, 20, colors(1 + mod(rank, 2)), ierr)
  call mpe_update(graph, ierr)
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     call mpe_capturefile(graph, prefix, 1, ierr)
     call mpe_update(graph, ierr)
  end if
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  call mpe_close_graphics(graph, ierr)
  print '(A, I0, A, I0)', 'rank ', rank, ' bad ', bad
  call mpi_finalize(ierr)
end program gfort90

! SPDX-License-Identifier: BSD-3-Clause
! MPE graphics from fixed-form Fortran (mpif77): every rank fills its
! square; rank 0 also draws a line, points and an added colour, then
! captures the frame (argument 1: the file prefix).
      program gfort
      implicit none
      include 'mpif.h'
      include 'mpe_graphicsf.h'
      integer graph, ierr, rank, nprocs, nc, newc, i, bad
      integer pts(3, 4)
      character*200 prefix
      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
      call get_command_argument(1, prefix)
      bad = 0
      call mpe_open_graphics(graph, MPI_COMM_WORLD, '', -1, -1,
     &     200, 100, MPE_GRAPH_INDEPDENT, ierr)
      if (ierr .ne. MPE_SUCCESS) call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      call mpe_fill_rectangle(graph, 10 + 30 * rank, 10, 20, 20,
     &     MPE_RED + rank, ierr)
      if (ierr .ne. MPE_SUCCESS) bad = bad + 1
      if (rank .eq. 0) then
        call mpe_draw_line(graph, 10, 50, 100, 50, MPE_BLUE, ierr)
        call mpe_line_thickness(graph, 3, ierr)
        call mpe_draw_line(graph, 10, 60, 100, 60, MPE_MAGENTA, ierr)
        call mpe_line_thickness(graph, 0, ierr)
        do i = 1, 4
          pts(1, i) = 110 + i
          pts(2, i) = 50
          pts(3, i) = MPE_GREEN
        end do
        call mpe_draw_points(graph, pts, 4, ierr)
        call mpe_draw_logic(graph, MPE_LOGIC_XOR, ierr)
        call mpe_fill_circle(graph, 150, 80, 5, MPE_CYAN, ierr)
        call mpe_fill_circle(graph, 150, 80, 5, MPE_CYAN, ierr)
        call mpe_draw_logic(graph, MPE_LOGIC_COPY, ierr)
        call mpe_add_rgb_color(graph, 0, 32768, 65535, newc, ierr)
        call mpe_num_colors(graph, nc, ierr)
        if (newc .ne. 16 .or. nc .ne. 17) bad = bad + 1
        call mpe_fill_rectangle(graph, 170, 70, 10, 10, newc, ierr)
        call mpe_draw_string(graph, 120, 30, MPE_BLACK, 'F77', ierr)
        call mpe_draw_point(graph, 190, 90, 999, ierr)
        if (ierr .ne. MPE_ERR_BAD_ARGS) bad = bad + 1
      end if
      call mpe_update(graph, ierr)
      if (ierr .ne. MPE_SUCCESS) bad = bad + 1
      call mpi_barrier(MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
        call mpe_capturefile(graph, prefix, 1, ierr)
        call mpe_update(graph, ierr)
        if (ierr .ne. MPE_SUCCESS) bad = bad + 1
      end if
      call mpi_barrier(MPI_COMM_WORLD, ierr)
      call mpe_close_graphics(graph, ierr)
      if (ierr .ne. MPE_SUCCESS .or. graph .ne. 0) bad = bad + 1
      call mpe_update(graph, ierr)
      if (ierr .ne. MPE_ERR_BAD_ARGS) bad = bad + 1
      print '(A, I0, A, I0)', 'rank ', rank, ' bad ', bad
      call mpi_finalize(ierr)
      end

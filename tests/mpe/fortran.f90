! SPDX-License-Identifier: BSD-3-Clause
! The Fortran bindings: states, an info event with packed cargo, messages.
program fortran_test
  use mpi
  implicit none
  include 'mpe_logf.h'
  integer :: ierr, rank, nprocs, a, b, e, i, pos, rc, val
  character(len=32) :: buf
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  rc = MPE_INIT_LOG()
  rc = MPE_LOG_GET_STATE_EVENTIDS(a, b)
  rc = MPE_LOG_GET_SOLO_EVENTID(e)
  if (rank == 0) then
    rc = MPE_DESCRIBE_STATE(a, b, 'FortranState', 'orange')
    rc = MPE_DESCRIBE_INFO_EVENT(e, 'FortranEvent', 'red', 'value %d')
  end if
  do i = 1, 25
    rc = MPE_LOG_EVENT(a, 0, ' ')
    rc = MPE_LOG_BARE_EVENT(b)
  end do
  pos = 0
  val = 42
  rc = MPE_LOG_PACK(buf, pos, 'd', 1, val)
  rc = MPE_LOG_INFO_EVENT(e, buf)
  rc = MPE_FINISH_LOG('fortran')
  if (rank == 0 .and. MPE_INITIALIZED_LOGGING() /= 2) stop 1
  call MPI_Finalize(ierr)
end program fortran_test

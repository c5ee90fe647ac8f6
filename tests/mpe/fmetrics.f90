! SPDX-License-Identifier: BSD-3-Clause
! The metric bindings (mpe_metricsf.h), free form: a counter, a level,
! a timer, a guarded counter and a guarded timer with known values; each
! rank prints what it reads back, tests/mpe/fortran-metrics.sh compares
! the log with it (clogtool metrics --json).
program fmetrics
  use mpi
  implicit none
  include 'mpe_logf.h'
  include 'mpe_metricsf.h'
  integer :: ierr, rank, rc, i, work, depth, busy, infoo, gcount, gtime
  integer :: found
  integer*8 :: one, v
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  rc = MPE_INIT_LOG()
  rc = MPE_METRIC_DEFINE('work', '1', work)
  rc = rc + MPE_METRIC_DEFINE('depth', '1', depth)
  rc = rc + MPE_METRIC_DEFINE('busy', 'ns', busy)
  rc = rc + MPE_METRIC_DEFINE('in_foo', '1', infoo)
  rc = rc + MPE_METRIC_DEFINE('foo_count', '1', gcount)
  rc = rc + MPE_METRIC_DEFINE('foo_time', 'ns', gtime)
  rc = rc + MPE_METRIC_GUARD(gcount, infoo)
  rc = rc + MPE_METRIC_GUARD(gtime, infoo)
  if (rc /= MPE_LOG_OK) stop 1
  one = 1
  do i = 1, 10 * (rank + 1)
    rc = MPE_METRIC_ADD(work, one)
  end do
  v = rank + 7
  rc = MPE_METRIC_SET(depth, v)
  rc = MPE_METRIC_SUB(depth, 4_8)
  ! Outside foo: the guarded cells do not move.
  rc = MPE_METRIC_TIMER_START(busy)
  call outside()
  rc = MPE_METRIC_ADD(infoo, one)
  call outside()
  rc = MPE_METRIC_SUB(infoo, one)
  call outside()
  rc = MPE_METRIC_TIMER_STOP(busy)
  found = -1
  rc = MPE_METRIC_FIND('work', found)
  write (*, '(a,i0,a,i0,a,l1)') 'rank ', rank, ' find ', rc, ' ', found == work
  write (*, '(a,i0,6(a,i0))') 'rank ', rank, &
    ' work ', MPE_METRIC_READ(work), ' depth ', MPE_METRIC_READ(depth), &
    ' busy ', MPE_METRIC_READ(busy), ' in_foo ', MPE_METRIC_READ(infoo), &
    ' foo_count ', MPE_METRIC_READ(gcount), &
    ' foo_time ', MPE_METRIC_READ(gtime)
  rc = MPE_FINISH_LOG('fmetrics')
  call MPI_Finalize(ierr)
contains
  ! One guarded count and about 1 ms of guarded time.
  subroutine outside()
    double precision :: t0
    rc = MPE_METRIC_ADD(gcount, one)
    rc = MPE_METRIC_TIMER_START(gtime)
    t0 = MPI_Wtime()
    do while (MPI_Wtime() - t0 < 1.0d-3)
    end do
    rc = MPE_METRIC_TIMER_STOP(gtime)
  end subroutine outside
end program fmetrics

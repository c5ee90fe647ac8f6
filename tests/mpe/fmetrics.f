! SPDX-License-Identifier: BSD-3-Clause
! The metric bindings (mpe_metricsf.h), fixed form (mpif77): the same
! cells and values as fmetrics.f90.
      program fmetrics
      implicit none
      include 'mpif.h'
      include 'mpe_logf.h'
      include 'mpe_metricsf.h'
      integer ierr, rank, rc, i, work, depth, busy, infoo
      integer gcount, gtime, found
      integer*8 one, v
      common /cells/ gcount, gtime
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
      if (rc .ne. MPE_LOG_OK) stop 1
      one = 1
      do 10 i = 1, 10 * (rank + 1)
         rc = MPE_METRIC_ADD(work, one)
   10 continue
      v = rank + 7
      rc = MPE_METRIC_SET(depth, v)
      rc = MPE_METRIC_SUB(depth, 4_8)
      rc = MPE_METRIC_TIMER_START(busy)
      call spin
      rc = MPE_METRIC_ADD(infoo, one)
      call spin
      rc = MPE_METRIC_SUB(infoo, one)
      call spin
      rc = MPE_METRIC_TIMER_STOP(busy)
      found = -1
      rc = MPE_METRIC_FIND('work', found)
      write (*, 101) rank, rc, found .eq. work
  101 format ('rank ', i0, ' find ', i0, ' ', l1)
      write (*, 100) rank, MPE_METRIC_READ(work),
     &  MPE_METRIC_READ(depth), MPE_METRIC_READ(busy),
     &  MPE_METRIC_READ(infoo), MPE_METRIC_READ(gcount),
     &  MPE_METRIC_READ(gtime)
  100 format ('rank ', i0, ' work ', i0, ' depth ', i0, ' busy ', i0,
     &  ' in_foo ', i0, ' foo_count ', i0, ' foo_time ', i0)
      rc = MPE_FINISH_LOG('fmetrics')
      call MPI_Finalize(ierr)
      end

! One guarded count and about 1 ms of guarded time.
      subroutine spin
      implicit none
      include 'mpif.h'
      include 'mpe_metricsf.h'
      integer gcount, gtime, rc
      integer*8 one
      double precision t0
      common /cells/ gcount, gtime
      one = 1
      rc = MPE_METRIC_ADD(gcount, one)
      rc = MPE_METRIC_TIMER_START(gtime)
      t0 = MPI_WTIME()
   20 if (MPI_WTIME() - t0 .lt. 1.0d-3) goto 20
      rc = MPE_METRIC_TIMER_STOP(gtime)
      end

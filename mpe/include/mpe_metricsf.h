! SPDX-License-Identifier: BSD-3-Clause
! MPE metric cells for Fortran (fixed or free form), the functions of
! mpe_metrics.h: include 'mpe_metricsf.h' after 'mpe_logf.h'.  Cells
! are INTEGER; values, and the value arguments of SET, ADD and SUB,
! are INTEGER*8 (pass 1_8 or an INTEGER*8 variable, not 1).
      integer MPE_METRIC_MAX_CELLS
      parameter (MPE_METRIC_MAX_CELLS = 256)
      integer MPE_METRIC_DEFINE, MPE_METRIC_SET, MPE_METRIC_ADD
      integer MPE_METRIC_SUB, MPE_METRIC_TIMER_START
      integer MPE_METRIC_TIMER_STOP, MPE_METRIC_GUARD
      integer MPE_METRIC_FIND, MPE_METRIC_SAMPLE, MPE_METRIC_SAMPLE_ON
      integer*8 MPE_METRIC_READ, MPE_METRIC_READ_CHANNEL
      external MPE_METRIC_DEFINE, MPE_METRIC_SET, MPE_METRIC_ADD
      external MPE_METRIC_SUB, MPE_METRIC_TIMER_START
      external MPE_METRIC_TIMER_STOP, MPE_METRIC_GUARD
      external MPE_METRIC_FIND, MPE_METRIC_SAMPLE, MPE_METRIC_SAMPLE_ON
      external MPE_METRIC_READ, MPE_METRIC_READ_CHANNEL

/* SPDX-License-Identifier: BSD-3-Clause */
/* The CPU's free-running counter that libmpe stamps events with, when the
 * build has one (configure: MPE_COUNTER_TSC on x86-64, MPE_COUNTER_CNTVCT
 * on aarch64; neither with --disable-tsc or on other machines).  Whether
 * it is usable is checked at run time (mpe__clock_init); without it events
 * are stamped with clock_gettime (CLOCK_MONOTONIC).  Not installed. */
#ifndef MPE_COUNTER_H
#define MPE_COUNTER_H

#include <stdint.h>

#if defined MPE_COUNTER_TSC
# include <x86intrin.h>
# define MPE_HAVE_COUNTER 1
# define MPE_COUNTER_NAME "tsc"
/* Not serialising: the stamp of an event may move by a few cycles, which
 * is far below what a record costs. */
static inline uint64_t
mpe_counter_read (void)
{
  return __rdtsc ();
}

/* The rate is not architectural: 0 asks the caller to calibrate. */
static inline uint64_t
mpe_counter_hz (void)
{
  return 0;
}
#elif defined MPE_COUNTER_CNTVCT
# define MPE_HAVE_COUNTER 1
# define MPE_COUNTER_NAME "cntvct"
/* The generic timer's virtual count (Linux lets user space read it), like
 * the TSC without an isb before it. */
static inline uint64_t
mpe_counter_read (void)
{
  uint64_t v;
  __asm__ __volatile__ ("mrs %0, cntvct_el0" : "=r" (v));
  return v;
}

/* Its frequency in Hz as firmware set it (0: unset, do not use). */
static inline uint64_t
mpe_counter_hz (void)
{
  uint64_t hz;
  __asm__ __volatile__ ("mrs %0, cntfrq_el0" : "=r" (hz));
  return hz;
}
#else
# define MPE_HAVE_COUNTER 0
# define MPE_COUNTER_NAME "none"
static inline uint64_t
mpe_counter_read (void)
{
  return 0;   /* never called: MPE_HAVE_COUNTER guards every use */
}

static inline uint64_t
mpe_counter_hz (void)
{
  return 0;
}
#endif

#endif

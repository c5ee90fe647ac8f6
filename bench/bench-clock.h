/* SPDX-License-Identifier: BSD-3-Clause */
/* What the logging benchmarks time with: the monotonic clock, and the
 * stamp of the floor loop, what libmpe reads for an event (the CPU's
 * counter where the build has one and it is usable, mpe-counter.h; else
 * CLOCK_MONOTONIC). */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "mpe-counter.h"

/* Clock c, seconds. */
static inline double
bench_clock_s (clockid_t c)
{
  struct timespec ts;
  clock_gettime (c, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CLOCK_MONOTONIC, seconds. */
static inline double
bench_now (void)
{
  return bench_clock_s (CLOCK_MONOTONIC);
}

/* The floor's stamp. */
static inline uint64_t
bench_stamp (void)
{
#if MPE_HAVE_COUNTER
  return mpe_counter_read ();
#else
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
#endif
}

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* What several micro-benchmarks share: the calling thread's CPU time and
 * a qsort order for the per-repetition figures whose median they print. */
#ifndef BENCH_CPU_H
#define BENCH_CPU_H

#include <time.h>

/* The calling thread's CPU time, seconds. */
static inline double
bench_thread_cpu_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* qsort order of doubles, ascending. */
static inline int
bench_cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cost of the metric primitives (mpe_metrics.h) against MPE_Log_event in
 * the same run: MPE_Metric_add, and a guarded timer start/stop pair (the
 * worked example's primitive, flag raised), per call; medians of REPS
 * runs of N calls.  The target is at most 1.5x MPE_Log_event.  Run with
 * one rank and a buffer big enough for the events (MPE_BUFFER_MB=1200).
 *
 *   mpe-metric [N] [REPS]
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>
#include "mpe.h"
#include "mpe_metrics.h"

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cmp (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, (size_t) n, sizeof *v, cmp);
  return v[n / 2];
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 10000000;
  int reps = argc > 2 ? atoi (argv[2]) : 5;
  if (reps > 16)
    reps = 16;
  MPI_Init (&argc, &argv);
  MPE_Init_log ();
  int a, b, cnt, flag, tm;
  MPE_Log_get_state_eventIDs (&a, &b);
  MPE_Describe_state (a, b, "Bench", "red");
  MPE_Metric_define ("bench.count", "1", &cnt);
  MPE_Metric_define ("bench.flag", "1", &flag);
  MPE_Metric_define ("bench.timer", "ns", &tm);
  MPE_Metric_guard (tm, flag);
  MPE_Metric_add (flag, 1);
  double ev[16], add[16], tim[16];
  for (int r = 0; r < reps; r++)
    {
      double t0 = now ();
      for (long i = 0; i < n / 2; i++)
        {
          MPE_Log_event (a, 0, NULL);
          MPE_Log_event (b, 0, NULL);
        }
      ev[r] = (now () - t0) / n * 1e9;
      t0 = now ();
      for (long i = 0; i < n; i++)
        {
          MPE_Metric_add (cnt, i);
          __asm__ volatile ("" ::: "memory");
        }
      add[r] = (now () - t0) / n * 1e9;
      t0 = now ();
      for (long i = 0; i < n / 2; i++)
        {
          MPE_Metric_timer_start (tm);
          MPE_Metric_timer_stop (tm);
        }
      tim[r] = (now () - t0) / n * 1e9;
    }
  double e = median (ev, reps), ad = median (add, reps);
  double ti = median (tim, reps);
  printf ("mpe-metric: %ld calls x %d runs (medians, ns per call)\n", n,
          reps);
  printf ("  MPE_Log_event:                      %6.2f\n", e);
  printf ("  MPE_Metric_add:                     %6.2f  (%.2fx event)\n", ad,
          ad / e);
  printf ("  guarded timer start or stop:        %6.2f  (%.2fx event)\n", ti,
          ti / e);
  char prefix[64];
  snprintf (prefix, sizeof prefix, "/tmp/mpe-bench-metric-%ld",
            (long) getpid ());
  MPE_Finish_log (prefix);
  char path[80];
  snprintf (path, sizeof path, "%s.clog", prefix);
  unlink (path);
  MPI_Finalize ();
  return 0;
}

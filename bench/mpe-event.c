/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-event cost of MPE_Log_event / MPE_Log_bare_event against the floor
 * (a loop storing a 16-byte record stamped with the clock libmpe reads:
 * the build's counter, e.g. rdtsc, or clock_gettime), measured in the
 * same run; medians of REPS runs of N events.  Also the cost with logging
 * stopped.  Run with one rank and a buffer big enough for all runs
 * (MPE_BUFFER_MB=1200) to measure the event path without spilling, or a
 * small one to include spilling.
 *
 *   mpe-event [N] [REPS]
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>
#include "mpe.h"
#include "bench-clock.h"

typedef struct { uint64_t t; int32_t id; uint32_t aux; } rec_t;

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
  int reps = argc > 2 ? atoi (argv[2]) : 3;
  if (reps > 16)
    reps = 16;
  MPI_Init (&argc, &argv);
  MPE_Init_log ();
  int a, b;
  MPE_Log_get_state_eventIDs (&a, &b);
  MPE_Describe_state (a, b, "Bench", "red");
  rec_t *floor_buf = malloc ((size_t) n * sizeof *floor_buf);
  for (long i = 0; i < n; i++)   /* fault the pages in, as MPE's are */
    floor_buf[i].t = 0;
  double fl[16], ev[16], bare[16], off[16];
  for (int r = 0; r < reps; r++)
    {
      double t0 = bench_now ();
      for (long i = 0; i < n; i++)
        {
          floor_buf[i].t = bench_stamp ();
          floor_buf[i].id = (int32_t) i;
          floor_buf[i].aux = 0;
          __asm__ volatile ("" ::: "memory");
        }
      fl[r] = (bench_now () - t0) / n * 1e9;
      t0 = bench_now ();
      for (long i = 0; i < n / 2; i++)
        {
          MPE_Log_event (a, 0, NULL);
          MPE_Log_event (b, 0, NULL);
        }
      ev[r] = (bench_now () - t0) / n * 1e9;
      t0 = bench_now ();
      for (long i = 0; i < n / 2; i++)
        {
          MPE_Log_bare_event (a);
          MPE_Log_bare_event (b);
        }
      bare[r] = (bench_now () - t0) / n * 1e9;
      MPE_Stop_log ();
      t0 = bench_now ();
      for (long i = 0; i < n; i++)
        MPE_Log_event (a, 0, NULL);
      off[r] = (bench_now () - t0) / n * 1e9;
      MPE_Start_log ();
    }
  double f = median (fl, reps), e = median (ev, reps);
  double bb = median (bare, reps), o = median (off, reps);
  printf ("mpe-event: %ld events x %d runs (medians)\n", n, reps);
  printf ("  floor (%-6s + 16-byte store): %6.2f ns/event\n",
          MPE_HAVE_COUNTER ? MPE_COUNTER_NAME : "mono", f);
  printf ("  MPE_Log_event:                 %6.2f ns/event  (%.2fx floor)\n",
          e, e / f);
  printf ("  MPE_Log_bare_event:            %6.2f ns/event  (%.2fx floor)\n",
          bb, bb / f);
  printf ("  MPE_Log_event, logging off:    %6.2f ns/event\n", o);
  free (floor_buf);
  char prefix[64];
  snprintf (prefix, sizeof prefix, "/tmp/mpe-bench-event-%ld", (long) getpid ());
  MPE_Finish_log (prefix);
  char path[80];
  snprintf (path, sizeof path, "%s.clog", prefix);
  unlink (path);
  MPI_Finalize ();
  return 0;
}

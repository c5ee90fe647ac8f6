/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cost of the counter layer (MPE_COUNTERS, mpe(3)): per MPE_Counters_read
 * (a user point: every source's set read, one reading stored per event;
 * a timer sample runs the same reading code inside its handler), per
 * MPE_Log_event with the layer on and off (the layer adds nothing to the
 * event path), and a bare read(2) of a perf group of the same events for
 * reference.  Thread CPU time, medians of REPS runs of N calls.  Run with
 * one rank; the script sets MPE_COUNTERS or not.
 *
 *   counters-bench [N] [REPS]
 *   prints: read_ns X event_ns Y
 *
 * And the same fixed computation (N iterations of a dependent add)
 * under the timer sampler, with or without counters, or under perf
 * record (bench/counters-sample.sh):
 *
 *   counters-bench work N
 *   prints: work_s X (its thread's CPU time for the loop)
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>
#include "mpe.h"
#include "mpe_metrics.h"
#include "bench-cpu.h"

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 100000;
  int reps = argc > 2 ? atoi (argv[2]) : 5;
  if (reps < 1 || reps > 64)
    reps = 5;
  MPI_Init (&argc, &argv);
  MPE_Init_log ();
  if (argc > 2 && !strcmp (argv[1], "work"))
    {
      long iters = atol (argv[2]);
      volatile unsigned long x = 0;
      double t0 = bench_thread_cpu_s ();
      for (long i = 0; i < iters; i++)
        x += (unsigned long) i;
      double t1 = bench_thread_cpu_s ();
      printf ("work_s %.4f\n", t1 - t0);
      MPE_Finish_log ("/tmp/counters-bench-work");
      MPI_Finalize ();
      return (int) (x & 0);
    }
  int ev;
  MPE_Log_get_solo_eventID (&ev);
  MPE_Describe_event (ev, "tick", "red");
  double r[64], e[64];
  for (int k = 0; k < reps; k++)
    {
      double t0 = bench_thread_cpu_s ();
      for (long i = 0; i < n; i++)
        MPE_Counters_read ();
      double t1 = bench_thread_cpu_s ();
      for (long i = 0; i < n; i++)
        MPE_Log_event (ev, 0, NULL);
      double t2 = bench_thread_cpu_s ();
      r[k] = (t1 - t0) / (double) n * 1e9;
      e[k] = (t2 - t1) / (double) n * 1e9;
    }
  qsort (r, (size_t) reps, sizeof r[0], bench_cmp_double);
  qsort (e, (size_t) reps, sizeof e[0], bench_cmp_double);
  printf ("read_ns %.1f event_ns %.2f\n", r[reps / 2], e[reps / 2]);
  MPE_Finish_log ("/tmp/counters-bench");
  MPI_Finalize ();
  return 0;
}

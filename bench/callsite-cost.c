/* SPDX-License-Identifier: BSD-3-Clause */
/* What call-site capture adds to a wrapped MPI call: MPI_Comm_rank (the
 * cheapest logged call) N times a round through liblmpe; run it with
 * MPE_CALLSITE=off and =caller (and =stack) and compare ns per call
 * (bench/callsite-cost.sh interleaves runs of two builds).  Every call of
 * every round is kept (ROUNDS x N records): the store's growth is part of
 * the cost.  Times are the thread's CPU time (user + system, so the page
 * faults of the record store count), not wall clock: on a loaded machine
 * the wall clock mostly measures the wait for a core.
 * Usage: callsite-cost [N [ROUNDS]]
 * Prints "MODE median MIN_NS MEDIAN_NS" with MODE the MPE_CALLSITE value. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
cpu_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 200000;
  int rounds = argc > 2 ? atoi (argv[2]) : 5;
  int rank = 0;
  if (n < 1 || rounds < 1 || rounds > 1000)
    {
      fprintf (stderr, "usage: callsite-cost [N [ROUNDS]]\n");
      return 2;
    }
  MPI_Init (&argc, &argv);
  double *t = malloc ((size_t) rounds * sizeof *t);
  if (!t)
    return 1;
  for (int round = 0; round < rounds; round++)
    {
      double t0 = cpu_now ();
      for (long i = 0; i < n; i++)
        MPI_Comm_rank (MPI_COMM_WORLD, &rank);
      t[round] = (cpu_now () - t0) / (double) n;
    }
  qsort (t, (size_t) rounds, sizeof *t, cmp_double);
  const char *cs = getenv ("MPE_CALLSITE");
  printf ("%s %.1f %.1f ns CPU per logged MPI_Comm_rank (min, median of "
          "%d rounds x %ld, %ld records kept)\n", cs ? cs : "unset",
          t[0] * 1e9, t[rounds / 2] * 1e9, rounds, n, (long) rounds * n);
  free (t);
  MPI_Finalize ();
  return 0;
}

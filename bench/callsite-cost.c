/* SPDX-License-Identifier: BSD-3-Clause */
/* What call-site capture adds to a wrapped MPI call: MPI_Comm_rank (the
 * cheapest logged call) N times through liblmpe; run it with
 * MPE_CALLSITE=off and =caller (and =stack) and compare ns per call.
 * Usage: callsite-cost [N] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 200000;
  int rank = 0;
  MPI_Init (&argc, &argv);
  double best = 1e30;
  for (int round = 0; round < 5; round++)
    {
      double t0 = now ();
      for (long i = 0; i < n; i++)
        MPI_Comm_rank (MPI_COMM_WORLD, &rank);
      double t = (now () - t0) / (double) n;
      best = t < best ? t : best;
    }
  const char *cs = getenv ("MPE_CALLSITE");
  printf ("MPE_CALLSITE=%s: %.1f ns per logged MPI_Comm_rank (best of 5 x "
          "%ld)\n", cs ? cs : "(unset)", best * 1e9, n);
  MPI_Finalize ();
  return 0;
}

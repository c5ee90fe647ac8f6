/* SPDX-License-Identifier: BSD-3-Clause */
/* Cost of collective checking: loops of small collectives, timed on rank
   0 (max over ranks), printed as "us_per <call> <microseconds>".  Run it
   plain and with libmpe_collchk preloaded (bench/collchk-run.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double
timed (int n, int which, int *a, int *b, int *cnt, int *dsp, int np)
{
  MPI_Barrier (MPI_COMM_WORLD);
  double t0 = MPI_Wtime ();
  for (int i = 0; i < n; i++)
    switch (which)
      {
      case 0: MPI_Barrier (MPI_COMM_WORLD); break;
      case 1: MPI_Bcast (a, 1, MPI_INT, 0, MPI_COMM_WORLD); break;
      case 2: MPI_Allreduce (a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        break;
      case 3: MPI_Alltoallv (a, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT,
                             MPI_COMM_WORLD);
        break;
      case 4:
        {
          MPI_Request r;
          MPI_Iallreduce (a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
          MPI_Wait (&r, MPI_STATUS_IGNORE);
          break;
        }
      }
  double t = (MPI_Wtime () - t0) / n * 1e6, tmax;
  MPI_Reduce (&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  (void) np;
  return tmax;
}

int
main (int argc, char **argv)
{
  static const char *names[] = { "MPI_Barrier", "MPI_Bcast",
                                 "MPI_Allreduce", "MPI_Alltoallv",
                                 "MPI_Iallreduce" };
  int me, np, n = argc > 1 ? atoi (argv[1]) : 20000;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  MPI_Comm_size (MPI_COMM_WORLD, &np);
  int *a = calloc (np, sizeof (int)), *b = calloc (np, sizeof (int));
  int *cnt = malloc (np * sizeof (int)), *dsp = malloc (np * sizeof (int));
  for (int i = 0; i < np; i++)
    {
      cnt[i] = 1;
      dsp[i] = i;
    }
  for (int w = 0; w < 5; w++)
    {
      timed (n / 10 + 1, w, a, b, cnt, dsp, np);   /* warm-up */
      double t = timed (n, w, a, b, cnt, dsp, np);
      if (me == 0)
        printf ("us_per %s %.2f\n", names[w], t);
    }
  MPI_Finalize ();
  return 0;
}

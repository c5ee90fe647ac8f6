/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load for the live monitor's benchmark (bench/monitor-run.sh), linked
 * with liblmpe:
 *   monitor-load compute ITERS   each iteration: a fixed amount of
 *                                arithmetic (about 10 ms), then
 *                                MPI_Allreduce of one int
 *   monitor-load message ITERS   each iteration: 8 bytes to the next rank
 *                                and from the previous (MPI_Sendrecv)
 *   monitor-load message-mt ITERS  the same under MPI_THREAD_MULTIPLE, for
 *                                the monitor's helper thread
 *                                (bench/monitor-shape.sh)
 * Prints "seconds S": rank 0's wall time between two barriers.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double sink;

static void
work (long n)
{
  double x = 1.0;
  for (long i = 0; i < n; i++)
    x = x * 1.0000001 + 1e-9;
  sink += x;
}

int
main (int argc, char **argv)
{
  int provided;
  if (argc == 3 && strcmp (argv[1], "message-mt") == 0)
    MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  else
    MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (argc != 3)
    {
      if (rank == 0)
        fprintf (stderr, "usage: monitor-load compute|message|message-mt "
                 "ITERS\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  int compute = strcmp (argv[1], "compute") == 0;
  long iters = atol (argv[2]);
  MPI_Barrier (MPI_COMM_WORLD);
  double t0 = MPI_Wtime ();
  char out[8] = { 0 }, in[8];
  for (long i = 0; i < iters; i++)
    {
      if (compute)
        {
          int a = 1, b;
          work (10000000);
          MPI_Allreduce (&a, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
      else
        MPI_Sendrecv (out, 8, MPI_BYTE, (rank + 1) % size, 0, in, 8,
                      MPI_BYTE, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
    }
  MPI_Barrier (MPI_COMM_WORLD);
  double t = MPI_Wtime () - t0;
  if (rank == 0)
    printf ("seconds %.6f\n", t);
  MPI_Finalize ();
  return 0;
}

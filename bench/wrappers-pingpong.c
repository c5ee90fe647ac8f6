/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 8-byte ping-pong between ranks 0 and 1, timed on rank 0.  Run it plain
 * and with LD_PRELOAD=liblmpe.so (bench/wrappers-run.sh does both); with
 * MPE_BENCH_PCONTROL=0 in the environment it calls MPI_Pcontrol(0) first.
 *   wrappers-pingpong [round-trips]       prints "ns_per_roundtrip N"
 *   wrappers-pingpong N self              1 rank: N rounds of Irecv,
 *     Send, Wait to itself (3 calls), best of 20 batches; prints
 *     "ns_per_call N".  The same wrapper paths (states, a send and a
 *     tracked receive) without the other rank's scheduling, for loaded
 *     machines.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 1000000;
  int rank, size;
  char buf[8] = { 0 }, rbuf[8];
  const char *pc = getenv ("MPE_BENCH_PCONTROL");

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (pc != NULL)
    MPI_Pcontrol (atoi (pc));
  if (argc > 2 && strcmp (argv[2], "self") == 0)
    {
      double best = 1e30;
      long batch = n / 20 + 1;
      for (int b = 0; b < 21; b++)
        {
          double t0 = MPI_Wtime ();
          for (long i = 0; i < batch; i++)
            {
              MPI_Request rq;
              MPI_Irecv (rbuf, 8, MPI_BYTE, 0, 0, MPI_COMM_SELF, &rq);
              MPI_Send (buf, 8, MPI_BYTE, 0, 0, MPI_COMM_SELF);
              MPI_Wait (&rq, MPI_STATUS_IGNORE);
            }
          double t = (MPI_Wtime () - t0) * 1e9 / (3.0 * (double) batch);
          if (b > 0 && t < best)  /* batch 0 warms up */
            best = t;
        }
      if (rank == 0)
        printf ("ns_per_call %.1f\n", best);
      MPI_Pcontrol (1);
      MPI_Finalize ();
      return 0;
    }
  if (size != 2)
    {
      if (rank == 0)
        fprintf (stderr, "wrappers-pingpong: run on exactly 2 ranks\n");
      MPI_Finalize ();
      return 1;
    }
  for (int warm = 0; warm < 2; warm++)
    {
      long iters = warm == 0 ? n / 10 + 1 : n;
      MPI_Barrier (MPI_COMM_WORLD);
      double t0 = MPI_Wtime ();
      for (long i = 0; i < iters; i++)
        {
          if (rank == 0)
            {
              MPI_Send (buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
              MPI_Recv (buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE);
            }
          else
            {
              MPI_Recv (buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE);
              MPI_Send (buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
      double t1 = MPI_Wtime ();
      if (warm == 1 && rank == 0)
        printf ("ns_per_roundtrip %.1f\n", (t1 - t0) * 1e9 / (double) iters);
    }
  MPI_Pcontrol (1);
  MPI_Finalize ();
  return 0;
}

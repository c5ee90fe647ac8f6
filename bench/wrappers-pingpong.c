/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 8-byte ping-pong between ranks 0 and 1, timed on rank 0.  Run it plain
 * and with LD_PRELOAD=liblmpe.so (bench/wrappers-run.sh does both); with
 * MPE_BENCH_PCONTROL=0 in the environment it calls MPI_Pcontrol(0) first.
 *   wrappers-pingpong [round-trips]     prints "ns_per_roundtrip N"
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 1000000;
  int rank, size;
  char buf[8] = { 0 };
  const char *pc = getenv ("MPE_BENCH_PCONTROL");

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size != 2)
    {
      if (rank == 0)
        fprintf (stderr, "wrappers-pingpong: run on exactly 2 ranks\n");
      MPI_Finalize ();
      return 1;
    }
  if (pc != NULL)
    MPI_Pcontrol (atoi (pc));
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

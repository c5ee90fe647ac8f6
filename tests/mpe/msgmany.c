/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * msgmany N: a cheap source of many logged messages.  Rank 0 logs N sends
 * to rank 1 (MPE_Log_send, tags 0-3 in turn, no real message), then sends
 * rank 1 one real message; rank 1 waits for it and logs the N receives,
 * so every receive comes after its send by construction.  Writes
 * msgmany.clog.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include "mpe.h"

int
main (int argc, char **argv)
{
  int rank, size, token = 0;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  long n = argc > 1 ? atol (argv[1]) : 0;
  if (size < 2 || n <= 0)
    {
      if (rank == 0)
        fprintf (stderr, "usage: msgmany N (2 ranks or more)\n");
      MPI_Finalize ();
      return 2;
    }
  MPE_Init_log ();
  if (rank == 0)
    {
      for (long i = 0; i < n; i++)
        MPE_Log_send (1, (int) (i & 3), 8);
      MPI_Send (&token, 1, MPI_INT, 1, 99, MPI_COMM_WORLD);
    }
  else if (rank == 1)
    {
      MPI_Recv (&token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (long i = 0; i < n; i++)
        MPE_Log_receive (0, (int) (i & 3), 8);
    }
  int rc = MPE_Finish_log ("msgmany");
  MPI_Finalize ();
  return rc == 0 ? 0 : 1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI programs whose wait states are known by construction, logged by
 * liblmpe, for clogtool waits (waits.sh).  A state "Compute" (a sleep
 * of D ms) makes one side late; "Setup" (1 ms) runs everywhere.
 * Usage: waits-prog MODE D (4 ranks or more), MODE one of
 *   latesender    3 x: rank 1 computes, then MPI_Send to rank 0, which
 *                 is already in MPI_Recv
 *   latereceiver  3 x: rank 0 MPI_Ssend to rank 1, which computes first
 *   allreduce     3 x: every rank Setup, rank 3 also computes; Allreduce
 *   bcast         3 x: the root (0) computes, then MPI_Bcast
 *   reduce        3 x: every rank but the root (0) computes; MPI_Reduce
 *   waitall       3 x: rank 1 computes, then MPI_Isend to rank 0, which
 *                 posted MPI_Irecv and is already in MPI_Waitall
 *   wrongorder    3 x: after a barrier, rank 1 sends tag 1, computes,
 *                 sends tag 2; rank 0 sets up for D/2 ms, then receives
 *                 tag 2 before tag 1
 *   chain         3 x: rank 3 computes, then sends to rank 2, which
 *                 receives, then sends to rank 1 (waiting in MPI_Recv);
 *                 then a barrier */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpe.h"

static int rank, compute_a, compute_b, setup_a, setup_b;

static void
sleep_ms (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) != 0)
    ;
}

static void
compute (long ms)
{
  MPE_Log_bare_event (compute_a);
  sleep_ms (ms);
  MPE_Log_bare_event (compute_b);
}

static void
setup (long ms)
{
  MPE_Log_bare_event (setup_a);
  sleep_ms (ms);
  MPE_Log_bare_event (setup_b);
}

int
main (int argc, char **argv)
{
  int size, x = 1, y = 0;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  const char *mode = argc > 2 ? argv[1] : "";
  long d = argc > 2 ? atol (argv[2]) : 0;
  if (size < 4 || d <= 0)
    {
      if (rank == 0)
        fprintf (stderr, "waits-prog: MODE D on 4 ranks or more\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  MPE_Log_get_state_eventIDs (&compute_a, &compute_b);
  MPE_Describe_state (compute_a, compute_b, "Compute", "red");
  MPE_Log_get_state_eventIDs (&setup_a, &setup_b);
  MPE_Describe_state (setup_a, setup_b, "Setup", "green");
  for (int it = 0; it < 3; it++)
    {
      if (strcmp (mode, "latesender") == 0)
        {
          if (rank == 1)
            {
              compute (d);
              MPI_Send (&x, 1, MPI_INT, 0, it, MPI_COMM_WORLD);
            }
          else if (rank == 0)
            MPI_Recv (&y, 1, MPI_INT, 1, it, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
        }
      else if (strcmp (mode, "latereceiver") == 0)
        {
          if (rank == 0)
            MPI_Ssend (&x, 1, MPI_INT, 1, it, MPI_COMM_WORLD);
          else if (rank == 1)
            {
              compute (d);
              MPI_Recv (&y, 1, MPI_INT, 0, it, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE);
            }
        }
      else if (strcmp (mode, "allreduce") == 0)
        {
          setup (1);
          if (rank == 3)
            compute (d);
          MPI_Allreduce (&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
      else if (strcmp (mode, "bcast") == 0)
        {
          if (rank == 0)
            compute (d);
          MPI_Bcast (&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
      else if (strcmp (mode, "reduce") == 0)
        {
          if (rank != 0)
            compute (d);
          MPI_Reduce (&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        }
      else if (strcmp (mode, "waitall") == 0)
        {
          MPI_Request rq;
          MPI_Status st;
          if (rank == 1)
            {
              compute (d);
              MPI_Isend (&x, 1, MPI_INT, 0, it, MPI_COMM_WORLD, &rq);
              MPI_Waitall (1, &rq, &st);
            }
          else if (rank == 0)
            {
              MPI_Irecv (&y, 1, MPI_INT, 1, it, MPI_COMM_WORLD, &rq);
              MPI_Waitall (1, &rq, &st);
            }
        }
      else if (strcmp (mode, "wrongorder") == 0)
        {
          /* Both start the round together: the first send is on its
           * way long before rank 0 has set up. */
          MPI_Barrier (MPI_COMM_WORLD);
          if (rank == 1)
            {
              MPI_Send (&x, 1, MPI_INT, 0, 2 * it + 1, MPI_COMM_WORLD);
              compute (d);
              MPI_Send (&x, 1, MPI_INT, 0, 2 * it + 2, MPI_COMM_WORLD);
            }
          else if (rank == 0)
            {
              setup (d / 2);
              MPI_Recv (&y, 1, MPI_INT, 1, 2 * it + 2, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE);
              MPI_Recv (&y, 1, MPI_INT, 1, 2 * it + 1, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE);
            }
        }
      else if (strcmp (mode, "chain") == 0)
        {
          if (rank == 3)
            {
              compute (d);
              MPI_Send (&x, 1, MPI_INT, 2, it, MPI_COMM_WORLD);
            }
          else if (rank == 2)
            {
              MPI_Recv (&y, 1, MPI_INT, 3, it, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE);
              MPI_Send (&x, 1, MPI_INT, 1, it, MPI_COMM_WORLD);
            }
          else if (rank == 1)
            MPI_Recv (&y, 1, MPI_INT, 2, it, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
        }
      else
        {
          if (rank == 0)
            fprintf (stderr, "waits-prog: unknown mode '%s'\n", mode);
          MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
  /* The chain ends together: the critical path crosses to rank 1. */
  if (strcmp (mode, "chain") == 0)
    MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}

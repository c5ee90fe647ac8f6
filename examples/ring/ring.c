/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring: passes a token around all ranks several times; every send and
 * receive is logged, so the viewer draws one arrow per hop.
 *
 *   mpiexec -n 4 ./ring [prefix] [laps]   -> prefix.clog (default ring)
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include "mpe.h"

int
main (int argc, char **argv)
{
  int rank, size;
  const char *prefix = argc > 1 ? argv[1] : "ring";
  int laps = argc > 2 ? atoi (argv[2]) : 10;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  MPE_Init_log ();

  int wait_a, wait_b, hop;
  MPE_Log_get_state_eventIDs (&wait_a, &wait_b);
  MPE_Log_get_solo_eventID (&hop);
  if (rank == 0)
    {
      MPE_Describe_state (wait_a, wait_b, "Wait for token", "orange");
      MPE_Describe_info_event (hop, "Token", "purple", "value %d");
    }

  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int token = 0;
  for (int lap = 0; lap < laps; lap++)
    {
      if (rank == 0)
        {
          token++;
          MPE_Log_send (next, lap, (int) sizeof token);
          MPI_Send (&token, 1, MPI_INT, next, lap, MPI_COMM_WORLD);
          MPE_Log_event (wait_a, 0, NULL);
          MPI_Recv (&token, 1, MPI_INT, prev, lap, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
          MPE_Log_receive (prev, lap, (int) sizeof token);
          MPE_Log_event (wait_b, 0, NULL);
        }
      else
        {
          MPE_Log_event (wait_a, 0, NULL);
          MPI_Recv (&token, 1, MPI_INT, prev, lap, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
          MPE_Log_receive (prev, lap, (int) sizeof token);
          MPE_Log_event (wait_b, 0, NULL);
          MPE_LOG_BYTES cargo;
          int pos = 0;
          MPE_Log_pack (cargo, &pos, 'd', 1, &token);
          MPE_Log_event (hop, 0, cargo);
          MPE_Log_send (next, lap, (int) sizeof token);
          MPI_Send (&token, 1, MPI_INT, next, lap, MPI_COMM_WORLD);
        }
    }
  if (rank == 0)
    printf ("token went %d times around %d ranks\n", laps, size);
  MPE_Finish_log (prefix);
  MPI_Finalize ();
  return 0;
}

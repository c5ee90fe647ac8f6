/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A logged 8-byte ping-pong between ranks 0 and 1 (and 2 and 3, ...: each
 * even rank with the next), for the clock's drift: each message's send is logged before MPI_Send and its
 * receive after MPI_Recv, so in the merged log every one-way latency is
 * at least 0 and, the messages following each other, the latencies of a
 * stretch of the run sum to at most its length, whatever the load.
 *   clock-pingpong ROUNDS|SECONDs [PREFIX [kill]]
 * ROUNDS round trips (2000), or as many as fit in SECONDS ("10s"); the
 * log is PREFIX.clog (clock-pingpong).  kill: every rank SIGKILLs itself
 * at the end instead of finishing the log (its local files stay, for
 * clogtool recover).  A last odd rank only takes part in the finish.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe.h"

enum { TAG = 7 };

int
main (int argc, char **argv)
{
  const char *arg = argc > 1 ? argv[1] : "2000";
  const char *prefix = argc > 2 ? argv[2] : "clock-pingpong";
  int die = argc > 3 && strcmp (argv[3], "kill") == 0;
  char *end;
  double n = strtod (arg, &end);
  int timed = *end == 's';
  int rank, size;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (size < 2 || n <= 0 || (*end && !timed))
    {
      if (rank == 0)
        fprintf (stderr, "usage: clock-pingpong ROUNDS|SECONDs [PREFIX "
                 "[kill]] on 2 or more ranks\n");
      MPI_Finalize ();
      return 1;
    }
  MPE_Init_log ();
  MPI_Barrier (MPI_COMM_WORLD);
  double t0 = MPI_Wtime ();
  /* buf[0]: 1 while the ping-pong goes on (the even rank decides). */
  long buf[1] = { 1 };
  int peer = rank ^ 1;
  for (long i = 0; peer < size && buf[0]; i++)
    {
      if (rank % 2 == 0)
        {
          buf[0] = timed ? MPI_Wtime () - t0 < n : i + 1 < (long) n;
          MPE_Log_send (peer, TAG, sizeof buf);
          MPI_Send (buf, 1, MPI_LONG, peer, TAG, MPI_COMM_WORLD);
          MPI_Recv (buf, 1, MPI_LONG, peer, TAG, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
          MPE_Log_receive (peer, TAG, sizeof buf);
        }
      else
        {
          MPI_Recv (buf, 1, MPI_LONG, peer, TAG, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
          MPE_Log_receive (peer, TAG, sizeof buf);
          MPE_Log_send (peer, TAG, sizeof buf);
          MPI_Send (buf, 1, MPI_LONG, peer, TAG, MPI_COMM_WORLD);
        }
    }
  MPI_Barrier (MPI_COMM_WORLD);
  if (die)
    raise (SIGKILL);
  MPE_Finish_log (prefix);
  MPI_Finalize ();
  return 0;
}

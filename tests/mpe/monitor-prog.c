/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A job for the live monitor's tests: STEPS steps; in each, rank r logs
 * r + 1 solo events, then all ranks meet in MPI_Barrier and sleep 2 ms.
 * So between two barriers rank r's record count grows by r + 3 (its
 * events and the barrier's begin and end).  "compute" makes rank 1 spin
 * for 2 s without MPI halfway through ("compute-mt": the same under
 * MPI_THREAD_MULTIPLE).  Aborts when MPI_Query_thread does not give the
 * level the program asked for.
 */
#include <mpi.h>
#include <mpe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile double spin;   /* the computation nobody reads */

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
  int provided;
  /* "compute-mt" and "still": MPI_THREAD_MULTIPLE, for the monitor's
     helper thread. */
  if (argc == 3 && (strcmp (argv[1], "compute-mt") == 0
                    || strcmp (argv[1], "still") == 0))
    MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  else
    MPI_Init (&argc, &argv);
  if (argc != 3)
    {
      fprintf (stderr, "usage: monitor-prog steady|compute|compute-mt "
               "STEPS | still MS\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  /* The program sees the thread level it asked for, even where the
     wrappers asked MPI for more on the monitor's behalf. */
  int level, want = strcmp (argv[1], "compute-mt") == 0
                    || strcmp (argv[1], "still") == 0
                    ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
  MPI_Query_thread (&level);
  if (level != want)
    {
      fprintf (stderr, "monitor-prog: MPI_Query_thread says %d, the "
               "program asked for %d\n", level, want);
      MPI_Abort (MPI_COMM_WORLD, 3);
    }
  int compute = strncmp (argv[1], "compute", 7) == 0;
  int steps = atoi (argv[2]), rank;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  int ev;
  MPE_Log_get_solo_eventID (&ev);
  MPE_Describe_event (ev, "tick", "yellow");
  if (strcmp (argv[1], "still") == 0)
    {
      /* Rank r logs 10 (r + 1) events more than rank 0, then every rank
         sleeps MS ms outside MPI: the helper threads answer with values
         that no longer change, so aggregates can be checked exactly. */
      for (int k = 0; k < 10 * (rank + 1); k++)
        MPE_Log_event (ev, k, NULL);
      MPI_Barrier (MPI_COMM_WORLD);
      usleep ((useconds_t) steps * 1000);
      MPI_Barrier (MPI_COMM_WORLD);
      MPI_Finalize ();
      return 0;
    }
  for (int i = 0; i < steps; i++)
    {
      for (int k = 0; k <= rank; k++)
        MPE_Log_event (ev, i, NULL);
      MPI_Barrier (MPI_COMM_WORLD);
      usleep (2000);
      if (compute && rank == 1 && i == steps / 2)
        {
          double t0 = now ();
          while (now () - t0 < 2.0)
            spin += 1;
        }
    }
  MPI_Finalize ();
  return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * logmany N [THREADS] [CRASH_RANK] [SIGNAL] [DELAY_MS] [BLOCK] [RELOG]: each
 * thread of each rank logs N "Work" states (2N events, ids 600/601) and
 * one ring message on world; CRASH_RANK (if >= 0) then kills itself with
 * SIGNAL (default SIGSEGV), DELAY_MS after the others went on to finish,
 * instead of finishing.  BLOCK = 1: the others do not go on to finish but
 * wait in MPI_Recv for a message from CRASH_RANK that never comes.
 * RELOG = 1: first a whole log of N states on the main thread, written to
 * logmany-first.clog, then MPE_Init_log again and the above.
 * LOGMANY_RANK1_N in the environment: rank 1's threads log that many
 * states instead of N (a rank whose part of the log is the larger);
 * LOGMANY_LATE_MS: the last rank sleeps that long before MPE_Finish_log
 * (the others wait for it there).
 * Writes logmany.clog and prints "rank R: MPE_Finish_log RC" on stdout.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <mpi.h>
#include "mpe.h"

static long n;
static int a, b;

static void *
work (void *arg)
{
  (void) arg;
  for (long i = 0; i < n; i++)
    {
      MPE_Log_bare_event (a);
      MPE_Log_bare_event (b);
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  int rank, size, provided;
  n = argc > 1 ? atol (argv[1]) : 1000;
  int nthreads = argc > 2 ? atoi (argv[2]) : 1;
  int crash = argc > 3 ? atoi (argv[3]) : -1;
  int sig = argc > 4 ? atoi (argv[4]) : SIGSEGV;
  int delay_ms = argc > 5 ? atoi (argv[5]) : 0;
  int block = argc > 6 ? atoi (argv[6]) : 0;
  int relog = argc > 7 ? atoi (argv[7]) : 0;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  const char *n1 = getenv ("LOGMANY_RANK1_N");
  if (rank == 1 && n1 && *n1)
    n = atol (n1);
  MPE_Init_log ();
  MPE_Log_get_state_eventIDs (&a, &b);
  if (rank == 0)
    MPE_Describe_state (a, b, "Work", "blue");
  if (relog)
    {
      work (NULL);
      MPE_Finish_log ("logmany-first");
      MPE_Init_log ();
      if (rank == 0)
        MPE_Describe_state (a, b, "Work", "blue");
    }
  if (nthreads <= 1)
    work (NULL);
  else
    {
      pthread_t t[64];
      for (int i = 0; i < nthreads && i < 64; i++)
        pthread_create (&t[i], NULL, work, NULL);
      for (int i = 0; i < nthreads && i < 64; i++)
        pthread_join (t[i], NULL);
    }
  int next = (rank + 1) % size, prev = (rank + size - 1) % size, v = rank;
  MPE_Log_send (next, 7, 4);
  MPI_Sendrecv_replace (&v, 1, MPI_INT, next, 7, prev, 7, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE);
  MPE_Log_receive (prev, 7, 4);
  if (rank == crash)
    {
      fflush (stdout);
      if (delay_ms > 0)
        usleep ((useconds_t) delay_ms * 1000);
      raise (sig);
      _exit (99);
    }
  if (block && crash >= 0)
    MPI_Recv (&v, 1, MPI_INT, crash, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  const char *late = getenv ("LOGMANY_LATE_MS");
  if (rank == size - 1 && late && atoi (late) > 0)
    usleep ((useconds_t) atoi (late) * 1000);
  int rc = MPE_Finish_log ("logmany");
  printf ("rank %d: MPE_Finish_log %d\n", rank, rc);
  MPI_Finalize ();
  return 0;
}

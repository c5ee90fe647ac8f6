/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wrapcrash MODE N: a program logged by the wrappers alone (liblmpe, no
 * MPE call).  Rank 0 sends N messages to rank 1 with MPI_Send (tag 7),
 * rank 1 receives them with MPI_Recv; then a barrier, an
 * MPI_Isend/MPI_Irecv/MPI_Waitall exchange and MPI_Allreduce.  Then by
 * MODE:
 *   finish  MPI_Finalize (the log is written);
 *   kill    rank 1 raises SIGKILL, the others wait in MPI_Recv for it;
 *   term    rank 1 raises SIGTERM, the others wait as for kill;
 *   abort   rank 1 calls MPI_Abort (exit code 3), the others wait;
 *   hold    every rank waits, until the job is stopped from outside.
 * WRAPCRASH_SPIN_MS in the environment: every rank first loops busily
 * that long (CPU time for MPE_COUNTERS=task-clock).
 * Prints "rank R: sent|received N" on stdout before the end.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

int
main (int argc, char **argv)
{
  int rank, size, x = 0, y = 0;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (argc < 3 || size < 2)
    {
      if (rank == 0)
        fprintf (stderr, "usage: wrapcrash finish|kill|term|abort N "
                 "(2 ranks or more)\n");
      MPI_Finalize ();
      return 2;
    }
  const char *mode = argv[1];
  long n = atol (argv[2]);
  const char *spin = getenv ("WRAPCRASH_SPIN_MS");
  if (spin && atol (spin) > 0)
    {
      struct timespec a, b;
      clock_gettime (CLOCK_THREAD_CPUTIME_ID, &a);
      static volatile unsigned long sink;   /* the work nobody reads */
      do
        {
          for (int i = 0; i < 100000; i++)
            sink = sink + (unsigned long) i;
          clock_gettime (CLOCK_THREAD_CPUTIME_ID, &b);
        }
      while ((b.tv_sec - a.tv_sec) * 1000L + (b.tv_nsec - a.tv_nsec) / 1000000L
             < atol (spin));
    }
  for (long i = 0; i < n; i++)
    if (rank == 0)
      MPI_Send (&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    else if (rank == 1)
      MPI_Recv (&y, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Request rq[2];
  MPI_Status st[2];
  int peer = rank ^ 1;
  if (peer < size)
    {
      MPI_Irecv (&y, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &rq[0]);
      MPI_Isend (&x, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &rq[1]);
      MPI_Waitall (2, rq, st);
    }
  MPI_Allreduce (&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf ("rank %d: %s %ld\n", rank, rank == 0 ? "sent" : "received",
          rank < 2 ? n : 0L);
  fflush (stdout);
  if (strcmp (mode, "finish") != 0)
    {
      if (rank == 1)
        {
          if (!strcmp (mode, "kill"))
            raise (SIGKILL);
          else if (!strcmp (mode, "term"))
            raise (SIGTERM);
          else if (!strcmp (mode, "abort"))
            MPI_Abort (MPI_COMM_WORLD, 3);
        }
      /* Waits for a message that never comes, until the launcher ends
         the job. */
      MPI_Recv (&y, 1, MPI_INT, rank == 1 ? 0 : 1, 9, MPI_COMM_WORLD,
                MPI_STATUS_IGNORE);
    }
  MPI_Finalize ();
  return 0;
}

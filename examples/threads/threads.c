/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * threads: under MPI_THREAD_MULTIPLE, several threads per rank log states
 * at the same time (each thread gets its own timeline), and each worker
 * thread exchanges a message with the same thread on the next rank.
 *
 *   mpiexec -n 2 ./threads [prefix] [threads] [iterations]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include "mpe.h"

static int work_a, work_b, iters, rank, size;

static void *
worker (void *arg)
{
  int id = (int) (long) arg;
  volatile double x = 0;
  for (int i = 0; i < iters; i++)
    {
      MPE_Log_event (work_a, 0, NULL);
      for (int k = 0; k < 200; k++)
        x += k * 0.5;
      MPE_Log_event (work_b, 0, NULL);
    }
  (void) x;   /* the busy work's result is not needed */
  /* One message per thread around the ring, tag = thread number. */
  int next = (rank + 1) % size, prev = (rank + size - 1) % size, v = id;
  MPI_Request rq;
  MPI_Irecv (&v, 1, MPI_INT, prev, id, MPI_COMM_WORLD, &rq);
  MPE_Log_send (next, id, (int) sizeof v);
  MPI_Send (&id, 1, MPI_INT, next, id, MPI_COMM_WORLD);
  MPI_Wait (&rq, MPI_STATUS_IGNORE);
  MPE_Log_receive (prev, id, (int) sizeof v);
  return NULL;
}

int
main (int argc, char **argv)
{
  const char *prefix = argc > 1 ? argv[1] : "threads";
  int nthreads = argc > 2 ? atoi (argv[2]) : 4;
  iters = argc > 3 ? atoi (argv[3]) : 1000;
  int provided;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE)
    {
      fprintf (stderr, "threads: MPI_THREAD_MULTIPLE is not available\n");
      MPI_Abort (MPI_COMM_WORLD, 1);
    }
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  MPE_Init_log ();
  MPE_Log_get_state_eventIDs (&work_a, &work_b);
  if (rank == 0)
    MPE_Describe_state (work_a, work_b, "Work", "SteelBlue");

  pthread_t *t = calloc ((size_t) nthreads, sizeof *t);
  for (int i = 0; i < nthreads; i++)
    pthread_create (&t[i], NULL, worker, (void *) (long) (i + 1));
  for (int i = 0; i < nthreads; i++)
    pthread_join (t[i], NULL);
  free (t);
  if (rank == 0)
    printf ("%d threads x %d iterations per rank\n", nthreads, iters);
  MPE_Finish_log (prefix);
  MPI_Finalize ();
  return 0;
}

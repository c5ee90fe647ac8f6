/* SPDX-License-Identifier: BSD-3-Clause */
/* A thread whose hot function sets up no frame pointer: built with frame
 * pointers but -momit-leaf-frame-pointer, light_kernel is a leaf without
 * a frame, so at its samples rbp still holds worker's frame and a
 * frame-pointer walk goes from light_kernel straight to worker's caller
 * (start_thread), losing worker.  The thread logs a state around its
 * work (a logged thread is sampled) and calls no MPI.
 * Usage: leaf MS (the worker's CPU time, spun in light_kernel). */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "mpe.h"

static int st[2];
static double ms;
static volatile long iters = 200000;   /* not a constant: no clone of
                                          light_kernel for it */

static double
cpu_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* A leaf: no call, so no frame of its own. */
static double __attribute__ ((noinline))
light_kernel (double x, long n)
{
  for (long i = 0; i < n; i++)
    x = x * 1.0000001 + 1e-9;
  return x;
}

/* Not a tail call: the sum is used after each call. */
static void *__attribute__ ((noinline))
worker (void *arg)
{
  volatile double sum = 0;
  MPE_Log_event (st[0], 0, NULL);
  double end = cpu_s () + ms * 1e-3;
  while (cpu_s () < end)
    sum += light_kernel (sum, iters);
  MPE_Log_event (st[1], 0, NULL);
  return arg;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  ms = argc > 1 ? atof (argv[1]) : 300;
  MPE_Log_get_state_eventIDs (&st[0], &st[1]);
  MPE_Describe_state (st[0], st[1], "Work", "red");
  pthread_t th;
  pthread_create (&th, NULL, worker, NULL);
  pthread_join (th, NULL);
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}

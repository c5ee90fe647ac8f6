/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One call site, two threads in turn (tests/mpe/memory-threads.sh, with
 * MPE_MEMORY=1 and LD_PRELOAD=libmpe_memory.so): alloc_turn holds
 * 4,000,000 bytes on the first thread for 60 ms and frees them, then
 * 2,000,000 on the second: never more than 4,000,000 live at once,
 * though the threads' own peaks add up to 6,000,000.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpe.h"

#if defined __clang__
#define NOINLINE __attribute__ ((noinline))
#else
#define NOINLINE __attribute__ ((noinline, noclone))
#endif

static void *volatile keep;
static int ev;

static NOINLINE void
alloc_turn (size_t bytes)
{
  char *p = malloc (bytes);
  keep = p;
  memset (p, 1, bytes);
  struct timespec ts = { 0, 60 * 1000000L };
  nanosleep (&ts, NULL);
  free (p);
}

static void *
turn (void *arg)
{
  MPE_Log_event (ev, 0, NULL);   /* a logged thread */
  alloc_turn ((size_t) (uintptr_t) arg);
  return NULL;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  MPE_Init_log ();
  MPE_Log_get_solo_eventID (&ev);
  MPE_Describe_event (ev, "turn", "red");
  pthread_t t;
  pthread_create (&t, NULL, turn, (void *) (uintptr_t) 4000000);
  pthread_join (t, NULL);
  pthread_create (&t, NULL, turn, (void *) (uintptr_t) 2000000);
  pthread_join (t, NULL);
  MPE_Finish_log ("mt");
  MPI_Finalize ();
  return 0;
}

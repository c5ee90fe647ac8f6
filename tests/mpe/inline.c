/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * inline N: the calls whose bare events mpe_log.h writes at the call site
 * (x86-64), built twice by the tests: as is (inline-check) and with
 * MPE_NO_INLINE_CHECK (inline-call), so that both ways must give the same
 * log.  Each rank's main thread and one more thread log N "Inline" states
 * (MPE_Log_event without bytebuf, then MPE_Log_bare_event), around a
 * "Mark" event with a bytebuf; events while the log is stopped (on both
 * threads: the second one's stopped by the first), which must not
 * appear; then, after MPE_Metric_sample_on ("Mark" is chosen),
 * N more states and N "Mark" events without bytebuf, each after an
 * addition to the cell "inline.marks", so that each must take a sample
 * of it (run with MPE_METRIC_PERIOD=0: no other samples).  Prints "rank R: rc ..." for the calls' return
 * codes before MPE_Init_log, while stopped and after the finish.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include "mpe.h"
#include "mpe_metrics.h"

static long n;
static int s0, s1, mark, cell;
static const MPE_LOG_BYTES half = "half";   /* a whole bytebuf */

static void
states (long count)
{
  for (long i = 0; i < count; i++)
    {
      MPE_Log_event (s0, 0, NULL);
      if (i == count / 2)
        MPE_Log_event (mark, 0, half);
      MPE_Log_bare_event (s1);
    }
}

/* The second thread logs its states, then, while the main thread has
 * the log stopped, events that must not appear: its call site's gate,
 * open before, must be closed by another thread's MPE_Stop_log. */
static pthread_barrier_t stop_bar;
static int stopped_rc;

static void *
work (void *arg)
{
  (void) arg;
  states (n);
  pthread_barrier_wait (&stop_bar);   /* both threads' states logged */
  pthread_barrier_wait (&stop_bar);   /* the log is stopped */
  for (int i = 0; i < 1000; i++)
    stopped_rc |= MPE_Log_event (s0, 0, NULL) | MPE_Log_bare_event (s1);
  pthread_barrier_wait (&stop_bar);
  return NULL;
}

int
main (int argc, char **argv)
{
  int rank, provided;
  n = argc > 1 ? atol (argv[1]) : 1000;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  int before = MPE_Log_event (1, 0, NULL), before_bare = MPE_Log_bare_event (1);
  MPE_Init_log ();
  MPE_Metric_define ("inline.marks", "1", &cell);
  MPE_Log_get_state_eventIDs (&s0, &s1);
  MPE_Log_get_solo_eventID (&mark);
  if (rank == 0)
    {
      MPE_Describe_state (s0, s1, "Inline", "red");
      MPE_Describe_info_event (mark, "Mark", "blue", "%s");
    }
  pthread_t t;
  pthread_barrier_init (&stop_bar, NULL, 2);
  pthread_create (&t, NULL, work, NULL);
  states (n);
  pthread_barrier_wait (&stop_bar);
  MPE_Stop_log ();
  pthread_barrier_wait (&stop_bar);
  int stopped = 0;
  for (int i = 0; i < 1000; i++)
    stopped |= MPE_Log_event (s0, 0, NULL) | MPE_Log_bare_event (s1);
  pthread_barrier_wait (&stop_bar);
  pthread_join (t, NULL);
  stopped |= stopped_rc;
  MPE_Start_log ();
  MPE_Metric_sample_on (mark);
  states (n);
  for (long i = 0; i < n; i++)
    {
      MPE_Metric_add (cell, 1);
      MPE_Log_bare_event (mark);
    }
  MPE_Finish_log ("inline");
  int after = MPE_Log_event (s0, 0, NULL);
  printf ("rank %d: rc %d %d %d %d\n", rank, before, before_bare, stopped,
          after);
  MPI_Finalize ();
  return 0;
}

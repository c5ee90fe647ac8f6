/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * metricrash [SIGNAL]: each rank defines three metrics (a counter "work",
 * a level "depth", a timer "busy"), moves them to known values (work =
 * 10 * (rank + 1), depth = rank + 3, busy = about 2 ms), takes a sample
 * and kills itself with SIGNAL (default SIGKILL: no handler runs) instead
 * of finishing: `clogtool recover` must give a log whose samples have
 * their names (tests/mpe/metrics-recover.sh).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>
#include "mpe.h"
#include "mpe_metrics.h"

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
  int rank, work, depth, busy;
  int sig = argc > 1 ? atoi (argv[1]) : SIGKILL;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPE_Init_log ();
  if (MPE_Metric_define ("work", "1", &work) != MPE_LOG_OK
      || MPE_Metric_define ("depth", "1", &depth) != MPE_LOG_OK
      || MPE_Metric_define ("busy", "ns", &busy) != MPE_LOG_OK)
    {
      fprintf (stderr, "rank %d: MPE_Metric_define failed\n", rank);
      MPI_Abort (MPI_COMM_WORLD, 1);
    }
  for (int i = 0; i < 10; i++)
    MPE_Metric_add (work, rank + 1);
  MPE_Metric_set (depth, rank + 7);
  MPE_Metric_sub (depth, 4);
  MPE_Metric_timer_start (busy);
  double t0 = now ();
  while (now () - t0 < 0.002)
    ;
  MPE_Metric_timer_stop (busy);
  MPE_Metric_sample ();
  printf ("rank %d: work %lld depth %lld busy %lld\n", rank,
          MPE_Metric_read (work), MPE_Metric_read (depth),
          MPE_Metric_read (busy));
  fflush (stdout);
  MPI_Barrier (MPI_COMM_WORLD);
  raise (sig);
  _exit (99);
}

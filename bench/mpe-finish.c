/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cost of MPE_Finish_log: every rank logs N events (state pairs, plus a
 * ring message every 1000 events, received after a barrier), then rank 0 times MPE_Finish_log from a
 * barrier to its return and reports its peak RSS growth during it.
 *
 *   mpiexec -n R mpe-finish [N] [OUTPREFIX]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#include "mpe.h"

static long
rss_kb (const char *key)
{
  FILE *f = fopen ("/proc/self/status", "r");
  char line[256];
  long v = -1;
  while (f && fgets (line, sizeof line, f))
    if (!strncmp (line, key, strlen (key)))
      v = atol (line + strlen (key));
  if (f)
    fclose (f);
  return v;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 1000000;
  const char *prefix = argc > 2 ? argv[2] : "/tmp/mpe-bench-finish";
  int rank, size;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  MPE_Init_log ();
  int a, b;
  MPE_Log_get_state_eventIDs (&a, &b);
  if (rank == 0)
    MPE_Describe_state (a, b, "Work", "blue");
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (long i = 0; i < n / 2; i++)
    {
      MPE_Log_bare_event (a);
      MPE_Log_bare_event (b);
      if (i % 500 == 0)
        MPE_Log_send (next, 1, 8);
    }
  /* The receives after a barrier, so the arrows are causal. */
  MPI_Barrier (MPI_COMM_WORLD);
  for (long i = 0; i < n / 2; i += 500)
    MPE_Log_receive (prev, 1, 8);
  MPI_Barrier (MPI_COMM_WORLD);
  long before = rss_kb ("VmRSS:");
  double t0 = MPI_Wtime ();
  MPE_Finish_log (prefix);
  double t = MPI_Wtime () - t0;
  long hwm = rss_kb ("VmHWM:");
  if (rank == 0)
    printf ("mpe-finish: %d ranks x %ld events: MPE_Finish_log %.3f s "
            "(rank 0 RSS %ld MB before, peak %ld MB)\n", size, n, t,
            before / 1024, hwm / 1024);
  MPI_Finalize ();
  return 0;
}

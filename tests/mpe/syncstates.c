/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncstates N: each rank logs N "Step" states, with a clock sync in the
 * middle (so the merge interpolates over two segments), and no message
 * (so the merge never shifts a rank).  Writes syncstates.clog.  With
 * MPE_DELETE_LOCALFILE=no its local files rebuild the same log.
 */
#include <stdlib.h>

#include <mpi.h>
#include "mpe.h"

int
main (int argc, char **argv)
{
  long n = 1000;
  MPI_Init (&argc, &argv);
  if (argc > 1)
    n = atol (argv[1]);
  int a, b;
  MPE_Init_log ();
  MPE_Log_get_state_eventIDs (&a, &b);
  MPE_Describe_state (a, b, "Step", "green");
  for (long i = 0; i < n; i++)
    {
      if (i == n / 2)
        MPE_Log_sync_clocks ();
      MPE_Log_bare_event (a);
      for (volatile int k = 0; k < 200; k++)
        ;
      MPE_Log_bare_event (b);
    }
  MPE_Finish_log ("syncstates");
  MPI_Finalize ();
  return 0;
}

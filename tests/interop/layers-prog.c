/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small MPI program for the export tests (tests/interop/export-layers.sh),
 * run with every layer on: rounds of compute in a user state "Compute"
 * whose info text differs per instance, an MPI_Allreduce, a ring of
 * MPI_Sendrecv, and heap allocations; MPE_Log_send/receive arrows logged
 * outside any state; a state with a hostile name (quotes, backslash,
 * a tab, a Latin-1 byte that is not UTF-8, a euro sign).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpe.h"

__attribute__ ((noinline)) static double
work (long n)
{
  double acc = 1.0;
  for (long i = 0; i < n; i++)
    acc = acc * 1.0000001 + (double) (i & 7);
  return acc;
}

int
main (int argc, char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 10;
  int me, np, ev_a, ev_b, ev_c, ev_d;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  MPI_Comm_size (MPI_COMM_WORLD, &np);
  MPE_Log_get_state_eventIDs (&ev_a, &ev_b);
  MPE_Describe_info_state (ev_a, ev_b, "Compute", "orange", "round=%d");
  MPE_Log_get_state_eventIDs (&ev_c, &ev_d);
  MPE_Describe_state (ev_c, ev_d, "H\"q\" \\ \t caf\xe9 \xe2\x82\xac", "red");
  double sink = 0;
  for (int r = 0; r < rounds; r++)
    {
      MPE_LOG_BYTES bytes;
      int pos = 0;
      MPE_Log_pack (bytes, &pos, 'd', 1, &r);
      MPE_Log_event (ev_a, 0, NULL);
      double *buf = malloc (4096 * sizeof *buf);
      sink += work (300000);
      free (buf);
      MPE_Log_event (ev_b, 0, bytes);
      MPE_Log_event (ev_c, 0, NULL);
      MPE_Log_event (ev_d, 0, NULL);
      double in = sink, out = 0;
      MPI_Allreduce (&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      int to = (me + 1) % np, from = (me + np - 1) % np, x = r, y;
      MPI_Sendrecv (&x, 1, MPI_INT, to, 5, &y, 1, MPI_INT, from, 5,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      /* An arrow logged by hand, outside any state. */
      MPE_Log_send (to, 9, 4);
      MPE_Log_receive (from, 9, 4);
    }
  if (sink == 42.0)
    printf ("unlikely\n");
  MPI_Finalize ();
  return 0;
}

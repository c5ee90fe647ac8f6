/* SPDX-License-Identifier: BSD-3-Clause */
/* Definitions made on different ranks, some of the same ids, merged at
 * MPE_Finish_log (up a tree): every one reaches the log, and for an id
 * defined on several ranks the lowest rank's wins.  State A: every rank
 * ("A-r<rank>"); B: only the last rank; C: the even ranks but 0; solo
 * event E: the odd ranks.  tests/mpe/defsmerge.sh checks the names. */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include "mpe.h"

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  MPE_Init_log ();
  int a0, a1, b0, b1, c0, c1, e;
  MPE_Log_get_state_eventIDs (&a0, &a1);
  MPE_Log_get_state_eventIDs (&b0, &b1);
  MPE_Log_get_state_eventIDs (&c0, &c1);
  MPE_Log_get_solo_eventID (&e);
  char name[32];
  snprintf (name, sizeof name, "A-r%d", rank);
  MPE_Describe_state (a0, a1, name, "red");
  if (rank == size - 1)
    {
      snprintf (name, sizeof name, "B-r%d", rank);
      MPE_Describe_state (b0, b1, name, "blue");
    }
  if (rank % 2 == 0 && rank > 0)
    {
      snprintf (name, sizeof name, "C-r%d", rank);
      MPE_Describe_state (c0, c1, name, "green");
    }
  if (rank % 2 == 1)
    {
      snprintf (name, sizeof name, "E-r%d", rank);
      MPE_Describe_event (e, name, "white");
    }
  MPE_Log_event (a0, 0, NULL);
  MPE_Log_event (a1, 0, NULL);
  int rc = MPE_Finish_log (argc > 1 ? argv[1] : "defsmerge");
  MPI_Finalize ();
  return rc != 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nompi PREFIX: a serial program that logs without MPI (compiled
 * -DCLOG_NOMPI, no mpi.h, linked with libmpe_nompi only): 1000 "work"
 * states with a solo event in each, then
 * MPE_Finish_log writes PREFIX.clog.
 */
#include <stdio.h>

#include "mpe.h"

#ifdef MPI_VERSION
#error "mpi.h was included"
#endif

int
main (int argc, char **argv)
{
  int a, b, e, bad = 0;
  if (argc < 2)
    return 2;
  bad += MPE_Init_log () != MPE_LOG_OK;
  bad += MPE_Log_get_state_eventIDs (&a, &b) != MPE_LOG_OK;
  bad += MPE_Log_get_solo_eventID (&e) != MPE_LOG_OK;
  bad += MPE_Describe_state (a, b, "work", "red") != MPE_LOG_OK;
  bad += MPE_Describe_event (e, "tick", "blue") != MPE_LOG_OK;
  for (int i = 0; i < 1000; i++)
    {
      MPE_Log_event (a, 0, NULL);
      MPE_Log_event (e, 0, NULL);
      MPE_Log_event (b, 0, NULL);
    }
  bad += MPE_Finish_log (argv[1]) != MPE_LOG_OK;
  printf ("bad %d\n", bad);
  return bad != 0;
}

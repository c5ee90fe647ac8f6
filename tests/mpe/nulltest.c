/* SPDX-License-Identifier: BSD-3-Clause */
/* libmpe_null: no-ops with MPE-COMPAT 1.11's return values, no file. */
#include <stdio.h>
#include <unistd.h>

#include <mpi.h>
#include "mpe.h"
#include "tests/common/tap.h"

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int a = 0, b = 0, s = 0;
  ASSERT_EQ (MPE_Initialized_logging (), 0, "not initialized");
  ASSERT_EQ (MPE_Init_log (), MPE_LOG_OK, "init");
  ASSERT_EQ (MPE_Initialized_logging (), 1, "initialized");
  MPE_Log_get_state_eventIDs (&a, &b);
  MPE_Log_get_solo_eventID (&s);
  ASSERT_EQ (a, -99999, "state start id");
  ASSERT_EQ (b, -99999, "state end id");
  ASSERT_EQ (s, -99999, "solo id");
  ASSERT_EQ (MPE_Log_get_event_number (), -99999, "event number");
  ASSERT_EQ (MPE_Describe_state (a, b, "S", "red"), MPE_LOG_OK, "describe");
  ASSERT_EQ (MPE_Log_event (a, 0, NULL), MPE_LOG_OK, "event");
  ASSERT_EQ (MPE_Log_send (0, 1, 2), MPE_LOG_OK, "send");
  ASSERT_EQ (MPE_Finish_log ("nulltest"), MPE_LOG_OK, "finish");
  ASSERT_EQ (MPE_Initialized_logging (), 2, "finished");
  ok (MPE_Log_merged_logfilename () == NULL, "merged name is NULL");
  ok (access ("nulltest.clog", F_OK) != 0, "no file written");
  MPI_Finalize ();
  return exit_status ();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* libmpe_null: no-ops with MPE-COMPAT 1.11's return values, no file. */
#include <stdio.h>
#include <unistd.h>

#include <mpi.h>
#include "mpe.h"
#include "mpe_metrics.h"
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
  /* Metrics: cells numbered as in libmpe, every primitive accepted, no
   * value kept. */
  int c0 = -1, c1 = -1, f = -1;
  ASSERT_EQ (MPE_Metric_define ("work", "1", &c0), MPE_LOG_OK,
             "metric define");
  ASSERT_EQ (MPE_Metric_define ("busy", "ns", &c1), MPE_LOG_OK,
             "timer define");
  ok (c0 == 0 && c1 == 1, "cells 0 and 1");
  ok (MPE_Metric_set (c0, 5) == MPE_LOG_OK
      && MPE_Metric_add (c0, 2) == MPE_LOG_OK
      && MPE_Metric_sub (c0, 1) == MPE_LOG_OK
      && MPE_Metric_guard (c1, c0) == MPE_LOG_OK
      && MPE_Metric_timer_start (c1) == MPE_LOG_OK
      && MPE_Metric_timer_stop (c1) == MPE_LOG_OK
      && MPE_Metric_sample () == MPE_LOG_OK
      && MPE_Metric_sample_on (a) == MPE_LOG_OK, "metric primitives");
  ok (MPE_Metric_read (c0) == 0 && MPE_Metric_read_channel (c0, 0) == 0,
      "metric reads are 0");
  ok (MPE_Metric_find ("work", &f) != MPE_LOG_OK, "find: nothing kept");
  ASSERT_EQ (MPE_Finish_log ("nulltest"), MPE_LOG_OK, "finish");
  ASSERT_EQ (MPE_Initialized_logging (), 2, "finished");
  ok (MPE_Log_merged_logfilename () == NULL, "merged name is NULL");
  ok (access ("nulltest.clog", F_OK) != 0, "no file written");
  MPI_Finalize ();
  return exit_status ();
}

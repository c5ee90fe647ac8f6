/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPE API behaviour on any number of ranks; rank 0 then reads api.clog
 * back and checks exact counts, nesting, cargo and message matching.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <logfmt/logfmt.h>
#include "mpe.h"
#include "tests/common/tap.h"

static uint64_t
count_id (const logfmt_reader_t *r, uint32_t s, int32_t id)
{
  logfmt_iter_t *it;
  logfmt_event_t ev;
  uint64_t n = 0;
  if (logfmt_iter_new (r, s, 0, UINT64_MAX, &it) != 0)
    return UINT64_MAX;
  while (logfmt_iter_next (it, &ev) == 1)
    n += ev.type == LOGFMT_REC_EVENT && ev.id == id;
  logfmt_iter_free (it);
  return n;
}

int
main (int argc, char **argv)
{
  int rank, size;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  int rc_pre = MPE_Describe_state (1, 2, "x", "red");
  int init0 = MPE_Initialized_logging ();
  int ev_pre = MPE_Log_bare_event (7);
  const char *name_pre = MPE_Log_merged_logfilename ();
  MPE_Init_log ();
  int init1 = MPE_Initialized_logging ();

  int a, b, c, d, e, solo, solo2;
  MPE_Log_get_state_eventIDs (&a, &b);
  MPE_Log_get_state_eventIDs (&c, &d);
  e = MPE_Log_get_event_number ();
  MPE_Log_get_solo_eventID (&solo);
  MPE_Log_get_solo_eventID (&solo2);
  if (rank == 0)
    {
      ASSERT_EQ (rc_pre, MPE_LOG_NOT_INITIALIZED, "describe before init");
      ASSERT_EQ (ev_pre, MPE_LOG_NOT_INITIALIZED, "event before init");
      ASSERT_EQ (init0, 0, "not initialized before init");
      ASSERT_EQ (init1, 1, "initialized after init");
      ok (name_pre && !strcmp (name_pre, ""), "merged name empty before");
      ASSERT_EQ (a, 600, "first state start id");
      ASSERT_EQ (b, 601, "first state end id");
      ASSERT_EQ (c, 602, "second state start id");
      ASSERT_EQ (e, 604, "event number continues the counter");
      ASSERT_EQ (solo, 5000, "first solo id");
      ASSERT_EQ (solo2, 5001, "second solo id");
      MPE_Describe_state (a, b, "Outer", "blue");
      MPE_Describe_info_state (c, d, "Inner", "green", "val=%d name=%s");
      MPE_Describe_info_event (solo, "Mark", "red", "x=%E");
    }

  /* Pack: big-endian values, overflow and bad tokens fail. */
  MPE_LOG_BYTES buf;
  memset (buf, 0, sizeof buf);
  int pos = 0, v = 0x01020304;
  MPE_Log_pack (buf, &pos, 'd', 1, &v);
  MPE_Log_pack (buf, &pos, 's', 5, "hello");
  if (rank == 0)
    {
      ASSERT_EQ (pos, 11, "pack position");
      ok (!memcmp (buf, "\x01\x02\x03\x04\x00\x05hello", 11),
          "pack bytes are big-endian with a length-prefixed string");
      int p2 = 30;
      double x = 1;
      ASSERT_EQ (MPE_Log_pack (buf, &p2, 'E', 1, &x), MPE_LOG_PACK_FAIL,
                 "pack overflow fails");
      ASSERT_EQ (p2, 30, "position unchanged on failure");
      ASSERT_EQ (MPE_Log_pack (buf, &p2, 'q', 1, &x), MPE_LOG_PACK_FAIL,
                 "unknown token fails");
    }

  /* Nested states: 10 x Outer { 3 x Inner(cargo) }. */
  for (int i = 0; i < 10; i++)
    {
      MPE_Log_event (a, 0, NULL);
      for (int k = 0; k < 3; k++)
        {
          MPE_Log_bare_event (c);
          MPE_Log_event (d, 0, buf);
        }
      MPE_Log_event (b, 0, NULL);
    }
  /* Stopped logging drops events. */
  MPE_Stop_log ();
  for (int i = 0; i < 100; i++)
    MPE_Log_bare_event (solo2);
  MPE_Start_log ();
  MPE_Log_bare_event (solo2);
  double xd = 2.5;
  pos = 0;
  MPE_Log_pack (buf, &pos, 'E', 1, &xd);
  MPE_Log_info_event (solo, buf);

  /* Messages on world and on a communicator MPE never saw created
   * (registered lazily, partner rank translated to world). */
  MPI_Comm rev;
  MPI_Comm_split (MPI_COMM_WORLD, 0, size - rank, &rev);
  int rr, rs;
  MPI_Comm_rank (rev, &rr);
  MPI_Comm_size (rev, &rs);
  int to = (rr + 1) % rs, from = (rr + rs - 1) % rs, tok = rank;
  for (int i = 0; i < 4; i++)
    {
      MPE_Log_comm_send (rev, to, 5, 4);
      MPI_Sendrecv_replace (&tok, 1, MPI_INT, to, 5, from, 5, rev,
                            MPI_STATUS_IGNORE);
      MPE_Log_comm_receive (rev, from, 5, 4);
      MPE_Log_send (MPI_PROC_NULL, 1, 1);  /* logs nothing */
    }
  MPI_Comm_free (&rev);
  MPE_Log_sync_clocks ();

  int rc1 = MPE_Finish_log ("api");
  int rc2 = MPE_Finish_log ("other");
  int init2 = MPE_Initialized_logging ();
  const char *name = MPE_Log_merged_logfilename ();
  if (rank == 0)
    {
      ASSERT_EQ (rc1, MPE_LOG_OK, "finish");
      ASSERT_EQ (rc2, MPE_LOG_OK, "second finish is harmless");
      ASSERT_EQ (init2, 2, "finished state");
      ASSERT_STREQ (name, "api.clog", "merged file name");
      logfmt_reader_t *r;
      logfmt_error_t err;
      int orc = logfmt_reader_open ("api.clog", 0, &r, &err);
      ASSERT_OK (orc, "api.clog opens");
      if (orc == 0)
        {
          const logfmt_info_t *in = logfmt_reader_info (r);
          ASSERT_EQ (in->nstreams, size, "one stream per rank");
          ASSERT_EQ (in->world_size, size, "world size");
          /* Per rank: 20 outer + 60 inner + 1 solo2 + 1 solo + 8 msgs. */
          ASSERT_EQ (in->nevents, (uint64_t) size * 90, "total records");
          for (int s = 0; s < size; s++)
            {
              ASSERT_EQ (count_id (r, s, a), 10, "Outer begins");
              ASSERT_EQ (count_id (r, s, d), 30, "Inner ends");
              ASSERT_EQ (count_id (r, s, solo2), 1, "stopped events dropped");
              ASSERT_EQ (count_id (r, s, 7), 0, "pre-init event dropped");
            }
          /* Nesting and cargo through the info format. */
          logfmt_iter_t *it;
          logfmt_event_t ev;
          logfmt_iter_new (r, 0, 0, UINT64_MAX, &it);
          int depth = 0, maxdepth = 0, bad = 0, cargo_ok = 0;
          while (logfmt_iter_next (it, &ev) == 1)
            {
              if (ev.kind == LOGFMT_KIND_BEGIN && ++depth > maxdepth)
                maxdepth = depth;
              if (ev.kind == LOGFMT_KIND_END && --depth < 0)
                bad++;
              if (ev.id == d && (ev.flags & LOGFMT_EVF_CARGO))
                {
                  char out[128];
                  logfmt_format_cargo ("val=%d name=%s", ev.cargo, 32, out,
                                       sizeof out);
                  cargo_ok += !strcmp (out, "val=16909060 name=hello");
                }
            }
          logfmt_iter_free (it);
          ASSERT_EQ (maxdepth, 2, "states nest two deep");
          ASSERT_EQ (bad, 0, "every end has a begin");
          ASSERT_EQ (depth, 0, "every begin has an end");
          ASSERT_EQ (cargo_ok, 30, "cargo decodes through the format");
          logfmt_msg_iter_t *mi;
          logfmt_message_t m;
          int matched = 0, viol = 0, wrong = 0;
          logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi);
          while (logfmt_msg_iter_next (mi, &m) == 1)
            if (m.send_stream != LOGFMT_NO_STREAM
                && m.recv_stream != LOGFMT_NO_STREAM)
              {
                matched++;
                viol += m.recv_time < m.send_time;
                /* rev ranks are reversed: world sender s sends to s-1. */
                wrong += m.recv_rank != (m.send_rank + size - 1) % size
                         || m.tag != 5 || m.size != 4;
              }
          logfmt_msg_iter_free (mi);
          ASSERT_EQ (matched, 4 * size, "all messages matched");
          ASSERT_EQ (viol, 0, "no message arrives before it is sent");
          ASSERT_EQ (wrong, 0, "partners translated to world ranks");
          logfmt_reader_close (r);
        }
    }
  MPI_Finalize ();
  return rank == 0 ? exit_status () : 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mkpairs KIND OUT.clog: a 2-rank log whose message table is written as
 * given (no matching by the writer), for `clogtool verify`'s pair checks.
 * Rank 0 sends three messages (tag 5) at 1, 2 and 3 ms; rank 1 receives
 * three at 4, 5 and 6 ms.  KIND:
 *   good       pairs 1st-1st, 2nd-2nd, 3rd-3rd;
 *   tail       pairs the first two, the third send and receive alone
 *              (a crash between them: still possible);
 *   backwards  as good, but the 3rd receive is at 0.5 ms: it ends
 *              2.5 ms before its send starts;
 *   order      leaves the 1st send alone and pairs the 2nd and 3rd with
 *              the 1st and 2nd receives (what a bounded matching queue
 *              did).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logfmt/logfmt.h>

static logfmt_event_t
msg (uint64_t t, uint8_t type, int32_t partner)
{
  logfmt_event_t e;
  memset (&e, 0, sizeof e);
  e.time = t;
  e.type = type;
  e.state = -1;
  e.partner = partner;
  e.tag = 5;
  e.comm = 0;
  e.size = 8;
  return e;
}

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: mkpairs good|tail|backwards|order OUT\n");
      return 2;
    }
  const char *kind = argv[1];
  const uint64_t ms = 1000000;
  uint64_t ts[3] = { 1 * ms, 2 * ms, 3 * ms };
  uint64_t tr[3] = { 4 * ms, 5 * ms, 6 * ms };
  if (!strcmp (kind, "backwards"))
    tr[2] = ms / 2;
  logfmt_writer_opts_t o;
  memset (&o, 0, sizeof o);
  o.size = sizeof o;
  o.creator = "mkpairs";
  o.world_size = 2;
  logfmt_writer_t *w;
  logfmt_error_t err;
  if (logfmt_writer_open (argv[2], &o, &w, &err) != 0)
    {
      fprintf (stderr, "mkpairs: %s\n", err.message);
      return 1;
    }
  logfmt_comm_def_t world = { 0, 1, "MPI_COMM_WORLD", 2, NULL };
  uint32_t st[2];
  logfmt_stream_def_t d0 = { 0, 0, "node" }, d1 = { 1, 0, "node" };
  int rc = logfmt_writer_add_comm (w, &world);
  rc = rc ? rc : logfmt_writer_add_stream (w, &d0, &st[0]);
  rc = rc ? rc : logfmt_writer_add_stream (w, &d1, &st[1]);
  logfmt_event_t s[3], r[3];
  for (int i = 0; i < 3; i++)
    s[i] = msg (ts[i], LOGFMT_REC_SEND, 1);
  /* Receives in time order, as a stream must be. */
  uint64_t rs[3] = { tr[0], tr[1], tr[2] };
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++)
      if (rs[j] < rs[i])
        {
          uint64_t x = rs[i];
          rs[i] = rs[j];
          rs[j] = x;
        }
  for (int i = 0; i < 3; i++)
    r[i] = msg (rs[i], LOGFMT_REC_RECV, 0);
  rc = rc ? rc : logfmt_writer_event (w, st[0], s, 3);
  rc = rc ? rc : logfmt_writer_event (w, st[1], r, 3);
  logfmt_message_t m[4];
  int nm = 0;
  for (int i = 0; i < 3; i++)
    {
      logfmt_message_t x = { st[0], st[1], ts[i], tr[i], 0, 1, 5, 0, 8 };
      m[nm++] = x;
    }
  if (!strcmp (kind, "tail"))
    {
      m[2].recv_stream = LOGFMT_NO_STREAM;
      m[2].recv_time = 0;
      logfmt_message_t x = { LOGFMT_NO_STREAM, st[1], 0, tr[2], 0, 1, 5, 0,
                             8 };
      m[nm++] = x;
    }
  else if (!strcmp (kind, "order"))
    {
      logfmt_message_t x[4] = {
        { st[0], LOGFMT_NO_STREAM, ts[0], 0, 0, 1, 5, 0, 8 },
        { st[0], st[1], ts[1], tr[0], 0, 1, 5, 0, 8 },
        { st[0], st[1], ts[2], tr[1], 0, 1, 5, 0, 8 },
        { LOGFMT_NO_STREAM, st[1], 0, tr[2], 0, 1, 5, 0, 8 },
      };
      memcpy (m, x, sizeof x);
      nm = 4;
    }
  else if (strcmp (kind, "good") && strcmp (kind, "backwards"))
    {
      fprintf (stderr, "mkpairs: unknown kind %s\n", kind);
      logfmt_writer_abort (w);
      return 2;
    }
  rc = rc ? rc : logfmt_writer_put_messages (w, m, (size_t) nm);
  if (rc || logfmt_writer_finish (w, &err) != 0)
    {
      fprintf (stderr, "mkpairs: %s\n", rc ? logfmt_strerror (rc)
                                            : err.message);
      return 1;
    }
  return 0;
}

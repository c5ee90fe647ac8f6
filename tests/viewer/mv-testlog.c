/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logfmt/logfmt.h>

#include "mv-testlog.h"

static unsigned long long scale_ = 1;

static logfmt_event_t
ev (int type, unsigned long long t, int id)
{
  logfmt_event_t e;
  memset (&e, 0, sizeof e);
  e.type = type;
  e.time = t * scale_;
  e.id = id;
  e.state = -1;
  return e;
}

static logfmt_event_t
msg (int type, unsigned long long t, int partner)
{
  logfmt_event_t e = ev (type, t, 0);
  e.partner = partner;
  e.tag = 5;
  e.size = 64;
  e.comm = 0;
  return e;
}

/* A writer for a test log of world_size ranks, or NULL (said why). */
static logfmt_writer_t *
writer_open (const char *path, int world_size, int match_messages)
{
  logfmt_writer_opts_t o = { sizeof o };
  o.match_messages = match_messages;
  o.world_size = world_size;
  o.creator = "mv-testlog";
  logfmt_writer_t *w = NULL;
  logfmt_error_t err = { 0 };
  if (logfmt_writer_open (path, &o, &w, &err) != 0)
    {
      fprintf (stderr, "%s\n", err.message);
      return NULL;
    }
  return w;
}

/* Finishes the log, or drops it if rc (the writing so far) failed. */
static int
writer_close (logfmt_writer_t *w, int rc)
{
  if (rc != 0)
    {
      logfmt_writer_abort (w);
      return rc;
    }
  logfmt_error_t err = { 0 };
  rc = logfmt_writer_finish (w, &err);
  if (rc != 0)
    fprintf (stderr, "%s\n", err.message);
  return rc;
}

int
mv_testlog_write (const char *path, unsigned long long scale)
{
  return mv_testlog_write_n (path, scale, 2);
}

int
mv_testlog_write_n (const char *path, unsigned long long scale, int nranks)
{
  scale_ = scale ? scale : 1;
  if (nranks < 2 || nranks % 2 != 0 || nranks > 4096)
    {
      fprintf (stderr, "mv-testlog: ranks must be even, 2..4096\n");
      return -1;
    }
  logfmt_writer_t *w = writer_open (path, nranks, 1);
  if (w == NULL)
    return -1;
  int rc;
  logfmt_state_def_t a = { 1, 2, "A", "#ff0000", "x=%d", 0 };
  logfmt_state_def_t b = { 3, 4, "B", "#00ff00", NULL, 0 };
  logfmt_event_def_t e = { 10, "E", "#0000ff", NULL, 0 };
  static int32_t ranks[4096];
  static uint32_t st[4096];
  static char hosts[4096][16];
  for (int r = 0; r < nranks; r++)
    ranks[r] = r;
  logfmt_comm_def_t world = { 0, 1, "MPI_COMM_WORLD", nranks, ranks };
  if ((rc = logfmt_writer_add_state (w, &a)) != 0
      || (rc = logfmt_writer_add_state (w, &b)) != 0
      || (rc = logfmt_writer_add_event_def (w, &e)) != 0)
    return writer_close (w, rc);
  for (int r = 0; r < nranks; r++)
    {
      snprintf (hosts[r], sizeof hosts[r], "node%d", r);
      logfmt_stream_def_t sd = { r, 0, hosts[r] };
      if ((rc = logfmt_writer_add_stream (w, &sd, &st[r])) != 0)
        return writer_close (w, rc);
    }
  if ((rc = logfmt_writer_add_comm (w, &world)) != 0)
    return writer_close (w, rc);
  logfmt_event_t r0[] = {
    ev (LOGFMT_REC_EVENT, 100, 1), ev (LOGFMT_REC_EVENT, 200, 3),
    ev (LOGFMT_REC_EVENT, 300, 4), msg (LOGFMT_REC_SEND, 400, 1),
    ev (LOGFMT_REC_EVENT, 600, 2), ev (LOGFMT_REC_EVENT, 700, 10),
    ev (LOGFMT_REC_EVENT, 800, 1), ev (LOGFMT_REC_EVENT, 1000, 2),
  };
  /* x=42, big-endian as MPE_Log_pack writes it. */
  r0[0].flags = LOGFMT_EVF_CARGO;
  r0[0].cargo[3] = 42;
  logfmt_event_t r1[] = {
    ev (LOGFMT_REC_EVENT, 150, 3), ev (LOGFMT_REC_EVENT, 350, 4),
    msg (LOGFMT_REC_RECV, 500, 0), ev (LOGFMT_REC_EVENT, 520, 1),
    ev (LOGFMT_REC_EVENT, 900, 2),
  };
  /* Each pair (2k, 2k+1) repeats ranks 0 and 1, messaging each other. */
  for (int r = 0; r < nranks && rc == 0; r += 2)
    {
      r0[3].partner = r + 1;
      r1[2].partner = r;
      if ((rc = logfmt_writer_event (w, st[r], r0, sizeof r0 / sizeof r0[0]))
          == 0)
        rc = logfmt_writer_event (w, st[r + 1], r1,
                                  sizeof r1 / sizeof r1[0]);
    }
  return writer_close (w, rc);
}

int
mv_testlog_write_msgs (const char *path)
{
  scale_ = 1;
  logfmt_writer_t *w = writer_open (path, 2, 1);
  if (w == NULL)
    return -1;
  int rc = 0;
  static logfmt_event_t snd[650], rcv[650];
  uint32_t st[2];
  int n = 0;
  for (int r = 0; r < 2 && rc == 0; r++)
    {
      logfmt_stream_def_t sd = { r, 0, NULL };
      rc = logfmt_writer_add_stream (w, &sd, &st[r]);
    }
  for (int t = 100; t < 250; t++)
    for (int k = 0; k < 3; k++, n++)
      {
        snd[n] = msg (LOGFMT_REC_SEND, t, 1);
        rcv[n] = msg (LOGFMT_REC_RECV, t, 0);
      }
  for (int t = 500; t < 650; t++, n++)
    {
      snd[n] = msg (LOGFMT_REC_SEND, t, 1);
      rcv[n] = msg (LOGFMT_REC_RECV, t, 0);
    }
  for (int t = 800; t < 850; t++, n++)
    {
      snd[n] = msg (LOGFMT_REC_SEND, t, 1);
      rcv[n] = msg (LOGFMT_REC_RECV, t + 100, 0);
    }
  if (rc == 0)
    rc = logfmt_writer_event (w, st[0], snd, n);
  if (rc == 0)
    rc = logfmt_writer_event (w, st[1], rcv, n);
  return writer_close (w, rc);
}

int
mv_testlog_write_steps (const char *path, int nranks)
{
  scale_ = 1;
  if (nranks < 1 || nranks > 16384)
    return -1;
  logfmt_writer_t *w = writer_open (path, nranks, 0);
  if (w == NULL)
    return -1;
  logfmt_state_def_t a = { 1, 2, "A", "#ff0000", NULL, 0 };
  logfmt_state_def_t b = { 3, 4, "B", "#00ff00", NULL, 0 };
  int rc = logfmt_writer_add_state (w, &a);
  if (rc == 0)
    rc = logfmt_writer_add_state (w, &b);
  static uint32_t st[16384];
  for (int r = 0; r < nranks && rc == 0; r++)
    {
      logfmt_stream_def_t sd = { r, 0, NULL };
      rc = logfmt_writer_add_stream (w, &sd, &st[r]);
    }
  for (int r = 0; r < nranks && rc == 0; r++)
    {
      unsigned long long x = 500000ull + (unsigned long long) r;
      logfmt_event_t e[] = {
        ev (LOGFMT_REC_EVENT, 0, 1), ev (LOGFMT_REC_EVENT, x, 2),
        ev (LOGFMT_REC_EVENT, x, 3), ev (LOGFMT_REC_EVENT, 1000000, 4),
      };
      rc = logfmt_writer_event (w, st[r], e, sizeof e / sizeof e[0]);
    }
  return writer_close (w, rc);
}

int
mv_testlog_write_nodes (const char *path)
{
  scale_ = 1;
  logfmt_writer_t *w = writer_open (path, 8, 0);
  if (w == NULL)
    return -1;
  logfmt_state_def_t a = { 1, 2, "A", "#ff0000", NULL, 0 };
  logfmt_state_def_t b = { 3, 4, "B", "#00ff00", NULL, 0 };
  int rc = logfmt_writer_add_state (w, &a);
  if (rc == 0)
    rc = logfmt_writer_add_state (w, &b);
  uint32_t st[8];
  /* Round-robin placement: even ranks on nodeE, odd ones on nodeO. */
  for (int r = 0; r < 8 && rc == 0; r++)
    {
      logfmt_stream_def_t sd = { r, 0, r % 2 ? "nodeO" : "nodeE" };
      rc = logfmt_writer_add_stream (w, &sd, &st[r]);
    }
  for (int r = 0; r < 8 && rc == 0; r++)
    {
      logfmt_event_t ea[] = {
        ev (LOGFMT_REC_EVENT, 0, 1), ev (LOGFMT_REC_EVENT, 1000000, 2),
      };
      logfmt_event_t eb[] = {
        ev (LOGFMT_REC_EVENT, 0, 3), ev (LOGFMT_REC_EVENT, 500000, 4),
      };
      int in_a = r % 2 == 1 || r == 0;
      rc = in_a ? logfmt_writer_event (w, st[r], ea, 2)
                : logfmt_writer_event (w, st[r], eb, 2);
    }
  return writer_close (w, rc);
}

/* Streams of ranks 0..nranks-1 (at most 64) placed in order on nodes of
 * per_node ("n0", "n1", ...) into st; host holds their names. */
static int
add_node_streams (logfmt_writer_t *w, int nranks, int per_node,
                  uint32_t *st, char (*host)[16])
{
  int rc = 0;
  for (int r = 0; r < nranks && rc == 0; r++)
    {
      snprintf (host[r], sizeof host[r], "n%d", r / per_node);
      logfmt_stream_def_t sd = { r, 0, host[r] };
      rc = logfmt_writer_add_stream (w, &sd, &st[r]);
    }
  return rc;
}

int
mv_testlog_write_exchange (const char *path, int nranks, int per_node,
                           int steps)
{
  scale_ = 1;
  if (nranks < 2 || nranks > 64 || per_node < 1 || steps < 1
      || steps > 1000)
    return -1;
  logfmt_writer_t *w = writer_open (path, nranks, 1);
  if (w == NULL)
    return -1;
  uint32_t st[64];
  char host[64][16];
  int rc = add_node_streams (w, nranks, per_node, st, host);
  logfmt_event_t *e = malloc (2 * (size_t) steps * sizeof *e);
  if (e == NULL)
    rc = -1;
  for (int r = 0; r < nranks && rc == 0; r++)
    {
      for (int i = 0; i < steps; i++)
        {
          int d = 1 + i * 7 % (nranks - 1);
          unsigned long long t = 1000 + (unsigned long long) i * 100;
          e[2 * i] = msg (LOGFMT_REC_SEND, t, (r + d) % nranks);
          e[2 * i + 1] = msg (LOGFMT_REC_RECV, t + 50,
                              (r - d + nranks) % nranks);
        }
      rc = logfmt_writer_event (w, st[r], e, 2 * (size_t) steps);
    }
  free (e);
  return writer_close (w, rc);
}

int
mv_testlog_write_busy (const char *path, int nranks, int per_node)
{
  scale_ = 1;
  if (nranks < 1 || nranks > 64 || per_node < 1)
    return -1;
  logfmt_writer_t *w = writer_open (path, nranks, 0);
  if (w == NULL)
    return -1;
  logfmt_state_def_t a = { 1, 2, "A", "#ff0000", NULL, 0 };
  logfmt_state_def_t b = { 3, 4, "B", "#00ff00", NULL, 0 };
  int rc = logfmt_writer_add_state (w, &a);
  if (rc == 0)
    rc = logfmt_writer_add_state (w, &b);
  uint32_t st[64];
  char host[64][16];
  if (rc == 0)
    rc = add_node_streams (w, nranks, per_node, st, host);
  for (int r = 0; r < nranks && rc == 0; r++)
    for (unsigned long long t = 0; t < 10000000 && rc == 0; t += 1000)
      {
        unsigned long long in = t + (unsigned long long) (r * 37 % 200);
        unsigned long long out = in + 300 + (unsigned long long) (r * 53
                                                                  % 400);
        logfmt_event_t e[] = {
          ev (LOGFMT_REC_EVENT, in, 1), ev (LOGFMT_REC_EVENT, in + 50, 3),
          ev (LOGFMT_REC_EVENT, in + 50 + (unsigned long long) r * 3, 4),
          ev (LOGFMT_REC_EVENT, out, 2),
        };
        /* Odd ranks enter B inside A; even ones only A. */
        if (r % 2 == 0)
          e[1] = e[3];
        rc = logfmt_writer_event (w, st[r], e, r % 2 ? 4 : 2);
      }
  return writer_close (w, rc);
}

int
mv_testlog_write_metric (const char *path)
{
  scale_ = 1;
  logfmt_writer_t *w = writer_open (path, 2, 0);
  if (w == NULL)
    return -1;
  logfmt_state_def_t a = { 1, 2, "A", "#ff0000", NULL, 0 };
  logfmt_metric_def_t m = { 7, LOGFMT_METRIC_LEVEL, "queue", "1" };
  int rc = logfmt_writer_add_state (w, &a);
  if (rc == 0)
    rc = logfmt_writer_add_metric (w, &m);
  uint32_t st[2];
  for (int r = 0; r < 2 && rc == 0; r++)
    {
      logfmt_stream_def_t sd = { r, 0, NULL };
      rc = logfmt_writer_add_stream (w, &sd, &st[r]);
    }
  for (int r = 0; r < 2 && rc == 0; r++)
    {
      logfmt_event_t e[] = {
        ev (LOGFMT_REC_EVENT, 0, 1), ev (LOGFMT_REC_EVENT, 1000000, 2),
      };
      rc = logfmt_writer_event (w, st[r], e, sizeof e / sizeof e[0]);
    }
  static const long long v0[][2] = {
    { 0, 0 }, { 250000, 40 }, { 500000, 10 }, { 750000, 30 }
  };
  logfmt_track_rec_t t[4];
  memset (t, 0, sizeof t);
  for (int i = 0; i < 4; i++)
    {
      t[i].time = (uint64_t) v0[i][0];
      t[i].col[LOGFMT_METRIC_COL_ID] = 7;
      t[i].col[LOGFMT_METRIC_COL_OBJECT] = -1;
      t[i].col[LOGFMT_METRIC_COL_VALUE] = v0[i][1];
    }
  if (rc == 0)
    rc = logfmt_writer_track_add (w, st[0], LOGFMT_TRACK_METRIC, t, 4);
  t[0].col[LOGFMT_METRIC_COL_VALUE] = 20;
  if (rc == 0)
    rc = logfmt_writer_track_add (w, st[1], LOGFMT_TRACK_METRIC, t, 1);
  return writer_close (w, rc);
}

int
mv_testlog_write_overlap (const char *path)
{
  scale_ = 1;
  logfmt_writer_t *w = writer_open (path, 1, 0);
  if (w == NULL)
    return -1;
  logfmt_state_def_t a = { 1, 2, "A", "#ff0000", NULL, 0 };
  logfmt_state_def_t b = { 3, 4, "B", "#00ff00", NULL, 0 };
  logfmt_event_def_t e = { 10, "E", "#0000ff", NULL, 0 };
  logfmt_stream_def_t sd = { 0, 0, NULL };
  uint32_t st = 0;
  int rc = logfmt_writer_add_state (w, &a);
  if (rc == 0)
    rc = logfmt_writer_add_state (w, &b);
  if (rc == 0)
    rc = logfmt_writer_add_event_def (w, &e);
  if (rc == 0)
    rc = logfmt_writer_add_stream (w, &sd, &st);
  static const unsigned long long head[][2] = {
    { 100, 1 }, { 200, 3 }, { 300, 2 }, { 600, 4 }, { 700, 2 },
  };
  static const unsigned long long tail[][2] = {
    { 20000, 1 }, { 21000, 3 }, { 22000, 2 }, { 23000, 4 }, { 24000, 3 },
    { 25000, 10 },
  };
  for (size_t i = 0; rc == 0 && i < sizeof head / sizeof *head; i++)
    {
      logfmt_event_t x = ev (LOGFMT_REC_EVENT, head[i][0], (int) head[i][1]);
      rc = logfmt_writer_event (w, st, &x, 1);
    }
  for (unsigned long long t = 1000; rc == 0 && t < 11000; t++)
    {
      logfmt_event_t x = ev (LOGFMT_REC_EVENT, t, 10);
      rc = logfmt_writer_event (w, st, &x, 1);
    }
  for (size_t i = 0; rc == 0 && i < sizeof tail / sizeof *tail; i++)
    {
      logfmt_event_t x = ev (LOGFMT_REC_EVENT, tail[i][0], (int) tail[i][1]);
      rc = logfmt_writer_event (w, st, &x, 1);
    }
  return writer_close (w, rc);
}

/* Big-endian, as MPE_Log_pack writes. */
static void
put_be (uint8_t *p, uint64_t v, int n)
{
  for (int i = n - 1; i >= 0; i--, v >>= 8)
    p[i] = (uint8_t) v;
}

int
mv_testlog_write_info (const char *path)
{
  scale_ = 1;
  logfmt_writer_t *w = writer_open (path, 1, 0);
  if (w == NULL)
    return -1;
  logfmt_state_def_t c = { 1, 2, "Compute", "#ff0000",
                           "intervals=%d sum=%E", 0 };
  logfmt_event_def_t ci = { -10, "MPE_Comm_init", "#ffff00", NULL, 0 };
  logfmt_event_def_t cf = { -9, "MPE_Comm_finalize", "#ffff00", NULL, 0 };
  uint32_t st;
  logfmt_stream_def_t sd = { 0, 0, NULL };
  int rc = logfmt_writer_add_state (w, &c);
  if (rc == 0)
    rc = logfmt_writer_add_event_def (w, &ci);
  if (rc == 0)
    rc = logfmt_writer_add_event_def (w, &cf);
  if (rc == 0)
    rc = logfmt_writer_add_stream (w, &sd, &st);
  logfmt_event_t e[] = {
    ev (LOGFMT_REC_EVENT, 0, -10), ev (LOGFMT_REC_EVENT, 100000, 1),
    ev (LOGFMT_REC_EVENT, 400000, 2), ev (LOGFMT_REC_EVENT, 500000, 1),
    ev (LOGFMT_REC_EVENT, 900000, 2), ev (LOGFMT_REC_LOSS, 950000, 0),
    ev (LOGFMT_REC_EVENT, 1000000, -9),
  };
  double sums[2] = { 3.25, 6.5 };
  for (int k = 0; k < 2; k++)
    {
      logfmt_event_t *end = &e[2 + 2 * k];
      uint64_t u;
      memcpy (&u, &sums[k], 8);
      end->flags = LOGFMT_EVF_CARGO;
      put_be (end->cargo, 100u * (unsigned) (k + 1), 4);
      put_be (end->cargo + 4, u, 8);
    }
  e[5].size = 17;
  if (rc == 0)
    rc = logfmt_writer_event (w, st, e, sizeof e / sizeof e[0]);
  return writer_close (w, rc);
}

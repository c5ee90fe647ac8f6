/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes a small hand-made log whose every figure is known: awkward names
 * (quotes, control bytes, UTF-8, Latin-1), cargo with and without a
 * format, an undefined solo event, lost events, a start and an end
 * without a partner, a matched and an unmatched message, two threads in
 * one process.  clogtool-odd.sh checks stats and print against it. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <logfmt/logfmt.h>

static logfmt_event_t
ev_event (uint64_t t, int32_t id)
{
  logfmt_event_t e;
  memset (&e, 0, sizeof e);
  e.time = t;
  e.type = LOGFMT_REC_EVENT;
  e.id = id;
  e.state = -1;
  return e;
}

static logfmt_event_t
ev_msg (uint64_t t, int type, int32_t partner, int32_t tag, uint64_t size)
{
  logfmt_event_t e;
  memset (&e, 0, sizeof e);
  e.time = t;
  e.type = (uint8_t) type;
  e.partner = partner;
  e.tag = tag;
  e.size = size;
  e.comm = 0;
  e.state = -1;
  return e;
}

static logfmt_event_t
ev_loss (uint64_t t, uint64_t n)
{
  logfmt_event_t e;
  memset (&e, 0, sizeof e);
  e.time = t;
  e.type = LOGFMT_REC_LOSS;
  e.size = n;
  e.state = -1;
  return e;
}

#define CHECK(x)                                                        \
  do                                                                    \
    {                                                                   \
      int rc_ = (x);                                                    \
      if (rc_ < 0)                                                      \
        {                                                               \
          fprintf (stderr, "mklog-odd: %s: %s\n", #x,                   \
                   logfmt_strerror (rc_));                              \
          return 1;                                                     \
        }                                                               \
    }                                                                   \
  while (0)

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: mklog-odd OUT.clog\n");
      return 2;
    }
  logfmt_writer_opts_t o;
  memset (&o, 0, sizeof o);
  o.size = sizeof o;
  o.match_messages = 1;
  o.creator = "mklog-odd";
  o.world_size = 2;
  logfmt_writer_t *w = NULL;
  logfmt_error_t err;
  memset (&err, 0, sizeof err);
  if (logfmt_writer_open (argv[1], &o, &w, &err) < 0)
    {
      fprintf (stderr, "mklog-odd: %s\n", err.message);
      return 1;
    }

  logfmt_state_def_t s0 = { 10, 11, "quote\"back\\slash", "red", NULL, 0 };
  logfmt_state_def_t s1 = { 20, 21, "tab\there\nnl", "#00ff00", "x=%d", 0 };
  logfmt_state_def_t s2 = { 30, 31, "caf\xc3\xa9 lat\xe9", "blue", NULL, 0 };
  CHECK (logfmt_writer_add_state (w, &s0));
  CHECK (logfmt_writer_add_state (w, &s1));
  CHECK (logfmt_writer_add_state (w, &s2));
  logfmt_event_def_t e40 = { 40, "mark\x01" "er", "gray", NULL, 0 };
  CHECK (logfmt_writer_add_event_def (w, &e40));
  logfmt_comm_def_t world = { 0, 1, "MPI_COMM_WORLD", 2, NULL };
  CHECK (logfmt_writer_add_comm (w, &world));

  uint32_t st[3];
  logfmt_stream_def_t d0 = { 0, 0, "node-a" };
  logfmt_stream_def_t d1 = { 1, 0, "node-b" };
  logfmt_stream_def_t d2 = { 0, 1, "node-a" };
  CHECK (logfmt_writer_add_stream (w, &d0, &st[0]));
  CHECK (logfmt_writer_add_stream (w, &d1, &st[1]));
  CHECK (logfmt_writer_add_stream (w, &d2, &st[2]));

  /* Rank 0, thread 0. */
  logfmt_event_t a[9];
  a[0] = ev_event (100, 10);              /* begin s0 */
  a[1] = ev_event (200, 20);              /* begin s1, cargo x=7 */
  a[1].flags = LOGFMT_EVF_CARGO;
  a[1].cargo[3] = 7;                      /* big-endian int 7 */
  a[2] = ev_event (300, 21);              /* end s1: 100 ns */
  a[3] = ev_event (400, 11);              /* end s0: 300 ns */
  a[4] = ev_event (500, 40);              /* solo, cargo without format */
  a[4].flags = LOGFMT_EVF_CARGO;
  a[4].cargo[0] = 0xab;
  a[4].cargo[1] = 0xcd;
  a[5] = ev_event (600, 99);              /* undefined solo event */
  a[6] = ev_loss (700, 5);
  a[7] = ev_event (800, 31);              /* end s2, never started */
  a[8] = ev_event (900, 30);              /* begin s2, never ended */
  CHECK (logfmt_writer_event (w, st[0], a, 9));

  /* Rank 1, thread 0. */
  logfmt_event_t b[4];
  b[0] = ev_msg (150, LOGFMT_REC_SEND, 0, 3, 64);
  b[1] = ev_event (250, 10);              /* begin s0 */
  b[2] = ev_event (1250, 11);             /* end s0: 1000 ns */
  b[3] = ev_loss (1300, 2);
  CHECK (logfmt_writer_event (w, st[1], b, 4));

  /* Rank 0, thread 1: receives rank 1's message; one send nobody gets. */
  logfmt_event_t c[2];
  c[0] = ev_msg (350, LOGFMT_REC_RECV, 1, 3, 64);
  c[1] = ev_msg (360, LOGFMT_REC_SEND, 1, 9, 10);
  CHECK (logfmt_writer_event (w, st[2], c, 2));

  if (logfmt_writer_finish (w, &err) < 0)
    {
      fprintf (stderr, "mklog-odd: %s\n", err.message);
      return 1;
    }
  return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* The synthetic-log generator writes stream by stream (replaying each
 * stream from a simulation in global time order) and must give exactly
 * the records of the global-order path, which feeds the writer event by
 * event: same events in every stream, same messages.  And the writer's
 * logfmt_writer_end_stream, which that relies on. */
#include "tests/common/tap.h"
#include "logfmt/logfmt.h"
#include "synth/logfmt-synth.h"

#include <unistd.h>

/* The reference: events in global time order through logfmt_writer_event,
 * as logfmt_synth_write did before it wrote stream by stream. */
static int
write_global (const char *path, const logfmt_synth_opts_t *o)
{
  logfmt_synth_t *s;
  if (logfmt_synth_new (o, &s))
    return -1;
  logfmt_writer_opts_t wo = {
    .size = sizeof wo, .match_messages = 1, .block_events = o->block_events,
    .creator = "logfmt synth", .world_size = o->nprocs,
    .origin_unix_ns = 1700000000000000000LL,
  };
  logfmt_writer_t *w;
  logfmt_error_t e = { 0 };
  int rc = logfmt_writer_open (path, &wo, &w, &e);
  if (!rc)
    rc = logfmt_synth_define (s, w);
  logfmt_event_t ev[512];
  uint32_t sid[512];
  size_t n;
  while (!rc && (n = logfmt_synth_next (s, ev, sid, 512)) > 0)
    for (size_t i = 0; i < n && !rc; i++)
      rc = logfmt_writer_event (w, sid[i], &ev[i], 1);
  logfmt_synth_free (s);
  if (rc)
    {
      logfmt_writer_abort (w);
      return rc;
    }
  return logfmt_writer_finish (w, &e);
}

static int
same_event (const logfmt_event_t *a, const logfmt_event_t *b)
{
  return a->time == b->time && a->type == b->type && a->id == b->id
         && a->partner == b->partner && a->tag == b->tag
         && a->size == b->size && a->comm == b->comm
         && a->flags == b->flags
         && (!(a->flags & LOGFMT_EVF_CARGO)
             || memcmp (a->cargo, b->cargo, LOGFMT_CARGO_SIZE) == 0);
}

static int
msg_cmp (const void *x, const void *y)
{
  return memcmp (x, y, sizeof (logfmt_message_t));
}

/* All messages of a file, sorted bytewise (the table's order depends on
 * when the writer matched them). */
static logfmt_message_t *
all_messages (logfmt_reader_t *r, size_t *n)
{
  logfmt_msg_iter_t *it;
  size_t cap = 1024;
  logfmt_message_t *v = malloc (cap * sizeof *v), m;
  *n = 0;
  if (logfmt_msg_iter_new (r, 0, UINT64_MAX, &it))
    return v;
  while (logfmt_msg_iter_next (it, &m) == 1)
    {
      if (*n == cap)
        v = realloc (v, (cap *= 2) * sizeof *v);
      memset (&v[*n], 0, sizeof *v);
      v[*n] = m;
      (*n)++;
    }
  logfmt_msg_iter_free (it);
  qsort (v, *n, sizeof *v, msg_cmp);
  return v;
}

static void
compare (const char *what, const char *pa, const char *pb)
{
  logfmt_reader_t *a, *b;
  logfmt_error_t e = { 0 };
  int ra = logfmt_reader_open (pa, 0, &a, &e);
  int rb = logfmt_reader_open (pb, 0, &b, &e);
  if (!ok (ra == 0 && rb == 0, "%s: both files open", what))
    return;
  const logfmt_info_t *ia = logfmt_reader_info (a), *ib = logfmt_reader_info (b);
  ASSERT_EQ (ia->nstreams, ib->nstreams, "same streams");
  ASSERT_EQ (ia->nevents, ib->nevents, "same number of events");
  ASSERT_EQ (ia->nmessages, ib->nmessages, "same number of messages");
  uint64_t differ = 0, seen = 0;
  for (uint32_t s = 0; s < ia->nstreams && s < ib->nstreams; s++)
    {
      logfmt_iter_t *x, *y;
      logfmt_iter_new (a, s, 0, UINT64_MAX, &x);
      logfmt_iter_new (b, s, 0, UINT64_MAX, &y);
      logfmt_event_t ex, ey;
      int kx, ky;
      for (;;)
        {
          kx = logfmt_iter_next (x, &ex);
          ky = logfmt_iter_next (y, &ey);
          if (kx != 1 || ky != 1)
            break;
          seen++;
          if (!same_event (&ex, &ey) && differ++ < 3)
            diag ("  stream %u: time %llu/%llu type %d/%d id %d/%d "
                  "partner %d/%d tag %d/%d size %llu/%llu", s,
                  (unsigned long long) ex.time, (unsigned long long) ey.time,
                  ex.type, ey.type, ex.id, ey.id, ex.partner, ey.partner,
                  ex.tag, ey.tag, (unsigned long long) ex.size,
                  (unsigned long long) ey.size);
        }
      differ += kx != ky;
      logfmt_iter_free (x);
      logfmt_iter_free (y);
    }
  ok (differ == 0 && seen == ia->nevents,
      "%s: every stream has the same events (%llu, %llu differ)", what,
      (unsigned long long) seen, (unsigned long long) differ);
  size_t na, nb;
  logfmt_message_t *ma = all_messages (a, &na), *mb = all_messages (b, &nb);
  ok (na == nb && na > 0 && memcmp (ma, mb, na * sizeof *ma) == 0,
      "%s: the same messages (%zu)", what, na);
  free (ma);
  free (mb);
  logfmt_reader_close (a);
  logfmt_reader_close (b);
}

int
main (void)
{
  char dir[] = "/tmp/logfmt-synth-XXXXXX";
  if (!mkdtemp (dir))
    return 1;
  char pa[512], pb[512];
  snprintf (pa, sizeof pa, "%s/by-stream.clog", dir);
  snprintf (pb, sizeof pb, "%s/global.clog", dir);
  static const struct
  {
    const char *what;
    uint32_t p, t, block;
    uint64_t n;
    double msg;
  } cases[] = {
    { "4 processes, one block each", 4, 1, 0, 20000, 0.02 },
    { "3 processes x 2 threads, parts of 700 events", 3, 2, 700, 5000, 0.02 },
    /* 50% messages: receivers far behind fill their rings (unmatched
     * sends) while the sender's part is replayed. */
    { "2 processes, 50% messages, parts of 1000", 2, 1, 1000, 30000, 0.5 },
    { "300 processes x 40 events", 300, 1, 0, 40, 0.1 },
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    {
      logfmt_synth_opts_t o;
      logfmt_synth_opts_init (&o);
      o.nprocs = cases[c].p;
      o.threads_per_proc = cases[c].t;
      o.events_per_stream = cases[c].n;
      o.block_events = cases[c].block;
      o.msg_fraction = cases[c].msg;
      o.seed = 3 + c;
      logfmt_error_t e = { 0 };
      ASSERT_OK (logfmt_synth_write (pa, &o, &e), "logfmt_synth_write");
      ASSERT_OK (write_global (pb, &o), "written in global time order");
      compare (cases[c].what, pa, pb);
    }

  /* logfmt_writer_end_stream: the stream's last block and summary now,
   * no events after it, the others go on. */
  logfmt_writer_opts_t wo = { .size = sizeof wo, .world_size = 2 };
  logfmt_writer_t *w;
  logfmt_error_t e = { 0 };
  ASSERT_OK (logfmt_writer_open (pa, &wo, &w, &e), "writer opens");
  logfmt_state_def_t st = { 1, 2, "Work", "red", NULL, 0 };
  logfmt_writer_add_state (w, &st);
  for (int r = 0; r < 2; r++)
    {
      logfmt_stream_def_t sd = { r, 0, "node0" };
      logfmt_writer_add_stream (w, &sd, NULL);
    }
  logfmt_event_t ev[2];
  memset (ev, 0, sizeof ev);
  ev[0].type = ev[1].type = LOGFMT_REC_EVENT;
  ev[0].state = ev[1].state = -1;
  ev[0].id = 1;
  ev[0].time = 100;
  ev[1].id = 2;
  ev[1].time = 300;
  ASSERT_OK (logfmt_writer_event (w, 0, ev, 2), "stream 0: two events");
  ASSERT_OK (logfmt_writer_end_stream (w, 0), "stream 0 ended");
  ASSERT_EQ (logfmt_writer_event (w, 0, ev, 1), LOGFMT_EINVAL,
             "an event after the end: LOGFMT_EINVAL");
  ASSERT_OK (logfmt_writer_end_stream (w, 0), "ending it twice is harmless");
  ev[0].time = 400;
  ev[1].time = 900;
  ASSERT_OK (logfmt_writer_event (w, 1, ev, 2), "stream 1 goes on");
  ASSERT_EQ (logfmt_writer_end_stream (w, 7), LOGFMT_ERANGE,
             "no such stream: LOGFMT_ERANGE");
  ASSERT_OK (logfmt_writer_finish (w, &e), "finished");
  logfmt_reader_t *r;
  ASSERT_OK (logfmt_reader_open (pa, 0, &r, &e), "the file reads");
  if (r)
    {
      const logfmt_info_t *inf = logfmt_reader_info (r);
      ASSERT_EQ (inf->nevents, 4, "all four events");
      for (uint32_t s = 0; s < 2; s++)
        {
          /* One bin over the stream's records: "Work" open (nearly: the
           * bins are resampled) all the time. */
          float occ = 0;
          uint32_t nev = 0;
          uint64_t t0 = s ? 400 : 100, t1 = s ? 900 : 300;
          int rc = logfmt_reader_summary (r, s, t0, t1, 1, &occ, &nev, NULL,
                                          &e);
          ok (rc == 0 && occ > 0.9f && nev >= 1,
              "stream %u has its summary (occupancy %.2f, %u records)", s,
              (double) occ, nev);
        }
      logfmt_reader_close (r);
    }
  unlink (pa);
  unlink (pb);
  rmdir (dir);
  return exit_status ();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CLOG2 writer (logfmt_export_clog2): a .clog with threads, cargo,
 * a dup, split communicators, an intercommunicator, MPI_COMM_SELF, an
 * unmatched send, a lost-events marker, a 3 GB message, a 64-bit constant,
 * a long state name and a "#rrggbb" colour goes .clog -> .clog2 -> our
 * CLOG2 reader.  The CLOG2 file passes the strict layout check; every
 * event comes back at its exact time with its id, partner, tag and cargo;
 * every message is the same arrow; what CLOG2 cannot hold is reported and
 * changed exactly as documented.  MPE2's own communicator records (dup,
 * split, intercomms) survive CLOG2 -> CLOG2.  Then the failures.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logfmt/logfmt.h"
#include "tests/common/tap.h"

#define CLOG2_UTIL_NO_MAIN
#include "tests/interop/clog2-util.c"

#define N(a) (sizeof (a) / sizeof (a)[0])
#define LONG_NAME "A_state_name_longer_than_thirty_one_chars"
#define HUGE_SIZE 3000000000ull

enum { WORLD = 0, DUP = 7, EVEN = 8, ODD = 9, INTER = 10, SELF1 = 11 };

typedef struct
{
  int32_t        rank, thread;
  logfmt_event_t ev[16];
  size_t         n;
} src_stream_t;

static src_stream_t streams[5] = {
  { 0, 0, { { 0 } }, 0 }, { 0, 1, { { 0 } }, 0 }, { 1, 0, { { 0 } }, 0 },
  { 2, 0, { { 0 } }, 0 }, { 3, 0, { { 0 } }, 0 },
};

static void
add_ev (int s, uint64_t t, int32_t id, int cargo)
{
  logfmt_event_t *e = &streams[s].ev[streams[s].n++];
  memset (e, 0, sizeof *e);
  e->time = t;
  e->type = LOGFMT_REC_EVENT;
  e->id = id;
  e->state = -1;
  if (cargo)
    {
      e->flags = LOGFMT_EVF_CARGO;
      for (int i = 0; i < LOGFMT_CARGO_SIZE; i++)
        e->cargo[i] = (uint8_t) (t + (uint64_t) i);
    }
}

static void
add_msg (int s, uint64_t t, int send, int32_t partner, int32_t tag,
         uint32_t comm, uint64_t size)
{
  logfmt_event_t *e = &streams[s].ev[streams[s].n++];
  memset (e, 0, sizeof *e);
  e->time = t;
  e->type = send ? LOGFMT_REC_SEND : LOGFMT_REC_RECV;
  e->state = -1;
  e->partner = partner;
  e->tag = tag;
  e->comm = comm;
  e->size = size;
}

/* Stream indices: 0 = rank 0 thread 0, 1 = rank 0 thread 1, 2..4 = ranks
 * 1..3.  Ten messages, one of them (tag 99) never received. */
static void
build_events (void)
{
  add_ev (0, 0, 600, 1);                       /* Compute, with info */
  add_ev (0, 200, 601, 1);
  add_msg (0, 300, 1, 1, 1, WORLD, 10);
  add_msg (0, 400, 1, 3, 2, DUP, 20);
  add_msg (0, 500, 1, 2, 3, EVEN, 30);
  add_msg (0, 600, 1, 1, 4, INTER, 40);
  add_msg (0, 900, 0, 1, 4, INTER, 41);
  add_msg (0, 1000, 1, 2, 5, WORLD, HUGE_SIZE);
  logfmt_event_t *loss = &streams[0].ev[streams[0].n++];
  memset (loss, 0, sizeof *loss);
  loss->time = 1100;
  loss->type = LOGFMT_REC_LOSS;
  loss->state = -1;
  loss->size = 7;
  add_msg (0, 1200, 1, 3, 99, WORLD, 99);
  add_ev (0, 1300, 5000, 0);                   /* Tick */

  add_ev (1, 150, 602, 0);                     /* the long-named state */
  add_ev (1, 250, 603, 0);
  add_ev (1, 350, 5000, 0);

  add_msg (2, 350, 0, 0, 1, WORLD, 10);
  add_msg (2, 650, 0, 0, 4, INTER, 40);
  add_msg (2, 700, 1, 0, 4, INTER, 41);
  add_msg (2, 750, 1, 3, 6, ODD, 60);
  add_msg (2, 800, 1, 1, 8, SELF1, 80);
  add_msg (2, 810, 0, 1, 8, SELF1, 80);

  add_msg (3, 550, 0, 0, 3, EVEN, 30);
  add_msg (3, 600, 1, 3, 4, INTER, 42);
  add_msg (3, 1050, 0, 0, 5, WORLD, HUGE_SIZE);

  add_ev (4, 100, 600, 0);
  add_msg (4, 450, 0, 0, 2, DUP, 20);
  add_msg (4, 660, 0, 2, 4, INTER, 42);
  add_msg (4, 780, 0, 1, 6, ODD, 60);
  add_ev (4, 790, 601, 0);
}

static int
write_source (const char *path)
{
  logfmt_writer_opts_t o = { .size = sizeof o, .match_messages = 1,
                             .creator = "export test", .world_size = 4 };
  logfmt_writer_t *w = NULL;
  logfmt_error_t err = { 0 };
  if (logfmt_writer_open (path, &o, &w, &err))
    {
      diag ("writer: %s", err.message);
      return -1;
    }
  logfmt_state_def_t st[] = {
    { 600, 601, "Compute", "#ff0000", "iter %d", 0 },
    { 602, 603, LONG_NAME, "gray", NULL, 0 },
  };
  for (size_t i = 0; i < N (st); i++)
    logfmt_writer_add_state (w, &st[i]);
  logfmt_event_def_t tick = { 5000, "Tick", "white", NULL, 0 };
  logfmt_writer_add_event_def (w, &tick);
  logfmt_const_def_t k[] = { { "MPI_ANY_TAG", -1 }, { "BIG", 1ll << 40 } };
  for (size_t i = 0; i < N (k); i++)
    logfmt_writer_add_const (w, &k[i]);
  static const int32_t world[] = { 0, 1, 2, 3 }, even[] = { 0, 2 };
  static const int32_t odd[] = { 1, 3 }, inter[] = { 0, 2, 1, 3 };
  static const int32_t self1[] = { 1 };
  logfmt_comm_def_t c[] = {
    { WORLD, 1, "MPI_COMM_WORLD", 4, world },
    { DUP, 1, "dup", 4, world },
    { EVEN, 1, "even", 2, even },
    { ODD, 1, "odd", 2, odd },
    { INTER, 0, "even-odd", 4, inter },
    { SELF1, 1, "MPI_COMM_SELF", 1, self1 },
  };
  for (size_t i = 0; i < N (c); i++)
    logfmt_writer_add_comm (w, &c[i]);
  static const char *hosts[] = { "node0", "node0", "node1", "node2",
                                 "a-host-name-longer-than-20" };
  for (int s = 0; s < 5; s++)
    {
      logfmt_stream_def_t d = { streams[s].rank, streams[s].thread,
                                hosts[s] };
      uint32_t id;
      logfmt_writer_add_stream (w, &d, &id);
    }
  for (int s = 0; s < 5; s++)
    if (logfmt_writer_event (w, (uint32_t) s, streams[s].ev, streams[s].n))
      {
        logfmt_writer_abort (w);
        return -1;
      }
  return logfmt_writer_finish (w, &err);
}

/* Every event of every stream, in order, as the writer was given it
 * (minus the LOSS record; sizes above 2^31-1 clamped). */
static void
check_events (const logfmt_reader_t *r)
{
  int good = 1;
  size_t total = 0;
  for (uint32_t s = 0; s < 5; s++)
    {
      const logfmt_stream_def_t *d = logfmt_reader_stream (r, s);
      if (!d || d->rank != streams[s].rank
          || d->thread != streams[s].thread)
        {
          good = 0;
          diag ("  stream %u is not rank %d thread %d", s, streams[s].rank,
                streams[s].thread);
          continue;
        }
      logfmt_iter_t *it;
      logfmt_event_t e;
      size_t i = 0;
      logfmt_iter_new (r, s, 0, UINT64_MAX, &it);
      while (logfmt_iter_next (it, &e) == 1)
        {
          while (i < streams[s].n
                 && streams[s].ev[i].type == LOGFMT_REC_LOSS)
            i++;
          const logfmt_event_t *w = &streams[s].ev[i];
          uint64_t size = w->size > INT32_MAX ? INT32_MAX : w->size;
          int same = i < streams[s].n && e.time == w->time
                     && e.type == w->type
                     && (w->type == LOGFMT_REC_EVENT
                         ? e.id == w->id
                         : e.partner == w->partner && e.tag == w->tag
                           && e.size == size)
                     && (e.flags & LOGFMT_EVF_CARGO)
                        == (w->flags & LOGFMT_EVF_CARGO)
                     && (!(w->flags & LOGFMT_EVF_CARGO)
                         || memcmp (e.cargo, w->cargo, LOGFMT_CARGO_SIZE)
                            == 0);
          if (!same)
            {
              good = 0;
              diag ("  stream %u event %zu: time %" PRIu64 " type %d id %d "
                    "partner %d tag %d size %" PRIu64, s, i, e.time, e.type,
                    e.id, e.partner, e.tag, e.size);
            }
          i++;
          total++;
        }
      logfmt_iter_free (it);
    }
  ok (good, "every event comes back at its exact time, with its id, "
      "partner, tag, size and cargo");
  ASSERT_EQ (total, 27, "27 events (28 records, minus the LOSS)");
  ASSERT_EQ (logfmt_reader_info (r)->nevents, 27, "reader counts 27");
}

static const struct
{
  int32_t  from, to, tag;
  uint64_t ts, tr, size;
  int      inter;
} arrows[] = {
  { 0, 1, 1, 300, 350, 10, 0 }, { 0, 3, 2, 400, 450, 20, 0 },
  { 0, 2, 3, 500, 550, 30, 0 }, { 0, 1, 4, 600, 650, 40, 1 },
  { 1, 0, 4, 700, 900, 41, 1 }, { 2, 3, 4, 600, 660, 42, 1 },
  { 0, 2, 5, 1000, 1050, INT32_MAX, 0 }, { 1, 3, 6, 750, 780, 60, 0 },
  { 1, 1, 8, 800, 810, 80, 0 },
};

static void
check_arrows (const logfmt_reader_t *r)
{
  int seen[N (arrows)] = { 0 }, good = 1, unmatched = 0, n = 0;
  uint32_t inter_comm = UINT32_MAX;
  logfmt_msg_iter_t *mi;
  logfmt_message_t m;
  logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi);
  while (logfmt_msg_iter_next (mi, &m) == 1)
    {
      n++;
      if (m.recv_stream == LOGFMT_NO_STREAM)
        {
          unmatched++;
          good &= m.send_rank == 0 && m.recv_rank == 3 && m.tag == 99
                  && m.send_time == 1200;
          continue;
        }
      size_t i = 0;
      while (i < N (arrows)
             && (seen[i] || arrows[i].from != m.send_rank
                 || arrows[i].to != m.recv_rank || arrows[i].tag != m.tag
                 || arrows[i].ts != m.send_time
                 || arrows[i].tr != m.recv_time
                 || arrows[i].size != m.size))
        i++;
      if (i == N (arrows))
        {
          good = 0;
          diag ("  unexpected arrow %d -> %d tag %d %" PRIu64 " -> %" PRIu64
                " size %" PRIu64, m.send_rank, m.recv_rank, m.tag,
                m.send_time, m.recv_time, m.size);
          continue;
        }
      seen[i] = 1;
      if (arrows[i].inter)
        {
          if (inter_comm == UINT32_MAX)
            inter_comm = m.comm;
          good &= inter_comm == m.comm;
        }
    }
  logfmt_msg_iter_free (mi);
  for (size_t i = 0; i < N (arrows); i++)
    good &= seen[i];
  ASSERT_EQ (n, 10, "10 messages");
  ASSERT_EQ (unmatched, 1, "the one unmatched send stays unmatched");
  ok (good, "every message is the same arrow: ranks, tag, times, size");

  int inter_ok = 0;
  for (size_t i = 0; i < logfmt_reader_n_comms (r); i++)
    {
      const logfmt_comm_def_t *d = logfmt_reader_comm (r, i);
      static const int32_t want[4] = { 0, 2, 1, 3 };
      if (d->id == inter_comm)
        inter_ok = d->kind == 0 && d->size == 4 && d->ranks
                   && memcmp (d->ranks, want, sizeof want) == 0;
    }
  ok (inter_ok, "the intercomm's arrows share one comm, defined as inter "
      "with groups {0,2} and {1,3}");
}

static void
check_defs (const logfmt_reader_t *r)
{
  int compute = 0, longname = 0, tick = 0, big = 0;
  for (size_t i = 0; i < logfmt_reader_n_states (r); i++)
    {
      const logfmt_state_def_t *d = logfmt_reader_state (r, i);
      compute += strcmp (d->name, "Compute") == 0 && d->start_id == 600
                 && strcmp (d->color, "red") == 0 && d->format
                 && strcmp (d->format, "iter %d") == 0;
      longname += strncmp (d->name, LONG_NAME, 31) == 0
                  && strlen (d->name) == 31 && d->start_id == 602;
    }
  for (size_t i = 0; i < logfmt_reader_n_event_defs (r); i++)
    {
      const logfmt_event_def_t *d = logfmt_reader_event_def (r, i);
      tick += d->id == 5000 && strcmp (d->name, "Tick") == 0;
    }
  for (size_t i = 0; i < logfmt_reader_n_consts (r); i++)
    {
      const logfmt_const_def_t *k = logfmt_reader_const (r, i);
      big += strcmp (k->name, "BIG") == 0 && k->value == INT32_MAX;
    }
  ok (compute, "Compute keeps its ids and format; #ff0000 became \"red\"");
  ok (longname, "the long state name is cut to CLOG2's 31 characters");
  ok (tick, "the Tick event definition is kept");
  ok (big, "a 64-bit constant is clamped to INT32_MAX");
  ASSERT_STREQ (logfmt_reader_stream (r, 2)->host, "node1",
                "host names travel in MPI_COMM_SELF's UUID");
  ASSERT_STREQ (logfmt_reader_stream (r, 4)->host,
                "a-host-name-longer-t", "... cut to its 20 bytes");
}

static void
check_failures (const logfmt_reader_t *r, const char *tmp)
{
  char p[4200];
  logfmt_error_t err = { 0 };
  snprintf (p, sizeof p, "%s/no/such/dir/out.clog2", tmp);
  int rc = logfmt_export_clog2 (r, p, NULL, NULL, NULL, &err);
  ok (rc == LOGFMT_EIO && strstr (err.message, "out.clog2") != NULL,
      "an unwritable path fails clearly: %s", err.message);
  rc = logfmt_export_clog2 (NULL, p, NULL, NULL, NULL, &err);
  ASSERT_EQ (rc, LOGFMT_EINVAL, "no reader: EINVAL");
}

/* MPE2's own way of logging communicators (clog2-util gen-comm: dup,
 * split comms, two intercomms whose sides name their own groups) through
 * CLOG2 -> reader -> CLOG2 -> reader: the same 9 arrows, on two distinct
 * intercomms. */
static void
check_mpe2_comms (const char *tmp)
{
  char in[4200], out[4200];
  snprintf (in, sizeof in, "%s/comms.clog2", tmp);
  snprintf (out, sizeof out, "%s/comms-again.clog2", tmp);
  logfmt_reader_t *a = NULL, *b = NULL;
  logfmt_error_t err = { 0 };
  logfmt_clog2_report_t rep = { .size = sizeof rep };
  if (do_gen_comm (in) || logfmt_reader_open (in, 0, &a, &err)
      || logfmt_export_clog2 (a, out, NULL, NULL, &rep, &err)
      || logfmt_reader_open (out, 0, &b, &err))
    {
      ok (0, "communicator file round trip: %s", err.message);
      logfmt_reader_close (a);
      return;
    }
  long n[12];
  ok (do_check (out, n) == 0 && n[7] == 18, "it passes the layout check, "
      "18 message records");
  ASSERT_EQ (rep.ends_on_world + rep.comms_world_numbered, 0,
             "every communicator written as MPE2 would");
  /* Arrows of both, as (from, to, tag, send, recv) and the comm's
   * position among the intercomms. */
  uint64_t sig[2][9];
  int cnt[2] = { 0, 0 };
  uint32_t ic[2][2] = { { UINT32_MAX, UINT32_MAX },
                        { UINT32_MAX, UINT32_MAX } };
  for (int f = 0; f < 2; f++)
    {
      const logfmt_reader_t *r = f ? b : a;
      logfmt_msg_iter_t *mi;
      logfmt_message_t m;
      logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi);
      while (logfmt_msg_iter_next (mi, &m) == 1 && cnt[f] < 9)
        {
          int k = 0;
          const logfmt_comm_def_t *d = NULL;
          for (size_t i = 0; i < logfmt_reader_n_comms (r); i++)
            if (logfmt_reader_comm (r, i)->id == m.comm)
              d = logfmt_reader_comm (r, i);
          if (d && d->kind == 0)
            {
              k = ic[f][0] == UINT32_MAX || ic[f][0] == m.comm ? 1 : 2;
              ic[f][k - 1] = m.comm;
            }
          sig[f][cnt[f]++] = (uint64_t) m.send_rank << 60
                             | (uint64_t) m.recv_rank << 56
                             | (uint64_t) m.tag << 48
                             | (uint64_t) k << 44 | m.send_time << 22
                             | m.recv_time
                             | (m.recv_stream == LOGFMT_NO_STREAM
                                ? 1ull << 43 : 0);
        }
      logfmt_msg_iter_free (mi);
    }
  int same = cnt[0] == 9 && cnt[1] == 9
             && logfmt_reader_info (b)->nmessages == 9;
  for (int i = 0; same && i < 9; i++)
    same = sig[0][i] == sig[1][i];
  ok (same, "the same 9 arrows, on the same two intercomms, none "
      "unmatched");
  logfmt_reader_close (a);
  logfmt_reader_close (b);
}

int
main (void)
{
  char tmp[] = "/tmp/interop-export.XXXXXX", src[4200], out[4200];
  if (!mkdtemp (tmp))
    return 1;
  snprintf (src, sizeof src, "%s/src.clog", tmp);
  snprintf (out, sizeof out, "%s/out.clog2", tmp);
  build_events ();
  ASSERT_EQ (write_source (src), 0, "source .clog written");

  logfmt_reader_t *r = NULL, *back = NULL;
  logfmt_error_t err = { 0 };
  ASSERT_EQ (logfmt_reader_open (src, 0, &r, &err), 0, "source opens");
  logfmt_clog2_report_t rep = { .size = sizeof rep };
  int rc = logfmt_export_clog2 (r, out, NULL, NULL, &rep, &err);
  ok (rc == 0, "exported to CLOG2 (%d %s)", rc, rc ? err.message : "");
  ASSERT_EQ (rep.events, 27, "report: 27 events written");
  ASSERT_EQ (rep.losses_dropped, 1, "report: the LOSS record dropped");
  ASSERT_EQ (rep.sizes_clamped, 2, "report: both ends of the 3 GB message "
             "clamped");
  ASSERT_EQ (rep.ends_on_world, 0, "report: every end on its own comm");
  ASSERT_EQ (rep.comms_world_numbered, 0, "report: the intercomm's groups "
             "were found");
  ASSERT_EQ (rep.strings_cut, 2, "report: the long name and the long host");
  ASSERT_EQ (rep.colors_named, 1, "report: one #rrggbb colour named");
  ASSERT_EQ (rep.consts_clamped, 1, "report: one constant clamped");

  long n[12];
  ok (do_check (out, n) == 0, "the CLOG2 file passes the strict layout "
      "check");
  ASSERT_EQ (n[5] + n[6], 8, "8 state and solo event records");
  ASSERT_EQ (n[6], 2, "2 of them with cargo");
  ASSERT_EQ (n[7], 19, "19 message records");
  ASSERT_EQ (n[2], 2, "2 state definitions");
  ASSERT_EQ (n[3], 1, "1 event definition");
  ASSERT_EQ (n[4], 2, "2 constants");
  ASSERT_EQ (n[11], 4, "one TIMESHIFT per process");

  rc = logfmt_reader_open (out, 0, &back, &err);
  ok (rc == 0, "our CLOG2 reader opens it (%s)", rc ? err.message : "");
  if (back)
    {
      ASSERT_EQ (logfmt_reader_info (back)->nstreams, 5, "5 streams");
      ASSERT_EQ (logfmt_reader_info (back)->world_size, 4, "world size 4");
      check_events (back);
      check_arrows (back);
      check_defs (back);
      logfmt_reader_close (back);
    }
  check_failures (r, tmp);
  check_mpe2_comms (tmp);
  logfmt_reader_close (r);

  char cmd[4300];
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system (cmd))
    diag ("could not remove %s", tmp);
  return exit_status ();
}

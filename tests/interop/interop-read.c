/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real MPE2 logs open through logfmt_reader_open and give exactly the
 * counts MPE2's own clog2_print reports (tests/interop/data/README.md),
 * in both byte orders, as a local (unfinalized) file, and for synthetic
 * CLOG2 files whose every time and partner is known (one of them with
 * split, dup and intercommunicators as MPE2 records them).
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

typedef struct
{
  const char *name;
  long        n;
} count_t;

typedef struct
{
  count_t  states[16], solos[16];
  size_t   nstates, nsolos;
  uint64_t sends, recvs, matched, unmatched, bad_partner;
  uint64_t events;
  const logfmt_reader_t *r;
} tally_t;

static void
bump (count_t *c, size_t *n, const char *name)
{
  for (size_t i = 0; i < *n; i++)
    if (strcmp (c[i].name, name) == 0)
      {
        c[i].n++;
        return;
      }
  if (*n < 16)
    c[(*n)++] = (count_t) { name, 1 };
}

static int
tally_file (const char *path, tally_t *t, logfmt_reader_t **out)
{
  logfmt_error_t err = { 0 };
  logfmt_reader_t *r = NULL;
  memset (t, 0, sizeof *t);
  int rc = logfmt_reader_open (path, 0, &r, &err);
  if (!ok (rc == 0 && r, "%s opens", path))
    {
      diag ("  rc %d: %s", rc, err.message);
      return -1;
    }
  const logfmt_info_t *info = logfmt_reader_info (r);
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      logfmt_iter_t *it;
      logfmt_event_t ev;
      if (logfmt_iter_new (r, s, 0, UINT64_MAX, &it))
        return -1;
      while (logfmt_iter_next (it, &ev) == 1)
        {
          t->events++;
          if (ev.kind == LOGFMT_KIND_BEGIN)
            bump (t->states, &t->nstates,
                  logfmt_reader_state (r, (size_t) ev.state)->name);
          else if (ev.kind == LOGFMT_KIND_SOLO)
            {
              int d = logfmt_reader_find_event_def (r, ev.id);
              bump (t->solos, &t->nsolos,
                    d >= 0 ? logfmt_reader_event_def (r, (size_t) d)->name
                           : "(undefined)");
            }
          else if (ev.kind == LOGFMT_KIND_SEND)
            t->sends++;
          else if (ev.kind == LOGFMT_KIND_RECV)
            t->recvs++;
        }
      logfmt_iter_free (it);
    }
  logfmt_msg_iter_t *mi;
  logfmt_message_t m;
  if (logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi) == 0)
    {
      while (logfmt_msg_iter_next (mi, &m) == 1)
        {
          if (m.send_stream != LOGFMT_NO_STREAM
              && m.recv_stream != LOGFMT_NO_STREAM)
            t->matched++;
          else
            t->unmatched++;
          /* Every rank in these files has a stream of its own. */
          if (m.send_rank < 0 || m.send_rank >= (int32_t) info->nstreams
              || m.recv_rank < 0
              || m.recv_rank >= (int32_t) info->nstreams)
            t->bad_partner++;
        }
      logfmt_msg_iter_free (mi);
    }
  t->r = r;
  *out = r;
  return 0;
}

/* Every expected name with its exact count, and nothing else. */
static void
check_counts (const char *what, const count_t *got, size_t ngot,
              const count_t *want, size_t nwant)
{
  int good = ngot == nwant;
  for (size_t i = 0; i < nwant; i++)
    {
      long n = -1;
      for (size_t j = 0; j < ngot; j++)
        if (strcmp (got[j].name, want[i].name) == 0)
          n = got[j].n;
      if (n != want[i].n)
        {
          good = 0;
          diag ("  %s %s: got %ld, want %ld", what, want[i].name, n,
                want[i].n);
        }
    }
  if (ngot != nwant)
    for (size_t j = 0; j < ngot; j++)
      diag ("  %s seen: %s %ld", what, got[j].name, got[j].n);
  ok (good, "%s counts match exactly", what);
}

static const count_t cpi_states[] = {
  { "Broadcast", 20 }, { "Compute", 20 }, { "Reduce", 20 }, { "Sync", 20 },
  { "MPI_Barrier", 20 }, { "MPI_Bcast", 20 }, { "MPI_Reduce", 20 }
};
static const count_t cpi_solos[] = {
  { "Broadcast Post", 20 }, { "Compute Start", 20 }, { "Compute End", 20 },
  { "MPE_Comm_init", 4 }, { "MPE_Comm_finalize", 4 }
};
static const count_t comm_solos[] = {
  { "MPE_Comm_init", 4 }, { "MPE_Comm_finalize", 4 }
};
static const count_t sr_states[] = {
  { "MPI_Send", 5000 }, { "MPI_Recv", 7000 }, { "MPI_Comm_rank", 4 },
  { "MPI_Comm_size", 4 }
};
static const count_t fpi_states[] = {
  { "User_Broadcast", 8 }, { "User_Barrier", 8 }, { "User_Compute", 8 },
  { "User_Reduce", 8 }, { "BARRIER", 12 }, { "BCAST", 8 }, { "REDUCE", 8 },
  { "RECV", 15 }, { "SEND", 15 }, { "SENDRECV", 24 }
};

#define N(a) (sizeof (a) / sizeof (a)[0])

static void
check_sample (const char *label, const char *path, const count_t *st,
              size_t nst, const count_t *so, size_t nso, uint64_t msgs,
              uint32_t nstreams)
{
  tally_t t;
  logfmt_reader_t *r;
  diag ("%s: %s", label, path);
  if (tally_file (path, &t, &r))
    return;
  const logfmt_info_t *info = logfmt_reader_info (r);
  ASSERT_EQ (info->nstreams, nstreams, "one stream per rank");
  ASSERT_EQ (info->world_size, 4, "world size 4");
  ASSERT_EQ (info->t_first, 0, "times start at 0");
  check_counts ("states", t.states, t.nstates, st, nst);
  check_counts ("solo events", t.solos, t.nsolos, so, nso);
  ASSERT_EQ (t.sends, msgs, "send records");
  ASSERT_EQ (t.recvs, msgs, "receive records");
  ASSERT_EQ (t.matched, msgs, "every message matched");
  ASSERT_EQ (t.unmatched, 0, "no unmatched message");
  ASSERT_EQ (t.bad_partner, 0, "partners are world ranks");
  logfmt_reader_close (r);
}

/* The packed info of cpilog_pack's states decodes through the formats. */
static void
check_pack_cargo (const char *path)
{
  logfmt_reader_t *r = NULL;
  if (logfmt_reader_open (path, 0, &r, NULL))
    {
      ok (0, "cpilog_pack reopens");
      return;
    }
  int found = 0, good = 0;
  logfmt_iter_t *it;
  logfmt_event_t ev;
  logfmt_iter_new (r, 0, 0, UINT64_MAX, &it);
  while (logfmt_iter_next (it, &ev) == 1)
    if (ev.kind == LOGFMT_KIND_END && (ev.flags & LOGFMT_EVF_CARGO))
      {
        const logfmt_state_def_t *d = logfmt_reader_state (r, (size_t) ev.state);
        char text[128];
        if (strcmp (d->name, "Compute") != 0)
          continue;
        found++;
        double v = 0;
        int iter = -1;
        /* Rank 0's share of pi, iterations 0..4 in order. */
        if (logfmt_format_cargo (d->format, ev.cargo, LOGFMT_CARGO_SIZE, text,
                                 sizeof text) > 0
            && sscanf (text, "mypi = %lf computed at iteration %d.", &v,
                       &iter) == 2
            && v > 0.785398 && v < 0.7854 && iter == found - 1)
          good++;
        else
          diag ("  Compute info: \"%s\" (format \"%s\")", text, d->format);
      }
  logfmt_iter_free (it);
  ASSERT_EQ (found, 5, "rank 0 has 5 Compute states with cargo");
  ASSERT_EQ (good, found, "their info decodes to \"mypi = 0.785399 computed at "
             "iteration 0..4\"");
  logfmt_reader_close (r);
}

/* Synthetic file: exact times, partners and cargo. */
static void
check_gen (const char *path)
{
  const int ranks = 3, iters = 50;
  if (do_gen (path, ranks, iters, 1024, 1))
    {
      ok (0, "generate synthetic CLOG2");
      return;
    }
  tally_t t;
  logfmt_reader_t *r;
  if (tally_file (path, &t, &r))
    return;
  static const count_t st[] = { { "Compute", 150 }, { "MPI_Send", 150 },
                                { "MPI_Recv", 150 } };
  static const count_t so[] = { { "Tick", 15 } };
  check_counts ("synthetic states", t.states, t.nstates, st, N (st));
  check_counts ("synthetic solo events", t.solos, t.nsolos, so, N (so));
  ASSERT_EQ (t.matched, 150, "synthetic messages matched");
  ASSERT_EQ (logfmt_reader_info (r)->nstreams, 3, "three streams");
  ASSERT_STREQ (logfmt_reader_stream (r, 2)->host, "node2",
                "host name from the MPI_COMM_SELF UUID");

  /* Rank 1, iteration 0 starts 1 us after the origin (rank 0's start);
   * Compute's end cargo holds the iteration. */
  logfmt_iter_t *it;
  logfmt_event_t ev;
  logfmt_iter_new (r, 1, 0, UINT64_MAX, &it);
  logfmt_iter_next (it, &ev);
  ASSERT_EQ (ev.time, 1000, "rank 1 first event at 1000 ns");
  ASSERT_EQ (ev.id, 600, "it is Compute's start");
  uint64_t t_end = 0;
  int32_t iter = -1;
  while (logfmt_iter_next (it, &ev) == 1)
    if (ev.id == 601 && ev.time > 100000 * 3)
      {
        t_end = ev.time;
        iter = (int32_t) ((uint32_t) ev.cargo[0] << 24
                          | (uint32_t) ev.cargo[1] << 16
                          | (uint32_t) ev.cargo[2] << 8 | ev.cargo[3]);
        break;
      }
  logfmt_iter_free (it);
  ASSERT_EQ (t_end, 3 * 100000 + 1000 + 10000, "iteration 3 end time (ns)");
  ASSERT_EQ (iter, 3, "cargo carries the iteration");

  logfmt_msg_iter_t *mi;
  logfmt_message_t m;
  int right = 0, n = 0;
  logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi);
  while (logfmt_msg_iter_next (mi, &m) == 1)
    {
      n++;
      /* 40 us apart, plus 1 us per rank of start skew. */
      right += m.recv_rank == (m.send_rank + 1) % ranks && m.size == 64
               && m.recv_time + 1000 * (uint64_t) m.send_rank
                  == m.send_time + 40000 + 1000 * (uint64_t) m.recv_rank;
    }
  logfmt_msg_iter_free (mi);
  ASSERT_EQ (right, n, "every arrow goes to the next rank, 64 bytes, "
             "at the exact times");
  logfmt_reader_close (r);
}

/* Threads: one stream per (rank, thread), in rank-major order. */
static void
check_threads (const char *path)
{
  if (do_gen (path, 2, 20, 512, 2))
    {
      ok (0, "generate threaded CLOG2");
      return;
    }
  tally_t t;
  logfmt_reader_t *r;
  if (tally_file (path, &t, &r))
    return;
  const logfmt_info_t *info = logfmt_reader_info (r);
  ASSERT_EQ (info->nstreams, 4, "2 ranks x 2 threads = 4 streams");
  int order = 1;
  for (uint32_t s = 0; s < 4; s++)
    order &= logfmt_reader_stream (r, s)->rank == (int32_t) s / 2
             && logfmt_reader_stream (r, s)->thread == (int32_t) s % 2;
  ok (order, "streams are (0,0) (0,1) (1,0) (1,1)");
  ASSERT_EQ (logfmt_reader_stream_events (r, 1), 10 * 8,
             "thread 1 of rank 0 logged the odd iterations");
  static const count_t st[] = { { "Compute", 40 }, { "MPI_Send", 40 },
                                { "MPI_Recv", 40 } };
  check_counts ("threaded states", t.states, t.nstates, st, N (st));
  ASSERT_EQ (t.matched, 40, "threaded messages matched");
  logfmt_reader_close (r);
}

/* A small step backwards in time within a stream is clamped. */
static void
check_backstep (const char *path)
{
  gen_backstep = 1;
  int rc = do_gen (path, 2, 3, 1024, 1);
  gen_backstep = 0;
  logfmt_reader_t *r = NULL;
  if (rc || logfmt_reader_open (path, 0, &r, NULL))
    {
      ok (0, "backstep file opens");
      return;
    }
  logfmt_iter_t *it;
  logfmt_event_t ev;
  uint64_t prev = 0, start1 = 0, end1 = 0;
  int mono = 1;
  logfmt_iter_new (r, 0, 0, UINT64_MAX, &it);
  while (logfmt_iter_next (it, &ev) == 1)
    {
      mono &= ev.time >= prev;
      prev = ev.time;
      if (ev.id == 600 && ev.time == 100000)
        start1 = ev.time;
      if (ev.id == 601 && start1 && !end1)
        end1 = ev.time;
    }
  logfmt_iter_free (it);
  ok (mono, "times never decrease within the stream");
  ASSERT_EQ (start1, 100000, "iteration 1 starts at 100 us");
  ASSERT_EQ (end1, 100000, "its end, logged 0.5 us earlier, is clamped to "
             "the start");
  logfmt_reader_close (r);
}

/* Communicators as MPE2 logs them: a dup, split communicators and two
 * intercommunicators whose two sides record each message on their own
 * group's comm id (do_gen_comm).  Every message is one arrow between the
 * right world ranks, at its exact times, on the right communicator. */
static const struct
{
  int32_t  from, to, tag;
  uint64_t ts, tr;              /* ns */
  int      inter;               /* 1: first intercomm, 2: its dup */
} comm_arrows[] = {
  { 3, 0, 7, 1000, 6000, 0 },
  { 0, 2, 1, 11000, 16000, 0 }, { 1, 3, 1, 11000, 16000, 0 },
  { 0, 1, 5, 21000, 26000, 1 }, { 2, 3, 5, 21000, 26000, 1 },
  { 1, 0, 5, 31000, 36000, 1 }, { 3, 2, 5, 31000, 36000, 1 },
  { 0, 1, 9, 41000, 47000, 1 }, { 0, 1, 9, 42000, 46000, 2 },
};

static void
check_comms (const char *path)
{
  if (do_gen_comm (path))
    {
      ok (0, "generate the communicator CLOG2 file");
      return;
    }
  tally_t t;
  logfmt_reader_t *r;
  if (tally_file (path, &t, &r))
    return;
  ASSERT_EQ (logfmt_reader_info (r)->nstreams, 4, "communicators: four "
             "streams, one per world rank");
  ASSERT_EQ (t.sends, 9, "communicators: 9 send records");
  ASSERT_EQ (t.recvs, 9, "communicators: 9 receive records");
  ASSERT_EQ (t.matched, 9, "communicators: 9 messages matched");
  ASSERT_EQ (t.unmatched, 0, "communicators: no unmatched message");

  int seen[N (comm_arrows)] = { 0 };
  uint32_t inter_comm[3] = { UINT32_MAX, UINT32_MAX, UINT32_MAX };
  int good = 1;
  logfmt_msg_iter_t *mi;
  logfmt_message_t m;
  logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi);
  while (logfmt_msg_iter_next (mi, &m) == 1)
    {
      size_t i = 0;
      while (i < N (comm_arrows)
             && (seen[i] || comm_arrows[i].from != m.send_rank
                 || comm_arrows[i].to != m.recv_rank
                 || comm_arrows[i].tag != m.tag
                 || comm_arrows[i].ts != m.send_time
                 || comm_arrows[i].tr != m.recv_time))
        i++;
      if (i == N (comm_arrows)
          || logfmt_reader_stream (r, m.send_stream)->rank != m.send_rank
          || logfmt_reader_stream (r, m.recv_stream)->rank != m.recv_rank
          || m.size != (uint64_t) (100 + m.tag))
        {
          good = 0;
          diag ("  unexpected arrow %d -> %d tag %d at %" PRIu64 " -> %"
                PRIu64, m.send_rank, m.recv_rank, m.tag, m.send_time,
                m.recv_time);
          continue;
        }
      seen[i] = 1;
      int k = comm_arrows[i].inter;
      if (k && inter_comm[k] == UINT32_MAX)
        inter_comm[k] = m.comm;
      else if (k && inter_comm[k] != m.comm)
        {
          good = 0;
          diag ("  arrow %zu on comm %u, its intercomm is %u", i, m.comm,
                inter_comm[k]);
        }
    }
  logfmt_msg_iter_free (mi);
  for (size_t i = 0; i < N (comm_arrows); i++)
    good &= seen[i];
  ok (good, "communicators: each message is one arrow between the right "
      "world ranks at its exact times");
  ok (inter_comm[1] != inter_comm[2], "the two intercomms stay apart "
      "(%u, %u)", inter_comm[1], inter_comm[2]);

  /* Each intercomm is defined as one, listing both groups. */
  int defs = 0;
  for (size_t i = 0; i < logfmt_reader_n_comms (r); i++)
    {
      const logfmt_comm_def_t *d = logfmt_reader_comm (r, i);
      if (d->id != inter_comm[1] && d->id != inter_comm[2])
        continue;
      static const int32_t want[4] = { 0, 2, 1, 3 };
      defs += d->kind == 0 && d->size == 4 && d->ranks
              && memcmp (d->ranks, want, sizeof want) == 0;
    }
  ASSERT_EQ (defs, 2, "both intercomms defined as inter, groups {0,2} and "
             "{1,3}");
  logfmt_reader_close (r);
}

/* The strict CLOG2 layout check (clog2-util's do_check, which also
 * judges the CLOG2 writer's output) accepts MPE2's own files and counts
 * their records as MPE2's clog2_print does (data/README.md). */
static void
check_layout_checker (const char *dir)
{
  char p[4200];
  long n[12];
  snprintf (p, sizeof p, "%s/cpilog.clog2", dir);
  int rc = do_check (p, n);
  ok (rc == 0 && n[5] == 348 && n[2] == 8 && n[3] == 5 && n[4] == 3
      && n[9] == 8 && n[11] == 24,
      "layout check passes cpilog.clog2: bare %ld, statedef %ld, eventdef "
      "%ld, constdef %ld, comm %ld, timeshift %ld", n[5], n[2], n[3], n[4],
      n[9], n[11]);
  snprintf (p, sizeof p, "%s/srtest.clog2", dir);
  rc = do_check (p, n);
  ok (rc == 0 && n[7] == 8000 && n[1] + 1 == 18,
      "layout check passes srtest.clog2: %ld messages in %ld blocks", n[7],
      n[1] + 1);
  snprintf (p, sizeof p, "%s/fpilog.clog", dir);
  ok (do_check (p, n) != 0, "layout check refuses a CLOG v1 file");
}

/* logfmt_file_kind by content, and logfmt_import_mpe2: the converted file
 * has what the import on open gives, and a non-MPE2 input is refused. */
static void
check_kind_and_import (const char *dir, const char *tmp)
{
  char p[4200], q[4200], bad[4200];
  logfmt_file_kind_t k = LOGFMT_FILE_UNKNOWN;
  logfmt_error_t err = { 0 };

  snprintf (p, sizeof p, "%s/cpilog.clog2", dir);
  ok (logfmt_file_kind (p, &k, &err) == 0 && k == LOGFMT_FILE_CLOG2,
      "file kind: CLOG2");
  snprintf (q, sizeof q, "%s/fpilog.clog", dir);
  ok (logfmt_file_kind (q, &k, &err) == 0 && k == LOGFMT_FILE_CLOG1,
      "file kind: CLOG v1 despite its .clog name");
  snprintf (bad, sizeof bad, "%s/garbage.clog2", tmp);
  FILE *f = fopen (bad, "w");
  if (f)
    {
      fputs ("this is not a log file at all, whatever its name says\n", f);
      fclose (f);
    }
  ok (logfmt_file_kind (bad, &k, &err) == 0 && k == LOGFMT_FILE_UNKNOWN,
      "file kind: garbage is unknown");

  char out[4200];
  snprintf (out, sizeof out, "%s/cpilog-converted.clog", tmp);
  int rc = logfmt_import_mpe2 (p, out, "test", NULL, NULL, &err);
  ok (rc == 0, "logfmt_import_mpe2 converts cpilog.clog2 (%d %s)", rc,
      rc ? err.message : "");
  ok (logfmt_file_kind (out, &k, &err) == 0 && k == LOGFMT_FILE_CLOG,
      "the result is a .clog");
  logfmt_reader_t *a = NULL, *b = NULL;
  if (logfmt_reader_open (p, 0, &a, &err) == 0
      && logfmt_reader_open (out, 0, &b, &err) == 0)
    {
      const logfmt_info_t *ia = logfmt_reader_info (a);
      const logfmt_info_t *ib = logfmt_reader_info (b);
      ok (ia->nevents == ib->nevents && ia->nmessages == ib->nmessages
          && ia->nstreams == ib->nstreams && ib->world_size == 4,
          "converted: %" PRIu64 " events, %" PRIu64 " messages, world %u"
          " as imported on open", ib->nevents, ib->nmessages,
          ib->world_size);
    }
  else
    ok (0, "converted file opens");
  logfmt_reader_close (a);
  logfmt_reader_close (b);

  snprintf (q, sizeof q, "%s/not-converted.clog", tmp);
  rc = logfmt_import_mpe2 (out, q, NULL, NULL, NULL, &err);
  ok (rc == LOGFMT_EBADMAGIC && access (q, F_OK) != 0,
      "a .clog is not MPE2: refused, nothing written (%d)", rc);
  rc = logfmt_import_mpe2 (bad, q, NULL, NULL, NULL, &err);
  ok (rc == LOGFMT_EBADMAGIC && strstr (err.message, "MPE2") != NULL,
      "garbage refused with a clear message: %s", err.message);
  unlink (out);
  unlink (bad);
}

int
main (void)
{
  const char *src = getenv ("top_srcdir");
  char dir[4096], tmp[] = "/tmp/interop-read.XXXXXX", p[4200], q[4200];
  snprintf (dir, sizeof dir, "%s/tests/interop/data", src ? src : ".");
  if (!mkdtemp (tmp))
    return 1;

  snprintf (p, sizeof p, "%s/cpilog.clog2", dir);
  check_sample ("cpilog", p, cpi_states, N (cpi_states), cpi_solos,
                N (cpi_solos), 0, 4);
  snprintf (p, sizeof p, "%s/cpilog_pack.clog2", dir);
  check_sample ("cpilog_pack", p, cpi_states, N (cpi_states), comm_solos,
                N (comm_solos), 0, 4);
  check_pack_cargo (p);
  snprintf (q, sizeof q, "%s/pack-le.clog2", tmp);
  do_swap (p, q, 0);
  check_sample ("cpilog_pack little-endian", q, cpi_states, N (cpi_states),
                comm_solos, N (comm_solos), 0, 4);
  check_pack_cargo (q);

  snprintf (p, sizeof p, "%s/srtest.clog2", dir);
  check_sample ("srtest", p, sr_states, N (sr_states), comm_solos,
                N (comm_solos), 4000, 4);
  snprintf (q, sizeof q, "%s/srtest-le.clog2", tmp);
  do_swap (p, q, 0);
  check_sample ("srtest little-endian", q, sr_states, N (sr_states),
                comm_solos, N (comm_solos), 4000, 4);
  snprintf (q, sizeof q, "%s/srtest-local.clog2", tmp);
  do_swap (p, q, 1);
  check_sample ("srtest as a local (unfinalized) LE file", q, sr_states,
                N (sr_states), comm_solos, N (comm_solos), 4000, 4);

  snprintf (p, sizeof p, "%s/fpilog.clog", dir);
  check_sample ("fpilog (CLOG v1)", p, fpi_states, N (fpi_states), NULL, 0,
                39, 4);

  check_kind_and_import (dir, tmp);
  check_layout_checker (dir);

  snprintf (q, sizeof q, "%s/gen.clog2", tmp);
  check_gen (q);
  snprintf (q, sizeof q, "%s/threads.clog2", tmp);
  check_threads (q);
  snprintf (q, sizeof q, "%s/backstep.clog2", tmp);
  check_backstep (q);
  snprintf (q, sizeof q, "%s/comms.clog2", tmp);
  check_comms (q);

  char cmd[4300];
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system (cmd))
    diag ("could not remove %s", tmp);
  return exit_status ();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The state-interval rule (docs/FORMAT.md "State intervals") on a log
 * written with the writer API that holds every awkward case: states that
 * overlap without nesting, an unmatched END, BEGINs left open at the end,
 * nesting beyond LOGFMT_STATE_MAX_DEPTH, several threads.  The instances
 * are checked against a hand-computed list; every window gives the
 * whole-stream instances that overlap it; the summaries agree with the
 * exclusive times.  `test-intervals --write PATH` only writes the log (for
 * tests/tools/clogtool-intervals.sh).
 */
#include "tests/common/tap.h"
#include "logfmt/logfmt.h"
#include "logfmt-reader-internal.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { A, B, C, NSTATES };
#define SOLO 40
#define DEEP 260        /* BEGIN A on stream 2, 4 beyond the limit */

static logfmt_event_t
ev (uint64_t t, int32_t id, int cargo)
{
  logfmt_event_t e;
  memset (&e, 0, sizeof e);
  e.time = t;
  e.type = LOGFMT_REC_EVENT;
  e.id = id;
  if (cargo)
    {
      /* MPE packs an int big-endian: "%d" prints it. */
      e.flags = LOGFMT_EVF_CARGO;
      e.cargo[3] = (uint8_t) cargo;
    }
  return e;
}

#define BEG(t, s) ev (t, 10 + 2 * (s), 0)
#define END(t, s) ev (t, 11 + 2 * (s), 0)

static int
write_log (const char *path)
{
  logfmt_writer_opts_t o = { .size = sizeof o, .block_events = 4,
                             .creator = "test-intervals", .world_size = 2 };
  logfmt_writer_t *w = NULL;
  logfmt_error_t err = { 0 };
  if (logfmt_writer_open (path, &o, &w, &err) != 0)
    {
      fprintf (stderr, "writer: %s\n", err.message);
      return -1;
    }
  static const char *names[NSTATES] = { "A", "B", "C" };
  static const char *colors[NSTATES] = { "red", "green", "blue" };
  for (int s = 0; s < NSTATES; s++)
    {
      logfmt_state_def_t d = { 10 + 2 * s, 11 + 2 * s, names[s], colors[s],
                               "n=%d", 0 };
      logfmt_writer_add_state (w, &d);
    }
  logfmt_event_def_t sd = { SOLO, "mark", "white", NULL, 0 };
  logfmt_writer_add_event_def (w, &sd);
  static const logfmt_stream_def_t streams[] = { { 0, 0, NULL },
                                                 { 0, 1, NULL },
                                                 { 1, 0, NULL } };
  for (size_t i = 0; i < 3; i++)
    {
      uint32_t id;
      logfmt_writer_add_stream (w, &streams[i], &id);
    }
  /* Stream 0 (rank 0, thread 0). */
  logfmt_event_t s0[] = {
    ev (100, 10, 7),            /* BEGIN A, cargo 7 */
    BEG (200, B),
    ev (300, 11, 8),            /* END A (B is inside and stays open) */
    BEG (400, C),
    ev (450, SOLO, 0),
    END (500, C),
    END (600, B),
    END (700, A),               /* unmatched */
    BEG (800, A), BEG (900, A), END (1000, A), END (1100, A),
    ev (1200, 12, 5),           /* BEGIN B, cargo 5, left open */
    BEG (1300, C),              /* left open */
    ev (1400, SOLO, 0),         /* last record: where they are cut */
  };
  /* Stream 1 (rank 0, thread 1): never paired with stream 0. */
  logfmt_event_t s1[] = { END (150, B), BEG (250, C), END (350, C) };
  int rc = logfmt_writer_event (w, 0, s0, sizeof s0 / sizeof *s0);
  if (rc == 0)
    rc = logfmt_writer_event (w, 1, s1, 3);
  /* Stream 2 (rank 1): DEEP nested A, a B among the too deep ones. */
  for (int i = 0; rc == 0 && i < DEEP; i++)
    {
      logfmt_event_t e = BEG (1000 + (uint64_t) i, A);
      rc = logfmt_writer_event (w, 2, &e, 1);
    }
  logfmt_event_t bb[] = { BEG (1300, B), END (1301, B) };
  if (rc == 0)
    rc = logfmt_writer_event (w, 2, bb, 2);
  for (int j = 0; rc == 0 && j < DEEP; j++)
    {
      logfmt_event_t e = END (1400 + (uint64_t) j, A);
      rc = logfmt_writer_event (w, 2, &e, 1);
    }
  if (rc != 0)
    {
      fprintf (stderr, "writer: %s\n", logfmt_strerror (rc));
      logfmt_writer_abort (w);
      return -1;
    }
  if (logfmt_writer_finish (w, &err) != 0)
    {
      fprintf (stderr, "finish: %s\n", err.message);
      return -1;
    }
  return 0;
}

/* The expected instances, in delivery order (END order, then those left
 * open, outermost first). */
typedef struct
{
  uint32_t stream;
  int32_t state;
  uint64_t start, end, excl;
  uint32_t depth, flags;
  int bcargo, ecargo;
} want_t;

#define OPEN LOGFMT_IV_OPEN

static const want_t want_fixed[] = {
  /* A ends with B inside: B stays open and keeps its time. */
  { 0, A, 100, 300, 100, 0, 0, 7, 8 },
  { 0, C, 400, 500, 100, 1, 0, 0, 0 },
  { 0, B, 200, 600, 300, 1, 0, 0, 0 },
  { 0, A, 900, 1000, 100, 1, 0, 0, 0 },
  { 0, A, 800, 1100, 200, 0, 0, 0, 0 },
  { 0, B, 1200, 1400, 100, 0, OPEN, 5, 0 },
  { 0, C, 1300, 1400, 100, 1, OPEN, 0, 0 },
  { 1, C, 250, 350, 100, 0, 0, 0, 0 },
};

/* Stream 2: instance k (k < 256) begins at 1000 + k at depth k; the 4
 * too-deep BEGINs and the B are closed by the first ENDs; the END at
 * 1400 + j (j >= 4) closes k = 259 - j.  The innermost tracked one
 * (k = 255) also holds the time of the too-deep ones. */
static size_t
expected (want_t *w, uint32_t stream)
{
  size_t n = 0;
  if (stream < 2)
    {
      for (size_t i = 0; i < sizeof want_fixed / sizeof *want_fixed; i++)
        if (want_fixed[i].stream == stream)
          w[n++] = want_fixed[i];
      return n;
    }
  for (int j = 4; j < DEEP; j++)
    {
      uint32_t k = (uint32_t) (259 - j);
      want_t x = { 2, A, 1000 + k, 1659 - k, k == 255 ? 149 : 2, k, 0, 0, 0 };
      w[n++] = x;
    }
  return n;
}

static int
same (const logfmt_interval_t *g, const want_t *w)
{
  int cargo_ok = 1;
  if (w->bcargo)
    cargo_ok &= (g->flags & LOGFMT_IV_BEGIN_CARGO)
                && g->begin_cargo[3] == w->bcargo;
  if (w->ecargo)
    cargo_ok &= (g->flags & LOGFMT_IV_END_CARGO)
                && g->end_cargo[3] == w->ecargo;
  uint32_t want_flags = w->flags | (w->bcargo ? LOGFMT_IV_BEGIN_CARGO : 0)
                        | (w->ecargo ? LOGFMT_IV_END_CARGO : 0);
  return g->stream == w->stream && g->state == w->state
         && g->start == w->start && g->end == w->end
         && g->inclusive == w->end - w->start && g->exclusive == w->excl
         && g->depth == w->depth && g->flags == want_flags && cargo_ok;
}

static size_t
collect (logfmt_interval_iter_t *it, logfmt_interval_t *out, size_t max)
{
  size_t n = 0;
  int rc;
  logfmt_interval_t iv;
  while ((rc = logfmt_interval_iter_next (it, &iv)) == 1)
    if (n < max)
      out[n++] = iv;
  if (rc < 0)
    diag ("iterator: %s", logfmt_interval_iter_error (it)->message);
  return rc < 0 ? (size_t) -1 : n;
}

static void
test_whole (const logfmt_reader_t *r)
{
  static want_t w[DEEP];
  static logfmt_interval_t got[DEEP + 8];
  logfmt_interval_iter_t *it = NULL;
  ok (logfmt_interval_iter_new (r, 0, 0, UINT64_MAX, &it) == 0, "iter_new");
  if (!it)
    return;
  for (uint32_t s = 0; s < 3; s++)
    {
      if (s > 0)
        logfmt_interval_iter_reset (it, s, 0, UINT64_MAX);
      size_t nw = expected (w, s);
      size_t ng = collect (it, got, DEEP + 8);
      int good = ng == nw;
      for (size_t i = 0; good && i < nw; i++)
        if (!same (&got[i], &w[i]))
          {
            diag ("stream %u instance %zu: state %d %llu..%llu excl %llu "
                  "depth %u flags %x", s, i, got[i].state,
                  (unsigned long long) got[i].start,
                  (unsigned long long) got[i].end,
                  (unsigned long long) got[i].exclusive, got[i].depth,
                  got[i].flags);
            good = 0;
          }
      ok (good, "stream %u: %zu instances exactly as computed by hand (got "
          "%zu)", s, nw, ng);
    }
  /* Tallies of the last pass (stream 2) and of stream 0. */
  logfmt_interval_counts_t c;
  logfmt_interval_iter_counts (it, A, &c);
  ok (c.closed == 256 && c.too_deep == 4 && c.unmatched_ends == 0
      && c.left_open == 0 && c.inclusive == 256 * 659 - 2 * (255 * 256 / 2)
      && c.exclusive == 255 * 2 + 149, "stream 2: A tallies (256 closed, "
      "4 too deep)");
  logfmt_interval_iter_counts (it, B, &c);
  ok (c.too_deep == 1 && c.closed == 0, "stream 2: the B among the too "
      "deep ones is counted, not an instance");
  logfmt_interval_iter_reset (it, 0, 0, UINT64_MAX);
  collect (it, got, DEEP);
  logfmt_interval_iter_counts (it, -1, &c);
  ok (c.closed == 5 && c.left_open == 2 && c.unmatched_ends == 1
      && c.too_deep == 0 && c.exclusive == 800, "stream 0: tallies over all "
      "states (5 closed, 2 left open, 1 unmatched END)");
  logfmt_interval_iter_reset (it, 1, 0, UINT64_MAX);
  collect (it, got, DEEP);
  logfmt_interval_iter_counts (it, B, &c);
  ok (c.unmatched_ends == 1 && c.closed == 0, "stream 1: an END is never "
      "paired with another thread's BEGIN");
  logfmt_interval_iter_free (it);
}

/* Every window gives the whole-stream instances overlapping it, field for
 * field, in the same order. */
static void
test_windows (const logfmt_reader_t *r)
{
  static const uint64_t edges[] = { 0, 99, 100, 150, 250, 300, 301, 450,
                                    599, 600, 700, 999, 1000, 1150, 1255,
                                    1300, 1301, 1400, 1403, 1404, 1500, 1658,
                                    1659, 1700, UINT64_MAX };
  size_t ne = sizeof edges / sizeof *edges;
  static logfmt_interval_t all[DEEP + 8], win[DEEP + 8];
  logfmt_interval_iter_t *it = NULL;
  if (logfmt_interval_iter_new (r, 0, 0, UINT64_MAX, &it) != 0)
    {
      ok (0, "iter_new for windows");
      return;
    }
  size_t checked = 0, bad = 0;
  for (uint32_t s = 0; s < 3; s++)
    {
      logfmt_interval_iter_reset (it, s, 0, UINT64_MAX);
      size_t na = collect (it, all, DEEP + 8);
      for (size_t a = 0; a < ne; a++)
        for (size_t b = a; b < ne; b++)
          {
            uint64_t t0 = edges[a], t1 = edges[b];
            logfmt_interval_iter_reset (it, s, t0, t1);
            size_t nw = collect (it, win, DEEP + 8);
            size_t k = 0;
            int good = 1;
            for (size_t i = 0; i < na && good; i++)
              if (all[i].start <= t1 && all[i].end >= t0)
                good = k < nw && memcmp (&all[i], &win[k++],
                                         offsetof (logfmt_interval_t,
                                                   begin_cargo)) == 0;
            good &= k == nw;
            checked++;
            if (!good && bad++ < 5)
              diag ("stream %u window [%llu, %llu]: %zu instances, want %zu",
                    s, (unsigned long long) t0, (unsigned long long) t1, nw,
                    k);
          }
    }
  ok (bad == 0, "%zu windows: the whole-stream instances overlapping each, "
      "unclipped", checked);
  logfmt_interval_iter_free (it);
}

/* Summaries hold per state the time it was innermost: over the whole
 * stream that is the sum of the instances' exclusive times. */
static void
test_summary_agrees (const logfmt_reader_t *r)
{
  static logfmt_interval_t all[DEEP + 8];
  logfmt_interval_iter_t *it = NULL;
  if (logfmt_interval_iter_new (r, 0, 0, UINT64_MAX, &it) != 0)
    return;
  for (uint32_t s = 0; s < 3; s++)
    {
      double want[NSTATES] = { 0 };
      logfmt_interval_iter_reset (it, s, 0, UINT64_MAX);
      size_t n = collect (it, all, DEEP + 8);
      for (size_t i = 0; i < n; i++)
        want[all[i].state] += (double) all[i].exclusive;
      enum { NB = 8 };
      float occ[NB * NSTATES];
      uint64_t t0 = 0, t1 = 2048;
      logfmt_error_t err = { 0 };
      int rc = logfmt_reader_summary (r, s, t0, t1, NB, occ, NULL, NULL,
                                      &err);
      int good = rc == 0;
      for (int st = 0; good && st < NSTATES; st++)
        {
          double got = 0;
          for (int b = 0; b < NB; b++)
            got += occ[b * NSTATES + st] * (double) (t1 - t0) / NB;
          if (fabs (got - want[st]) > 1e-3 * (want[st] + 1))
            {
              diag ("stream %u state %d: summary %.3f ns, instances %.0f",
                    s, st, got, want[st]);
              good = 0;
            }
        }
      ok (good, "stream %u: summary time per state = sum of exclusive "
          "times", s);
    }
  logfmt_interval_iter_free (it);
}

/* The tracker gives the exporters' view: what an END leaves open. */
static void
test_tracker (void)
{
  logfmt_state_tracker_t *tr = NULL;
  ok (logfmt_state_tracker_new (2, 7, &tr) == 0, "tracker_new");
  if (!tr)
    return;
  logfmt_event_t e;
  memset (&e, 0, sizeof e);
  logfmt_interval_t iv;
  uint32_t inner = 99;
  e.kind = LOGFMT_KIND_BEGIN, e.state = 0, e.time = 10;
  int r1 = logfmt_state_tracker_apply (tr, &e, &iv, &inner);
  e.state = 1, e.time = 20;
  int r2 = logfmt_state_tracker_apply (tr, &e, &iv, &inner);
  e.kind = LOGFMT_KIND_END, e.state = 0, e.time = 30;
  int r3 = logfmt_state_tracker_apply (tr, &e, &iv, &inner);
  ok (r1 == LOGFMT_STEP_OPENED && r2 == LOGFMT_STEP_OPENED
      && r3 == LOGFMT_STEP_CLOSED && inner == 1 && iv.stream == 7
      && iv.start == 10 && iv.end == 30 && iv.exclusive == 10,
      "tracker: END of the outer state closes it, one inner left open");
  const logfmt_interval_t *o = logfmt_state_tracker_open (tr, 0);
  ok (logfmt_state_tracker_depth (tr) == 1 && o && o->state == 1
      && o->exclusive == 10, "tracker: the inner one is open, innermost");
  e.state = 0, e.time = 40;
  ok (logfmt_state_tracker_apply (tr, &e, &iv, &inner)
      == LOGFMT_STEP_UNMATCHED_END, "tracker: a second END is unmatched");
  e.kind = LOGFMT_KIND_SOLO, e.time = 45;
  ok (logfmt_state_tracker_apply (tr, &e, &iv, &inner) == LOGFMT_STEP_NONE,
      "tracker: other records change nothing");
  ok (logfmt_state_tracker_cut (tr, 50, &iv) == 1 && iv.state == 1
      && iv.end == 50 && iv.exclusive == 30 && (iv.flags & LOGFMT_IV_OPEN)
      && logfmt_state_tracker_cut (tr, 50, &iv) == 0
      && logfmt_state_tracker_depth (tr) == 0,
      "tracker: cut gives the open one (exclusive to the cut), then none");
  logfmt_state_tracker_free (tr);
}

static int
same_instance (const logfmt_interval_t *a, const logfmt_interval_t *b)
{
  return a->stream == b->stream && a->state == b->state
         && a->start == b->start && a->end == b->end
         && a->inclusive == b->inclusive && a->exclusive == b->exclusive
         && a->depth == b->depth && a->flags == b->flags
         && (!(a->flags & LOGFMT_IV_BEGIN_CARGO)
             || memcmp (a->begin_cargo, b->begin_cargo, LOGFMT_CARGO_SIZE) == 0)
         && (!(a->flags & LOGFMT_IV_END_CARGO)
             || memcmp (a->end_cargo, b->end_cargo, LOGFMT_CARGO_SIZE) == 0);
}

/* The batch form reports what record-by-record application does, on
 * every stream of the log (nesting, overlap, unmatched, too deep, cargo),
 * in batches of 3 (so that instances open across batches). */
static void
test_batch (const logfmt_reader_t *r)
{
  for (uint32_t s = 0; s < 3; s++)
    {
      logfmt_iter_t *it = NULL;
      logfmt_event_t ev[1024];
      long n = 0;
      if (logfmt_iter_new (r, s, 0, UINT64_MAX, &it) == 0)
        n = logfmt_iter_next_batch (it, ev, 1024);
      logfmt_iter_free (it);
      logfmt_state_tracker_t *one = NULL, *many = NULL;
      logfmt_state_tracker_new (NSTATES, s, &one);
      logfmt_state_tracker_new (NSTATES, s, &many);
      int same = n > 0 && one && many, nclosed = 0, nunmatched = 0;
      for (long i = 0; same && i < n; i += 3)
        {
          size_t m = (size_t) (n - i < 3 ? n - i : 3);
          int32_t top[3], unm[3];
          logfmt_interval_t closed[3];
          logfmt_tracker_batch_t out = { top, closed, 0, unm, 0 };
          same = logfmt_state_tracker_apply_batch (many, ev + i, m, &out) == 0;
          size_t c = 0, u = 0;
          for (size_t k = 0; same && k < m; k++)
            {
              logfmt_interval_t iv;
              int step = logfmt_state_tracker_apply (one, &ev[i + k], &iv,
                                                     NULL);
              if (step == LOGFMT_STEP_CLOSED)
                same = c < out.nclosed && same_instance (&iv, &closed[c++]);
              else if (step == LOGFMT_STEP_UNMATCHED_END)
                same = u < out.nunmatched && unm[u++] == ev[i + k].state;
              uint32_t d = logfmt_state_tracker_depth (one);
              same = same && top[k] == (d ? logfmt_state_tracker_open (one, d - 1)
                                                ->state : -1);
            }
          same = same && c == out.nclosed && u == out.nunmatched;
          nclosed += (int) c;
          nunmatched += (int) u;
        }
      same = same && logfmt_state_tracker_depth (one)
                     == logfmt_state_tracker_depth (many);
      ok (same, "batch form on stream %u: the same %d instances, %d "
          "unmatched ENDs, innermost states and open ones as one by one",
          s, nclosed, nunmatched);
      logfmt_state_tracker_free (one);
      logfmt_state_tracker_free (many);
    }
}

/* What the nesting mode must give of a full tracker's instance: all but
 * the exclusive time and cargo, which it does not keep. */
static int
same_nesting (const logfmt_interval_t *full, const logfmt_interval_t *nest)
{
  return full->stream == nest->stream && full->state == nest->state
         && full->start == nest->start && full->end == nest->end
         && full->inclusive == nest->inclusive && nest->exclusive == 0
         && full->depth == nest->depth
         && nest->flags == (full->flags & LOGFMT_IV_OPEN);
}

static int
same_open (const logfmt_state_tracker_t *full,
           const logfmt_state_tracker_t *nest)
{
  uint32_t d = logfmt_state_tracker_depth (full);
  if (logfmt_state_tracker_depth (nest) != d)
    return 0;
  for (uint32_t i = 0; i < d; i++)
    {
      const logfmt_interval_t *a = logfmt_state_tracker_open (full, i);
      const logfmt_interval_t *b = logfmt_state_tracker_open (nest, i);
      if (a->stream != b->stream || a->state != b->state
          || a->start != b->start || a->depth != b->depth
          || b->exclusive != 0 || b->flags != 0)
        return 0;
    }
  return 1;
}

/* LOGFMT_TRACKER_NESTING pairs as the full tracker does, on every stream
 * of the log (nested and overlapping states, unmatched ENDs, BEGINs
 * beyond the depth limit and their ENDs, cargo, instances left open),
 * one by one and in batches of 5, with the same tracker reset between
 * streams (its slots keep the new stream number). */
static void
test_nesting (const logfmt_reader_t *r)
{
  logfmt_state_tracker_t *bad = (logfmt_state_tracker_t *) &bad;
  ok (logfmt_state_tracker_new_mode (NSTATES, 0, 7, &bad) == LOGFMT_EINVAL
      && bad == NULL, "nesting: an unknown mode is refused");
  logfmt_state_tracker_t *one = NULL, *batch = NULL;
  logfmt_state_tracker_new_mode (NSTATES, 99, LOGFMT_TRACKER_NESTING, &one);
  logfmt_state_tracker_new_mode (NSTATES, 99, LOGFMT_TRACKER_NESTING, &batch);
  for (uint32_t s = 0; s < 3; s++)
    {
      logfmt_iter_t *it = NULL;
      logfmt_event_t ev[1024];
      long n = 0;
      if (logfmt_iter_new (r, s, 0, UINT64_MAX, &it) == 0)
        n = logfmt_iter_next_batch (it, ev, 1024);
      logfmt_iter_free (it);
      logfmt_state_tracker_t *full = NULL;
      logfmt_state_tracker_new (NSTATES, s, &full);
      logfmt_state_tracker_reset (one, s);
      logfmt_state_tracker_reset (batch, s);
      int same = n > 0 && full && one && batch;
      int nclosed = 0, nunmatched = 0, ndeep = 0, maxdepth = 0;
      for (long i = 0; same && i < n; i += 5)
        {
          size_t m = (size_t) (n - i < 5 ? n - i : 5);
          int32_t top[5], unm[5];
          logfmt_interval_t closed[5];
          logfmt_tracker_batch_t out = { top, closed, 0, unm, 0 };
          same = logfmt_state_tracker_apply_batch (batch, ev + i, m, &out)
                 == 0;
          size_t c = 0, u = 0;
          for (size_t k = 0; same && k < m; k++)
            {
              logfmt_interval_t a, b;
              uint32_t ia = 77, ib = 77;
              int sa = logfmt_state_tracker_apply (full, &ev[i + k], &a, &ia);
              int sb = logfmt_state_tracker_apply (one, &ev[i + k], &b, &ib);
              same = sa == sb;
              if (sa == LOGFMT_STEP_CLOSED)
                same = same && ia == ib && same_nesting (&a, &b)
                       && c < out.nclosed && same_nesting (&a, &closed[c++]);
              else if (sa == LOGFMT_STEP_UNMATCHED_END)
                same = same && u < out.nunmatched
                       && unm[u++] == ev[i + k].state;
              nclosed += sa == LOGFMT_STEP_CLOSED;
              nunmatched += sa == LOGFMT_STEP_UNMATCHED_END;
              ndeep += sa == LOGFMT_STEP_TOO_DEEP;
              uint32_t d = logfmt_state_tracker_depth (full);
              if ((int) d > maxdepth)
                maxdepth = (int) d;
              same = same && same_open (full, one)
                     && top[k] == (d ? logfmt_state_tracker_open (full, d - 1)
                                         ->state : -1);
            }
          same = same && c == out.nclosed && u == out.nunmatched
                 && same_open (full, batch);
        }
      /* Left open at the stream's end: the same cuts. */
      uint64_t t_end = n > 0 ? ev[n - 1].time : 0;
      logfmt_interval_t a, b;
      int ca, cb, ncut = 0;
      while (same && (ca = logfmt_state_tracker_cut (full, t_end, &a)) == 1)
        {
          cb = logfmt_state_tracker_cut (one, t_end, &b);
          same = cb == 1 && same_nesting (&a, &b);
          ncut++;
        }
      same = same && logfmt_state_tracker_cut (one, t_end, &b) == 0;
      ok (same, "nesting mode on stream %u: the same steps, %d instances, "
          "%d unmatched ENDs, %d too deep, innermost states, open ones "
          "(depth up to %d) and %d cut as the full tracker, without "
          "exclusive times", s, nclosed, nunmatched, ndeep, maxdepth, ncut);
      logfmt_state_tracker_free (full);
    }
  logfmt_state_tracker_free (one);
  logfmt_state_tracker_free (batch);
}

/* Threads sharing a fresh reader build its per-stream index at the same
 * time (the first window query of each): each gets the right instances. */
typedef struct
{
  const logfmt_reader_t *r;
  uint64_t sum;        /* over (start, end, exclusive) of every instance */
  size_t n;
} window_job_t;

static void *
window_job (void *arg)
{
  window_job_t *j = arg;
  logfmt_interval_iter_t *it = NULL;
  for (uint32_t s = 0; s < 3; s++)
    {
      if ((it ? logfmt_interval_iter_reset (it, s, 1300, 1301)
              : logfmt_interval_iter_new (j->r, s, 1300, 1301, &it)) != 0)
        return NULL;
      logfmt_interval_t iv;
      while (logfmt_interval_iter_next (it, &iv) == 1)
        {
          j->n++;
          j->sum += iv.start * 3 + iv.end * 5 + iv.exclusive * 7;
        }
    }
  logfmt_interval_iter_free (it);
  return NULL;
}

static void
test_threads (const logfmt_reader_t *good, const char *path)
{
  window_job_t want = { good, 0, 0 };
  window_job (&want);
  enum { NT = 4 };
  logfmt_reader_t *r = NULL;
  logfmt_error_t err = { 0 };
  if (logfmt_reader_open (path, 0, &r, &err) != 0)
    {
      ok (0, "reader for threads: %s", err.message);
      return;
    }
  window_job_t job[NT];
  pthread_t th[NT];
  for (int i = 0; i < NT; i++)
    {
      job[i] = (window_job_t) { r, 0, 0 };
      pthread_create (&th[i], NULL, window_job, &job[i]);
    }
  int good_all = want.n == 2 + 256;
  for (int i = 0; i < NT; i++)
    {
      pthread_join (th[i], NULL);
      good_all &= job[i].n == want.n && job[i].sum == want.sum;
    }
  ok (good_all, "%d threads on one fresh reader: each window pass gives the "
      "%zu instances", NT, want.n);
  logfmt_reader_close (r);
}

/* A block in the middle of stream 2 damaged: passes over it stop with an
 * error; whatever instance they gave before is right. */
static void
test_damaged (const logfmt_reader_t *good, const char *path)
{
  static logfmt_interval_t all[DEEP + 8];
  logfmt_interval_iter_t *it = NULL;
  if (logfmt_interval_iter_new (good, 2, 0, UINT64_MAX, &it) != 0)
    return;
  size_t na = collect (it, all, DEEP + 8);
  logfmt_interval_iter_free (it);
  const logfmt__rstream_t *s = &good->streams[2];
  uint64_t off = s->blocks[s->nblocks / 4].offset;
  char bad[] = "/tmp/test-intervals-bad-XXXXXX";
  int fd = mkstemp (bad);
  FILE *in = fopen (path, "rb");
  FILE *out = fd >= 0 ? fdopen (fd, "wb") : NULL;
  if (!in || !out)
    {
      ok (0, "damaged copy");
      return;
    }
  int ch;
  for (uint64_t i = 0; (ch = getc (in)) != EOF; i++)
    putc (i == off + 16 + 48 + 2 ? ch ^ 0x55 : ch, out);
  fclose (in);
  fclose (out);
  logfmt_reader_t *r = NULL;
  logfmt_error_t err = { 0 };
  if (logfmt_reader_open (bad, 0, &r, &err) != 0)
    {
      ok (0, "damaged copy opens (blocks are checked when read): %s",
          err.message);
      unlink (bad);
      return;
    }
  static const uint64_t win[][2] = { { 0, UINT64_MAX }, { 1000, 1010 },
                                     { 1300, 1301 }, { 1500, 1600 },
                                     { 1700, 1800 } };
  int errors = 0, wrong = 0;
  for (size_t w = 0; w < sizeof win / sizeof *win; w++)
    {
      if (logfmt_interval_iter_new (r, 2, win[w][0], win[w][1], &it) != 0)
        {
          errors++;     /* the damage met while setting up */
          continue;
        }
      logfmt_interval_t iv;
      int rc;
      while ((rc = logfmt_interval_iter_next (it, &iv)) == 1)
        {
          size_t i = 0;
          while (i < na && all[i].start != iv.start)
            i++;
          wrong += i == na || memcmp (&all[i], &iv,
                                      offsetof (logfmt_interval_t,
                                                begin_cargo)) != 0;
        }
      if (rc < 0 && logfmt_interval_iter_error (it)->message[0])
        errors++;
      logfmt_interval_iter_free (it);
    }
  ok (wrong == 0 && errors >= 1, "damaged block: %d of 5 passes stop with "
      "an error, no wrong instance", errors);
  logfmt_reader_close (r);
  unlink (bad);
}

static void
bail_out (const char *what)
{
  printf ("Bail out! %s\n", what);
  exit (1);
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--write") == 0)
    return write_log (argv[2]) == 0 ? 0 : 1;
  char path[] = "/tmp/test-intervals-XXXXXX";
  int fd = mkstemp (path);
  if (fd < 0)
    bail_out ("mkstemp");
  close (fd);
  if (write_log (path) != 0)
    bail_out ("cannot write the log");
  logfmt_reader_t *r = NULL;
  logfmt_error_t err = { 0 };
  if (logfmt_reader_open (path, 0, &r, &err) != 0)
    bail_out (err.message);
  test_whole (r);
  test_windows (r);
  test_summary_agrees (r);
  test_tracker ();
  test_batch (r);
  test_nesting (r);
  test_damaged (r, path);
  test_threads (r, path);
  logfmt_reader_close (r);
  unlink (path);
  return exit_status ();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * State intervals: the one place where BEGIN and END records become state
 * instances (docs/FORMAT.md section 13 has the rule).  The tracker
 * applies the rule one record at a time; the iterator runs it over a
 * stream, or the part of a stream a window needs, through the reader.
 * Summaries, clogtool and the exports all go through here.
 */
#include "config.h"
#include "logfmt-intervals-internal.h"
#include "logfmt-reader-internal.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_CAP   16            /* open instances before the first growth */

/* Nesting mode: what a BEGIN does not write in slots [from, to). */
static void
slots_init (logfmt_state_tracker_t *tr, uint32_t from, uint32_t to)
{
  if (!tr->nesting)
    return;
  for (uint32_t i = from; i < to; i++)
    {
      tr->open[i].stream = tr->stream;
      tr->open[i].exclusive = 0;
      tr->open[i].flags = 0;
    }
}

int
logfmt_state_tracker_new (size_t nstates, uint32_t stream,
                          logfmt_state_tracker_t **out)
{
  return logfmt_state_tracker_new_mode (nstates, stream, LOGFMT_TRACKER_FULL,
                                        out);
}

int
logfmt_state_tracker_new_mode (size_t nstates, uint32_t stream,
                               unsigned mode, logfmt_state_tracker_t **out)
{
  if (out)
    *out = NULL;
  if (!out || nstates > INT32_MAX
      || (mode != LOGFMT_TRACKER_FULL && mode != LOGFMT_TRACKER_NESTING))
    return LOGFMT_EINVAL;
  *out = NULL;
  logfmt_state_tracker_t *tr = calloc (1, sizeof *tr);
  if (!tr)
    return LOGFMT_ENOMEM;
  tr->nesting = mode == LOGFMT_TRACKER_NESTING;
  /* Small to start with in both modes: a writer keeps one per stream
   * (its summary's), and a log may have 100,000 streams. */
  tr->cap = FIRST_CAP;
  tr->open = malloc (tr->cap * sizeof *tr->open);
  if (!tr->open)
    {
      free (tr);
      return LOGFMT_ENOMEM;
    }
  tr->nstates = (uint32_t) nstates;
  tr->stream = stream;
  slots_init (tr, 0, tr->cap);
  *out = tr;
  return 0;
}

void
logfmt_state_tracker_reset (logfmt_state_tracker_t *tr, uint32_t stream)
{
  if (!tr)
    return;
  if (tr->stream != stream)
    {
      tr->stream = stream;
      slots_init (tr, 0, tr->cap);
    }
  tr->depth = tr->cut_pos = 0;
  tr->t_top = 0;
  if (tr->ndeep)
    memset (tr->deep, 0, tr->nstates * sizeof *tr->deep);
  tr->ndeep = 0;
}

void
logfmt_state_tracker_free (logfmt_state_tracker_t *tr)
{
  if (!tr)
    return;
  free (tr->deep);
  free (tr->open);
  free (tr);
}

uint32_t
logfmt_state_tracker_depth (const logfmt_state_tracker_t *tr)
{
  return tr ? tr->depth - tr->cut_pos : 0;
}

const logfmt_interval_t *
logfmt_state_tracker_open (const logfmt_state_tracker_t *tr, uint32_t i)
{
  if (!tr || i >= tr->depth - tr->cut_pos)
    return NULL;
  return &tr->open[tr->cut_pos + i];
}

/* A BEGIN with no room left: grows the stack, or (at the depth limit)
 * counts a too-deep instance.  0 when the BEGIN may be pushed. */
static int
tracker_full (logfmt_state_tracker_t *tr, int32_t state)
{
  if (tr->depth == LOGFMT_STATE_MAX_DEPTH)
    {
      if (!tr->deep)
        {
          tr->deep = calloc (tr->nstates ? tr->nstates : 1, sizeof *tr->deep);
          if (!tr->deep)
            return LOGFMT_ENOMEM;
        }
      tr->deep[state]++;
      tr->ndeep++;
      return LOGFMT_STEP_TOO_DEEP;
    }
  uint32_t c = tr->cap * 2;
  if (c > LOGFMT_STATE_MAX_DEPTH)
    c = LOGFMT_STATE_MAX_DEPTH;
  logfmt_interval_t *p = realloc (tr->open, c * sizeof *p);
  if (!p)
    return LOGFMT_ENOMEM;
  tr->open = p;
  slots_init (tr, tr->cap, c);
  tr->cap = c;
  return 0;
}

int
logfmt__tr_begin_full (logfmt_state_tracker_t *tr, int32_t state, uint64_t t,
                       const uint8_t *cargo)
{
  int rc = tracker_full (tr, state);
  if (rc)
    return rc;
  return tr->nesting ? logfmt__tr_begin_m (tr, state, t, cargo, true)
                     : logfmt__tr_begin_m (tr, state, t, cargo, false);
}

int
logfmt_state_tracker_apply (logfmt_state_tracker_t *tr,
                            const logfmt_event_t *ev,
                            logfmt_interval_t *closed, uint32_t *inner)
{
  if (!tr || !ev)
    return LOGFMT_EINVAL;
  if (tr->cut_pos)
    return LOGFMT_ESTATE;
  const uint8_t *cargo = (ev->flags & LOGFMT_EVF_CARGO) ? ev->cargo : NULL;
  if (ev->kind == LOGFMT_KIND_BEGIN)
    return tr->nesting
           ? logfmt__tr_begin_m (tr, ev->state, ev->time, cargo, true)
           : logfmt__tr_begin (tr, ev->state, ev->time, cargo);
  if (ev->kind == LOGFMT_KIND_END)
    return tr->nesting
           ? logfmt__tr_end_m (tr, ev->state, ev->time, cargo, closed, inner,
                               true)
           : logfmt__tr_end (tr, ev->state, ev->time, cargo, closed, inner);
  return LOGFMT_STEP_NONE;
}

/* One loop with the rule inlined: a call per record costs as much as
 * the rule itself (the viewer's lanes apply millions per frame). */
static inline __attribute__ ((always_inline)) int
apply_batch_m (logfmt_state_tracker_t *restrict tr,
               const logfmt_event_t *restrict ev, size_t n,
               logfmt_tracker_batch_t *out, const bool nesting)
{
  /* restrict: what the loop writes (top, the instances) never aliases
   * the tracker, so its depth and times stay in registers. */
  int32_t *restrict top = out->top, *restrict unmatched = out->unmatched;
  logfmt_interval_t *restrict closed = out->closed;
  size_t nclosed = 0, nunmatched = 0;
  int32_t cur = logfmt__tr_top (tr);
  int rc = 0;
  for (size_t i = 0; i < n; i++)
    {
      const logfmt_event_t *e = &ev[i];
      const uint8_t *cargo = (e->flags & LOGFMT_EVF_CARGO) ? e->cargo : NULL;
      int step = LOGFMT_STEP_NONE;
      if (e->kind == LOGFMT_KIND_BEGIN)
        {
          step = logfmt__tr_begin_m (tr, e->state, e->time, cargo,
                                     nesting);
          if (step == LOGFMT_STEP_OPENED)
            cur = e->state;
        }
      else if (e->kind == LOGFMT_KIND_END)
        {
          uint32_t inner = 0;
          step = logfmt__tr_end_m (tr, e->state, e->time, cargo,
                                   closed ? &closed[nclosed] : NULL, &inner,
                                   nesting);
          if (step == LOGFMT_STEP_CLOSED)
            {
              nclosed += closed != NULL;
              if (inner == 0)
                cur = logfmt__tr_top (tr);
            }
          else if (step == LOGFMT_STEP_UNMATCHED_END && unmatched)
            unmatched[nunmatched++] = e->state;
        }
      if (LOGFMT_UNLIKELY (step < 0))
        {
          rc = step;
          break;
        }
      if (top)
        top[i] = cur;
    }
  out->nclosed = nclosed;
  out->nunmatched = nunmatched;
  return rc;
}

static int
apply_batch_full (logfmt_state_tracker_t *restrict tr,
                  const logfmt_event_t *restrict ev, size_t n,
                  logfmt_tracker_batch_t *out)
{
  return apply_batch_m (tr, ev, n, out, false);
}

static int
apply_batch_nesting (logfmt_state_tracker_t *restrict tr,
                     const logfmt_event_t *restrict ev, size_t n,
                     logfmt_tracker_batch_t *out)
{
  /* The steps make no call in this mode: on a copy whose address does
   * not escape, depth and clock live in registers, not in memory that
   * each record stores and the next one reloads. */
  logfmt_state_tracker_t local = *tr;
  int rc = apply_batch_m (&local, ev, n, out, true);
  *tr = local;
  return rc;
}

int
logfmt_state_tracker_apply_batch (logfmt_state_tracker_t *tr,
                                  const logfmt_event_t *ev, size_t n,
                                  logfmt_tracker_batch_t *out)
{
  if (!tr || (!ev && n) || !out)
    return LOGFMT_EINVAL;
  if (tr->cut_pos)
    return LOGFMT_ESTATE;
  return tr->nesting ? apply_batch_nesting (tr, ev, n, out)
                     : apply_batch_full (tr, ev, n, out);
}

int
logfmt_state_tracker_cut (logfmt_state_tracker_t *tr, uint64_t t_cut,
                          logfmt_interval_t *iv)
{
  if (!tr || !iv)
    return LOGFMT_EINVAL;
  if (tr->cut_pos == 0)
    t_cut = tr->nesting ? logfmt__tr_clock (tr, t_cut)
                        : logfmt__tr_account (tr, t_cut);
  else
    t_cut = tr->t_top;
  if (tr->cut_pos == tr->depth)
    {
      logfmt_state_tracker_reset (tr, tr->stream);
      return 0;
    }
  *iv = tr->open[tr->cut_pos++];
  iv->end = t_cut;
  iv->inclusive = t_cut - iv->start;
  iv->flags |= LOGFMT_IV_OPEN;
  return 1;
}

/* Makes room for n open instances (n <= LOGFMT_STATE_MAX_DEPTH). */
static int
tracker_reserve (logfmt_state_tracker_t *tr, uint32_t n)
{
  if (n <= tr->cap)
    return 0;
  logfmt_interval_t *p = realloc (tr->open, n * sizeof *p);
  if (!p)
    return LOGFMT_ENOMEM;
  tr->open = p;
  slots_init (tr, tr->cap, n);
  tr->cap = n;
  return 0;
}

/* ---- What is open at each block start -------------------------------- */

/* One pass over a stream records, at each block start, the open
 * instances (with their exclusive time so far), the innermost's clock and
 * the too-deep counts, and, for every instance open at some block start,
 * its final values and when it closed.  A window pass then starts at the
 * block holding t0 and stops at the first block start after t1: exact,
 * and it decodes only the blocks it covers.  Memory: one entry per block
 * and open instance, bounded by the file. */
typedef struct
{
  logfmt_interval_t iv;     /* final values, once closed or cut */
  uint64_t seq;             /* record index of its END; cut: records + position */
} ck_inst_t;

typedef struct
{
  uint32_t inst;            /* into inst[] */
  uint64_t excl;            /* exclusive time at the block start */
} ck_open_t;

typedef struct
{
  uint64_t t_top;
  size_t   first, deep_first;   /* into open[], deep[] */
  uint32_t n, ndeep;
} ck_snap_t;

struct logfmt__ivcache
{
  bool failed;              /* the pass met a damaged block: not used */
  size_t nblocks;
  uint64_t *rec;            /* nblocks + 1: index of each block's first record */
  ck_snap_t *snap;          /* nblocks + 1: at each block start, at the end */
  ck_open_t *open;
  size_t nopen, copen;
  ck_inst_t *inst;
  size_t ninst, cinst;
  uint32_t *deep;           /* (state, count) pairs */
  size_t ndeep, cdeep;
};

void
logfmt__ivcache_free (logfmt__ivcache_t *c)
{
  if (!c)
    return;
  free (c->rec);
  free (c->snap);
  free (c->open);
  free (c->inst);
  free (c->deep);
  free (c);
}

/* Records the tracker's state as block b's start; slot[i] is open
 * instance i's entry in inst[], or -1 until it is first recorded. */
static bool
ck_snapshot (logfmt__ivcache_t *c, size_t b, const logfmt_state_tracker_t *tr,
             int64_t *slot)
{
  ck_snap_t *sn = &c->snap[b];
  sn->t_top = tr->t_top;
  sn->first = c->nopen;
  sn->n = tr->depth;
  sn->deep_first = c->ndeep;
  sn->ndeep = 0;
  if (logfmt__reserve ((void **) &c->open, &c->copen, c->nopen + tr->depth,
                       sizeof *c->open, 64) != 0
      || logfmt__reserve ((void **) &c->inst, &c->cinst, c->ninst + tr->depth,
                          sizeof *c->inst, 64) != 0)
    return false;
  for (uint32_t i = 0; i < tr->depth; i++)
    {
      if (slot[i] < 0)
        {
          slot[i] = (int64_t) c->ninst;
          c->inst[c->ninst].iv = tr->open[i];
          c->inst[c->ninst++].seq = UINT64_MAX;
        }
      c->open[c->nopen++] = (ck_open_t) { (uint32_t) slot[i],
                                          tr->open[i].exclusive };
    }
  if (tr->ndeep)
    for (uint32_t st = 0; st < tr->nstates; st++)
      if (tr->deep[st])
        {
          if (logfmt__reserve ((void **) &c->deep, &c->cdeep, c->ndeep + 2,
                               sizeof *c->deep, 64) != 0)
            return false;
          c->deep[c->ndeep++] = st;
          c->deep[c->ndeep++] = tr->deep[st];
          sn->ndeep++;
        }
  return true;
}

/* The pass.  NULL only when out of memory; a damaged stream gives a
 * cache marked failed (window passes then read from the stream start). */
static logfmt__ivcache_t *
ck_build (const logfmt_reader_t *r, uint32_t stream)
{
  const logfmt__rstream_t *s = &r->streams[stream];
  logfmt__ivcache_t *c = calloc (1, sizeof *c);
  logfmt_state_tracker_t *tr = NULL;
  logfmt_iter_t *it = NULL;
  const logfmt_event_t *buf;
  int64_t *slot = malloc (LOGFMT_STATE_MAX_DEPTH * sizeof *slot);
  bool ok = false;
  if (!c || !slot)
    goto out;
  c->nblocks = s->nblocks;
  c->rec = malloc ((s->nblocks + 1) * sizeof *c->rec);
  c->snap = calloc (s->nblocks + 1, sizeof *c->snap);
  if (!c->rec || !c->snap
      || logfmt_state_tracker_new (r->nstates, stream, &tr)
      || logfmt_iter_new (r, stream, 0, UINT64_MAX, &it))
    goto out;
  c->rec[0] = 0;
  for (size_t b = 0; b < s->nblocks; b++)
    c->rec[b + 1] = c->rec[b] + s->blocks[b].count;
  uint64_t idx = 0, t_last = 0;
  size_t next_b = 0;
  long got;
  while ((got = logfmt__iter_borrow (it, &buf)) > 0)
    for (long i = 0; i < got; i++, idx++)
      {
        const logfmt_event_t *ev = &buf[i];
        while (next_b < s->nblocks && c->rec[next_b] == idx)
          if (!ck_snapshot (c, next_b++, tr, slot))
            goto out;
        t_last = ev->time;
        const uint8_t *cargo = (ev->flags & LOGFMT_EVF_CARGO) ? ev->cargo
                                                               : NULL;
        if (ev->kind == LOGFMT_KIND_BEGIN)
          {
            int st = logfmt__tr_begin (tr, ev->state, ev->time, cargo);
            if (st < 0)
              goto out;
            if (st == LOGFMT_STEP_OPENED)
              slot[tr->depth - 1] = -1;
          }
        else if (ev->kind == LOGFMT_KIND_END)
          {
            logfmt_interval_t iv;
            uint32_t inner;
            if (logfmt__tr_end (tr, ev->state, ev->time, cargo, &iv, &inner)
                != LOGFMT_STEP_CLOSED)
              continue;
            uint32_t k = tr->depth - inner;
            if (slot[k] >= 0)
              {
                c->inst[slot[k]].iv = iv;
                c->inst[slot[k]].seq = idx;
              }
            memmove (&slot[k], &slot[k + 1], inner * sizeof *slot);
          }
      }
  if (got < 0 || idx != c->rec[s->nblocks])
    {
      c->failed = true;
      ok = true;
      goto out;
    }
  while (next_b <= s->nblocks)
    if (!ck_snapshot (c, next_b++, tr, slot))
      goto out;
  logfmt_interval_t iv;
  for (uint64_t p = 0; logfmt_state_tracker_cut (tr, t_last, &iv) == 1; p++)
    if (slot[p] >= 0)
      {
        c->inst[slot[p]].iv = iv;
        c->inst[slot[p]].seq = idx + p;
      }
  ok = true;
out:
  free (slot);
  logfmt_iter_free (it);
  logfmt_state_tracker_free (tr);
  if (!ok)
    {
      logfmt__ivcache_free (c);
      return NULL;
    }
  return c;
}

/* The stream's cache, built by the first caller that needs it. */
static const logfmt__ivcache_t *
ck_get (const logfmt_reader_t *r, uint32_t stream)
{
  logfmt__ivcache_t **p = (logfmt__ivcache_t **) &r->streams[stream].ivcache;
  logfmt__ivcache_t *c = __atomic_load_n (p, __ATOMIC_ACQUIRE);
  if (c)
    return c;
  c = ck_build (r, stream);
  if (!c)
    return NULL;
  logfmt__ivcache_t *expected = NULL;
  if (!__atomic_compare_exchange_n (p, &expected, c, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
    {
      logfmt__ivcache_free (c);   /* another thread was first */
      c = expected;
    }
  return c;
}

int
logfmt_interval_index (const logfmt_reader_t *r, uint32_t stream)
{
  if (!r)
    return LOGFMT_EINVAL;
  if (stream >= r->nstreams)
    return LOGFMT_ERANGE;
  return ck_get (r, stream) ? 0 : LOGFMT_ENOMEM;
}

/* Sets the tracker to what was open at block b's start. */
static int
ck_restore (const logfmt__ivcache_t *c, size_t b, logfmt_state_tracker_t *tr)
{
  const ck_snap_t *sn = &c->snap[b];
  int rc = tracker_reserve (tr, sn->n);
  if (rc)
    return rc;
  if (sn->ndeep && !tr->deep
      && !(tr->deep = calloc (tr->nstates, sizeof *tr->deep)))
    return LOGFMT_ENOMEM;
  for (uint32_t i = 0; i < sn->n; i++)
    {
      const ck_open_t *o = &c->open[sn->first + i];
      logfmt_interval_t *iv = &tr->open[i];
      *iv = c->inst[o->inst].iv;
      iv->end = iv->inclusive = 0;
      iv->exclusive = o->excl;
      iv->flags &= LOGFMT_IV_BEGIN_CARGO;
    }
  tr->depth = sn->n;
  tr->t_top = sn->t_top;
  for (uint32_t i = 0; i < sn->ndeep; i++)
    {
      uint32_t st = c->deep[sn->deep_first + 2 * i];
      tr->deep[st] = c->deep[sn->deep_first + 2 * i + 1];
      tr->ndeep += tr->deep[st];
    }
  return 0;
}

/* ---- Iterator ------------------------------------------------------- */

struct logfmt_interval_iter
{
  const logfmt_reader_t *r;
  logfmt_iter_t *it;
  logfmt_state_tracker_t *tr;
  uint32_t stream;
  uint64_t t0, t1;
  uint64_t t_last;              /* time of the last record read */
  bool past_t1;                 /* a record after t1 was read */
  uint32_t pending;             /* open instances begun by t1, once past it */
  int phase;                    /* 0 reading, 1 cutting, 2 done, 3 tail */
  long nbuf, pos;
  const logfmt__ivcache_t *cache;     /* window passes only */
  uint64_t rec;                 /* index of buf[0] in the stream */
  uint64_t stop_rec;            /* once past t1: the block start to stop at */
  size_t stop_b;
  uint32_t ntail, tail_pos;     /* instances open at stop_b begun by t1 */
  uint32_t tail[LOGFMT_STATE_MAX_DEPTH];
  logfmt_interval_counts_t *counts;   /* nstates entries */
  logfmt_error_t err;
  const logfmt_event_t *buf;    /* borrowed from it (no copy) */
};

/* Points the pass at a stream and window: from the stream's start, or,
 * for a window that does not cover the whole stream, from the block
 * holding t0 with what was open there (the stream's cache). */
static int
iv_target (logfmt_interval_iter_t *it, uint32_t stream, uint64_t t0,
           uint64_t t1)
{
  it->stream = stream;
  it->t0 = t0;
  it->t1 = t1;
  it->t_last = 0;
  it->past_t1 = false;
  it->pending = 0;
  it->phase = 0;
  it->nbuf = it->pos = 0;
  memset (&it->err, 0, sizeof it->err);
  memset (it->counts, 0, (it->tr->nstates ? it->tr->nstates : 1)
                         * sizeof *it->counts);
  logfmt_state_tracker_reset (it->tr, stream);
  it->cache = NULL;
  it->rec = 0;
  it->stop_rec = UINT64_MAX;
  it->ntail = it->tail_pos = 0;
  const logfmt__rstream_t *s = &it->r->streams[stream];
  size_t a = 0, b = s->nblocks;
  while (a < b)
    {
      size_t m = (a + b) / 2;
      if (s->blocks[m].t_last < t0)
        a = m + 1;
      else
        b = m;
    }
  if ((a > 0 || (s->nblocks && t1 < s->blocks[s->nblocks - 1].t_last)))
    {
      const logfmt__ivcache_t *c = ck_get (it->r, stream);
      if (c && !c->failed && c->nblocks == s->nblocks)
        {
          int rc = ck_restore (c, a, it->tr);
          if (rc)
            return rc;
          it->cache = c;
          it->rec = c->rec[a];
          it->t_last = a ? s->blocks[a - 1].t_last : 0;
          return logfmt__iter_seek_block (it->it, stream, a);
        }
    }
  return logfmt_iter_reset (it->it, stream, 0, UINT64_MAX);
}

static int
iv_fail (logfmt_interval_iter_t *it, int rc, const logfmt_error_t *e)
{
  if (e && e->code)
    it->err = *e;
  else
    logfmt__err (&it->err, rc, it->r->path, UINT64_MAX,
                 "stream %u: %s", it->stream, logfmt_strerror (rc));
  it->phase = 2;
  return rc;
}

int
logfmt_interval_iter_new (const logfmt_reader_t *r, uint32_t stream,
                          uint64_t t0, uint64_t t1,
                          logfmt_interval_iter_t **out)
{
  if (!r || !out || t1 < t0)
    return LOGFMT_EINVAL;
  *out = NULL;
  if (stream >= r->nstreams)
    return LOGFMT_ERANGE;
  logfmt_interval_iter_t *it = calloc (1, sizeof *it);
  if (!it)
    return LOGFMT_ENOMEM;
  it->r = r;
  int rc = logfmt_iter_new (r, stream, 0, UINT64_MAX, &it->it);
  if (rc == 0)
    rc = logfmt_state_tracker_new (r->nstates, stream, &it->tr);
  if (rc == 0)
    {
      it->counts = calloc (r->nstates ? r->nstates : 1, sizeof *it->counts);
      if (!it->counts)
        rc = LOGFMT_ENOMEM;
    }
  if (rc == 0)
    rc = iv_target (it, stream, t0, t1);
  if (rc)
    {
      logfmt_interval_iter_free (it);
      return rc;
    }
  *out = it;
  return 0;
}

int
logfmt_interval_iter_reset (logfmt_interval_iter_t *it, uint32_t stream,
                            uint64_t t0, uint64_t t1)
{
  if (!it || t1 < t0)
    return LOGFMT_EINVAL;
  if (stream >= it->r->nstreams)
    return LOGFMT_ERANGE;
  int rc = iv_target (it, stream, t0, t1);
  if (rc)
    iv_fail (it, rc, NULL);   /* nothing more until the next reset */
  return rc;
}

void
logfmt_interval_iter_free (logfmt_interval_iter_t *it)
{
  if (!it)
    return;
  logfmt_iter_free (it->it);
  logfmt_state_tracker_free (it->tr);
  free (it->counts);
  free (it);
}

const logfmt_error_t *
logfmt_interval_iter_error (const logfmt_interval_iter_t *it)
{
  return it ? &it->err : NULL;
}

int
logfmt_interval_iter_counts (const logfmt_interval_iter_t *it, int32_t state,
                             logfmt_interval_counts_t *c)
{
  if (!it || !c)
    return LOGFMT_EINVAL;
  uint32_t n = it->tr->nstates;
  if (state >= 0 && (uint32_t) state >= n)
    return LOGFMT_ERANGE;
  if (state >= 0)
    {
      *c = it->counts[state];
      return 0;
    }
  memset (c, 0, sizeof *c);
  for (uint32_t s = 0; s < n; s++)
    {
      c->closed += it->counts[s].closed;
      c->left_open += it->counts[s].left_open;
      c->unmatched_ends += it->counts[s].unmatched_ends;
      c->too_deep += it->counts[s].too_deep;
      c->inclusive += it->counts[s].inclusive;
      c->exclusive += it->counts[s].exclusive;
    }
  return 0;
}

static inline bool
overlaps (const logfmt_interval_iter_t *it, const logfmt_interval_t *iv)
{
  return iv->start <= it->t1 && iv->end >= it->t0;
}

/* Past t1, at block start stop_b: the instances still open there that
 * began by t1 come from the cache, in the order they close. */
static void
tail_from (logfmt_interval_iter_t *it)
{
  const logfmt__ivcache_t *c = it->cache;
  const ck_snap_t *sn = &c->snap[it->stop_b];
  uint32_t n = 0;
  for (uint32_t i = 0; i < sn->n; i++)
    {
      uint32_t k = c->open[sn->first + i].inst;
      if (c->inst[k].iv.start > it->t1)
        continue;
      /* Insertion sort by close order: at most 256 entries. */
      uint32_t j = n++;
      while (j > 0 && c->inst[it->tail[j - 1]].seq > c->inst[k].seq)
        {
          it->tail[j] = it->tail[j - 1];
          j--;
        }
      it->tail[j] = k;
    }
  it->ntail = n;
  it->tail_pos = 0;
  it->phase = 3;
}

/* Past t1 for the first time, at buf[pos]: from now on only the
 * instances begun by t1 matter.  With a cache, the pass stops at the
 * first block start from here.  False when the pass is over. */
static bool
pass_t1 (logfmt_interval_iter_t *it, long pos)
{
  it->past_t1 = true;
  it->pending = it->tr->depth;
  if (it->pending == 0)
    {
      it->phase = 2;
      return false;
    }
  if (!it->cache)
    return true;
  uint64_t here = it->rec + (uint64_t) pos;
  const uint64_t *rec = it->cache->rec;
  size_t a = 0, b = it->cache->nblocks;
  while (a < b)
    {
      size_t m = (a + b) / 2;
      if (rec[m] < here)
        a = m + 1;
      else
        b = m;
    }
  it->stop_b = a;
  it->stop_rec = a < it->cache->nblocks ? rec[a] : UINT64_MAX;
  if (it->stop_rec != here)
    return true;
  it->pos = pos;
  tail_from (it);
  return false;
}

/* The pass over the borrowed records, with its state in locals: 1 with
 * *iv filled, 0 when the records are used up or the pass stops, or a
 * negative code. */
static inline int
scan (logfmt_interval_iter_t *it, logfmt_interval_t *iv)
{
  logfmt_state_tracker_t *tr = it->tr;
  const logfmt_event_t *buf = it->buf;
  const uint64_t t0 = it->t0, t1 = it->t1;
  long pos = it->pos, n = it->nbuf;
  if (it->past_t1 && it->stop_rec - it->rec < (uint64_t) n)
    n = (long) (it->stop_rec - it->rec);
  for (; pos < n; pos++)
    {
      const logfmt_event_t *ev = &buf[pos];
      uint64_t t = ev->time;
      if (LOGFMT_UNLIKELY (t > t1) && !it->past_t1)
        {
          if (!pass_t1 (it, pos))
            return 0;
          if (it->stop_rec - it->rec < (uint64_t) n)
            n = (long) (it->stop_rec - it->rec);
        }
      if (ev->kind != LOGFMT_KIND_BEGIN && ev->kind != LOGFMT_KIND_END)
        continue;
      const uint8_t *cargo = (ev->flags & LOGFMT_EVF_CARGO) ? ev->cargo
                                                             : NULL;
      bool in = t >= t0 && t <= t1;
      int st;
      if (ev->kind == LOGFMT_KIND_BEGIN)
        {
          st = logfmt__tr_begin (tr, ev->state, t, cargo);
          if (st == LOGFMT_STEP_TOO_DEEP && in)
            it->counts[ev->state].too_deep++;
          else if (st < 0)
            {
              it->pos = pos + 1;
              return st;
            }
          continue;
        }
      st = logfmt__tr_end (tr, ev->state, t, cargo, iv, NULL);
      if (st != LOGFMT_STEP_CLOSED)
        {
          if (st == LOGFMT_STEP_UNMATCHED_END && in)
            it->counts[ev->state].unmatched_ends++;
          continue;
        }
      /* Read at once, before any store: straight from registers. */
      uint64_t start = iv->start, inc = iv->inclusive, exc = iv->exclusive;
      int32_t state = iv->state;
      if (it->past_t1 && start <= t1)
        it->pending--;
      if (start > t1 || t < t0)
        continue;
      logfmt_interval_counts_t *c = &it->counts[state];
      c->closed++;
      c->inclusive += inc;
      c->exclusive += exc;
      it->pos = pos + 1;
      return 1;
    }
  it->pos = pos;
  return 0;
}

int
logfmt_interval_iter_next (logfmt_interval_iter_t *it, logfmt_interval_t *iv)
{
  if (!it || !iv)
    return LOGFMT_EINVAL;
  while (it->phase == 0)
    {
      if (it->past_t1 && it->rec + (uint64_t) it->pos == it->stop_rec)
        {
          tail_from (it);
          break;
        }
      if (it->pos == it->nbuf)
        {
          /* Past t1 with nothing begun by then still open: done. */
          if (it->past_t1 && it->pending == 0)
            {
              it->phase = 2;
              break;
            }
          it->rec += (uint64_t) it->nbuf;
          it->pos = it->nbuf = 0;
          long got = logfmt__iter_borrow (it->it, &it->buf);
          if (got < 0)
            return iv_fail (it, (int) got, logfmt_iter_error (it->it));
          if (got == 0)
            {
              it->phase = 1;
              break;
            }
          it->nbuf = got;
          it->t_last = it->buf[got - 1].time;
        }
      int rc = scan (it, iv);
      if (rc > 0)
        return 1;
      if (rc < 0)
        return iv_fail (it, rc, NULL);
    }
  while (it->phase == 3)
    {
      if (it->tail_pos == it->ntail)
        {
          it->phase = 2;
          break;
        }
      *iv = it->cache->inst[it->tail[it->tail_pos++]].iv;
      logfmt_interval_counts_t *c = &it->counts[iv->state];
      if (iv->flags & LOGFMT_IV_OPEN)
        c->left_open++;
      else
        {
          c->closed++;
          c->inclusive += iv->inclusive;
          c->exclusive += iv->exclusive;
        }
      return 1;
    }
  while (it->phase == 1)
    {
      if (!logfmt_state_tracker_cut (it->tr, it->t_last, iv))
        {
          it->phase = 2;
          break;
        }
      if (!overlaps (it, iv))
        continue;
      it->counts[iv->state].left_open++;
      return 1;
    }
  return 0;
}

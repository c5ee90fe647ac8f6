/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * State intervals: the one place where BEGIN and END records become state
 * instances (docs/FORMAT.md section 13 has the rule).  The tracker
 * applies the rule one record at a time; the iterator runs it over a
 * stream, or the part of a stream a window needs, through the reader.
 * Summaries, clogtool and the exports all go through here.
 */
#include "config.h"
#include "logfmt-reader-internal.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_CAP   16            /* open instances before the first growth */
#define BATCH       256           /* records read per iterator refill */

struct logfmt_state_tracker
{
  uint32_t nstates, stream;
  uint32_t depth, cap;
  uint32_t cut_pos;         /* next open instance logfmt_state_tracker_cut gives */
  uint64_t t_top;           /* innermost's exclusive time counted up to here */
  uint64_t ndeep;           /* too-deep instances open, all states */
  uint32_t *deep;           /* per state, allocated on the first one */
  logfmt_interval_t *open;  /* outermost first; grows to MAX_DEPTH */
};

int
logfmt_state_tracker_new (size_t nstates, uint32_t stream,
                          logfmt_state_tracker_t **out)
{
  if (!out || nstates > INT32_MAX)
    return LOGFMT_EINVAL;
  *out = NULL;
  logfmt_state_tracker_t *tr = calloc (1, sizeof *tr);
  if (!tr)
    return LOGFMT_ENOMEM;
  tr->open = malloc (FIRST_CAP * sizeof *tr->open);
  if (!tr->open)
    {
      free (tr);
      return LOGFMT_ENOMEM;
    }
  tr->cap = FIRST_CAP;
  tr->nstates = (uint32_t) nstates;
  tr->stream = stream;
  *out = tr;
  return 0;
}

void
logfmt_state_tracker_reset (logfmt_state_tracker_t *tr, uint32_t stream)
{
  if (!tr)
    return;
  tr->stream = stream;
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

/* Gives the time since the last BEGIN/END to the innermost instance (the
 * only one whose exclusive time grows). */
static inline uint64_t
account (logfmt_state_tracker_t *tr, uint64_t t)
{
  if (t < tr->t_top)
    t = tr->t_top;          /* times never go back (as the encoder does) */
  if (tr->depth)
    tr->open[tr->depth - 1].exclusive += t - tr->t_top;
  tr->t_top = t;
  return t;
}

int
logfmt__tracker_begin (logfmt_state_tracker_t *tr, int32_t state,
                       uint64_t t, const uint8_t *cargo)
{
  if (state < 0 || (uint32_t) state >= tr->nstates)
    return LOGFMT_STEP_NONE;
  if (tr->depth == LOGFMT_STATE_MAX_DEPTH)
    {
      if (!tr->deep)
        {
          tr->deep = calloc (tr->nstates, sizeof *tr->deep);
          if (!tr->deep)
            return LOGFMT_ENOMEM;
        }
      tr->deep[state]++;
      tr->ndeep++;
      return LOGFMT_STEP_TOO_DEEP;
    }
  if (tr->depth == tr->cap)
    {
      uint32_t c = tr->cap * 2;
      if (c > LOGFMT_STATE_MAX_DEPTH)
        c = LOGFMT_STATE_MAX_DEPTH;
      logfmt_interval_t *p = realloc (tr->open, c * sizeof *p);
      if (!p)
        return LOGFMT_ENOMEM;
      tr->open = p;
      tr->cap = c;
    }
  t = account (tr, t);
  logfmt_interval_t *iv = &tr->open[tr->depth];
  iv->stream = tr->stream;
  iv->state = state;
  iv->start = t;
  iv->end = 0;
  iv->inclusive = 0;
  iv->exclusive = 0;
  iv->depth = tr->depth;
  iv->flags = 0;
  if (cargo)
    {
      iv->flags = LOGFMT_IV_BEGIN_CARGO;
      memcpy (iv->begin_cargo, cargo, LOGFMT_CARGO_SIZE);
    }
  tr->depth++;
  return LOGFMT_STEP_OPENED;
}

int
logfmt__tracker_end (logfmt_state_tracker_t *tr, int32_t state, uint64_t t,
                     const uint8_t *cargo, logfmt_interval_t *closed,
                     uint32_t *inner)
{
  if (state < 0 || (uint32_t) state >= tr->nstates)
    return LOGFMT_STEP_NONE;
  /* Too-deep instances were opened after every tracked one still open
   * below them: the innermost of the state is one of those. */
  if (LOGFMT_UNLIKELY (tr->ndeep) && tr->deep[state])
    {
      tr->deep[state]--;
      tr->ndeep--;
      return LOGFMT_STEP_TOO_DEEP;
    }
  uint32_t k = tr->depth;
  while (k > 0 && tr->open[k - 1].state != state)
    k--;
  if (k == 0)
    return LOGFMT_STEP_UNMATCHED_END;
  t = account (tr, t);
  logfmt_interval_t *iv = &tr->open[k - 1];
  uint32_t above = tr->depth - k;
  if (closed)
    {
      /* Cargo bytes are copied only when present. */
      closed->stream = iv->stream;
      closed->state = iv->state;
      closed->start = iv->start;
      closed->end = t;
      closed->inclusive = t - iv->start;
      closed->exclusive = iv->exclusive;
      closed->depth = iv->depth;
      closed->flags = iv->flags & LOGFMT_IV_BEGIN_CARGO;
      if (iv->flags & LOGFMT_IV_BEGIN_CARGO)
        memcpy (closed->begin_cargo, iv->begin_cargo, LOGFMT_CARGO_SIZE);
      if (cargo)
        {
          closed->flags |= LOGFMT_IV_END_CARGO;
          memcpy (closed->end_cargo, cargo, LOGFMT_CARGO_SIZE);
        }
    }
  if (above)
    memmove (iv, iv + 1, above * sizeof *iv);
  tr->depth--;
  if (inner)
    *inner = above;
  return LOGFMT_STEP_CLOSED;
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
    return logfmt__tracker_begin (tr, ev->state, ev->time, cargo);
  if (ev->kind == LOGFMT_KIND_END)
    return logfmt__tracker_end (tr, ev->state, ev->time, cargo, closed,
                                inner);
  return LOGFMT_STEP_NONE;
}

int
logfmt_state_tracker_cut (logfmt_state_tracker_t *tr, uint64_t t_cut,
                          logfmt_interval_t *iv)
{
  if (!tr || !iv)
    return LOGFMT_EINVAL;
  if (tr->cut_pos == 0)
    t_cut = account (tr, t_cut);
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
  int phase;                    /* 0 reading, 1 cutting, 2 done */
  long nbuf, pos;
  logfmt_interval_counts_t *counts;   /* nstates entries */
  logfmt_error_t err;
  logfmt_event_t buf[BATCH];
};

static void
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
  if (rc)
    {
      logfmt_interval_iter_free (it);
      return rc;
    }
  iv_target (it, stream, t0, t1);
  *out = it;
  return 0;
}

int
logfmt_interval_iter_reset (logfmt_interval_iter_t *it, uint32_t stream,
                            uint64_t t0, uint64_t t1)
{
  if (!it || t1 < t0)
    return LOGFMT_EINVAL;
  int rc = logfmt_iter_reset (it->it, stream, 0, UINT64_MAX);
  if (rc)
    return rc;
  iv_target (it, stream, t0, t1);
  return 0;
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
logfmt_interval_iter_next (logfmt_interval_iter_t *it, logfmt_interval_t *iv)
{
  if (!it || !iv)
    return LOGFMT_EINVAL;
  logfmt_state_tracker_t *tr = it->tr;
  while (it->phase == 0)
    {
      if (it->pos == it->nbuf)
        {
          /* Past t1 with nothing begun by then still open: done. */
          if (it->past_t1 && it->pending == 0)
            {
              it->phase = 2;
              break;
            }
          long got = logfmt_iter_next_batch (it->it, it->buf, BATCH);
          if (got < 0)
            return iv_fail (it, (int) got, logfmt_iter_error (it->it));
          if (got == 0)
            {
              it->phase = 1;
              break;
            }
          it->nbuf = got;
          it->pos = 0;
        }
      const logfmt_event_t *ev = &it->buf[it->pos++];
      uint64_t t = ev->time;
      it->t_last = t;
      if (LOGFMT_UNLIKELY (t > it->t1) && !it->past_t1)
        {
          it->past_t1 = true;
          it->pending = tr->depth;
          if (it->pending == 0)
            {
              it->phase = 2;
              break;
            }
        }
      if (ev->kind != LOGFMT_KIND_BEGIN && ev->kind != LOGFMT_KIND_END)
        continue;
      const uint8_t *cargo = (ev->flags & LOGFMT_EVF_CARGO) ? ev->cargo
                                                             : NULL;
      bool in = t >= it->t0 && t <= it->t1;
      int st;
      if (ev->kind == LOGFMT_KIND_BEGIN)
        {
          st = logfmt__tracker_begin (tr, ev->state, t, cargo);
          if (st == LOGFMT_STEP_TOO_DEEP && in)
            it->counts[ev->state].too_deep++;
          else if (st < 0)
            return iv_fail (it, st, NULL);
          continue;
        }
      st = logfmt__tracker_end (tr, ev->state, t, cargo, iv, NULL);
      if (st == LOGFMT_STEP_UNMATCHED_END && in)
        it->counts[ev->state].unmatched_ends++;
      if (st != LOGFMT_STEP_CLOSED)
        continue;
      if (it->past_t1 && iv->start <= it->t1)
        it->pending--;
      if (!overlaps (it, iv))
        continue;
      logfmt_interval_counts_t *c = &it->counts[iv->state];
      c->closed++;
      c->inclusive += iv->inclusive;
      c->exclusive += iv->exclusive;
      return 1;
    }
  while (it->phase == 1)
    {
      if (!logfmt_state_tracker_cut (tr, it->t_last, iv))
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

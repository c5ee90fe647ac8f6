/* SPDX-License-Identifier: BSD-3-Clause */
/* The state tracker's insides, for the code on the hot paths that applies
 * the rule inline (the interval iterator, the summary builder).  Everyone
 * else uses logfmt_state_tracker_* (logfmt.h). */
#ifndef LOGFMT_INTERVALS_INTERNAL_H
#define LOGFMT_INTERVALS_INTERNAL_H

#include "logfmt-internal.h"

struct logfmt_state_tracker
{
  uint32_t nstates, stream;
  uint32_t depth, cap;
  bool nesting;             /* LOGFMT_TRACKER_NESTING: no exclusive time,
                             * no cargo; open[] (stream, exclusive 0,
                             * flags 0 preset) and deep[] have their
                             * whole size from the start, so that its
                             * steps make no call */
  uint32_t cut_pos;         /* next open instance logfmt_state_tracker_cut gives */
  uint64_t t_top;           /* innermost's exclusive time counted up to here */
  uint64_t ndeep;           /* too-deep instances open, all states */
  uint32_t *deep;           /* per state, allocated on the first one */
  logfmt_interval_t *open;  /* outermost first; grows to MAX_DEPTH */
};

/* A BEGIN with no room left, out of line: the stack grown (or the
 * instance counted too deep), then the BEGIN.  Returning from here keeps
 * the inlined BEGIN free of a call whose effects the code after it would
 * have to assume (a summary's loop ran 9.7 instead of 8.1 ns a record). */
int logfmt__tr_begin_full (logfmt_state_tracker_t *tr, int32_t state,
                           uint64_t t, const uint8_t *cargo);

/* Gives the time since the last BEGIN/END to the innermost instance (the
 * only one whose exclusive time grows). */
static inline uint64_t
logfmt__tr_account (logfmt_state_tracker_t *tr, uint64_t t)
{
  if (t < tr->t_top)
    t = tr->t_top;          /* times never go back (as the encoder does) */
  if (tr->depth)
    tr->open[tr->depth - 1].exclusive += t - tr->t_top;
  tr->t_top = t;
  return t;
}

/* Inlined into the iterator's loop: the values of a closed instance then
 * stay in registers (read back from memory they stall the store
 * forwarding, a third of the loop's time). */
/* Times never go back (as the encoder does); without exclusive times
 * that is all the clock is for. */
static inline uint64_t
logfmt__tr_clock (logfmt_state_tracker_t *tr, uint64_t t)
{
  if (t < tr->t_top)
    t = tr->t_top;
  tr->t_top = t;
  return t;
}

/* The rule, written once: `nesting` is a constant at every call, so the
 * compiler makes two loops of it, the full one and one that keeps only
 * which states are open and since when (LOGFMT_TRACKER_NESTING). */
static inline __attribute__ ((always_inline)) int
logfmt__tr_begin_m (logfmt_state_tracker_t *tr, int32_t state, uint64_t t,
                    const uint8_t *cargo, const bool nesting)
{
  if (state < 0 || (uint32_t) state >= tr->nstates)
    return LOGFMT_STEP_NONE;
  if (LOGFMT_UNLIKELY (tr->depth == tr->cap))
    return logfmt__tr_begin_full (tr, state, t, cargo);
  logfmt_interval_t *iv = &tr->open[tr->depth];
  if (nesting)
    {
      /* Stream, exclusive and flags were set when the slot was made. */
      iv->state = state;
      iv->start = logfmt__tr_clock (tr, t);
      iv->depth = tr->depth++;
      return LOGFMT_STEP_OPENED;
    }
  t = logfmt__tr_account (tr, t);
  iv->stream = tr->stream;
  iv->state = state;
  iv->start = t;
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

static inline __attribute__ ((always_inline)) int
logfmt__tr_end_m (logfmt_state_tracker_t *tr, int32_t state, uint64_t t,
                  const uint8_t *cargo, logfmt_interval_t *closed,
                  uint32_t *inner, const bool nesting)
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
  t = nesting ? logfmt__tr_clock (tr, t) : logfmt__tr_account (tr, t);
  logfmt_interval_t *iv = &tr->open[k - 1];
  uint32_t above = tr->depth - k;
  /* The instance leaves the stack before *closed is written, so that the
   * caller reads its fields back from registers (no store in between). */
  uint64_t start = iv->start, excl = nesting ? 0 : iv->exclusive;
  uint32_t depth = iv->depth;
  uint32_t flags = nesting ? 0 : iv->flags & LOGFMT_IV_BEGIN_CARGO;
  if (closed && flags)
    memcpy (closed->begin_cargo, iv->begin_cargo, LOGFMT_CARGO_SIZE);
  if (above && nesting)
    for (uint32_t j = 0; j < above; j++)
      {
        /* The fields a BEGIN writes (no library call in the loop). */
        iv[j].state = iv[j + 1].state;
        iv[j].start = iv[j + 1].start;
        iv[j].depth = iv[j + 1].depth;
      }
  else if (above)
    memmove (iv, iv + 1, above * sizeof *iv);
  tr->depth--;
  if (inner)
    *inner = above;
  if (closed)
    {
      /* Cargo bytes are copied only when present. */
      if (cargo && !nesting)
        {
          flags |= LOGFMT_IV_END_CARGO;
          memcpy (closed->end_cargo, cargo, LOGFMT_CARGO_SIZE);
        }
      closed->stream = tr->stream;
      closed->state = state;
      closed->start = start;
      closed->end = t;
      closed->inclusive = t - start;
      closed->exclusive = excl;
      closed->depth = depth;
      closed->flags = flags;
    }
  return LOGFMT_STEP_CLOSED;
}

static inline __attribute__ ((always_inline)) int
logfmt__tr_begin (logfmt_state_tracker_t *tr, int32_t state, uint64_t t,
                  const uint8_t *cargo)
{
  return logfmt__tr_begin_m (tr, state, t, cargo, false);
}

static inline __attribute__ ((always_inline)) int
logfmt__tr_end (logfmt_state_tracker_t *tr, int32_t state, uint64_t t,
                const uint8_t *cargo, logfmt_interval_t *closed,
                uint32_t *inner)
{
  return logfmt__tr_end_m (tr, state, t, cargo, closed, inner, false);
}

/* The innermost open state, or -1. */
static inline int32_t
logfmt__tr_top (const logfmt_state_tracker_t *tr)
{
  return tr->depth ? tr->open[tr->depth - 1].state : -1;
}

#endif

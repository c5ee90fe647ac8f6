/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <string.h>

#include "mv-intervals.h"

/* Seeded instances carry this BEGIN cargo (the viewer applies real
 * BEGINs without cargo), so they can be told apart when they close. */
static const guint8 seed_cargo[LOGFMT_CARGO_SIZE] = { 'm', 'v', 'p', 'r',
                                                      'e', 'o', 'p', 'n' };

MvTracker *
mv_tracker_new (guint nstates, gboolean nesting_only)
{
  MvTracker *t = g_new0 (MvTracker, 1);
  if (logfmt_state_tracker_new_mode (nstates, 0,
                                     nesting_only ? LOGFMT_TRACKER_NESTING
                                                  : LOGFMT_TRACKER_FULL,
                                     &t->tr) != 0)
    g_error ("out of memory");
  t->pre = g_array_new (FALSE, FALSE, sizeof (gint32));
  t->in = g_new0 (logfmt_event_t, MV_TRACKER_BATCH);
  t->top = g_new (gint32, MV_TRACKER_BATCH);
  t->closed = g_new (logfmt_interval_t, MV_TRACKER_BATCH);
  t->unmatched = g_new (gint32, MV_TRACKER_BATCH);
  return t;
}

void
mv_tracker_free (MvTracker *t)
{
  if (t == NULL)
    return;
  logfmt_state_tracker_free (t->tr);
  g_array_unref (t->pre);
  g_free (t->in);
  g_free (t->top);
  g_free (t->closed);
  g_free (t->unmatched);
  g_free (t);
}

void
mv_tracker_seed_begin (MvTracker *t)
{
  t->ev.flags = 0;
  logfmt_state_tracker_reset (t->tr, 0);
  g_array_set_size (t->pre, 0);
}

void
mv_tracker_seed_end (MvTracker *t, guint64 tstart)
{
  logfmt_state_tracker_reset (t->tr, 0);
  if (tstart == 0)
    return;
  /* The first unmatched END is the innermost state open at tstart (as
   * nested states end), so the last one is opened first. */
  memset (&t->ev, 0, sizeof t->ev);
  t->ev.kind = LOGFMT_KIND_BEGIN;
  t->ev.time = tstart;
  t->ev.flags = LOGFMT_EVF_CARGO;
  memcpy (t->ev.cargo, seed_cargo, sizeof seed_cargo);
  for (guint i = t->pre->len; i-- > 0;)
    {
      t->ev.state = g_array_index (t->pre, gint32, i);
      logfmt_state_tracker_apply (t->tr, &t->ev, NULL, NULL);
    }
  t->ev.flags = 0;   /* real records are applied without cargo */
}

void
mv_tracker_seed_lookback (MvTracker *t, guint64 tstart, guint nunmatched,
                          guint n, const gint32 *state, const guint64 *start)
{
  g_assert (nunmatched <= t->pre->len);
  for (guint i = 0; i < nunmatched; i++)
    mv_tracker_apply (t, LOGFMT_KIND_END, g_array_index (t->pre, gint32, i),
                      tstart, NULL, NULL);
  for (guint i = 0; i < n; i++)
    mv_tracker_apply (t, LOGFMT_KIND_BEGIN, state[i], start[i], NULL, NULL);
}

void
mv_tracker_restore (MvTracker *t, guint n, const gint32 *state,
                    const guint64 *start)
{
  logfmt_state_tracker_reset (t->tr, 0);
  g_array_set_size (t->pre, 0);
  t->ev.flags = 0;
  for (guint i = 0; i < n; i++)
    mv_tracker_apply (t, LOGFMT_KIND_BEGIN, state[i], start[i], NULL, NULL);
}

void
mv_tracker_seed_scan_batch (MvTracker *t, const logfmt_event_t *ev, guint n)
{
  g_assert (n <= MV_TRACKER_BATCH);
  logfmt_tracker_batch_t out = { .unmatched = t->unmatched };
  if (logfmt_state_tracker_apply_batch (t->tr, ev, n, &out) != 0)
    g_error ("out of memory");
  g_array_append_vals (t->pre, t->unmatched, (guint) out.nunmatched);
}

guint
mv_tracker_apply_batch (MvTracker *t, const logfmt_event_t *ev, guint n,
                        gboolean want_top, gboolean want_closed)
{
  g_assert (n <= MV_TRACKER_BATCH);
  logfmt_tracker_batch_t out = { .top = want_top ? t->top : NULL,
                                 .closed = want_closed ? t->closed : NULL };
  if (logfmt_state_tracker_apply_batch (t->tr, ev, n, &out) != 0)
    g_error ("out of memory");
  return (guint) out.nclosed;
}

guint
mv_tracker_depth (const MvTracker *t)
{
  return logfmt_state_tracker_depth (t->tr);
}

const logfmt_interval_t *
mv_tracker_open (const MvTracker *t, guint i)
{
  return logfmt_state_tracker_open (t->tr, i);
}

gboolean
mv_interval_inferred (const logfmt_interval_t *iv)
{
  return (iv->flags & LOGFMT_IV_BEGIN_CARGO)
         && memcmp (iv->begin_cargo, seed_cargo, sizeof seed_cargo) == 0;
}

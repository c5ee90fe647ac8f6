/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Decoded lanes: the window's events of a row as spans (states, with
 * their nesting depth) and markers (solo events, losses).  A stream's
 * events are decoded with a margin and kept in the cache, so pans and
 * zooms in are served from memory.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mv-intervals.h"
#include "mv-scene-build.h"

/* Decoded beyond the window on each side, in window widths, so that
 * pans and zooms in are served from the cache. */
#define DEC_MARGIN_SPANS     2u

/* An instance (closed, or open at the window's end with extra_flags
 * MV_SPAN_OPEN_RIGHT and iv->end the window's end) as a span at its
 * depth; sub-pixel ones next to a narrow neighbour merge into it. */
/* Record i of the tracker's batch buffer from a decoded event. */
static inline void
tracker_in (MvTracker *tr, guint i, const MvEv *e)
{
  tr->in[i].time = e->time;
  tr->in[i].kind = e->kind;
  tr->in[i].state = e->a;
}

static void
emit_span (MvScene *s, MvLane *lane, GArray *last_at_depth,
           const logfmt_interval_t *iv, guint16 extra_flags)
{
  if (iv->end < s->p.t0
      || mv__hidden (s->p.state_hidden, s->log->nstates, iv->state))
    return;
  guint depth = iv->depth;
  guint16 flags = mv_interval_inferred (iv) ? MV_SPAN_OPEN_LEFT : 0;
  double w = s->p.width;
  double x0 = (flags & MV_SPAN_OPEN_LEFT) ? -1
    : mv_time_map_x (&s->map, iv->start);
  double x1 = (extra_flags & MV_SPAN_OPEN_RIGHT) ? w + 1
    : mv_time_map_x (&s->map, iv->end);
  x0 = CLAMP (x0, -1, w + 1);
  x1 = CLAMP (x1, -1, w + 1);
  if (last_at_depth->len <= depth)
    {
      guint old = last_at_depth->len;
      g_array_set_size (last_at_depth, depth + 1);
      for (guint i = old; i <= depth; i++)
        g_array_index (last_at_depth, gint, i) = -1;
    }
  gint li = g_array_index (last_at_depth, gint, depth);
  if (x1 - x0 < 1.0 && li >= 0)
    {
      MvSpan *last = &g_array_index (lane->spans, MvSpan, li);
      if (last->x1 >= x0 - 1.0
          && (last->x1 - last->x0 < 2.0 || (last->flags & MV_SPAN_MERGED)))
        {
          last->x1 = MAX (last->x1, (float) x1);
          last->count++;
          last->flags |= MV_SPAN_MERGED;
          last->t_end = iv->end;
          return;
        }
    }
  MvSpan sp = {
    .x0 = (float) x0, .x1 = (float) x1, .depth = depth,
    .flags = flags | extra_flags, .state = iv->state, .count = 1,
    .t_begin = iv->start, .t_end = iv->end,
  };
  g_array_append_val (lane->spans, sp);
  g_array_index (last_at_depth, gint, depth) = lane->spans->len - 1;
}

static int
span_cmp (gconstpointer a, gconstpointer b)
{
  const MvSpan *x = a, *y = b;
  if (x->depth != y->depth)
    return x->depth < y->depth ? -1 : 1;
  return x->x0 < y->x0 ? -1 : x->x0 > y->x0;
}

/* Decodes the events of a stream in [ta, tb] (all but messages). */
static MvDecoded *
dec_decode (const MvLog *log, guint32 stream, guint64 ta, guint64 tb,
            guint64 *nread, char **problem, GError **error)
{
  logfmt_iter_t *it = NULL;
  int rc = logfmt_iter_new (log->reader, stream, ta, tb, &it);
  if (rc != 0)
    {
      g_set_error (error, MV_LOG_ERROR, -rc, "stream %u: %s", stream,
                   logfmt_strerror (rc));
      return NULL;
    }
  /* Sized from the stream's average rate (+25%): a doubling array
   * copies, and faults in fresh pages, at each step. */
  guint64 total = logfmt_reader_stream_events (log->reader, stream);
  double frac = (double) (MIN (tb, mv_log_t_last (log))
                          - MIN (MAX (ta, mv_log_t_first (log)),
                                 mv_log_t_last (log)))
                / MAX (mv__run_span (log), 1);
  MvDecoded *d = mv_decoded_new (ta, tb,
                                 (guint) MIN (total * frac * 1.25 + 64,
                                              (double) total + 1));
  logfmt_event_t buf[128];
  long got;
  while ((got = logfmt_iter_next_batch (it, buf, G_N_ELEMENTS (buf))) > 0)
    {
      *nread += (guint64) got;
      for (long i = 0; i < got; i++)
        {
          const logfmt_event_t *ev = &buf[i];
          d->t_max = MAX (d->t_max, ev->time);
          if (ev->kind == LOGFMT_KIND_SEND || ev->kind == LOGFMT_KIND_RECV)
            continue;
          /* a: the state, the event id, or how many events were lost. */
          MvEv e = { ev->time, ev->kind == LOGFMT_KIND_BEGIN
                             || ev->kind == LOGFMT_KIND_END ? ev->state
                             : ev->kind == LOGFMT_KIND_LOSS
                             ? (gint32) MIN (ev->size, (guint64) G_MAXINT32)
                             : ev->id,
                   ev->kind, (guint8) ev->flags, 0, 0 };
          if (ev->kind == LOGFMT_KIND_SOLO && (ev->flags & LOGFMT_EVF_CARGO))
            {
              e.cargo = d->cargo->len;
              g_array_append_vals (d->cargo, ev->cargo, 1);
            }
          g_array_append_val (d->evs, e);
        }
    }
  if (got < 0)
    {
      /* Show what decoded before the damage; not kept for later. */
      *problem = g_strdup (logfmt_iter_error (it)->message);
    }
  logfmt_iter_free (it);
  return d;
}

guint
mv__decoded_first_at (const MvDecoded *d, guint64 t)
{
  const MvEv *all = (const MvEv *) d->evs->data;
  guint lo = 0, hi = d->evs->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (all[mid].time < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

MvDecoded *
mv__decoded_get (MvScene *s, guint32 stream, guint64 tstart, guint64 t1,
                 guint64 *nread, GError **error)
{
  MvDecoded *d = mv_cache_decoded_get (s->cache, stream, tstart, t1);
  if (d != NULL)
    return d;
  guint64 m = (guint64) DEC_MARGIN_SPANS * (s->p.t1 - s->p.t0);
  guint64 ta = tstart == 0 ? 0 : tstart - MIN (tstart, m);
  guint64 tb = t1 > G_MAXUINT64 - m ? G_MAXUINT64 : t1 + m;
  char *problem = NULL;
  d = dec_decode (s->log, stream, ta, tb, nread, &problem, error);
  if (problem)
    mv__scene_problem (s, problem);
  else if (d)
    mv_cache_decoded_put (s->cache, stream, d);
  return d;
}

gboolean
mv__lane_decode (MvScene *s, MvLane *lane, GArray *evs, MvTracker *tr,
                 guint64 *nread, GError **error)
{
  MvLog *log = s->log;
  guint32 stream = log->rows[lane->row_first].stream;
  guint64 t0 = s->p.t0, t1 = s->p.t1;
  guint64 tstart = mv__decode_start (log, stream, t0, t1);

  lane->spans = g_array_new (FALSE, FALSE, sizeof (MvSpan));
  lane->markers = g_array_new (FALSE, FALSE, sizeof (MvMarker));
  g_array_set_size (evs, 0);

  GArray *cargo = g_array_new (FALSE, FALSE, LOGFMT_CARGO_SIZE);
  MvDecoded *d = mv__decoded_get (s, stream, tstart, t1, nread, error);
  if (d == NULL)
    {
      g_array_unref (cargo);
      return FALSE;
    }
  /* Copy this window's part out of the cached events, sized at once (an
   * append per event was a tenth of a deep view's lanes). */
  const MvEv *all = (const MvEv *) d->evs->data;
  guint lo_i = mv__decoded_first_at (d, tstart);
  guint hi_i = t1 == G_MAXUINT64 ? d->evs->len
                                 : mv__decoded_first_at (d, t1 + 1);
  g_array_set_size (evs, MAX (hi_i, lo_i) - lo_i);
  MvEv *out = (MvEv *) evs->data;
  for (guint i = lo_i; i < hi_i; i++)
    {
      MvEv e = all[i];
      if ((e.kind == LOGFMT_KIND_SOLO || e.kind == LOGFMT_KIND_LOSS)
          && e.time < t0)
        continue;
      if (e.kind == LOGFMT_KIND_SOLO && (e.flags & LOGFMT_EVF_CARGO))
        {
          g_array_append_vals (cargo, &g_array_index (d->cargo, guint8,
                                                      (gsize) e.cargo
                                                      * LOGFMT_CARGO_SIZE),
                               1);
          e.cargo = cargo->len - 1;
        }
      *out++ = e;
    }
  g_array_set_size (evs, (guint) (out - (MvEv *) evs->data));
  /* States open at tstart (after a lookback: from the ENDs that close
   * nothing, up to two window widths after it, so that a state open
   * across the whole window is found too), then the instances by the
   * one rule (an END closes the innermost open instance of its own
   * state; the others stay open): logfmt's tracker, see mv-intervals.h. */
  guint64 seed_to = t1 + MIN ((guint64) DEC_MARGIN_SPANS * (t1 - t0),
                              G_MAXUINT64 - t1);
  mv_tracker_seed_begin (tr);
  guint seed_n = 0;
  for (guint i = lo_i; tstart > 0 && i < d->evs->len
                       && all[i].time <= seed_to; i++)
    {
      tracker_in (tr, seed_n++, &all[i]);
      if (seed_n == MV_TRACKER_BATCH)
        {
          mv_tracker_seed_scan_batch (tr, tr->in, seed_n);
          seed_n = 0;
        }
    }
  mv_tracker_seed_scan_batch (tr, tr->in, seed_n);
  mv_tracker_seed_end (tr, tstart);
  guint64 t_max = d->t_max, tb = d->tb;
  mv_decoded_unref (d);

  /* Spans with their depth (the tracker's batches), markers. */
  GArray *last = g_array_new (FALSE, FALSE, sizeof (gint));
  logfmt_interval_t iv;
  guint batch_n = 0;
  for (guint i = 0; i <= evs->len; i++)
    {
      if (batch_n == MV_TRACKER_BATCH || (i == evs->len && batch_n))
        {
          guint nc = mv_tracker_apply_batch (tr, tr->in, batch_n, FALSE,
                                             TRUE);
          for (guint k = 0; k < nc; k++)
            emit_span (s, lane, last, &tr->closed[k], 0);
          batch_n = 0;
        }
      if (i == evs->len)
        break;
      const MvEv *e = &g_array_index (evs, MvEv, i);
      switch (e->kind)
        {
        case LOGFMT_KIND_BEGIN:
        case LOGFMT_KIND_END:
          tracker_in (tr, batch_n++, e);
          break;
        case LOGFMT_KIND_SOLO:
        case LOGFMT_KIND_LOSS:
          {
            if (e->time < t0)
              break;
            int dd = e->kind == LOGFMT_KIND_SOLO
                    ? mv_log_find_evdef (log, e->a) : -1;
            if (mv__hidden (s->p.evdef_hidden, log->nevdefs, dd))
              break;
            float x = (float) mv_time_map_x (&s->map, e->time);
            if (lane->markers->len > 0)
              {
                MvMarker *m = &g_array_index (lane->markers, MvMarker,
                                              lane->markers->len - 1);
                if (x - m->x < 1.0f && m->evdef == dd
                    && m->loss == (e->kind == LOGFMT_KIND_LOSS))
                  {
                    m->count++;
                    break;
                  }
              }
            MvMarker m = { .x = x, .evdef = dd,
                           .id = e->a,
                           .loss = e->kind == LOGFMT_KIND_LOSS,
                           .count = 1, .time = e->time, .flags = e->flags };
            if (e->flags & LOGFMT_EVF_CARGO)
              memcpy (m.cargo, &g_array_index (cargo, guint8,
                                               (gsize) e->cargo
                                               * LOGFMT_CARGO_SIZE),
                      sizeof m.cargo);
            g_array_append_val (lane->markers, m);
            break;
          }
        default:
          break;
        }
    }
  /* Still open at the window's end, innermost first: through the
   * window if the stream goes on after it, else they end at its last
   * record (FORMAT.md section 13). */
  guint depth = mv_tracker_depth (tr);
  guint64 t_cut = depth == 0 || t_max > t1
                  || mv__stream_goes_on (log, stream, tb) ? G_MAXUINT64
                                                          : t_max;
  for (guint j = depth; j-- > 0;)
    {
      iv = *mv_tracker_open (tr, j);
      iv.end = MIN (t_cut, t1);
      emit_span (s, lane, last, &iv, t_cut == G_MAXUINT64
                                     ? MV_SPAN_OPEN_RIGHT : MV_SPAN_CUT);
    }
  g_array_sort (lane->spans, span_cmp);
  g_array_unref (cargo);
  g_array_unref (last);
  return TRUE;
}

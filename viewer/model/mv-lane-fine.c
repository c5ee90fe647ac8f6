/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Summary lanes read from the file for the window: zoomed in further
 * than the whole-run pyramids resolve (a bin wider than FINE_MIN_BIN_PX
 * pixels), streams whose stored summary is no finer than the pyramid
 * are decoded, the others' summaries resampled.  At most
 * FINE_MAX_EVENTS events are decoded for a frame (whole blocks count);
 * beyond that the pyramids serve, blocky as they are.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mv-scene-build.h"

#define FINE_MIN_BIN_PX  4.0
#define FINE_MAX_EVENTS  40000000.0
#define FINE_BLOCK_GUESS 65536.0   /* events of a typical block */
#define FINE_SLOTS       4         /* states kept per pixel of a lane */

gboolean
mv__fine_wanted (MvCache *cache, const MvSceneParams *p)
{
  MvLog *log = mv_cache_log (cache);
  if (p->coarse_lanes || log->nstates == 0 || p->width <= 0)
    return FALSE;
  double cbin = mv__run_span (log) / mv_cache_bins (cache);
  double pbin = (double) (p->t1 - p->t0) / p->width;
  if (pbin * FINE_MIN_BIN_PX >= cbin)
    return FALSE;
  guint first, last;
  mv_scene_visible_slots (log, p, &first, &last);
  double frac = (double) (p->t1 - p->t0) / MAX (mv__run_span (log), 1);
  double est = 0;
  gboolean differs = p->row_h < 1 && p->slots == NULL, any = FALSE;
  if (differs && first < last)
    {
      /* Rows thinner than pixels (100,000 processes: 0.6 ms a frame
       * to sum row by row): each row's estimate below is at most its
       * events, and at most its share of the window plus a block, so
       * their sums bound it; the loop decides only near the limit. */
      double n = (double) (log->row_events[last] - log->row_events[first]);
      double bound = MIN (n, n * frac + FINE_BLOCK_GUESS * (last - first));
      if (bound * (1 + 1e-9) <= FINE_MAX_EVENTS)
        return TRUE;
    }
  for (guint i = first; i < last; i++)
    {
      /* Big groups' headers are drawn from the pyramids only. */
      MvSlot sl = mv_slots_get (p->slots, i);
      if (sl.row_count > MV_SCENE_FINE_MAX_GROUP_ROWS)
        continue;
      differs |= sl.row_count > 1 || p->row_h < 1;
      any = TRUE;
      for (guint r = sl.row_first; r < sl.row_first + sl.row_count; r++)
        {
          guint32 st = log->rows[r].stream;
          double n = (double) logfmt_reader_stream_events (log->reader, st);
          est += MIN (n, n * frac + FINE_BLOCK_GUESS);
          if (differs)
            continue;
          /* A row of its own whose stored summary is finer than the
           * pyramid is read from the file already (lane_summary). */
          MvPyrQuality q = mv_cache_pyramid_peek (cache, st);
          differs |= q == MV_PYR_UNREAD || q == MV_PYR_FINEST;
        }
      if (est > FINE_MAX_EVENTS)
        return FALSE;
    }
  return any && differs && est <= FINE_MAX_EVENTS;
}

/* A lane's pixels being summed from its rows: per pixel, the rows'
 * coverage by their dominant state, for the FINE_SLOTS most common. */
struct MvFineAcc_
{
  guint    width;
  gint16  *state;     /* width x FINE_SLOTS, -1 free */
  float   *weight;    /* width x FINE_SLOTS */
  float   *total;     /* width: summed row coverage */
  /* One row's current pixel (rows are swept left to right). */
  gint     cur_x;
  guint    cur_n;
  gint32   cur_state[8];
  float    cur_w[8];
  GArray  *evs;       /* FineEv: one row's decoded events */
  MvTracker *tr;      /* the state-interval rule (mv-intervals.h) */
  float   *occ;       /* width x nstates: a stored summary */
  logfmt_iter_t *it;  /* reused for every row */
  /* Set while one row is computed for MvFineRows: its pixels go here
   * (one dominant state and coverage per pixel) instead of the lane. */
  gint16  *row_dom;
  float   *row_cov;
  /* Set while a lane of more than MV_SCENE_FINE_MAX_GROUP_ROWS rows is
   * computed: its rows' pyramids are read here, not kept (a pixel row
   * of 100,000 processes ungrouped, as a big group's header). */
  guint8  *pyr_scratch;
  gboolean many;
};

/* Rows that more than one lane of a frame sums (a row drawn in a lane
 * of its own and in its group's header): each one's pixels are computed
 * once, by whichever lane comes first, and kept for the frame. */
struct MvFineRows_
{
  guint    first, nrows, width;
  gint    *slot;      /* per row from first: its entry, or -1 */
  guint8  *done;      /* per entry: 0 to do, 1 being done, 2 done */
  gint16  *dom;       /* per entry x width, -1 none */
  float   *cov;
  GMutex   lock;
  GCond    cond;
};

typedef struct
{
  guint64 time;
  gint32  state;
  guint8  kind;
} FineEv;

MvFineAcc *
mv__fine_acc_new (guint width, guint nstates)
{
  MvFineAcc *a = g_new0 (MvFineAcc, 1);
  a->width = width;
  a->state = g_new (gint16, (gsize) width * FINE_SLOTS);
  a->weight = g_new (float, (gsize) width * FINE_SLOTS);
  a->total = g_new (float, width);
  a->evs = g_array_new (FALSE, FALSE, sizeof (FineEv));
  a->occ = g_new (float, (gsize) width * MAX (nstates, 1));
  a->tr = mv_tracker_new (nstates, TRUE);
  return a;
}

void
mv__fine_acc_free (MvFineAcc *a)
{
  if (a == NULL)
    return;
  g_free (a->state);
  g_free (a->weight);
  g_free (a->total);
  g_array_unref (a->evs);
  g_free (a->occ);
  logfmt_iter_free (a->it);
  mv_tracker_free (a->tr);
  g_free (a->pyr_scratch);
  g_free (a);
}

static void
fine_acc_reset (MvFineAcc *a)
{
  memset (a->state, 0xff, (gsize) a->width * FINE_SLOTS * sizeof *a->state);
  memset (a->weight, 0, (gsize) a->width * FINE_SLOTS * sizeof *a->weight);
  memset (a->total, 0, a->width * sizeof *a->total);
}

/* One row's pixel x: covered `cov` (0..1) in all, mostly by `state`. */
static void
fine_add (MvFineAcc *a, guint x, gint32 state, float cov)
{
  if (a->row_dom)
    {
      a->row_dom[x] = (gint16) state;
      a->row_cov[x] = cov;
      return;
    }
  gint16 *st = a->state + (gsize) x * FINE_SLOTS;
  float *w = a->weight + (gsize) x * FINE_SLOTS;
  a->total[x] += cov;
  guint min = 0;
  for (guint i = 0; i < FINE_SLOTS; i++)
    {
      if (st[i] == state || st[i] < 0)
        {
          st[i] = (gint16) state;
          w[i] += cov;
          return;
        }
      if (w[i] < w[min])
        min = i;
    }
  /* More states than slots: the rarest gives way. */
  if (cov > w[min])
    {
      st[min] = (gint16) state;
      w[min] = cov;
    }
}

/* Ends the row's current pixel: its dominant state takes its coverage. */
static void
fine_flush (MvFineAcc *a)
{
  if (a->cur_x < 0 || a->cur_n == 0)
    {
      a->cur_n = 0;
      return;
    }
  guint best = 0;
  float cov = 0;
  for (guint i = 0; i < a->cur_n; i++)
    {
      cov += a->cur_w[i];
      if (a->cur_w[i] > a->cur_w[best])
        best = i;
    }
  fine_add (a, (guint) a->cur_x, a->cur_state[best], MIN (cov, 1.0f));
  a->cur_n = 0;
}

static void
fine_part (MvFineAcc *a, gint x, gint32 state, float w)
{
  if (x != a->cur_x)
    {
      fine_flush (a);
      a->cur_x = x;
    }
  guint i = 0;
  while (i < a->cur_n && a->cur_state[i] != state)
    i++;
  if (i == a->cur_n)
    {
      if (a->cur_n == G_N_ELEMENTS (a->cur_state))
        return;  /* a pixel of many tiny states: the first ones count */
      a->cur_state[a->cur_n] = state;
      a->cur_w[a->cur_n++] = 0;
    }
  a->cur_w[i] += w;
}

/* The row's innermost state was `state` over pixels [xa, xb). */
static void
fine_interval (MvFineAcc *a, gint32 state, double xa, double xb)
{
  xa = MAX (xa, 0);
  xb = MIN (xb, (double) a->width);
  if (xb <= xa)
    return;
  gint ia = (gint) floor (xa), ib = (gint) ceil (xb) - 1;
  if (ia == ib)
    {
      fine_part (a, ia, state, (float) (xb - xa));
      return;
    }
  fine_part (a, ia, state, (float) (ia + 1 - xa));
  fine_flush (a);
  /* Whole pixels: the slot the state had in the last pixel is tried
   * first (neighbouring pixels of a lane mostly share their layout). */
  guint hint = 0;
  for (gint x = ia + 1; x < ib; x++)
    {
      gint16 *st = a->state + (gsize) x * FINE_SLOTS;
      if (st[hint] == state && a->row_dom == NULL)
        {
          a->weight[(gsize) x * FINE_SLOTS + hint] += 1.0f;
          a->total[x] += 1.0f;
          continue;
        }
      fine_add (a, (guint) x, state, 1.0f);
      for (guint i = 0; i < FINE_SLOTS; i++)
        if (st[i] == state)
          hint = i;
    }
  a->cur_x = ib;
  fine_part (a, ib, state, (float) (xb - ib));
}

/* One row's walk through its BEGIN/END records in time order: the
 * innermost open instance by the one rule (mv-intervals.h), drawn from
 * `prev` up to each record. */
typedef struct
{
  MvScene   *s;
  MvFineAcc *a;
  MvTracker *tr;
  gint32     top;     /* innermost open state, -1 none */
  guint64    prev;
} FineWalk;

static inline void
walk_to (FineWalk *w, guint64 t)
{
  const MvScene *s = w->s;
  guint64 t0 = s->p.t0;
  gint32 top = w->top;
  if (top >= 0 && t > w->prev && t > t0 && (guint) top < s->log->nstates
      && !(s->p.state_hidden && s->p.state_hidden[top]))
    fine_interval (w->a, top, mv_time_map_x (&s->map, MAX (w->prev, t0)),
                   mv_time_map_x (&s->map, t));
  w->prev = MAX (w->prev, t);
}

/* Applies n <= MV_TRACKER_BATCH records in one batch and draws the
 * innermost state up to each record that changes it. */
static void
walk_batch (FineWalk *w, const logfmt_event_t *ev, guint n)
{
  if (n == 0)
    return;
  mv_tracker_apply_batch (w->tr, ev, n, TRUE, FALSE);
  const gint32 *top = w->tr->top;
  for (guint i = 0; i < n; i++)
    if (top[i] != w->top)
      {
        walk_to (w, ev[i].time);
        w->top = top[i];
      }
}

/* Applies n <= MV_TRACKER_BATCH records before the window (nothing to
 * draw): only the innermost state after them is wanted. */
static void
skip_batch (FineWalk *w, const logfmt_event_t *ev, guint n)
{
  if (n == 0)
    return;
  mv_tracker_apply_batch (w->tr, ev, n, FALSE, FALSE);
  guint depth = mv_tracker_depth (w->tr);
  w->top = depth ? mv_tracker_open (w->tr, depth - 1)->state : -1;
}

/* The kept records ev[0 .. n) in the tracker's batch buffer. */
static const logfmt_event_t *
fine_in (MvTracker *tr, const FineEv *ev, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      tr->in[i].time = ev[i].time;
      tr->in[i].kind = ev[i].kind;
      tr->in[i].state = ev[i].state;
    }
  return tr->in;
}

/* Pass 1 (mv-intervals.h) over n kept records. */
static void
fine_scan (MvTracker *tr, const FineEv *ev, guint n)
{
  for (guint i = 0; i < n; i += MV_TRACKER_BATCH)
    {
      guint m = MIN (MV_TRACKER_BATCH, n - i);
      mv_tracker_seed_scan_batch (tr, fine_in (tr, ev + i, m), m);
    }
}

/* Draws a row decoded after a lookback (its records kept): pass 1 over
 * all of them finds the states open where the decode starts; the part
 * before t0 is then not applied again, only its outcome (what pass 1
 * left open at t0 and its ENDs that closed nothing there), so that
 * pass 2 covers the window alone. */
static void
fine_walk_kept (FineWalk *w, const FineEv *ev, guint n, guint64 tstart,
                guint64 t0)
{
  MvTracker *tr = w->tr;
  guint lo = 0, hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (ev[mid].time < t0)
        lo = mid + 1;
      else
        hi = mid;
    }
  guint i0 = lo;
  fine_scan (tr, ev, i0);
  guint nunm = tr->pre->len, nopen = mv_tracker_depth (tr);
  gint32 state[LOGFMT_STATE_MAX_DEPTH];
  guint64 start[LOGFMT_STATE_MAX_DEPTH];
  for (guint i = 0; i < nopen; i++)
    {
      const logfmt_interval_t *iv = mv_tracker_open (tr, i);
      state[i] = iv->state;
      start[i] = iv->start;
    }
  fine_scan (tr, ev + i0, n - i0);
  mv_tracker_seed_end (tr, tstart);
  guint from = i0;
  /* Near the depth limit the BEGINs found too deep could differ: the
   * lookback is applied again there. */
  if (tr->pre->len + nopen < LOGFMT_STATE_MAX_DEPTH)
    mv_tracker_seed_lookback (tr, tstart, nunm, nopen, state, start);
  else
    from = 0;
  guint depth = mv_tracker_depth (tr);
  w->top = depth ? mv_tracker_open (tr, depth - 1)->state : -1;
  for (guint i = from; i < n; i += MV_TRACKER_BATCH)
    {
      guint m = MIN (MV_TRACKER_BATCH, n - i);
      const logfmt_event_t *in = fine_in (tr, ev + i, m);
      guint before = 0;
      while (before < m && in[before].time < t0)
        before++;
      skip_batch (w, in, before);
      walk_batch (w, in + before, m - before);
    }
}

/* Keeps the instances the tracker has open (every record before t
 * applied) in the cache, for the next frame of this stream. */
static void
fine_keep_open_at (MvScene *s, MvTracker *tr, guint32 stream, guint64 t)
{
  guint n = mv_tracker_depth (tr);
  if (n >= LOGFMT_STATE_MAX_DEPTH)
    return;   /* BEGINs beyond the limit may be open: not kept */
  MvOpenAt o = { t, n, g_new (gint32, MAX (n, 1)), g_new (guint64, MAX (n, 1)) };
  for (guint i = 0; i < n; i++)
    {
      const logfmt_interval_t *iv = mv_tracker_open (tr, i);
      o.state[i] = iv->state;
      o.start[i] = iv->start;
    }
  mv_cache_open_at_put (s->cache, stream, &o);
}

/* Where a row's records come from: the file (an iterator), or the
 * events the cache keeps decoded for the decoded lanes. */
typedef struct
{
  logfmt_iter_t    *it;
  MvDecoded        *dec;
  guint             next;   /* dec: the next event */
} FineSrc;

static long
fine_src_next (FineSrc *src, logfmt_event_t *buf, guint max)
{
  if (src->it)
    return logfmt_iter_next_batch (src->it, buf, max);
  const MvEv *all = (const MvEv *) src->dec->evs->data;
  guint n = 0;
  for (; n < max && src->next < src->dec->evs->len; src->next++)
    {
      const MvEv *e = &all[src->next];
      if (e->kind != LOGFMT_KIND_BEGIN && e->kind != LOGFMT_KIND_END)
        continue;
      buf[n].time = e->time;
      buf[n].kind = e->kind;
      buf[n].flags = 0;
      buf[n].state = e->a;
      n++;
    }
  return n;
}

/* Adds one row to the lane from its decoded events: from the cache's
 * when `cached` (a window that decoded rows would take), else from the
 * file. */
static gboolean
fine_row_decode (MvScene *s, MvFineAcc *a, guint32 stream, gboolean cached,
                 guint64 *nread)
{
  MvLog *log = s->log;
  guint64 t0 = s->p.t0, t1 = s->p.t1;
  guint64 tstart = mv__decode_start (log, stream, t0, t1);
  FineSrc src = { NULL, NULL, 0 };
  if (cached)
    {
      GError *error = NULL;
      src.dec = mv__decoded_get (s, stream, tstart, t1, nread, &error);
      if (src.dec == NULL)
        {
          mv__scene_problem (s, g_strdup (error->message));
          g_error_free (error);
          return FALSE;
        }
    }
  /* An earlier frame's walk left the states open at a time in
   * [tstart, t0]: start there, exactly (most views are near the last). */
  MvOpenAt at = { 0 };
  gboolean restored = mv_cache_open_at_get (s->cache, stream, tstart, t0,
                                            &at) && at.t > 0;
  if (restored)
    tstart = at.t;
  if (src.dec)
    {
      /* The first event at or after tstart, as the iterator would. */
      src.next = mv__decoded_first_at (src.dec, tstart);
    }
  else
    {
      /* One iterator per lane job: a new one per row would cost a zstd
       * context each (a fifth of the time for 10,000 rows).  Open-ended:
       * the first record after t1 (mostly in the block already decoded)
       * tells whether the stream goes on. */
      int rc = a->it ? logfmt_iter_reset (a->it, stream, tstart, G_MAXUINT64)
               : logfmt_iter_new (log->reader, stream, tstart, G_MAXUINT64,
                                  &a->it);
      if (rc != 0)
        {
          mv__scene_problem (s, g_strdup_printf ("stream %u: %s", stream,
                                                 logfmt_strerror (rc)));
          g_free (at.state);
          g_free (at.start);
          return FALSE;
        }
      src.it = a->it;
    }
  /* From the stream's start the records are walked as they are read;
   * after a lookback they are kept, to find first which states were
   * open where the decode starts. */
  FineWalk w = { s, a, a->tr, -1, tstart };
  gboolean keep = tstart > 0 && !restored;
  mv_tracker_seed_begin (w.tr);
  if (restored)
    {
      mv_tracker_restore (w.tr, at.n, at.state, at.start);
      w.top = at.n ? at.state[at.n - 1] : -1;
      g_free (at.state);
      g_free (at.start);
    }
  else if (!keep)
    mv_tracker_seed_end (w.tr, 0);
  /* An exact walk keeps the states open at t0 for the next frame. */
  gboolean snapped = keep || t0 == 0 || (restored && at.t == t0);
  a->cur_x = -1;
  a->cur_n = 0;
  g_array_set_size (a->evs, 0);
  logfmt_event_t buf[MV_TRACKER_BATCH];
  long got = 0;
  guint64 t_max = 0;          /* the last record up to t1 */
  gboolean goes_on = FALSE;   /* a record after t1 */
  while (!goes_on
         && (got = fine_src_next (&src, buf, G_N_ELEMENTS (buf))) > 0)
    {
      if (src.it)
        *nread += (guint64) got;
      if (buf[got - 1].time > t1)
        {
          goes_on = TRUE;
          while (got > 0 && buf[got - 1].time > t1)
            got--;
        }
      if (got > 0)
        t_max = MAX (t_max, buf[got - 1].time);
      if (!keep)
        {
          guint i = 0;
          if (G_UNLIKELY (!snapped))
            {
              /* The states open at t0: every record before it applied. */
              while (i < (guint) got && buf[i].time < t0)
                i++;
              skip_batch (&w, buf, i);
              if (i < (guint) got)
                {
                  fine_keep_open_at (s, w.tr, stream, t0);
                  snapped = TRUE;
                }
            }
          walk_batch (&w, buf + i, (guint) got - i);
          continue;
        }
      guint len = a->evs->len;
      g_array_set_size (a->evs, len + (guint) got);
      FineEv *out = (FineEv *) a->evs->data + len;
      for (long i = 0; i < got; i++)
        if (buf[i].kind == LOGFMT_KIND_BEGIN || buf[i].kind == LOGFMT_KIND_END)
          *out++ = (FineEv) { buf[i].time, buf[i].state, (guint8) buf[i].kind };
      g_array_set_size (a->evs, (guint) (out - (FineEv *) a->evs->data));
    }
  if (got < 0)
    mv__scene_problem (s, g_strdup (logfmt_iter_error (src.it)->message));
  if (src.dec && !goes_on)
    {
      /* The cached events hold no messages and end at their window's
       * end: the last record of any kind, and one after it, tell. */
      goes_on = src.dec->t_max > t1;
      t_max = goes_on ? t_max : MAX (t_max, src.dec->t_max);
    }
  if (keep)
    fine_walk_kept (&w, (const FineEv *) a->evs->data, a->evs->len, tstart,
                    t0);
  if (src.dec && !goes_on && w.top >= 0)
    goes_on = mv__stream_goes_on (log, stream, src.dec->tb);
  mv_decoded_unref (src.dec);
  /* After the last record: instances still open go on through the
   * window if the stream does, else they end there (FORMAT.md 13). */
  walk_to (&w, goes_on ? t1 : MIN (t_max, t1));
  fine_flush (a);
  return TRUE;
}

/* Adds one row to the lane from its stored summary. */
static void
fine_row_summary (MvScene *s, MvFineAcc *a, guint32 stream)
{
  MvLog *log = s->log;
  guint ns = log->nstates;
  logfmt_error_t err = { 0 };
  if (logfmt_reader_summary (log->reader, stream, s->p.t0, s->p.t1,
                             a->width, a->occ, NULL, NULL, &err) != 0)
    {
      mv__scene_problem (s, g_strdup (err.message));
      return;
    }
  for (guint x = 0; x < a->width; x++)
    {
      const float *o = a->occ + (gsize) x * ns;
      float cov = 0, best = 0;
      gint32 dom = -1;
      for (guint k = 0; k < ns; k++)
        {
          if (o[k] <= 0 || (s->p.state_hidden && s->p.state_hidden[k]))
            continue;
          cov += o[k];
          if (o[k] > best)
            {
              best = o[k];
              dom = (gint32) k;
            }
        }
      if (dom >= 0)
        fine_add (a, x, dom, MIN (cov, 1.0f));
    }
}

/* Adds one row to the lane (to a->row_dom in row mode). */
static void
fine_row (MvScene *s, MvFineAcc *a, const MvRow *row, guint64 *nread)
{
  MvCache *cache = s->cache;
  if (a->many && a->pyr_scratch == NULL)
    a->pyr_scratch = g_malloc (mv_pyr_offset (mv_cache_bins (cache),
                                              mv_cache_levels (cache)));
  MvPyrQuality exact = mv_cache_pyramid_quality (cache, row->stream,
                                                 a->many ? a->pyr_scratch
                                                         : NULL);
  /* Such lanes read every row's window: the file's pages go with the
   * pyramids'. */
  if (a->many)
    mv_cache_note_stream_read (cache);
  if (exact == MV_PYR_DAMAGED)
    mv__scene_problem (s, g_strdup_printf ("rank %d: the summary is damaged "
                                           "(empty where it cannot be read)",
                                           row->rank));
  else if (exact == MV_PYR_FINEST)
    fine_row_decode (s, a, row->stream, s->fine_cached, nread);
  else
    fine_row_summary (s, a, row->stream);
}

MvFineRows *
mv__fine_rows_new (MvScene *s)
{
  guint first, last;
  mv_scene_visible_rows (s->log, &s->p, &first, &last);
  if (s->p.slots == NULL || first >= last)
    return NULL;
  /* The lanes mv__lane_fine draws: headers not above the limit, and in
   * summary frames the rows of their own too. */
  guint8 *uses = g_new0 (guint8, last - first);
  for (guint i = 0; i < s->nlanes; i++)
    {
      const MvLane *l = &s->lanes[i];
      if (l->row_count > MV_SCENE_FINE_MAX_GROUP_ROWS
          || (l->row_count == 1 && !s->summary))
        continue;
      for (guint r = l->row_first; r < l->row_first + l->row_count; r++)
        if (r >= first && r < last && uses[r - first] < 2)
          uses[r - first]++;
    }
  MvFineRows *fr = g_new0 (MvFineRows, 1);
  fr->first = first;
  fr->nrows = last - first;
  fr->width = (guint) s->p.width;
  fr->slot = g_new (gint, fr->nrows);
  guint n = 0;
  for (guint r = 0; r < fr->nrows; r++)
    fr->slot[r] = uses[r] >= 2 ? (gint) n++ : -1;
  g_free (uses);
  if (n == 0)
    {
      g_free (fr->slot);
      g_free (fr);
      return NULL;
    }
  fr->done = g_new0 (guint8, n);
  fr->dom = g_new (gint16, (gsize) n * fr->width);
  fr->cov = g_new (float, (gsize) n * fr->width);
  g_mutex_init (&fr->lock);
  g_cond_init (&fr->cond);
  return fr;
}

void
mv__fine_rows_free (MvFineRows *fr)
{
  if (fr == NULL)
    return;
  g_free (fr->slot);
  g_free (fr->done);
  g_free (fr->dom);
  g_free (fr->cov);
  g_mutex_clear (&fr->lock);
  g_cond_clear (&fr->cond);
  g_free (fr);
}

gboolean
mv__fine_rows_has (const MvFineRows *fr, guint row)
{
  return fr != NULL && row >= fr->first && row - fr->first < fr->nrows
         && fr->slot[row - fr->first] >= 0;
}

/* Adds a shared row to the lane: computed here if no lane has yet, or
 * as another thread computed it.  Unless `wait`, a row another thread
 * is computing is left for later: FALSE. */
static gboolean
fine_row_shared (MvScene *s, MvFineAcc *a, guint row, gboolean wait,
                 guint64 *nread)
{
  MvFineRows *fr = s->fine_rows;
  guint k = (guint) fr->slot[row - fr->first];
  gint16 *dom = fr->dom + (gsize) k * fr->width;
  float *cov = fr->cov + (gsize) k * fr->width;
  g_mutex_lock (&fr->lock);
  while (wait && fr->done[k] == 1)
    g_cond_wait (&fr->cond, &fr->lock);
  guint8 was = fr->done[k];
  if (was == 0)
    fr->done[k] = 1;
  g_mutex_unlock (&fr->lock);
  if (was == 1)
    return FALSE;
  if (was == 0)
    {
      memset (dom, 0xff, fr->width * sizeof *dom);
      a->row_dom = dom;
      a->row_cov = cov;
      fine_row (s, a, &s->log->rows[row], nread);
      a->row_dom = NULL;
      a->row_cov = NULL;
      g_mutex_lock (&fr->lock);
      fr->done[k] = 2;
      g_cond_broadcast (&fr->cond);
      g_mutex_unlock (&fr->lock);
    }
  for (guint x = 0; x < fr->width; x++)
    if (dom[x] >= 0)
      fine_add (a, x, dom[x], cov[x]);
  return TRUE;
}

/* A summary lane from the file for this window (see FINE_MIN_BIN_PX). */
void
mv__lane_fine (MvScene *s, MvLane *lane, MvFineAcc *a, const guint32 *lut,
           guint64 *nread)
{
  MvLog *log = s->log;
  fine_acc_reset (a);
  a->many = lane->row_count > MV_SCENE_FINE_MAX_GROUP_ROWS;
  /* Rows another lane is computing come last, when they are done (a
   * header's rows are at most MV_SCENE_FINE_MAX_GROUP_ROWS). */
  guint64 later = 0;
  for (guint i = 0; i < lane->row_count; i++)
    {
      guint r = lane->row_first + i;
      if (!mv__fine_rows_has (s->fine_rows, r))
        fine_row (s, a, &log->rows[r], nread);
      else if (!fine_row_shared (s, a, r, i >= 64, nread))
        later |= 1ull << i;
    }
  for (guint i = 0; later != 0; i++, later >>= 1)
    if (later & 1)
      fine_row_shared (s, a, lane->row_first + i, TRUE, nread);
  float inv = 1.0f / lane->row_count;
  for (guint x = 0; x < a->width; x++)
    {
      const gint16 *st = a->state + (gsize) x * FINE_SLOTS;
      const float *w = a->weight + (gsize) x * FINE_SLOTS;
      guint best = 0;
      for (guint i = 1; i < FINE_SLOTS; i++)
        if (w[i] > w[best])
          best = i;
      if (a->total[x] <= 0 || st[best] < 0)
        {
          lane->pixels[x] = MV_SCENE_BG_RGB;
          lane->dominant[x] = -1;
          lane->dom_pct[x] = 0;
          continue;
        }
      float cov = MIN (a->total[x] * inv, 1.0f);
      lane->pixels[x] = lut[(gsize) st[best] * 256
                            + (guint) lroundf (cov * 255)];
      lane->dominant[x] = st[best];
      lane->dom_pct[x] = (guint8) lroundf (cov * 100);
    }
}


/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scene: level of detail, the lanes of the visible rows, and the
 * threads that fill them (the lanes and arrows are built in their own
 * files, see mv-scene.h).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mv-scene-build.h"

/* Decode from the stream's start when that costs fewer events than this;
 * otherwise look back a few window widths for states opened earlier. */
#define FULL_LOOKBACK_EVENTS 4096u
#define LOOKBACK_SPANS       4u
/* Rows whose decoded events before a frame must be read from the file
 * this many or more: the frame would take several block decodes. */
#define COARSE_MIN_ROWS 4u
/* Rows read per aggregated lane in a first stage over rows whose
 * summaries are mostly unread; of 64 rows spread over the view, this
 * many unread ones call for it. */
#define SAMPLE_ROWS 4u
#define SAMPLE_PROBES 64u
#define SAMPLE_UNREAD 16u

double
mv__run_span (const MvLog *log)
{
  return (double) (mv_log_t_last (log) - mv_log_t_first (log));
}

guint64
mv__decode_start (const MvLog *log, guint32 stream, guint64 t0, guint64 t1)
{
  guint64 lo = mv_log_t_first (log);
  guint64 n = logfmt_reader_stream_events (log->reader, stream);
  double before = (double) n * (double) (t0 > lo ? t0 - lo : 0)
                  / MAX (mv__run_span (log), 1);
  return before <= FULL_LOOKBACK_EVENTS ? 0
    : t0 - MIN (t0, (guint64) LOOKBACK_SPANS * (t1 - t0));
}

gboolean
mv__stream_goes_on (const MvLog *log, guint32 stream, guint64 t)
{
  logfmt_iter_t *it = NULL;
  logfmt_event_t ev;
  if (t == G_MAXUINT64
      || logfmt_iter_new (log->reader, stream, t + 1, G_MAXUINT64, &it) != 0)
    return FALSE;
  gboolean more = logfmt_iter_next (it, &ev) == 1;
  logfmt_iter_free (it);
  return more;
}

gboolean
mv__hidden (const guint8 *flags, guint n, gint32 i)
{
  return flags != NULL && i >= 0 && (guint) i < n && flags[i];
}

void
mv__scene_problem (MvScene *s, char *msg)
{
  static GMutex lock;
  g_mutex_lock (&lock);
  if (s->problem == NULL)
    {
      s->problem = msg;
      msg = NULL;
    }
  g_mutex_unlock (&lock);
  g_free (msg);
}

void
mv_scene_visible_slots (const MvLog *log, const MvSceneParams *p,
                        guint *first, guint *last)
{
  guint n = mv_slots_count (log, p->slots);
  double rh = p->row_h > 0 ? p->row_h : 1;
  double f = floor (MAX (p->y0, 0) / rh);
  double l = ceil ((MAX (p->y0, 0) + p->height) / rh);
  *first = (guint) MIN (f, (double) n);
  *last = (guint) MIN (l, (double) n);
}

void
mv_scene_visible_rows (const MvLog *log, const MvSceneParams *p,
                       guint *first, guint *last)
{
  mv_scene_visible_slots (log, p, first, last);
  if (p->slots == NULL || *first >= *last)
    {
      if (p->slots)
        *first = *last = 0;
      return;
    }
  guint a = G_MAXUINT, b = 0;
  for (guint i = *first; i < *last; i++)
    {
      const MvSlot *sl = &g_array_index (p->slots, MvSlot, i);
      a = MIN (a, sl->row_first);
      b = MAX (b, sl->row_first + sl->row_count);
    }
  *first = a;
  *last = b;
}

gboolean
mv__rows_per_pixel_many (const MvLog *log, const MvSceneParams *p)
{
  if (p->slots != NULL)
    return FALSE;
  guint first, last;
  mv_scene_visible_rows (log, p, &first, &last);
  return last - first > MV_SCENE_FINE_MAX_GROUP_ROWS * ceil (MAX (p->height,
                                                                  1));
}

gboolean
mv_scene_choose_summary (const MvLog *log, const MvSceneParams *p)
{
  if (p->force_lod >= 0)
    return p->force_lod == 1;
  if (p->row_h < MV_SCENE_MIN_DECODE_ROW_H)
    return TRUE;
  guint first, last;
  mv_scene_visible_slots (log, p, &first, &last);
  double frac = (double) (p->t1 - p->t0) / mv__run_span (log);
  double est = 0;
  /* Only rows of their own are decoded (group headers are drawn from
   * the summaries whatever the detail). */
  for (guint i = first; i < last; i++)
    {
      MvSlot sl = mv_slots_get (p->slots, i);
      if (sl.row_count == 1)
        est += (double) logfmt_reader_stream_events
                 (log->reader, log->rows[sl.row_first].stream) * frac;
    }
  guint64 budget = p->budget ? p->budget : MV_SCENE_DEFAULT_BUDGET;
  return est > (double) budget;
}

gboolean
mv_scene_coarse_first (MvCache *cache, const MvSceneParams *p,
                       MvSceneParams *coarse)
{
  MvLog *log = mv_cache_log (cache);
  *coarse = *p;
  gboolean need = FALSE;
  if (!mv_scene_choose_summary (log, p))
    {
      guint first, last, missing = 0;
      mv_scene_visible_slots (log, p, &first, &last);
      for (guint i = first; i < last && missing < COARSE_MIN_ROWS; i++)
        {
          MvSlot sl = mv_slots_get (p->slots, i);
          if (sl.row_count != 1)
            continue;
          guint32 st = log->rows[sl.row_first].stream;
          missing += !mv_cache_decoded_covers
                        (cache, st, mv__decode_start (log, st, p->t0, p->t1),
                         p->t1);
        }
      if (missing >= COARSE_MIN_ROWS)
        {
          coarse->force_lod = 1;
          coarse->coarse_lanes = TRUE;
          need = TRUE;
        }
    }
  else if (mv__fine_wanted (cache, p))
    {
      coarse->coarse_lanes = TRUE;
      need = TRUE;
    }
  if (mv_scene_choose_summary (log, p))
    {
      /* Many more rows than pixels, their summaries not read yet (the
       * first views of 100,000 processes): a first image from a few rows
       * per lane, so that no first frame reads every stream.  Pixel rows
       * of so many rows that their pyramids are not kept read them again
       * for a lane not built yet (a lane built already serves: lane_pyr
       * in mv-lane-summary.c). */
      guint first, last, unread = 0;
      mv_scene_visible_rows (log, p, &first, &last);
      guint n = last - first;
      gboolean unkept = mv__rows_per_pixel_many (log, p);
      if (n > SAMPLE_ROWS * MAX (p->height, 1) && n >= SAMPLE_PROBES)
        for (guint i = 0; i < SAMPLE_PROBES; i++)
          {
            guint32 st = log->rows[first + (guint64) i * n
                                   / SAMPLE_PROBES].stream;
            unread += unkept ? !mv_cache_pyramid_kept (cache, st)
                             : mv_cache_pyramid_peek (cache, st)
                               == MV_PYR_UNREAD;
          }
      if (unread >= SAMPLE_UNREAD)
        {
          coarse->sample_rows = SAMPLE_ROWS;
          need = TRUE;
        }
    }
  double est = (double) log->info->nmessages * (double) (p->t1 - p->t0)
               / MAX (mv__run_span (log), 1);
  if (!p->hide_arrows && est <= MV_SCENE_MAX_MSGS_SCANNED
      && est > MV_SCENE_MAX_ARROWS
      && !mv_cache_messages_cover (cache, p->t0, p->t1))
    {
      coarse->hide_arrows = TRUE;
      need = TRUE;
    }
  return need;
}

double
mv_scene_depth_inset (double h, guint depth)
{
  /* Each nesting level is 3 px (in tall rows 12% of the row) smaller on
   * both sides, keeping 4 px. */
  double inset = MAX (2.0, 0.06 * h) + MAX (3.0, 0.12 * h) * depth;
  double max = MAX ((h - 4.0) / 2.0, 0.0);
  return MIN (inset, max);
}

static void
lane_clear (MvLane *l)
{
  if (l->spans)
    g_array_unref (l->spans);
  if (l->markers)
    g_array_unref (l->markers);
  g_free (l->counter);
  g_free (l->offcpu);
  if (l->waits)
    g_array_unref (l->waits);
  g_free (l->sample_fn);
  if (!l->in_block)
    {
      g_free (l->pixels);
      g_free (l->dominant);
      g_free (l->dom_pct);
    }
}

void
mv_scene_counter_strip (const MvLane *lane, double *y, double *h)
{
  *h = MAX (floor (lane->h * 0.4), 1);
  *y = lane->y + lane->h - *h;
}

void
mv_scene_free (MvScene *s)
{
  if (s == NULL)
    return;
  for (guint i = 0; i < s->nlanes; i++)
    lane_clear (&s->lanes[i]);
  g_free (s->lanes);
  if (s->lane_block)
    mv_cache_block_unref (s->cache, s->lane_block);
  if (s->arrows)
    g_array_unref (s->arrows);
  mv_cache_unref (s->cache);
  mv_sample_source_unref (s->p.samples);
  if (s->p.slots)
    g_array_unref (s->p.slots);
  mv_log_unref (s->log);
  g_free (s->problem);
  g_free (s);
}

/* The lanes of the visible slots: one per slot (a row, or a group's
 * header aggregating its rows), or one per pixel row holding every
 * slot that falls in it when slots are thinner. */
static void
scene_lanes (MvScene *s)
{
  const MvSceneParams *p = &s->p;
  const MvLog *log = s->log;
  guint first, last;
  mv_scene_visible_slots (log, p, &first, &last);
  if (p->row_h >= 1)
    {
      s->nlanes = last - first;
      s->lanes = g_new0 (MvLane, MAX (s->nlanes, 1));
      for (guint i = 0; i < s->nlanes; i++)
        {
          MvLane *l = &s->lanes[i];
          MvSlot sl = mv_slots_get (p->slots, first + i);
          l->row_first = sl.row_first;
          l->row_count = sl.row_count;
          l->y = (first + i) * p->row_h - p->y0;
          l->h = p->row_h;
        }
      return;
    }
  guint nslots = mv_slots_count (log, p->slots);
  guint npx = (guint) ceil (p->height);
  s->lanes = g_new0 (MvLane, MAX (npx, 1));
  for (guint px = 0; px < npx; px++)
    {
      double a = floor ((px + p->y0) / p->row_h);
      double b = floor ((px + 1 + p->y0) / p->row_h);
      guint sa = (guint) MIN (a, (double) nslots);
      guint sb = (guint) MIN (b, (double) nslots);
      if (sb <= sa)
        continue;
      /* Slots are in row order: the lane is the rows from the first
       * slot's to the end of the last (headers hold their rows). */
      guint ra = mv_slots_get (p->slots, sa).row_first, rb = ra;
      for (guint k = sa; k < sb; k++)
        {
          MvSlot sl = mv_slots_get (p->slots, k);
          rb = MAX (rb, sl.row_first + sl.row_count);
        }
      MvLane *l = &s->lanes[s->nlanes++];
      l->row_first = ra;
      l->row_count = rb - ra;
      l->y = px;
      l->h = 1;
    }
}

/* TRUE if the events of the visible slots' rows in the window (group
 * headers' rows too) are within the frame's decoding budget: then a
 * header's rows are walked from the events the cache keeps decoded (the
 * ones the rows' own lanes use), not decoded from the file per frame. */
static gboolean
fine_rows_fit (const MvLog *log, const MvSceneParams *p)
{
  guint first, last;
  mv_scene_visible_rows (log, p, &first, &last);
  double frac = (double) (p->t1 - p->t0) / mv__run_span (log);
  double est = 0;
  guint64 budget = p->budget ? p->budget : MV_SCENE_DEFAULT_BUDGET;
  for (guint r = first; r < last && est <= (double) budget; r++)
    est += (double) logfmt_reader_stream_events (log->reader,
                                                 log->rows[r].stream) * frac;
  return est <= (double) budget;
}

typedef struct
{
  MvScene              *s;
  const guint          *order;         /* lanes in the order taken */
  gint                 *next;          /* the next of them (shared) */
  GCancellable         *cancellable;
  const MvSummaryFrame *frame;
  gboolean              okay;
  GError               *error;
  guint64               decoded;
} LaneJob;

static gpointer
lane_job (gpointer data)
{
  LaneJob *j = data;
  MvScene *s = j->s;
  float *occ = NULL;
  GArray *evs = NULL;
  MvTracker *tr = NULL;
  MvFineAcc *fine = NULL;
  if (s->summary || s->group_lanes)
    occ = g_new (float, (gsize) s->p.width * MAX (s->log->nstates, 1));
  if (!s->summary)
    {
      evs = g_array_new (FALSE, FALSE, sizeof (MvEv));
      tr = mv_tracker_new (s->log->nstates, FALSE);
    }
  if (s->fine)
    fine = mv__fine_acc_new ((guint) s->p.width, s->log->nstates);
  for (guint n, i; j->okay && (n = (guint) g_atomic_int_add (j->next, 1))
                               < s->nlanes;)
    {
      i = j->order[n];
      if (g_cancellable_set_error_if_cancelled (j->cancellable, &j->error))
        j->okay = FALSE;
      else if (s->summary || s->lanes[i].row_count > 1)
        j->okay = mv__lane_summary (s, &s->lanes[i], j->frame, occ, fine,
                                    &j->decoded, &j->error);
      else
        j->okay = mv__lane_decode (s, &s->lanes[i], evs, tr, &j->decoded,
                                   &j->error);
    }
  g_free (occ);
  if (evs)
    g_array_unref (evs);
  mv_tracker_free (tr);
  mv__fine_acc_free (fine);
  return NULL;
}

/* p.show_waits: the waits meeting the window of each decoded lane of
 * one thread (the analysis library's, kept by the cache). */
static void
scene_waits (MvScene *s)
{
  if (!s->p.show_waits)
    return;
  for (guint i = 0; i < s->nlanes; i++)
    {
      MvLane *lane = &s->lanes[i];
      if (lane->spans == NULL || lane->row_count != 1)
        continue;
      const GArray *w = mv_cache_waits (s->cache,
                                        s->log->rows[lane->row_first].stream);
      for (guint k = 0; w && k < w->len; k++)
        {
          const MvWait *m = &g_array_index (w, MvWait, k);
          if (m->t0 > s->p.t1)
            break;
          if (m->t1 < s->p.t0)
            continue;
          MvWaitSpan ws = {
            (float) CLAMP (mv_time_map_x (&s->map, m->t0), -1.0,
                           s->p.width + 1.0),
            (float) CLAMP (mv_time_map_x (&s->map, m->t1), -1.0,
                           s->p.width + 1.0),
            m->state, m->t0, m->t1 };
          if (lane->waits == NULL)
            lane->waits = g_array_new (FALSE, FALSE, sizeof (MvWaitSpan));
          g_array_append_val (lane->waits, ws);
        }
    }
}

MvScene *
mv_scene_compute (MvCache *cache, const MvSceneParams *p,
                  GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (cache != NULL && p != NULL, NULL);
  g_return_val_if_fail (p->t1 > p->t0 && p->width > 0, NULL);


  MvLog *log = mv_cache_log (cache);
  MvScene *s = g_new0 (MvScene, 1);
  s->log = mv_log_ref (log);
  s->cache = mv_cache_ref (cache);
  s->p = *p;
  if (s->p.samples)
    mv_sample_source_ref (s->p.samples);
  if (s->p.slots)
    g_array_ref (s->p.slots);
  s->map = mv_time_map (p->t0, p->t1, p->width);
  s->summary = mv_scene_choose_summary (log, p);
  scene_lanes (s);
  /* Group headers among decoded rows are summary lanes all the same. */
  for (guint i = 0; i < s->nlanes && !s->summary; i++)
    s->group_lanes |= s->lanes[i].row_count > 1;
  s->fine = (s->summary || s->group_lanes) && mv__fine_wanted (cache, p);
  s->fine_cached = s->fine && fine_rows_fit (log, p);

  /* Lanes are independent: shared by (at most 2) threads. */
  guint nth = MIN (MAX (g_get_num_processors (), 1), 2);
  if (s->nlanes < 8)
    nth = 1;
  LaneJob jobs[2];
  GThread *th[2] = { NULL, NULL };
  MvSummaryFrame frame = { 0 };
  if (s->summary || s->group_lanes)
    mv__summary_frame_init (s, &frame);
  if (s->fine)
    s->fine_rows = mv__fine_rows_new (s);
  /* Lanes are taken one at a time by both threads; this one first does
   * the arrows (independent of the lanes), then joins in.  Rows of their
   * own go first: the group headers over them then mostly find their
   * rows done (s->fine_rows). */
  guint *order = g_new (guint, MAX (s->nlanes, 1)), norder = 0;
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < s->nlanes; i++)
      if ((s->lanes[i].row_count > 1) == pass)
        order[norder++] = i;
  gint next = 0;
  for (guint j = 0; j < nth; j++)
    {
      jobs[j] = (LaneJob) { .s = s, .order = order, .next = &next,
                            .cancellable = cancellable, .frame = &frame,
                            .okay = TRUE };
      if (j > 0)
        th[j] = g_thread_new ("mv-lanes", lane_job, &jobs[j]);
    }
  mv__scene_arrows (s, cancellable);
  lane_job (&jobs[0]);
  gboolean okay = TRUE;
  for (guint j = 0; j < nth; j++)
    {
      if (th[j])
        g_thread_join (th[j]);
      s->decoded += jobs[j].decoded;
      if (!jobs[j].okay && okay)
        {
          okay = FALSE;
          g_propagate_error (error, jobs[j].error);
        }
      else if (jobs[j].error)
        g_error_free (jobs[j].error);
    }
  mv__fine_rows_free (g_steal_pointer (&s->fine_rows));
  g_free (order);
  if (s->summary || s->group_lanes)
    {
      /* A sampled stage is not what a pan may copy columns from. */
      if (okay && s->summary && !s->fine && !s->rows_sampled)
        mv__summary_frame_publish (s, &frame);
      mv__summary_frame_clear (s, &frame);
    }
  if (okay)
    mv__scene_counters (s);
  if (okay)
    mv__scene_samples (s);
  if (okay)
    mv__scene_sched (s);
  if (okay)
    scene_waits (s);
  if (okay)
    mv__scene_restracks (s);
  for (guint i = 0; i < s->nlanes; i++)
    for (guint k = 0; s->lanes[i].spans && k < s->lanes[i].spans->len; k++)
      s->max_depth = MAX (s->max_depth,
                          g_array_index (s->lanes[i].spans, MvSpan, k).depth);
  if (okay && g_cancellable_set_error_if_cancelled (cancellable, error))
    okay = FALSE;
  s->p.state_hidden = NULL;
  s->p.evdef_hidden = NULL;
  if (!okay)
    {
      mv_scene_free (s);
      return NULL;
    }
  return s;
}

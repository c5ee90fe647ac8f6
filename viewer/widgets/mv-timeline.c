/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mv-timeline.h"
#include "../draw/mv-draw.h"
#include "../draw/mv-draw-samples.h"

enum { DRAG_NONE, DRAG_PAN, DRAG_ZOOM, DRAG_SELECT };

struct _MvTimeline
{
  GtkGrid        parent;
  GtkWidget     *area, *hscroll, *vscroll;
  GtkAdjustment *hadj, *vadj;
  MvLog         *log;
  MvCache       *cache;          /* the log's, kept across frames */
  MvView         view;
  gboolean       have_view;
  MvLayout       layout;
  MvScene       *scene;
  cairo_surface_t *surf;
  cairo_surface_t *spare;        /* the surface before surf, for reuse */
  GCancellable  *cancel;
  gboolean       busy, pending, updating;
  gboolean       refining;       /* the job running is a second stage */
  MvSceneParams  running;        /* its view */
  guint8        *state_hidden, *evdef_hidden;
  gint32         highlight;
  gboolean       show_metric;    /* counter tracks of `metric` */
  guint32        metric;
  gboolean       show_sched;     /* off-CPU shading */
  gboolean       show_waits;     /* MPI waits hatched */
  int            restrack;       /* memory or NIC tracks */
  MvSampleSource *samples;       /* sample strips in the rows, or NULL */
  int            sample_depth;
  GArray        *marks;          /* MvTimeMark drawn over the plot */
  MvGroups      *groups;         /* rows grouped by node / rank range */
  MvGroupMode    group_mode;
  int            group_fold;     /* -1 default, 0 expanded, 1 collapsed */
  int            drag;
  double         press_x, press_y, last_x;
  gboolean       moved;
  gboolean       has_sel;
  guint64        sel0, sel1;
  char          *details;
  /* The instance selected (a click, a search, "show it"): outlined;
   * the details follow it once a scene decodes it. */
  gboolean       zoom_burst;     /* the last moves were wheel or key
                                    zooms: one history entry for them */
  gboolean       has_focus;
  gboolean       focus_describe; /* details from the next decoded scene */
  guint          focus_row;
  gint32         focus_state;
  guint64        focus_t0, focus_t1;
};

G_DEFINE_TYPE (MvTimeline, mv_timeline, GTK_TYPE_GRID)

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

typedef struct
{
  MvCache      *cache;
  MvSceneParams p;
  guint8       *sh, *eh;
  gint32        highlight;
  cairo_surface_t *surf;       /* a spare of the right size, or NULL */
  gboolean      coarse;        /* a quick first stage (see request_scene) */
} Job;

typedef struct
{
  MvScene         *scene;
  cairo_surface_t *surf;
  gboolean         coarse;
} JobResult;

static void request_scene (MvTimeline *tl);
static void request_scene_stage (MvTimeline *tl, gboolean allow_coarse);

/* A zoom by wheel, keys or buttons: a run of them is one step back in
 * the history (Alt+Left, Backspace), up to any other move. */
static void
zoom_step (MvTimeline *tl, double x, double factor)
{
  if (!tl->zoom_burst)
    mv_view_remember (&tl->view);
  tl->zoom_burst = TRUE;
  mv_view_zoom_at (&tl->view, x, factor);
}

static void
set_focus_rgb (cairo_t *cr, guint32 c)
{
  cairo_set_source_rgb (cr, ((c >> 16) & 0xff) / 255.0,
                        ((c >> 8) & 0xff) / 255.0, (c & 0xff) / 255.0);
}

static void
job_free (Job *j)
{
  mv_cache_unref (j->cache);
  mv_sample_source_unref (j->p.samples);
  if (j->p.slots)
    g_array_unref (j->p.slots);
  g_free (j->sh);
  g_free (j->eh);
  if (j->surf)
    cairo_surface_destroy (j->surf);
  g_free (j);
}

static void
result_free (JobResult *r)
{
  mv_scene_free (r->scene);
  if (r->surf)
    cairo_surface_destroy (r->surf);
  g_free (r);
}

static void
notify (MvTimeline *tl)
{
  g_signal_emit (tl, signals[SIGNAL_CHANGED], 0);
}

static void
job_thread (GTask *task, gpointer src, gpointer data, GCancellable *cancel)
{
  Job *j = data;
  GError *error = NULL;
  j->p.state_hidden = j->sh;
  j->p.evdef_hidden = j->eh;
  MvScene *s = mv_scene_compute (j->cache, &j->p, cancel, &error);
  if (s == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* The plot has no text: render it here, off the GUI thread. */
  JobResult *r = g_new0 (JobResult, 1);
  r->scene = s;
  r->coarse = j->coarse;
  /* A recycled surface: mv_draw_plot paints every pixel, and a fresh
   * 8 MB one faults in page by page (milliseconds per frame). */
  r->surf = j->surf ? g_steal_pointer (&j->surf)
            : cairo_image_surface_create (CAIRO_FORMAT_RGB24, j->p.width,
                                          (int) ceil (j->p.height));
  cairo_t *cr = cairo_create (r->surf);
  MvDrawOpts o = { .highlight_state = j->highlight };
  mv_draw_plot (cr, s, j->p.width, j->p.height, &o);
  cairo_destroy (cr);
  g_task_return_pointer (task, r, (GDestroyNotify) result_free);
}

/* The details of the focused instance from the scene, if it decoded
 * it (its row's lane, a span of its state beginning then). */
static gboolean
describe_focus (MvTimeline *tl)
{
  const MvScene *s = tl->scene;
  if (s == NULL || s->summary)
    return FALSE;
  for (guint i = 0; i < s->nlanes; i++)
    {
      const MvLane *l = &s->lanes[i];
      if (l->row_first != tl->focus_row || l->row_count != 1 || !l->spans)
        continue;
      for (guint k = 0; k < l->spans->len; k++)
        {
          const MvSpan *sp = &g_array_index (l->spans, MvSpan, k);
          if (sp->state == tl->focus_state && sp->t_begin == tl->focus_t0
              && sp->count == 1 && !(sp->flags & MV_SPAN_OPEN_LEFT))
            {
              MvHit hit = { .kind = MV_HIT_SPAN, .lane = l, .span = sp };
              g_free (tl->details);
              tl->details = mv_scene_describe (s, &hit);
              return TRUE;
            }
        }
    }
  return FALSE;
}

/* The job holds a reference on the timeline (its source object); a
 * timeline disposed meanwhile (area NULL) drops the result. */
static void
job_done (GObject *src, GAsyncResult *res, gpointer user)
{
  MvTimeline *tl = MV_TIMELINE (src);
  JobResult *r = g_task_propagate_pointer (G_TASK (res), NULL);
  if (tl->area == NULL)
    {
      if (r)
        result_free (r);
      return;
    }
  tl->busy = FALSE;
  gboolean refine = r != NULL && r->coarse;
  if (r != NULL)
    {
      mv_scene_free (tl->scene);
      if (tl->spare)
        cairo_surface_destroy (tl->spare);
      tl->spare = tl->surf;
      tl->scene = g_steal_pointer (&r->scene);
      tl->surf = g_steal_pointer (&r->surf);
      result_free (r);
      if (tl->focus_describe && !refine && describe_focus (tl))
        tl->focus_describe = FALSE;
      gtk_widget_queue_draw (tl->area);
      notify (tl);
    }
  if (tl->pending)
    {
      tl->pending = FALSE;
      request_scene (tl);
    }
  else if (refine)
    request_scene_stage (tl, FALSE);
}

static MvSceneParams
current_params (MvTimeline *tl)
{
  MvSceneParams p = {
    .t0 = tl->view.t0, .t1 = tl->view.t1,
    .width = MAX ((int) tl->layout.plot_w, 1),
    .height = MAX (tl->layout.plot_h, 1), .row_h = tl->view.row_h,
    .y0 = tl->view.y0, .force_lod = -1,
    .show_metric = tl->show_metric, .metric = tl->metric,
    .samples = tl->samples, .sample_depth = tl->sample_depth,
    .show_sched = tl->show_sched, .restrack = tl->restrack,
    .show_waits = tl->show_waits,
    .slots = mv_groups_slots (tl->groups),
  };
  return p;
}

/* The same window, size and scroll position. */
static gboolean
same_view (const MvSceneParams *p, const MvSceneParams *q)
{
  return p->t0 == q->t0 && p->t1 == q->t1 && p->width == q->width
         && p->height == q->height && p->row_h == q->row_h && p->y0 == q->y0
         && p->show_metric == q->show_metric && p->metric == q->metric
         && p->samples == q->samples && p->sample_depth == q->sample_depth
         && p->show_sched == q->show_sched && p->restrack == q->restrack
         && p->show_waits == q->show_waits
         && p->slots == q->slots;
}

static gboolean
scene_current (MvTimeline *tl)
{
  if (tl->scene == NULL)
    return FALSE;
  MvSceneParams p = current_params (tl);
  return same_view (&p, &tl->scene->p);
}

/* A view that needs much from the file (blocks to decode, messages not
 * read yet) is computed in two stages: a coarse scene from what is at
 * hand (summaries, no new arrows) in a few milliseconds, then the full
 * one; the view is never more than one cheap frame behind the input. */
static void
request_scene_stage (MvTimeline *tl, gboolean allow_coarse)
{
  if (tl->log == NULL || !tl->have_view || tl->layout.plot_w < 2)
    return;
  if (tl->busy)
    {
      /* A second stage of a view already left behind is dropped: the
       * new view's quick stage comes first. */
      tl->pending = TRUE;
      MvSceneParams p = current_params (tl);
      if (tl->refining && tl->cancel && !same_view (&p, &tl->running))
        g_cancellable_cancel (tl->cancel);
      return;
    }
  Job *j = g_new0 (Job, 1);
  j->cache = mv_cache_ref (tl->cache);
  j->p = current_params (tl);
  MvSceneParams coarse;
  if (allow_coarse && mv_scene_coarse_first (tl->cache, &j->p, &coarse))
    {
      j->p = coarse;
      j->coarse = TRUE;
    }
  if (j->p.samples)
    mv_sample_source_ref (j->p.samples);
  if (j->p.slots)
    g_array_ref (j->p.slots);
  j->sh = g_memdup2 (tl->state_hidden, MAX (tl->log->nstates, 1));
  j->eh = g_memdup2 (tl->evdef_hidden, MAX (tl->log->nevdefs, 1));
  j->highlight = tl->highlight;
  if (tl->spare
      && cairo_image_surface_get_width (tl->spare) == j->p.width
      && cairo_image_surface_get_height (tl->spare) == (int) ceil (j->p.height))
    j->surf = g_steal_pointer (&tl->spare);
  g_clear_object (&tl->cancel);
  tl->cancel = g_cancellable_new ();
  GTask *task = g_task_new (tl, tl->cancel, job_done, NULL);
  g_task_set_task_data (task, j, (GDestroyNotify) job_free);
  g_task_set_priority (task, G_PRIORITY_LOW);
  tl->busy = TRUE;
  tl->refining = !allow_coarse;
  tl->running = j->p;
  g_task_run_in_thread (task, job_thread);
  g_object_unref (task);
}

static void
request_scene (MvTimeline *tl)
{
  request_scene_stage (tl, TRUE);
}

static guint
nslots (MvTimeline *tl)
{
  return tl->log ? mv_slots_count (tl->log, mv_groups_slots (tl->groups))
                 : 0;
}

/* TRUE if every row fits the height (a fold keeps it so). */
static gboolean
rows_fitted (MvTimeline *tl)
{
  return tl->view.y0 == 0
         && fabs (tl->view.row_h
                  - mv_layout_fit_row_h_slots (tl->layout.plot_h,
                                               nslots (tl))) < 1e-6;
}

static void
sync_adjustments (MvTimeline *tl)
{
  if (!tl->have_view)
    return;
  tl->updating = TRUE;
  double span = (double) (tl->view.t1 - tl->view.t0);
  gtk_adjustment_configure (tl->hadj, (double) tl->view.t0,
                            (double) tl->view.lo, (double) tl->view.hi,
                            span / 10, span * 0.9, span);
  double total = tl->log ? nslots (tl) * tl->view.row_h : 0;
  double page = tl->layout.plot_h;
  tl->view.y0 = CLAMP (tl->view.y0, 0, MAX (total - page, 0));
  gtk_adjustment_configure (tl->vadj, tl->view.y0, 0, MAX (total, page),
                            MAX (tl->view.row_h, 1) * 3, page * 0.9, page);
  /* Shown only when there is something to scroll to. */
  gtk_widget_set_visible (tl->vscroll, total > page + 0.5);
  tl->updating = FALSE;
}

static void
view_changed (MvTimeline *tl)
{
  sync_adjustments (tl);
  request_scene (tl);
  gtk_widget_queue_draw (tl->area);
  notify (tl);
}

static void
fit_rows (MvTimeline *tl)
{
  tl->view.row_h = mv_layout_fit_row_h_slots (tl->layout.plot_h,
                                              nslots (tl));
  tl->view.y0 = 0;
}

static void
on_size_allocate (GtkWidget *w, GdkRectangle *a, MvTimeline *tl)
{
  double old_h = tl->layout.plot_h;
  mv_layout_compute (&tl->layout, tl->log, a->width, a->height, FALSE);
  tl->view.width = tl->layout.plot_w;
  /* Rows that filled the old height fill the new one (unless the user
   * changed the row height since). */
  if (tl->log && old_h != tl->layout.plot_h
      && fabs (tl->view.row_h - mv_layout_fit_row_h_slots (old_h,
                                                           nslots (tl)))
         < 1e-6)
    fit_rows (tl);
  view_changed (tl);
}

static void
on_adj_changed (GtkAdjustment *adj, MvTimeline *tl)
{
  if (tl->updating || !tl->have_view)
    return;
  if (adj == tl->hadj)
    {
      guint64 span = tl->view.t1 - tl->view.t0;
      double v = gtk_adjustment_get_value (adj);
      guint64 t0 = v <= 0 ? 0 : (guint64) v;
      mv_view_set (&tl->view, t0, t0 + span, FALSE);
    }
  else
    tl->view.y0 = gtk_adjustment_get_value (adj);
  view_changed (tl);
}

/* Maps a point in the current view to the published scene's pixels. */
static void
scene_transform (MvTimeline *tl, double *sx, double *tx, double *sy,
                 double *ty)
{
  const MvSceneParams *q = &tl->scene->p;
  /* Where the scene's first and last times fall in the view. */
  MvTimeMap m = mv_time_map (tl->view.t0, tl->view.t1, tl->layout.plot_w);
  *tx = mv_time_map_x (&m, q->t0);
  *sx = (mv_time_map_x (&m, q->t1) - *tx) / q->width;
  *sy = tl->view.row_h / q->row_h;
  *ty = q->y0 * *sy - tl->view.y0;
}

/* The focused instance: a dark frame with a bright one inside, seen
 * on any state colour (over the plot, not in the scene: it follows a
 * click at once). */
static void
draw_focus (MvTimeline *tl, cairo_t *cr)
{
  GArray *slots = mv_groups_slots (tl->groups);
  double y = (slots ? mv_slots_find_row (slots, tl->focus_row)
                    : tl->focus_row) * tl->view.row_h - tl->view.y0;
  double h = tl->view.row_h;
  if (y + h < 0 || y > tl->layout.plot_h)
    return;
  double a = floor (mv_view_time_to_x (&tl->view, tl->focus_t0));
  double b = ceil (mv_view_time_to_x (&tl->view, tl->focus_t1));
  a = MAX (a, -4);
  b = MIN (MAX (b, a + 1), tl->layout.plot_w + 4);
  if (b < 0 || a > tl->layout.plot_w)
    return;
  y = floor (y);
  h = MAX (floor (h), 4);
  cairo_save (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  cairo_set_line_width (cr, 2);
  set_focus_rgb (cr, MV_FOCUS_OUTER_RGB);
  cairo_rectangle (cr, a - 2, y, b - a + 4, h);
  cairo_stroke (cr);
  cairo_set_line_width (cr, 2);
  set_focus_rgb (cr, MV_FOCUS_INNER_RGB);
  cairo_rectangle (cr, a, y + 2, b - a, MAX (h - 4, 1));
  cairo_stroke (cr);
  cairo_restore (cr);
}

static gboolean
on_draw (GtkWidget *w, cairo_t *cr, MvTimeline *tl)
{
  MvLayout *l = &tl->layout;
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  if (tl->log == NULL)
    {
      PangoLayout *pl = gtk_widget_create_pango_layout (w, NULL);
      pango_layout_set_markup (pl, "<big>Open a log file "
                               "(Ctrl+O) or drop one here</big>", -1);
      int pw, ph;
      pango_layout_get_pixel_size (pl, &pw, &ph);
      cairo_set_source_rgb (cr, 0.42, 0.45, 0.49);
      cairo_move_to (cr, (l->width - pw) / 2, (l->height - ph) / 2);
      pango_cairo_show_layout (cr, pl);
      g_object_unref (pl);
      return TRUE;
    }
  MvDrawOpts o = { .highlight_state = tl->highlight,
                   .has_sel = tl->has_sel, .sel_t0 = tl->sel0,
                   .sel_t1 = tl->sel1 };
  if (tl->drag == DRAG_ZOOM || tl->drag == DRAG_SELECT)
    {
      guint64 a = mv_view_x_to_time (&tl->view, tl->press_x - l->plot_x);
      guint64 b = mv_view_x_to_time (&tl->view, tl->last_x - l->plot_x);
      o.has_sel = TRUE;
      o.sel_t0 = MIN (a, b);
      o.sel_t1 = MAX (a, b);
    }
  cairo_save (cr);
  cairo_rectangle (cr, l->plot_x, l->plot_y, l->plot_w, l->plot_h);
  cairo_clip (cr);
  cairo_translate (cr, l->plot_x, l->plot_y);
  if (tl->scene && tl->surf)
    {
      double sx, tx, sy, ty;
      scene_transform (tl, &sx, &tx, &sy, &ty);
      cairo_save (cr);
      cairo_translate (cr, tx, ty);
      cairo_scale (cr, sx, sy);
      cairo_set_source_surface (cr, tl->surf, 0, 0);
      if (sx != 1 || sy != 1)
        cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_FAST);
      cairo_paint (cr);
      cairo_restore (cr);
    }
  /* Under the marks (a flame graph box's), which mark the row's edge. */
  if (tl->has_focus)
    draw_focus (tl, cr);
  if (tl->marks && tl->marks->len)
    mv_draw_time_marks (cr, tl->log, tl->view.t0, tl->view.t1,
                        l->plot_w, l->plot_h, tl->view.row_h, tl->view.y0,
                        mv_groups_slots (tl->groups),
                        (const MvTimeMark *) (gpointer) tl->marks->data,
                        tl->marks->len);
  if (o.has_sel && o.sel_t1 > o.sel_t0)
    {
      double a = mv_view_time_to_x (&tl->view, o.sel_t0);
      double b = mv_view_time_to_x (&tl->view, o.sel_t1);
      cairo_set_source_rgba (cr, 0.18, 0.44, 0.87, 0.15);
      cairo_rectangle (cr, a, 0, MAX (b - a, 1), l->plot_h);
      cairo_fill (cr);
    }
  cairo_restore (cr);
  /* Ruler and labels follow the current view even before the scene. */
  MvScene frame = { .log = tl->log, .p = current_params (tl) };
  /* The counter scales need the scene's strips: while it is current. */
  if (scene_current (tl))
    {
      frame.lanes = tl->scene->lanes;
      frame.nlanes = tl->scene->nlanes;
      frame.counter_known = tl->scene->counter_known;
      frame.counter_lo = tl->scene->counter_lo;
      frame.counter_hi = tl->scene->counter_hi;
    }
  mv_draw_frame (cr, &frame, l, &o);
  return TRUE;
}

static gboolean
on_tooltip (GtkWidget *w, int x, int y, gboolean kb, GtkTooltip *tip,
            MvTimeline *tl)
{
  if (tl->scene == NULL || tl->drag != DRAG_NONE)
    return FALSE;
  double sx, tx, sy, ty;
  scene_transform (tl, &sx, &tx, &sy, &ty);
  double px = (x - tl->layout.plot_x - tx) / sx;
  double py = (y - tl->layout.plot_y - ty) / sy;
  MvHit hit;
  if (!mv_scene_hit (tl->scene, px, py, &hit))
    return FALSE;
  char *text = mv_scene_describe (tl->scene, &hit);
  gtk_tooltip_set_text (tip, text);
  g_free (text);
  return TRUE;
}

static gboolean
on_press (GtkWidget *w, GdkEventButton *ev, MvTimeline *tl)
{
  gtk_widget_grab_focus (w);
  if (tl->log == NULL || ev->type != GDK_BUTTON_PRESS)
    return FALSE;
  if (ev->button == 1 && ev->x < tl->layout.plot_x
      && ev->y >= tl->layout.plot_y
      && ev->y < tl->layout.plot_y + tl->layout.plot_h)
    {
      /* A click on a group's label folds or unfolds it. */
      double slot = floor ((ev->y - tl->layout.plot_y + tl->view.y0)
                           / tl->view.row_h);
      GArray *slots = mv_groups_slots (tl->groups);
      if (slots && slot >= 0 && slot < slots->len)
        {
          MvSlot sl = mv_slots_get (slots, (guint) slot);
          if (sl.group >= 0)
            {
              gboolean fitted = rows_fitted (tl);
              mv_groups_toggle (tl->groups, (guint) sl.group);
              if (fitted)
                fit_rows (tl);
              view_changed (tl);
            }
        }
      return TRUE;
    }
  tl->zoom_burst = FALSE;
  tl->press_x = tl->last_x = ev->x;
  tl->press_y = ev->y;
  tl->moved = FALSE;
  if (ev->button == 3 || (ev->button == 1 && (ev->state & GDK_SHIFT_MASK)))
    tl->drag = DRAG_ZOOM;
  else if (ev->button == 1 && (ev->state & GDK_CONTROL_MASK))
    tl->drag = DRAG_SELECT;
  else if (ev->button == 1)
    tl->drag = DRAG_PAN;
  return TRUE;
}

static gboolean
on_motion (GtkWidget *w, GdkEventMotion *ev, MvTimeline *tl)
{
  if (tl->drag == DRAG_NONE)
    return FALSE;
  if (fabs (ev->x - tl->press_x) > 3 || fabs (ev->y - tl->press_y) > 3)
    tl->moved = TRUE;
  if (tl->drag == DRAG_PAN)
    {
      mv_view_pan (&tl->view, tl->last_x - ev->x);
      tl->view.y0 -= ev->y - tl->press_y;
      tl->press_y = ev->y;
      view_changed (tl);
    }
  else
    gtk_widget_queue_draw (w);
  tl->last_x = ev->x;
  return TRUE;
}

static gboolean
on_release (GtkWidget *w, GdkEventButton *ev, MvTimeline *tl)
{
  int drag = tl->drag;
  tl->drag = DRAG_NONE;
  if (drag == DRAG_NONE)
    return FALSE;
  double px = tl->layout.plot_x;
  if ((drag == DRAG_ZOOM || drag == DRAG_SELECT) && tl->moved)
    {
      guint64 a = mv_view_x_to_time (&tl->view, tl->press_x - px);
      guint64 b = mv_view_x_to_time (&tl->view, ev->x - px);
      if (drag == DRAG_ZOOM)
        mv_view_set (&tl->view, MIN (a, b), MAX (a, b), TRUE);
      else
        {
          tl->has_sel = TRUE;
          tl->sel0 = MIN (a, b);
          tl->sel1 = MAX (a, b);
        }
      view_changed (tl);
      return TRUE;
    }
  if (!tl->moved && drag == DRAG_PAN)
    {
      /* A click: details of what is under the pointer. */
      g_clear_pointer (&tl->details, g_free);
      if (tl->scene)
        {
          double sx, tx, sy, ty;
          scene_transform (tl, &sx, &tx, &sy, &ty);
          MvHit hit;
          tl->has_focus = FALSE;
          tl->focus_describe = FALSE;
          if (mv_scene_hit (tl->scene, (ev->x - px - tx) / sx,
                            (ev->y - tl->layout.plot_y - ty) / sy, &hit))
            {
              tl->details = mv_scene_describe (tl->scene, &hit);
              if (hit.kind == MV_HIT_SPAN && hit.span->count == 1
                  && hit.lane->row_count == 1)
                {
                  tl->has_focus = TRUE;
                  tl->focus_row = hit.lane->row_first;
                  tl->focus_state = hit.span->state;
                  tl->focus_t0 = hit.span->t_begin;
                  tl->focus_t1 = hit.span->t_end;
                }
            }
        }
      tl->has_sel = FALSE;
      gtk_widget_queue_draw (w);
      notify (tl);
    }
  return TRUE;
}

static gboolean
on_scroll (GtkWidget *w, GdkEventScroll *ev, MvTimeline *tl)
{
  if (tl->log == NULL)
    return FALSE;
  double dx = 0, dy = 0;
  if (ev->direction == GDK_SCROLL_UP)
    dy = -1;
  else if (ev->direction == GDK_SCROLL_DOWN)
    dy = 1;
  else if (ev->direction == GDK_SCROLL_LEFT)
    dx = -1;
  else if (ev->direction == GDK_SCROLL_RIGHT)
    dx = 1;
  else
    gdk_event_get_scroll_deltas ((GdkEvent *) ev, &dx, &dy);
  if (ev->state & GDK_SHIFT_MASK)
    tl->view.y0 += dy * MAX (tl->view.row_h, 1) * 3;
  else if (ev->state & GDK_CONTROL_MASK)
    {
      /* Row height: anchor the row under the pointer. */
      double y = ev->y - tl->layout.plot_y;
      double row = (y + tl->view.y0) / tl->view.row_h;
      /* From "every row fits" (or the tall fit of few rows) to 120 px. */
      double fit = mv_layout_fit_row_h_slots (tl->layout.plot_h,
                                              nslots (tl));
      double lo = MIN (fit, tl->layout.plot_h / MAX (nslots (tl), 1)
                            * 0.999);
      double rh = CLAMP (tl->view.row_h * pow (1.25, -dy), MAX (lo, 1e-3),
                         MAX (120, fit));
      tl->view.row_h = rh;
      tl->view.y0 = row * tl->view.row_h - y;
    }
  else
    {
      if (dx != 0)
        {
          tl->zoom_burst = FALSE;
          mv_view_pan (&tl->view, dx * tl->layout.plot_w / 10);
        }
      if (dy != 0)
        zoom_step (tl, ev->x - tl->layout.plot_x, pow (1.25, -dy));
    }
  view_changed (tl);
  return TRUE;
}

static gboolean
on_key (GtkWidget *w, GdkEventKey *ev, MvTimeline *tl)
{
  return mv_timeline_key (tl, ev);
}

gboolean
mv_timeline_key (MvTimeline *tl, GdkEventKey *ev)
{
  if (tl->log == NULL
      || (ev->state & (GDK_CONTROL_MASK | GDK_SUPER_MASK)) != 0)
    return FALSE;
  double pw = tl->layout.plot_w;
  gboolean alt = (ev->state & GDK_MOD1_MASK) != 0;
  switch (ev->keyval)
    {
    case GDK_KEY_Left:
      if (alt)
        mv_view_back (&tl->view);
      else
        mv_view_pan (&tl->view, -pw / 10);
      break;
    case GDK_KEY_Right:
      if (alt)
        mv_view_forward (&tl->view);
      else
        mv_view_pan (&tl->view, pw / 10);
      break;
    case GDK_KEY_a: case GDK_KEY_A:
      mv_view_pan (&tl->view, -pw / 10);
      break;
    case GDK_KEY_d: case GDK_KEY_D:
      mv_view_pan (&tl->view, pw / 10);
      break;
    case GDK_KEY_w: case GDK_KEY_W: case GDK_KEY_plus: case GDK_KEY_equal:
    case GDK_KEY_KP_Add:
      zoom_step (tl, pw / 2, 1.5);
      view_changed (tl);
      return TRUE;
    case GDK_KEY_s: case GDK_KEY_S: case GDK_KEY_minus:
    case GDK_KEY_KP_Subtract:
      zoom_step (tl, pw / 2, 1 / 1.5);
      view_changed (tl);
      return TRUE;
    case GDK_KEY_Home: case GDK_KEY_0:
      mv_view_fit (&tl->view);
      fit_rows (tl);
      break;
    case GDK_KEY_Up:
      tl->view.y0 -= MAX (tl->view.row_h, 1) * 3;
      break;
    case GDK_KEY_Down:
      tl->view.y0 += MAX (tl->view.row_h, 1) * 3;
      break;
    case GDK_KEY_Page_Up:
      tl->view.y0 -= tl->layout.plot_h * 0.9;
      break;
    case GDK_KEY_Page_Down:
      tl->view.y0 += tl->layout.plot_h * 0.9;
      break;
    case GDK_KEY_BackSpace:
      mv_view_back (&tl->view);
      break;
    case GDK_KEY_Escape:
      tl->has_sel = FALSE;
      break;
    case GDK_KEY_bracketleft: case GDK_KEY_bracketright:
      if (tl->groups == NULL || tl->groups->groups->len == 0)
        return FALSE;
      {
        gboolean fitted = rows_fitted (tl);
        mv_groups_set_all (tl->groups, ev->keyval == GDK_KEY_bracketleft);
        if (fitted)
          fit_rows (tl);
      }
      break;
    case GDK_KEY_g: case GDK_KEY_G:
      /* Cycles node, rank range, none. */
      mv_timeline_set_grouping (tl, tl->groups->mode == MV_GROUP_NODE
                                ? MV_GROUP_RANGE
                                : tl->groups->mode == MV_GROUP_RANGE
                                ? MV_GROUP_NONE : MV_GROUP_NODE, -1);
      return TRUE;
    default:
      return FALSE;
    }
  tl->zoom_burst = FALSE;
  view_changed (tl);
  return TRUE;
}

static void
mv_timeline_dispose (GObject *obj)
{
  MvTimeline *tl = MV_TIMELINE (obj);
  if (tl->cancel)
    g_cancellable_cancel (tl->cancel);
  g_clear_object (&tl->cancel);
  g_clear_pointer (&tl->scene, mv_scene_free);
  g_clear_pointer (&tl->surf, cairo_surface_destroy);
  g_clear_pointer (&tl->spare, cairo_surface_destroy);
  g_clear_pointer (&tl->cache, mv_cache_unref);
  g_clear_pointer (&tl->samples, mv_sample_source_unref);
  g_clear_pointer (&tl->marks, g_array_unref);
  g_clear_pointer (&tl->groups, mv_groups_free);
  g_clear_pointer (&tl->log, mv_log_unref);
  g_clear_object (&tl->hadj);
  g_clear_object (&tl->vadj);
  /* The children go with the grid; NULL tells late jobs it is gone. */
  tl->area = tl->hscroll = tl->vscroll = NULL;
  G_OBJECT_CLASS (mv_timeline_parent_class)->dispose (obj);
}

static void
mv_timeline_finalize (GObject *obj)
{
  MvTimeline *tl = MV_TIMELINE (obj);
  mv_view_clear (&tl->view);
  g_free (tl->state_hidden);
  g_free (tl->evdef_hidden);
  g_free (tl->details);
  G_OBJECT_CLASS (mv_timeline_parent_class)->finalize (obj);
}

static void
mv_timeline_class_init (MvTimelineClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  oc->dispose = mv_timeline_dispose;
  oc->finalize = mv_timeline_finalize;
  /* The window, selection or detail text changed. */
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                          NULL, G_TYPE_NONE, 0);
}

static void
mv_timeline_init (MvTimeline *tl)
{
  tl->highlight = -1;
  tl->group_fold = -1;
  tl->area = gtk_drawing_area_new ();
  gtk_widget_set_hexpand (tl->area, TRUE);
  gtk_widget_set_vexpand (tl->area, TRUE);
  gtk_widget_set_can_focus (tl->area, TRUE);
  gtk_widget_set_has_tooltip (tl->area, TRUE);
  gtk_widget_add_events (tl->area, GDK_BUTTON_PRESS_MASK
                         | GDK_BUTTON_RELEASE_MASK | GDK_POINTER_MOTION_MASK
                         | GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK
                         | GDK_KEY_PRESS_MASK);
  tl->hadj = g_object_ref_sink (gtk_adjustment_new (0, 0, 1, 0.1, 0.9, 1));
  tl->vadj = g_object_ref_sink (gtk_adjustment_new (0, 0, 1, 0.1, 0.9, 1));
  tl->hscroll = gtk_scrollbar_new (GTK_ORIENTATION_HORIZONTAL, tl->hadj);
  tl->vscroll = gtk_scrollbar_new (GTK_ORIENTATION_VERTICAL, tl->vadj);
  gtk_widget_set_no_show_all (tl->vscroll, TRUE);
  GtkGrid *grid = GTK_GRID (tl);
  gtk_grid_attach (grid, tl->area, 0, 0, 1, 1);
  gtk_grid_attach (grid, tl->vscroll, 1, 0, 1, 1);
  gtk_grid_attach (grid, tl->hscroll, 0, 1, 1, 1);
  g_signal_connect (tl->area, "draw", G_CALLBACK (on_draw), tl);
  g_signal_connect (tl->area, "size-allocate",
                    G_CALLBACK (on_size_allocate), tl);
  g_signal_connect (tl->area, "query-tooltip", G_CALLBACK (on_tooltip), tl);
  g_signal_connect (tl->area, "button-press-event", G_CALLBACK (on_press),
                    tl);
  g_signal_connect (tl->area, "button-release-event",
                    G_CALLBACK (on_release), tl);
  g_signal_connect (tl->area, "motion-notify-event", G_CALLBACK (on_motion),
                    tl);
  g_signal_connect (tl->area, "scroll-event", G_CALLBACK (on_scroll), tl);
  g_signal_connect (tl->area, "key-press-event", G_CALLBACK (on_key), tl);
  g_signal_connect (tl->hadj, "value-changed", G_CALLBACK (on_adj_changed),
                    tl);
  g_signal_connect (tl->vadj, "value-changed", G_CALLBACK (on_adj_changed),
                    tl);
}

MvTimeline *
mv_timeline_new (void)
{
  return g_object_new (MV_TYPE_TIMELINE, NULL);
}

void
mv_timeline_set_log (MvTimeline *tl, MvLog *log)
{
  if (tl->cancel)
    g_cancellable_cancel (tl->cancel);
  mv_scene_free (tl->scene);
  tl->scene = NULL;
  if (tl->surf)
    cairo_surface_destroy (tl->surf);
  tl->surf = NULL;
  mv_cache_unref (tl->cache);
  mv_log_unref (tl->log);
  tl->log = log ? mv_log_ref (log) : NULL;
  tl->cache = log ? mv_cache_new (log) : NULL;
  g_clear_pointer (&tl->groups, mv_groups_free);
  if (log)
    {
      tl->groups = mv_groups_new (log, tl->group_mode);
      if (tl->group_fold >= 0)
        mv_groups_set_all (tl->groups, tl->group_fold == 1);
    }
  mv_view_clear (&tl->view);
  g_free (tl->state_hidden);
  g_free (tl->evdef_hidden);
  tl->state_hidden = tl->evdef_hidden = NULL;
  tl->has_sel = FALSE;
  tl->highlight = -1;
  g_clear_pointer (&tl->samples, mv_sample_source_unref);
  g_clear_pointer (&tl->marks, g_array_unref);
  g_clear_pointer (&tl->details, g_free);
  tl->has_focus = tl->focus_describe = FALSE;
  tl->have_view = log != NULL;
  if (log)
    {
      tl->state_hidden = g_new0 (guint8, MAX (log->nstates, 1));
      tl->evdef_hidden = g_new0 (guint8, MAX (log->nevdefs, 1));
      GtkAllocation a;
      gtk_widget_get_allocation (tl->area, &a);
      mv_layout_compute (&tl->layout, log, MAX (a.width, 1),
                         MAX (a.height, 1), FALSE);
      mv_view_init (&tl->view, mv_log_t_first (log), mv_log_t_last (log),
                    tl->layout.plot_w);
      fit_rows (tl);
    }
  view_changed (tl);
}

MvLog *
mv_timeline_get_log (MvTimeline *tl)
{
  return tl->log;
}

void
mv_timeline_set_hidden (MvTimeline *tl, const guint8 *states,
                        const guint8 *evdefs)
{
  if (tl->log == NULL)
    return;
  memcpy (tl->state_hidden, states, tl->log->nstates);
  memcpy (tl->evdef_hidden, evdefs, tl->log->nevdefs);
  /* Same window, new content: force a new scene. */
  mv_scene_free (tl->scene);
  tl->scene = NULL;
  if (tl->busy)
    tl->pending = TRUE;
  request_scene (tl);
}

void
mv_timeline_set_metric (MvTimeline *tl, gboolean show, guint32 id)
{
  tl->show_metric = show;
  tl->metric = id;
  if (tl->busy)
    tl->pending = TRUE;
  request_scene (tl);
}

void
mv_timeline_set_samples (MvTimeline *tl, gboolean show, int depth)
{
  if (tl->log == NULL)
    return;
  if (show && tl->samples == NULL)
    tl->samples = mv_sample_source_new (tl->log);
  else if (!show)
    g_clear_pointer (&tl->samples, mv_sample_source_unref);
  tl->sample_depth = MAX (depth, 0);
  if (tl->busy)
    tl->pending = TRUE;
  request_scene (tl);
}

gboolean
mv_timeline_samples_shown (MvTimeline *tl, int *depth)
{
  if (depth)
    *depth = tl->sample_depth;
  return tl->samples != NULL;
}

void
mv_timeline_set_marks (MvTimeline *tl, const MvTimeMark *marks, guint n)
{
  g_clear_pointer (&tl->marks, g_array_unref);
  if (n)
    {
      tl->marks = g_array_sized_new (FALSE, FALSE, sizeof (MvTimeMark), n);
      g_array_append_vals (tl->marks, marks, n);
    }
  if (tl->area)
    gtk_widget_queue_draw (tl->area);
}

void
mv_timeline_set_sched (MvTimeline *tl, gboolean show)
{
  tl->show_sched = show;
  if (tl->busy)
    tl->pending = TRUE;
  request_scene (tl);
}

void
mv_timeline_set_waits (MvTimeline *tl, gboolean show)
{
  tl->show_waits = show;
  if (tl->busy)
    tl->pending = TRUE;
  request_scene (tl);
}

void
mv_timeline_set_restrack (MvTimeline *tl, int which)
{
  tl->restrack = which;
  if (tl->busy)
    tl->pending = TRUE;
  request_scene (tl);
}

void
mv_timeline_set_highlight (MvTimeline *tl, gint32 state)
{
  tl->highlight = state;
  if (tl->busy)
    tl->pending = TRUE;
  request_scene (tl);
}

void
mv_timeline_show (MvTimeline *tl, guint64 t0, guint64 t1, int row)
{
  tl->zoom_burst = FALSE;
  if (!tl->have_view)
    return;
  mv_view_set (&tl->view, t0, t1, TRUE);
  if (row >= 0)
    {
      double y = mv_slots_find_row (mv_groups_slots (tl->groups), (guint) row)
                 * tl->view.row_h;
      if (y < tl->view.y0 || y + tl->view.row_h > tl->view.y0
                                                   + tl->layout.plot_h)
        tl->view.y0 = y - tl->layout.plot_h / 2;
    }
  view_changed (tl);
}

void
mv_timeline_show_instance (MvTimeline *tl, guint row, gint32 state,
                           guint64 t_begin, guint64 t_end,
                           const char *details)
{
  if (!tl->have_view)
    return;
  tl->has_focus = TRUE;
  tl->focus_describe = TRUE;
  tl->focus_row = row;
  tl->focus_state = state;
  tl->focus_t0 = t_begin;
  tl->focus_t1 = t_end;
  g_free (tl->details);
  tl->details = g_strdup (details);
  guint64 d = MAX (t_end - t_begin, 100);
  mv_timeline_show (tl, t_begin > 2 * d ? t_begin - 2 * d : 0,
                    t_end + 2 * d, (int) row);
}

void
mv_timeline_set_grouping (MvTimeline *tl, MvGroupMode mode, int fold)
{
  tl->group_mode = mode;
  tl->group_fold = fold;
  if (tl->log == NULL)
    return;
  gboolean fitted = rows_fitted (tl);
  mv_groups_free (tl->groups);
  tl->groups = mv_groups_new (tl->log, mode);
  if (fold >= 0)
    mv_groups_set_all (tl->groups, fold == 1);
  if (fitted)
    fit_rows (tl);
  view_changed (tl);
}

MvGroupMode
mv_timeline_grouping (MvTimeline *tl)
{
  return tl->groups ? tl->groups->mode : tl->group_mode;
}

void
mv_timeline_fit (MvTimeline *tl)
{
  tl->zoom_burst = FALSE;
  if (!tl->have_view)
    return;
  mv_view_fit (&tl->view);
  fit_rows (tl);
  view_changed (tl);
}

void
mv_timeline_back (MvTimeline *tl)
{
  tl->zoom_burst = FALSE;
  if (tl->have_view && mv_view_back (&tl->view))
    view_changed (tl);
}

void
mv_timeline_forward (MvTimeline *tl)
{
  tl->zoom_burst = FALSE;
  if (tl->have_view && mv_view_forward (&tl->view))
    view_changed (tl);
}

void
mv_timeline_zoom (MvTimeline *tl, double factor)
{
  if (!tl->have_view)
    return;
  zoom_step (tl, tl->layout.plot_w / 2, factor);
  view_changed (tl);
}

const MvView *
mv_timeline_view (MvTimeline *tl)
{
  return tl->have_view ? &tl->view : NULL;
}

gboolean
mv_timeline_selection (MvTimeline *tl, guint64 *t0, guint64 *t1)
{
  if (!tl->has_sel)
    return FALSE;
  *t0 = tl->sel0;
  *t1 = tl->sel1;
  return TRUE;
}

const char *
mv_timeline_details (MvTimeline *tl)
{
  return tl->details;
}

const MvScene *
mv_timeline_scene (MvTimeline *tl)
{
  return scene_current (tl) ? tl->scene : tl->scene;
}

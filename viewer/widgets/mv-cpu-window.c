/* SPDX-License-Identifier: BSD-3-Clause */
/* The CPU view window: a drawing area over the model and drawing code
 * that --export --cpus uses. */
#include "config.h"

#include "mv-cpu-window.h"
#include "mv-child-window.h"
#include "../draw/mv-draw-cpus.h"

#define WINDOW_KEY "mv-cpu-window"

typedef struct
{
  MvTimeline *tl;
  MvCpuView  *cv;
  GtkWidget  *area;
  MvCpuLayout layout;
} Cw;

static void
cw_free (Cw *c)
{
  mv_cpuview_free (c->cv);
  g_free (c);
}

static void
view_range (Cw *c, guint64 *t0, guint64 *t1)
{
  const MvView *v = mv_timeline_view (c->tl);
  *t0 = v->t0;
  *t1 = MAX (v->t1, v->t0 + 1);
}

static gboolean
on_draw (GtkWidget *area, cairo_t *cr, Cw *c)
{
  guint64 t0, t1;
  view_range (c, &t0, &t1);
  mv_cpu_layout (&c->layout, c->cv, gtk_widget_get_allocated_width (area),
                 gtk_widget_get_allocated_height (area));
  mv_draw_cpuview (cr, c->cv, &c->layout, t0, t1);
  return TRUE;
}

static gboolean
on_tooltip (GtkWidget *area, gint x, gint y, gboolean kb, GtkTooltip *tip,
            Cw *c)
{
  guint64 t0, t1;
  guint row;
  view_range (c, &t0, &t1);
  gint32 s = mv_cpuview_hit (c->cv, &c->layout, t0, t1, x, y, &row);
  if (s < 0)
    return FALSE;
  const logfmt_stream_def_t *sd = logfmt_reader_stream (c->cv->log->reader,
                                                        (guint32) s);
  char *lab = mv_cpuview_row_label (c->cv, row);
  char *t = g_strdup_printf ("%s: rank %d thread %d", lab,
                             sd ? sd->rank : -1, sd ? sd->thread : -1);
  gtk_tooltip_set_text (tip, t);
  g_free (t);
  g_free (lab);
  return TRUE;
}

static void
on_timeline_changed (MvTimeline *tl, GtkWidget *area)
{
  gtk_widget_queue_draw (area);
}


void
mv_cpu_window_show (GtkWindow *parent, MvTimeline *tl)
{
  MvLog *log = mv_timeline_get_log (tl);
  if (log == NULL)
    return;
  if (mv_child_window_reuse (parent, WINDOW_KEY, log))
    return;
  GError *error = NULL;
  MvCpuView *cv = mv_cpuview_new (log, &error);
  if (cv == NULL)
    {
      mv_child_window_error (parent, error);
      return;
    }
  Cw *c = g_new0 (Cw, 1);
  c->tl = tl;
  c->cv = cv;
  GtkWidget *win = gtk_window_new (GTK_WINDOW_TOPLEVEL);
  gtk_window_set_title (GTK_WINDOW (win), "CPUs");
  gtk_window_set_transient_for (GTK_WINDOW (win), parent);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (win), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (win), 1100,
                               (int) MIN (700, 30 + 28 + 8
                                          + cv->nrows * MV_CPU_ROW_H));
  g_object_set_data_full (G_OBJECT (win), "cw", c, (GDestroyNotify) cw_free);
  mv_child_window_register (parent, WINDOW_KEY, win, log);
  c->area = gtk_drawing_area_new ();
  gtk_widget_set_has_tooltip (c->area, TRUE);
  g_signal_connect (c->area, "draw", G_CALLBACK (on_draw), c);
  g_signal_connect (c->area, "query-tooltip", G_CALLBACK (on_tooltip), c);
  g_signal_connect_object (tl, "changed", G_CALLBACK (on_timeline_changed),
                           c->area, 0);
  gtk_container_add (GTK_CONTAINER (win), c->area);
  gtk_widget_show_all (win);
}

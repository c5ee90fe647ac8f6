/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>

#include "mv-flame-window.h"
#include "mv-child-window.h"
#include "../draw/mv-draw-flame.h"

struct _MvFlameWindow
{
  GtkWindow     parent;
  GtkWidget    *range, *ranks, *mode, *depth, *area, *status;
  MvTimeline   *tl;
  MvLog        *log;
  MvFlame      *fl;
  guint32       selected;       /* node, 0 none */
  GCancellable *cancel;
};

G_DEFINE_TYPE (MvFlameWindow, mv_flame_window, GTK_TYPE_WINDOW)

typedef MvFlameWindow Fw;

/* ---- drawing and pointing ----------------------------------------------- */

static void
area_size (Fw *fw, double *w, double *h)
{
  *w = gtk_widget_get_allocated_width (fw->area);
  *h = gtk_widget_get_allocated_height (fw->area);
}

static gboolean
on_draw (GtkWidget *da, cairo_t *cr, Fw *fw)
{
  double w, h;
  area_size (fw, &w, &h);
  if (fw->fl == NULL)
    {
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_paint (cr);
      return TRUE;
    }
  mv_draw_flame (cr, fw->fl, w, h, fw->selected);
  return TRUE;
}

static gboolean
on_tooltip (GtkWidget *wd, int x, int y, gboolean kb, GtkTooltip *tip,
            Fw *fw)
{
  if (fw->fl == NULL)
    return FALSE;
  double w, h;
  area_size (fw, &w, &h);
  const MvFlameBox *b = mv_flame_box_at (fw->fl, w, h, x, y);
  if (b == NULL)
    return FALSE;
  char *text = mv_flame_describe (fw->fl, b->node);
  gtk_tooltip_set_text (tip, text);
  g_free (text);
  return TRUE;
}

/* Selects node (0: none) and marks where it ran in the timeline. */
static void
select_node (Fw *fw, guint32 node)
{
  fw->selected = node;
  if (node == 0)
    {
      mv_timeline_set_marks (fw->tl, NULL, 0);
      gtk_label_set_text (GTK_LABEL (fw->status), "Click a box to mark "
                          "where its samples fell in the timeline.");
    }
  else
    {
      g_autoptr (GArray) m = mv_flame_marks (fw->fl, node);
      mv_timeline_set_marks (fw->tl, (const MvTimeMark *) (gpointer) m->data,
                             m->len);
      GHashTable *rows = g_hash_table_new (NULL, NULL);
      for (guint i = 0; i < m->len; i++)
        g_hash_table_add (rows, GUINT_TO_POINTER
                                  (g_array_index (m, MvTimeMark, i).stream));
      const cp_node_t *x = &fw->fl->tree->nodes[node];
      char *s = g_strdup_printf ("%s: %" G_GUINT64_FORMAT " samples, marked "
                                 "in the timeline: %u runs on %u rows",
                                 x->frame.func, x->total_samples, m->len,
                                 g_hash_table_size (rows));
      gtk_label_set_text (GTK_LABEL (fw->status), s);
      g_free (s);
      g_hash_table_destroy (rows);
    }
  gtk_widget_queue_draw (fw->area);
}

static gboolean
on_press (GtkWidget *wd, GdkEventButton *ev, Fw *fw)
{
  if (fw->fl == NULL || ev->button != 1 || ev->type != GDK_BUTTON_PRESS)
    return FALSE;
  double w, h;
  area_size (fw, &w, &h);
  const MvFlameBox *b = mv_flame_box_at (fw->fl, w, h, ev->x, ev->y);
  select_node (fw, b ? b->node : 0);
  return TRUE;
}

/* ---- the job ------------------------------------------------------------ */

typedef struct
{
  MvLog  *log;
  guint64 t0, t1;
  gint32 *ranks;
  gsize   nranks;
} Job;

static void
job_free (Job *j)
{
  mv_log_unref (j->log);
  g_free (j->ranks);
  g_free (j);
}

static void
flame_thread (GTask *t, gpointer src, gpointer data, GCancellable *c)
{
  Job *j = data;
  GError *error = NULL;
  MvFlame *fl = mv_flame_compute (j->log, j->t0, j->t1, j->ranks, j->nranks,
                                  &error);
  if (fl)
    g_task_return_pointer (t, fl, (GDestroyNotify) mv_flame_free);
  else
    g_task_return_error (t, error);
}

static void
flame_done (GObject *src, GAsyncResult *res, gpointer user)
{
  Fw *fw = MV_FLAME_WINDOW (src);
  MvFlame *fl = mv_job_result (res, fw->status);
  if (fl == NULL)
    return;
  mv_flame_free (fw->fl);
  fw->fl = fl;
  gtk_widget_set_size_request (fw->area, -1, (int) ((fl->max_depth + 1)
                                                    * MV_FLAME_BOX_H + 2));
  char *s = g_strdup_printf ("%s: %" G_GUINT64_FORMAT " samples on %d "
                             "ranks (%.0f Hz)%s. Hover a box for its "
                             "numbers; click it to mark where it ran.",
                             fl->t0 == 0 && fl->t1 == G_MAXUINT64
                             ? "Whole run" : "Range",
                             fl->tree->nodes[0].total_samples,
                             fl->tree->ranks, 1e9 / fl->period_ns,
                             fl->tree->constructed
                             ? " (some stacks constructed)" : "");
  gtk_label_set_text (GTK_LABEL (fw->status), s);
  g_free (s);
  gtk_widget_queue_draw (fw->area);
}

static void
recompute (Fw *fw)
{
  Job *j = g_new0 (Job, 1);
  j->t0 = 0;
  j->t1 = G_MAXUINT64;
  if (gtk_combo_box_get_active (GTK_COMBO_BOX (fw->range)) == 1
      && !mv_timeline_selection (fw->tl, &j->t0, &j->t1))
    {
      const MvView *v = mv_timeline_view (fw->tl);
      j->t0 = v->t0;
      j->t1 = v->t1;
    }
  const char *rt = gtk_entry_get_text (GTK_ENTRY (fw->ranks));
  if (!mv_flame_parse_ranks (rt, &j->ranks, &j->nranks))
    {
      gtk_label_set_text (GTK_LABEL (fw->status), "Ranks: 'all' or a list "
                          "like 0,2-3");
      g_free (j);
      return;
    }
  j->log = mv_log_ref (fw->log);
  if (fw->cancel)
    g_cancellable_cancel (fw->cancel);
  g_clear_object (&fw->cancel);
  fw->cancel = g_cancellable_new ();
  mv_flame_free (fw->fl);
  fw->fl = NULL;
  select_node (fw, 0);
  gtk_label_set_text (GTK_LABEL (fw->status), "Computing…");
  GTask *t = g_task_new (fw, fw->cancel, flame_done, NULL);
  g_task_set_task_data (t, j, (GDestroyNotify) job_free);
  g_task_run_in_thread (t, flame_thread);
  g_object_unref (t);
}

static void
on_range_changed (GtkWidget *wd, Fw *fw)
{
  recompute (fw);
}

/* The timeline's sample strips: off, ticks, or a lane at a depth. */
static void
on_mode_changed (GtkWidget *wd, Fw *fw)
{
  int mode = gtk_combo_box_get_active (GTK_COMBO_BOX (fw->mode));
  int depth = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (fw->depth));
  gtk_widget_set_sensitive (fw->depth, mode == 2);
  mv_timeline_set_samples (fw->tl, mode > 0, mode == 2 ? depth : 0);
}

static void
mv_flame_window_dispose (GObject *obj)
{
  Fw *fw = MV_FLAME_WINDOW (obj);
  if (fw->cancel)
    g_cancellable_cancel (fw->cancel);
  g_clear_object (&fw->cancel);
  G_OBJECT_CLASS (mv_flame_window_parent_class)->dispose (obj);
}

static void
mv_flame_window_finalize (GObject *obj)
{
  Fw *fw = MV_FLAME_WINDOW (obj);
  mv_flame_free (fw->fl);
  mv_log_unref (fw->log);
  G_OBJECT_CLASS (mv_flame_window_parent_class)->finalize (obj);
}

static void
mv_flame_window_class_init (MvFlameWindowClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  oc->dispose = mv_flame_window_dispose;
  oc->finalize = mv_flame_window_finalize;
}

static void
mv_flame_window_init (MvFlameWindow *fw)
{
}

#define WINDOW_KEY "mv-flame-window"


GtkWidget *
mv_flame_window_show (GtkWindow *parent, MvTimeline *tl)
{
  MvLog *log = mv_timeline_get_log (tl);
  GtkWidget *old = mv_child_window_reuse (parent, WINDOW_KEY, log);
  if (old)
    return old;

  Fw *fw = g_object_new (MV_TYPE_FLAME_WINDOW, "type", GTK_WINDOW_TOPLEVEL,
                         "title", "Flame graph", "transient-for", parent,
                         "destroy-with-parent", TRUE, "default-width", 1100,
                         "default-height", 520, NULL);
  fw->tl = tl;
  fw->log = mv_log_ref (log);
  mv_child_window_register (parent, WINDOW_KEY, GTK_WIDGET (fw), log);

  GtkWidget *vbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  g_object_set (vbox, "margin", 10, NULL);
  GtkWidget *bar = mv_range_bar_new (&fw->range);
  gtk_box_pack_start (GTK_BOX (bar), gtk_label_new ("Ranks"), FALSE, FALSE,
                      0);
  fw->ranks = gtk_entry_new ();
  gtk_entry_set_text (GTK_ENTRY (fw->ranks), "all");
  gtk_entry_set_width_chars (GTK_ENTRY (fw->ranks), 12);
  gtk_widget_set_tooltip_text (fw->ranks, "'all', or ranks and ranges "
                               "like 0,2-3 (Enter to apply)");
  gtk_box_pack_start (GTK_BOX (bar), fw->ranks, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (bar), gtk_label_new ("Timeline samples"),
                      FALSE, FALSE, 12);
  fw->mode = gtk_combo_box_text_new ();
  gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (fw->mode), "Hidden");
  gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (fw->mode),
                                  "Ticks by function");
  gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (fw->mode),
                                  "Stack lane at depth");
  int depth = 0;
  gboolean shown = mv_timeline_samples_shown (tl, &depth);
  gtk_combo_box_set_active (GTK_COMBO_BOX (fw->mode),
                            !shown ? 0 : depth ? 2 : 1);
  gtk_box_pack_start (GTK_BOX (bar), fw->mode, FALSE, FALSE, 0);
  fw->depth = gtk_spin_button_new_with_range (1, 64, 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (fw->depth), MAX (depth, 1));
  gtk_widget_set_sensitive (fw->depth, shown && depth > 0);
  gtk_widget_set_tooltip_text (fw->depth, "Frames from the outermost one "
                               "(1 is the thread's entry)");
  gtk_box_pack_start (GTK_BOX (bar), fw->depth, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (vbox), bar, FALSE, FALSE, 0);

  fw->area = gtk_drawing_area_new ();
  gtk_widget_set_has_tooltip (fw->area, TRUE);
  gtk_widget_add_events (fw->area, GDK_BUTTON_PRESS_MASK);
  g_signal_connect (fw->area, "draw", G_CALLBACK (on_draw), fw);
  g_signal_connect (fw->area, "query-tooltip", G_CALLBACK (on_tooltip), fw);
  g_signal_connect (fw->area, "button-press-event", G_CALLBACK (on_press),
                    fw);
  GtkWidget *scroll = gtk_scrolled_window_new (NULL, NULL);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll),
                                  GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_container_add (GTK_CONTAINER (scroll), fw->area);
  gtk_box_pack_start (GTK_BOX (vbox), scroll, TRUE, TRUE, 0);
  fw->status = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (fw->status), 0);
  gtk_label_set_ellipsize (GTK_LABEL (fw->status), PANGO_ELLIPSIZE_END);
  gtk_box_pack_start (GTK_BOX (vbox), fw->status, FALSE, FALSE, 0);
  gtk_container_add (GTK_CONTAINER (fw), vbox);

  g_signal_connect (fw->range, "changed", G_CALLBACK (on_range_changed), fw);
  g_signal_connect (fw->ranks, "activate", G_CALLBACK (on_range_changed),
                    fw);
  g_signal_connect (fw->mode, "changed", G_CALLBACK (on_mode_changed), fw);
  g_signal_connect (fw->depth, "value-changed", G_CALLBACK (on_mode_changed),
                    fw);
  recompute (fw);
  gtk_widget_show_all (GTK_WIDGET (fw));
  return GTK_WIDGET (fw);
}

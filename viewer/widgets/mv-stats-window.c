/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mv-stats-window.h"
#include "mv-child-window.h"
#include "../model/mv-stats.h"

enum
{
  COL_NAME, COL_RANK, COL_COUNT, COL_INCL, COL_MEAN, COL_MIN, COL_MAX,
  COL_EXCL, COL_STATE, N_COLS
};

struct _MvStatsWindow
{
  GtkWindow     parent;
  GtkWidget    *range, *state, *save, *hist, *tree, *inst, *status;
  GtkTreeStore *store;
  MvTimeline   *tl;
  MvLog        *log;
  MvStats      *st;
  int           sel_bin;
  GArray       *instances;
  GCancellable *cancel;          /* the statistics job */
  GCancellable *inst_cancel;     /* the instance list job */
};

G_DEFINE_TYPE (MvStatsWindow, mv_stats_window, GTK_TYPE_WINDOW)

typedef MvStatsWindow Sw;

static void
fmt_dur_cell (GtkTreeViewColumn *col, GtkCellRenderer *r, GtkTreeModel *m,
              GtkTreeIter *it, gpointer data)
{
  int c = GPOINTER_TO_INT (data);
  char buf[64];
  if (c == COL_MEAN)
    {
      double v;
      gtk_tree_model_get (m, it, c, &v, -1);
      mv_format_duration ((guint64) llround (v), buf, sizeof buf);
    }
  else
    {
      guint64 v;
      gtk_tree_model_get (m, it, c, &v, -1);
      if (c == COL_COUNT)
        g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT, v);
      else
        mv_format_duration (v, buf, sizeof buf);
    }
  g_object_set (r, "text", buf, NULL);
}

static void
fill_table (Sw *sw)
{
  gtk_tree_store_clear (sw->store);
  MvStats *st = sw->st;
  for (guint s = 0; s < st->nstates; s++)
    {
      const MvStatCell *t = mv_stats_cell (st, s, -1);
      GtkTreeIter parent, child;
      const char *name = mv_log_state (sw->log, s)->name;
      gtk_tree_store_insert_with_values (
        sw->store, &parent, NULL, -1, COL_NAME, name ? name : "?",
        COL_RANK, "all", COL_COUNT, t->count, COL_INCL, t->incl,
        COL_MEAN, t->count ? (double) t->incl / t->count : 0.0,
        COL_MIN, t->min, COL_MAX, t->max, COL_EXCL, t->excl,
        COL_STATE, (int) s, -1);
      for (guint r = 0; r < st->nranks; r++)
        {
          const MvStatCell *c = mv_stats_cell (st, s, r);
          if (c->count == 0)
            continue;
          char rk[32];
          g_snprintf (rk, sizeof rk, "%d", st->ranks[r]);
          gtk_tree_store_insert_with_values (
            sw->store, &child, &parent, -1, COL_NAME, name ? name : "?",
            COL_RANK, rk, COL_COUNT, c->count, COL_INCL, c->incl,
            COL_MEAN, (double) c->incl / c->count, COL_MIN, c->min,
            COL_MAX, c->max, COL_EXCL, c->excl, COL_STATE, (int) s, -1);
        }
    }
}

static int
cur_state (Sw *sw)
{
  return gtk_combo_box_get_active (GTK_COMBO_BOX (sw->state));
}

/* Histogram geometry: bins [b0, b1] of the chosen state. */
static void
hist_range (Sw *sw, int *b0, int *b1, guint64 *maxc)
{
  *b0 = MV_HIST_BINS;
  *b1 = -1;
  *maxc = 0;
  int s = cur_state (sw);
  if (sw->st == NULL || s < 0 || (guint) s >= sw->st->nstates)
    return;
  const guint64 *h = &sw->st->hist[(gsize) s * MV_HIST_BINS];
  for (int b = 0; b < MV_HIST_BINS; b++)
    if (h[b])
      {
        *b0 = MIN (*b0, b);
        *b1 = MAX (*b1, b);
        *maxc = MAX (*maxc, h[b]);
      }
  /* Whole decades, so the axis labels are round numbers. */
  if (*b1 >= 0)
    {
      *b0 = *b0 / MV_HIST_PER_DECADE * MV_HIST_PER_DECADE;
      *b1 = MIN ((*b1 / MV_HIST_PER_DECADE + 1) * MV_HIST_PER_DECADE - 1,
                 MV_HIST_BINS - 1);
    }
}

#define HM_L 56
#define HM_R 16
#define HM_T 14
#define HM_B 28

static int
hist_bin_at (Sw *sw, double x)
{
  int b0, b1;
  guint64 maxc;
  hist_range (sw, &b0, &b1, &maxc);
  if (b1 < 0)
    return -1;
  double w = gtk_widget_get_allocated_width (sw->hist) - HM_L - HM_R;
  int b = b0 + (int) floor ((x - HM_L) / (w / (b1 - b0 + 1)));
  return b >= b0 && b <= b1 ? b : -1;
}

static gboolean
draw_hist (GtkWidget *da, cairo_t *cr, Sw *sw)
{
  double W = gtk_widget_get_allocated_width (da);
  double H = gtk_widget_get_allocated_height (da);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  int b0, b1;
  guint64 maxc;
  hist_range (sw, &b0, &b1, &maxc);
  PangoLayout *pl = gtk_widget_create_pango_layout (da, NULL);
  PangoFontDescription *fd = pango_font_description_from_string ("Sans 8");
  pango_layout_set_font_description (pl, fd);
  pango_font_description_free (fd);
  if (b1 < 0)
    {
      pango_layout_set_text (pl, sw->st ? "No complete instances in range"
                                        : "Computing…", -1);
      cairo_set_source_rgb (cr, 0.42, 0.45, 0.49);
      cairo_move_to (cr, HM_L, H / 2 - 8);
      pango_cairo_show_layout (cr, pl);
      g_object_unref (pl);
      return TRUE;
    }
  int s = cur_state (sw);
  guint32 c = mv_log_state (sw->log, s)->rgb;
  const guint64 *h = &sw->st->hist[(gsize) s * MV_HIST_BINS];
  double pw = W - HM_L - HM_R, ph = H - HM_T - HM_B;
  double bw = pw / (b1 - b0 + 1);
  for (int b = b0; b <= b1; b++)
    {
      if (h[b] == 0)
        continue;
      double bh = MAX (ph * (double) h[b] / maxc, 1);
      double x = HM_L + (b - b0) * bw;
      cairo_rectangle (cr, x + 1, HM_T + ph - bh, bw - 2, bh);
      if (b == sw->sel_bin)
        cairo_set_source_rgb (cr, 0.18, 0.44, 0.87);
      else
        cairo_set_source_rgb (cr, ((c >> 16) & 0xff) / 255.0,
                              ((c >> 8) & 0xff) / 255.0, (c & 0xff) / 255.0);
      cairo_fill (cr);
    }
  /* Axes and labels: decades on x, max count on y. */
  cairo_set_source_rgb (cr, 0.85, 0.86, 0.88);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, HM_L, HM_T + ph + 0.5);
  cairo_line_to (cr, HM_L + pw, HM_T + ph + 0.5);
  cairo_stroke (cr);
  char buf[64];
  for (int b = b0; b <= b1 + 1; b += MV_HIST_PER_DECADE)
    {
      double x = HM_L + (b - b0) * bw;
      mv_format_duration (mv_hist_bin_lo (b) ? mv_hist_bin_lo (b) : 1, buf,
                          sizeof buf);
      pango_layout_set_text (pl, buf, -1);
      int tw, th;
      pango_layout_get_pixel_size (pl, &tw, &th);
      cairo_set_source_rgb (cr, 0.42, 0.45, 0.49);
      cairo_move_to (cr, x - tw / 2.0, HM_T + ph + 6);
      pango_cairo_show_layout (cr, pl);
      cairo_move_to (cr, x + 0.5, HM_T + ph);
      cairo_line_to (cr, x + 0.5, HM_T + ph + 4);
      cairo_stroke (cr);
    }
  g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT, maxc);
  pango_layout_set_text (pl, buf, -1);
  cairo_move_to (cr, 6, HM_T - 6);
  pango_cairo_show_layout (cr, pl);
  g_object_unref (pl);
  return TRUE;
}

/* ---- workers ------------------------------------------------------------ */

typedef struct
{
  MvLog  *log;
  guint64 t0, t1;
  gint32  state;
  int     bin;
} Job;

static void
job_free (Job *j)
{
  mv_log_unref (j->log);
  g_free (j);
}

static void
stats_thread (GTask *t, gpointer src, gpointer data, GCancellable *c)
{
  Job *j = data;
  GError *error = NULL;
  MvStats *st = mv_stats_compute (j->log, j->t0, j->t1, NULL, NULL, c, &error);
  if (st)
    g_task_return_pointer (t, st, (GDestroyNotify) mv_stats_free);
  else
    g_task_return_error (t, error);
}

/* Jobs hold a reference on the window (their source object), and a
 * closed window cancels them: a result for a closed window arrives as
 * G_IO_ERROR_CANCELLED and is dropped. */
static void
stats_done (GObject *src, GAsyncResult *res, gpointer user)
{
  Sw *sw = MV_STATS_WINDOW (src);
  MvStats *st = mv_job_result (res, sw->status);
  if (st == NULL)
    return;
  mv_stats_free (sw->st);
  sw->st = st;
  fill_table (sw);
  gtk_widget_set_sensitive (sw->save, TRUE);
  gtk_label_set_text (GTK_LABEL (sw->status),
                      st->t0 == 0 && st->t1 == G_MAXUINT64
                      ? "Whole run. Click a histogram bar to list its "
                        "instances; double-click one to show it."
                      : "Selected range (instances beginning in it).");
  gtk_widget_queue_draw (sw->hist);
}

static void
recompute (Sw *sw)
{
  guint64 t0 = 0, t1 = G_MAXUINT64;
  if (gtk_combo_box_get_active (GTK_COMBO_BOX (sw->range)) == 1
      && !mv_timeline_selection (sw->tl, &t0, &t1))
    {
      const MvView *v = mv_timeline_view (sw->tl);
      t0 = v->t0;
      t1 = v->t1;
    }
  if (sw->cancel)
    g_cancellable_cancel (sw->cancel);
  g_clear_object (&sw->cancel);
  sw->cancel = g_cancellable_new ();
  mv_stats_free (sw->st);
  sw->st = NULL;
  sw->sel_bin = -1;
  gtk_widget_set_sensitive (sw->save, FALSE);
  gtk_tree_store_clear (sw->store);
  gtk_label_set_text (GTK_LABEL (sw->status), "Computing…");
  Job *j = g_new0 (Job, 1);
  j->log = mv_log_ref (sw->log);
  j->t0 = t0;
  j->t1 = t1;
  GTask *t = g_task_new (sw, sw->cancel, stats_done, NULL);
  g_task_set_task_data (t, j, (GDestroyNotify) job_free);
  g_task_run_in_thread (t, stats_thread);
  g_object_unref (t);
  gtk_widget_queue_draw (sw->hist);
}

static void
inst_thread (GTask *t, gpointer src, gpointer data, GCancellable *c)
{
  Job *j = data;
  g_task_return_pointer (t, mv_stats_instances (j->log, j->state, j->bin,
                                                j->t0, j->t1, 500, c),
                         (GDestroyNotify) g_array_unref);
}

static void
inst_done (GObject *src, GAsyncResult *res, gpointer user)
{
  Sw *sw = MV_STATS_WINDOW (src);
  GArray *a = g_task_propagate_pointer (G_TASK (res), NULL);
  if (a == NULL)
    return;
  if (sw->instances)
    g_array_unref (sw->instances);
  sw->instances = a;
  GList *kids = gtk_container_get_children (GTK_CONTAINER (sw->inst));
  for (GList *l = kids; l; l = l->next)
    gtk_widget_destroy (l->data);
  g_list_free (kids);
  for (guint i = 0; i < a->len; i++)
    {
      const MvInstance *in = &g_array_index (a, MvInstance, i);
      char d[64];
      mv_format_duration (in->t_end - in->t_begin, d, sizeof d);
      char *txt = g_strdup_printf ("rank %-5d %.9f s  %s",
                                   sw->log->rows[sw->log->stream_row[in->stream]]
                                   .rank, in->t_begin / 1e9, d);
      GtkWidget *l = gtk_label_new (txt);
      gtk_label_set_xalign (GTK_LABEL (l), 0);
      g_free (txt);
      gtk_list_box_insert (GTK_LIST_BOX (sw->inst), l, -1);
    }
  gtk_widget_show_all (sw->inst);
  char *m = g_strdup_printf ("%u instances listed (at most 500); "
                             "double-click one to show it", a->len);
  gtk_label_set_text (GTK_LABEL (sw->status), m);
  g_free (m);
}

static gboolean
on_hist_press (GtkWidget *da, GdkEventButton *ev, Sw *sw)
{
  int b = hist_bin_at (sw, ev->x);
  int s = cur_state (sw);
  if (b < 0 || sw->st == NULL || s < 0
      || sw->st->hist[(gsize) s * MV_HIST_BINS + b] == 0)
    return FALSE;
  sw->sel_bin = b;
  gtk_widget_queue_draw (da);
  mv_timeline_set_highlight (sw->tl, s);
  Job *j = g_new0 (Job, 1);
  j->log = mv_log_ref (sw->log);
  j->state = s;
  j->bin = b;
  j->t0 = sw->st->t0;
  j->t1 = sw->st->t1;
  if (sw->inst_cancel)
    g_cancellable_cancel (sw->inst_cancel);
  g_clear_object (&sw->inst_cancel);
  sw->inst_cancel = g_cancellable_new ();
  GTask *t = g_task_new (sw, sw->inst_cancel, inst_done, NULL);
  g_task_set_task_data (t, j, (GDestroyNotify) job_free);
  g_task_run_in_thread (t, inst_thread);
  g_object_unref (t);
  return TRUE;
}

static void
on_inst_activated (GtkListBox *lb, GtkListBoxRow *row, Sw *sw)
{
  int i = gtk_list_box_row_get_index (row);
  if (sw->instances == NULL || i < 0 || (guint) i >= sw->instances->len)
    return;
  const MvInstance *in = &g_array_index (sw->instances, MvInstance, i);
  guint r = sw->log->stream_row[in->stream];
  int s = cur_state (sw);
  char *m = g_strdup_printf ("%s on rank %d at %.9f s",
                             s >= 0 ? mv_log_state (sw->log, s)->name : "",
                             sw->log->rows[r].rank, in->t_begin / 1e9);
  mv_timeline_show_instance (sw->tl, r, s, in->t_begin, in->t_end, m);
  g_free (m);
}

static void
on_state_changed (GtkComboBox *c, Sw *sw)
{
  sw->sel_bin = -1;
  gtk_widget_queue_draw (sw->hist);
}

static void
on_range_changed (GtkComboBox *c, Sw *sw)
{
  recompute (sw);
}

static void
on_row_activated (GtkTreeView *tv, GtkTreePath *path, GtkTreeViewColumn *c,
                  Sw *sw)
{
  GtkTreeIter it;
  GtkTreeModel *m = gtk_tree_view_get_model (tv);
  if (!gtk_tree_model_get_iter (m, &it, path))
    return;
  int s;
  gtk_tree_model_get (m, &it, COL_STATE, &s, -1);
  gtk_combo_box_set_active (GTK_COMBO_BOX (sw->state), s);
}

static void
on_save_response (GtkNativeDialog *dlg, int response, Sw *sw)
{
  if (response == GTK_RESPONSE_ACCEPT && sw->st != NULL)
    {
      char *path = gtk_file_chooser_get_filename (GTK_FILE_CHOOSER (dlg));
      GError *error = NULL;
      char *msg = mv_stats_save_csv (sw->st, path, &error)
                  ? g_strdup_printf ("Saved %s", path)
                  : g_strdup_printf ("Not saved: %s", error->message);
      gtk_label_set_text (GTK_LABEL (sw->status), msg);
      g_free (msg);
      g_clear_error (&error);
      g_free (path);
    }
  g_object_unref (dlg);
}

static void
on_save (GtkButton *b, Sw *sw)
{
  GtkFileChooserNative *dlg = gtk_file_chooser_native_new
    ("Save statistics as CSV", GTK_WINDOW (sw), GTK_FILE_CHOOSER_ACTION_SAVE,
     "_Save", "_Cancel");
  GtkFileChooser *fc = GTK_FILE_CHOOSER (dlg);
  gtk_file_chooser_set_do_overwrite_confirmation (fc, TRUE);
  char *base = g_path_get_basename (sw->log->path);
  char *dot = strrchr (base, '.');
  if (dot != NULL && dot != base)
    *dot = '\0';
  char *name = g_strdup_printf ("%s-stats.csv", base);
  gtk_file_chooser_set_current_name (fc, name);
  g_free (name);
  g_free (base);
  GtkFileFilter *f = gtk_file_filter_new ();
  gtk_file_filter_set_name (f, "CSV (*.csv)");
  gtk_file_filter_add_pattern (f, "*.csv");
  gtk_file_chooser_add_filter (fc, f);
  g_signal_connect_object (dlg, "response", G_CALLBACK (on_save_response),
                           sw, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dlg));
}

static void
mv_stats_window_dispose (GObject *obj)
{
  Sw *sw = MV_STATS_WINDOW (obj);
  if (sw->cancel)
    g_cancellable_cancel (sw->cancel);
  if (sw->inst_cancel)
    g_cancellable_cancel (sw->inst_cancel);
  g_clear_object (&sw->cancel);
  g_clear_object (&sw->inst_cancel);
  G_OBJECT_CLASS (mv_stats_window_parent_class)->dispose (obj);
}

static void
mv_stats_window_finalize (GObject *obj)
{
  Sw *sw = MV_STATS_WINDOW (obj);
  mv_stats_free (sw->st);
  mv_log_unref (sw->log);
  if (sw->instances)
    g_array_unref (sw->instances);
  G_OBJECT_CLASS (mv_stats_window_parent_class)->finalize (obj);
}

static void
mv_stats_window_class_init (MvStatsWindowClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  oc->dispose = mv_stats_window_dispose;
  oc->finalize = mv_stats_window_finalize;
}

static void
mv_stats_window_init (MvStatsWindow *sw)
{
  sw->sel_bin = -1;
}


/* The parent points to its statistics window until the window is
 * destroyed. */
#define WINDOW_KEY "mv-stats-window"


GtkWidget *
mv_stats_window_show (GtkWindow *parent, MvTimeline *tl)
{
  MvLog *log = mv_timeline_get_log (tl);
  GtkWidget *old = mv_child_window_reuse (parent, WINDOW_KEY, log);
  if (old)
    return old;

  Sw *sw = g_object_new (MV_TYPE_STATS_WINDOW, "type", GTK_WINDOW_TOPLEVEL,
                         "title", "Statistics", "transient-for", parent,
                         "destroy-with-parent", TRUE, "default-width", 980,
                         "default-height", 680, NULL);
  sw->tl = tl;
  sw->log = mv_log_ref (log);
  mv_child_window_register (parent, WINDOW_KEY, GTK_WIDGET (sw), log);

  GtkWidget *vbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  g_object_set (vbox, "margin", 10, NULL);
  GtkWidget *bar = mv_range_bar_new (&sw->range);
  gtk_box_pack_start (GTK_BOX (bar), gtk_label_new ("Histogram of"), FALSE,
                      FALSE, 8);
  sw->state = gtk_combo_box_text_new ();
  for (guint i = 0; i < log->nstates; i++)
    gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (sw->state),
                                    mv_log_state (log, i)->name
                                    ? mv_log_state (log, i)->name : "?");
  gtk_combo_box_set_active (GTK_COMBO_BOX (sw->state), log->nstates ? 0 : -1);
  gtk_box_pack_start (GTK_BOX (bar), sw->state, FALSE, FALSE, 0);
  sw->save = gtk_button_new_with_mnemonic ("Save as _CSV…");
  gtk_widget_set_tooltip_text (sw->save, "Save the table (every state, "
                               "rank and total) as CSV");
  gtk_widget_set_sensitive (sw->save, FALSE);
  g_signal_connect (sw->save, "clicked", G_CALLBACK (on_save), sw);
  gtk_box_pack_end (GTK_BOX (bar), sw->save, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (vbox), bar, FALSE, FALSE, 0);

  GtkWidget *hpaned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  sw->hist = gtk_drawing_area_new ();
  gtk_widget_set_size_request (sw->hist, 480, 220);
  gtk_widget_add_events (sw->hist, GDK_BUTTON_PRESS_MASK);
  g_signal_connect (sw->hist, "draw", G_CALLBACK (draw_hist), sw);
  g_signal_connect (sw->hist, "button-press-event",
                    G_CALLBACK (on_hist_press), sw);
  gtk_paned_pack1 (GTK_PANED (hpaned), sw->hist, TRUE, FALSE);
  GtkWidget *iscroll = gtk_scrolled_window_new (NULL, NULL);
  gtk_widget_set_size_request (iscroll, 320, -1);
  sw->inst = gtk_list_box_new ();
  g_signal_connect (sw->inst, "row-activated",
                    G_CALLBACK (on_inst_activated), sw);
  gtk_container_add (GTK_CONTAINER (iscroll), sw->inst);
  gtk_paned_pack2 (GTK_PANED (hpaned), iscroll, FALSE, FALSE);
  gtk_box_pack_start (GTK_BOX (vbox), hpaned, FALSE, FALSE, 0);

  sw->store = gtk_tree_store_new (N_COLS, G_TYPE_STRING, G_TYPE_STRING,
                                  G_TYPE_UINT64, G_TYPE_UINT64,
                                  G_TYPE_DOUBLE, G_TYPE_UINT64,
                                  G_TYPE_UINT64, G_TYPE_UINT64, G_TYPE_INT);
  sw->tree = gtk_tree_view_new_with_model (GTK_TREE_MODEL (sw->store));
  g_object_unref (sw->store);
  GtkTreeView *tv = GTK_TREE_VIEW (sw->tree);
  mv_tree_add_column (tv, "State", COL_NAME, NULL);
  mv_tree_add_column (tv, "Rank", COL_RANK, NULL);
  mv_tree_add_column (tv, "Count", COL_COUNT, fmt_dur_cell);
  mv_tree_add_column (tv, "Total (incl.)", COL_INCL, fmt_dur_cell);
  mv_tree_add_column (tv, "Exclusive", COL_EXCL, fmt_dur_cell);
  mv_tree_add_column (tv, "Mean", COL_MEAN, fmt_dur_cell);
  mv_tree_add_column (tv, "Min", COL_MIN, fmt_dur_cell);
  mv_tree_add_column (tv, "Max", COL_MAX, fmt_dur_cell);
  g_signal_connect (sw->tree, "row-activated", G_CALLBACK (on_row_activated),
                    sw);
  GtkWidget *tscroll = gtk_scrolled_window_new (NULL, NULL);
  gtk_container_add (GTK_CONTAINER (tscroll), sw->tree);
  gtk_box_pack_start (GTK_BOX (vbox), tscroll, TRUE, TRUE, 0);
  sw->status = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (sw->status), 0);
  gtk_box_pack_start (GTK_BOX (vbox), sw->status, FALSE, FALSE, 0);
  gtk_container_add (GTK_CONTAINER (sw), vbox);

  g_signal_connect (sw->state, "changed", G_CALLBACK (on_state_changed), sw);
  g_signal_connect (sw->range, "changed", G_CALLBACK (on_range_changed), sw);
  recompute (sw);
  gtk_widget_show_all (GTK_WIDGET (sw));
  return GTK_WIDGET (sw);
}

/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>

#include "mv-profile-window.h"
#include "mv-test-log.h"
#include "mv-child-window.h"
#include "../model/mv-profile.h"

enum
{
  COL_KIND, COL_NAME, COL_CALLS, COL_TIME, COL_MEAN, COL_SHARE, COL_BYTES,
  COL_IMBAL, COL_IMBAL_TEXT, COL_ENTRY, N_COLS
};

struct _MvProfileWindow
{
  GtkWindow     parent;
  GtkWidget    *range, *tree, *bars, *status, *note;
  GtkListStore *store;
  MvTimeline   *tl;
  MvLog        *log;
  MvProfile    *pr;
  int           entry;           /* selected entry, -1 none */
  GCancellable *cancel;
};

G_DEFINE_TYPE (MvProfileWindow, mv_profile_window, GTK_TYPE_WINDOW)

typedef MvProfileWindow Pw;

static void
fmt_cell (GtkTreeViewColumn *col, GtkCellRenderer *r, GtkTreeModel *m,
          GtkTreeIter *it, gpointer data)
{
  int c = GPOINTER_TO_INT (data);
  char buf[64];
  if (c == COL_MEAN || c == COL_SHARE)
    {
      double v;
      gtk_tree_model_get (m, it, c, &v, -1);
      if (c == COL_MEAN)
        mv_format_duration ((guint64) llround (v), buf, sizeof buf);
      else
        g_snprintf (buf, sizeof buf, "%.2f %%", v);
    }
  else
    {
      guint64 v;
      gtk_tree_model_get (m, it, c, &v, -1);
      if (c == COL_TIME)
        mv_format_duration (v, buf, sizeof buf);
      else if (c == COL_BYTES)
        {
          char *s = g_format_size (v);
          g_strlcpy (buf, v ? s : "", sizeof buf);
          g_free (s);
        }
      else
        g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT, v);
    }
  g_object_set (r, "text", buf, NULL);
}

static void
fill_table (Pw *pw)
{
  const an_profile_t *p = pw->pr->p;
  gtk_list_store_clear (pw->store);
  for (gsize i = 0; i < p->nentries; i++)
    {
      const an_prof_entry_t *e = &p->entries[i];
      /* Imbalance as mpiP gives it: how far the busiest rank is above
       * the mean, relative to the busiest rank. */
      double imb = e->rank_max_ns
                   ? 100.0 * (e->rank_max_ns - e->rank_mean_ns)
                     / e->rank_max_ns : 0;
      char txt[64];
      g_snprintf (txt, sizeof txt, "max/mean %.2f (rank %d)",
                  e->rank_mean_ns > 0 ? e->rank_max_ns / e->rank_mean_ns
                                      : 0.0, e->rank_max);
      gtk_list_store_insert_with_values (
        pw->store, NULL, -1, COL_KIND,
        e->cls == AN_STATE_USER ? "state" : "MPI", COL_NAME, e->name,
        COL_CALLS, e->calls, COL_TIME, e->time_ns,
        COL_MEAN, e->calls ? (double) e->time_ns / e->calls : 0.0,
        COL_SHARE, p->app_total_ns
                   ? 100.0 * e->time_ns / p->app_total_ns : 0.0,
        COL_BYTES, e->bytes_sent + e->bytes_recv,
        COL_IMBAL, (int) lround (imb), COL_IMBAL_TEXT, txt,
        COL_ENTRY, (int) i, -1);
    }
}

/* ---- per-rank bars ------------------------------------------------------ */

#define B_L 64.0
#define B_R 12.0
#define B_T 22.0
#define B_B 22.0

static gboolean
draw_bars (GtkWidget *da, cairo_t *cr, Pw *pw)
{
  double W = gtk_widget_get_allocated_width (da);
  double H = gtk_widget_get_allocated_height (da);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  PangoLayout *pl = gtk_widget_create_pango_layout (da, NULL);
  PangoFontDescription *fd = pango_font_description_from_string ("Sans 8");
  pango_layout_set_font_description (pl, fd);
  pango_font_description_free (fd);
  cairo_set_source_rgb (cr, 0.42, 0.45, 0.49);
  if (pw->pr == NULL || pw->entry < 0)
    {
      pango_layout_set_text (pl, pw->pr ? "Select a row to see its time "
                             "in each rank" : "Computing…", -1);
      cairo_move_to (cr, B_L, H / 2 - 8);
      pango_cairo_show_layout (cr, pl);
      g_object_unref (pl);
      return TRUE;
    }
  const an_profile_t *p = pw->pr->p;
  const an_prof_entry_t *e = &p->entries[pw->entry];
  double pwid = MAX (W - B_L - B_R, 1), ph = MAX (H - B_T - B_B, 1);
  guint ncols = (guint) MAX (pwid, 1);
  double *lo = g_new (double, ncols), *hi = g_new (double, ncols);
  guint n = mv_profile_rank_columns (pw->pr, (gsize) pw->entry, ncols, lo,
                                     hi);
  double vmax = MAX ((double) e->rank_max_ns, 1);
  guint32 c = mv_log_state (pw->log, (guint) e->state)->rgb;
  double r = ((c >> 16) & 0xff) / 255.0, g = ((c >> 8) & 0xff) / 255.0,
         b = (c & 0xff) / 255.0;
  double bw = pwid / n;
  for (guint i = 0; i < n; i++)
    {
      /* The busiest rank of the column pale, the least busy full. */
      double x = B_L + i * bw, gap = bw > 4 ? 1 : 0;
      double hh = ph * hi[i] / vmax, hl = ph * lo[i] / vmax;
      cairo_set_source_rgba (cr, r, g, b, 0.45);
      cairo_rectangle (cr, x + gap, B_T + ph - hh, MAX (bw - 2 * gap, 1), hh);
      cairo_fill (cr);
      cairo_set_source_rgb (cr, r, g, b);
      cairo_rectangle (cr, x + gap, B_T + ph - hl, MAX (bw - 2 * gap, 1), hl);
      cairo_fill (cr);
    }
  /* The mean across ranks. */
  double ym = B_T + ph - ph * e->rank_mean_ns / vmax;
  cairo_set_source_rgb (cr, 0.10, 0.10, 0.12);
  cairo_set_line_width (cr, 1);
  double dash[] = { 4, 3 };
  cairo_set_dash (cr, dash, 2, 0);
  cairo_move_to (cr, B_L, floor (ym) + 0.5);
  cairo_line_to (cr, B_L + pwid, floor (ym) + 0.5);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_set_source_rgb (cr, 0.85, 0.86, 0.88);
  cairo_move_to (cr, B_L, B_T + ph + 0.5);
  cairo_line_to (cr, B_L + pwid, B_T + ph + 0.5);
  cairo_stroke (cr);

  char t1[32], t2[32], t3[32], buf[256];
  mv_format_duration (e->rank_max_ns, t1, sizeof t1);
  mv_format_duration ((guint64) llround (e->rank_mean_ns), t2, sizeof t2);
  mv_format_duration (e->rank_min_ns, t3, sizeof t3);
  g_snprintf (buf, sizeof buf, "%s per rank: max %s (rank %d), mean %s "
              "(dashed), min %s (rank %d)%s", e->name, t1, e->rank_max, t2,
              t3, e->rank_min, n < p->nranks
              ? " · columns group ranks: pale = busiest, full = least busy"
              : "");
  cairo_set_source_rgb (cr, 0.25, 0.27, 0.30);
  pango_layout_set_text (pl, buf, -1);
  cairo_move_to (cr, B_L, 4);
  pango_cairo_show_layout (cr, pl);
  pango_layout_set_text (pl, t1, -1);
  int tw, th;
  pango_layout_get_pixel_size (pl, &tw, &th);
  cairo_move_to (cr, B_L - 4 - tw, B_T - th / 2.0);
  pango_cairo_show_layout (cr, pl);
  g_snprintf (buf, sizeof buf, "rank %d", p->ranks[0]);
  pango_layout_set_text (pl, buf, -1);
  cairo_move_to (cr, B_L, B_T + ph + 4);
  pango_cairo_show_layout (cr, pl);
  g_snprintf (buf, sizeof buf, "rank %d", p->ranks[p->nranks - 1]);
  pango_layout_set_text (pl, buf, -1);
  pango_layout_get_pixel_size (pl, &tw, &th);
  cairo_move_to (cr, B_L + pwid - tw, B_T + ph + 4);
  pango_cairo_show_layout (cr, pl);
  g_object_unref (pl);
  g_free (lo);
  g_free (hi);
  return TRUE;
}

/* ---- the job ------------------------------------------------------------ */

typedef struct
{
  MvLog  *log;
  guint64 t0, t1;
} Job;

static void
job_free (Job *j)
{
  mv_log_unref (j->log);
  g_free (j);
}

static void
profile_thread (GTask *t, gpointer src, gpointer data, GCancellable *c)
{
  Job *j = data;
  GError *error = NULL;
  MvProfile *pr = mv_profile_compute (j->log, j->t0, j->t1, &error);
  if (pr)
    g_task_return_pointer (t, pr, (GDestroyNotify) mv_profile_free);
  else
    g_task_return_error (t, error);
}

/* The job holds a reference on the window (its source object); a closed
 * window cancels it and its result is dropped. */
static void
profile_done (GObject *src, GAsyncResult *res, gpointer user)
{
  Pw *pw = MV_PROFILE_WINDOW (src);
  MvProfile *pr = mv_job_result (res, pw->status);
  if (pr == NULL)
    return;
  mv_profile_free (pw->pr);
  pw->pr = pr;
  pw->entry = pr->p->nentries ? 0 : -1;
  fill_table (pw);
  char t1[32], t2[32];
  mv_format_duration (pr->p->app_total_ns, t1, sizeof t1);
  mv_format_duration (pr->p->mpi_total_ns, t2, sizeof t2);
  char *s = g_strdup_printf ("%s: %zu ranks, application time %s (summed "
                             "over the ranks), in MPI %s (%.1f %%). Select "
                             "a row for its time per rank.",
                             pr->t0 == 0 && pr->t1 == G_MAXUINT64
                             ? "Whole run" : "Calls starting in the range",
                             pr->p->nranks, t1, t2,
                             pr->p->app_total_ns
                             ? 100.0 * pr->p->mpi_total_ns
                               / pr->p->app_total_ns : 0.0);
  gtk_label_set_text (GTK_LABEL (pw->status), s);
  g_free (s);
  /* What the columns mean; the states' shares summing past 100 % said
   * so (a state inside another counts in both). */
  double states = 0;
  for (gsize i = 0; i < pr->p->nentries; i++)
    if (pr->p->entries[i].cls == AN_STATE_USER && pr->p->app_total_ns)
      states += 100.0 * pr->p->entries[i].time_ns / pr->p->app_total_ns;
  char *nested = states > 100.5
    ? g_strdup_printf (" The states' App %% sum to %.0f %%: a state inside "
                       "another counts in both.", states)
    : g_strdup ("");
  char *note = g_strdup_printf ("App %%: share of the application time. "
                                "Imbalance: how far the busiest rank is "
                                "above the mean, (max - mean) / max; 0 %% "
                                "is balanced.%s", nested);
  gtk_label_set_text (GTK_LABEL (pw->note), note);
  mv_test_log ("profile note: %s", note);
  g_free (note);
  g_free (nested);
  if (pw->entry == 0)
    {
      GtkTreePath *path = gtk_tree_path_new_first ();
      gtk_tree_selection_select_path
        (gtk_tree_view_get_selection (GTK_TREE_VIEW (pw->tree)), path);
      gtk_tree_path_free (path);
    }
  gtk_widget_queue_draw (pw->bars);
}

static void
recompute (Pw *pw)
{
  Job *j = g_new0 (Job, 1);
  j->t0 = 0;
  j->t1 = G_MAXUINT64;
  if (gtk_combo_box_get_active (GTK_COMBO_BOX (pw->range)) == 1
      && !mv_timeline_selection (pw->tl, &j->t0, &j->t1))
    {
      const MvView *v = mv_timeline_view (pw->tl);
      j->t0 = v->t0;
      j->t1 = v->t1;
    }
  j->log = mv_log_ref (pw->log);
  if (pw->cancel)
    g_cancellable_cancel (pw->cancel);
  g_clear_object (&pw->cancel);
  pw->cancel = g_cancellable_new ();
  mv_profile_free (pw->pr);
  pw->pr = NULL;
  pw->entry = -1;
  gtk_list_store_clear (pw->store);
  gtk_label_set_text (GTK_LABEL (pw->status), "Computing…");
  GTask *t = g_task_new (pw, pw->cancel, profile_done, NULL);
  g_task_set_task_data (t, j, (GDestroyNotify) job_free);
  g_task_run_in_thread (t, profile_thread);
  g_object_unref (t);
  gtk_widget_queue_draw (pw->bars);
}

static void
on_selection (GtkTreeSelection *sel, Pw *pw)
{
  GtkTreeModel *m;
  GtkTreeIter it;
  if (!gtk_tree_selection_get_selected (sel, &m, &it))
    return;
  gtk_tree_model_get (m, &it, COL_ENTRY, &pw->entry, -1);
  gtk_widget_queue_draw (pw->bars);
}

static void
on_row_activated (GtkTreeView *tv, GtkTreePath *path, GtkTreeViewColumn *c,
                  Pw *pw)
{
  /* Outline the state's instances in the timeline. */
  if (pw->pr && pw->entry >= 0)
    mv_timeline_set_highlight (pw->tl,
                               pw->pr->p->entries[pw->entry].state);
}

static void
on_range_changed (GtkComboBox *c, Pw *pw)
{
  recompute (pw);
}

static void
mv_profile_window_dispose (GObject *obj)
{
  Pw *pw = MV_PROFILE_WINDOW (obj);
  if (pw->cancel)
    g_cancellable_cancel (pw->cancel);
  g_clear_object (&pw->cancel);
  G_OBJECT_CLASS (mv_profile_window_parent_class)->dispose (obj);
}

static void
mv_profile_window_finalize (GObject *obj)
{
  Pw *pw = MV_PROFILE_WINDOW (obj);
  mv_profile_free (pw->pr);
  mv_log_unref (pw->log);
  G_OBJECT_CLASS (mv_profile_window_parent_class)->finalize (obj);
}

static void
mv_profile_window_class_init (MvProfileWindowClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  oc->dispose = mv_profile_window_dispose;
  oc->finalize = mv_profile_window_finalize;
}

static void
mv_profile_window_init (MvProfileWindow *pw)
{
  pw->entry = -1;
}


#define WINDOW_KEY "mv-profile-window"


GtkWidget *
mv_profile_window_show (GtkWindow *parent, MvTimeline *tl)
{
  MvLog *log = mv_timeline_get_log (tl);
  GtkWidget *old = mv_child_window_reuse (parent, WINDOW_KEY, log);
  if (old)
    return old;

  Pw *pw = g_object_new (MV_TYPE_PROFILE_WINDOW, "type", GTK_WINDOW_TOPLEVEL,
                         "title", "Profile", "transient-for", parent,
                         "destroy-with-parent", TRUE, "default-width", 1000,
                         "default-height", 700, NULL);
  pw->tl = tl;
  pw->log = mv_log_ref (log);
  mv_child_window_register (parent, WINDOW_KEY, GTK_WIDGET (pw), log);

  GtkWidget *vbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  g_object_set (vbox, "margin", 10, NULL);
  GtkWidget *bar = mv_range_bar_new (&pw->range);
  gtk_box_pack_start (GTK_BOX (vbox), bar, FALSE, FALSE, 0);

  GtkWidget *vpaned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  pw->store = gtk_list_store_new (N_COLS, G_TYPE_STRING, G_TYPE_STRING,
                                  G_TYPE_UINT64, G_TYPE_UINT64,
                                  G_TYPE_DOUBLE, G_TYPE_DOUBLE,
                                  G_TYPE_UINT64, G_TYPE_INT, G_TYPE_STRING,
                                  G_TYPE_INT);
  pw->tree = gtk_tree_view_new_with_model (GTK_TREE_MODEL (pw->store));
  g_object_unref (pw->store);
  GtkTreeView *tv = GTK_TREE_VIEW (pw->tree);
  mv_tree_add_column (tv, "Kind", COL_KIND, NULL);
  mv_tree_add_column (tv, "Name", COL_NAME, NULL);
  mv_tree_add_column (tv, "Calls", COL_CALLS, fmt_cell);
  mv_tree_add_column (tv, "Time", COL_TIME, fmt_cell);
  mv_tree_add_column (tv, "Mean", COL_MEAN, fmt_cell);
  mv_tree_add_column (tv, "App %", COL_SHARE, fmt_cell);
  mv_tree_add_column (tv, "Bytes", COL_BYTES, fmt_cell);
  GtkCellRenderer *pr = gtk_cell_renderer_progress_new ();
  GtkTreeViewColumn *ic = gtk_tree_view_column_new_with_attributes
    ("Imbalance across ranks", pr, "value", COL_IMBAL, "text",
     COL_IMBAL_TEXT, NULL);
  gtk_tree_view_column_set_sort_column_id (ic, COL_IMBAL);
  gtk_tree_view_column_set_min_width (ic, 220);
  gtk_tree_view_append_column (GTK_TREE_VIEW (pw->tree), ic);
  g_signal_connect (gtk_tree_view_get_selection (GTK_TREE_VIEW (pw->tree)),
                    "changed", G_CALLBACK (on_selection), pw);
  g_signal_connect (pw->tree, "row-activated", G_CALLBACK (on_row_activated),
                    pw);
  GtkWidget *tscroll = gtk_scrolled_window_new (NULL, NULL);
  gtk_widget_set_size_request (tscroll, -1, 260);
  gtk_container_add (GTK_CONTAINER (tscroll), pw->tree);
  gtk_paned_pack1 (GTK_PANED (vpaned), tscroll, TRUE, FALSE);
  pw->bars = gtk_drawing_area_new ();
  gtk_widget_set_size_request (pw->bars, -1, 200);
  g_signal_connect (pw->bars, "draw", G_CALLBACK (draw_bars), pw);
  gtk_paned_pack2 (GTK_PANED (vpaned), pw->bars, FALSE, FALSE);
  gtk_box_pack_start (GTK_BOX (vbox), vpaned, TRUE, TRUE, 0);
  pw->note = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (pw->note), 0);
  gtk_label_set_line_wrap (GTK_LABEL (pw->note), TRUE);
  gtk_box_pack_start (GTK_BOX (vbox), pw->note, FALSE, FALSE, 0);
  pw->status = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (pw->status), 0);
  gtk_label_set_ellipsize (GTK_LABEL (pw->status), PANGO_ELLIPSIZE_END);
  gtk_box_pack_start (GTK_BOX (vbox), pw->status, FALSE, FALSE, 0);
  gtk_container_add (GTK_CONTAINER (pw), vbox);

  g_signal_connect (pw->range, "changed", G_CALLBACK (on_range_changed), pw);
  recompute (pw);
  gtk_widget_show_all (GTK_WIDGET (pw));
  return GTK_WIDGET (pw);
}

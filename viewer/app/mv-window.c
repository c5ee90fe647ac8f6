/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The main window: header bar (open, recent, history, zoom, search,
 * statistics), the timeline, a side panel with the legend and details,
 * and a status line with a load progress bar.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <logfmt/logfmt.h>
#include <otf2in.h>

#include "mv-window.h"
#include "../model/mv-stats.h"
#include "../widgets/mv-matrix-window.h"
#include "../widgets/mv-profile-window.h"
#include "../widgets/mv-sched-menu.h"
#include "../widgets/mv-flame-window.h"
#include "../widgets/mv-stats-window.h"
#include "../widgets/mv-test-log.h"
#include "../widgets/mv-timeline.h"
#include "../draw/mv-draw.h"
#include "../draw/mv-draw-sched.h"
#include "../model/mv-restracks.h"

typedef struct
{
  GtkApplication *app;
  GtkWidget   *win, *header, *timeline_box, *legend, *details;
  GtkWidget   *status, *progress, *infobar, *info_label, *search;
  GtkWidget   *counter;            /* metric shown as counter tracks */
  GtkWidget   *menu_btn, *side_btn, *side, *flame_item, *threads;
  GPtrArray   *controls;           /* header controls, for MPEVIEW_TEST_LOG */
  guint        layout_idle;
  GPtrArray   *layer_rows;         /* legend rows of the layers drawn */
  char        *layers_sig;         /* which layers they are */
  MvTimeline  *tl;
  MvLog       *log;
  guint8      *state_hidden, *evdef_hidden;
  GtkWidget  **count_labels;       /* per legend row */
  /* Each job's cancellable: a newer job of its kind and the window's
   * destruction cancel it.  Jobs are GTasks whose source object is the
   * window, so w (the window's data, freed when it is finalized) lives
   * until their callbacks ran; a cancelled task reports
   * G_IO_ERROR_CANCELLED there, whatever it computed. */
  GCancellable *load_cancel, *stats_cancel, *search_cancel;
  volatile gint progress_permille;
  guint        progress_source;
  gpointer     progress_owner;     /* the cancellable of the job shown */
  gint32       search_state;
  guint64      search_pos;
} Win;

/* Colours from the theme (a dark theme keeps the text readable). */
static const char CSS[] =
  ".mv-side { background: @theme_base_color; border-left: 1px solid @borders; }\n"
  ".mv-side-title { font-weight: bold; color: @theme_fg_color; padding: 8px 10px 4px; }\n"
  ".mv-count { color: alpha(@theme_fg_color, 0.65); font-feature-settings: 'tnum'; }\n"
  ".mv-details { font-family: monospace; font-size: 9pt; padding: 6px 10px;"
  " color: @theme_text_color; }\n"
  ".mv-status { color: alpha(@theme_fg_color, 0.8); padding: 2px 8px; font-size: 9pt; }\n"
  "list row { padding: 1px 6px; }\n";

static void open_path (Win *w, const char *path);
static void legend_layers (Win *w, const MvScene *sc);

/* Row grouping of new windows (the command line's). */
static MvGroupMode group_mode = MV_GROUP_AUTO;
static int group_fold = -1;

void
mv_window_set_grouping (MvGroupMode mode, int fold)
{
  group_mode = mode;
  group_fold = fold;
}

static void
on_grouping_changed (GtkComboBox *combo, gpointer user)
{
  MvTimeline *tl = user;
  MvGroupMode mode;
  if (mv_groups_parse_mode (gtk_combo_box_get_active_id (combo), &mode))
    mv_timeline_set_grouping (tl, mode, -1);
}
static void fill_counters (Win *w, MvLog *log);

/* Cancels the job *c belongs to and gives a cancellable for the next. */
static GCancellable *
job_restart (GCancellable **c)
{
  if (*c)
    g_cancellable_cancel (*c);
  g_clear_object (c);
  *c = g_cancellable_new ();
  return *c;
}

/* A job's result that must be dropped: the job was replaced, or the
 * window is gone (its widgets with it).  Clears *error then. */
static gboolean
job_cancelled (GError **error)
{
  if (!g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return FALSE;
  g_clear_error (error);
  return TRUE;
}

/* ---- test log ----------------------------------------------------------- */

/* MPEVIEW_TEST_LOG (mv-test-log.h): what the window shows. */
#define test_log mv_test_log

static void
log_details (const char *text)
{
  if (!mv_test_log_on ())
    return;
  char *one = g_strdup (text);
  g_strdelimit (one, "\n", '|');
  test_log ("details: %s", one);
  g_free (one);
}

/* After each layout (once drawn): the window's size and each header
 * control's place in it (logical pixels). */
static gboolean
log_layout (gpointer user)
{
  Win *w = user;
  w->layout_idle = 0;
  GtkWidget *win = w->win;
  int hmin = 0, cmin = 0;
  gtk_widget_get_preferred_width (w->header, &hmin, NULL);
  gtk_widget_get_preferred_width (gtk_bin_get_child (GTK_BIN (win)), &cmin,
                                  NULL);
  int ox = 0, oy = 0;
  if (gtk_widget_get_window (win))
    gdk_window_get_origin (gtk_widget_get_window (win), &ox, &oy);
  test_log ("origin %d %d", ox, oy);
  test_log ("window %d %d (header at least %d, contents %d)",
            gtk_widget_get_allocated_width (win),
            gtk_widget_get_allocated_height (win), hmin, cmin);
  for (guint i = 0; i < w->controls->len; i++)
    {
      GtkWidget *c = g_ptr_array_index (w->controls, i);
      int x = 0, y = 0;
      if (!gtk_widget_is_drawable (c)
          || !gtk_widget_translate_coordinates (c, win, 0, 0, &x, &y))
        {
          test_log ("control %s hidden", gtk_widget_get_name (c));
          continue;
        }
      test_log ("control %s %d %d %d %d", gtk_widget_get_name (c), x, y,
                gtk_widget_get_allocated_width (c),
                gtk_widget_get_allocated_height (c));
    }
  return G_SOURCE_REMOVE;
}

static void
on_win_allocated (GtkWidget *win, GdkRectangle *a, Win *w)
{
  if (mv_test_log_on () && w->layout_idle == 0)
    w->layout_idle = g_timeout_add (300, log_layout, w);
}

/* ---- status ------------------------------------------------------------ */

static void
update_status (MvTimeline *tl, gpointer user)
{
  Win *w = user;
  const MvView *v = mv_timeline_view (tl);
  if (v == NULL)
    return;
  char a[64], b[64], d[64];
  GString *s = g_string_new (NULL);
  mv_format_duration (v->t1 - v->t0, d, sizeof d);
  g_snprintf (a, sizeof a, "%.9f", v->t0 / 1e9);
  g_snprintf (b, sizeof b, "%.9f", v->t1 / 1e9);
  g_string_append_printf (s, "window %s – %s s (%s)", a, b, d);
  guint64 s0, s1;
  if (mv_timeline_selection (tl, &s0, &s1))
    {
      mv_format_duration (s1 - s0, d, sizeof d);
      g_string_append_printf (s, "   ·   selection %s", d);
    }
  const MvScene *sc = mv_timeline_scene (tl);
  if (sc && sc->log == w->log)
    legend_layers (w, sc);
  if (sc)
    g_string_append_printf (s, "   ·   %s",
                            !sc->summary ? "decoded events"
                            : sc->fine ? "rows aggregated from the file "
                                         "for this window"
                            : "drawn from summaries");
  if (sc && sc->arrows_aggregated)
    g_string_append (s, ", arrows aggregated");
  if (sc && sc->arrows_skipped)
    g_string_append (s, ", too many messages for arrows: zoom in");
  if (sc && sc->problem)
    g_string_append_printf (s, "   ·   damaged: %s", sc->problem);
  gtk_label_set_text (GTK_LABEL (w->status), s->str);
  g_string_free (s, TRUE);
  const char *det = mv_timeline_details (tl);
  det = det ? det : "Click a state, event or arrow.";
  if (g_strcmp0 (det, gtk_label_get_text (GTK_LABEL (w->details))) != 0)
    log_details (det);
  gtk_label_set_text (GTK_LABEL (w->details), det);
}

static void
show_error (Win *w, const char *title, const char *msg)
{
  GtkWidget *dlg = gtk_message_dialog_new (GTK_WINDOW (w->win),
                                           GTK_DIALOG_MODAL
                                           | GTK_DIALOG_DESTROY_WITH_PARENT,
                                           GTK_MESSAGE_ERROR,
                                           GTK_BUTTONS_CLOSE, "%s", title);
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dlg), "%s",
                                            msg);
  g_signal_connect (dlg, "response", G_CALLBACK (gtk_widget_destroy), NULL);
  gtk_widget_show (dlg);
}

/* ---- legend ------------------------------------------------------------- */

/* Swatch shapes (the top byte of draw_swatch's data). */
enum { SWATCH_BOX, SWATCH_TRI, SWATCH_STRIP, SWATCH_LINE };

static gboolean
draw_swatch (GtkWidget *da, cairo_t *cr, gpointer data)
{
  guint32 c = GPOINTER_TO_UINT (data) & 0xffffff;
  guint shape = GPOINTER_TO_UINT (data) >> 24;
  cairo_set_source_rgb (cr, ((c >> 16) & 0xff) / 255.0,
                        ((c >> 8) & 0xff) / 255.0, (c & 0xff) / 255.0);
  if (shape == SWATCH_LINE)
    {
      /* A step line (a counter track). */
      cairo_set_line_width (cr, 1.5);
      cairo_move_to (cr, 0, 12);
      cairo_line_to (cr, 5, 12);
      cairo_line_to (cr, 5, 4);
      cairo_line_to (cr, 13, 4);
      cairo_stroke (cr);
      return TRUE;
    }
  if (shape == SWATCH_STRIP)
    cairo_rectangle (cr, 0.5, 2.5, 13, 4);
  else if (shape == SWATCH_TRI)
    {
      cairo_move_to (cr, 1, 2);
      cairo_line_to (cr, 13, 2);
      cairo_line_to (cr, 7, 13);
      cairo_close_path (cr);
    }
  else
    cairo_rectangle (cr, 0.5, 2.5, 13, 10);
  cairo_fill_preserve (cr);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.45);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
  return TRUE;
}

static void
on_legend_toggled (GtkToggleButton *b, Win *w)
{
  guint i = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (b), "index"));
  gboolean on = gtk_toggle_button_get_active (b);
  if (i < w->log->nstates)
    w->state_hidden[i] = !on;
  else
    w->evdef_hidden[i - w->log->nstates] = !on;
  mv_timeline_set_hidden (w->tl, w->state_hidden, w->evdef_hidden);
}

/* A legend row without a toggle (loss records, a layer drawn), indented
 * as the rows with one; returned for removal. */
static GtkWidget *
legend_info_row (Win *w, guint shape, guint32 rgb, const char *text,
                 const char *count_text)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *sw = gtk_drawing_area_new ();
  gtk_widget_set_size_request (sw, 14, 14);
  gtk_widget_set_valign (sw, GTK_ALIGN_CENTER);
  gtk_widget_set_margin_start (sw, 22);
  g_signal_connect (sw, "draw", G_CALLBACK (draw_swatch),
                    GUINT_TO_POINTER (rgb | shape << 24));
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_tooltip_text (label, text);
  gtk_box_pack_start (GTK_BOX (box), sw, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box), label, TRUE, TRUE, 0);
  if (count_text)
    {
      GtkWidget *count = gtk_label_new (count_text);
      gtk_style_context_add_class (gtk_widget_get_style_context (count),
                                   "mv-count");
      gtk_box_pack_start (GTK_BOX (box), count, FALSE, FALSE, 0);
    }
  gtk_list_box_insert (GTK_LIST_BOX (w->legend), box, -1);
  gtk_widget_show_all (box);
  return gtk_widget_get_parent (box);
}

typedef struct
{
  guint    shape;
  guint32  rgb;
  char    *text;
} LayerRow;

/* The layers the plot draws get legend rows (under the states and
 * events), renewed when they change. */
static void
legend_layers (Win *w, const MvScene *sc)
{
  const MvSceneParams *p = &sc->p;
  char *sig = g_strdup_printf ("%d %d %u %d %d %d", p->show_sched,
                               p->show_metric, p->metric, p->restrack,
                               p->samples != NULL, p->show_waits);
  if (g_strcmp0 (sig, w->layers_sig) == 0)
    {
      g_free (sig);
      return;
    }
  g_free (w->layers_sig);
  w->layers_sig = sig;
  for (guint i = 0; i < w->layer_rows->len; i++)
    gtk_widget_destroy (g_ptr_array_index (w->layer_rows, i));
  g_ptr_array_set_size (w->layer_rows, 0);
  LayerRow row[5];
  guint n = 0;
  if (p->show_waits)
    row[n++] = (LayerRow) { SWATCH_STRIP, MV_WAIT_HATCH_RGB,
      g_strdup ("MPI waits (hatched over the call)") };
  if (p->show_sched)
    {
      row[n++] = (LayerRow) { SWATCH_STRIP, MV_OFFCPU_BLOCKED_RGB,
        g_strdup ("Off CPU: blocked (top strip)") };
      row[n++] = (LayerRow) { SWATCH_STRIP, MV_OFFCPU_PREEMPTED_RGB,
        g_strdup ("Off CPU: preempted (top strip)") };
    }
  if (p->restrack)
    row[n++] = (LayerRow) { SWATCH_LINE, MV_COUNTER_RGB,
      g_strdup (mv_restrack_name (p->restrack)) };
  else if (p->show_metric)
    {
      int di = logfmt_reader_find_metric (w->log->reader, p->metric);
      const logfmt_metric_def_t *d
        = di >= 0 ? logfmt_reader_metric (w->log->reader, (size_t) di) : NULL;
      gboolean unit = d && d->unit && strcmp (d->unit, "1") != 0;
      row[n++] = (LayerRow) { SWATCH_LINE, MV_COUNTER_RGB,
        g_strdup_printf ("Counter: %s%s%s%s (lower strip)",
                         d && d->name ? d->name : "metric",
                         unit ? " (" : "", unit ? d->unit : "",
                         unit ? ")" : "") };
    }
  if (p->samples)
    row[n++] = (LayerRow) { SWATCH_STRIP, 0x808080,
      g_strdup ("Samples: a colour per function (top strip; hover for "
                "its name, the flame graph's colours)") };
  for (guint i = 0; i < n; i++)
    {
      g_ptr_array_add (w->layer_rows,
                       legend_info_row (w, row[i].shape, row[i].rgb,
                                        row[i].text, NULL));
      test_log ("legend: %s", row[i].text);
      g_free (row[i].text);
    }
}

static void
fill_legend (Win *w)
{
  GList *kids = gtk_container_get_children (GTK_CONTAINER (w->legend));
  for (GList *l = kids; l; l = l->next)
    gtk_widget_destroy (l->data);
  g_list_free (kids);
  g_free (w->count_labels);
  w->count_labels = NULL;
  g_ptr_array_set_size (w->layer_rows, 0);
  g_clear_pointer (&w->layers_sig, g_free);
  if (w->log == NULL)
    return;
  guint n = w->log->nstates + w->log->nevdefs;
  w->count_labels = g_new0 (GtkWidget *, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      gboolean st = i < w->log->nstates;
      const char *name;
      guint32 rgb;
      if (st)
        {
          name = mv_log_state (w->log, i)->name;
          rgb = mv_log_state (w->log, i)->rgb;
        }
      else
        {
          name = mv_log_evdef (w->log, i - w->log->nstates)->name;
          rgb = mv_log_evdef (w->log, i - w->log->nstates)->rgb;
        }
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *check = gtk_check_button_new ();
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (check), TRUE);
      gtk_widget_set_tooltip_text (check, "Show or hide");
      g_object_set_data (G_OBJECT (check), "index", GUINT_TO_POINTER (i));
      g_signal_connect (check, "toggled", G_CALLBACK (on_legend_toggled), w);
      GtkWidget *sw = gtk_drawing_area_new ();
      gtk_widget_set_size_request (sw, 14, 14);
      gtk_widget_set_valign (sw, GTK_ALIGN_CENTER);
      g_signal_connect (sw, "draw", G_CALLBACK (draw_swatch),
                        GUINT_TO_POINTER (rgb | (st ? SWATCH_BOX
                                                 : SWATCH_TRI) << 24));
      GtkWidget *label = gtk_label_new (name ? name : "?");
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_widget_set_hexpand (label, TRUE);
      GtkWidget *count = gtk_label_new ("…");
      gtk_style_context_add_class (gtk_widget_get_style_context (count),
                                   "mv-count");
      w->count_labels[i] = count;
      gtk_box_pack_start (GTK_BOX (box), check, FALSE, FALSE, 0);
      gtk_box_pack_start (GTK_BOX (box), sw, FALSE, FALSE, 0);
      gtk_box_pack_start (GTK_BOX (box), label, TRUE, TRUE, 0);
      gtk_box_pack_start (GTK_BOX (box), count, FALSE, FALSE, 0);
      gtk_list_box_insert (GTK_LIST_BOX (w->legend), box, -1);
    }
  /* Loss records, when the log has some: their marker and how many. */
  if (w->log->info->lost_events > 0)
    {
      char buf[32];
      g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT,
                  (guint64) w->log->info->lost_events);
      legend_info_row (w, SWATCH_TRI, MV_LOSS_RGB,
                       "Events lost (buffer full)", buf);
    }
  gtk_widget_show_all (w->legend);
}

/* ---- jobs' progress -------------------------------------------------- */

static Win *
win_of (GTask *task)
{
  return g_object_get_data (g_task_get_source_object (task), "mv-win");
}

/* Called by a job's worker (load, conversion, statistics, search); user:
 * its GTask (which keeps the window, so w, alive).  The bar shows the
 * job started last.  TRUE stops the job. */
static gboolean
job_progress (gpointer user, double f)
{
  GTask *task = user;
  Win *w = win_of (task);
  GCancellable *c = g_task_get_cancellable (task);
  if (g_atomic_pointer_get (&w->progress_owner) == (gpointer) c)
    g_atomic_int_set (&w->progress_permille, (gint) (f * 1000));
  return g_cancellable_is_cancelled (c);
}

static gboolean progress_tick (gpointer user);

/* The bar follows the job of cancellable c from now on, labelled what;
 * it appears only if the job takes more than a blink. */
static void
progress_show (Win *w, GCancellable *c, const char *what)
{
  g_atomic_pointer_set (&w->progress_owner, c);
  g_atomic_int_set (&w->progress_permille, 0);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (w->progress), what);
  if (w->progress_source == 0)
    w->progress_source = g_timeout_add (150, progress_tick, w);
}

/* The job of c ended: the bar goes if it was showing that job. */
static void
progress_done (Win *w, GCancellable *c)
{
  if (g_atomic_pointer_get (&w->progress_owner) != (gpointer) c)
    return;
  g_atomic_pointer_set (&w->progress_owner, NULL);
  g_clear_handle_id (&w->progress_source, g_source_remove);
  gtk_widget_hide (w->progress);
}

static void
stats_thread (GTask *task, gpointer src, gpointer data, GCancellable *c)
{
  GError *error = NULL;
  MvStats *st = mv_stats_compute (data, 0, G_MAXUINT64, job_progress, task,
                                  c, &error);
  if (st)
    g_task_return_pointer (task, st, (GDestroyNotify) mv_stats_free);
  else
    g_task_return_error (task, error);
}

static void
stats_done (GObject *src, GAsyncResult *res, gpointer user)
{
  Win *w = user;
  GError *error = NULL;
  MvStats *st = g_task_propagate_pointer (G_TASK (res), &error);
  if (st == NULL && job_cancelled (&error))
    return;   /* another log, or the window closed */
  progress_done (w, g_task_get_cancellable (G_TASK (res)));
  if (st == NULL)
    {
      if (!job_cancelled (&error))
        gtk_label_set_text (GTK_LABEL (w->status), error->message);
      g_clear_error (&error);
      return;
    }
  if (st->log == w->log && w->count_labels)
    {
      char buf[32];
      for (guint i = 0; i < st->nstates; i++)
        {
          g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT,
                      mv_stats_cell (st, i, -1)->count);
          gtk_label_set_text (GTK_LABEL (w->count_labels[i]), buf);
        }
      for (guint i = 0; i < w->log->nevdefs; i++)
        {
          g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT, st->ev_count[i]);
          gtk_label_set_text (GTK_LABEL (w->count_labels[st->nstates + i]),
                              buf);
        }
    }
  mv_stats_free (st);
}

/* ---- loading ------------------------------------------------------------ */

typedef struct
{
  char *path;
} LoadJob;


static void
load_thread (GTask *task, gpointer src, gpointer data, GCancellable *c)
{
  LoadJob *j = data;
  GError *error = NULL;
  MvLog *log = mv_log_open (j->path, job_progress, task, &error);
  if (log)
    g_task_return_pointer (task, log, (GDestroyNotify) mv_log_unref);
  else
    g_task_return_error (task, error);
}

static gboolean
progress_tick (gpointer user)
{
  Win *w = user;
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (w->progress),
                                 g_atomic_int_get (&w->progress_permille)
                                 / 1000.0);
  gtk_widget_show (w->progress);
  return G_SOURCE_CONTINUE;
}

static void
load_job_free (LoadJob *j)
{
  g_free (j->path);
  g_free (j);
}

static void
load_done (GObject *src, GAsyncResult *res, gpointer user)
{
  Win *w = user;
  GError *error = NULL;
  LoadJob *j = g_task_get_task_data (G_TASK (res));
  MvLog *log = g_task_propagate_pointer (G_TASK (res), &error);
  if (log == NULL && job_cancelled (&error))
    return;   /* another file was opened meanwhile, or the window closed */
  progress_done (w, g_task_get_cancellable (G_TASK (res)));
  if (log == NULL)
    {
      char *bn = g_path_get_basename (j->path);
      char *title = g_strdup_printf ("Cannot open “%s”", bn);
      show_error (w, title, error->message);
      gtk_label_set_text (GTK_LABEL (w->status), error->message);
      g_free (title);
      g_free (bn);
      g_error_free (error);
      return;
    }
  mv_log_unref (w->log);
  w->log = log;
  g_free (w->state_hidden);
  g_free (w->evdef_hidden);
  w->state_hidden = g_new0 (guint8, MAX (log->nstates, 1));
  w->evdef_hidden = g_new0 (guint8, MAX (log->nevdefs, 1));
  w->search_state = -1;
  char *base = g_path_get_basename (j->path);
  /* Processes, and their threads when some have several (rows are
   * threads). */
  GHashTable *ranks = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < log->nrows; i++)
    g_hash_table_add (ranks, GINT_TO_POINTER (log->rows[i].rank));
  guint nranks = g_hash_table_size (ranks);
  g_hash_table_destroy (ranks);
  char threads[48] = "";
  if (log->nrows > nranks)
    g_snprintf (threads, sizeof threads, " · %u threads", log->nrows);
  char *sub = g_strdup_printf ("%u process%s%s · %" G_GUINT64_FORMAT
                               " events · %s", nranks,
                               nranks == 1 ? "" : "es", threads,
                               log->info->nevents,
                               log->info->format_name
                               ? log->info->format_name : "clog");
  test_log ("subtitle: %s", sub);
  gtk_header_bar_set_title (GTK_HEADER_BAR (w->header), base);
  gtk_header_bar_set_subtitle (GTK_HEADER_BAR (w->header), sub);
  g_free (base);
  g_free (sub);
  if (log->warning)
    {
      gtk_label_set_text (GTK_LABEL (w->info_label), log->warning);
      gtk_widget_show (w->infobar);
    }
  else
    gtk_widget_hide (w->infobar);
  /* Recent files. */
  char *uri = g_filename_to_uri (j->path, NULL, NULL);
  if (uri)
    gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);
  g_free (uri);
  fill_legend (w);
  fill_counters (w, log);
  mv_sched_menu_set_log (w->threads, log);
  gboolean samples = mv_log_has_samples (log);
  gtk_widget_set_sensitive (w->flame_item, samples);
  gtk_widget_set_tooltip_text (w->flame_item, samples
                               ? "Flame graph of the call-path samples; "
                                 "click a box to see where it ran (Ctrl+E: "
                                 "samples in the rows)"
                               : "This log has no call-path samples: "
                                 "record it with MPE_SAMPLE_HZ");
  mv_timeline_set_log (w->tl, log);
  GTask *t = g_task_new (w->win, job_restart (&w->stats_cancel), stats_done,
                         w);
  progress_show (w, w->stats_cancel, "Counting instances");
  g_task_set_task_data (t, mv_log_ref (log), (GDestroyNotify) mv_log_unref);
  g_task_run_in_thread (t, stats_thread);
  g_object_unref (t);
  gtk_widget_grab_focus (GTK_WIDGET (w->tl));
}

/* Starts a worker job that replaces whatever job ran (cancelling it),
 * with a progress bar that appears only if it takes more than a blink. */
static void
run_job (Win *w, const char *status, gpointer data, GDestroyNotify free_data,
         GTaskThreadFunc func, GAsyncReadyCallback done)
{
  job_restart (&w->load_cancel);
  gtk_label_set_text (GTK_LABEL (w->status), status);
  progress_show (w, w->load_cancel, status);
  GTask *t = g_task_new (w->win, w->load_cancel, done, w);
  g_task_set_task_data (t, data, free_data);
  g_task_run_in_thread (t, func);
  g_object_unref (t);
}

static void
load_path (Win *w, const char *path)
{
  LoadJob *j = g_new0 (LoadJob, 1);
  j->path = g_canonicalize_filename (path, NULL);
  run_job (w, "Loading…", j, (GDestroyNotify) load_job_free, load_thread,
           load_done);
}

/* ---- MPE2 files: offer an indexed copy ---------------------------------- */

/* MPE2 logs (CLOG2, CLOG v1) are imported into memory on every open.
 * From MPEVIEW_CONVERT_MB (default 64) MB on, the window offers to
 * convert one once to an indexed .clog next to it, which then opens
 * instantly; MPEVIEW_CONVERT=ask (default), always or never. */
enum { RESP_ORIGINAL = 1, RESP_CONVERT, RESP_COPY };

typedef struct
{
  Win  *w;
  char *src, *dst;
  gboolean otf2;   /* src is an OTF2 archive's anchor file */
} ConvJob;

static void
conv_job_free (ConvJob *j)
{
  g_free (j->src);
  g_free (j->dst);
  g_free (j);
}

#define MV_CONVERTED_BY "MPE2 log, converted by mpeview"
/* otf2in's creator text reads "OTF2 archive (...), " this. */
#define MV_OTF2_CONVERTED_BY "converted by mpeview"

/* A finished .clog made from an MPE2 log (by mpeview or clogtool), as
 * its header's creator says: only such a file may be offered as the copy
 * or replaced by a new conversion. */
static gboolean
is_converted_copy (const char *path)
{
  logfmt_reader_t *r = NULL;
  if (logfmt_reader_open (path, 0, &r, NULL) != 0)
    return FALSE;
  const char *c = logfmt_reader_info (r)->creator;
  gboolean yes = c && (strcmp (c, MV_CONVERTED_BY) == 0
                       || strstr (c, "via clogtool") != NULL
                       || (g_str_has_prefix (c, "OTF2 archive (")
                           && g_str_has_suffix (c, MV_OTF2_CONVERTED_BY)));
  logfmt_reader_close (r);
  return yes;
}

/* x.clog2 -> x.clog; x.clog (CLOG v1) -> x.indexed.clog; next to the
 * input, or in the user's cache directory if that is not writable.  A
 * file of that name that is not a conversion (say, another run's log) is
 * never replaced: the copy is then named x.converted[-N].clog. */
static char *
converted_path (const char *path)
{
  char *dir = g_path_get_dirname (path);
  char *base = g_path_get_basename (path);
  size_t n = strlen (base);
  char *stem;
  if (g_str_has_suffix (base, ".clog2"))
    stem = g_strndup (base, n - 6);
  else if (g_str_has_suffix (base, ".otf2"))
    stem = g_strndup (base, n - 5);
  else if (g_str_has_suffix (base, ".clog"))
    stem = g_strdup_printf ("%.*s.indexed", (int) (n - 5), base);
  else
    stem = g_strdup (base);
  if (access (dir, W_OK) != 0)
    {
      g_free (dir);
      dir = g_build_filename (g_get_user_cache_dir (), "mpeview", NULL);
      g_mkdir_with_parents (dir, 0700);
    }
  char *out = NULL;
  for (int i = 0; out == NULL; i++)
    {
      char *name = i == 0 ? g_strdup_printf ("%s.clog", stem)
                   : i == 1 ? g_strdup_printf ("%s.converted.clog", stem)
                   : g_strdup_printf ("%s.converted-%d.clog", stem, i);
      out = g_build_filename (dir, name, NULL);
      g_free (name);
      if (g_file_test (out, G_FILE_TEST_EXISTS) && !is_converted_copy (out))
        g_clear_pointer (&out, g_free);
    }
  g_free (dir);
  g_free (base);
  g_free (stem);
  return out;
}

static void
convert_thread (GTask *task, gpointer src, gpointer data, GCancellable *c)
{
  ConvJob *j = data;
  /* Written aside and renamed: a stopped conversion never leaves a
   * half-written file under the name a later open would trust. */
  char *part = g_strconcat (j->dst, ".part", NULL);
  logfmt_error_t err = { 0 };
  int rc = j->otf2 ? otf2in_convert (j->src, part, MV_OTF2_CONVERTED_BY, 0,
                                     job_progress, task, NULL, &err)
           : logfmt_import_mpe2 (j->src, part, MV_CONVERTED_BY,
                                 job_progress, task, &err);
  if (rc == 0 && g_rename (part, j->dst) != 0)
    {
      g_snprintf (err.message, sizeof err.message, "%s: %s", j->dst,
                  g_strerror (errno));
      rc = -1;
    }
  if (rc)
    {
      g_unlink (part);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s",
                               err.message);
    }
  else
    g_task_return_boolean (task, TRUE);
  g_free (part);
}

static void
convert_done (GObject *srcobj, GAsyncResult *res, gpointer user)
{
  Win *w = user;
  GError *error = NULL;
  ConvJob *j = g_task_get_task_data (G_TASK (res));
  gboolean okay = g_task_propagate_boolean (G_TASK (res), &error);
  if (!okay && job_cancelled (&error))
    return;   /* another file was opened meanwhile, or the window closed */
  progress_done (w, g_task_get_cancellable (G_TASK (res)));
  if (okay)
    load_path (w, j->dst);
  else if (j->otf2)
    {
      /* Reading it again would fail the same way. */
      show_error (w, "Cannot read the OTF2 archive", error->message);
      g_error_free (error);
    }
  else
    {
      /* Still show the log: the import on open needs no disk space. */
      show_error (w, "Conversion failed; opening the original",
                  error->message);
      g_error_free (error);
      load_path (w, j->src);
    }
}

static void
start_convert (Win *w, ConvJob *j)
{
  char *a = g_path_get_basename (j->src), *b = g_path_get_basename (j->dst);
  char *msg = g_strdup_printf ("Converting %s to %s…", a, b);
  run_job (w, msg, j, (GDestroyNotify) conv_job_free, convert_thread,
           convert_done);
  g_free (msg);
  g_free (a);
  g_free (b);
}

static void
offer_response (GtkDialog *dlg, int resp, gpointer user)
{
  ConvJob *j = user;
  gtk_widget_destroy (GTK_WIDGET (dlg));
  if (resp == RESP_CONVERT)
    {
      start_convert (j->w, j);
      return;
    }
  load_path (j->w, resp == RESP_COPY ? j->dst : j->src);
  conv_job_free (j);
}

/* A conversion made before, newer than the input. */
static gboolean
copy_is_current (const char *src, const char *dst)
{
  GStatBuf a, b;
  if (g_stat (src, &a) != 0 || g_stat (dst, &b) != 0 || b.st_mtime < a.st_mtime)
    return FALSE;
  return is_converted_copy (dst);
}

static void
open_path (Win *w, const char *path)
{
  logfmt_file_kind_t kind = LOGFMT_FILE_UNKNOWN;
  GStatBuf st;
  const char *mb = g_getenv ("MPEVIEW_CONVERT_MB");
  const char *mode = g_getenv ("MPEVIEW_CONVERT");
  guint64 limit = (mb && *mb ? g_ascii_strtoull (mb, NULL, 10) : 64) << 20;
  if (otf2in_is_archive (path))
    {
      /* OTF2 is always converted once (with the progress bar), then the
       * indexed copy opens instantly. */
      ConvJob *j = g_new0 (ConvJob, 1);
      j->w = w;
      j->otf2 = TRUE;
      j->src = g_canonicalize_filename (path, NULL);
      j->dst = converted_path (j->src);
      if (copy_is_current (j->src, j->dst))
        {
          load_path (w, j->dst);
          conv_job_free (j);
        }
      else
        start_convert (w, j);
      return;
    }
  if ((mode && strcmp (mode, "never") == 0)
      || g_stat (path, &st) != 0 || (guint64) st.st_size < limit
      || logfmt_file_kind (path, &kind, NULL) != 0
      || (kind != LOGFMT_FILE_CLOG2 && kind != LOGFMT_FILE_CLOG1))
    {
      load_path (w, path);
      return;
    }
  ConvJob *j = g_new0 (ConvJob, 1);
  j->w = w;
  j->src = g_canonicalize_filename (path, NULL);
  j->dst = converted_path (j->src);
  gboolean have = copy_is_current (j->src, j->dst);
  if (mode && strcmp (mode, "always") == 0)
    {
      if (!have)
        {
          start_convert (w, j);
          return;
        }
      load_path (w, j->dst);
      conv_job_free (j);
      return;
    }
  char *a = g_path_get_basename (j->src), *b = g_path_get_basename (j->dst);
  GtkWidget *dlg = gtk_message_dialog_new (
      GTK_WINDOW (w->win), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
      GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE,
      have ? "Open the indexed copy of “%s”?" : "Convert “%s” to an indexed log?",
      a);
  if (have)
    gtk_message_dialog_format_secondary_text (
        GTK_MESSAGE_DIALOG (dlg),
        "“%s” was converted before to “%s”, which opens instantly.", a,
        j->dst);
  else
    gtk_message_dialog_format_secondary_text (
        GTK_MESSAGE_DIALOG (dlg),
        "This MPE2 log (%.1f MB) is imported into memory each time it opens. "
        "Converted once to “%s”, it opens instantly and stays fluid at any "
        "size.", st.st_size / 1048576.0, j->dst);
  gtk_dialog_add_buttons (GTK_DIALOG (dlg), "Open _Original", RESP_ORIGINAL,
                          have ? "Open _Copy" : "_Convert",
                          have ? RESP_COPY : RESP_CONVERT, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (dlg),
                                   have ? RESP_COPY : RESP_CONVERT);
  gtk_window_set_title (GTK_WINDOW (dlg), "Convert MPE2 log");
  g_signal_connect (dlg, "response", G_CALLBACK (offer_response), j);
  gtk_widget_show (dlg);
  g_free (a);
  g_free (b);
}

/* ---- actions ------------------------------------------------------------ */

static void
on_open (GtkWidget *b, Win *w)
{
  GtkFileChooserNative *fc = gtk_file_chooser_native_new (
    "Open log", GTK_WINDOW (w->win), GTK_FILE_CHOOSER_ACTION_OPEN,
    "_Open", "_Cancel");
  GtkFileFilter *f = gtk_file_filter_new ();
  gtk_file_filter_set_name (f, "Logs (*.clog, *.clog2, *.otf2)");
  gtk_file_filter_add_pattern (f, "*.clog");
  gtk_file_filter_add_pattern (f, "*.clog2");
  gtk_file_filter_add_pattern (f, "*.otf2");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (fc), f);
  GtkFileFilter *all = gtk_file_filter_new ();
  gtk_file_filter_set_name (all, "All files");
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (fc), all);
  if (gtk_native_dialog_run (GTK_NATIVE_DIALOG (fc)) == GTK_RESPONSE_ACCEPT)
    {
      char *p = gtk_file_chooser_get_filename (GTK_FILE_CHOOSER (fc));
      if (p)
        open_path (w, p);
      g_free (p);
    }
  g_object_unref (fc);
}

static void
on_recent (GtkRecentChooser *rc, Win *w)
{
  char *uri = gtk_recent_chooser_get_current_uri (rc);
  char *p = uri ? g_filename_from_uri (uri, NULL, NULL) : NULL;
  if (p)
    open_path (w, p);
  g_free (p);
  g_free (uri);
}

static void
on_drop (GtkWidget *wd, GdkDragContext *ctx, int x, int y,
         GtkSelectionData *sd, guint info, guint time, Win *w)
{
  char **uris = gtk_selection_data_get_uris (sd);
  if (uris && uris[0])
    {
      char *p = g_filename_from_uri (uris[0], NULL, NULL);
      if (p)
        open_path (w, p);
      g_free (p);
    }
  g_strfreev (uris);
  gtk_drag_finish (ctx, TRUE, FALSE, time);
}

static void on_back (GtkWidget *b, Win *w) { mv_timeline_back (w->tl); }
static void on_fwd (GtkWidget *b, Win *w) { mv_timeline_forward (w->tl); }
static void on_fit (GtkWidget *b, Win *w) { mv_timeline_fit (w->tl); }
static void on_zin (GtkWidget *b, Win *w) { mv_timeline_zoom (w->tl, 2); }
static void on_zout (GtkWidget *b, Win *w) { mv_timeline_zoom (w->tl, 0.5); }

static void
on_stats (GtkWidget *b, Win *w)
{
  if (w->log)
    mv_stats_window_show (GTK_WINDOW (w->win), w->tl);
}

/* The counter picker: "No counters", then every metric of the log. */
static void
fill_counters (Win *w, MvLog *log)
{
  GtkComboBoxText *c = GTK_COMBO_BOX_TEXT (w->counter);
  gtk_combo_box_text_remove_all (c);
  gtk_combo_box_text_append (c, "none", "No counters");
  size_t n = logfmt_reader_n_metrics (log->reader);
  for (size_t i = 0; i < n; i++)
    {
      const logfmt_metric_def_t *d = logfmt_reader_metric (log->reader, i);
      char id[16];
      g_snprintf (id, sizeof id, "%u", d->id);
      gtk_combo_box_text_append (c, id, d->name ? d->name : id);
    }
  gtk_combo_box_set_active (GTK_COMBO_BOX (c), 0);
  gtk_widget_set_sensitive (w->counter, n > 0);
}

static void
on_counter_changed (GtkComboBox *c, Win *w)
{
  const char *id = gtk_combo_box_get_active_id (c);
  if (id == NULL || g_str_equal (id, "none"))
    mv_timeline_set_metric (w->tl, FALSE, 0);
  else
    mv_timeline_set_metric (w->tl, TRUE,
                            (guint32) g_ascii_strtoull (id, NULL, 10));
}

static void
on_matrix (GtkWidget *b, Win *w)
{
  if (w->log)
    mv_matrix_window_show (GTK_WINDOW (w->win), w->tl);
}

static void
on_profile (GtkWidget *b, Win *w)
{
  if (w->log)
    mv_profile_window_show (GTK_WINDOW (w->win), w->tl);
}

static void
on_flame (GtkWidget *b, Win *w)
{
  if (w->log && !mv_log_has_samples (w->log))
    {
      const char *m = "No flame graph: this log has no call-path samples "
                      "(record it with MPE_SAMPLE_HZ)";
      gtk_label_set_text (GTK_LABEL (w->status), m);
      test_log ("status: %s", m);
    }
  else if (w->log)
    mv_flame_window_show (GTK_WINDOW (w->win), w->tl);
}

/* Ctrl+E: call-path samples in the rows on or off (ticks, or the lane
 * depth the flame window chose). */
static void
toggle_samples (Win *w)
{
  if (w->log == NULL)
    return;
  int depth = 0;
  gboolean shown = mv_timeline_samples_shown (w->tl, &depth);
  mv_timeline_set_samples (w->tl, !shown, depth);
}

typedef struct
{
  MvLog     *log;
  gint32     state;
  guint64    from;
  gboolean   forward;
  MvInstance found;
} SearchJob;

static void
search_job_free (SearchJob *j)
{
  mv_log_unref (j->log);
  g_free (j);
}

static void
search_thread (GTask *task, gpointer src, gpointer data, GCancellable *c)
{
  SearchJob *j = data;
  g_task_return_boolean (task, mv_search_state (j->log, j->state, j->from,
                                                j->forward, &j->found,
                                                job_progress, task, c));
}

static void
search_done (GObject *src, GAsyncResult *res, gpointer user)
{
  SearchJob *j = g_task_get_task_data (G_TASK (res));
  Win *w = user;
  GError *error = NULL;
  gboolean found = g_task_propagate_boolean (G_TASK (res), &error);
  if (job_cancelled (&error))
    return;   /* a newer search, another log, or the window closed */
  progress_done (w, g_task_get_cancellable (G_TASK (res)));
  const char *name = mv_log_state (j->log, j->state)->name;
  if (!found)
    {
      char *m = g_strdup_printf ("No %s instance of %s", j->forward
                                 ? "later" : "earlier", name);
      gtk_label_set_text (GTK_LABEL (w->status), m);
      g_free (m);
      return;
    }
  if (j->log != w->log)
    return;
  w->search_pos = j->found.t_begin;
  mv_timeline_set_highlight (w->tl, j->state);
  char dur[64];
  mv_format_duration (j->found.t_end - j->found.t_begin, dur, sizeof dur);
  guint row = w->log->stream_row[j->found.stream];
  char *m = g_strdup_printf ("%s on rank %d at %.9f s (%s)", name,
                             w->log->rows[row].rank,
                             j->found.t_begin / 1e9, dur);
  mv_timeline_show_instance (w->tl, row, j->state, j->found.t_begin,
                             j->found.t_end, m);
  g_free (m);
}

/* A search still running is replaced by the new one. */
static void
search (Win *w, gboolean forward)
{
  if (w->log == NULL)
    return;
  const char *text = gtk_entry_get_text (GTK_ENTRY (w->search));
  gint32 st = mv_find_state_by_name (w->log, text);
  if (st < 0)
    {
      char *m = g_strdup_printf ("No state named “%s”", text);
      gtk_label_set_text (GTK_LABEL (w->status), m);
      g_free (m);
      return;
    }
  const MvView *v = mv_timeline_view (w->tl);
  if (st != w->search_state)
    {
      w->search_state = st;
      w->search_pos = forward ? (v->t0 > 0 ? v->t0 - 1 : 0) : v->t1 + 1;
      if (forward && v->t0 == v->lo)
        w->search_pos = 0;
    }
  SearchJob *j = g_new0 (SearchJob, 1);
  j->log = mv_log_ref (w->log);
  j->state = st;
  j->from = w->search_pos;
  j->forward = forward;
  gtk_label_set_text (GTK_LABEL (w->status), "Searching… (Esc stops)");
  GTask *t = g_task_new (w->win, job_restart (&w->search_cancel),
                         search_done, w);
  progress_show (w, w->search_cancel, "Searching");
  g_task_set_task_data (t, j, (GDestroyNotify) search_job_free);
  g_task_run_in_thread (t, search_thread);
  g_object_unref (t);
}

static void on_search_next (GtkWidget *b, Win *w) { search (w, TRUE); }
static void on_search_prev (GtkWidget *b, Win *w) { search (w, FALSE); }

/* Escape in the search entry stops a search still running. */
static void
on_search_stop (GtkSearchEntry *e, Win *w)
{
  if (w->search_cancel == NULL
      || g_cancellable_is_cancelled (w->search_cancel))
    return;
  g_cancellable_cancel (w->search_cancel);
  progress_done (w, w->search_cancel);
  gtk_label_set_text (GTK_LABEL (w->status), "Search stopped");
}

static void
on_search_changed (GtkEditable *e, Win *w)
{
  w->search_state = -1;
}

static gboolean
on_win_key (GtkWidget *wd, GdkEventKey *ev, Win *w)
{
  gboolean ctrl = (ev->state & GDK_CONTROL_MASK) != 0;
  if (ctrl && (ev->keyval == GDK_KEY_o || ev->keyval == GDK_KEY_O))
    {
      on_open (NULL, w);
      return TRUE;
    }
  if (ctrl && (ev->keyval == GDK_KEY_f || ev->keyval == GDK_KEY_F))
    {
      gtk_widget_grab_focus (w->search);
      return TRUE;
    }
  if (ev->keyval == GDK_KEY_F10 && !ctrl)
    {
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (w->menu_btn), TRUE);
      return TRUE;
    }
  if (ev->keyval == GDK_KEY_F9 && !ctrl)
    {
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (w->side_btn),
                                    !gtk_toggle_button_get_active
                                      (GTK_TOGGLE_BUTTON (w->side_btn)));
      return TRUE;
    }
  if (ctrl && (ev->keyval == GDK_KEY_t || ev->keyval == GDK_KEY_T))
    {
      on_stats (NULL, w);
      return TRUE;
    }
  if (ctrl && (ev->keyval == GDK_KEY_m || ev->keyval == GDK_KEY_M))
    {
      on_matrix (NULL, w);
      return TRUE;
    }
  if (ctrl && (ev->keyval == GDK_KEY_p || ev->keyval == GDK_KEY_P))
    {
      on_profile (NULL, w);
      return TRUE;
    }
  if (ctrl && (ev->keyval == GDK_KEY_g || ev->keyval == GDK_KEY_G))
    {
      on_flame (NULL, w);
      return TRUE;
    }
  if (ctrl && (ev->keyval == GDK_KEY_e || ev->keyval == GDK_KEY_E))
    {
      toggle_samples (w);
      return TRUE;
    }
  if (ctrl && (ev->keyval == GDK_KEY_q || ev->keyval == GDK_KEY_w))
    {
      gtk_widget_destroy (w->win);
      return TRUE;
    }
  /* The plot owns the keys whenever no text entry has the focus (not
   * only once it was clicked, nor the legend's after a click there). */
  GtkWidget *focus = gtk_window_get_focus (GTK_WINDOW (w->win));
  if (focus == NULL
      || !(GTK_IS_EDITABLE (focus) || GTK_IS_TEXT_VIEW (focus)
           /* a menu's entries (the popovers) keep their keys */
           || gtk_widget_get_ancestor (focus, GTK_TYPE_POPOVER)))
    return mv_timeline_key (w->tl, ev);
  return FALSE;
}

static void
add_control (Win *w, GtkWidget *c, const char *name)
{
  gtk_widget_set_name (c, name);
  g_ptr_array_add (w->controls, c);
}

/* An entry of the main menu: closes it, then does its action. */
static void
on_menu_item (GtkWidget *b, Win *w)
{
  GtkWidget *pop = gtk_widget_get_ancestor (b, GTK_TYPE_POPOVER);
  if (pop)
    gtk_popover_popdown (GTK_POPOVER (pop));
  void (*cb) (GtkWidget *, Win *) = g_object_get_data (G_OBJECT (b),
                                                        "mv-action");
  cb (b, w);
}

static GtkWidget *
menu_item (const char *label, const char *tip, GCallback cb, Win *w)
{
  GtkWidget *b = gtk_model_button_new ();
  g_object_set (b, "text", label, NULL);
  gtk_widget_set_tooltip_text (b, tip);
  g_object_set_data (G_OBJECT (b), "mv-action", (gpointer) cb);
  g_signal_connect (b, "clicked", G_CALLBACK (on_menu_item), w);
  return b;
}

static void
on_side_toggled (GtkToggleButton *b, Win *w)
{
  gtk_widget_set_visible (w->side, gtk_toggle_button_get_active (b));
}

static GtkWidget *
icon_button (const char *icon, const char *tip, GCallback cb, Win *w)
{
  GtkWidget *b = gtk_button_new_from_icon_name (icon, GTK_ICON_SIZE_BUTTON);
  gtk_widget_set_tooltip_text (b, tip);
  g_signal_connect (b, "clicked", cb, w);
  add_control (w, b, icon);
  return b;
}

/* The window is destroyed: its jobs stop (their callbacks, still due,
 * see them cancelled) and nothing touches its widgets any more. */
static void
on_destroy (GtkWidget *win, Win *w)
{
  GCancellable **jobs[] = { &w->load_cancel, &w->stats_cancel,
                            &w->search_cancel };
  for (guint i = 0; i < G_N_ELEMENTS (jobs); i++)
    if (*jobs[i])
      g_cancellable_cancel (*jobs[i]);
  g_clear_handle_id (&w->progress_source, g_source_remove);
  g_clear_handle_id (&w->layout_idle, g_source_remove);
}

/* When the window is finalized: after the last job's callback, as each
 * job's GTask holds a reference to it. */
static void
win_free (Win *w)
{
  g_clear_object (&w->load_cancel);
  g_clear_object (&w->stats_cancel);
  g_clear_object (&w->search_cancel);
  mv_log_unref (w->log);
  g_free (w->state_hidden);
  g_free (w->evdef_hidden);
  g_free (w->count_labels);
  if (w->controls)
    g_ptr_array_unref (w->controls);
  g_ptr_array_unref (w->layer_rows);
  g_free (w->layers_sig);
  g_free (w);
}

static Win *
win_new (GtkApplication *app)
{
  Win *w = g_new0 (Win, 1);
  w->app = app;
  w->search_state = -1;
  w->controls = g_ptr_array_new ();
  w->layer_rows = g_ptr_array_new ();
  GtkCssProvider *css = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (css, CSS, -1, NULL);
  gtk_style_context_add_provider_for_screen (gdk_screen_get_default (),
                                             GTK_STYLE_PROVIDER (css),
                                             GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_unref (css);

  w->win = gtk_application_window_new (app);
  /* 1280x760, or what the screen's work area leaves (a laptop, a small
   * VNC session, GDK_SCALE=2). */
  int dw = 1280, dh = 760;
  GdkDisplay *dpy = gdk_display_get_default ();
  GdkMonitor *mon = dpy ? gdk_display_get_primary_monitor (dpy) : NULL;
  if (mon == NULL && dpy && gdk_display_get_n_monitors (dpy) > 0)
    mon = gdk_display_get_monitor (dpy, 0);
  if (mon)
    {
      GdkRectangle wa;
      gdk_monitor_get_workarea (mon, &wa);
      dw = MIN (dw, wa.width);
      dh = MIN (dh, wa.height);
    }
  gtk_window_set_default_size (GTK_WINDOW (w->win), dw, dh);
  gtk_window_set_title (GTK_WINDOW (w->win), "mpeview");
  w->header = gtk_header_bar_new ();
  gtk_header_bar_set_show_close_button (GTK_HEADER_BAR (w->header), TRUE);
  gtk_header_bar_set_title (GTK_HEADER_BAR (w->header), "mpeview");
  gtk_window_set_titlebar (GTK_WINDOW (w->win), w->header);
  add_control (w, w->header, "header");

  GtkWidget *open_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_style_context_add_class (gtk_widget_get_style_context (open_box),
                               "linked");
  GtkWidget *open = gtk_button_new_from_icon_name ("document-open-symbolic",
                                                   GTK_ICON_SIZE_BUTTON);
  gtk_widget_set_tooltip_text (open, "Open a log (Ctrl+O)");
  g_signal_connect (open, "clicked", G_CALLBACK (on_open), w);
  GtkWidget *recent_btn = gtk_menu_button_new ();
  gtk_widget_set_tooltip_text (recent_btn, "Recent files");
  GtkWidget *recent = gtk_recent_chooser_menu_new ();
  GtkRecentFilter *rf = gtk_recent_filter_new ();
  gtk_recent_filter_add_pattern (rf, "*.clog");
  gtk_recent_filter_add_pattern (rf, "*.clog2");
  gtk_recent_chooser_add_filter (GTK_RECENT_CHOOSER (recent), rf);
  gtk_recent_chooser_set_sort_type (GTK_RECENT_CHOOSER (recent),
                                    GTK_RECENT_SORT_MRU);
  g_signal_connect (recent, "item-activated", G_CALLBACK (on_recent), w);
  gtk_menu_button_set_popup (GTK_MENU_BUTTON (recent_btn), recent);
  add_control (w, open, "open");
  add_control (w, recent_btn, "recent");
  gtk_box_pack_start (GTK_BOX (open_box), open, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (open_box), recent_btn, FALSE, FALSE, 0);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (w->header), open_box);

  GtkWidget *nav = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_style_context_add_class (gtk_widget_get_style_context (nav), "linked");
  gtk_box_pack_start (GTK_BOX (nav), icon_button ("go-previous-symbolic",
                      "Back (Alt+Left)", G_CALLBACK (on_back), w),
                      FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (nav), icon_button ("go-next-symbolic",
                      "Forward (Alt+Right)", G_CALLBACK (on_fwd), w),
                      FALSE, FALSE, 0);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (w->header), nav);
  GtkWidget *zoom = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_style_context_add_class (gtk_widget_get_style_context (zoom), "linked");
  gtk_box_pack_start (GTK_BOX (zoom), icon_button ("zoom-out-symbolic",
                      "Zoom out (S, -)", G_CALLBACK (on_zout), w),
                      FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (zoom), icon_button ("zoom-fit-best-symbolic",
                      "Fit all (Home)", G_CALLBACK (on_fit), w),
                      FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (zoom), icon_button ("zoom-in-symbolic",
                      "Zoom in (W, +)", G_CALLBACK (on_zin), w),
                      FALSE, FALSE, 0);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (w->header), zoom);

  /* The analysis windows and the row and counter pickers fold into the
   * main menu (F10): the header fits an 800 px wide screen. */
  GtkWidget *menu_btn = gtk_menu_button_new ();
  gtk_button_set_image (GTK_BUTTON (menu_btn),
                        gtk_image_new_from_icon_name ("open-menu-symbolic",
                                                      GTK_ICON_SIZE_BUTTON));
  gtk_widget_set_tooltip_text (menu_btn, "Statistics, profile, matrix, "
                               "flame graph, rows and counters (F10)");
  GtkWidget *menu_pop = gtk_popover_new (menu_btn);
  GtkWidget *mbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  gtk_container_set_border_width (GTK_CONTAINER (mbox), 8);
  gtk_box_pack_start (GTK_BOX (mbox),
                      menu_item ("Statistics (Ctrl+T)", "Statistics and "
                                 "histograms", G_CALLBACK (on_stats), w),
                      FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (mbox),
                      menu_item ("Profile (Ctrl+P)", "Time, calls and bytes "
                                 "per MPI function and state, imbalance "
                                 "across ranks", G_CALLBACK (on_profile), w),
                      FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (mbox),
                      menu_item ("Matrix (Ctrl+M)", "Communication matrix: "
                                 "who sent how much to whom",
                                 G_CALLBACK (on_matrix), w),
                      FALSE, FALSE, 0);
  w->flame_item = menu_item ("Flame graph (Ctrl+G)", "Flame graph of the "
                             "call-path samples; click a box to see where "
                             "it ran (Ctrl+E: samples in the rows)",
                             G_CALLBACK (on_flame), w);
  gtk_box_pack_start (GTK_BOX (mbox), w->flame_item, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (mbox),
                      gtk_separator_new (GTK_ORIENTATION_HORIZONTAL),
                      FALSE, FALSE, 4);
  w->counter = gtk_combo_box_text_new ();
  gtk_widget_set_tooltip_text (w->counter, "A metric drawn as a counter "
                               "track (step graph) under each process; "
                               "hover for its value");
  gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (w->counter), "none",
                             "No counters");
  gtk_combo_box_set_active (GTK_COMBO_BOX (w->counter), 0);
  gtk_widget_set_sensitive (w->counter, FALSE);
  g_signal_connect (w->counter, "changed", G_CALLBACK (on_counter_changed),
                    w);
  gtk_box_pack_end (GTK_BOX (mbox), w->counter, FALSE, FALSE, 0);
  gtk_widget_show_all (mbox);
  gtk_container_add (GTK_CONTAINER (menu_pop), mbox);
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (menu_btn), menu_pop);
  w->menu_btn = menu_btn;
  add_control (w, menu_btn, "menu");
  gtk_header_bar_pack_end (GTK_HEADER_BAR (w->header), menu_btn);
  GtkWidget *side_btn = gtk_toggle_button_new ();
  gtk_button_set_image (GTK_BUTTON (side_btn),
                        gtk_image_new_from_icon_name ("view-dual-symbolic",
                                                      GTK_ICON_SIZE_BUTTON));
  gtk_widget_set_tooltip_text (side_btn, "Legend and details (F9)");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (side_btn), TRUE);
  w->side_btn = side_btn;
  add_control (w, side_btn, "side");
  gtk_header_bar_pack_end (GTK_HEADER_BAR (w->header), side_btn);
  GtkWidget *sbox = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_style_context_add_class (gtk_widget_get_style_context (sbox), "linked");
  w->search = gtk_search_entry_new ();
  gtk_entry_set_placeholder_text (GTK_ENTRY (w->search), "Find state…");
  gtk_entry_set_width_chars (GTK_ENTRY (w->search), 4);
  g_signal_connect (w->search, "activate", G_CALLBACK (on_search_next), w);
  g_signal_connect (w->search, "changed", G_CALLBACK (on_search_changed), w);
  g_signal_connect (w->search, "stop-search", G_CALLBACK (on_search_stop), w);
  gtk_box_pack_start (GTK_BOX (sbox), w->search, FALSE, FALSE, 0);
  add_control (w, w->search, "search");
  gtk_box_pack_start (GTK_BOX (sbox), icon_button ("go-up-symbolic",
                      "Previous instance", G_CALLBACK (on_search_prev), w),
                      FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (sbox), icon_button ("go-down-symbolic",
                      "Next instance (Enter)", G_CALLBACK (on_search_next),
                      w), FALSE, FALSE, 0);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (w->header), sbox);

  GtkWidget *vbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  w->infobar = gtk_info_bar_new ();
  gtk_info_bar_set_message_type (GTK_INFO_BAR (w->infobar),
                                 GTK_MESSAGE_WARNING);
  gtk_info_bar_set_show_close_button (GTK_INFO_BAR (w->infobar), TRUE);
  g_signal_connect (w->infobar, "response", G_CALLBACK (gtk_widget_hide),
                    NULL);
  w->info_label = gtk_label_new ("");
  gtk_label_set_line_wrap (GTK_LABEL (w->info_label), TRUE);
  gtk_container_add (GTK_CONTAINER (gtk_info_bar_get_content_area (
                       GTK_INFO_BAR (w->infobar))), w->info_label);
  gtk_box_pack_start (GTK_BOX (vbox), w->infobar, FALSE, FALSE, 0);

  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  w->tl = mv_timeline_new ();
  mv_timeline_set_grouping (w->tl, group_mode, group_fold);
  GtkWidget *grouping = gtk_combo_box_text_new ();
  gtk_widget_set_tooltip_text (grouping, "Rows grouped by node or by rank "
                               "range: a group's row shows the dominant "
                               "state of its processes; click its label "
                               "to fold or unfold it ([ folds all, ] "
                               "unfolds all, G cycles the grouping)");
  const char *const gm[][2] = { { "auto", "Rows: auto" },
                                { "node", "Rows by node" },
                                { "range", "Rows by rank range" },
                                { "none", "Rows ungrouped" } };
  for (guint i = 0; i < G_N_ELEMENTS (gm); i++)
    gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (grouping), gm[i][0],
                               gm[i][1]);
  gtk_combo_box_set_active_id (GTK_COMBO_BOX (grouping),
                               mv_groups_mode_name (group_mode));
  g_signal_connect (grouping, "changed", G_CALLBACK (on_grouping_changed),
                    w->tl);
  gtk_widget_show (grouping);
  gtk_box_pack_end (GTK_BOX (mbox), grouping, FALSE, FALSE, 0);
  GtkWidget *threads = mv_sched_menu_new (GTK_WINDOW (w->win), w->tl);
  add_control (w, threads, "threads");
  w->threads = threads;
  gtk_header_bar_pack_end (GTK_HEADER_BAR (w->header), threads);
  g_signal_connect (w->tl, "changed", G_CALLBACK (update_status), w);
  gtk_paned_pack1 (GTK_PANED (paned), GTK_WIDGET (w->tl), TRUE,
                   FALSE);
  GtkWidget *side = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_style_context_add_class (gtk_widget_get_style_context (side),
                               "mv-side");
  gtk_widget_set_size_request (side, 200, -1);
  GtkWidget *lt = gtk_label_new ("Legend");
  gtk_label_set_xalign (GTK_LABEL (lt), 0);
  gtk_style_context_add_class (gtk_widget_get_style_context (lt),
                               "mv-side-title");
  gtk_box_pack_start (GTK_BOX (side), lt, FALSE, FALSE, 0);
  GtkWidget *scroll = gtk_scrolled_window_new (NULL, NULL);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll),
                                  GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  w->legend = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (w->legend),
                                   GTK_SELECTION_NONE);
  gtk_container_add (GTK_CONTAINER (scroll), w->legend);
  gtk_box_pack_start (GTK_BOX (side), scroll, TRUE, TRUE, 0);
  GtkWidget *dt = gtk_label_new ("Details");
  gtk_label_set_xalign (GTK_LABEL (dt), 0);
  gtk_style_context_add_class (gtk_widget_get_style_context (dt),
                               "mv-side-title");
  gtk_box_pack_start (GTK_BOX (side), dt, FALSE, FALSE, 0);
  w->details = gtk_label_new ("Click a state, event or arrow.");
  gtk_label_set_xalign (GTK_LABEL (w->details), 0);
  gtk_label_set_yalign (GTK_LABEL (w->details), 0);
  gtk_label_set_selectable (GTK_LABEL (w->details), TRUE);
  gtk_label_set_line_wrap (GTK_LABEL (w->details), TRUE);
  gtk_widget_set_size_request (w->details, -1, 150);
  gtk_style_context_add_class (gtk_widget_get_style_context (w->details),
                               "mv-details");
  add_control (w, w->details, "details");
  gtk_box_pack_start (GTK_BOX (side), w->details, FALSE, FALSE, 0);
  gtk_paned_pack2 (GTK_PANED (paned), side, FALSE, TRUE);
  w->side = side;
  g_signal_connect (side_btn, "toggled", G_CALLBACK (on_side_toggled), w);
  gtk_box_pack_start (GTK_BOX (vbox), paned, TRUE, TRUE, 0);

  GtkWidget *sline = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  w->status = gtk_label_new ("Open a log file to start.");
  gtk_label_set_xalign (GTK_LABEL (w->status), 0);
  gtk_label_set_ellipsize (GTK_LABEL (w->status), PANGO_ELLIPSIZE_END);
  gtk_style_context_add_class (gtk_widget_get_style_context (w->status),
                               "mv-status");
  w->progress = gtk_progress_bar_new ();
  gtk_widget_set_valign (w->progress, GTK_ALIGN_CENTER);
  gtk_widget_set_size_request (w->progress, 200, -1);
  gtk_progress_bar_set_show_text (GTK_PROGRESS_BAR (w->progress), TRUE);
  gtk_box_pack_start (GTK_BOX (sline), w->status, TRUE, TRUE, 0);
  gtk_box_pack_end (GTK_BOX (sline), w->progress, FALSE, FALSE, 8);
  gtk_box_pack_start (GTK_BOX (vbox), sline, FALSE, FALSE, 0);
  gtk_container_add (GTK_CONTAINER (w->win), vbox);

  gtk_drag_dest_set (w->win, GTK_DEST_DEFAULT_ALL, NULL, 0, GDK_ACTION_COPY);
  gtk_drag_dest_add_uri_targets (w->win);
  g_signal_connect (w->win, "drag-data-received", G_CALLBACK (on_drop), w);
  g_signal_connect (w->win, "key-press-event", G_CALLBACK (on_win_key), w);
  g_object_set_data_full (G_OBJECT (w->win), "mv-win", w,
                          (GDestroyNotify) win_free);
  g_signal_connect (w->win, "destroy", G_CALLBACK (on_destroy), w);
  g_signal_connect_after (w->win, "size-allocate",
                          G_CALLBACK (on_win_allocated), w);
  gtk_widget_show_all (w->win);
  gtk_widget_hide (w->infobar);
  gtk_widget_hide (w->progress);
  return w;
}

static void
on_activate (GtkApplication *app, gpointer user)
{
  win_new (app);
}

static void
on_open_files (GApplication *app, GFile **files, int n, const char *hint,
               gpointer user)
{
  for (int i = 0; i < n; i++)
    {
      Win *w = win_new (GTK_APPLICATION (app));
      char *p = g_file_get_path (files[i]);
      if (p)
        open_path (w, p);
      g_free (p);
    }
}

int
mv_window_main (const char *path)
{
  GtkApplication *app = gtk_application_new ("org.mpetools.mpeview",
                                             G_APPLICATION_NON_UNIQUE
                                             | G_APPLICATION_HANDLES_OPEN);
  g_signal_connect (app, "activate", G_CALLBACK (on_activate), NULL);
  g_signal_connect (app, "open", G_CALLBACK (on_open_files), NULL);
  char *argv[3] = { (char *) "mpeview", (char *) path, NULL };
  int status = g_application_run (G_APPLICATION (app), path ? 2 : 1, argv);
  g_object_unref (app);
  return status;
}

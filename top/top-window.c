/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpetop's window (GTK 3): the chosen metric per object as bars (a heat
 * strip when there are more objects than bars fit), the node and job
 * aggregates computed from the per-rank values, the request round trip
 * and losses, and pickers for the level, the metric and the rate.  It is
 * cheap by construction: samples only update the model; the drawing
 * happens at most 20 times a second and only when a sample arrived.
 */
#include "config.h"

#include <gtk/gtk.h>
#include <glib-unix.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "top-model.h"
#include "top-window.h"

typedef struct
{
  top_conn_t      *conn;
  top_model_t      model;
  top_text_opts_t *opts;
  GtkWidget       *window, *header, *area, *level, *metric, *rate;
  guint            conn_watch, listen_watch, redraw, tick;
  int              watched_fd;
  int              dirty, exit_after_job, nmetrics_shown;
  int              updating;   /* the program sets the pickers */
  int              rate_shown;
  int              rc;
} win_t;

static void
send_want (win_t *w)
{
  char line[96];
  if (w->opts->level >= 0)
    {
      snprintf (line, sizeof line, "want %d %d %u\n", w->opts->level,
                w->opts->object, w->opts->code);
      top_conn_send (w->conn, line);
    }
  if (w->opts->hz > 0)
    {
      snprintf (line, sizeof line, "hz %g\n", w->opts->hz);
      top_conn_send (w->conn, line);
    }
}

/* Blue (low) to red (high). */
static void
heat (cairo_t *cr, double f)
{
  f = f < 0 ? 0 : f > 1 ? 1 : f;
  cairo_set_source_rgb (cr, 0.15 + 0.8 * f, 0.3 + 0.4 * (1 - fabs (2 * f - 1)),
                        0.9 - 0.8 * f);
}

static gboolean
on_draw (GtkWidget *area, cairo_t *cr, gpointer data)
{
  win_t *w = data;
  const top_model_t *m = &w->model;
  const top_sample_t *s = &m->cur;
  int width = gtk_widget_get_allocated_width (area);
  int height = gtk_widget_get_allocated_height (area);

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL,
                          CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, 11);
  if (!m->hello || !m->samples)
    {
      cairo_move_to (cr, 10, 20);
      cairo_show_text (cr, m->hello ? "waiting for the first sample"
                                    : "waiting for the job");
      return FALSE;
    }
  int64_t top = 1, total = 0;
  for (uint32_t i = 0; i < s->nslots; i++)
    {
      if (s->slots[i].sum > top)
        top = s->slots[i].sum;
      total += s->slots[i].sum;
    }
  /* Aggregates below the bars: per node and the job, from per-rank values
     (the job's own node and job requests give these directly). */
  int agg_h = 0;
  char line[256];
  if (s->level == TOP_LEVEL_PROCESS && s->object < 0 && m->nodes > 0
      && s->nslots == (uint32_t) m->ranks)
    {
      agg_h = 18 * (m->nodes < 8 ? m->nodes + 1 : 9);
      int y = height - agg_h + 12;
      snprintf (line, sizeof line, "job: %lld", (long long) total);
      cairo_move_to (cr, 10, y);
      cairo_show_text (cr, line);
      for (int k = 0; k < m->nodes && k < 8; k++)
        {
          int64_t sum = 0, lo = INT64_MAX, hi = INT64_MIN;
          int nlo = -1, nhi = -1;
          for (int r = 0; r < m->ranks; r++)
            if (m->node_of[r] == k)
              {
                int64_t v = s->slots[r].sum;
                sum += v;
                if (v < lo)
                  lo = v, nlo = r;
                if (v > hi)
                  hi = v, nhi = r;
              }
          const char *h = "";
          for (int r = 0; r < m->ranks; r++)
            if (m->node_of[r] == k)
              {
                h = m->host[r];
                break;
              }
          snprintf (line, sizeof line, "node %d %s: %lld  (min %lld on rank "
                    "%d, max %lld on rank %d)", k, h, (long long) sum,
                    (long long) lo, nlo, (long long) hi, nhi);
          cairo_move_to (cr, 10, y + 18 * (k + 1));
          cairo_show_text (cr, line);
        }
    }
  /* The axis: the metric with its unit, and the scale's top and 0. */
  const char *unit = "";
  for (int i = 0; i < m->nmetrics; i++)
    if (m->metrics[i].code == s->code)
      unit = m->metrics[i].unit;
  int unitless = !*unit || !strcmp (unit, "1");
  snprintf (line, sizeof line, "%s%s%s%s, per %s", top_metric_name (m, s->code),
            unitless ? "" : " (", unitless ? "" : unit, unitless ? "" : ")",
            top_level_name (s->level));
  cairo_move_to (cr, 10, 14);
  cairo_show_text (cr, line);
  const double left = 70, y0 = 24;
  double plot_h = height - agg_h - 30 - y0;
  if (plot_h < 20)
    plot_h = 20;
  char num[32];
  snprintf (num, sizeof num, "%lld", (long long) top);
  cairo_move_to (cr, 4, y0 + 14);
  cairo_show_text (cr, num);
  cairo_move_to (cr, 4, y0 + plot_h);
  cairo_show_text (cr, "0");
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, left - 4.5, y0 + 10);
  cairo_line_to (cr, left - 4.5, y0 + plot_h + 0.5);
  cairo_line_to (cr, width - 10, y0 + plot_h + 0.5);
  cairo_stroke (cr);
  uint32_t n = s->nslots;
  if (n == 0)
    return FALSE;
  double bw = (double) (width - left - 10) / n;
  if (bw >= 3)
    {
      /* Bars, labelled with their object and value when there is room. */
      for (uint32_t i = 0; i < n; i++)
        {
          double f = (double) s->slots[i].sum / (double) top;
          double h = f * (plot_h - 10);
          heat (cr, f);
          cairo_rectangle (cr, left + i * bw + bw * 0.1, y0 + plot_h - h,
                           bw * 0.8, h);
          cairo_fill (cr);
          cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
          cairo_text_extents_t ext;
          snprintf (num, sizeof num, "%lld", (long long) s->slots[i].sum);
          cairo_text_extents (cr, num, &ext);
          if (ext.width <= bw * 0.95)
            {
              cairo_move_to (cr, left + i * bw + (bw - ext.width) / 2,
                             y0 + plot_h - h - 3);
              cairo_show_text (cr, num);
            }
          if (bw >= 28)
            {
              snprintf (line, sizeof line, "%d", s->slots[i].object
                        >> (s->level == TOP_LEVEL_THREAD ? 16 : 0));
              cairo_move_to (cr, left + i * bw + 2, y0 + plot_h + 14);
              cairo_show_text (cr, line);
            }
        }
    }
  else
    {
      /* A heat strip: every pixel column is the largest object under it. */
      int cols = width - (int) left - 10;
      for (int x = 0; x < cols; x++)
        {
          uint32_t a = (uint32_t) ((double) x / cols * n);
          uint32_t b = (uint32_t) ((double) (x + 1) / cols * n);
          int64_t v = 0;
          for (uint32_t i = a; i < b && i < n; i++)
            if (s->slots[i].sum > v)
              v = s->slots[i].sum;
          heat (cr, (double) v / (double) top);
          cairo_rectangle (cr, left + x, y0, 1, plot_h);
          cairo_fill (cr);
        }
    }
  return FALSE;
}

static void
update_header (win_t *w)
{
  const top_model_t *m = &w->model;
  char buf[512];
  /* The job's end leads the line: an ellipsis must not hide it. */
  if (!m->hello)
    snprintf (buf, sizeof buf, "waiting for the job");
  else
    snprintf (buf, sizeof buf,
              "%s%d ranks on %d nodes, %g Hz; samples %llu, missing %llu, "
              "incomplete %llu; round trip last %.2f ms, min %.2f, median "
              "%.2f, max %.2f ms", m->ended ? "The job ended. " : "",
              m->ranks, m->nodes, m->hz,
              (unsigned long long) m->samples,
              (unsigned long long) m->missing,
              (unsigned long long) m->incomplete,
              (double) m->cur.rtt_ns * 1e-6, m->rtt_min * 1e3,
              top_model_rtt_median (m) * 1e3, m->rtt_max * 1e3);
  gtk_label_set_text (GTK_LABEL (w->header), buf);
  w->updating = 1;
  if (m->hello && !w->rate_shown && w->opts->hz <= 0)
    {
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (w->rate), m->hz);
      w->rate_shown = 1;
    }
  /* The metric picker follows the job's catalogue. */
  if (m->nmetrics != w->nmetrics_shown)
    {
      gtk_combo_box_text_remove_all (GTK_COMBO_BOX_TEXT (w->metric));
      for (int i = 0; i < m->nmetrics; i++)
        {
          char id[16];
          snprintf (id, sizeof id, "%u", m->metrics[i].code);
          gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (w->metric), id,
                                     m->metrics[i].name);
        }
      w->nmetrics_shown = m->nmetrics;
      char id[16];
      snprintf (id, sizeof id, "%u", m->cur.code ? m->cur.code
                                                 : w->opts->code);
      gtk_combo_box_set_active_id (GTK_COMBO_BOX (w->metric), id);
    }
  w->updating = 0;
}

static gboolean
on_redraw (gpointer data)
{
  win_t *w = data;
  if (w->dirty)
    {
      w->dirty = 0;
      update_header (w);
      gtk_widget_queue_draw (w->area);
    }
  if (w->model.ended && w->exit_after_job)
    {
      w->redraw = 0;
      gtk_widget_destroy (w->window);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean on_io (gint fd, GIOCondition c, gpointer data);

/* Serves the listener, the pending peers and the job, and keeps a watch
 * on the job's socket while there is one. */
static void
serve (win_t *w)
{
  int ev = top_conn_serve (w->conn, &w->model);
  if (ev & TOP_EV_HELLO)
    {
      send_want (w);
      top_conn_send (w->conn, "ready\n");   /* the job may sample now */
    }
  if ((ev & TOP_EV_GONE) && !w->model.ended)
    {
      /* Refused: wait for the next job. */
      top_model_free (&w->model);
      top_model_init (&w->model);
    }
  if (ev || w->conn->fd >= 0)
    w->dirty = 1;
  if (w->conn_watch && w->watched_fd != w->conn->fd)
    {
      g_source_remove (w->conn_watch);
      w->conn_watch = 0;
    }
  if (!w->conn_watch && w->conn->fd >= 0)
    {
      w->watched_fd = w->conn->fd;
      w->conn_watch = g_unix_fd_add (w->conn->fd,
                                     G_IO_IN | G_IO_HUP | G_IO_ERR, on_io, w);
    }
}

static gboolean
on_io (gint fd, GIOCondition c, gpointer data)
{
  win_t *w = data;
  (void) c;
  (void) fd;
  /* serve () removes the job's watch itself when its socket closed
   * (GLib allows that from the watch's own callback). */
  serve (w);
  return G_SOURCE_CONTINUE;
}

/* Pending peers are read and timed out here too (they have no watch). */
static gboolean
on_tick (gpointer data)
{
  serve (data);
  return G_SOURCE_CONTINUE;
}

static void
on_level (GtkComboBox *box, gpointer data)
{
  win_t *w = data;
  int level = top_level_parse (gtk_combo_box_get_active_id (box));
  if (w->updating || level < 0 || level == w->opts->level)
    return;
  w->opts->level = level;
  w->opts->object = -1;
  send_want (w);
}

static void
on_metric (GtkComboBox *box, gpointer data)
{
  win_t *w = data;
  const char *id = gtk_combo_box_get_active_id (box);
  if (w->updating || !id)
    return;
  uint32_t code = (uint32_t) strtoul (id, NULL, 10);
  if (code == w->opts->code && w->opts->level >= 0)
    return;
  w->opts->code = code;
  if (w->opts->level < 0)
    w->opts->level = top_level_parse (gtk_combo_box_get_active_id
                                      (GTK_COMBO_BOX (w->level)));
  send_want (w);
}

static void
on_rate (GtkSpinButton *spin, gpointer data)
{
  win_t *w = data;
  if (w->updating)
    return;
  w->opts->hz = gtk_spin_button_get_value (spin);
  send_want (w);
}

/* q quits; l, m, + and - do what they do in the text mode (mpetop(1)),
 * and the pickers follow.  Keys typed into the rate's entry stay there. */
static gboolean
on_key (GtkWidget *win, GdkEventKey *ev, gpointer data)
{
  win_t *w = data;
  GtkWidget *focus = gtk_window_get_focus (GTK_WINDOW (win));
  if ((focus && GTK_IS_EDITABLE (focus))
      || (ev->state & (GDK_CONTROL_MASK | GDK_MOD1_MASK)))
    return FALSE;
  guint32 c = gdk_keyval_to_unicode (ev->keyval);
  if (c == 'q')
    {
      gtk_widget_destroy (w->window);
      return TRUE;
    }
  if (c != 'l' && c != 'm' && c != '+' && c != '-')
    return FALSE;
  if (top_text_key (w->opts, &w->model, (char) c) && w->model.hello)
    send_want (w);
  w->updating = 1;
  if (w->opts->level >= 0)
    gtk_combo_box_set_active_id (GTK_COMBO_BOX (w->level),
                                 top_level_name (w->opts->level));
  char id[16];
  snprintf (id, sizeof id, "%u", w->opts->code);
  if (c == 'm')
    gtk_combo_box_set_active_id (GTK_COMBO_BOX (w->metric), id);
  if (w->opts->hz > 0)
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (w->rate), w->opts->hz);
  w->updating = 0;
  return TRUE;
}

/* SIGINT, SIGTERM, SIGHUP: close the window as q does. */
static gboolean
on_signal (gpointer data)
{
  win_t *w = data;
  if (w->window)
    gtk_widget_destroy (w->window);
  return G_SOURCE_CONTINUE;
}

static void
on_destroy (GtkWidget *win, gpointer data)
{
  win_t *w = data;
  (void) win;
  w->window = NULL;
  gtk_main_quit ();
}

int
top_window_run (top_conn_t *conn, top_text_opts_t *opts, int exit_after_job)
{
  win_t w = { .conn = conn, .opts = opts, .exit_after_job = exit_after_job,
              .nmetrics_shown = -1 };
  top_model_init (&w.model);
  w.window = gtk_window_new (GTK_WINDOW_TOPLEVEL);
  gtk_window_set_title (GTK_WINDOW (w.window), "mpetop");
  gtk_window_set_default_size (GTK_WINDOW (w.window), 900, 480);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  w.level = gtk_combo_box_text_new ();
  static const char *const levels[] = { "thread", "process", "node", "job" };
  for (int i = 0; i < 4; i++)
    gtk_combo_box_text_append (GTK_COMBO_BOX_TEXT (w.level), levels[i],
                               levels[i]);
  gtk_combo_box_set_active_id (GTK_COMBO_BOX (w.level),
                               top_level_name (opts->level >= 0
                                               ? opts->level
                                               : TOP_LEVEL_PROCESS));
  w.metric = gtk_combo_box_text_new ();
  w.rate = gtk_spin_button_new_with_range (0.1, 1000, 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (w.rate),
                             opts->hz > 0 ? opts->hz : 10);
  gtk_box_pack_start (GTK_BOX (bar), gtk_label_new ("Level"), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (bar), w.level, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (bar), gtk_label_new ("Metric"), FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (bar), w.metric, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (bar), gtk_label_new ("Rate (Hz)"), FALSE,
                      FALSE, 0);
  gtk_box_pack_start (GTK_BOX (bar), w.rate, FALSE, FALSE, 0);
  w.header = gtk_label_new ("waiting for the job");
  gtk_label_set_xalign (GTK_LABEL (w.header), 0);
  gtk_label_set_ellipsize (GTK_LABEL (w.header), PANGO_ELLIPSIZE_END);
  w.area = gtk_drawing_area_new ();
  gtk_widget_set_vexpand (w.area, TRUE);
  gtk_box_pack_start (GTK_BOX (box), bar, FALSE, FALSE, 4);
  gtk_box_pack_start (GTK_BOX (box), w.header, FALSE, FALSE, 2);
  gtk_box_pack_start (GTK_BOX (box), w.area, TRUE, TRUE, 0);
  gtk_container_add (GTK_CONTAINER (w.window), box);
  g_signal_connect (w.area, "draw", G_CALLBACK (on_draw), &w);
  g_signal_connect (w.level, "changed", G_CALLBACK (on_level), &w);
  g_signal_connect (w.metric, "changed", G_CALLBACK (on_metric), &w);
  g_signal_connect (w.rate, "value-changed", G_CALLBACK (on_rate), &w);
  g_signal_connect (w.window, "destroy", G_CALLBACK (on_destroy), &w);
  g_signal_connect (w.window, "key-press-event", G_CALLBACK (on_key), &w);
  guint sig[3] = { g_unix_signal_add (SIGINT, on_signal, &w),
                   g_unix_signal_add (SIGTERM, on_signal, &w),
                   g_unix_signal_add (SIGHUP, on_signal, &w) };
  w.listen_watch = g_unix_fd_add (conn->lfd, G_IO_IN, on_io, &w);
  w.tick = g_timeout_add (100, on_tick, &w);
  w.redraw = g_timeout_add (50, on_redraw, &w);
  gtk_widget_show_all (w.window);
  gtk_main ();
  if (w.listen_watch)
    g_source_remove (w.listen_watch);
  if (w.conn_watch)
    g_source_remove (w.conn_watch);
  if (w.redraw)
    g_source_remove (w.redraw);
  for (int i = 0; i < 3; i++)
    g_source_remove (sig[i]);
  if (w.tick)
    g_source_remove (w.tick);
  top_model_free (&w.model);
  return w.rc;
}

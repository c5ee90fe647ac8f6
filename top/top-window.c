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
  double plot_h = height - agg_h - 30;
  if (plot_h < 20)
    plot_h = 20;
  uint32_t n = s->nslots;
  if (n == 0)
    return FALSE;
  double bw = (double) (width - 20) / n;
  if (bw >= 3)
    {
      /* Bars, labelled when there is room. */
      for (uint32_t i = 0; i < n; i++)
        {
          double f = (double) s->slots[i].sum / (double) top;
          double h = f * (plot_h - 10);
          heat (cr, f);
          cairo_rectangle (cr, 10 + i * bw + bw * 0.1, 10 + plot_h - h,
                           bw * 0.8, h);
          cairo_fill (cr);
          if (bw >= 28)
            {
              cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
              snprintf (line, sizeof line, "%d", s->slots[i].object
                        >> (s->level == TOP_LEVEL_THREAD ? 16 : 0));
              cairo_move_to (cr, 10 + i * bw + 2, 10 + plot_h + 14);
              cairo_show_text (cr, line);
            }
        }
    }
  else
    {
      /* A heat strip: every pixel column is the largest object under it. */
      for (int x = 0; x < width - 20; x++)
        {
          uint32_t a = (uint32_t) ((double) x / (width - 20) * n);
          uint32_t b = (uint32_t) ((double) (x + 1) / (width - 20) * n);
          int64_t v = 0;
          for (uint32_t i = a; i < b && i < n; i++)
            if (s->slots[i].sum > v)
              v = s->slots[i].sum;
          heat (cr, (double) v / (double) top);
          cairo_rectangle (cr, 10 + x, 10, 1, plot_h);
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
  if (!m->hello)
    snprintf (buf, sizeof buf, "waiting for the job");
  else
    snprintf (buf, sizeof buf,
              "%d ranks on %d nodes, %g Hz; samples %llu, missing %llu, "
              "incomplete %llu; round trip last %.2f ms, min %.2f, median "
              "%.2f, max %.2f ms%s", m->ranks, m->nodes, m->hz,
              (unsigned long long) m->samples,
              (unsigned long long) m->missing,
              (unsigned long long) m->incomplete,
              (double) m->cur.rtt_ns * 1e-6, m->rtt_min * 1e3,
              top_model_rtt_median (m) * 1e3, m->rtt_max * 1e3,
              m->ended ? "; the job ended" : "");
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
  g_signal_connect (w.window, "destroy", G_CALLBACK (gtk_main_quit), NULL);
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
  if (w.tick)
    g_source_remove (w.tick);
  top_model_free (&w.model);
  return w.rc;
}

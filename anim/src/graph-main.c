/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpegraph: the shared window of MPE graphics (docs/GRAPHICS.md).
 * Started by rank 0's MPE_Open_graphics (--addr-fd: the address goes to
 * that descriptor, and the window ends with the job), or by hand (the
 * address is printed for MPE_GRAPHICS_ADDR, the window stays).  Without
 * a display it runs headless: the ranks' drawing goes to an offscreen
 * picture that MPE_CaptureFile writes out, and nothing fails.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gtk/gtk.h>

#include "anim/client/graph-proto.h"
#include "graph-server.h"

static char    *opt_listen, *opt_size, *opt_position, *opt_display;
static char    *opt_title, *opt_addr_file, *opt_capture_dir;
static int      opt_addr_fd = -1;
static gboolean opt_headless, opt_exit_after_job;

static GOptionEntry entries[] = {
  { "listen", 'l', 0, G_OPTION_ARG_STRING, &opt_listen,
    "Listen for ranks on HOST[:PORT] (default 127.0.0.1, any port)",
    "ADDR" },
  { "size", 0, 0, G_OPTION_ARG_STRING, &opt_size,
    "Window size until a job says otherwise (default 400x400)", "WxH" },
  { "position", 0, 0, G_OPTION_ARG_STRING, &opt_position,
    "Window position", "X,Y" },
  { "display", 0, 0, G_OPTION_ARG_STRING, &opt_display,
    "X display (default $DISPLAY)", "DISPLAY" },
  { "title", 0, 0, G_OPTION_ARG_STRING, &opt_title,
    "Window title (default MPE)", "TEXT" },
  { "headless", 0, 0, G_OPTION_ARG_NONE, &opt_headless,
    "No window even with a display", NULL },
  { "addr-fd", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &opt_addr_fd,
    "Write the address to descriptor FD and end with the job (how "
    "MPE_Open_graphics starts the window)", "FD" },
  { "addr-file", 0, 0, G_OPTION_ARG_FILENAME, &opt_addr_file,
    "Write 'export MPE_GRAPHICS_ADDR=...' to FILE", "FILE" },
  { "capture-dir", 0, 0, G_OPTION_ARG_FILENAME, &opt_capture_dir,
    "Write MPE_CaptureFile's frames beneath DIR only (default: the "
    "current directory)", "DIR" },
  { "exit-after-job", 0, 0, G_OPTION_ARG_NONE, &opt_exit_after_job,
    "End once every rank of the job has disconnected", NULL },
  { NULL }
};

typedef struct
{
  GraphServer *srv;
  GMainLoop   *loop;
  GtkWidget   *window, *area;
  int          shown_w, shown_h;
} App;

static void
on_redraw (void *user)
{
  App *app = user;
  if (!app->area)
    return;
  GraphCanvas *cv = graph_server_canvas (app->srv);
  int w = graph_canvas_width (cv), h = graph_canvas_height (cv);
  if (w != app->shown_w || h != app->shown_h)
    {
      gtk_widget_set_size_request (app->area, w, h);
      app->shown_w = w;
      app->shown_h = h;
    }
  gtk_widget_queue_draw (app->area);
}

static void
on_job_done (void *user)
{
  App *app = user;
  if (opt_addr_fd >= 0 || opt_exit_after_job)
    g_main_loop_quit (app->loop);
}

/* A window started for a job that never connects does not stay. */
static gboolean
nobody_came (gpointer data)
{
  App *app = data;
  if (graph_server_n_hello (app->srv) == 0)
    {
      g_printerr ("mpegraph: no rank connected within 60 s\n");
      g_main_loop_quit (app->loop);
    }
  return G_SOURCE_REMOVE;
}

static gboolean
draw_cb (GtkWidget *w, cairo_t *cr, gpointer data)
{
  (void) w;
  App *app = data;
  cairo_set_source_surface (cr,
                            graph_canvas_surface (graph_server_canvas
                                                  (app->srv)), 0, 0);
  cairo_paint (cr);
  int visual, x1, y1, x2, y2;
  if (!graph_server_drag_band (app->srv, &visual, &x1, &y1, &x2, &y2)
      || visual == GRAPH_DRAG_NONE)
    return FALSE;
  /* The rubber band: dashed black on white, visible on any picture and
   * never part of it (MPE2 XORed it into the window itself). */
  double dash = 4;
  cairo_set_line_width (cr, 1);
  for (int pass = 0; pass < 2; pass++)
    {
      cairo_set_source_rgb (cr, pass, pass, pass);
      cairo_set_dash (cr, &dash, 1, pass * dash);
      if (visual == GRAPH_DRAG_LINE)
        {
          cairo_move_to (cr, x1 + 0.5, y1 + 0.5);
          cairo_line_to (cr, x2 + 0.5, y2 + 0.5);
        }
      else if (visual == GRAPH_DRAG_CIRCLE_RADIUS
               || visual == GRAPH_DRAG_CIRCLE_DIAMETER
               || visual == GRAPH_DRAG_CIRCLE_BBOX
               || visual == GRAPH_DRAG_OVAL_BBOX)
        {
          if (x2 > x1 && y2 > y1)
            {
              cairo_save (cr);
              cairo_translate (cr, (x1 + x2) / 2.0, (y1 + y2) / 2.0);
              cairo_scale (cr, (x2 - x1) / 2.0, (y2 - y1) / 2.0);
              cairo_arc (cr, 0, 0, 1, 0, 2 * G_PI);
              cairo_restore (cr);
            }
        }
      else
        cairo_rectangle (cr, x1 + 0.5, y1 + 0.5, x2 - x1, y2 - y1);
      cairo_stroke (cr);
    }
  return FALSE;
}

static gboolean
press_cb (GtkWidget *w, GdkEventButton *ev, gpointer data)
{
  (void) w;
  App *app = data;
  if (ev->type == GDK_BUTTON_PRESS)
    graph_server_press (app->srv, (int) ev->button, (int) ev->x,
                        (int) ev->y);
  return TRUE;
}

static gboolean
release_cb (GtkWidget *w, GdkEventButton *ev, gpointer data)
{
  (void) w;
  App *app = data;
  graph_server_release (app->srv, (int) ev->button, (int) ev->x,
                        (int) ev->y);
  return TRUE;
}

static gboolean
motion_cb (GtkWidget *w, GdkEventMotion *ev, gpointer data)
{
  (void) w;
  App *app = data;
  graph_server_motion (app->srv, (int) ev->x, (int) ev->y);
  return TRUE;
}

/* Closing the window does not stop a job that is drawing: it goes on
 * headless (a window started by hand ends). */
static gboolean
delete_cb (GtkWidget *w, GdkEvent *ev, gpointer data)
{
  (void) w;
  (void) ev;
  App *app = data;
  app->window = app->area = NULL;
  graph_server_set_headless (app->srv, TRUE);
  if (opt_addr_fd < 0)
    g_main_loop_quit (app->loop);
  return FALSE;
}

static void
open_window (App *app, int w, int h)
{
  app->window = gtk_window_new (GTK_WINDOW_TOPLEVEL);
  gtk_window_set_title (GTK_WINDOW (app->window),
                        opt_title ? opt_title : "MPE");
  gtk_window_set_resizable (GTK_WINDOW (app->window), FALSE);
  app->area = gtk_drawing_area_new ();
  gtk_widget_set_size_request (app->area, w, h);
  app->shown_w = w;
  app->shown_h = h;
  gtk_widget_add_events (app->area, GDK_BUTTON_PRESS_MASK
                         | GDK_BUTTON_RELEASE_MASK
                         | GDK_POINTER_MOTION_MASK);
  g_signal_connect (app->area, "draw", G_CALLBACK (draw_cb), app);
  g_signal_connect (app->area, "button-press-event", G_CALLBACK (press_cb),
                    app);
  g_signal_connect (app->area, "button-release-event",
                    G_CALLBACK (release_cb), app);
  g_signal_connect (app->area, "motion-notify-event", G_CALLBACK (motion_cb),
                    app);
  g_signal_connect (app->window, "delete-event", G_CALLBACK (delete_cb), app);
  gtk_container_add (GTK_CONTAINER (app->window), app->area);
  int x, y;
  if (opt_position && sscanf (opt_position, "%d,%d", &x, &y) == 2)
    gtk_window_move (GTK_WINDOW (app->window), x, y);
  gtk_widget_show_all (app->window);
}

static gboolean
parse_size (const char *s, int *w, int *h)
{
  char *end;
  long a = strtol (s, &end, 10);
  if (*end != 'x' || a < 1 || a > GRAPH_MAX_SIZE)
    return FALSE;
  long b = strtol (end + 1, &end, 10);
  if (*end || b < 1 || b > GRAPH_MAX_SIZE)
    return FALSE;
  *w = (int) a;
  *h = (int) b;
  return TRUE;
}

static int
publish_address (const char *addr)
{
  if (opt_addr_fd >= 0)
    {
      char *line = g_strdup_printf ("%s\n", addr);
      size_t n = strlen (line), off = 0;
      while (off < n)
        {
          ssize_t k = write (opt_addr_fd, line + off, n - off);
          if (k < 0 && errno == EINTR)
            continue;
          if (k <= 0)
            break;
          off += (size_t) k;
        }
      g_free (line);
      close (opt_addr_fd);
      return off == n ? 0 : -1;
    }
  g_autofree char *line = g_strdup_printf ("export MPE_GRAPHICS_ADDR='%s'\n",
                                           addr);
  /* The token is the job's key: the file is its owner's from the start. */
  if (opt_addr_file
      && !g_file_set_contents_full (opt_addr_file, line, -1,
                                    G_FILE_SET_CONTENTS_CONSISTENT, 0600,
                                    NULL))
    {
      g_printerr ("mpegraph: cannot write %s\n", opt_addr_file);
      return -1;
    }
  fputs (line, stdout);
  fflush (stdout);
  return 0;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) err = NULL;
  g_autoptr (GOptionContext) ctx = g_option_context_new ("");
  g_option_context_set_summary (ctx, "The shared window of MPE graphics "
                                "(mpe_graphics.h).");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err))
    {
      g_printerr ("mpegraph: %s\n", err->message);
      return 2;
    }
  int w = 400, h = 400;
  if (opt_size && !parse_size (opt_size, &w, &h))
    {
      g_printerr ("mpegraph: --size %s: expected WxH, 1 to %d each\n",
                  opt_size, GRAPH_MAX_SIZE);
      return 2;
    }
  if (opt_display)
    g_setenv ("DISPLAY", opt_display, TRUE);

  App app = { 0 };
  app.loop = g_main_loop_new (NULL, FALSE);
  GraphServerHooks hooks = { on_redraw, on_job_done };
  app.srv = graph_server_new (opt_listen, w, h, &hooks, &app, &err);
  if (!app.srv)
    {
      g_printerr ("mpegraph: %s\n", err->message);
      return 1;
    }
  if (opt_capture_dir
      && !graph_server_capture_dir (app.srv, opt_capture_dir, &err))
    {
      g_printerr ("mpegraph: %s\n", err->message);
      graph_server_free (app.srv);
      return 2;
    }
  gboolean have_display = !opt_headless && gtk_init_check (NULL, NULL);
  if (have_display)
    open_window (&app, w, h);
  else
    {
      graph_server_set_headless (app.srv, TRUE);
      if (!opt_headless)
        g_printerr ("mpegraph: no display: drawing offscreen "
                    "(MPE_CaptureFile writes the frames)\n");
    }
  if (publish_address (graph_server_address (app.srv)) < 0)
    {
      graph_server_free (app.srv);
      return 1;
    }
  if (opt_addr_fd >= 0)
    g_timeout_add_seconds (60, nobody_came, &app);
  g_main_loop_run (app.loop);
  graph_server_free (app.srv);
  if (app.window)
    gtk_widget_destroy (app.window);
  g_main_loop_unref (app.loop);
  return 0;
}

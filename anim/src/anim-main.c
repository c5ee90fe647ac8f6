/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpeanim: live animation of a running MPI job, replay of a finished log,
 * and headless export of a replay frame.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "anim-window.h"

static char    *opt_listen, *opt_addr_file, *opt_stats_out, *opt_export;
static char    *opt_size, *opt_text_out;
static int      opt_select = -1;
static double   opt_at = 0, opt_speed = 1;
static gboolean opt_exit_after_job, opt_latency;

static GOptionEntry entries[] = {
  { "listen", 'l', 0, G_OPTION_ARG_STRING, &opt_listen,
    "Listen for ranks on HOST[:PORT] (default 127.0.0.1, any port)",
    "ADDR" },
  { "addr-file", 0, 0, G_OPTION_ARG_FILENAME, &opt_addr_file,
    "Write 'export MPEANIM_ADDR=...' to FILE "
    "(default $XDG_RUNTIME_DIR/mpeanim.env)", "FILE" },
  { "stats-out", 0, 0, G_OPTION_ARG_FILENAME, &opt_stats_out,
    "Write the live counters to FILE on exit", "FILE" },
  { "exit-after-job", 0, 0, G_OPTION_ARG_NONE, &opt_exit_after_job,
    "Close the window once every rank of the job has disconnected", NULL },
  { "latency", 0, 0, G_OPTION_ARG_NONE, &opt_latency,
    "Measure send-to-screen latency (ranks on this host)", NULL },
  { "export", 'o', 0, G_OPTION_ARG_FILENAME, &opt_export,
    "Replay: render the frame at --at to PNG without a display", "PNG" },
  { "at", 't', 0, G_OPTION_ARG_DOUBLE, &opt_at,
    "Replay: time in seconds from the first record (default 0)", "T" },
  { "size", 0, 0, G_OPTION_ARG_STRING, &opt_size,
    "Size of the exported frame (default 800x600)", "WxH" },
  { "select", 0, 0, G_OPTION_ARG_INT, &opt_select,
    "Select rank N (its history box) from the start", "N" },
  { "text-out", 0, 0, G_OPTION_ARG_FILENAME, &opt_text_out,
    "Write the frame's text (status, legend, history, address) to FILE: "
    "with --export once, in the window whenever it changes", "FILE" },
  { "speed", 0, 0, G_OPTION_ARG_DOUBLE, &opt_speed,
    "Replay: initial speed, 0.001 to 1000 (default 1)", "X" },
  { NULL }
};

static int
do_export (const char *log)
{
  int w = 800, h = 600;
  g_autoptr (GError) err = NULL;
  if (opt_size)
    {
      char *end;
      w = (int) strtol (opt_size, &end, 10);
      if (*end != 'x' || w < 16 || w > 16384)
        goto bad;
      h = (int) strtol (end + 1, &end, 10);
      if (*end || h < 16 || h > 16384)
        goto bad;
    }
  AnimReplay *rp = anim_replay_open (log, &err);
  if (!rp)
    {
      g_printerr ("mpeanim: %s\n", err->message);
      return 1;
    }
  if (opt_at < 0 || opt_at > anim_replay_duration (rp) + 1e-9)
    g_printerr ("mpeanim: note: --at %g is outside the log (0 to %g s)\n",
                opt_at, anim_replay_duration (rp));
  cairo_surface_t *sf = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr = cairo_create (sf);
  AnimScene s;
  anim_replay_scene (rp, opt_at, 0, opt_select, &s);
  anim_render (cr, w, h, &s);
  cairo_destroy (cr);
  if (opt_text_out)
    {
      FILE *f = fopen (opt_text_out, "w");
      if (f)
        anim_scene_write_text (f, &s);
      if (!f || fclose (f) != 0)
        {
          g_printerr ("mpeanim: cannot write %s\n", opt_text_out);
          cairo_surface_destroy (sf);
          anim_replay_free (rp);
          return 1;
        }
    }
  cairo_status_t cs = cairo_surface_write_to_png (sf, opt_export);
  cairo_surface_destroy (sf);
  anim_replay_free (rp);
  if (cs != CAIRO_STATUS_SUCCESS)
    {
      g_printerr ("mpeanim: cannot write %s: %s\n", opt_export,
                  cairo_status_to_string (cs));
      return 1;
    }
  return 0;
bad:
  g_printerr ("mpeanim: --size %s: expected WxH, 16 to 16384 each\n",
              opt_size);
  return 2;
}

static int
run_live (void)
{
  g_autoptr (GError) err = NULL;
  AnimLive *lv = anim_live_new ();
  anim_live_measure_latency (lv, opt_latency);
  AnimServer *srv = anim_server_new (lv, opt_listen, &err);
  if (!srv)
    {
      g_printerr ("mpeanim: %s\n", err->message);
      anim_live_free (lv);
      return 1;
    }
  const char *addr = anim_server_address (srv);
  g_autofree char *file = opt_addr_file
    ? g_strdup (opt_addr_file)
    : g_build_filename (g_get_user_runtime_dir (), "mpeanim.env", NULL);
  g_autofree char *line = g_strdup_printf ("export MPEANIM_ADDR='%s'\n",
                                           addr);
  /* The token is the job's key: the file is its owner's from the start. */
  if (!g_file_set_contents_full (file, line, -1,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0600, &err))
    {
      g_printerr ("mpeanim: %s\n", err->message);
      g_clear_error (&err);
    }
  printf ("%s# (also in %s: '. %s' sets it)\n", line, file, file);
  fflush (stdout);
  AnimWindowOpts o = { .live = lv, .server = srv,
                       .stats_out = opt_stats_out,
                       .exit_after_job = opt_exit_after_job,
                       .address = addr, .text_out = opt_text_out,
                       .selected = opt_select };
  int rc = anim_window_run (&o);
  anim_server_free (srv);
  anim_live_free (lv);
  return rc;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) err = NULL;
  GOptionContext *ctx = g_option_context_new (
    "[LOG] - live MPI animation and log replay");
  g_option_context_set_summary (ctx,
    "Without LOG, waits for ranks of a job run with MPEANIM_ADDR set.\n"
    "With LOG (.clog or MPE2 log), replays it.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err))
    {
      g_printerr ("mpeanim: %s\n", err->message);
      g_option_context_free (ctx);
      return 2;
    }
  g_option_context_free (ctx);
  if (argc > 2)
    {
      g_printerr ("mpeanim: one log at most\n");
      return 2;
    }
  if (opt_speed < 0.001 || opt_speed > 1000)
    {
      g_printerr ("mpeanim: --speed must be between 0.001 and 1000\n");
      return 2;
    }
  if (opt_export)
    {
      if (argc != 2)
        {
          g_printerr ("mpeanim: --export needs a log file\n");
          return 2;
        }
      return do_export (argv[1]);
    }
  if (!gtk_init_check (&argc, &argv))
    {
      g_printerr ("mpeanim: cannot open a display (use --export for "
                  "headless rendering)\n");
      return 1;
    }
  if (argc == 2)
    {
      AnimReplay *rp = anim_replay_open (argv[1], &err);
      if (!rp)
        {
          g_printerr ("mpeanim: %s\n", err->message);
          return 1;
        }
      AnimWindowOpts o = { .replay = rp, .speed = opt_speed,
                           .text_out = opt_text_out,
                           .selected = opt_select };
      int rc = anim_window_run (&o);
      anim_replay_free (rp);
      return rc;
    }
  return run_live ();
}

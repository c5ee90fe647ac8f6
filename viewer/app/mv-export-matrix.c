/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpeview --export-matrix OUT.png [--from T0 --to T1] FILE: the matrix
 * window's heat map, headless (the same model and drawing code), and
 * mpeview --bench-matrix FILE: how long the window takes to show it.
 */
#include "config.h"

#include <gio/gio.h>

#include "mv-export.h"
#include "../draw/mv-draw-matrix.h"
#include "../model/mv-matrix.h"

/* The heat map of [t0, t1] at w x h into a new image surface. */
static cairo_surface_t *
render (MvLog *log, guint64 t0, guint64 t1, MvMatrixWhat what, int w,
        int h, GError **error)
{
  MvMatrix *mm = mv_matrix_compute (log, t0, t1, FALSE, 0, error);
  if (mm == NULL)
    return NULL;
  MvMatrixLayout l;
  mv_matrix_layout (&l, w, h);
  MvMatrixGrid *g = mv_matrix_grid (mm, what, mv_matrix_layout_blocks (&l));
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr = cairo_create (s);
  mv_draw_matrix (cr, g, &l, what, -1, -1);
  cairo_destroy (cr);
  mv_matrix_grid_free (g);
  mv_matrix_free (mm);
  return s;
}

gboolean
mv_export_matrix_run (const MvExportOpts *o, GError **error)
{
  guint64 t0 = o->has_from ? o->from : 0;
  guint64 t1 = o->has_to ? o->to : G_MAXUINT64;
  if (t1 < t0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "--to must not be earlier than --from");
      return FALSE;
    }
  if (!g_str_has_suffix (o->output, ".png"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "--export-matrix writes PNG: %s does not end in .png",
                   o->output);
      return FALSE;
    }
  g_autoptr (MvLog) log = mv_export_open_log (o->input, error);
  if (log == NULL)
    return FALSE;
  cairo_surface_t *s = render (log, t0, t1, MV_MATRIX_COUNT,
                               o->width ? o->width : 800,
                               o->height ? o->height : 800, error);
  if (s == NULL)
    return FALSE;
  cairo_status_t st = cairo_surface_write_to_png (s, o->output);
  cairo_surface_destroy (s);
  if (st != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s",
                   o->output, cairo_status_to_string (st));
      return FALSE;
    }
  return TRUE;
}

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

int
mv_bench_matrix_run (const char *input, int width, int height)
{
  GError *error = NULL;
  double a = now_ms ();
  g_autoptr (MvLog) log = mv_export_open_log (input, &error);
  if (log == NULL)
    {
      g_printerr ("mpeview: %s\n", error->message);
      g_error_free (error);
      return 1;
    }
  double b = now_ms ();
  g_print ("matrix window %dx%d, %u ranks, %" G_GUINT64_FORMAT
           " messages\nopen %.1f ms\n", width, height,
           log->info->world_size, log->info->nmessages, b - a);
  /* The window's first image (whole run, counts), then the other
   * quantities and a selection of the middle tenth of the run. */
  guint64 lo = mv_log_t_first (log), hi = mv_log_t_last (log);
  struct
  {
    const char *what;
    MvMatrixWhat q;
    guint64 t0, t1;
  } runs[] = {
    { "first image (count)", MV_MATRIX_COUNT, 0, G_MAXUINT64 },
    { "bytes", MV_MATRIX_BYTES, 0, G_MAXUINT64 },
    { "time", MV_MATRIX_TIME, 0, G_MAXUINT64 },
    { "selection (10%)", MV_MATRIX_COUNT, lo + (hi - lo) / 20 * 9,
      lo + (hi - lo) / 20 * 11 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      double t = now_ms ();
      cairo_surface_t *s = render (log, runs[i].t0, runs[i].t1, runs[i].q,
                                   width, height, &error);
      if (s == NULL)
        {
          g_printerr ("mpeview: %s\n", error->message);
          g_error_free (error);
          return 1;
        }
      cairo_surface_flush (s);
      cairo_surface_destroy (s);
      g_print ("%-20s %.1f ms%s\n", runs[i].what, now_ms () - t,
               i == 0 ? " (+ open: the window's first image)" : "");
    }
  return 0;
}

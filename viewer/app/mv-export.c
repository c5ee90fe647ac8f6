/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "mv-export.h"
#include "../draw/mv-draw.h"
#include "../draw/mv-draw-samples.h"
#include "../model/mv-restracks.h"
#include "../model/mv-view.h"

#define DEFAULT_W 1600
#define MAX_AUTO_H 1400

gboolean
mv_parse_time (const char *s, guint64 *out)
{
  char *end = NULL;
  errno = 0;
  double v = g_ascii_strtod (s, &end);
  if (end == s || errno != 0 || !isfinite (v) || v < 0)
    return FALSE;
  while (*end == ' ')
    end++;
  double mult = 1e9;
  if (*end == '\0' || g_str_equal (end, "s"))
    mult = 1e9;
  else if (g_str_equal (end, "ms"))
    mult = 1e6;
  else if (g_str_equal (end, "us"))
    mult = 1e3;
  else if (g_str_equal (end, "ns"))
    mult = 1;
  else
    return FALSE;
  double ns = v * mult;
  if (ns >= 1.8e19)
    return FALSE;
  *out = (guint64) llround (ns);
  return TRUE;
}

typedef enum { FMT_PNG, FMT_SVG, FMT_PDF } Fmt;

static gboolean
format_of (const char *path, Fmt *f)
{
  char *lower = g_ascii_strdown (path, -1);
  gboolean ok = TRUE;
  if (g_str_has_suffix (lower, ".png"))
    *f = FMT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    *f = FMT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    *f = FMT_PDF;
  else
    ok = FALSE;
  g_free (lower);
  return ok;
}

static cairo_status_t
write_cb (void *closure, const unsigned char *data, unsigned int len)
{
  FILE *fp = closure;
  return fwrite (data, 1, len, fp) == len ? CAIRO_STATUS_SUCCESS
                                          : CAIRO_STATUS_WRITE_ERROR;
}

MvLog *
mv_export_open_log (const char *input, GError **error)
{
  MvLog *log = mv_log_open (input, NULL, NULL, error);
  if (log != NULL && log->warning)
    g_printerr ("mpeview: warning: %s\n", log->warning);
  return log;
}

gboolean
mv_export_check_size (const MvExportOpts *o, GError **error)
{
  if (o->width < 0 || o->height < 0 || o->width > 32767
      || o->height > 32767)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "--width/--height must be between 1 and 32767");
      return FALSE;
    }
  return TRUE;
}

MvGroups *
mv_export_groups (MvLog *log, MvGroupMode mode, int fold)
{
  MvGroups *g = mv_groups_new (log, mode);
  if (fold >= 0)
    mv_groups_set_all (g, fold == 1);
  return g;
}

gboolean
mv_export_run (const MvExportOpts *o, GError **error)
{
  Fmt fmt;
  if (!format_of (o->output, &fmt))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "%s: unknown output format (use .png, .svg or .pdf)",
                   o->output);
      return FALSE;
    }
  if (!mv_export_check_size (o, error))
    return FALSE;
  g_autoptr (MvLog) log = mv_export_open_log (o->input, error);
  if (log == NULL)
    return FALSE;

  guint64 lo = mv_log_t_first (log), hi = mv_log_t_last (log);
  guint64 t0 = o->has_from ? o->from : lo;
  guint64 t1 = o->has_to ? o->to : hi;
  if (t1 <= t0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "--to must be later than --from");
      return FALSE;
    }

  g_autoptr (MvGroups) groups = mv_export_groups (log, o->group, o->fold);
  guint nslots = mv_slots_count (log, mv_groups_slots (groups));
  /* Default height shows every row at full height, up to a limit. */
  MvLayout l;
  double w = o->width ? o->width : DEFAULT_W;
  /* The legend names each layer drawn. */
  guint layers = mv_legend_layer_items (o->sched,
                                        o->counter != NULL
                                        || o->track != NULL, o->samples)
                  + (o->waits ? 1 : 0);
  mv_layout_compute_layers (&l, log, w, 100, layers);
  double h = o->height;
  if (h == 0)
    h = MIN (l.ruler_h + l.legend_h + MAX (nslots, 1) * MV_DRAW_ROW_H + 8,
             MAX_AUTO_H);
  mv_layout_compute_layers (&l, log, w, h, layers);

  MvView v;
  mv_view_init (&v, MIN (lo, t0), MAX (hi, t1), l.plot_w);
  v.t0 = t0;
  v.t1 = t1;
  /* A given height is shared among the rows (few rows grow); the
   * default height gives each row the default. */
  double row_h = mv_layout_fit_row_h_slots (l.plot_h, nslots);
  if (o->height == 0)
    row_h = MIN (row_h, MV_DRAW_ROW_H);
  MvSceneParams p = {
    .t0 = t0, .t1 = t1, .width = (int) l.plot_w, .height = l.plot_h,
    .row_h = row_h, .y0 = 0, .force_lod = o->force_lod,
    .slots = mv_groups_slots (groups),
  };
  mv_view_clear (&v);
  if (o->counter != NULL)
    {
      size_t n = logfmt_reader_n_metrics (log->reader), i;
      for (i = 0; i < n; i++)
        if (g_strcmp0 (logfmt_reader_metric (log->reader, i)->name,
                       o->counter) == 0)
          break;
      if (i == n)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       "--counter: no metric named '%s' in %s", o->counter,
                       o->input);
          return FALSE;
        }
      p.show_metric = TRUE;
      p.metric = logfmt_reader_metric (log->reader, i)->id;
    }
  p.show_sched = o->sched;
  p.show_waits = o->waits;
  if (o->track != NULL)
    {
      p.restrack = g_str_equal (o->track, "memory") ? MV_RESTRACK_MEMORY
                   : g_str_equal (o->track, "network") ? MV_RESTRACK_NETWORK
                   : MV_RESTRACK_NONE;
      if (p.restrack == MV_RESTRACK_NONE)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "--track: memory or network, not '%s'", o->track);
          return FALSE;
        }
      if (!mv_restrack_log_has (log, p.restrack))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       "--track %s: %s has no %s records (log with %s=1)",
                       o->track, o->input, o->track,
                       p.restrack == MV_RESTRACK_MEMORY ? "MPE_MEMORY"
                       : "MPE_NETWORK");
          return FALSE;
        }
    }
  g_autoptr (MvSampleSource) samples = NULL;
  if (o->samples)
    {
      samples = mv_sample_source_new (log);
      p.samples = samples;
      p.sample_depth = o->sample_depth;
    }
  g_autoptr (GArray) marks = NULL;
  if (o->flame_select
      && !(marks = mv_export_flame_marks (log, t0, t1, o->ranks,
                                          o->flame_select, error)))
    return FALSE;
  g_autoptr (MvCache) cache = mv_cache_new (log);
  g_autoptr (MvScene) scene = mv_scene_compute (cache, &p, NULL, error);
  if (scene == NULL)
    return FALSE;

  FILE *fp = NULL;
  if (fmt != FMT_PNG)
    {
      fp = fopen (o->output, "wb");
      if (fp == NULL)
        {
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                       "%s: %s", o->output, g_strerror (errno));
          return FALSE;
        }
    }
  cairo_surface_t *surf =
    fmt == FMT_PNG ? cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                 (int) w, (int) h)
    : fmt == FMT_SVG ? cairo_svg_surface_create_for_stream (write_cb, fp, w, h)
    : cairo_pdf_surface_create_for_stream (write_cb, fp, w, h);
  cairo_t *cr = cairo_create (surf);
  MvDrawOpts dopts = { .highlight_state = -1 };
  mv_draw_timeline (cr, scene, &l, &dopts);
  if (marks)
    {
      cairo_save (cr);
      cairo_rectangle (cr, l.plot_x, l.plot_y, l.plot_w, l.plot_h);
      cairo_clip (cr);
      cairo_translate (cr, l.plot_x, l.plot_y);
      mv_draw_time_marks (cr, log, t0, t1, l.plot_w, l.plot_h, row_h, 0,
                          mv_groups_slots (groups),
                          (const MvTimeMark *) (gpointer) marks->data,
                          marks->len);
      cairo_restore (cr);
    }
  cairo_destroy (cr);
  cairo_status_t st;
  if (fmt == FMT_PNG)
    st = cairo_surface_write_to_png (surf, o->output);
  else
    {
      cairo_surface_finish (surf);
      st = cairo_surface_status (surf);
    }
  cairo_surface_destroy (surf);
  gboolean ok = st == CAIRO_STATUS_SUCCESS;
  if (fp != NULL && fclose (fp) != 0)
    ok = FALSE;
  fp = NULL;
  if (ok && scene->problem)
    {
      /* The image shows what could be read; the exit status says the
       * file is damaged. */
      g_set_error (error, MV_LOG_ERROR, 1, "%s: damaged: %s", o->input,
                   scene->problem);
      return FALSE;
    }
  if (!ok)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "%s: cannot write (%s)", o->output,
                   st != CAIRO_STATUS_SUCCESS ? cairo_status_to_string (st)
                   : g_strerror (errno));
      g_unlink (o->output);
      return FALSE;
    }
  return TRUE;
}

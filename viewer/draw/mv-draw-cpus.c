/* SPDX-License-Identifier: BSD-3-Clause */
/* The CPU view's drawing (the window and --export --cpus). */
#include "config.h"

#include <math.h>

#include <pango/pangocairo.h>

#include "mv-draw-cpus.h"
#include "../model/mv-view.h"

#define LABEL_W 190.0
#define RULER_H 30.0
#define LEGEND_H 28.0

static void
set_rgb (cairo_t *cr, guint32 c)
{
  cairo_set_source_rgb (cr, (c >> 16 & 0xff) / 255.0, (c >> 8 & 0xff) / 255.0,
                        (c & 0xff) / 255.0);
}

static void
text (cairo_t *cr, double x, double y, const char *s, gboolean bold)
{
  PangoLayout *pl = pango_cairo_create_layout (cr);
  PangoFontDescription *fd = pango_font_description_from_string
                               (bold ? "Sans Bold 8" : "Sans 8");
  pango_layout_set_font_description (pl, fd);
  pango_layout_set_text (pl, s, -1);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, pl);
  pango_font_description_free (fd);
  g_object_unref (pl);
}

void
mv_cpu_layout (MvCpuLayout *l, const MvCpuView *cv, double w, double h)
{
  l->label_w = LABEL_W;
  l->ruler_h = RULER_H;
  l->legend_h = LEGEND_H;
  l->plot_x = l->label_w;
  l->plot_y = l->ruler_h;
  l->plot_w = MAX (w - l->label_w - 12, 1);
  l->plot_h = MAX (h - l->ruler_h - l->legend_h, 1);
  l->row_h = cv->nrows ? MIN (MV_CPU_ROW_H, l->plot_h / cv->nrows)
                       : MV_CPU_ROW_H;
}

void
mv_draw_cpuview (cairo_t *cr, const MvCpuView *cv, const MvCpuLayout *l,
                 guint64 t0, guint64 t1)
{
  int w = (int) l->plot_w;
  cairo_save (cr);
  set_rgb (cr, 0xffffff);
  cairo_paint (cr);
  /* Ruler: the window's ends and middle. */
  set_rgb (cr, 0x555555);
  for (int k = 0; k <= 4; k++)
    {
      guint64 t = t0 + (guint64) ((double) (t1 - t0) * k / 4);
      char *s = g_strdup_printf ("%.3f ms", t / 1e6);
      double x = l->plot_x + w * k / 4.0;
      cairo_rectangle (cr, x - (k == 4), l->ruler_h - 6, 1, 6);
      cairo_fill (cr);
      text (cr, k == 4 ? x - 60 : k ? x - 25 : x + 2, 6, s, FALSE);
      g_free (s);
    }
  gint32 *px = g_new (gint32, MAX (w, 1));
  guint64 seen_ranks = 0;
  const char *last_host = NULL;
  for (guint r = 0; r < cv->nrows; r++)
    {
      const MvCpuRow *row = &cv->rows[r];
      double y = l->plot_y + r * l->row_h;
      if (y > l->plot_y + l->plot_h)
        break;
      if (r % 2)
        {
          set_rgb (cr, 0xf3f3f6);
          cairo_rectangle (cr, l->plot_x, y, w, l->row_h);
          cairo_fill (cr);
        }
      if (l->row_h >= 9)
        {
          char *lab = mv_cpuview_row_label (cv, r);
          if (row->shared_core)
            {
              char *x = g_strconcat (lab, " shared", NULL);
              g_free (lab);
              lab = x;
            }
          set_rgb (cr, 0x222222);
          text (cr, 6, y + (l->row_h - 12) / 2, lab,
                last_host == NULL || g_strcmp0 (last_host, row->host) != 0);
          g_free (lab);
        }
      last_host = row->host;
      mv_cpuview_pixels (cv, r, t0, t1, w, px);
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
      for (int x = 0; x < w;)
        {
          int e = x + 1;
          while (e < w && px[e] == px[x])
            e++;
          if (px[x] >= 0)
            {
              const logfmt_stream_def_t *sd =
                logfmt_reader_stream (cv->log->reader, (guint32) px[x]);
              if (sd && sd->rank >= 0 && sd->rank < 64)
                seen_ranks |= (guint64) 1 << sd->rank;
              set_rgb (cr, mv_cpuview_stream_rgb (cv->log, (guint32) px[x]));
              cairo_rectangle (cr, l->plot_x + x, floor (y) + 1, e - x,
                               MAX (floor (l->row_h) - 2, 1));
              cairo_fill (cr);
            }
          x = e;
        }
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
    }
  g_free (px);
  /* Legend: the colour of each rank seen (threads are lighter). */
  double lx = 6, ly = l->plot_y + l->plot_h + 8;
  for (guint32 s = 0; s < cv->log->info->nstreams && lx < l->plot_x + w;
       s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (cv->log->reader,
                                                            s);
      if (!sd || sd->thread != 0 || sd->rank < 0 || sd->rank >= 64
          || !(seen_ranks >> sd->rank & 1))
        continue;
      set_rgb (cr, mv_cpuview_stream_rgb (cv->log, s));
      cairo_rectangle (cr, lx, ly, 12, 12);
      cairo_fill (cr);
      char *lab = g_strdup_printf ("rank %d", sd->rank);
      set_rgb (cr, 0x222222);
      text (cr, lx + 16, ly - 1, lab, FALSE);
      g_free (lab);
      lx += 80;
    }
  cairo_restore (cr);
}

gint32
mv_cpuview_hit (const MvCpuView *cv, const MvCpuLayout *l, guint64 t0,
                guint64 t1, double x, double y, guint *row)
{
  if (x < l->plot_x || x >= l->plot_x + l->plot_w || y < l->plot_y)
    return -1;
  guint r = (guint) ((y - l->plot_y) / l->row_h);
  if (r >= cv->nrows)
    return -1;
  *row = r;
  int w = (int) l->plot_w;
  gint32 *px = g_new (gint32, MAX (w, 1));
  mv_cpuview_pixels (cv, r, t0, t1, w, px);
  gint32 s = px[MIN ((int) (x - l->plot_x), w - 1)];
  g_free (px);
  return s;
}

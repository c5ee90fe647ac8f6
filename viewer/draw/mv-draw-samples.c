/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>

#include "mv-draw-samples.h"

static void
set_rgb (cairo_t *cr, guint32 c)
{
  cairo_set_source_rgb (cr, ((c >> 16) & 0xff) / 255.0,
                        ((c >> 8) & 0xff) / 255.0, (c & 0xff) / 255.0);
}

void
mv_draw_sample_strips (cairo_t *cr, const MvScene *s)
{
  if (s->p.samples == NULL)
    return;
  cairo_save (cr);
  /* Exact colours: one function, one colour, pixel tests included. */
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  for (guint i = 0; i < s->nlanes; i++)
    {
      const MvLane *lane = &s->lanes[i];
      if (lane->sample_fn == NULL)
        continue;
      double y, h;
      mv_scene_sample_strip (lane, &y, &h);
      y = floor (y);
      /* A sub-track of its own, not a veil over the states. */
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_rectangle (cr, 0, y, s->p.width, h);
      cairo_fill (cr);
      for (int x = 0; x < s->p.width;)
        {
          guint32 f = lane->sample_fn[x];
          int e = x + 1;
          while (e < s->p.width && lane->sample_fn[e] == f)
            e++;
          if (f)
            {
              const char *name = mv_sample_source_func_name (s->p.samples,
                                                             f);
              set_rgb (cr, mv_sample_func_rgb (name));
              cairo_rectangle (cr, x, y, e - x, h);
              cairo_fill (cr);
            }
          x = e;
        }
    }
  cairo_restore (cr);
}

void
mv_draw_time_marks (cairo_t *cr, const MvLog *log, guint64 t0, guint64 t1,
                    double width, double height, double row_h, double y0,
                    const GArray *slots, const MvTimeMark *marks, guint n)
{
  if (n == 0 || t1 <= t0)
    return;
  double per = width / (double) (t1 - t0);
  double bar = MIN (3.0, MAX (floor (row_h / 4), 1));
  cairo_save (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  for (int pass = 0; pass < 2; pass++)
    {
      if (pass == 0)
        cairo_set_source_rgba (cr, 0.78, 0.06, 0.43, 0.18);
      else
        set_rgb (cr, MV_DRAW_MARK_RGB);
      for (guint i = 0; i < n; i++)
        {
          const MvTimeMark *m = &marks[i];
          if (m->stream >= log->info->nstreams || m->t1 <= t0
              || m->t0 >= t1)
            continue;
          double y = floor (mv_slots_find_row (slots,
                                               log->stream_row[m->stream])
                            * row_h - y0);
          if (y + row_h < 0 || y > height)
            continue;
          double a = m->t0 <= t0 ? 0 : floor ((double) (m->t0 - t0) * per);
          double b = m->t1 >= t1 ? width
                     : ceil ((double) (m->t1 - t0) * per);
          b = MAX (b, a + 1);
          if (pass == 0)
            cairo_rectangle (cr, a, y, b - a, floor (row_h));
          else
            cairo_rectangle (cr, a, y + floor (row_h) - bar, b - a, bar);
        }
      cairo_fill (cr);
    }
  cairo_restore (cr);
}

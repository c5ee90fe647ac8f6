/* SPDX-License-Identifier: BSD-3-Clause */
/* On/off-CPU shading: a strip at the top of each thread's row, cheap at
 * every zoom (one rectangle per pixel column that was off, from the
 * scene's per-column coverage); the states keep their colours. */
#include "config.h"

#include <math.h>

#include "mv-draw-sched.h"

#define R(c) (((c) >> 16 & 0xff) / 255.0)
#define G(c) (((c) >> 8 & 0xff) / 255.0)
#define B(c) (((c) & 0xff) / 255.0)

/* Height of the strip at a lane's top. */
static double
strip_h (double h)
{
  return MAX (2.0, floor (h * 0.2));
}

void
mv__draw_offcpu (cairo_t *cr, const MvScene *s)
{
  int w = s->p.width;
  cairo_save (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  for (guint i = 0; i < s->nlanes; i++)
    {
      const MvLane *lane = &s->lanes[i];
      if (lane->offcpu == NULL)
        continue;
      const guint8 *bl = lane->offcpu, *pr = lane->offcpu + w;
      double y = floor (lane->y), h = MAX (floor (lane->h), 1);
      double sh = MIN (strip_h (h), h);
      /* Only the strip: the states under it keep their colours (a veil
       * over them made the legend's colours wrong). */
      for (int x = 0; x < w; x++)
        {
          double fb = bl[x] / 255.0, fp = pr[x] / 255.0;
          if (fb + fp <= 0)
            continue;
          double f = MIN (fb + fp, 1.0);
          /* The strip: the reason's colour, mixed with white. */
          double wgt = 1.0 - f;
          cairo_set_source_rgb (cr,
                                wgt + R (MV_OFFCPU_BLOCKED_RGB) * fb
                                + R (MV_OFFCPU_PREEMPTED_RGB) * fp,
                                wgt + G (MV_OFFCPU_BLOCKED_RGB) * fb
                                + G (MV_OFFCPU_PREEMPTED_RGB) * fp,
                                wgt + B (MV_OFFCPU_BLOCKED_RGB) * fb
                                + B (MV_OFFCPU_PREEMPTED_RGB) * fp);
          cairo_rectangle (cr, x, y, 1, sh);
          cairo_fill (cr);
        }
    }
  cairo_restore (cr);
}

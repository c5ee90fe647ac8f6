/* SPDX-License-Identifier: BSD-3-Clause */
/* Sample strips: in the upper part of each thread's lane, the function
 * the call-path samples of each pixel column were in (mv-samples.h).
 * Only the track chunks overlapping the window are read; a column
 * holding many samples shows the function most of them were in. */
#include "config.h"

#include <math.h>

#include "mv-scene-build.h"

void
mv_scene_sample_strip (const MvLane *lane, double *y, double *h)
{
  *h = MAX (floor (lane->h * 0.3), 1);
  *y = lane->y;
}

void
mv__scene_samples (MvScene *s)
{
  const MvSceneParams *p = &s->p;
  if (p->samples == NULL)
    return;
  for (guint i = 0; i < s->nlanes; i++)
    {
      MvLane *lane = &s->lanes[i];
      /* Lanes that hold several threads have no one stack to show. */
      if (lane->row_count != 1)
        continue;
      guint32 stream = s->log->rows[lane->row_first].stream;
      guint32 *fn = g_new (guint32, p->width);
      char *problem = NULL;
      if (!mv_sample_source_lane (p->samples, stream, p->t0, p->t1, p->width,
                                  p->sample_depth, fn, NULL, &problem))
        mv__scene_problem (s, problem);
      gboolean any = FALSE;
      for (int x = 0; x < p->width && !any; x++)
        any = fn[x] != 0;
      if (any)
        lane->sample_fn = fn;
      else
        g_free (fn);
    }
}

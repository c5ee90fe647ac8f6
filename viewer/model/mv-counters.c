/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter tracks: one metric's values per pixel column under each lane
 * of one process, from the file's metric summaries when zoomed out
 * (logfmt_reader_metric_bins reads the coarsest level that resolves a
 * pixel), so a zoomed-out track of a billion samples reads a few
 * summary chunks. */
#include "config.h"

#include "mv-scene-build.h"

void
mv__scene_counters (MvScene *s)
{
  const MvSceneParams *p = &s->p;
  if (!p->show_metric)
    return;
  for (guint i = 0; i < s->nlanes; i++)
    {
      MvLane *lane = &s->lanes[i];
      /* Lanes that hold several processes have no one value to show. */
      if (lane->row_count != 1)
        continue;
      guint32 stream = s->log->rows[lane->row_first].stream;
      logfmt_metric_bin_t *bins = g_new0 (logfmt_metric_bin_t, p->width);
      if (logfmt_reader_metric_bins (s->log->reader, stream, p->metric, -1,
                                     p->t0, p->t1, (guint32) p->width, bins,
                                     NULL, NULL) < 0)
        {
          g_free (bins);
          continue;
        }
      gboolean any = FALSE;
      for (int x = 0; x < p->width; x++)
        if (bins[x].known)
          {
            if (!s->counter_known)
              s->counter_lo = bins[x].min, s->counter_hi = bins[x].max;
            s->counter_lo = MIN (s->counter_lo, bins[x].min);
            s->counter_hi = MAX (s->counter_hi, bins[x].max);
            s->counter_known = any = TRUE;
          }
      if (any)
        lane->counter = bins;
      else
        g_free (bins);
    }
}

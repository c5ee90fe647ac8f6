/* SPDX-License-Identifier: BSD-3-Clause */
/* What the fuzz targets do with an image: open it from memory (strict or
 * tolerant), iterate every stream, its intervals and summary, messages,
 * tracks and metric bins, and every rank's call-path tables. */
#include "logfmt-reader-internal.h"

#include <stdlib.h>

void logfmt_fuzz_exercise (const uint8_t *data, size_t size,
                           unsigned flags);

void
logfmt_fuzz_exercise (const uint8_t *data, size_t size, unsigned flags)
{
  logfmt_reader_t *r;
  logfmt_error_t e;
  if (logfmt__reader_open_mem (data, size, "fuzz", flags, &r, &e))
    return;
  const logfmt_info_t *inf = logfmt_reader_info (r);
  size_t ns = logfmt_reader_n_states (r);
  float *occ = malloc (16 * (ns + 1) * sizeof *occ);
  uint32_t evc[16];
  for (uint32_t s = 0; s < inf->nstreams && s < 64; s++)
    {
      logfmt_iter_t *it;
      if (logfmt_iter_new (r, s, 0, UINT64_MAX, &it) == 0)
        {
          logfmt_event_t ev;
          while (logfmt_iter_next (it, &ev) == 1)
            ;
          logfmt_iter_free (it);
        }
      if (occ)
        logfmt_reader_summary (r, s, inf->t_first, inf->t_last + 1, 16, occ,
                               evc, NULL, &e);
      logfmt_interval_iter_t *ii;
      if (logfmt_interval_iter_new (r, s, 0, UINT64_MAX, &ii) == 0)
        {
          logfmt_interval_t iv;
          while (logfmt_interval_iter_next (ii, &iv) == 1)
            ;
          logfmt_interval_iter_free (ii);
        }
    }
  free (occ);
  int32_t ranks[8];
  size_t nr = logfmt_reader_callpath_ranks (r, ranks, 8);
  for (size_t i = 0; i < nr && i < 8; i++)
    {
      logfmt_callpaths_t *cp;
      if (logfmt_reader_callpaths (r, ranks[i], &cp, &e) == 0)
        logfmt_callpaths_free (cp);
    }
  /* Extension tracks: every stream's metric track, read whole and
   * drawn into bins (FORMAT.md section 14). */
  for (uint32_t s = 0; s < inf->nstreams && s < 64; s++)
    {
      logfmt_track_iter_t *ti;
      if (logfmt_track_iter_new (r, s, LOGFMT_TRACK_METRIC, 0, UINT64_MAX,
                                 &ti) == 0)
        {
          logfmt_track_rec_t rec;
          while (logfmt_track_iter_next (ti, &rec) == 1)
            ;
          logfmt_track_iter_free (ti);
        }
      logfmt_metric_bin_t bins[16];
      logfmt_reader_metric_bins (r, s, 0, -1, 0, UINT64_MAX / 2, 16, bins,
                                 NULL, &e);
      logfmt_reader_metric_bins (r, s, 0, -1, 0, 1024, 16, bins, NULL, &e);
    }
  logfmt_msg_iter_t *mi;
  if (logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi) == 0)
    {
      logfmt_message_t m;
      while (logfmt_msg_iter_next (mi, &m) == 1)
        ;
      logfmt_msg_iter_free (mi);
    }
  logfmt_reader_close (r);
}


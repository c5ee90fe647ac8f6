/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory and network tracks as counter tracks, per pixel column. */
#include "config.h"

#include "mv-restracks.h"
#include "mv-scene-build.h"
#include "mv-view.h"

#define MAX_NICS 16

gboolean
mv_restrack_log_has (const MvLog *log, MvResTrack which)
{
  logfmt_track_info_t ti;
  guint32 kind = which == MV_RESTRACK_MEMORY ? LOGFMT_TRACK_MEMORY
                 : LOGFMT_TRACK_NETWORK;
  return which != MV_RESTRACK_NONE
         && logfmt_reader_track_info (log->reader, LOGFMT_NO_STREAM, kind,
                                      &ti) == 0 && ti.records > 0;
}

const char *
mv_restrack_name (MvResTrack which)
{
  return which == MV_RESTRACK_MEMORY ? "Memory: live bytes per process"
         : which == MV_RESTRACK_NETWORK ? "Network: NIC bytes/s per host"
         : "";
}

gboolean
mv_track_last_before (const MvLog *log, guint32 stream, guint32 kind,
                      guint64 t, guint64 step,
                      gboolean (*want) (const logfmt_track_rec_t *),
                      logfmt_track_rec_t *rec)
{
  logfmt_track_info_t ti;
  if (logfmt_reader_track_info (log->reader, stream, kind, &ti) != 0
      || ti.records == 0 || t <= ti.t_first)
    return FALSE;
  for (guint64 d = MAX (step, 1);; d = d > G_MAXUINT64 / 4 ? G_MAXUINT64
                                                           : d * 4)
    {
      guint64 a = t > d ? t - d : 0;
      logfmt_track_iter_t *it;
      if (logfmt_track_iter_new (log->reader, stream, kind, a, t, &it) != 0)
        return FALSE;
      gboolean found = FALSE;
      logfmt_track_rec_t x;
      int rc;
      while ((rc = logfmt_track_iter_next (it, &x)) == 1)
        if (!want || want (&x))
          {
            *rec = x;
            found = TRUE;
          }
      logfmt_track_iter_free (it);
      if (rc < 0)
        return FALSE;
      if (found || a <= ti.t_first)
        return found;
    }
}

static gboolean
process_total (const logfmt_track_rec_t *r)
{
  return r->col[LOGFMT_MEMORY_COL_CELL] == -1;
}

/* A sample: value v from time t on, into the column of t (the columns
 * after it are filled by bins_finish). */
static void
bins_set (logfmt_metric_bin_t *b, int width, const MvTimeMap *m, guint64 t,
          gint64 v)
{
  int x = (int) mv_time_map_x (m, t);
  x = CLAMP (x, 0, width - 1);
  if (!b[x].samples)
    b[x].min = b[x].max = v;
  b[x].min = MIN (b[x].min, v);
  b[x].max = MAX (b[x].max, v);
  b[x].last = v;
  b[x].samples++;
  b[x].known = 1;
}

/* Carries each value on to the next sample: a column holds the value
 * it began with too. */
static void
bins_finish (logfmt_metric_bin_t *b, int width, gboolean carry_known,
             gint64 carry)
{
  for (int x = 0; x < width; x++)
    {
      if (b[x].samples)
        {
          if (carry_known)
            {
              b[x].min = MIN (b[x].min, carry);
              b[x].max = MAX (b[x].max, carry);
            }
          carry = b[x].last;
          carry_known = TRUE;
        }
      else if (carry_known)
        {
          b[x].min = b[x].max = b[x].last = carry;
          b[x].known = 1;
        }
    }
}

/* The memory track of a stream: its process total, carried in. */
static gboolean
memory_bins (const MvScene *s, guint32 stream, logfmt_metric_bin_t *b)
{
  const MvSceneParams *p = &s->p;
  logfmt_track_info_t ti;
  if (logfmt_reader_track_info (s->log->reader, stream, LOGFMT_TRACK_MEMORY,
                                &ti) != 0 || ti.records == 0)
    return FALSE;
  logfmt_track_rec_t rec;
  gboolean in = mv_track_last_before (s->log, stream, LOGFMT_TRACK_MEMORY,
                                      p->t0, p->t1 - p->t0, process_total,
                                      &rec);
  gint64 carry = in ? rec.col[LOGFMT_MEMORY_COL_LIVE] : 0;
  gboolean any = in;
  logfmt_track_iter_t *it;
  if (logfmt_track_iter_new (s->log->reader, stream, LOGFMT_TRACK_MEMORY,
                             p->t0, p->t1, &it) == 0)
    {
      while (logfmt_track_iter_next (it, &rec) == 1)
        if (process_total (&rec))
          {
            bins_set (b, p->width, &s->map, rec.time,
                      rec.col[LOGFMT_MEMORY_COL_LIVE]);
            any = TRUE;
          }
      logfmt_track_iter_free (it);
    }
  bins_finish (b, p->width, in, carry);
  return any;
}

/* The network track of a stream: bytes per second, received plus sent
 * over every interface, from one sample of an interface to its next. */
static gboolean
network_bins (const MvScene *s, guint32 stream, logfmt_metric_bin_t *b)
{
  const MvSceneParams *p = &s->p;
  logfmt_track_info_t ti;
  if (logfmt_reader_track_info (s->log->reader, stream, LOGFMT_TRACK_NETWORK,
                                &ti) != 0 || ti.records == 0)
    return FALSE;
  /* Start a sampling period or two early, so the first rate in the
   * window is known. */
  guint64 back = ti.records > 1 ? (ti.t_last - ti.t_first) / (ti.records - 1)
                                  * 2 * MAX_NICS : 0;
  guint64 a = p->t0 > back ? p->t0 - back : 0;
  logfmt_track_iter_t *it;
  if (logfmt_track_iter_new (s->log->reader, stream, LOGFMT_TRACK_NETWORK, a,
                             p->t1, &it) != 0)
    return FALSE;
  gint64 nic[MAX_NICS], bytes[MAX_NICS];
  guint64 when[MAX_NICS];
  double rate[MAX_NICS];
  int nn = 0;
  gboolean any = FALSE;
  logfmt_track_rec_t rec;
  while (logfmt_track_iter_next (it, &rec) == 1)
    {
      int k = 0;
      while (k < nn && nic[k] != rec.col[LOGFMT_NETWORK_COL_NIC])
        k++;
      gint64 by = rec.col[LOGFMT_NETWORK_COL_RXB]
                  + rec.col[LOGFMT_NETWORK_COL_TXB];
      if (k == nn)
        {
          if (nn == MAX_NICS)
            continue;
          nic[nn] = rec.col[LOGFMT_NETWORK_COL_NIC];
          rate[nn] = 0;
          nn++;
        }
      else if (rec.time > when[k])
        {
          rate[k] = (double) (by - bytes[k]) * 1e9 / (rec.time - when[k]);
          double sum = 0;
          for (int i = 0; i < nn; i++)
            sum += rate[i];
          /* The rate holds over the period that ends here. */
          guint64 from = MAX (when[k], p->t0);
          if (rec.time >= p->t0)
            {
              bins_set (b, p->width, &s->map, from, (gint64) sum);
              any = TRUE;
            }
        }
      bytes[k] = by;
      when[k] = rec.time;
    }
  logfmt_track_iter_free (it);
  bins_finish (b, p->width, FALSE, 0);
  return any;
}

void
mv__scene_restracks (MvScene *s)
{
  const MvSceneParams *p = &s->p;
  if (p->restrack == MV_RESTRACK_NONE)
    return;
  for (guint i = 0; i < s->nlanes; i++)
    {
      MvLane *lane = &s->lanes[i];
      if (lane->row_count != 1 || lane->counter != NULL)
        continue;
      guint32 stream = s->log->rows[lane->row_first].stream;
      logfmt_metric_bin_t *bins = g_new0 (logfmt_metric_bin_t, p->width);
      gboolean any = p->restrack == MV_RESTRACK_MEMORY
                     ? memory_bins (s, stream, bins)
                     : network_bins (s, stream, bins);
      for (int x = 0; any && x < p->width; x++)
        if (bins[x].known)
          {
            if (!s->counter_known)
              s->counter_lo = bins[x].min, s->counter_hi = bins[x].max;
            s->counter_lo = MIN (s->counter_lo, bins[x].min);
            s->counter_hi = MAX (s->counter_hi, bins[x].max);
            s->counter_known = TRUE;
          }
      if (any)
        lane->counter = bins;
      else
        g_free (bins);
    }
}

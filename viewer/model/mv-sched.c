/* SPDX-License-Identifier: BSD-3-Clause */
/* On/off-CPU coverage per pixel column from a thread's switch track. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "analysis/an-sched.h"
#include "mv-scene-build.h"
#include "mv-sched.h"
#include "mv-view.h"

gboolean
mv_sched_log_has (const MvLog *log)
{
  return an_sched_file_has_switches (log->reader);
}

/* The last record of the track before t (looking back further and
 * further from t, so a window reads a chunk or two): TRUE and *rec, or
 * FALSE if the track has none before t (or cannot be read). */
static gboolean
last_before (const MvLog *log, guint32 stream, guint64 t, guint64 t_first,
             guint64 step, logfmt_track_rec_t *rec)
{
  if (t <= t_first)
    return FALSE;
  for (guint64 d = MAX (step, 1);; d = d > G_MAXUINT64 / 4 ? G_MAXUINT64
                                                           : d * 4)
    {
      guint64 a = t > d ? t - d : 0;
      logfmt_track_iter_t *it;
      if (logfmt_track_iter_new (log->reader, stream, LOGFMT_TRACK_SWITCH,
                                 a, t, &it) != 0)
        return FALSE;
      gboolean found = FALSE;
      logfmt_track_rec_t x;
      int rc;
      while ((rc = logfmt_track_iter_next (it, &x)) == 1)
        {
          *rec = x;
          found = TRUE;
        }
      logfmt_track_iter_free (it);
      if (rc < 0)
        return FALSE;
      if (found || a <= t_first)
        return found;
    }
}

/* Adds the off-CPU stretch [a, b) to the columns it covers. */
static void
add_off (const MvTimeMap *m, float *acc, int width, guint64 a, guint64 b)
{
  if (b <= a)
    return;
  double x0 = mv_time_map_x (m, a), x1 = mv_time_map_x (m, b);
  x0 = MAX (x0, 0);
  x1 = MIN (x1, width);
  for (int x = (int) floor (x0); x < width && x < x1; x++)
    {
      double l = MAX (x0, x), r = MIN (x1, x + 1.0);
      if (r > l && x >= 0)
        acc[x] += (float) (r - l);
    }
}

gboolean
mv_sched_offcpu (const MvLog *log, guint32 stream, guint64 t0, guint64 t1,
                 int width, guint8 *blocked, guint8 *preempted)
{
  logfmt_track_info_t ti;
  if (width <= 0 || t1 <= t0
      || logfmt_reader_track_info (log->reader, stream, LOGFMT_TRACK_SWITCH,
                                   &ti) != 0 || ti.records == 0)
    return FALSE;
  MvTimeMap m = mv_time_map (t0, t1, width);
  float *acc = g_new0 (float, (gsize) width * 2);
  float *accb = acc, *accp = acc + width;
  /* Running when the window begins?  As an_sched_thread_load: before
   * its first record a thread ran (unless that record switches it in,
   * and then its window begins there). */
  logfmt_track_rec_t rec;
  gboolean on = TRUE;
  int why = AN_SCHED_OUT_BLOCKED;
  guint64 since = t0;
  if (last_before (log, stream, t0, ti.t_first, t1 - t0, &rec))
    {
      on = rec.col[LOGFMT_SWITCH_COL_WHAT] == AN_SCHED_IN;
      why = (int) rec.col[LOGFMT_SWITCH_COL_WHAT];
    }
  logfmt_track_iter_t *it;
  gboolean okay = logfmt_track_iter_new (log->reader, stream,
                                         LOGFMT_TRACK_SWITCH, t0, t1,
                                         &it) == 0;
  int rc = 0;
  while (okay && (rc = logfmt_track_iter_next (it, &rec)) == 1)
    {
      int what = (int) rec.col[LOGFMT_SWITCH_COL_WHAT];
      if (what == AN_SCHED_IN && !on)
        {
          add_off (&m, why == AN_SCHED_OUT_PREEMPTED ? accp : accb, width,
                   since, rec.time);
          on = TRUE;
        }
      else if ((what == AN_SCHED_OUT_BLOCKED
                || what == AN_SCHED_OUT_PREEMPTED) && on)
        {
          on = FALSE;
          since = rec.time;
        }
      if (what != AN_SCHED_IN)
        why = what;
    }
  if (okay)
    logfmt_track_iter_free (it);
  okay = okay && rc >= 0;
  /* Still off at the window's end: up to it, or to the track's last
   * record (the thread logs nothing while off, so it ends there). */
  if (okay && !on)
    add_off (&m, why == AN_SCHED_OUT_PREEMPTED ? accp : accb, width, since,
             MIN (t1, MAX (ti.t_last, since)));
  if (okay)
    for (int x = 0; x < width; x++)
      {
        blocked[x] = (guint8) lrintf (CLAMP (accb[x], 0, 1) * 255);
        preempted[x] = (guint8) lrintf (CLAMP (accp[x], 0, 1) * 255);
      }
  g_free (acc);
  return okay;
}

void
mv__scene_sched (MvScene *s)
{
  if (!s->p.show_sched)
    return;
  for (guint i = 0; i < s->nlanes; i++)
    {
      MvLane *lane = &s->lanes[i];
      /* A lane of several threads has no one schedule to show. */
      if (lane->row_count != 1)
        continue;
      guint32 stream = s->log->rows[lane->row_first].stream;
      guint8 *v = g_new (guint8, (gsize) s->p.width * 2);
      if (mv_sched_offcpu (s->log, stream, s->p.t0, s->p.t1, s->p.width, v,
                           v + s->p.width))
        lane->offcpu = v;
      else
        g_free (v);
    }
}

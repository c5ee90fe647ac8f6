/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mv-stats.h"

int
mv_hist_bin (guint64 d)
{
  if (d <= 1)
    return 0;
  /* Exact decade boundaries: compare against the bin bounds. */
  int b = (int) floor (log10 ((double) d) * MV_HIST_PER_DECADE);
  b = CLAMP (b, 0, MV_HIST_BINS - 1);
  while (b + 1 < MV_HIST_BINS && d >= mv_hist_bin_lo (b + 1))
    b++;
  while (b > 0 && d < mv_hist_bin_lo (b))
    b--;
  return b;
}

guint64
mv_hist_bin_lo (int bin)
{
  if (bin <= 0)
    return 0;
  return (guint64) ceil (pow (10.0, (double) bin / MV_HIST_PER_DECADE)
                         - 1e-9);
}

void
mv_stats_free (MvStats *st)
{
  if (st == NULL)
    return;
  mv_log_unref (st->log);
  g_free (st->ranks);
  g_free (st->cells);
  g_free (st->hist);
  g_free (st->ev_count);
  g_free (st);
}

const MvStatCell *
mv_stats_cell (const MvStats *st, guint state, int rank_index)
{
  guint col = rank_index < 0 ? st->nranks : (guint) rank_index;
  return &st->cells[(gsize) state * (st->nranks + 1) + col];
}

static void
add (MvStatCell *c, guint64 dur, guint64 excl)
{
  if (c->count == 0 || dur < c->min)
    c->min = dur;
  if (dur > c->max)
    c->max = dur;
  c->count++;
  c->incl += dur;
  c->excl += excl;
}

/* One pass over a stream's records: every instance closed by an END is
 * passed to fn (in END order), by logfmt's state-interval rule
 * (FORMAT.md section 13: an END closes the innermost open instance of
 * its own state); solo events to solo.  *unmatched (may be NULL) adds
 * the ENDs that closed nothing, the BEGINs beyond the depth limit and
 * the instances left open at the stream's end (none is in the table). */
typedef void (*InstanceFunc) (gpointer user, const logfmt_interval_t *iv);
typedef void (*SoloFunc) (gpointer user, const logfmt_event_t *ev);

/* Progress of a pass over many streams: stream i of n covers
 * [i/n, (i+1)/n), inside it the time reached in [t0, t1].  The caller's
 * function may stop the pass (TRUE), as cancelling would. */
typedef struct
{
  MvProgressFunc func;
  gpointer       user;
  GCancellable  *cancellable;
  guint          i, n;
  guint64        t0, t1;
  gboolean       stopped;
} Progress;

/* TRUE when the pass must stop. */
static gboolean
progress_at (Progress *p, guint64 t)
{
  if (g_cancellable_is_cancelled (p->cancellable))
    p->stopped = TRUE;
  if (p->func && !p->stopped)
    {
      double in = t <= p->t0 || p->t1 <= p->t0 ? 0
                  : MIN ((double) (t - p->t0) / (double) (p->t1 - p->t0), 1);
      p->stopped = p->func (p->user, (p->i + in) / MAX (p->n, 1));
    }
  return p->stopped;
}

/* The cancellation error for a pass stopped by either means. */
static gboolean
progress_stopped (Progress *p, GError **error)
{
  if (!p->stopped && !g_cancellable_is_cancelled (p->cancellable))
    return FALSE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                       "Operation was cancelled");
  return TRUE;
}

static int
scan_stream (const MvLog *log, guint32 stream, InstanceFunc fn,
             SoloFunc solo, gpointer user, guint64 *unmatched,
             Progress *progress)
{
  logfmt_iter_t *it = NULL;
  logfmt_state_tracker_t *tr = NULL;
  int rc = logfmt_iter_new (log->reader, stream, 0, G_MAXUINT64, &it);
  if (rc == 0)
    rc = logfmt_state_tracker_new (log->nstates, stream, &tr);
  if (rc != 0)
    {
      logfmt_iter_free (it);
      return rc;
    }
  logfmt_event_t buf[256];
  logfmt_interval_t iv;
  guint64 bad = 0, batches = 0;
  long got;
  while ((got = logfmt_iter_next_batch (it, buf, G_N_ELEMENTS (buf))) > 0)
    {
      if ((++batches & 255) == 0 && progress_at (progress, buf[0].time))
        {
          got = LOGFMT_ESTATE;
          break;
        }
      for (long i = 0; i < got; i++)
        {
          const logfmt_event_t *ev = &buf[i];
          if (ev->kind == LOGFMT_KIND_SOLO)
            {
              if (solo)
                solo (user, ev);
              continue;
            }
          int step = logfmt_state_tracker_apply (tr, ev, &iv, NULL);
          if (step == LOGFMT_STEP_CLOSED)
            fn (user, &iv);
          else if (step == LOGFMT_STEP_UNMATCHED_END
                   || (step == LOGFMT_STEP_TOO_DEEP
                       && ev->kind == LOGFMT_KIND_BEGIN))
            bad++;
          else if (step < 0)
            {
              got = step;
              goto out;
            }
        }
    }
out:
  if (unmatched)
    *unmatched += bad + logfmt_state_tracker_depth (tr);
  logfmt_state_tracker_free (tr);
  logfmt_iter_free (it);
  return got < 0 ? (int) got : 0;
}

typedef struct
{
  MvStats *st;
  guint    rank_index;
} StatsCtx;

static void
stats_instance (gpointer user, const logfmt_interval_t *iv)
{
  StatsCtx *c = user;
  MvStats *st = c->st;
  if (iv->start < st->t0 || iv->start > st->t1 || iv->state < 0
      || (guint) iv->state >= st->nstates)
    return;
  gsize base = (gsize) iv->state * (st->nranks + 1);
  add (&st->cells[base + c->rank_index], iv->inclusive, iv->exclusive);
  add (&st->cells[base + st->nranks], iv->inclusive, iv->exclusive);
  st->hist[(gsize) iv->state * MV_HIST_BINS
           + mv_hist_bin (iv->inclusive)]++;
}

static void
stats_solo (gpointer user, const logfmt_event_t *ev)
{
  StatsCtx *c = user;
  if (ev->time < c->st->t0 || ev->time > c->st->t1)
    return;
  int d = mv_log_find_evdef (c->st->log, ev->id);
  if (d >= 0)
    c->st->ev_count[d]++;
}

MvStats *
mv_stats_compute (MvLog *log, guint64 t0, guint64 t1,
                  MvProgressFunc progress, gpointer user,
                  GCancellable *cancellable, GError **error)
{
  Progress pr = { progress, user, cancellable, 0, log->nrows,
                  mv_log_t_first (log), MIN (t1, mv_log_t_last (log)) };
  MvStats *st = g_new0 (MvStats, 1);
  st->log = mv_log_ref (log);
  st->t0 = t0;
  st->t1 = t1;
  st->nstates = log->nstates;
  st->ranks = g_new (gint32, MAX (log->nrows, 1));
  for (guint i = 0; i < log->nrows; i++)
    if (i == 0 || log->rows[i].rank != log->rows[i - 1].rank)
      st->ranks[st->nranks++] = log->rows[i].rank;
  st->cells = g_new0 (MvStatCell, (gsize) MAX (st->nstates, 1)
                                  * (st->nranks + 1));
  st->hist = g_new0 (guint64, (gsize) MAX (st->nstates, 1) * MV_HIST_BINS);
  st->ev_count = g_new0 (guint64, MAX (log->nevdefs, 1));
  guint ri = 0;
  for (guint i = 0; i < log->nrows; i++)
    {
      if (i > 0 && log->rows[i].rank != log->rows[i - 1].rank)
        ri++;
      /* Instances are kept by begin time; the whole stream is read
       * (what is open at t0 depends on every record before it). */
      StatsCtx c = { st, ri };
      pr.i = i;
      int rc = progress_at (&pr, 0) ? 0
               : scan_stream (log, log->rows[i].stream, stats_instance,
                              stats_solo, &c, &st->unmatched, &pr);
      if (progress_stopped (&pr, error))
        {
          mv_stats_free (st);
          return NULL;
        }
      if (rc != 0)
        {
          g_set_error (error, MV_LOG_ERROR, -rc, "rank %d: %s",
                       log->rows[i].rank, logfmt_strerror (rc));
          mv_stats_free (st);
          return NULL;
        }
    }
  if (progress)
    progress (user, 1.0);
  return st;
}

static int
inst_cmp (gconstpointer a, gconstpointer b)
{
  const MvInstance *x = a, *y = b;
  return x->t_begin < y->t_begin ? -1 : x->t_begin > y->t_begin;
}

GArray *
mv_stats_instances (MvLog *log, gint32 state, int bin, guint64 t0,
                    guint64 t1, guint max, GCancellable *cancellable)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (MvInstance));
  logfmt_interval_iter_t *it = NULL;
  logfmt_interval_t iv;
  for (guint i = 0; i < log->nrows && out->len < max; i++)
    {
      guint32 stream = log->rows[i].stream;
      int rc = it ? logfmt_interval_iter_reset (it, stream, t0, t1)
               : logfmt_interval_iter_new (log->reader, stream, t0, t1, &it);
      if (rc != 0 || g_cancellable_is_cancelled (cancellable))
        break;
      /* Instances closed by an END that begin in [t0, t1], as the
       * statistics count them. */
      while (out->len < max && logfmt_interval_iter_next (it, &iv) == 1)
        if (iv.state == state && !(iv.flags & LOGFMT_IV_OPEN)
            && iv.start >= t0 && iv.start <= t1
            && (bin < 0 || mv_hist_bin (iv.inclusive) == bin))
          {
            MvInstance in = { stream, iv.start, iv.end };
            g_array_append_val (out, in);
          }
    }
  logfmt_interval_iter_free (it);
  g_array_sort (out, inst_cmp);
  return out;
}

/* First BEGIN of state in [a, b] on a stream (forward), or the last. */
static gboolean
find_in (const MvLog *log, logfmt_iter_t **itp, guint32 stream, gint32 state,
         guint64 a, guint64 b, gboolean forward, guint64 *t)
{
  /* One iterator for the whole search (a new one per stream costs its
   * buffers and decoder each: most of the time with 100,000 streams). */
  logfmt_iter_t *it = *itp;
  if ((it ? logfmt_iter_reset (it, stream, a, b)
       : logfmt_iter_new (log->reader, stream, a, b, itp)) != 0)
    return FALSE;
  it = *itp;
  logfmt_event_t ev;
  gboolean found = FALSE;
  while (logfmt_iter_next (it, &ev) == 1)
    if (ev.kind == LOGFMT_KIND_BEGIN && ev.state == state
        && ev.time >= a && ev.time <= b)
      {
        *t = ev.time;
        found = TRUE;
        if (forward)
          break;
      }
  return found;
}

gboolean
mv_search_state (MvLog *log, gint32 state, guint64 from, gboolean forward,
                 MvInstance *out, MvProgressFunc progress, gpointer user,
                 GCancellable *cancellable)
{
  guint64 lo = 0, hi = mv_log_t_last (log);
  gboolean found = FALSE;
  /* Progress: the part of the time left to search that is searched,
   * streams by streams inside each window. */
  Progress pr = { progress, user, cancellable, 0, log->nrows };
  logfmt_iter_t *rit = NULL;
  if (forward)
    {
      if (from >= hi)
        return FALSE;
      /* Windows growing from `from` keep a near hit cheap. */
      guint64 w = MAX ((hi - lo) / 4096, 1000);
      guint64 a = from + 1;
      while (!found && a <= hi)
        {
          guint64 b = a + w > hi || a + w < a ? hi : a + w;
          pr.t0 = from;
          pr.t1 = hi;
          for (guint s = 0; s < log->nrows && !pr.stopped; s++)
            {
              guint64 t;
              pr.i = 0;
              pr.n = 1;
              if ((s & 63) == 0)
                progress_at (&pr, a + (b - a) / log->nrows * s);
              if (find_in (log, &rit, s, state, a, b, TRUE, &t)
                  && (!found || t < out->t_begin))
                {
                  found = TRUE;
                  out->stream = s;
                  out->t_begin = t;
                }
            }
          if (pr.stopped || b == hi)
            break;
          a = b + 1;
          w *= 4;
        }
    }
  else
    {
      if (from == 0)
        return FALSE;
      guint64 w = MAX ((hi - lo) / 4096, 1000);
      guint64 b = from - 1;
      for (;;)
        {
          guint64 a = b > w ? b - w : 0;
          pr.t0 = 0;
          pr.t1 = from;
          for (guint s = 0; s < log->nrows && !pr.stopped; s++)
            {
              guint64 t;
              pr.i = 0;
              pr.n = 1;
              /* Backwards: the time searched is from - (where we are). */
              if ((s & 63) == 0)
                progress_at (&pr, from - (b - (b - a) / log->nrows * s));
              if (find_in (log, &rit, s, state, a, b, FALSE, &t)
                  && (!found || t > out->t_begin))
                {
                  found = TRUE;
                  out->stream = s;
                  out->t_begin = t;
                }
            }
          if (found || a == 0 || pr.stopped)
            break;
          b = a - 1;
          w *= 4;
        }
    }
  logfmt_iter_free (rit);
  if (pr.stopped)
    return FALSE;
  if (found)
    {
      /* Its end: the instance that BEGIN opened, by the one rule (read
       * until it closes; a BEGIN beyond the depth limit has none). */
      out->t_end = out->t_begin;
      logfmt_interval_iter_t *it = NULL;
      logfmt_interval_t iv;
      if (logfmt_interval_iter_new (log->reader, out->stream, out->t_begin,
                                    out->t_begin, &it) == 0)
        while (logfmt_interval_iter_next (it, &iv) == 1)
          if (iv.state == state && iv.start == out->t_begin)
            {
              out->t_end = iv.end;
              break;
            }
      logfmt_interval_iter_free (it);
    }
  return found;
}

gint32
mv_find_state_by_name (const MvLog *log, const char *name)
{
  for (guint i = 0; i < log->nstates; i++)
    if (g_strcmp0 (mv_log_state (log, i)->name, name) == 0)
      return i;
  for (guint i = 0; i < log->nstates; i++)
    {
      const char *n = mv_log_state (log, i)->name;
      if (n && g_ascii_strncasecmp (n, name, strlen (name)) == 0)
        return i;
    }
  return -1;
}

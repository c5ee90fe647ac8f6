/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mv-stats.h"

typedef struct
{
  gint32  state;
  guint64 t_begin;
  guint64 child;   /* time in directly nested states */
} Open;

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

/* Calls fn for every complete instance in a stream, in end order. */
typedef void (*InstanceFunc) (gpointer user, guint32 stream, gint32 state,
                              guint64 t_begin, guint64 t_end, guint64 excl);
typedef void (*SoloFunc) (gpointer user, const logfmt_event_t *ev);

static int
scan_stream (const MvLog *log, guint32 stream, guint64 from, guint64 to,
             InstanceFunc fn, SoloFunc solo, gpointer user,
             guint64 *unmatched, GCancellable *cancellable)
{
  logfmt_iter_t *it = NULL;
  int rc = logfmt_iter_new (log->reader, stream, from, to, &it);
  if (rc != 0)
    return rc;
  GArray *stack = g_array_new (FALSE, FALSE, sizeof (Open));
  logfmt_event_t ev;
  guint64 n = 0;
  while ((rc = logfmt_iter_next (it, &ev)) == 1)
    {
      if ((++n & 0xffff) == 0 && g_cancellable_is_cancelled (cancellable))
        {
          rc = LOGFMT_ESTATE;
          break;
        }
      if (ev.kind == LOGFMT_KIND_BEGIN)
        {
          Open o = { ev.state, ev.time, 0 };
          g_array_append_val (stack, o);
        }
      else if (ev.kind == LOGFMT_KIND_END)
        {
          gint k = (gint) stack->len - 1;
          while (k >= 0 && g_array_index (stack, Open, k).state != ev.state)
            k--;
          if (k < 0)
            {
              if (unmatched)
                (*unmatched)++;
              continue;
            }
          /* Inner states left open end with their parent. */
          for (gint j = (gint) stack->len - 1; j >= k; j--)
            {
              Open *o = &g_array_index (stack, Open, j);
              guint64 dur = ev.time - o->t_begin;
              fn (user, stream, o->state, o->t_begin, ev.time,
                  dur - MIN (o->child, dur));
              if (j > 0)
                g_array_index (stack, Open, j - 1).child += dur;
            }
          g_array_set_size (stack, k);
        }
      else if (ev.kind == LOGFMT_KIND_SOLO && solo)
        solo (user, &ev);
    }
  if (unmatched)
    *unmatched += stack->len;
  g_array_unref (stack);
  logfmt_iter_free (it);
  return rc < 0 ? rc : 0;
}

typedef struct
{
  MvStats *st;
  guint    rank_index;
} StatsCtx;

static void
stats_instance (gpointer user, guint32 stream, gint32 state,
                guint64 tb, guint64 te, guint64 excl)
{
  StatsCtx *c = user;
  MvStats *st = c->st;
  if (tb < st->t0 || tb > st->t1 || state < 0 || (guint) state >= st->nstates)
    return;
  guint64 dur = te - tb;
  gsize base = (gsize) state * (st->nranks + 1);
  add (&st->cells[base + c->rank_index], dur, excl);
  add (&st->cells[base + st->nranks], dur, excl);
  st->hist[(gsize) state * MV_HIST_BINS + mv_hist_bin (dur)]++;
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
                  GCancellable *cancellable, GError **error)
{
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
      /* Instances are kept by begin time; decode from the start so
       * nesting is right, up to t1. */
      StatsCtx c = { st, ri };
      int rc = scan_stream (log, log->rows[i].stream, 0, G_MAXUINT64,
                            stats_instance, stats_solo, &c, &st->unmatched,
                            cancellable);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
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
  return st;
}

typedef struct
{
  GArray *out;
  gint32  state;
  int     bin;
  guint64 t0, t1;
  guint   max;
} InstCtx;

static void
inst_collect (gpointer user, guint32 stream, gint32 state,
              guint64 tb, guint64 te, guint64 excl)
{
  InstCtx *c = user;
  if (state != c->state || tb < c->t0 || tb > c->t1 || c->out->len >= c->max)
    return;
  if (c->bin >= 0 && mv_hist_bin (te - tb) != c->bin)
    return;
  MvInstance in = { stream, tb, te };
  g_array_append_val (c->out, in);
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
  InstCtx c = { g_array_new (FALSE, FALSE, sizeof (MvInstance)), state, bin,
                t0, t1, max };
  for (guint i = 0; i < log->nrows && c.out->len < max; i++)
    if (scan_stream (log, log->rows[i].stream, 0, G_MAXUINT64, inst_collect,
                     NULL, &c, NULL, cancellable) != 0)
      break;
  g_array_sort (c.out, inst_cmp);
  return c.out;
}

/* First BEGIN of state in [a, b] on a stream (forward), or the last. */
static gboolean
find_in (const MvLog *log, guint32 stream, gint32 state, guint64 a,
         guint64 b, gboolean forward, guint64 *t)
{
  logfmt_iter_t *it = NULL;
  if (logfmt_iter_new (log->reader, stream, a, b, &it) != 0)
    return FALSE;
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
  logfmt_iter_free (it);
  return found;
}

gboolean
mv_search_state (MvLog *log, gint32 state, guint64 from, gboolean forward,
                 MvInstance *out, GCancellable *cancellable)
{
  guint64 lo = 0, hi = mv_log_t_last (log);
  gboolean found = FALSE;
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
          for (guint s = 0; s < log->nrows; s++)
            {
              guint64 t;
              if (find_in (log, s, state, a, b, TRUE, &t)
                  && (!found || t < out->t_begin))
                {
                  found = TRUE;
                  out->stream = s;
                  out->t_begin = t;
                }
            }
          if (g_cancellable_is_cancelled (cancellable) || b == hi)
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
          for (guint s = 0; s < log->nrows; s++)
            {
              guint64 t;
              if (find_in (log, s, state, a, b, FALSE, &t)
                  && (!found || t > out->t_begin))
                {
                  found = TRUE;
                  out->stream = s;
                  out->t_begin = t;
                }
            }
          if (found || a == 0 || g_cancellable_is_cancelled (cancellable))
            break;
          b = a - 1;
          w *= 4;
        }
    }
  if (found)
    {
      /* Its end: scan forward on that stream. */
      out->t_end = out->t_begin;
      logfmt_iter_t *it = NULL;
      if (logfmt_iter_new (log->reader, out->stream, out->t_begin,
                           G_MAXUINT64, &it) == 0)
        {
          logfmt_event_t ev;
          int depth = 0;
          while (logfmt_iter_next (it, &ev) == 1)
            {
              if (ev.state != state)
                continue;
              if (ev.kind == LOGFMT_KIND_BEGIN && ev.time >= out->t_begin)
                depth++;
              else if (ev.kind == LOGFMT_KIND_END && depth > 0 && --depth == 0)
                {
                  out->t_end = ev.time;
                  break;
                }
            }
          logfmt_iter_free (it);
        }
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

/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>
#include <string.h>

#include "callpath/callpath.h"
#include "mv-samples.h"

/* One rank's call-path tables and what was learnt about its nodes. */
typedef struct
{
  logfmt_callpaths_t *cp;     /* NULL: the rank has none / unreadable */
  guint32 *fn;                /* node -> function id, 0 not resolved yet */
  guint16 *depth;             /* node -> frames from the root */
} RankTab;

struct MvSampleSource
{
  gint          ref;
  MvLog        *log;
  GMutex        lock;
  cp_symbols_t *sym;
  GHashTable   *ranks;        /* rank -> RankTab */
  GHashTable   *func_id;      /* name -> id (names owned by `names`) */
  GPtrArray    *names;        /* id - 1 -> name */
  double        period_ns;
};

gboolean
mv_log_has_samples (const MvLog *log)
{
  logfmt_track_info_t info;
  return logfmt_reader_callpath_ranks (log->reader, NULL, 0) > 0
         && logfmt_reader_track_info (log->reader, LOGFMT_NO_STREAM,
                                      LOGFMT_TRACK_CALLPATH, &info) == 0
         && info.records > 0;
}

double
mv_sample_period (const MvLog *log)
{
  size_t nc = logfmt_reader_n_consts (log->reader);
  for (size_t i = 0; i < nc; i++)
    {
      const logfmt_const_def_t *c = logfmt_reader_const (log->reader, i);
      if (c->name && !strcmp (c->name, "MPE_SAMPLE_HZ") && c->value > 0)
        return 1.0 / (double) c->value;
    }
  return 1.0 / 200;
}

static void
rank_tab_free (gpointer p)
{
  RankTab *t = p;
  if (t->cp)
    logfmt_callpaths_free (t->cp);
  g_free (t->fn);
  g_free (t->depth);
  g_free (t);
}

MvSampleSource *
mv_sample_source_new (MvLog *log)
{
  MvSampleSource *src = g_new0 (MvSampleSource, 1);
  src->ref = 1;
  src->log = mv_log_ref (log);
  g_mutex_init (&src->lock);
  src->sym = cp_symbols_new ();
  src->ranks = g_hash_table_new_full (NULL, NULL, NULL, rank_tab_free);
  src->func_id = g_hash_table_new (g_str_hash, g_str_equal);
  src->names = g_ptr_array_new_with_free_func (g_free);
  src->period_ns = mv_sample_period (log) * 1e9;
  return src;
}

MvSampleSource *
mv_sample_source_ref (MvSampleSource *src)
{
  g_atomic_int_inc (&src->ref);
  return src;
}

void
mv_sample_source_unref (MvSampleSource *src)
{
  if (src == NULL || !g_atomic_int_dec_and_test (&src->ref))
    return;
  g_hash_table_destroy (src->ranks);
  g_hash_table_destroy (src->func_id);
  g_ptr_array_unref (src->names);
  if (src->sym)
    cp_symbols_free (src->sym);
  g_mutex_clear (&src->lock);
  mv_log_unref (src->log);
  g_free (src);
}

/* The rank's tables, read on first use (lock held). */
static RankTab *
rank_tab (MvSampleSource *src, gint32 rank)
{
  RankTab *t = g_hash_table_lookup (src->ranks, GINT_TO_POINTER (rank));
  if (t)
    return t;
  t = g_new0 (RankTab, 1);
  logfmt_error_t err = { 0 };
  if (logfmt_reader_callpaths (src->log->reader, rank, &t->cp, &err) != 0)
    t->cp = NULL;
  if (t->cp)
    {
      t->fn = g_new0 (guint32, t->cp->nnodes);
      t->depth = g_new0 (guint16, t->cp->nnodes);
      /* Parents come before their children. */
      for (size_t i = 1; i < t->cp->nnodes; i++)
        {
          guint32 p = t->cp->nodes[i].parent;
          t->depth[i] = p < i ? (guint16) MIN (t->depth[p] + 1, G_MAXUINT16)
                              : 1;
        }
    }
  g_hash_table_insert (src->ranks, GINT_TO_POINTER (rank), t);
  return t;
}

static guint32
intern (MvSampleSource *src, const char *name)
{
  gpointer id = g_hash_table_lookup (src->func_id, name);
  if (id)
    return GPOINTER_TO_UINT (id);
  char *copy = g_strdup (name);
  g_ptr_array_add (src->names, copy);
  guint32 n = src->names->len;
  g_hash_table_insert (src->func_id, copy, GUINT_TO_POINTER (n));
  return n;
}

/* Function of the frame at depth (0: node's own) above node, 0 none. */
static guint32
node_func (MvSampleSource *src, RankTab *t, guint32 node, int depth)
{
  if (t->cp == NULL || node == 0 || node >= t->cp->nnodes)
    return 0;
  if (depth > 0)
    {
      if (t->depth[node] < depth)
        return 0;
      while (t->depth[node] > depth)
        node = t->cp->nodes[node].parent;
    }
  if (t->fn[node] == 0)
    {
      cp_frame_t f;
      cp_symbols_frame (src->sym, t->cp, node, &f);
      t->fn[node] = intern (src, f.func ? f.func : "?");
    }
  return t->fn[node];
}

/* The candidates of one column: functions and their samples. */
#define MAXC 16
typedef struct
{
  guint32 fn[MAXC], n[MAXC];
  int     used;
  guint32 total;
} Column;

static void
column_add (Column *c, guint32 fn, guint32 w)
{
  c->total += w;
  if (fn == 0)
    return;
  for (int i = 0; i < c->used; i++)
    if (c->fn[i] == fn)
      {
        c->n[i] += w;
        return;
      }
  if (c->used < MAXC)
    {
      c->fn[c->used] = fn;
      c->n[c->used++] = w;
    }
}

static guint32
column_best (const Column *c)
{
  guint32 best = 0, bn = 0;
  for (int i = 0; i < c->used; i++)
    if (c->n[i] > bn || (c->n[i] == bn && c->fn[i] < best))
      {
        best = c->fn[i];
        bn = c->n[i];
      }
  return best;
}

gboolean
mv_sample_source_lane (MvSampleSource *src, guint32 stream, guint64 t0,
                       guint64 t1, int width, int depth, guint32 *fn,
                       guint32 *n, char **problem)
{
  memset (fn, 0, sizeof *fn * (gsize) width);
  if (n)
    memset (n, 0, sizeof *n * (gsize) width);
  const logfmt_stream_def_t *sd = logfmt_reader_stream (src->log->reader,
                                                        stream);
  if (sd == NULL || t1 <= t0 || width <= 0)
    return TRUE;
  /* A sample stands for the period after its time: a lane reads one
   * period early so that its first columns are filled. */
  guint64 back = depth > 0 ? (guint64) src->period_ns : 0;
  logfmt_track_iter_t *it;
  if (logfmt_track_iter_new (src->log->reader, stream, LOGFMT_TRACK_CALLPATH,
                             t0 > back ? t0 - back : 0, t1, &it) != 0)
    {
      if (problem)
        *problem = g_strdup ("call-path samples: cannot read the track");
      return FALSE;
    }
  g_mutex_lock (&src->lock);
  RankTab *tab = rank_tab (src, sd->rank);
  double per_px = (double) (t1 - t0) / width;
  Column col = { 0 };
  gint64 cx = -1;               /* the column being collected */
  gint64 fill_to = -1;          /* lane: columns up to here are covered */
  guint32 fill_fn = 0;
  logfmt_track_rec_t rec;
  int got;
  while ((got = logfmt_track_iter_next (it, &rec)) == 1)
    {
      gint64 x = rec.time < t0 ? -1
                 : (gint64) ((double) (rec.time - t0) / per_px);
      if (x >= width)
        break;
      gint64 w = rec.col[LOGFMT_SAMPLE_COL_WEIGHT];
      guint32 f = node_func (src, tab,
                             rec.col[LOGFMT_SAMPLE_COL_NODE] > 0
                             ? (guint32) rec.col[LOGFMT_SAMPLE_COL_NODE] : 0,
                             depth);
      if (x != cx && cx >= 0)
        {
          fn[cx] = column_best (&col);
          if (n)
            n[cx] = col.total;
          memset (&col, 0, sizeof col);
        }
      if (depth > 0)
        {
          /* Columns between the last sample's and this one's, within
           * the last sample's period, are the last sample's. */
          for (gint64 k = MAX (cx + 1, 0); k < MIN (x, fill_to + 1); k++)
            fn[k] = fill_fn;
          double end = (double) rec.time + (double) MAX (w, 1)
                       * src->period_ns;
          fill_to = (gint64) ((end - (double) t0) / per_px);
          fill_fn = f;
        }
      cx = x;
      if (x >= 0)
        column_add (&col, f, (guint32) MAX (w, 1));
    }
  if (cx >= 0)
    {
      fn[cx] = column_best (&col);
      if (n)
        n[cx] = col.total;
    }
  if (depth > 0)
    for (gint64 k = MAX (cx + 1, 0); k < MIN ((gint64) width, fill_to + 1);
         k++)
      fn[k] = fill_fn;
  g_mutex_unlock (&src->lock);
  gboolean okay = got >= 0;
  if (!okay && problem)
    {
      const logfmt_error_t *e = logfmt_track_iter_error (it);
      *problem = g_strdup_printf ("call-path samples: %s",
                                  e && e->code ? e->message
                                  : logfmt_strerror (got));
    }
  logfmt_track_iter_free (it);
  return okay;
}

const char *
mv_sample_source_func_name (MvSampleSource *src, guint32 fn)
{
  g_mutex_lock (&src->lock);
  const char *s = fn >= 1 && fn <= src->names->len
                  ? g_ptr_array_index (src->names, fn - 1) : NULL;
  g_mutex_unlock (&src->lock);
  return s;
}

guint32
mv_sample_func_rgb (const char *name)
{
  /* FNV-1a of the name picks a warm-to-cool hue, saturation and value
   * in ranges that stay readable on white and under black text. */
  guint32 h = 2166136261u;
  for (const char *p = name; p && *p; p++)
    h = (h ^ (guint8) *p) * 16777619u;
  double hue = (h % 360) / 60.0;
  double s = 0.45 + ((h >> 9) % 30) / 100.0;
  double v = 0.80 + ((h >> 17) % 15) / 100.0;
  int i = (int) hue;
  double f = hue - i, p = v * (1 - s), q = v * (1 - s * f),
         t = v * (1 - s * (1 - f)), r, g, b;
  switch (i % 6)
    {
    case 0: r = v; g = t; b = p; break;
    case 1: r = q; g = v; b = p; break;
    case 2: r = p; g = v; b = t; break;
    case 3: r = p; g = q; b = v; break;
    case 4: r = t; g = p; b = v; break;
    default: r = v; g = p; b = q; break;
    }
  return ((guint32) lround (r * 255) << 16) | ((guint32) lround (g * 255) << 8)
         | (guint32) lround (b * 255);
}

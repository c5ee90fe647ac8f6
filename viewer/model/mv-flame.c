/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mv-flame.h"

static void
on_sample (void *user, uint32_t stream, uint64_t time, uint64_t weight,
           uint32_t node)
{
  MvFlameSample s = { stream, node, time, weight };
  g_array_append_val ((GArray *) user, s);
}

/* Children of node i ordered as clogtool cct orders them: most samples
 * first, then by name. */
static const cp_tree_t *sort_tree;

static int
by_samples (const void *a, const void *b)
{
  const cp_node_t *x = &sort_tree->nodes[*(const guint32 *) a];
  const cp_node_t *y = &sort_tree->nodes[*(const guint32 *) b];
  if (x->total_samples != y->total_samples)
    return x->total_samples > y->total_samples ? -1 : 1;
  return strcmp (x->frame.func, y->frame.func);
}

static guint32 *
children (const cp_tree_t *t, guint32 i, gsize *n)
{
  gsize k = 0;
  for (guint32 c = t->nodes[i].first_child; c; c = t->nodes[c].next_sibling)
    k++;
  guint32 *v = g_new (guint32, k + 1);
  k = 0;
  for (guint32 c = t->nodes[i].first_child; c; c = t->nodes[c].next_sibling)
    v[k++] = c;
  /* One flame is built at a time per thread of control that sorts. */
  static GMutex lock;
  g_mutex_lock (&lock);
  sort_tree = t;
  qsort (v, k, sizeof *v, by_samples);
  g_mutex_unlock (&lock);
  *n = k;
  return v;
}

/* Preorder numbers and boxes of the subtree of i, which starts at x. */
static void
layout (MvFlame *fl, guint32 i, guint depth, double x, guint32 *counter)
{
  const cp_tree_t *t = fl->tree;
  double whole = (double) MAX (t->nodes[0].total_samples, 1);
  fl->pre[i] = (*counter)++;
  if (t->nodes[i].total_samples > 0)
    {
      MvFlameBox b = { i, depth, x,
                       x + (double) t->nodes[i].total_samples / whole };
      g_array_append_val (fl->boxes, b);
      fl->box_of[i] = fl->boxes->len;
      fl->max_depth = MAX (fl->max_depth, depth);
    }
  gsize n;
  guint32 *c = children (t, i, &n);
  for (gsize k = 0; k < n; k++)
    {
      layout (fl, c[k], depth + 1, x, counter);
      x += (double) t->nodes[c[k]].total_samples / whole;
    }
  g_free (c);
  fl->post[i] = *counter;
}

MvFlame *
mv_flame_compute (MvLog *log, guint64 t0, guint64 t1, const gint32 *ranks,
                  gsize nranks, GError **error)
{
  MvFlame *fl = g_new0 (MvFlame, 1);
  fl->log = mv_log_ref (log);
  fl->t0 = t0;
  fl->t1 = t1;
  fl->ranks = nranks ? g_memdup2 (ranks, nranks * sizeof *ranks) : NULL;
  fl->nranks = nranks;
  fl->samples = g_array_new (FALSE, FALSE, sizeof (MvFlameSample));
  fl->boxes = g_array_new (FALSE, FALSE, sizeof (MvFlameBox));
  fl->period_ns = mv_sample_period (log) * 1e9;
  cp_tree_opts_t o = { .rank = -1, .t0 = t0, .t1 = t1,
                       .ranks = ranks, .nranks = nranks,
                       .on_sample = on_sample, .user = fl->samples };
  logfmt_error_t err = { 0 };
  int rc = cp_tree_build (log->reader, &o, &fl->tree, &err);
  if (rc < 0)
    {
      g_set_error (error, MV_LOG_ERROR, -rc, "%s",
                   err.code ? err.message : logfmt_strerror (rc));
      mv_flame_free (fl);
      return NULL;
    }
  if (fl->tree->ranks == 0)
    {
      g_set_error (error, MV_LOG_ERROR, 1, "%s: no call paths (record with "
                   "MPE_SAMPLE_HZ or MPE_CALLSITE)", log->path);
      mv_flame_free (fl);
      return NULL;
    }
  gsize n = fl->tree->n;
  fl->box_of = g_new0 (guint32, n);
  fl->pre = g_new0 (guint32, n);
  fl->post = g_new0 (guint32, n);
  guint32 counter = 0;
  layout (fl, 0, 0, 0.0, &counter);
  return fl;
}

void
mv_flame_free (MvFlame *fl)
{
  if (fl == NULL)
    return;
  cp_tree_free (fl->tree);
  g_array_unref (fl->samples);
  g_array_unref (fl->boxes);
  g_free (fl->box_of);
  g_free (fl->pre);
  g_free (fl->post);
  g_free (fl->ranks);
  mv_log_unref (fl->log);
  g_free (fl);
}

const MvFlameBox *
mv_flame_hit (const MvFlame *fl, double x, guint depth)
{
  /* Boxes of one depth do not overlap; there are few enough to scan. */
  for (guint i = 0; i < fl->boxes->len; i++)
    {
      const MvFlameBox *b = &g_array_index (fl->boxes, MvFlameBox, i);
      if (b->depth == depth && x >= b->x0 && x < b->x1)
        return b;
    }
  return NULL;
}

guint32
mv_flame_find (const MvFlame *fl, const char *func)
{
  guint32 best = 0;
  for (gsize i = 1; i < fl->tree->n; i++)
    if (!g_strcmp0 (fl->tree->nodes[i].frame.func, func)
        && (best == 0 || fl->tree->nodes[i].total_samples
                         > fl->tree->nodes[best].total_samples))
      best = (guint32) i;
  return best;
}

char *
mv_flame_describe (const MvFlame *fl, guint32 node)
{
  const cp_node_t *x = &fl->tree->nodes[node];
  double whole = (double) MAX (fl->tree->nodes[0].total_samples, 1);
  GString *s = g_string_new (x->frame.func);
  if (x->frame.file)
    g_string_append_printf (s, "\n%s:%d", x->frame.file, x->frame.line);
  if (x->frame.module && *x->frame.module)
    g_string_append_printf (s, "\nin %s", x->frame.module);
  g_string_append_printf (s, "\nself %" G_GUINT64_FORMAT " samples "
                          "(%.2f %%), total %" G_GUINT64_FORMAT " (%.2f %%)",
                          x->self_samples, 100.0 * x->self_samples / whole,
                          x->total_samples, 100.0 * x->total_samples / whole);
  g_string_append_printf (s, "\n%.3f s of CPU time (%.0f Hz sampling)",
                          x->total_time, 1e9 / fl->period_ns);
  if (x->total_calls)
    g_string_append_printf (s, "\n%" G_GUINT64_FORMAT " MPI calls below, "
                            "%.6f s", x->total_calls, x->total_comm);
  return g_string_free (s, FALSE);
}

GArray *
mv_flame_marks (const MvFlame *fl, guint32 node)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (MvTimeMark));
  if (node >= fl->tree->n)
    return a;
  guint32 lo = fl->pre[node], hi = fl->post[node];
  MvTimeMark cur = { 0 };
  gboolean open = FALSE;
  for (guint i = 0; i < fl->samples->len; i++)
    {
      const MvFlameSample *sm = &g_array_index (fl->samples, MvFlameSample,
                                                i);
      guint32 p = fl->pre[sm->node];
      if (p < lo || p >= hi)
        continue;
      guint64 end = sm->time + (guint64) ((double) sm->weight
                                          * fl->period_ns);
      /* Samples a period apart on one stream are one run. */
      if (open && sm->stream == cur.stream && sm->time >= cur.t0
          && sm->time <= cur.t1 + (guint64) (fl->period_ns / 2))
        {
          cur.t1 = MAX (cur.t1, end);
          cur.samples++;
          continue;
        }
      if (open)
        g_array_append_val (a, cur);
      cur = (MvTimeMark) { sm->stream, sm->time, end, 1 };
      open = TRUE;
    }
  if (open)
    g_array_append_val (a, cur);
  return a;
}

static void
write_node (const MvFlame *fl, guint32 i, int depth, FILE *fp)
{
  const cp_node_t *x = &fl->tree->nodes[i];
  fprintf (fp, "%*s{\"name\": ", depth, "");
  mv_json_string (fp, x->frame.func);
  fputs (", \"file\": ", fp);
  if (x->frame.file)
    mv_json_string (fp, x->frame.file);
  else
    fputs ("null", fp);
  fprintf (fp, ", \"line\": %d, \"module\": ", x->frame.line);
  mv_json_string (fp, x->frame.module ? x->frame.module : "");
  fprintf (fp, ", \"self\": %" PRIu64 ", \"total\": %" PRIu64, x->self_samples,
           x->total_samples);
  if (fl->box_of[i])
    {
      const MvFlameBox *b = &g_array_index (fl->boxes, MvFlameBox,
                                            fl->box_of[i] - 1);
      fprintf (fp, ", \"x0\": %.6f, \"x1\": %.6f, \"depth\": %u", b->x0,
               b->x1, b->depth);
    }
  fprintf (fp, ", \"rgb\": \"%06x\"", mv_sample_func_rgb (x->frame.func));
  fputs (", \"children\": [", fp);
  gsize n;
  guint32 *c = children (fl->tree, i, &n);
  for (gsize k = 0; k < n; k++)
    {
      fputs (k ? ",\n" : "\n", fp);
      write_node (fl, c[k], depth + 1, fp);
    }
  g_free (c);
  fputs ("]}", fp);
}

void
mv_flame_write_json (const MvFlame *fl, FILE *fp)
{
  write_node (fl, 0, 0, fp);
  fputc ('\n', fp);
}

gboolean
mv_flame_parse_ranks (const char *s, gint32 **ranks, gsize *n)
{
  *ranks = NULL;
  *n = 0;
  if (s == NULL || !*s || g_str_equal (s, "all"))
    return TRUE;
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gint32));
  gchar **parts = g_strsplit (s, ",", -1);
  gboolean okay = TRUE;
  for (gchar **p = parts; *p && okay; p++)
    {
      char *end;
      gint64 lo = g_ascii_strtoll (g_strstrip (*p), &end, 10), hi = lo;
      if (end == *p)
        okay = FALSE;
      else if (*end == '-')
        {
          char *e2;
          hi = g_ascii_strtoll (end + 1, &e2, 10);
          okay = e2 != end + 1 && *e2 == '\0';
        }
      else
        okay = *end == '\0';
      okay = okay && lo >= 0 && hi >= lo && hi - lo < 1000000
             && hi <= G_MAXINT32;
      for (gint64 r = lo; okay && r <= hi; r++)
        {
          gint32 v = (gint32) r;
          g_array_append_val (a, v);
        }
    }
  g_strfreev (parts);
  if (!okay || a->len == 0)
    {
      g_array_unref (a);
      return FALSE;
    }
  *n = a->len;
  *ranks = (gint32 *) g_array_free (a, FALSE);
  return TRUE;
}

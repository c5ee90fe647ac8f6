/* SPDX-License-Identifier: BSD-3-Clause */
/* The CPU view's rows and their per-pixel occupants. */
#include "config.h"

#include <string.h>

#include "analysis/an-sched.h"
#include "mv-cpuview.h"
#include "mv-view.h"

/* Distinct hues (rank % 12). */
static const guint32 palette[] = {
  MV_CPUVIEW_RANK0_RGB, MV_CPUVIEW_RANK1_RGB, 0x2ca02c, 0xff7f0e, 0x9467bd,
  0x8c564b, 0xe377c2, 0x17becf, 0xbcbd22, 0x7f7f7f, 0x393b79, 0xad494a
};

guint32
mv_cpuview_stream_rgb (const MvLog *log, guint32 stream)
{
  const logfmt_stream_def_t *sd = logfmt_reader_stream (log->reader, stream);
  gint32 rank = sd ? MAX (sd->rank, 0) : 0, th = sd ? MAX (sd->thread, 0) : 0;
  guint32 c = palette[rank % G_N_ELEMENTS (palette)];
  /* Other threads of the rank: mixed with white, 30% per thread, up to
   * 60%. */
  double f = MIN (th, 2) * 0.3;
  guint32 out = 0;
  for (int sh = 0; sh <= 16; sh += 8)
    {
      double v = (c >> sh & 0xff) * (1 - f) + 255 * f;
      out |= (guint32) (v + 0.5) << sh;
    }
  return out;
}

typedef struct
{
  const MvLog *log;
  GArray *all;     /* (stream, run) as met */
} Collect;

typedef struct
{
  guint32 stream;
  an_sched_run_t run;
} StreamRun;

static void
collect_run (void *user, guint32 stream, const an_sched_run_t *run)
{
  Collect *c = user;
  StreamRun sr = { stream, *run };
  g_array_append_val (c->all, sr);
}

static gint
run_cmp (gconstpointer a, gconstpointer b)
{
  const MvCpuRun *x = a, *y = b;
  return (x->t0 > y->t0) - (x->t0 < y->t0);
}

MvCpuView *
mv_cpuview_new (MvLog *log, GError **error)
{
  if (!an_sched_file_has_switches (log->reader))
    {
      g_set_error (error, MV_LOG_ERROR, 1, "%s has no context-switch "
                   "records (log with MPE_SCHED=1)", log->path);
      return NULL;
    }
  Collect c = { log, g_array_new (FALSE, FALSE, sizeof (StreamRun)) };
  an_cpus_t *cp = NULL;
  logfmt_error_t err = { 0 };
  int rc = an_cpus_load (log->reader, collect_run, &c, &cp, &err);
  if (rc)
    {
      g_set_error (error, MV_LOG_ERROR, 1, "%s: %s", log->path,
                   err.code ? err.message : logfmt_strerror (rc));
      g_array_unref (c.all);
      return NULL;
    }
  MvCpuView *cv = g_new0 (MvCpuView, 1);
  cv->log = mv_log_ref (log);
  cv->nhosts = (guint) cp->nhosts;
  for (size_t h = 0; h < cp->nhosts; h++)
    cv->nrows += (guint) cp->hosts[h].ncpus;
  cv->rows = g_new0 (MvCpuRow, MAX (cv->nrows, 1));
  guint k = 0;
  for (size_t h = 0; h < cp->nhosts; h++)
    {
      const an_host_t *ho = &cp->hosts[h];
      /* Host names live in the reader's definitions; "" is static. */
      const char *name = ho->name;
      for (size_t i = 0; i < ho->ncpus; i++, k++)
        {
          const an_cpu_t *x = &ho->cpus[i];
          MvCpuRow *row = &cv->rows[k];
          row->host = name;
          row->cpu = x->cpu;
          row->core = x->core;
          row->socket = x->socket;
          row->numa = x->numa;
          row->smt = x->smt;
          row->on = x->on;
          guint32 us[2];
          row->shared_core = x->core >= 0
                             && an_cpus_core_users (ho, x->core, us, 2) > 1;
          row->runs = g_array_new (FALSE, FALSE, sizeof (MvCpuRun));
        }
    }
  for (guint i = 0; i < c.all->len; i++)
    {
      const StreamRun *sr = &g_array_index (c.all, StreamRun, i);
      const logfmt_stream_def_t *sd = logfmt_reader_stream (log->reader,
                                                            sr->stream);
      const char *host = sd && sd->host ? sd->host : "";
      for (guint r = 0; r < cv->nrows; r++)
        if (cv->rows[r].cpu == sr->run.cpu
            && strcmp (cv->rows[r].host, host) == 0)
          {
            MvCpuRun run = { sr->run.t0, sr->run.t1, sr->stream };
            g_array_append_val (cv->rows[r].runs, run);
            break;
          }
    }
  for (guint r = 0; r < cv->nrows; r++)
    g_array_sort (cv->rows[r].runs, run_cmp);
  g_array_unref (c.all);
  an_cpus_free (cp);
  return cv;
}

void
mv_cpuview_free (MvCpuView *cv)
{
  if (!cv)
    return;
  for (guint r = 0; r < cv->nrows; r++)
    g_array_unref (cv->rows[r].runs);
  g_free (cv->rows);
  mv_log_unref (cv->log);
  g_free (cv);
}

char *
mv_cpuview_row_label (const MvCpuView *cv, guint row)
{
  const MvCpuRow *r = &cv->rows[row];
  GString *s = g_string_new (NULL);
  if (cv->nhosts > 1 && r->host[0])
    g_string_append_printf (s, "%s ", r->host);
  g_string_append_printf (s, "cpu %d", r->cpu);
  if (r->core >= 0)
    g_string_append_printf (s, " core %d", r->core);
  if (r->socket > 0)
    g_string_append_printf (s, " s%d", r->socket);
  if (r->smt > 0)
    g_string_append_printf (s, " smt%d", r->smt);
  return g_string_free (s, FALSE);
}

/* Per column, the few threads met there and their time. */
#define SLOTS 4

void
mv_cpuview_pixels (const MvCpuView *cv, guint row, guint64 t0, guint64 t1,
                   int width, gint32 *out)
{
  for (int x = 0; x < width; x++)
    out[x] = -1;
  if (row >= cv->nrows || width <= 0 || t1 <= t0)
    return;
  const GArray *runs = cv->rows[row].runs;
  MvTimeMap m = mv_time_map (t0, t1, width);
  gint32 *who = g_new (gint32, (gsize) width * SLOTS);
  double *ns = g_new0 (double, (gsize) width * SLOTS);
  for (gsize i = 0; i < (gsize) width * SLOTS; i++)
    who[i] = -1;
  /* The first run ending after t0 (runs never overlap: t1 ascends). */
  guint lo = 0, hi = runs->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (runs, MvCpuRun, mid).t1 <= t0)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (guint i = lo; i < runs->len; i++)
    {
      const MvCpuRun *r = &g_array_index (runs, MvCpuRun, i);
      if (r->t0 >= t1)
        break;
      double x0 = MAX (mv_time_map_x (&m, MAX (r->t0, t0)), 0);
      double x1 = MIN (mv_time_map_x (&m, MIN (r->t1, t1)), width);
      for (int x = (int) x0; x < width && x < x1; x++)
        {
          double part = MIN (x1, x + 1.0) - MAX (x0, (double) x);
          if (part <= 0)
            continue;
          gint32 *w = who + (gsize) x * SLOTS;
          double *n = ns + (gsize) x * SLOTS;
          int k = 0;
          while (k < SLOTS && w[k] != -1 && w[k] != (gint32) r->stream)
            k++;
          if (k == SLOTS)
            continue;   /* a fifth thread in one pixel: not the longest */
          w[k] = (gint32) r->stream;
          n[k] += part;
        }
    }
  for (int x = 0; x < width; x++)
    {
      double best = 0;
      for (int k = 0; k < SLOTS; k++)
        if (who[x * SLOTS + k] >= 0 && ns[x * SLOTS + k] > best)
          {
            best = ns[x * SLOTS + k];
            out[x] = who[x * SLOTS + k];
          }
    }
  g_free (who);
  g_free (ns);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Threads and CPUs tables from the analysis clogtool uses. */
#include "config.h"

#include <inttypes.h>

#include "analysis/an-sched.h"
#include "mv-sched-tables.h"

static void
thread_row_clear (gpointer p)
{
  g_free (((MvThreadRow *) p)->cpus);
}

static void
cpu_row_clear (gpointer p)
{
  g_free (((MvCpuTableRow *) p)->users);
}

static gboolean
failed (GError **error, const MvLog *log, int rc, const logfmt_error_t *e)
{
  g_set_error (error, MV_LOG_ERROR, 1, "%s: %s", log->path,
               e->code ? e->message : logfmt_strerror (rc));
  return FALSE;
}

static gboolean
load_threads (MvLog *log, GArray *out, GError **error)
{
  const logfmt_info_t *info = log->info;
  for (guint32 s = 0; s < info->nstreams; s++)
    {
      an_sched_thread_t th;
      logfmt_error_t err = { 0 };
      int rc = an_sched_thread_load (log->reader, s, &th, &err);
      if (rc)
        return failed (error, log, rc, &err);
      if (th.has)
        {
          const logfmt_stream_def_t *sd = logfmt_reader_stream (log->reader,
                                                                s);
          GString *cpus = g_string_new (NULL);
          for (size_t i = 0; i < th.ncpus; i++)
            g_string_append_printf (cpus, "%s%d", i ? "," : "", th.cpus[i]);
          MvThreadRow row = {
            .rank = sd ? sd->rank : -1, .thread = sd ? sd->thread : -1,
            .window_ns = th.t1 - th.t0, .on_ns = th.on_ns,
            .blocked_ns = th.blocked_ns, .preempted_ns = th.preempted_ns,
            .switches = th.switches, .migrations = th.migrations,
            .cpus = g_string_free (cpus, FALSE),
          };
          g_array_append_val (out, row);
        }
      an_sched_thread_free (&th);
    }
  return TRUE;
}

static gboolean
load_cpus (MvLog *log, GArray *out, GError **error)
{
  an_cpus_t *cp;
  logfmt_error_t err = { 0 };
  int rc = an_cpus_load (log->reader, NULL, NULL, &cp, &err);
  if (rc)
    return failed (error, log, rc, &err);
  for (size_t h = 0; h < cp->nhosts; h++)
    for (size_t i = 0; i < cp->hosts[h].ncpus; i++)
      {
        const an_host_t *ho = &cp->hosts[h];
        const an_cpu_t *c = &ho->cpus[i];
        MvCpuUser *users = g_new0 (MvCpuUser, MAX (c->nusers, 1));
        for (size_t u = 0; u < c->nusers; u++)
          {
            const logfmt_stream_def_t *sd =
              logfmt_reader_stream (log->reader, c->users[u].stream);
            users[u] = (MvCpuUser) { sd ? sd->rank : -1,
                                     sd ? sd->thread : -1, c->users[u].on };
          }
        guint32 us[2];
        MvCpuTableRow row = {
          .host = ho->name, .cpu = c->cpu, .core = c->core,
          .socket = c->socket, .numa = c->numa, .smt = c->smt,
          .on_ns = c->on,
          .shared_core = c->core >= 0
                         && an_cpus_core_users (ho, c->core, us, 2) > 1,
          .users = users, .nusers = (guint) c->nusers,
        };
        g_array_append_val (out, row);
      }
  an_cpus_free (cp);
  return TRUE;
}

gboolean
mv_sched_tables_available (MvLog *log)
{
  return an_sched_file_has_switches (log->reader) != 0;
}

MvSchedTables *
mv_sched_tables_new (MvLog *log, GError **error)
{
  if (!mv_sched_tables_available (log))
    {
      g_set_error (error, MV_LOG_ERROR, 1, "%s has no context-switch "
                   "records (log with MPE_SCHED=1)", log->path);
      return NULL;
    }
  MvSchedTables *t = g_new0 (MvSchedTables, 1);
  t->threads = g_array_new (FALSE, FALSE, sizeof (MvThreadRow));
  g_array_set_clear_func (t->threads, thread_row_clear);
  t->cpus = g_array_new (FALSE, FALSE, sizeof (MvCpuTableRow));
  g_array_set_clear_func (t->cpus, cpu_row_clear);
  if (!load_threads (log, t->threads, error)
      || !load_cpus (log, t->cpus, error))
    {
      mv_sched_tables_free (t);
      return NULL;
    }
  return t;
}

void
mv_sched_tables_free (MvSchedTables *t)
{
  if (!t)
    return;
  g_array_unref (t->threads);
  g_array_unref (t->cpus);
  g_free (t);
}

gboolean
mv_sched_tables_write_json (const MvSchedTables *t, FILE *f)
{
  fprintf (f, "\"threads\": [");
  for (guint i = 0; t && i < t->threads->len; i++)
    {
      const MvThreadRow *r = &g_array_index (t->threads, MvThreadRow, i);
      fprintf (f, "%s\n  {\"rank\": %d, \"thread\": %d, \"window_s\": %.9f, "
               "\"cpu_s\": %.9f, \"offcpu_s\": %.9f, \"blocked_s\": %.9f, "
               "\"preempted_s\": %.9f, \"switches\": %" G_GUINT64_FORMAT
               ", \"migrations\": %" G_GUINT64_FORMAT ", \"cpus\": [%s]}",
               i ? "," : "", r->rank, r->thread, r->window_ns / 1e9,
               r->on_ns / 1e9, (r->blocked_ns + r->preempted_ns) / 1e9,
               r->blocked_ns / 1e9, r->preempted_ns / 1e9, r->switches,
               r->migrations, r->cpus);
    }
  fprintf (f, "\n], \"cpus\": [");
  for (guint i = 0; t && i < t->cpus->len; i++)
    {
      const MvCpuTableRow *r = &g_array_index (t->cpus, MvCpuTableRow, i);
      char *host = g_strescape (r->host, NULL);
      fprintf (f, "%s\n  {\"host\": \"%s\", \"cpu\": %d, \"core\": %d, "
               "\"socket\": %d, \"numa\": %d, \"smt\": %d, \"on_s\": %.9f, "
               "\"threads\": [", i ? "," : "", host, r->cpu, r->core,
               r->socket, r->numa, r->smt, r->on_ns / 1e9);
      g_free (host);
      for (guint k = 0; k < r->nusers; k++)
        fprintf (f, "%s{\"rank\": %d, \"thread\": %d, \"on_s\": %.9f}",
                 k ? ", " : "", r->users[k].rank, r->users[k].thread,
                 r->users[k].on_ns / 1e9);
      fprintf (f, "]}");
    }
  fprintf (f, "\n]");
  return !ferror (f);
}

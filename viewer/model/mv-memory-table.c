/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory table from the analysis clogtool memory uses. */
#include "config.h"

#include <inttypes.h>

#include "mv-memory-table.h"

gboolean
mv_memory_table_available (MvLog *log)
{
  size_t n = logfmt_reader_n_resources (log->reader);
  for (size_t i = 0; i < n; i++)
    if (logfmt_reader_resource (log->reader, i)->kind == LOGFMT_RES_MEMTOTAL)
      return TRUE;
  return FALSE;
}

MvMemoryTable *
mv_memory_table_new (MvLog *log, GError **error)
{
  MvMemoryTable *t = g_new0 (MvMemoryTable, 1);
  t->sym = cp_symbols_new ();
  logfmt_error_t err = { 0 };
  int rc = t->sym ? an_memory_load (log->reader, cp_symbols_site_name,
                                       t->sym, &t->mem, &err)
                  : LOGFMT_ENOMEM;
  if (rc)
    g_set_error (error, MV_LOG_ERROR, 1, "%s: %s", log->path,
                 err.code ? err.message : logfmt_strerror (rc));
  else if (t->mem->nranks == 0)
    g_set_error (error, MV_LOG_ERROR, 1, "%s has no memory records (log "
                 "with MPE_MEMORY=1 and LD_PRELOAD=libmpe_memory.so)",
                 log->path);
  if (rc || t->mem->nranks == 0)
    {
      mv_memory_table_free (t);
      return NULL;
    }
  return t;
}

void
mv_memory_table_free (MvMemoryTable *t)
{
  if (!t)
    return;
  an_memory_free (t->mem);
  cp_symbols_free (t->sym);
  g_free (t);
}

gboolean
mv_memory_table_write_json (const MvMemoryTable *t, FILE *f)
{
  const an_memory_t *m = t->mem;
  fprintf (f, "{\"per_rank\": [");
  for (size_t r = 0; r < m->nranks; r++)
    {
      const an_mem_rank_t *rk = &m->ranks[r];
      fprintf (f, "%s\n  {\"rank\": %d, \"peak_bytes\": %" PRId64 ", "
               "\"live_bytes_at_end\": %" PRId64 ", \"sites\": [",
               r ? "," : "", rk->rank, rk->peak, rk->live_end);
      for (size_t k = 0; k < rk->nsites; k++)
        {
          const an_mem_site_t *s = &m->sites[rk->first + k];
          fprintf (f, "%s\n    {\"function\": ", k ? "," : "");
          mv_json_string (f, s->function);
          fprintf (f, ", \"file\": ");
          mv_json_string (f, s->file);
          fprintf (f, ", \"line\": %d, \"kind\": \"%s\", \"calls\": %" PRId64
                   ", \"peak_bytes\": %" PRId64 ", \"live_bytes_at_end\": %"
                   PRId64 "}", s->line, s->kind ? "mmap" : "heap", s->calls,
                   s->peak, s->live_end);
        }
      fprintf (f, "]}");
    }
  fprintf (f, "\n]}");
  return !ferror (f);
}

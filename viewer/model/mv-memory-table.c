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
  /* The one form clogtool memory --json writes too. */
  return an_memory_write_json (t->mem, f, mv_json_string) == 0;
}

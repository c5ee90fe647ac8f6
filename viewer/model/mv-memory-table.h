/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memory table of the viewer: per rank its peak and the bytes live
 * at the end, per call site its calls, peak and bytes live at the end
 * (leaks): the numbers of clogtool memory, from the same analysis
 * (analysis/an-memory.c).
 */
#ifndef MV_MEMORY_TABLE_H
#define MV_MEMORY_TABLE_H

#include <stdio.h>

#include "mv-log.h"
#include "analysis/an-memory.h"
#include "callpath/callpath.h"

G_BEGIN_DECLS

typedef struct
{
  an_memory_t  *mem;     /* ranks and their sites */
  cp_symbols_t *sym;     /* owns the sites' names */
} MvMemoryTable;

/* Whether the log has memory records (MPE_MEMORY=1). */
gboolean       mv_memory_table_available (MvLog *log);
/* NULL and error if the log has none or cannot be read. */
MvMemoryTable *mv_memory_table_new (MvLog *log, GError **error);
void           mv_memory_table_free (MvMemoryTable *t);
/* {"per_rank": [{rank, peak_bytes, live_bytes_at_end, sites: [{function,
 * file, line, kind, calls, peak_bytes, live_bytes_at_end}]}]}: the keys,
 * order and numbers of clogtool memory --json. */
gboolean       mv_memory_table_write_json (const MvMemoryTable *t, FILE *f);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MvMemoryTable, mv_memory_table_free)

G_END_DECLS

#endif

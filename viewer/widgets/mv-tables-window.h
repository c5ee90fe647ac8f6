/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Threads and CPUs tables (logs written with MPE_SCHED=1) and the memory
 * table (MPE_MEMORY=1): one tab per table the log has records for, the
 * numbers of clogtool threads, cpus and memory (the same analysis code,
 * mv-sched-tables.h, mv-memory-table.h), sortable.
 */
#ifndef MV_TABLES_WINDOW_H
#define MV_TABLES_WINDOW_H

#include <gtk/gtk.h>

#include "mv-timeline.h"

G_BEGIN_DECLS

void mv_tables_window_show (GtkWindow *parent, MvTimeline *tl);

G_END_DECLS

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The threads and CPUs tables of the viewer: the numbers of clogtool
 * threads and clogtool cpus, from the same analysis (analysis/an-sched.c,
 * an-cpus.c), as rows the window lists and --export-tables writes.
 */
#ifndef MV_SCHED_TABLES_H
#define MV_SCHED_TABLES_H

#include <stdio.h>

#include "mv-log.h"

G_BEGIN_DECLS

typedef struct
{
  gint32  rank, thread;
  guint64 window_ns, on_ns, blocked_ns, preempted_ns;
  guint64 switches, migrations;
  char   *cpus;          /* "0,1": the CPUs it ran on */
} MvThreadRow;

typedef struct
{
  gint32  rank, thread;
  guint64 on_ns;         /* on this CPU */
} MvCpuUser;

typedef struct
{
  const char *host;
  gint32  cpu, core, socket, numa, smt;
  guint64 on_ns;
  gboolean shared_core;
  MvCpuUser *users;      /* the threads that ran there */
  guint   nusers;
} MvCpuTableRow;

typedef struct
{
  GArray *threads;       /* MvThreadRow, as clogtool threads lists them */
  GArray *cpus;          /* MvCpuTableRow, by host then CPU */
} MvSchedTables;

/* Whether the log has context-switch records (MPE_SCHED=1). */
gboolean       mv_sched_tables_available (MvLog *log);
/* NULL and error if the log has no switch records or cannot be read. */
MvSchedTables *mv_sched_tables_new (MvLog *log, GError **error);
void           mv_sched_tables_free (MvSchedTables *t);
/* The members (no braces) "threads": [{rank, thread, window_s, cpu_s,
 * offcpu_s, blocked_s, preempted_s, switches, migrations, cpus}],
 * "cpus": [{host, cpu, core, socket, numa, smt, on_s, threads: [{rank,
 * thread, on_s}]}]: the keys and number formats of clogtool threads/cpus
 * --json; both lists empty when t is NULL. */
gboolean       mv_sched_tables_write_json (const MvSchedTables *t, FILE *f);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MvSchedTables, mv_sched_tables_free)

G_END_DECLS

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* Headless rendering (--export), statistics (--export-stats) and
 * benchmark (--bench); never touch GTK. */
#ifndef MV_EXPORT_H
#define MV_EXPORT_H

#include <glib.h>

#include "../model/mv-groups.h"
#include "../model/mv-log.h"

G_BEGIN_DECLS

typedef struct
{
  const char *input;
  const char *output;       /* .png, .svg or .pdf; .csv for stats */
  gboolean    has_from, has_to;
  guint64     from, to;     /* ns */
  int         width, height; /* 0 = default */
  int         force_lod;     /* -1 auto, 0 decoded events, 1 summaries */
  const char *counter;       /* metric name drawn as counter tracks, or
                                NULL */
  gboolean    sched;         /* on/off-CPU shading in thread rows */
  gboolean    waits;         /* the waiting part of MPI calls hatched */
  gboolean    cpus;          /* the CPU view instead of the timeline */
  const char *track;         /* "memory" or "network" counter tracks */
  gboolean    samples;       /* call-path samples in the thread rows */
  int         sample_depth;  /* 0 ticks, k >= 1 a lane of the k-th frame */
  const char *ranks;         /* flame graph: "0,2-3" or NULL (all) */
  const char *flame_select;  /* a function whose flame graph node is
                                selected (its time marks drawn), or NULL */
  MvGroupMode group;         /* rows grouped by node or rank range */
  int         fold;          /* -1 default, 0 every group expanded,
                                1 every group collapsed */
} MvExportOpts;

/* Opens INPUT headless (no progress) and prints its load warning, if
 * any; NULL and ERROR set on failure. */
MvLog   *mv_export_open_log (const char *input, GError **error);
/* FALSE (with the error set) when --width/--height are out of range. */
gboolean mv_export_check_size (const MvExportOpts *o, GError **error);
gboolean mv_export_run (const MvExportOpts *o, GError **error);
/* The statistics table of instances beginning in [from, to] (default
 * the whole run) as CSV (mv_stats_to_csv). */
gboolean mv_export_stats_run (const MvExportOpts *o, GError **error);
/* Parses "1.5", "1.5s", "20ms", "3us", "100ns" (no unit: seconds). */
gboolean mv_parse_time (const char *s, guint64 *out);
/* The CPU view (one row per CPU) as PNG (mv-export-sched.c). */
gboolean mv_export_cpus_run (const MvExportOpts *o, GError **error);
/* The threads and CPUs tables as JSON (mv-sched-tables.h). */
gboolean mv_export_tables_run (const MvExportOpts *o, GError **error);
/* The communication matrix's heat map (counts) as PNG. */
gboolean mv_export_matrix_run (const MvExportOpts *o, GError **error);
/* The flame graph of [from, to) and o->ranks as PNG, or as JSON (the
 * tree as clogtool cct --json gives it, with each box's place); with
 * o->flame_select, that node's time marks on stdout. */
gboolean mv_export_flame_run (const MvExportOpts *o, GError **error);
/* The marks of function `name`'s widest flame node over [t0, t1) and
 * ranks (NULL all); NULL with error if there is no such function. */
GArray  *mv_export_flame_marks (MvLog *log, guint64 t0, guint64 t1,
                                const char *ranks, const char *name,
                                GError **error);
/* Headless benchmark of the matrix window: prints figures on stdout. */
int      mv_bench_matrix_run (const char *input, int width, int height);
/* Headless benchmark: prints figures on stdout. */
int      mv_bench_run (const char *input, int width, int height,
                       MvGroupMode group, int fold);
/* Groups of log's rows for mode and fold (as MvExportOpts.fold). */
MvGroups *mv_export_groups (MvLog *log, MvGroupMode mode, int fold);

G_END_DECLS

#endif

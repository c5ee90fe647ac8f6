/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU view's model: one row per CPU of each host (from the log's
 * topology, and any CPU a thread ran on), with the runs of the threads
 * on it in time order, from the context-switch records (the analysis
 * of clogtool cpus, analysis/an-cpus.c).  Per pixel column the thread
 * that ran longest there, so two threads sharing a CPU alternate.
 */
#ifndef MV_CPUVIEW_H
#define MV_CPUVIEW_H

#include "mv-log.h"

G_BEGIN_DECLS

typedef struct
{
  guint64 t0, t1;
  guint32 stream;
} MvCpuRun;

typedef struct
{
  const char *host;          /* "" when the log names none */
  gint32  cpu, core, socket, numa, smt;   /* -1 unknown */
  gboolean shared_core;      /* its core ran more than one thread */
  GArray *runs;              /* MvCpuRun by t0 (never overlapping) */
  guint64 on;                /* ns some thread ran there */
} MvCpuRow;

typedef struct
{
  MvLog    *log;
  guint     nrows;
  MvCpuRow *rows;            /* by host, then CPU number */
  guint     nhosts;
} MvCpuView;

/* NULL and error if the log has no switch records or cannot be read. */
MvCpuView *mv_cpuview_new (MvLog *log, GError **error);
void       mv_cpuview_free (MvCpuView *cv);
/* out[x] (width of them): the stream that ran longest in column x of
 * [t0, t1), or -1 if the CPU was idle (for the log's threads). */
void       mv_cpuview_pixels (const MvCpuView *cv, guint row, guint64 t0,
                              guint64 t1, int width, gint32 *out);
/* "host cpu 3  core 1 smt 1" (caller frees). */
char      *mv_cpuview_row_label (const MvCpuView *cv, guint row);
/* The colour of a thread: a hue per rank, lighter for its other
 * threads. */
guint32    mv_cpuview_stream_rgb (const MvLog *log, guint32 stream);

/* The first ranks' colours (tests look for them). */
#define MV_CPUVIEW_RANK0_RGB 0x1f77b4u
#define MV_CPUVIEW_RANK1_RGB 0xd62728u

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MvCpuView, mv_cpuview_free)

G_END_DECLS

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Call-path samples (FORMAT.md section 15) in the timeline: per pixel
 * column of a thread's row, the function most samples of that column
 * were in (the innermost frame, or the frame at a chosen depth from the
 * outermost: a stack lane), read from the track chunks that overlap the
 * window only.  Symbols come from callpath/ (libdw, cached); each
 * function gets a colour of its own, the same in every window and run.
 *
 * MvSampleSource holds what is kept from frame to frame (each rank's
 * call-path tables, the node -> function memo); it is shared by the
 * timeline's worker threads (one lock) and reference counted.
 */
#ifndef MV_SAMPLES_H
#define MV_SAMPLES_H

#include <glib.h>

#include "mv-log.h"

G_BEGIN_DECLS

typedef struct MvSampleSource MvSampleSource;

/* A place in time on one row: where a context of the flame graph ran
 * (mv-flame.h), drawn over the timeline. */
typedef struct
{
  guint32 stream;
  guint64 t0, t1;       /* ns, [t0, t1) */
  guint32 samples;      /* samples merged into it */
} MvTimeMark;

/* TRUE if the log has call-path samples (track kind 2). */
gboolean        mv_log_has_samples (const MvLog *log);
/* (transfer full); never NULL. */
MvSampleSource *mv_sample_source_new (MvLog *log);
MvSampleSource *mv_sample_source_ref (MvSampleSource *src);
void            mv_sample_source_unref (MvSampleSource *src);
/* Seconds one sample stands for (1 / MPE_SAMPLE_HZ, default 1/200). */
double          mv_sample_period (const MvLog *log);

/* Per column of [t0, t1) over width columns: fn[x] the function most
 * samples of the column were in (at `depth`: 0 the innermost frame,
 * k >= 1 the k-th frame from the outermost; a sample whose stack is not
 * that deep counts for none), 0 for none; n[x] the samples in it (may
 * be NULL).  With depth >= 1 a sample also fills the columns of its
 * period that have none (a lane, not ticks).  FALSE if the track could
 * not be read (fn all 0, *problem set). */
gboolean    mv_sample_source_lane (MvSampleSource *src, guint32 stream,
                                   guint64 t0, guint64 t1, int width,
                                   int depth, guint32 *fn, guint32 *n,
                                   char **problem);
/* The name of a function id from mv_sample_source_lane (valid as long
 * as src), or NULL. */
const char *mv_sample_source_func_name (MvSampleSource *src, guint32 fn);
/* A function's colour (0xRRGGBB), from its name: stable. */
guint32     mv_sample_func_rgb (const char *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MvSampleSource, mv_sample_source_unref)

G_END_DECLS

#endif

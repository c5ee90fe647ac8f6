/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The profile of a window (analysis/an-profile.c) for the profile table:
 * per MPI function and user state, calls, times, bytes and the time of
 * each rank.  Reads every record of the streams: run it on a worker.
 */
#ifndef MV_PROFILE_H
#define MV_PROFILE_H

#include <gio/gio.h>

#include "analysis/analysis.h"
#include "mv-log.h"

G_BEGIN_DECLS

typedef struct
{
  MvLog        *log;
  guint64       t0, t1;   /* calls that start in [t0, t1] */
  an_profile_t *p;
} MvProfile;

/* (transfer full) or NULL with error set. */
MvProfile *mv_profile_compute (MvLog *log, guint64 t0, guint64 t1,
                               GError **error);
void       mv_profile_free (MvProfile *pr);

/* The spread of one entry's per-rank time over `ncols` columns (a
 * column holds consecutive ranks when there are more ranks than
 * columns): lo[c] and hi[c] the least and most time of a rank in column
 * c, in ns.  Returns the columns used (<= ncols). */
guint mv_profile_rank_columns (const MvProfile *pr, gsize entry,
                               guint ncols, double *lo, double *hi);

G_END_DECLS

#endif

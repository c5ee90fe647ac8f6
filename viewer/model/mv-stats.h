/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole-run (or range) statistics per state and rank, duration
 * histograms with log-scaled bins, instance lists and search.  All of
 * these scan streams and belong on a worker thread.
 */
#ifndef MV_STATS_H
#define MV_STATS_H

#include <gio/gio.h>

#include "mv-log.h"

G_BEGIN_DECLS

/* Four bins per decade from 1 ns (bin 0 also holds 0) to 10^12 ns. */
#define MV_HIST_PER_DECADE 4
#define MV_HIST_BINS       48

typedef struct
{
  guint64 count;
  guint64 incl;     /* sum of durations */
  guint64 excl;     /* time it was the innermost open instance */
  guint64 min, max;
} MvStatCell;

typedef struct
{
  MvLog    *log;
  guint64   t0, t1;      /* instances that begin in [t0, t1] */
  guint     nranks;
  gint32   *ranks;       /* distinct ranks, ascending */
  guint     nstates;
  MvStatCell *cells;     /* [state * (nranks + 1) + rank index]; the
                            last column is the total */
  guint64  *hist;        /* [state * MV_HIST_BINS + bin], all ranks */
  guint64  *ev_count;    /* solo events per definition in range */
  guint64   unmatched;   /* ends that closed nothing, begins beyond the
                            depth limit, instances never ended (left
                            out of the table, FORMAT.md section 13) */
} MvStats;

/* Reads every stream (off the GUI thread: a billion events take a
 * while).  progress (may be NULL) gets the fraction done and may stop
 * the pass (TRUE); stopped or cancelled: NULL and G_IO_ERROR_CANCELLED. */
MvStats *mv_stats_compute (MvLog *log, guint64 t0, guint64 t1,
                           MvProgressFunc progress, gpointer user,
                           GCancellable *cancellable, GError **error);
void     mv_stats_free (MvStats *st);
const MvStatCell *mv_stats_cell (const MvStats *st, guint state,
                                 int rank_index /* -1 = total */);

int      mv_hist_bin (guint64 duration);
guint64  mv_hist_bin_lo (int bin);   /* inclusive lower bound, ns */

typedef struct
{
  guint32 stream;
  guint64 t_begin, t_end;
} MvInstance;

/* Instances of `state` beginning in [t0, t1] whose duration falls in
 * `bin` (-1: any), at most max.  (transfer full) GArray of MvInstance. */
GArray  *mv_stats_instances (MvLog *log, gint32 state, int bin,
                             guint64 t0, guint64 t1, guint max,
                             GCancellable *cancellable);

/* The first instance of `state` beginning after `from` (forward) or the
 * last one beginning before it, over all streams.  progress (may be
 * NULL) gets the fraction of the time left that is searched and may
 * stop the search (TRUE); stopped or cancelled: FALSE. */
gboolean mv_search_state (MvLog *log, gint32 state, guint64 from,
                          gboolean forward, MvInstance *out,
                          MvProgressFunc progress, gpointer user,
                          GCancellable *cancellable);
/* The statistics table as CSV, as the statistics window shows it: a
 * header, then per state its total row (rank `all`) and a row per rank
 * with instances; columns state, rank, count, total_s, exclusive_s,
 * mean_s, min_s, max_s (seconds, 9 decimals).  (transfer full) */
char    *mv_stats_to_csv (const MvStats *st);
/* Writes it to path (atomically: a failed write leaves no half file). */
gboolean mv_stats_save_csv (const MvStats *st, const char *path,
                            GError **error);

/* State index by name (exact, then case-insensitive prefix), or -1. */
gint32   mv_find_state_by_name (const MvLog *log, const char *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MvStats, mv_stats_free)

G_END_DECLS

#endif

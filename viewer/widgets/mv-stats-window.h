/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Statistics window: per-state table (count, total, mean, min, max,
 * inclusive and exclusive time; per rank and total; sortable) and a
 * log-binned duration histogram whose bars list their instances; the
 * table can be saved as CSV (mv_stats_to_csv).
 */
#ifndef MV_STATS_WINDOW_H
#define MV_STATS_WINDOW_H

#include <gtk/gtk.h>

#include "mv-timeline.h"

G_BEGIN_DECLS

#define MV_TYPE_STATS_WINDOW (mv_stats_window_get_type ())
G_DECLARE_FINAL_TYPE (MvStatsWindow, mv_stats_window, MV, STATS_WINDOW,
                      GtkWindow)

/* Opens (or presents) the statistics window of a timeline. */
GtkWidget *mv_stats_window_show (GtkWindow *parent, MvTimeline *tl);

G_END_DECLS

#endif

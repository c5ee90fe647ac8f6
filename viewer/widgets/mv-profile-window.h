/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Profile window: the mpiP-style table of clogtool profile (per MPI
 * function and user state: calls, time, mean, share, bytes, imbalance
 * across ranks) for the whole run or the timeline's selection, and under
 * it the selected row's time per rank as bars, with the mean marked.
 */
#ifndef MV_PROFILE_WINDOW_H
#define MV_PROFILE_WINDOW_H

#include <gtk/gtk.h>

#include "mv-timeline.h"

G_BEGIN_DECLS

#define MV_TYPE_PROFILE_WINDOW (mv_profile_window_get_type ())
G_DECLARE_FINAL_TYPE (MvProfileWindow, mv_profile_window, MV, PROFILE_WINDOW,
                      GtkWindow)

/* Opens (or presents) the profile window of a timeline. */
GtkWidget *mv_profile_window_show (GtkWindow *parent, MvTimeline *tl);

G_END_DECLS

#endif

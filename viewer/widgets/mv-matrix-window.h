/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communication matrix window: a heat map of messages (count, bytes or
 * time) from sender rows to receiver columns for the whole run or the
 * timeline's selection (followed as it changes), one communicator or
 * all; clicking a block lists its messages, activating one shows it in
 * the timeline.  Collectives per communicator are listed below.
 */
#ifndef MV_MATRIX_WINDOW_H
#define MV_MATRIX_WINDOW_H

#include <gtk/gtk.h>

#include "mv-timeline.h"

G_BEGIN_DECLS

#define MV_TYPE_MATRIX_WINDOW (mv_matrix_window_get_type ())
G_DECLARE_FINAL_TYPE (MvMatrixWindow, mv_matrix_window, MV, MATRIX_WINDOW,
                      GtkWindow)

/* Opens (or presents) the matrix window of a timeline. */
GtkWidget *mv_matrix_window_show (GtkWindow *parent, MvTimeline *tl);

G_END_DECLS

#endif

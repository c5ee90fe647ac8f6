/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flame graph window: the calling-context tree of the call-path samples
 * (the numbers of clogtool cct) of the whole run or the timeline's
 * selection, for every rank or a list of them, as an icicle (each box
 * as wide as its samples).  Hover shows a node's function, file, line,
 * self and total samples; a click marks in the timeline the rows and
 * times its samples fell in.  It also turns the timeline's sample
 * strips on and off (ticks or a stack lane at a depth).
 */
#ifndef MV_FLAME_WINDOW_H
#define MV_FLAME_WINDOW_H

#include <gtk/gtk.h>

#include "mv-timeline.h"

G_BEGIN_DECLS

#define MV_TYPE_FLAME_WINDOW (mv_flame_window_get_type ())
G_DECLARE_FINAL_TYPE (MvFlameWindow, mv_flame_window, MV, FLAME_WINDOW,
                      GtkWindow)

/* Opens (or presents) the flame graph window of a timeline. */
GtkWidget *mv_flame_window_show (GtkWindow *parent, MvTimeline *tl);

G_END_DECLS

#endif

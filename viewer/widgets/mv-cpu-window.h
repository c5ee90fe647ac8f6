/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CPU view window: one row per CPU of each host (cores, SMT siblings and
 * sockets in the labels; "shared" where a core ran several threads),
 * coloured by the rank/thread running there, for the timeline's visible
 * window (followed as it changes).  Hover names the thread.
 */
#ifndef MV_CPU_WINDOW_H
#define MV_CPU_WINDOW_H

#include <gtk/gtk.h>

#include "mv-timeline.h"

G_BEGIN_DECLS

/* Opens (or presents) the CPU view of a timeline's log; an error dialog
 * if the log has no switch records. */
void mv_cpu_window_show (GtkWindow *parent, MvTimeline *tl);

G_END_DECLS

#endif

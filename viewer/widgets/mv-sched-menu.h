/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "Threads" menu of the header bar: on/off-CPU shading in the thread
 * rows, and the windows about threads, CPUs and memory (for logs
 * written with MPE_SCHED=1 / MPE_MEMORY=1 / MPE_NETWORK=1).
 */
#ifndef MV_SCHED_MENU_H
#define MV_SCHED_MENU_H

#include <gtk/gtk.h>

#include "mv-timeline.h"

G_BEGIN_DECLS

GtkWidget *mv_sched_menu_new (GtkWindow *parent, MvTimeline *tl);
/* Greys out (with the reason in the tooltip) what the log has no
 * records for. */
void       mv_sched_menu_set_log (GtkWidget *menu, MvLog *log);

G_END_DECLS

#endif

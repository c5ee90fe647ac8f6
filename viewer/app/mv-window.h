/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MV_WINDOW_H
#define MV_WINDOW_H

#include "../model/mv-groups.h"

/* How the next windows group their rows (mpeview --group, --collapse,
 * --expand; fold as mv_timeline_set_grouping). */
void mv_window_set_grouping (MvGroupMode mode, int fold);

/* Runs the GTK application; opens `path` if not NULL.  Exit status. */
int mv_window_main (const char *path);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MV_WINDOW_H
#define MV_WINDOW_H

/* Runs the GTK application; opens `path` if not NULL.  Exit status. */
int mv_window_main (const char *path);

#endif

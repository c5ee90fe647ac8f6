/* SPDX-License-Identifier: BSD-3-Clause */
/* What the viewer's table windows (statistics, profile, matrix, ...)
 * share: one window of a kind per main window and log, sortable tree-view
 * columns, the range chooser, and the completion of their background
 * jobs. */
#ifndef MV_CHILD_WINDOW_H
#define MV_CHILD_WINDOW_H

#include <gtk/gtk.h>

#include "../model/mv-log.h"

G_BEGIN_DECLS

/* The window of kind KEY that PARENT already shows for LOG, brought to
 * the front; NULL when there is none (one for another log is closed). */
GtkWidget *mv_child_window_reuse (GtkWindow *parent, const char *key,
                                  MvLog *log);

/* Remembers WIN as PARENT's window of kind KEY (a string that lives as
 * long as the program) for LOG, until WIN is destroyed. */
void mv_child_window_register (GtkWindow *parent, const char *key,
                               GtkWidget *win, MvLog *log);

/* Tells in a modal dialog over PARENT why a window cannot open; frees
 * ERROR. */
void mv_child_window_error (GtkWindow *parent, GError *error);

/* Appends a sortable, resizable column showing model column COL: as
 * text, or right-aligned through FMT (called with COL as its data). */
GtkTreeViewColumn *mv_tree_add_column (GtkTreeView *tree, const char *title,
                                       int col, GtkTreeCellDataFunc fmt);

/* A combo box of ITEMS (NULL-terminated), the first one chosen. */
GtkWidget *mv_combo_new (const char *const *items);

/* The "Whole run" / "Selection (or visible window)" chooser. */
GtkWidget *mv_range_combo_new (void);

/* A tool bar that starts with "Range" and that chooser (stored in
 * *RANGE); the caller packs its own controls after it. */
GtkWidget *mv_range_bar_new (GtkWidget **range);

/* A job's result: its pointer, or NULL when it failed (the error shown
 * in STATUS) or was cancelled (a closed window: nothing shown). */
gpointer mv_job_result (GAsyncResult *res, GtkWidget *status);

G_END_DECLS

#endif

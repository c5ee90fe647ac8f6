/* SPDX-License-Identifier: BSD-3-Clause */
/* mpetop's window (GTK 3). */
#ifndef TOP_WINDOW_H
#define TOP_WINDOW_H

#include "top-conn.h"
#include "top-text.h"

/* Runs the window until it is closed (or, with exit_after_job, until the
 * job has ended).  gtk_init must have succeeded.  Returns the exit code. */
int top_window_run (top_conn_t *conn, top_text_opts_t *opts,
                    int exit_after_job);

#endif

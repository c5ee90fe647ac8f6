/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPEVIEW_TEST_LOG=FILE: the windows append there what the GUI tests
 * check and X tools cannot read (texts shown, places of controls, what
 * is greyed out and why), one line per fact.
 */
#ifndef MV_TEST_LOG_H
#define MV_TEST_LOG_H

#include <glib.h>

G_BEGIN_DECLS

/* TRUE if MPEVIEW_TEST_LOG names a file. */
gboolean mv_test_log_on (void);
/* Appends one line (a no-op unless mv_test_log_on). */
void     mv_test_log (const char *fmt, ...) G_GNUC_PRINTF (1, 2);

G_END_DECLS

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scheduling in the viewer (logs written with MPE_SCHED=1): how much of
 * each pixel column a thread spent off its CPU, blocked or preempted,
 * read from its context-switch track (track kind 4) for the window only:
 * the chunks that overlap it, plus the one record before it that says
 * whether the thread was running when the window begins.
 */
#ifndef MV_SCHED_H
#define MV_SCHED_H

#include "mv-log.h"

G_BEGIN_DECLS

/* Off-CPU coverage of one stream over [t0, t1) in width columns:
 * blocked[x] and preempted[x] are the parts of column x (0 .. 255) the
 * thread spent off its CPU for each reason.  FALSE (arrays untouched)
 * when the stream has no switch track or it cannot be read. */
gboolean mv_sched_offcpu (const MvLog *log, guint32 stream, guint64 t0,
                          guint64 t1, int width, guint8 *blocked,
                          guint8 *preempted);
/* TRUE if any stream of the log has context-switch records. */
gboolean mv_sched_log_has (const MvLog *log);

G_END_DECLS

#endif

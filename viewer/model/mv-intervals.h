/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The viewer's use of logfmt's one state-interval rule (FORMAT.md
 * section 13, logfmt_state_tracker_*) over records it decodes itself: a
 * lane's window is decoded from a point shortly before it (not from the
 * stream's start, which can be millions of records back), so the states
 * open there are first inferred, then the tracker is seeded with them.
 *
 *   pass 1: mv_tracker_seed_begin, mv_tracker_seed_scan per record,
 *           mv_tracker_seed_end (tstart): the ENDs that close nothing
 *           in the decoded range are states open before it;
 *   pass 2: mv_tracker_apply per record.
 * Decoded from the stream's start, nothing is inferred and the
 * instances are exactly logfmt_interval_iter's.  After a lookback, the
 * states open at its start are found from ENDs that close nothing (as
 * far as the caller decoded); the first to end is taken as the
 * innermost, which is exact for states that nest, a guess for states
 * open there that overlap without nesting.
 */
#ifndef MV_INTERVALS_H
#define MV_INTERVALS_H

#include <glib.h>
#include <logfmt/logfmt.h>

G_BEGIN_DECLS

/* Records per batch call (mv_tracker_*_batch). */
#define MV_TRACKER_BATCH 256

typedef struct
{
  logfmt_state_tracker_t *tr;
  GArray                 *pre;    /* gint32: unmatched ENDs of pass 1 */
  logfmt_event_t          ev;     /* the record being applied */
  /* Batches: records for callers that convert their own compact ones
   * (time, kind, state set; flags left 0), and what logfmt's batch form
   * reports about them; MV_TRACKER_BATCH each. */
  logfmt_event_t         *in;
  gint32                 *top;
  logfmt_interval_t      *closed;
  gint32                 *unmatched;
} MvTracker;

/* nesting_only: logfmt's LOGFMT_TRACKER_NESTING (the same pairing,
 * no exclusive times or cargo, so mv_interval_inferred cannot tell
 * seeded instances), for lanes that draw only the innermost state. */
MvTracker *mv_tracker_new (guint nstates, gboolean nesting_only);
void       mv_tracker_free (MvTracker *t);

/* Pass 1 is needed only when tstart > 0 (callers skip it otherwise). */
void       mv_tracker_seed_begin (MvTracker *t);
/* Restarts the tracker with the states open at tstart (the decode's
 * start; 0: the stream's start, nothing inferred), outermost first. */
void       mv_tracker_seed_end (MvTracker *t, guint64 tstart);

/* After mv_tracker_seed_end (tstart): what applying the records of a lookback
 * scanned by pass 1 from its start would do, from pass 1's outcome
 * there: its first nunmatched ENDs that closed nothing (t->pre) close
 * the seeded instances they pair with, then the n instances it left
 * open (outermost first) open on top, at their start times.  The same
 * as applying the records again (an END closing nothing in the scan
 * closes a seeded instance or nothing; the rest pair within the scan)
 * unless more than LOGFMT_STATE_MAX_DEPTH instances are open. */
void       mv_tracker_seed_lookback (MvTracker *t, guint64 tstart,
                                     guint nunmatched, guint n,
                                     const gint32 *state,
                                     const guint64 *start);

/* Restarts the tracker with n instances open (outermost first), as a
 * walk from the stream's start had them: their BEGINs are applied again
 * at their start times. */
void       mv_tracker_restore (MvTracker *t, guint n, const gint32 *state,
                               const guint64 *start);

/* A logfmt_step_t; *closed (may be NULL) is filled for
 * LOGFMT_STEP_CLOSED, and *inner (may be NULL) with the number of open
 * instances that were inside it (0: it was the innermost).  Inline:
 * lanes apply every record they draw. */
static inline int
mv_tracker_apply (MvTracker *t, guint8 kind, gint32 state, guint64 time,
                  logfmt_interval_t *closed, guint32 *inner)
{
  if (kind != LOGFMT_KIND_BEGIN && kind != LOGFMT_KIND_END)
    return LOGFMT_STEP_NONE;
  t->ev.kind = kind;
  t->ev.state = state;
  t->ev.time = time;
  return logfmt_state_tracker_apply (t->tr, &t->ev, closed, inner);
}

/* Pass 1, per record (inline: lanes scan every record they decode). */
static inline void
mv_tracker_seed_scan (MvTracker *t, guint8 kind, gint32 state, guint64 time)
{
  if (mv_tracker_apply (t, kind, state, time, NULL, NULL)
      == LOGFMT_STEP_UNMATCHED_END)
    g_array_append_val (t->pre, state);
}

/* Pass 1 over n <= MV_TRACKER_BATCH records in one call. */
void       mv_tracker_seed_scan_batch (MvTracker *t, const logfmt_event_t *ev,
                                       guint n);
/* Pass 2 over n <= MV_TRACKER_BATCH records in one call (logfmt's batch
 * form: no call per record): t->top[i] is the innermost open state
 * after ev[i] (-1 none) if want_top; the instances closed are
 * t->closed[0 .. returned count) if want_closed. */
guint      mv_tracker_apply_batch (MvTracker *t, const logfmt_event_t *ev,
                                   guint n, gboolean want_top,
                                   gboolean want_closed);

/* Open instances, outermost (0) first. */
guint      mv_tracker_depth (const MvTracker *t);
const logfmt_interval_t *mv_tracker_open (const MvTracker *t, guint i);
/* TRUE for an instance seeded by pass 1: its start is only a bound. */
gboolean   mv_interval_inferred (const logfmt_interval_t *iv);

G_END_DECLS

#endif

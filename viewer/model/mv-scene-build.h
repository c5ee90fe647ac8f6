/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to the scene building (mv-scene.c and the lane and arrow
 * files it calls): helpers they share and the one entry point of each.
 */
#ifndef MV_SCENE_BUILD_H
#define MV_SCENE_BUILD_H

#include "mv-intervals.h"
#include "mv-pyramid.h"
#include "mv-scene.h"

G_BEGIN_DECLS

/* Above this many messages in the window, arrows are not drawn (they
 * would be a solid mass; the status says to zoom in). */
#define MV_SCENE_MAX_MSGS_SCANNED 40000u

/* A group's header lane (mv-groups.h) of more rows than this is drawn
 * from the whole-run pyramids only, however far zoomed in: reading
 * every row's summary for the window costs about 40 us a row (4 s for
 * 100,000 processes); a node of up to this many processes, or a group
 * unfolded to such, gets the window's detail. */
#define MV_SCENE_FINE_MAX_GROUP_ROWS 64u

/* TRUE if the visible rows are many more than the pixel rows (no
 * slots): lanes of more than MV_SCENE_FINE_MAX_GROUP_ROWS rows each, as
 * big groups' headers, whose rows' pyramids are read without keeping
 * them (100,000 processes ungrouped: 150 MB). */
gboolean mv__rows_per_pixel_many (const MvLog *log, const MvSceneParams *p);
/* Length of the run, ns (at least 1). */
double   mv__run_span (const MvLog *log);
/* Where a stream's decode for [t0, t1] starts: far enough back to find
 * the states open at t0 (the whole stream's start when that is cheap). */
guint64  mv__decode_start (const MvLog *log, guint32 stream, guint64 t0,
                           guint64 t1);
/* TRUE if the stream has a record after time t (reads one block at
 * most). */
gboolean mv__stream_goes_on (const MvLog *log, guint32 stream, guint64 t);
/* TRUE if flags (n of them, may be NULL) hide i. */
gboolean mv__hidden (const guint8 *flags, guint n, gint32 i);
/* Keeps the first problem met (lanes run on several threads); takes
 * msg. */
void     mv__scene_problem (MvScene *s, char *msg);

/* ---- summary lanes (mv-lane-summary.c) ---- */

typedef struct MvFineAcc_ MvFineAcc;   /* mv-lane-fine.c */

/* What every summary lane of a frame shares. */
typedef struct
{
  const guint32    *rgb;     /* per state */
  const guint32    *lut;     /* per state x coverage 0-255 */
  MvPyrGeom         geom;
  guint             hid;     /* hash of the hidden states */
  MvLaneMemo       *memo;    /* the last frame, if this one is its pan */
  gint              shift;   /* new pixel x = memo's x + shift */
} MvSummaryFrame;

/* Sets up f for s (pyramid geometry, colours, the memo of the last
 * frame if this one is a pan of it) and the scene's lane block. */
void     mv__summary_frame_init (MvScene *s, MvSummaryFrame *f);
/* After a complete frame: its lanes become the memo for the next. */
void     mv__summary_frame_publish (MvScene *s, MvSummaryFrame *f);
void     mv__summary_frame_clear (MvScene *s, MvSummaryFrame *f);
/* One lane; occ (width x nstates floats) and fine are the calling
 * thread's scratch. */
gboolean mv__lane_summary (MvScene *s, MvLane *lane, const MvSummaryFrame *f,
                           float *occ, MvFineAcc *fine,
                           guint64 *nread, GError **error);

/* ---- summary lanes read for the window (mv-lane-fine.c) ---- */

/* TRUE if this window is zoomed in further than the pyramids resolve
 * and the file can give better for it. */
gboolean   mv__fine_wanted (MvCache *cache, const MvSceneParams *p);
MvFineAcc *mv__fine_acc_new (guint width, guint nstates);
void       mv__fine_acc_free (MvFineAcc *a);
void       mv__lane_fine (MvScene *s, MvLane *lane, MvFineAcc *a,
                          const guint32 *lut, guint64 *nread);
/* The rows of s->lanes that several of them sum (NULL if none). */
MvFineRows *mv__fine_rows_new (MvScene *s);
void       mv__fine_rows_free (MvFineRows *fr);
/* TRUE if row is one of them (fr may be NULL). */
gboolean   mv__fine_rows_has (const MvFineRows *fr, guint row);

/* ---- decoded lanes (mv-lane-decode.c) ---- */

/* Spans and markers of one lane; evs and tr are the calling thread's
 * scratch. */
gboolean mv__lane_decode (MvScene *s, MvLane *lane, GArray *evs,
                          MvTracker *tr, guint64 *nread, GError **error);
/* The stream's events covering [tstart, t1]: from the cache, or decoded
 * with a margin around the window and kept (unless damaged).  Decoded
 * lanes and the group headers over them share them.  (transfer full) */
MvDecoded *mv__decoded_get (MvScene *s, guint32 stream, guint64 tstart,
                            guint64 t1, guint64 *nread, GError **error);
/* The index of d's first event at or after t (its length if none). */
guint      mv__decoded_first_at (const MvDecoded *d, guint64 t);

/* ---- arrows (mv-arrows.c) ---- */

void     mv__scene_arrows (MvScene *s, GCancellable *cancellable);
/* Counter tracks of the metric p.show_metric asks for (mv-counters.c). */
void     mv__scene_counters (MvScene *s);
/* Off-CPU shading of thread lanes when p.show_sched (mv-sched.c). */
void     mv__scene_sched (MvScene *s);
/* Memory or NIC tracks when p.restrack, in the lanes' counter bins
 * (mv-restracks.c). */
void     mv__scene_restracks (MvScene *s);
/* Sample ticks or lanes of p.samples (mv-lane-samples.c). */
void     mv__scene_samples (MvScene *s);

G_END_DECLS

#endif

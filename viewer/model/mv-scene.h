/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MvScene: everything one frame of the timeline shows, computed from a
 * log for a window and a size (off the GUI thread), then immutable.
 *
 * Level of detail: when the visible window holds more events than the
 * decode budget, or rows are thinner than MV_SCENE_MIN_DECODE_ROW_H
 * pixels, each lane is a strip of per-pixel colours (the dominant state,
 * faded by coverage) from the file's summaries; otherwise the visible
 * blocks are decoded into spans
 * (states, with their nesting depth), markers (solo events) and arrows.
 *
 * Built by mv-scene.c (level of detail, lanes shared by two threads),
 * one job per file: mv-lane-summary.c (lanes from the pyramids),
 * mv-lane-fine.c (summary lanes read for the window), mv-lane-decode.c
 * (spans and markers), mv-arrows.c, mv-hit.c (hit testing, tooltips).
 * What is kept from frame to frame is in the MvCache (mv-cache.h).
 */
#ifndef MV_SCENE_H
#define MV_SCENE_H

#include <gio/gio.h>

#include "mv-cache.h"
#include "mv-groups.h"
#include "mv-log.h"
#include "mv-samples.h"
#include "mv-view.h"

G_BEGIN_DECLS

#define MV_SCENE_MIN_DECODE_ROW_H 4.0
#define MV_SCENE_DEFAULT_BUDGET   50000u   /* events decoded per frame */
#define MV_SCENE_MAX_ARROWS       2000u    /* more are aggregated */
#define MV_SCENE_BG_RGB           0xffffffu
#define MV_LOSS_RGB               0xd0021bu  /* a loss record's marker */
#define MV_WAIT_HATCH_RGB         0x2b2b2bu  /* the waiting part of a call */

enum
{
  MV_SPAN_OPEN_LEFT  = 1 << 0,  /* began before the decoded range */
  MV_SPAN_OPEN_RIGHT = 1 << 1,  /* still open at the window's end */
  MV_SPAN_MERGED     = 1 << 2,  /* several sub-pixel instances */
  MV_SPAN_CUT        = 1 << 3,  /* never ended: cut at the stream's last
                                   record (FORMAT.md section 13) */
};

typedef struct
{
  float   x0, x1;      /* pixels, clipped to [-1, width + 1] */
  guint16 depth;       /* open states beneath it */
  guint16 flags;
  gint32  state;
  guint32 count;       /* instances merged into this span */
  guint64 t_begin;     /* ns; t_begin is only a bound if OPEN_LEFT */
  guint64 t_end;
} MvSpan;

typedef struct
{
  float   x;
  gint32  evdef;       /* definition index, or -1 (undefined id / loss) */
  gint32  id;          /* MPE event id (any sign: MPE's own are
                          negative), or the events lost if loss */
  guint32 count;
  guint64 time;
  guint16 flags;       /* LOGFMT_EVF_CARGO */
  guint8  loss;        /* a loss record (LOGFMT_KIND_LOSS), not an event */
  guint8  cargo[LOGFMT_CARGO_SIZE];
} MvMarker;

typedef struct
{
  float   x0, y0, x1, y1;   /* pixels (y relative to the rows area) */
  guint32 count;            /* > 1 when aggregated */
  logfmt_message_t msg;     /* the message (first of the group) */
} MvArrow;

/* The waiting part of an MPI call drawn over its span (p.show_waits). */
typedef struct
{
  float   x0, x1;      /* pixels, clipped to [-1, width + 1] */
  gint32  state;       /* the MPI function (its span's state) */
  guint64 t0, t1;      /* ns */
} MvWaitSpan;

typedef struct
{
  guint    row_first;   /* rows [row_first, row_first + row_count) */
  guint    row_count;
  double   y, h;        /* pixels, relative to the rows area */
  GArray  *spans;       /* MvSpan, decode mode */
  GArray  *markers;     /* MvMarker, decode mode */
  guint32 *pixels;      /* summary mode: 0xRRGGBB per pixel column */
  gint16  *dominant;    /* summary mode: innermost state, -1 none */
  guint8  *dom_pct;     /* how much of the pixel states cover, percent */
  logfmt_metric_bin_t *counter;  /* p.show_metric: p.width bins of the
                                    metric (mv-counters.c), or NULL */
  guint8  *offcpu;      /* p.show_sched: p.width columns blocked, then
                           p.width preempted, 0-255 (mv-sched.c), or NULL */
  GArray  *waits;         /* MvWaitSpan, decode mode with p.show_waits,
                             or NULL */
  guint32 *sample_fn;     /* p.samples: per pixel column the function
                             of the samples (mv-samples.h), or NULL */
  gboolean in_block;      /* the arrays are in the scene's lane_block */
  gboolean from_pyramid;  /* sampled from a pyramid (reusable by a pan) */
} MvLane;

typedef struct
{
  guint64        t0, t1;
  int            width;          /* plot pixels */
  double         height;         /* rows-area pixels */
  double         row_h;
  double         y0;             /* vertical scroll, pixels */
  const guint8  *state_hidden;   /* nstates flags, may be NULL */
  const guint8  *evdef_hidden;   /* nevdefs flags, may be NULL */
  gboolean       hide_arrows;
  guint64        budget;         /* 0 = MV_SCENE_DEFAULT_BUDGET */
  int            force_lod;      /* -1 auto, 0 decode, 1 summary */
  gboolean       coarse_lanes;   /* summary lanes from the whole-run
                                    pyramids only, however far zoomed
                                    in (a first stage) */
  guint          sample_rows;    /* > 0: a lane aggregating more rows
                                    reads only this many of them, spread
                                    over its range (a first stage while
                                    most rows' summaries are unread:
                                    100,000 processes) */
  gboolean       show_metric;    /* a counter track under each process */
  guint32        metric;         /* its logfmt_metric_def_t.id */
  gboolean       show_sched;     /* off-CPU shading in thread rows */
  gboolean       show_waits;     /* the waiting part of MPI calls, where
                                    states are decoded (a pass over the
                                    whole run the first time) */
  int            restrack;       /* MvResTrack (mv-restracks.h): memory
                                    or NIC counter tracks, 0 none */
  MvSampleSource *samples;       /* call-path samples drawn in each
                                    thread's row, or NULL (the scene
                                    holds a reference) */
  int            sample_depth;   /* 0 ticks of the innermost function,
                                    k >= 1 a lane of the k-th frame */
  GArray        *slots;          /* MvSlot (mv-groups.h): the rows shown,
                                    group headers aggregating theirs;
                                    NULL one per row (the scene holds a
                                    reference) */
} MvSceneParams;

typedef struct MvFineRows_ MvFineRows;   /* mv-lane-fine.c */

typedef struct
{
  MvLog   *log;
  MvCache *cache;                /* the one it was computed with */
  MvSceneParams p;               /* hidden pointers are NULLed */
  MvTimeMap map;                 /* [p.t0, p.t1] onto p.width pixels */
  gboolean summary;              /* level of detail used */
  gboolean group_lanes;          /* decoded rows with group headers
                                    (summary lanes) among them */
  gboolean fine;                 /* summary lanes read from the file for
                                    this window (zoomed in further than
                                    the whole-run pyramids resolve) */
  gboolean fine_cached;          /* the rows those read from the file
                                    are few enough to decode through the
                                    cache, as decoded lanes are */
  MvFineRows *fine_rows;         /* while the lanes are computed: rows
                                    shared by several fine lanes */
  gboolean rows_sampled;         /* some lanes from a sample of their
                                    rows (p.sample_rows) */
  guint    nlanes;
  MvLane  *lanes;
  GArray  *arrows;               /* MvArrow */
  gboolean arrows_aggregated;
  gboolean arrows_skipped;       /* too many messages: zoom in */
  guint64  nmessages;            /* messages in the window (counted) */
  guint    max_depth;
  guint64  decoded;              /* events decoded for this scene */
  guint8  *lane_block;           /* g_rc_box: summary lanes' arrays */
  gsize    pan_reused;           /* lane pixels copied from the last
                                    frame (a pan), not sampled again */
  char    *problem;              /* damage met while reading, or NULL */
  gboolean counter_known;        /* some lane has a counter value */
  gint64   counter_lo, counter_hi;  /* their range, for a common scale */
} MvScene;

/* TRUE if this window should be drawn from summaries. */
gboolean mv_scene_choose_summary (const MvLog *log, const MvSceneParams *p);
/* TRUE if the scene for p must first read much from the file (blocks
 * to decode for several rows, or thousands of messages not read yet):
 * coarse is then p made cheap (drawn from summaries, or without
 * arrows), to show at once while the full scene is computed. */
gboolean mv_scene_coarse_first (MvCache *cache, const MvSceneParams *p,
                                MvSceneParams *coarse);
/* Slots [first, last) visible for a scroll position and size (rows
 * when p->slots is NULL). */
void     mv_scene_visible_slots (const MvLog *log, const MvSceneParams *p,
                                 guint *first, guint *last);
/* Rows [first, last) the visible slots draw (a collapsed group's all). */
void     mv_scene_visible_rows (const MvLog *log, const MvSceneParams *p,
                                guint *first, guint *last);

/* (transfer full); NULL with error if cancelled or the file is bad. */
MvScene *mv_scene_compute (MvCache *cache, const MvSceneParams *p,
                           GCancellable *cancellable, GError **error);
void     mv_scene_free (MvScene *s);

/* Hit testing (pixels relative to the plot's top-left). */
typedef enum
{
  MV_HIT_NONE, MV_HIT_SPAN, MV_HIT_MARKER, MV_HIT_ARROW, MV_HIT_PIXEL,
  MV_HIT_COUNTER,       /* a counter track: lane->counter[px] */
  MV_HIT_SAMPLE         /* a sample strip: lane->sample_fn[px] */
} MvHitKind;

typedef struct
{
  MvHitKind       kind;
  const MvLane   *lane;
  const MvSpan   *span;
  const MvMarker *marker;
  const MvArrow  *arrow;
  int             px;     /* MV_HIT_PIXEL: the column */
} MvHit;

gboolean mv_scene_hit (const MvScene *s, double x, double y, MvHit *hit);
/* Multi-line description of a hit for a tooltip (caller frees). */
char    *mv_scene_describe (const MvScene *s, const MvHit *hit);

/* The counter strip of a lane: its top and height (the lower part of
 * the lane, under the states). */
void     mv_scene_counter_strip (const MvLane *lane, double *y, double *h);

/* The sample strip of a lane (the upper part of the lane). */
void     mv_scene_sample_strip (const MvLane *lane, double *y, double *h);

/* Inset of a span of this depth in a lane of height h. */
double   mv_scene_depth_inset (double h, guint depth);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MvScene, mv_scene_free)

G_END_DECLS

#endif

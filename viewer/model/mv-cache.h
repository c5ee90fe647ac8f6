/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MvCache: what the scene building keeps from frame to frame for one
 * log, so that a frame costs about one pass over its pixels:
 *   - per stream, a whole-run occupancy pyramid (mv-pyramid.h), read
 *     from the file's summaries on first use;
 *   - pyramids of lanes that aggregate rows (many processes);
 *   - the last summary frame's lanes (a pan by whole pixels copies the
 *     columns still in view);
 *   - lane blocks (every summary lane's arrays of a frame in one
 *     allocation), recycled: fresh pages cost ~10 us each to fault in;
 *   - decoded events per stream and the messages of a window, with a
 *     margin so that pans and zooms in are served without the file.
 * The log itself (MvLog) is immutable; everything mutable is here,
 * behind one lock, so scenes on worker threads can share a cache.
 * Reference counted; holds a reference on its log.
 */
#ifndef MV_CACHE_H
#define MV_CACHE_H

#include <glib.h>

#include "mv-log.h"

G_BEGIN_DECLS

typedef struct MvCache MvCache;

MvCache *mv_cache_new (MvLog *log);
MvCache *mv_cache_ref (MvCache *c);
void     mv_cache_unref (MvCache *c);
MvLog   *mv_cache_log (const MvCache *c);

/* ---- whole-run pyramids, one per stream ---- */

/* Base bins and levels of every pyramid of this cache (fixed). */
guint    mv_cache_bins (const MvCache *c);
guint    mv_cache_levels (const MvCache *c);

typedef enum
{
  MV_PYR_COARSER,    /* the file's summary is finer than the pyramid */
  MV_PYR_FINEST,     /* the file has nothing finer: serves every zoom */
  MV_PYR_DAMAGED,    /* the summary could not be read (shown empty) */
  MV_PYR_UNREAD,     /* not read yet (mv_cache_pyramid_peek only) */
} MvPyrQuality;

/* The stream's pyramid, read on first use (several threads may read
 * different streams at once).  Valid as long as the cache. */
const guint8 *mv_cache_pyramid (MvCache *c, guint32 stream,
                                MvPyrQuality *quality);
MvPyrQuality  mv_cache_pyramid_peek (MvCache *c, guint32 stream);
/* The same without keeping it: the kept one, or read into scratch
 * (mv_pyr_offset (bins, levels) bytes).  For the rows of big groups'
 * header lanes, whose own pyramids would cost 1.5 KB a stream (150 MB
 * for 100,000 processes) and are not drawn while the group is
 * collapsed. */
const guint8 *mv_cache_pyramid_scratch (MvCache *c, guint32 stream,
                                        guint8 *scratch,
                                        MvPyrQuality *quality);
/* Pyramids read from the file so far (kept or not). */
guint64       mv_cache_pyramid_reads (MvCache *c);
/* TRUE if the stream's pyramid is in the cache (not only its quality:
 * mv_cache_pyramid_scratch reads without keeping). */
gboolean      mv_cache_pyramid_kept (MvCache *c, guint32 stream);
/* The quality of the stream's pyramid: known once read (kept or not),
 * else read (into scratch without keeping it, when scratch is not
 * NULL). */
MvPyrQuality  mv_cache_pyramid_quality (MvCache *c, guint32 stream,
                                        guint8 *scratch);
/* Counts one stream read from the file: a log of many streams has its
 * mapped pages dropped every few hundred (each read maps up to 64 KB
 * around it; reading all of 100,000 streams would keep the whole file
 * resident). */
void          mv_cache_note_stream_read (MvCache *c);
/* Reads the pyramids of rows [first, last) on all cores (the first
 * frame of a many-process log: one summary read per stream). */
void          mv_cache_prefill (MvCache *c, guint first, guint last);

/* ---- pyramids of aggregated lanes ---- */

/* Keyed by the lane's rows (first << 32 | count) and a hash of the
 * hidden states (a change of them empties the store).  get: (transfer
 * full) or NULL; put: the store takes its own reference. */
GBytes  *mv_cache_lane_pyr_get (MvCache *c, guint64 key, guint hidden);
void     mv_cache_lane_pyr_put (MvCache *c, guint64 key, guint hidden,
                                GBytes *pyr);

/* ---- lane blocks ---- */

/* A block of size bytes, recycled if one of that size is spare. */
guint8  *mv_cache_block_new (MvCache *c, gsize size);
/* On the first summary frame: a second block, its pages written now,
 * for the frame after it (a pan keeps the first one in its memo). */
void     mv_cache_block_ahead (MvCache *c, gsize size);
guint8  *mv_block_ref (guint8 *block);
/* The last reference returns the block to the spares (c NULL: freed). */
void     mv_cache_block_unref (MvCache *c, guint8 *block);

/* ---- the last summary frame (for pans) ---- */

typedef struct
{
  guint    row_first, row_count;
  guint32 *pixels;      /* NULL unless sampled from a pyramid */
  gint16  *dominant;
  guint8  *dom_pct;
} MvMemoLane;

/* Immutable once published; lanes point into `block`, referenced. */
typedef struct
{
  gint        ref;
  int         width;
  double      height, row_h, y0;
  gsize       off;          /* pyramid level sampled (MvPyrGeom) */
  double      first, per;
  guint       hidden;       /* hash of the hidden states */
  guint       nlanes;
  MvMemoLane *lanes;
  guint8     *block;
} MvLaneMemo;

/* (transfer full) or NULL. */
MvLaneMemo *mv_cache_memo_get (MvCache *c);
/* Forgets m if it is still the published memo (a frame that cannot use
 * it: its block may then serve that frame). */
void        mv_cache_memo_drop (MvCache *c, MvLaneMemo *m);
/* (transfer full) */
void        mv_cache_memo_publish (MvCache *c, MvLaneMemo *m);
void        mv_lane_memo_unref (MvCache *c, MvLaneMemo *m);

/* ---- decoded events per stream ---- */

/* The part of an event the drawing needs (24 bytes instead of 88). */
typedef struct
{
  guint64 time;
  gint32  a;         /* state (BEGIN/END), event id (SOLO), events lost
                        (LOSS) */
  guint8  kind;
  guint8  flags;
  guint16 pad;
  guint32 cargo;     /* index into the cargo array, SOLO with cargo */
} MvEv;

/* Events of one stream decoded for [ta, tb] (all events with
 * ta <= time <= tb).  Reference counted, immutable once put. */
typedef struct
{
  guint64 ta, tb;
  GArray *evs;       /* MvEv */
  GArray *cargo;     /* LOGFMT_CARGO_SIZE each */
  guint64 t_max;     /* time of the last record decoded (any kind, also
                        messages), 0 if none */
  guint64 used;      /* for LRU eviction (the cache's) */
} MvDecoded;

MvDecoded *mv_decoded_new (guint64 ta, guint64 tb, guint reserve);
void       mv_decoded_unref (MvDecoded *d);
/* The stream's events if they cover [ta, tb]: (transfer full) or NULL. */
MvDecoded *mv_cache_decoded_get (MvCache *c, guint32 stream, guint64 ta,
                                 guint64 tb);
gboolean   mv_cache_decoded_covers (MvCache *c, guint32 stream, guint64 ta,
                                    guint64 tb);
/* Keeps d (its own reference) for the stream; least recently used
 * streams go when over the bound. */
void       mv_cache_decoded_put (MvCache *c, guint32 stream, MvDecoded *d);

/* ---- states open at a time, per stream ---- */

/* The instances open in a stream just before time t (after every record
 * earlier than t), outermost first, as the state-interval rule gives
 * them walking from the stream's start: a later walk restarts there
 * instead of at the stream's start (mv_tracker_restore). */
typedef struct
{
  guint64  t;
  guint    n;
  gint32  *state;
  guint64 *start;
} MvOpenAt;

/* Copies the stream's kept one into *out if its t is in [lo, hi];
 * free out->state and out->start with g_free. */
gboolean   mv_cache_open_at_get (MvCache *c, guint32 stream, guint64 lo,
                                 guint64 hi, MvOpenAt *out);
/* Keeps o (the cache takes the arrays). */
void       mv_cache_open_at_put (MvCache *c, guint32 stream, MvOpenAt *o);

/* ---- messages ---- */

/* Messages (logfmt_message_t, in the file's order: by first time)
 * meeting [t0, t1] if the kept window covers it: (transfer full) or
 * NULL; *span gets the longest |recv_time - send_time| among them. */
GArray    *mv_cache_messages_get (MvCache *c, guint64 t0, guint64 t1,
                                  guint64 *span);
gboolean   mv_cache_messages_cover (MvCache *c, guint64 t0, guint64 t1);
/* Keeps a (its own reference): the messages meeting [ta, tb], the
 * longest of them span. */
void       mv_cache_messages_put (MvCache *c, GArray *a, guint64 ta,
                                  guint64 tb, guint64 span);

/* ---- waits ---- */

/* The waiting part of an MPI call (analysis/an-waits.c). */
typedef struct
{
  guint64 t0, t1;     /* ns */
  gint32  state;      /* the MPI function's state */
} MvWait;

/* The waits of a stream by start (NULL: none, or the log could not be
 * analysed), from one pass over the whole run made by the first call;
 * valid as long as the cache. */
const GArray *mv_cache_waits (MvCache *c, guint32 stream);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MvCache, mv_cache_unref)

G_END_DECLS

#endif

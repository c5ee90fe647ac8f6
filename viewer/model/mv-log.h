/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MvLog: a loaded log shared (read-only) by the GUI and worker threads.
 * Wraps a logfmt reader with the derived tables the viewer needs: rows
 * sorted by (rank, thread), the event-id -> definition map and counts.
 * Immutable once mv_log_open returns; reference counted.
 */
#ifndef MV_LOG_H
#define MV_LOG_H

#include <glib.h>
#include <logfmt/logfmt.h>

G_BEGIN_DECLS

#define MV_LOG_ERROR (mv_log_error_quark ())
GQuark mv_log_error_quark (void);

typedef struct
{
  guint32     stream;     /* logfmt stream index */
  gint32      rank;
  gint32      thread;
  const char *host;       /* may be NULL */
  gboolean    first_of_rank;
} MvRow;

/* Events of one stream decoded for [ta, tb] (all events with
 * ta <= time <= tb), in the scene's compact form (mv-scene.c). */
typedef struct MvDecCache_
{
  guint64 ta, tb;
  GArray *evs;
  GArray *cargo;
  guint64 used;   /* dec_clock at last use, for LRU eviction */
} MvDecCache;

typedef struct
{
  logfmt_reader_t     *reader;
  const logfmt_info_t *info;
  char                *path;
  gboolean             partial;     /* opened with LOGFMT_OPEN_TOLERANT */
  char                *warning;     /* what is missing, or NULL */
  guint                nrows;
  MvRow               *rows;
  guint               *stream_row;  /* stream -> row */
  guint                nstates;
  guint                nevdefs;
  guint                max_threads; /* threads of the busiest process */
  GHashTable          *evdef_by_id; /* id -> index+1 */
  /* Whole-run occupancy per stream at a fixed resolution, filled on
   * first use (mv-scene.c): redrawing from it is much cheaper than
   * decoding the file's summary chunk on every frame.  Each cache is a
   * pyramid: cache_bins bins, then halves, cache_levels levels in all,
   * so a frame reads about one bin per pixel whatever the zoom. */
  GMutex               cache_lock;
  guint                cache_bins;
  guint                cache_levels;
  guint8             **cache;       /* [stream]: per bin the innermost
                                       state that dominates it (2 bytes,
                                       0xffff none) and its share (1) */
  guint8              *cache_exact; /* [stream]: as fine as the file's
                                       finest summary level */
  guint                cache_filled;  /* streams with a cache */
  /* Pyramids of lanes that aggregate rows (many processes), keyed by
   * their rows; GBytes values, dropped when over a size bound. */
  GHashTable          *lane_cache;
  gsize                lane_cache_bytes;
  guint                lane_cache_hidden;  /* hash of hidden states */
  /* The last summary frame's lanes (mv-scene.c): a pan by whole
   * pixels copies the columns still in view and samples the rest. */
  struct MvLaneMemo_  *lane_memo;
  gpointer             lane_spare[2];  /* freed lane blocks, for reuse */
  gboolean             lane_spare_made;  /* one made ahead, on frame 1 */
  /* Decoded events per stream, reused across frames (mv-scene.c). */
  struct MvDecCache_  **dec;        /* [stream], NULL if none */
  guint64              dec_events, dec_clock;
  /* Messages (logfmt_message_t) meeting [msg_ta, msg_tb], or NULL. */
  GArray              *msgs;
  guint64              msg_ta, msg_tb;
} MvLog;

/* Progress in [0,1]; return TRUE to cancel. */
typedef gboolean (*MvProgressFunc) (gpointer user, double fraction);

/* Opens path; a file without a valid trailer is retried tolerantly and
 * gets log->warning set.  (transfer full) */
MvLog *mv_log_open (const char *path, MvProgressFunc progress,
                    gpointer user, GError **error);
MvLog *mv_log_ref (MvLog *log);
void   mv_log_unref (MvLog *log);

const logfmt_state_def_t *mv_log_state (const MvLog *log, guint i);
const logfmt_event_def_t *mv_log_evdef (const MvLog *log, guint i);
/* Event definition index for an MPE event id, or -1. */
int    mv_log_find_evdef (const MvLog *log, gint32 id);
/* "rank 3" or "rank 3.1" for thread 1; caller frees. */
char  *mv_log_row_label (const MvLog *log, guint row);
/* First time and last time of the run. */
guint64 mv_log_t_first (const MvLog *log);
guint64 mv_log_t_last (const MvLog *log);

/* Finds the begin event of an instance of `state` on `stream` starting
 * at `time` (for cargo).  Returns TRUE and fills *ev. */
gboolean mv_log_find_begin (const MvLog *log, guint32 stream,
                            guint64 time, gint32 state,
                            logfmt_event_t *ev);

void   mv__dec_cache_free (MvDecCache *d);
void   mv__lane_memo_unref (MvLog *log, struct MvLaneMemo_ *m);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MvLog, mv_log_unref)

G_END_DECLS

#endif

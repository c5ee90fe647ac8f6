/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MvLog: a loaded log shared (read-only) by the GUI and worker threads.
 * Wraps a logfmt reader with the derived tables the viewer needs: rows
 * sorted by (rank, thread), the event-id -> definition map and counts.
 * Immutable once mv_log_open returns (what drawing keeps from frame to
 * frame is in an MvCache, mv-cache.h); reference counted.
 */
#ifndef MV_LOG_H
#define MV_LOG_H

#include <stdio.h>

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
  gint32      node_rank;  /* lowest rank on its host (rows are sorted
                             by it first: a node's rows are together) */
  gboolean    first_of_rank;
} MvRow;

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
  guint64             *row_events;  /* nrows + 1: the events of the rows
                                       before each (rows [a, b) hold
                                       row_events[b] - row_events[a]) */
  guint                nstates;
  guint                nevdefs;
  guint                max_threads; /* threads of the busiest process */
  GHashTable          *evdef_by_id; /* id -> index+1 */
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
/* The same for the end event of an instance ending at `time`. */
gboolean mv_log_find_end (const MvLog *log, guint32 stream,
                          guint64 time, gint32 state, logfmt_event_t *ev);
/* Where the instance of `state` on `stream` that begins at t_begin ends
 * (a state open past a window): reads at most max_events events from
 * t_begin on.  FALSE if its end was not found within them. */
gboolean mv_log_find_instance_end (const MvLog *log, guint32 stream,
                                   guint64 t_begin, gint32 state,
                                   guint64 max_events, guint64 *t_end);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MvLog, mv_log_unref)

/* Writes s as a JSON string (the exports' names). */
void mv_json_string (FILE *fp, const char *s);

G_END_DECLS

#endif

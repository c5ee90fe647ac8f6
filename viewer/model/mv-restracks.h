/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Resource tracks drawn like counter tracks (a step graph in the lower
 * part of a row, mv-counters.c's bins and drawing): a process's live
 * heap and mmap bytes (track kind 5, its total cell, on its first
 * thread's row) and a host's network interfaces' bytes per second,
 * received plus sent (track kind 6, on the row of the host's lowest
 * rank), read for the window only: the overlapping chunks plus the one
 * record before it that gives the value carried in.
 */
#ifndef MV_RESTRACKS_H
#define MV_RESTRACKS_H

#include "mv-log.h"

G_BEGIN_DECLS

typedef enum
{
  MV_RESTRACK_NONE = 0,
  MV_RESTRACK_MEMORY = 1,    /* live bytes of the process (MPE_MEMORY=1) */
  MV_RESTRACK_NETWORK = 2    /* NIC bytes/s, rx + tx (MPE_NETWORK=1) */
} MvResTrack;

/* TRUE if some stream of the log has that track. */
gboolean mv_restrack_log_has (const MvLog *log, MvResTrack which);
/* "Memory: live bytes per process", ... */
const char *mv_restrack_name (MvResTrack which);

/* The last record of (stream, kind) before t that `want` accepts (NULL:
 * any), looking further and further back from t so a window reads a
 * chunk or two: TRUE and *rec, or FALSE if none (or unreadable). */
gboolean mv_track_last_before (const MvLog *log, guint32 stream,
                               guint32 kind, guint64 t, guint64 step,
                               gboolean (*want) (const logfmt_track_rec_t *),
                               logfmt_track_rec_t *rec);

G_END_DECLS

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live model: what the window knows about a running job.  Fed by
 * anim-server (already validated frames), read by the window once per
 * frame.  GLib only.  The reader thread (anim-server) and the window
 * each call it under anim_live_lock; a scene filled by anim_live_scene
 * stays valid after the unlock until the next anim_live_scene.
 */
#ifndef ANIM_LIVE_H
#define ANIM_LIVE_H

#include <glib.h>
#include <stdint.h>

#include "anim-render.h"

#define ANIM_MAX_PROCS   65536   /* bounds what a client can make us allocate */
#define ANIM_MAX_DOTS    100000
#define ANIM_FLIGHT_S    0.4     /* time a dot takes from sender to receiver */
#define ANIM_TIMEOUT_S   2.0     /* unmatched dots wait this long at the end */

typedef struct AnimLive AnimLive;

typedef struct
{
  guint64 clients;          /* connections that said HELLO */
  guint64 rejected;         /* connections closed for bad token/data */
  guint64 ranks_ended;      /* END frames */
  guint64 ranks_complete;   /* END whose count matched what arrived */
  guint64 records;          /* EVENT + SEND + RECV frames */
  guint64 records_expected; /* sum of END "sent" */
  guint64 sends, recvs, matched, bytes;
  guint64 dropped;          /* sum over ranks of reported drops */
  guint64 dots_dropped;     /* dots not shown: too many in flight */
  guint64 frames;           /* frames drawn */
  guint64 world_size;
  double  lat_p50_ms, lat_p99_ms, lat_max_ms;  /* with measure_latency */
  guint64 lat_n;
} AnimLiveStats;

AnimLive *anim_live_new (void);
void      anim_live_free (AnimLive *lv);
/* While the server's reader thread runs, every other call below is made
 * with the model locked. */
void      anim_live_lock (AnimLive *lv);
void      anim_live_unlock (AnimLive *lv);

/* Records latency from each send's time_ns (taken as CLOCK_MONOTONIC) to
 * the first frame that shows its dot (benchmarks). */
void      anim_live_measure_latency (AnimLive *lv, gboolean on);

/* Input, in arrival order.  `conn` identifies the connection (counts). */
void anim_live_hello (AnimLive *lv, int rank, int size);
void anim_live_state_def (AnimLive *lv, gint32 start, gint32 end,
                          const char *name, const char *color);
void anim_live_event (AnimLive *lv, int rank, guint64 t, int thread,
                      gint32 id);
void anim_live_msg (AnimLive *lv, int rank, gboolean is_send, guint64 t,
                    int thread, int partner, int tag, guint64 bytes);
void anim_live_drops (AnimLive *lv, int rank, guint64 total);
/* received: records that arrived on that connection. */
void anim_live_end (AnimLive *lv, int rank, guint64 sent, guint64 dropped,
                    guint64 received);
void anim_live_rejected (AnimLive *lv);

/* Animation clock (seconds); the window advances it unless paused. */
void   anim_live_advance (AnimLive *lv, double dt);
double anim_live_clock (const AnimLive *lv);

/* Fills *s for drawing (arrays owned by lv, valid until the next call)
 * and retires finished dots.  `selected` picks the history box. */
void anim_live_scene (AnimLive *lv, int selected, AnimScene *s);
/* Called after the scene was drawn (frame counting, latency). */
void anim_live_frame_drawn (AnimLive *lv);

const AnimLiveStats *anim_live_stats (AnimLive *lv);
int  anim_live_nprocs (const AnimLive *lv);
/* Writes the counters as key=value lines. */
gboolean anim_live_write_stats (AnimLive *lv, const char *path,
                                GError **error);

#endif

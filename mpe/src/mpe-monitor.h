/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live monitor's interface inside libmpe and towards the wrapper
 * libraries (mpe-monitor.c has the design).  Not installed.
 */
#ifndef MPE_MONITOR_H
#define MPE_MONITOR_H

#include <stdint.h>
#include <mpi.h>

#include "logfmt/logfmt.h"
#include "mpe-monitor-wire.h"
#include "mpe-wrap-internal.h"   /* MPE_INTERNAL_API */

/* Metric codes the monitor can ask for without user metrics. */
#define MPE_MON_CODE_EVENTS 0xffff0000u   /* records logged so far */

/* mpe__metric_monitor_read's `thread` for the channel towards world
 * rank p. */
#define MPE_MON_THREAD_CHANNEL(p) (-2 - (p))

/* What the manager asks for. */
typedef struct
{
  int      resource;   /* MPE_MON_RES_* */
  int      level;      /* MPE_MON_LEVEL_* */
  int32_t  object;     /* -1: all objects of the level */
  uint32_t code;
} mpe_mon_want_t;

/* The manager's own accounting (000-16). */
typedef struct
{
  double   hz;
  uint64_t sent, returned;
  uint64_t late;        /* round trip longer than the period */
  uint64_t skipped;     /* due, but nobody issued a request (the manager
                           was busy, or too many requests were out) */
  uint64_t periods;     /* from the first due request to the stop:
                           sent + skipped, by the clock */
  uint64_t incomplete;  /* came back without every rank's part */
  uint64_t lost;        /* sent and never returned */
  double   rtt_min, rtt_median, rtt_max;   /* seconds */
  int      tree_fanout; /* 0: the ring */
} mpe_mon_stats_t;


/* Collective: reads MPE_MONITOR (Hz; off when unset or 0) and starts the
 * ring.  Returns 1 when on, 0 off, -1 on error. */
int  mpe__mon_start (MPI_Comm world);
/* Collective: drains the ring and stops; out gets the manager's
 * accounting on every rank (zeros when the monitor was off). */
void mpe__mon_stop (mpe_mon_stats_t *out);
/* mpe__mon_stop from MPE_Finish_log: keeps the accounting for the log
 * and prints it with MPE_MONITOR_REPORT=yes. */
void mpe__mon_finish (void);
/* The accounting as named constants for the log ("monitor.*", FORMAT.md
 * section 8); fills up to cap, returns how many (0 when off). */
size_t mpe__mon_consts (logfmt_const_def_t *out, size_t cap);
void mpe__mon_want (const mpe_mon_want_t *w, double hz);

/* mpe-metrics.c: the metric cells as the monitor reads them (codes are
 * metric ids, logfmt_metric_def_t.id). */
int  mpe__metric_monitor_read (uint32_t id, int thread, int64_t *v);
size_t mpe__metric_ndefs (void);
void mpe__metric_describe_monitor (uint32_t id, const char *name,
                                   const char *unit);
const char *mpe__metric_name (uint32_t id, const char **unit);
void mpe__metric_put_monitor (uint32_t id, int64_t object, int64_t v);
/* The metric id of the samples of `code` at `level` (FORMAT.md 14). */
#define MPE_MON_METRIC_ID(level, code) \
  (0x1000000u + (uint32_t) (level) * 0x400000u + (code))

/* mpe-monitor-live.c: the manager's connection to a live window. */
int  mpe__mon_live_wanted (void);
void mpe__mon_live_open (int size, int nnodes, const int *node_of,
                         const char *hosts, size_t host_len, double hz);
void mpe__mon_live_poll (void);
/* 0 while a window is attached that has not said "ready" yet (at most
 * LIVE_READY_WAIT_NS after the first call): the manager holds its first
 * request.  now: CLOCK_MONOTONIC ns. */
int  mpe__mon_live_ready (uint64_t now);
void mpe__mon_live_sample (const mpe_mon_req_t *q, double rtt_s);
void mpe__mon_live_close (const mpe_mon_stats_t *st);

#endif

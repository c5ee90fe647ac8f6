/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The counter layer (mpe-counters.c): per-thread OS and hardware
 * counters from counter sources (mpe_plugin.h: plugins, and the built-in
 * perf software events and PAPI), read at timer samples, at rotation
 * points and at MPE_Counters_read, and recorded as metric samples (track
 * kind 1) at the merge.  Not installed.
 */
#ifndef MPE_COUNTERS_H
#define MPE_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "mpe_plugin.h"
#include "mpe-internal.h"

/* Metric ids of the counters: event e's value MPE_MID_CTR + 2 e, its
 * standard error (sets rotated) MPE_MID_CTR + 2 e + 1. */
#define MPE_MID_CTR 0x400000u

/* One reading: ticks, metric id, value. */
typedef struct
{
  uint64_t t;
  uint32_t id;
  int64_t  v;
} mpe_ctr_rec_t;

/* Counters asked for and counted (MPE_COUNTERS): the sampler and the
 * instrumentation points look at these. */
extern int mpe__ctr_on MPE_HIDDEN;
extern int mpe__ctr_rotating MPE_HIDDEN;

/* A plugin's source (mpe-plugin.c, before mpe__counters_init). */
MPE_HIDDEN void mpe__counters_add_source (const mpe_counter_source_t *s,
                                          void *state, const char *name);
/* MPE_Init_log, after the plugins: which source counts which event. */
MPE_HIDDEN void mpe__counters_init (void);
/* A logged thread starts (its own context): its sets open. */
MPE_HIDDEN void mpe__counters_thread (int thread);
/* A timer sample (signal context). */
MPE_HIDDEN void mpe__counters_sample (uint64_t t);
/* An instrumentation point: maybe the end of a rotation period. */
MPE_HIDDEN void mpe__counters_point (void);
/* MPE_Finish_log, before the merge: the calling thread's last reading. */
MPE_HIDDEN void mpe__counters_final (void);
/* The merge: thread `thread`'s readings, in time order (NULL, 0: none). */
MPE_HIDDEN const mpe_ctr_rec_t *mpe__counters_records (int thread,
                                                        size_t *n);
/* The crash path (signal context, no lock): fn gets every thread's
 * readings of this log not yet in the spill file. */
MPE_HIDDEN void mpe__counters_each (void (*fn) (int thread,
                                                const mpe_ctr_rec_t *r,
                                                size_t n));
/* Writes readings of thread to the spill file (mpe-crash.c; async-signal
 * safe). */
MPE_HIDDEN void mpe__counters_spill (int thread, const mpe_ctr_rec_t *r,
                                     size_t n);
/* After the merge: every set closed, the readings dropped. */
MPE_HIDDEN void mpe__counters_finalize (void);

/* The built-in sources (mpe-csrc-perf.c, mpe-csrc-papi.c); NULL when
 * the build has none. */
MPE_HIDDEN const mpe_counter_source_t *mpe__csrc_perf (void);
MPE_HIDDEN const mpe_counter_source_t *mpe__csrc_papi (void);
MPE_HIDDEN void *mpe__csrc_papi_state (void);

#endif

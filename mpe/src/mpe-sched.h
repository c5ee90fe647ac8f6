/* SPDX-License-Identifier: BSD-3-Clause */
/* The scheduling layer of libmpe (mpe-sched.c): each logged thread's
 * context switches, collected when MPE_SCHED=1, handed to the merge as
 * records of track kind 4 (docs/FORMAT.md).  Not installed. */
#ifndef MPE_SCHED_H
#define MPE_SCHED_H

#include <stddef.h>
#include <stdint.h>

/* Columns of a switch record (track kind 4). */
#define MPE_SCHED_COL_CPU  0
#define MPE_SCHED_COL_WHAT 1  /* MPE_SW_* of mpe-perf-internal.h */
#define MPE_SCHED_NCOLS    2

/* MPE_Init_log: reads the settings; on, opens the calling thread's ring
 * and starts the poller that drains every ring. */
void mpe__sched_init (void);
/* A thread got its buffer (mpe__tbuf_create): its ring, when on. */
void mpe__sched_thread (int thread);
/* The merge begins: the poller stops and every ring is drained and
 * closed, so the merge's own switches are not recorded. */
void mpe__sched_stop (void);
/* One thread's switches: *n records of (local ns since the origin, cpu,
 * what), malloc'd (free it); 0, or -1 (no memory).  *lost: records the
 * kernel or the bound dropped. */
typedef struct
{
  uint64_t t;
  int32_t  cpu;
  uint32_t what;
} mpe_sched_rec_t;
int  mpe__sched_records (int thread, mpe_sched_rec_t **out, size_t *n,
                         uint64_t *lost);
/* The log is finished: the records go. */
void mpe__sched_reset (void);
/* Whether the layer is on for this log. */
int  mpe__sched_on (void);
/* This rank is its host's lowest (it writes the host's topology). */
int  mpe__sched_host_leader (void);

/* The memory layer (mpe-memprof.c), sampled by the same poller. */
typedef struct
{
  uint64_t t;      /* local ns since the origin */
  int64_t  cell;   /* libmpe_memory's cell, -1: the process's total */
  int64_t  live;   /* bytes */
  uint64_t calls;
} mpe_mem_sample_t;
struct mpe_memory_api;
void mpe__mem_init (void);    /* MPE_Init_log, after mpe__sched_init */
void mpe__mem_thread (int thread);
void mpe__mem_sample (void);  /* the poller and the finish */
int  mpe__mem_on (void);
/* The cells' owner, for the merge (NULL when off). */
const struct mpe_memory_api *mpe__mem_api (void);
/* The samples so far (owned by the layer, valid until reset). */
int  mpe__mem_records (mpe_mem_sample_t **out, size_t *n,
                       uint64_t *dropped);
void mpe__mem_reset (void);
/* At the finish, before the merge: the cells' final values. */
typedef struct
{
  int64_t  live, peak;
  uint64_t calls;
} mpe_mem_final_t;
void   mpe__mem_freeze (void);
/* The frozen cells (count returned) and process totals. */
size_t mpe__mem_final (const mpe_mem_final_t **cells, int64_t *live,
                       int64_t *peak);

/* The network layer (mpe-netprof.c): the host leader's NIC counters,
 * sampled by the same poller. */
typedef struct
{
  uint64_t t;        /* local ns since the origin */
  int32_t  nic;      /* index into mpe__net_nics */
  int64_t  v[4];     /* rx_bytes, tx_bytes, rx_packets, tx_packets */
} mpe_net_sample_t;
void   mpe__net_init (int host_leader);
void   mpe__net_sample (void);
int    mpe__net_on (void);
size_t mpe__net_records (const mpe_net_sample_t **out);
size_t mpe__net_nics (const char (**names)[64]);
void   mpe__net_reset (void);

#endif

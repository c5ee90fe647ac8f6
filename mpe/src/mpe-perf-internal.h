/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Linux perf_event for the scheduling layer (mpe-perf.c): one thread's
 * context switches from the kernel's mmap ring (PERF_RECORD_SWITCH, works
 * unprivileged at perf_event_paranoid 2), and software counters (task
 * clock, context switches, migrations, page faults).  No MPI and nothing
 * of libmpe: the tests link this file alone.  Not installed.
 */
#ifndef MPE_PERF_INTERNAL_H
#define MPE_PERF_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* What a switch record says (column 1 of track kind 4, FORMAT.md). */
enum
{
  MPE_SW_IN = 1,         /* the thread starts running on cpu */
  MPE_SW_OUT_BLOCKED = 2,  /* it stops: it blocked (voluntary) */
  MPE_SW_OUT_PREEMPTED = 3 /* it stops: preempted while runnable */
};

typedef struct
{
  uint64_t t_mono;  /* CLOCK_MONOTONIC ns */
  int32_t  cpu;
  uint32_t what;    /* MPE_SW_* */
} mpe_sw_rec_t;

/* One thread's switch ring.  Opened by the thread itself; drained by any
 * one thread at a time (the lock), so the hot path of the logged thread
 * never makes a system call for it. */
typedef struct mpe_sw
{
  int              fd;
  void            *map;
  size_t           map_len, data_len;  /* data_len: a power of two */
  pthread_mutex_t  lock;
  mpe_sw_rec_t    *recs;
  size_t           n, cap, max;   /* max: records kept, beyond: dropped */
  uint64_t         lost;          /* kernel ring overflows + dropped */
  int              tid;
} mpe_sw_t;

/* Opens the calling thread's switch ring (data_pages: a power of two).
 * 0, or -errno (err gets the reason for the one warning). */
int    mpe__sw_open (mpe_sw_t *s, unsigned data_pages, size_t max_recs,
                     char *err, size_t errlen);
/* Moves what the kernel wrote since the last drain into s->recs; returns
 * how many records were added. */
size_t mpe__sw_drain (mpe_sw_t *s);
/* Stops the kernel side (records so far stay in s->recs). */
void   mpe__sw_close (mpe_sw_t *s);
/* ... and frees the records. */
void   mpe__sw_free (mpe_sw_t *s);

/* Software counters of the calling thread, read with one read(2) each
 * (a system call: at samples and chosen points, not per event). */
enum
{
  MPE_SWC_TASK_CLOCK, MPE_SWC_CTX_SWITCHES, MPE_SWC_MIGRATIONS,
  MPE_SWC_PAGE_FAULTS, MPE_SWC_N
};
extern const char *const mpe__swc_names[MPE_SWC_N];

typedef struct
{
  int fd[MPE_SWC_N];
} mpe_swc_t;

/* 0 if at least one counter opened (others have fd -1), else -errno. */
int  mpe__swc_open (mpe_swc_t *c);
/* Values (-1 for a counter that is not open); 0, or -1 if none read. */
int  mpe__swc_read (const mpe_swc_t *c, int64_t out[MPE_SWC_N]);
void mpe__swc_close (mpe_swc_t *c);

#endif

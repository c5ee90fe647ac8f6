/* SPDX-License-Identifier: BSD-3-Clause */
/* The sampler and the call-path store (mpe-sample.c), shared with the
 * merge (mpe-merge.c) and the plugin host (mpe-plugin.c).  Not installed. */
#ifndef MPE_SAMPLE_H
#define MPE_SAMPLE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "mpe-internal.h"

/* Sample flags (column "flags" of track kind 2, docs/FORMAT.md). */
#define MPE_SAMPLE_FP          0x1u  /* frame-pointer walk */
#define MPE_SAMPLE_UNWIND      0x2u  /* libunwind's unw_backtrace */
#define MPE_SAMPLE_CONSTRUCTED 0x4u  /* unwinding failed: the context was
                                        built from the MPI call in progress */
#define MPE_SAMPLE_TRUNCATED   0x8u  /* deeper than the depth limit */

/* Pseudo addresses of constructed contexts: never a code address. */
#define MPE_PSEUDO_BASE   0xfff0000000000000ull
#define MPE_PSEUDO_MPI(s) (MPE_PSEUDO_BASE | 0x10000u | (uint64_t) (s))
#define MPE_PSEUDO_UNKNOWN (MPE_PSEUDO_BASE | 1u)

/* One node of a thread's call-path tree: an address under its parent
 * (node 0 is the root).  Addresses are inside the instruction: the
 * sample's leaf is the interrupted pc, callers are return address - 1. */
typedef struct
{
  uint64_t pc;
  uint32_t parent;
  uint32_t next;    /* hash chain */
} mpe_cpnode_t;

typedef struct
{
  uint64_t t;       /* ticks */
  uint32_t node;
  uint16_t cpu;
  uint16_t flags;
  int32_t  state;   /* the MPI call in progress (wrapper state), or -1 */
  uint32_t weight;  /* periods it stands for: 1 + the timer's overruns
                       (a CPU-time timer fires at most once a tick) */
} mpe_sample_t;

/* A wrapped MPI call at its call site. */
typedef struct
{
  uint64_t t0, t1;  /* ticks at the call's begin and end */
  uint64_t bytes;
  uint32_t node;
  int32_t  state;   /* the wrapper's state number */
} mpe_callsite_t;

#define MPE_SITE_CACHE 64

/* One thread's store: written by its own thread only (the signal handler
 * or, under `busy`, the wrappers' call-site capture), read by the merge
 * after the timers stopped.  Arrays are reserved address space, touched
 * as used: nothing is allocated in the handler. */
typedef struct mpe_sthread
{
  mpe_cpnode_t   *nodes;
  uint32_t       *buckets;     /* heads of hash chains, mask nbuckets-1 */
  uint32_t        nnodes, maxnodes, nbuckets;
  mpe_sample_t   *samples;
  size_t          nsamples, maxsamples;
  mpe_callsite_t *sites;
  size_t          nsites, maxsites;
  volatile sig_atomic_t busy;  /* the tree is being changed outside the
                                  handler: a sample now is constructed */
  uint64_t        lost;        /* samples/call sites that found no room */
  uint64_t        nfp, nunw, nconstructed, nreentered;
  uintptr_t       stack_lo, stack_hi;
  /* The return addresses of the thread's outermost frames (those into
   * __libc_start_call_main, start_thread, ...), from a backtrace when its
   * sampling began: a frame-pointer chain may only end in one of them. */
  uint64_t        outer_ret[4];
  int             nouter;
  int             thread;
  int             timer_on;
  timer_t         timer;
  /* The MPI call in progress (call-site capture). */
  int32_t         cur_state;
  uint32_t        cur_node;
  const char     *cur_name;
  uint64_t        cur_t0, cur_bytes;
  /* Call sites interned (MPE_CALLSITE=caller, the default) by site and
   * the wrapper's stack depth (its frame address): a loop's calls come
   * from one site at one depth and skip the unwinding. */
  struct { const void *site; uintptr_t frame; uint32_t node; }
                  site_cache[MPE_SITE_CACHE];
  uint32_t       *rankmap;     /* the merge's: node -> the rank's node */
  struct mpe_sthread *next;
} mpe_sthread_t;

/* A loaded binary as dl_iterate_phdr reported it at MPE_Init_log. */
typedef struct
{
  char    *path;
  char     build_id[41];   /* hex, "" when the binary has none */
  uint64_t base;           /* load bias */
  uint64_t lo, hi;         /* executable addresses [lo, hi) */
} mpe_module_t;

/* mpe-sample.c */
/* The calling thread's return addresses, innermost first, into buf (at
 * most max): libunwind's unw_backtrace where built with it, else glibc's
 * backtrace.  Not for a signal handler. */
MPE_HIDDEN int  mpe__backtrace (void **buf, int max);
MPE_HIDDEN void mpe__sample_init (void);
MPE_HIDDEN void mpe__sample_thread_start (int thread);
MPE_HIDDEN void mpe__sample_stop (void);
MPE_HIDDEN void mpe__sample_reset (void);
MPE_HIDDEN int  mpe__sample_active (void);
MPE_HIDDEN int  mpe__sample_hz (void);
MPE_HIDDEN mpe_sthread_t *mpe__sample_threads (void);
MPE_HIDDEN const mpe_module_t *mpe__sample_modules (size_t *n);
MPE_HIDDEN mpe_sthread_t *mpe__sthread (void);      /* may be NULL */
MPE_HIDDEN mpe_sthread_t *mpe__sthread_get (void);  /* made if needed */
MPE_HIDDEN uint32_t mpe__cp_intern (mpe_sthread_t *s, const uint64_t *pcs,
                                    int n);

/* mpe-sample-merge.c: the rank's tables at the finish. */
MPE_HIDDEN int      mpe__cp_build (int32_t rank, void **blob, size_t *len);
MPE_HIDDEN uint32_t mpe__cp_sample_node (const mpe_sthread_t *s, size_t i);
MPE_HIDDEN uint32_t mpe__cp_site_node (const mpe_sthread_t *s, size_t i);
MPE_HIDDEN void     mpe__cp_free (void);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal state of libmpe shared by its source files.  Not installed. */
#ifndef MPE_INTERNAL_H
#define MPE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define MPE_NO_INLINE_CHECK 1  /* the library defines the functions */
#include "mpe_log.h"
#include "mpe-wrap-internal.h"
#include "spillfmt.h"
#include "mpe-counter.h"

#define MPE_LIKELY(x)   __builtin_expect (!!(x), 1)
#define MPE_UNLIKELY(x) __builtin_expect (!!(x), 0)
#define MPE_HIDDEN      __attribute__ ((visibility ("hidden")))

typedef mpe_spill_rec_t mpe_rec_t;

/* pos, spilled and metric_slots are read by the monitor's helper thread
 * (a count of the records logged so far) while their thread writes them:
 * written with MPE_PUBLISH and read there with MPE_PEEK, relaxed atomics
 * (plain moves on x86-64 and aarch64: the logging path pays nothing). */
#define MPE_PUBLISH(lv, v) __atomic_store_n (&(lv), (v), __ATOMIC_RELAXED)
#define MPE_PEEK(lv) __atomic_load_n (&(lv), __ATOMIC_RELAXED)

/* Frames built in memory (mpe-flush.c): buf[0, len) of cap bytes,
 * aligned for direct I/O, `events` records in `frames` frames.  With
 * packed write-behind the memory is frame area `area` of the ring file
 * (else -1), and `carried` the losses its LOSS records report (`loss`
 * of them), kept should the area itself be lost. */
typedef struct
{
  unsigned char *buf;
  size_t         len, cap;
  uint64_t       events;
  int            frames;
  int            area;
  uint64_t       carried;
  uint32_t       loss;
} mpe_frames_t;

/* One thread's timeline.  Never freed while the process lives: threads
 * keep pointing at it through TLS across MPE_Finish_log/MPE_Init_log. */
typedef struct mpe_tbuf
{
  /* These three are struct mpe__tbuf_head (mpe_log.h): a bare event
   * is written at the call site. */
  mpe_rec_t       *pos;      /* next free slot */
  mpe_rec_t       *end;      /* the call site's gate: wend while bare
                                events may be written there (mpe__gate),
                                else base */
  uint32_t         tag;      /* aux bits 8-31 of this round's records */
  uint32_t         next_tag;
  mpe_rec_t       *wend;     /* last slot a record may start at (+1) */
  mpe_rec_t       *base;
  size_t           cap;      /* slots */
  int              thread;   /* index within the process */
  int              in_flush;
  /* Ring file (spill/spillfmt.h): the buffer is a shared mapping of it, so
   * unspilled records outlive a killed process.  NULL: anonymous memory. */
  mpe_ring_header_t *ring;
  size_t           map_len;
  int              ring_linked;  /* the file still has its name */
  uint64_t         spilled;  /* events written to the spill file */
  uint64_t         lost;     /* events lost (spill failed) */
  uint64_t         flushes;
  uint64_t         metric_slots;  /* slots of metric samples written:
                                     not records the program logged */
  struct mpe_tbuf *next;
  /* Background spill: the buffer is two halves; the logger writes into
   * [seg, pos) while the spill thread encodes [job_from, job_to), the
   * other half.  mid is NULL when the buffer is one synchronous part. */
  mpe_rec_t       *seg;
  mpe_rec_t       *mid;
  atomic_int       job;      /* MPE_JOB_* */
  const mpe_rec_t *job_from, *job_to;
  uint64_t         job_lost;
  struct mpe_tbuf *job_next;
  /* Inline spilling (no spill thread) packs the round a window at a time,
   * while the window's records are still in the cache (mpe-flush.c): end
   * is then the window's end, round_end the round's.  The frames wait in
   * pk until the round is full, and are written with one write. */
  mpe_rec_t       *round_end;
  const mpe_rec_t *pk_from;  /* pk's first record: seg, or in the first
                                round where its windows began (NULL:
                                not yet) */
  const mpe_rec_t *packed;   /* records before this are packed in pk */
  mpe_frames_t     pk;
  /* Packed write-behind (mpe__g.spill_wb when the buffer was made): the
   * buffer is a few windows of slots, whose records live on only as
   * frames in pk once packed (`packed` is where the unpacked ones
   * begin), and the round restarts at base.  A full pk, swapped into
   * pk2, is the spill thread's job to write.  retired: slots of the
   * rounds done, as `spilled` counts elsewhere. */
  int              packed_wb;
  mpe_frames_t     pk2;
  size_t           area_cap;  /* bytes of each frame area */
  uint32_t         area_gen;
  uint64_t         retired;
} mpe_tbuf_t;

enum
{
  MPE_JOB_IDLE, MPE_JOB_QUEUED, MPE_JOB_DONE, MPE_JOB_WRITING,
  MPE_JOB_ABANDONED   /* the crash path took the records */
};

/* Logging mode: 0 off, 1 on, 2 on with the live tap.  Stored with
 * mpe__mode_store only. */
extern atomic_int mpe__mode MPE_HIDDEN;
/* Mode 1, the counter is the clock and no event triggers a metric
 * sample: a bare event may be written at the call site (mpe_log.h) or
 * on the frameless path (mpe-log.c), where the gates (mpe__gate) are
 * open.  Exported for programs built with an older mpe_log.h, whose
 * inline code tests it. */
extern int mpe__bare_fast MPE_API;   /* __atomic_* */
MPE_HIDDEN void mpe__mode_store (int mode);
/* Exported, as mpe__mdue: mpe_log.h writes a bare event at the call
 * site. */
extern __thread mpe_tbuf_t *mpe__tls
  __attribute__ ((tls_model ("initial-exec"))) MPE_API;
/* Events are stamped with the CPU's counter (mpe-counter.h), not
 * clock_gettime: the build has one and it passed the run-time check. */
extern int mpe__use_counter MPE_HIDDEN;

/* Process-wide state (mpe-core.c); each group is the context of one job,
 * written by the file named and read by others. */
typedef struct
{
  /* The log (mpe-log.c). */
  int         state;           /* 0 never, 1 logging, 2 finished */
  int         rank, size;
  int         stopped;         /* MPE_Stop_log in effect */
  char        host[256];
  /* Clock (mpe-core.c): absolute local ns = mono0 + (ticks - tick0) * mult. */
  uint64_t    tick0;
  double      mult;
  uint64_t    mult_fp;         /* mult in 32.32 fixed point */
  int64_t     mono0;           /* includes MPE_TEST_CLOCK_SKEW_NS */
  int64_t     real0;
  int         sync_enabled;
  int         sync_freq;
  int        *host_leader;     /* every rank's host leader (world rank):
                                  the rank whose clock conversion its
                                  host shares (mpe-sync.c) */
  int        *sync_peer;       /* every rank's: which need ping-pongs */
  int         sync_self;       /* this rank needs them */
  int         sync_algo;       /* MPE_SYNC_ALGORITHM: MPE_SYNC_SEQ... */
  /* Thread buffers (mpe-tbuf.c, mpe-flush.c). */
  size_t      budget;          /* bytes for all thread buffers */
  atomic_size_t allocated;
  atomic_int  nthreads;
  mpe_tbuf_t *tbufs;           /* list, guarded by lock */
  int         log_overhead;
  atomic_int  flush_defined;
  /* Spill file (mpe-spillfile.c) and its settings (mpe-log.c). */
  int         spill_fd;
  int         spill_dfd;       /* the same file for direct I/O, or -1 */
  char        spill_path[4096];
  char        tmp_dir[3072];   /* MPE_TMPDIR..., root's if MPE_SAME_TMPDIR */
  char        runid[32];
  atomic_uint_fast64_t spill_off;
  uint64_t    memory_saved_at; /* spill_off where mpe__save_memory began
                                  writing a copy of memory (0: none): the
                                  merge reads memory, not the copy */
  int         spill_fail_hook; /* MPE_TEST_SPILL_FAIL */
  int         region_fail_hook; /* MPE_TEST_REGION_FAIL: a region sent
                                   to rank 0 cannot be read back */
  int         gather_frames;   /* MPE_TEST_GATHER_FRAMES: the spill thread
                                  gathers at most this many frames (0: no
                                  limit), as if out of memory */
  long        kill_in_spill;   /* MPE_TEST_KILL_IN_SPILL: SIGKILL after
                                  that many spilled blocks */
  int         delete_local;
  int         save_on_wait;  /* MPE_SAVE_ON_WAIT */
  int         spill_async;     /* MPE_SPILL_THREAD: background spill */
  int         spill_wb;        /* write-behind: the logger packs, the
                                  spill thread only writes */
  char        ring_prefix[4096]; /* ring files: PREFIX.t<thread>.ring */
  int         ring_off;        /* MPE_RING_DIR=none */
  /* Sync points (mpe-sync.c; local ns since origin, offset). */
  int64_t    *sync_l, *sync_off;
  int         nsync;
  int64_t     sync_err_ns;     /* rank 0: the largest error bound of a
                                  rank's offset (half its best round
                                  trip, summed along the tree) */
  /* Naming (mpe-log.c, mpe-merge.c). */
  char        default_prefix[4096];
  char        merged_name[4096];
  pthread_mutex_t lock;
} mpe_global_t;

extern mpe_global_t mpe__g MPE_HIDDEN;
extern MPI_Comm mpe__comm MPE_HIDDEN;  /* the logger's private dup of world */

/* Raw clock read: counter ticks or CLOCK_MONOTONIC ns. */
static inline uint64_t
mpe__ticks (void)
{
#if MPE_HAVE_COUNTER
  if (MPE_LIKELY (mpe__use_counter))
    return mpe_counter_read ();
#endif
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* Ticks -> ns since the local origin. */
static inline uint64_t
mpe__ticks_to_local (uint64_t t)
{
  return mpe_spill_tick_ns (t, mpe__g.tick0, mpe__g.mult_fp);
}

/* mpe-core.c: the clock. */
MPE_HIDDEN void        mpe__clock_init (void);
MPE_HIDDEN int64_t     mpe__mono_ns (void);
MPE_HIDDEN int64_t     mpe__real_ns (void);
/* mpe-tbuf.c: thread buffers and their ring files. */
MPE_HIDDEN mpe_tbuf_t *mpe__tbuf_create (int want_thread0);
MPE_HIDDEN void        mpe__tbuf_reset_all (void);
MPE_HIDDEN void        mpe__part_new_round (mpe_tbuf_t *b, int p);
MPE_HIDDEN void        mpe__part_spilled (mpe_tbuf_t *b, int p);
MPE_HIDDEN void        mpe__ring_attach_all (void);
MPE_HIDDEN void        mpe__ring_detach_all (void);
MPE_HIDDEN void        mpe__ring_keep_all (void);
/* mpe-flush.c: full buffers to the spill file. */
MPE_HIDDEN mpe_rec_t  *mpe__tbuf_full (mpe_tbuf_t *b);
/* An empty round: no frames waiting, the first window's end. */
MPE_HIDDEN void        mpe__tbuf_windows (mpe_tbuf_t *b);
/* Packed write-behind's layout for a thread's share of the budget:
 * *slots record slots, two frame areas of *area bytes each. */
MPE_HIDDEN void        mpe__wb_layout (size_t bytes, size_t *slots,
                                       size_t *area);
MPE_HIDDEN void        mpe__spill_drain (void);
/* mpe-spillfile.c: the spill file. */
MPE_HIDDEN int         mpe__spill_open (void);
MPE_HIDDEN void        mpe__spill_close (int remove_file);
MPE_HIDDEN void        mpe__spill_keep (void);
MPE_HIDDEN int         mpe__spill_frame (int type, int thread,
                                         const void *p, size_t len);
/* Frames built in memory, in one write; *done: the bytes written (all of
 * them unless it fails: the frames before the torn one are in the file). */
MPE_HIDDEN int         mpe__spill_frames (const void *frames, size_t len,
                                          size_t *done);
/* The same with direct I/O when the file system takes it: frames in
 * MPE_DIO_ALIGN-aligned memory with room for cap bytes, padded there with
 * a PAD frame to a whole number of blocks, at a block-aligned offset. */
enum { MPE_DIO_ALIGN = 4096 };
static inline size_t
mpe__dio_up (size_t n)
{
  return (n + MPE_DIO_ALIGN - 1) / MPE_DIO_ALIGN * MPE_DIO_ALIGN;
}
MPE_HIDDEN int         mpe__spill_frames_direct (unsigned char *frames,
                                                 size_t len, size_t cap,
                                                 size_t *done);
/* A frame of `type` whose payload (len bytes) is already at p + its
 * header: the header written, the payload padded to 8 bytes with zeros.
 * Returns the frame's length. */
MPE_HIDDEN size_t      mpe__frame_seal (unsigned char *p, int type,
                                        int thread, size_t len);
MPE_HIDDEN void        mpe__spill_meta (void);
/* mpe-crash.c: the crash path. */
MPE_HIDDEN void        mpe__crash_install (void);
MPE_HIDDEN void        mpe__crash_flush (void);
/* The same without fsync, outside a signal handler (see arrival_guard). */
MPE_HIDDEN void        mpe__save_memory (void);
MPE_HIDDEN int         mpe__crash_taken (void);
/* mpe-sync.c: clock sync points; mpe-merge.c: the merge at the finish. */
MPE_HIDDEN int         mpe__sync_run (void);
/* One clock conversion per host, and who the sync measures (collective,
 * after mpe__clock_init); own: every process its own host (test skew,
 * MPE_SYNC_SAME_HOST). */
MPE_HIDDEN void        mpe__clock_share (int own);
MPE_HIDDEN void        mpe__mpi_wait (MPI_Request *rq);
/* MPE_SYNC_ALGORITHM (rank 0's value): DEFAULT is SEQ up to 16 ranks,
 * else BITREE, as in MPE2. */
enum { MPE_SYNC_SEQ, MPE_SYNC_BITREE, MPE_SYNC_ALTNGBR };
MPE_HIDDEN int         mpe__sync_algorithm (const char *env, int size);
/* The spill directory: MPE_TMPDIR, TMPDIR, TMP, TEMP or /tmp. */
MPE_HIDDEN const char *mpe__env_tmp_dir (void);
MPE_HIDDEN int         mpe__merge (const char *prefix);
/* mpe-log.c: the slow path of mpe__put (logging off, or the live tap). */
MPE_HIDDEN void        mpe__log_slow (int kind, int32_t id, const void *ext);
/* mpe-comms.c */
MPE_HIDDEN uint32_t    mpe__comm_id (MPI_Comm comm, int partner,
                                     int *world_partner);
/* mpe-env.c */
MPE_HIDDEN int         mpe__env_bool (const char *name, int dflt);
/* NAME as a number in [lo, hi] (unit: for messages and as an optional
 * suffix), else dflt; a value refused or adjusted is said once. */
enum
{
  MPE_ENV_INT = 1,        /* whole numbers only */
  MPE_ENV_CLAMP = 2,      /* above hi: hi, said, rather than refused */
  MPE_ENV_DURATION = 4,   /* s, ms, us or ns suffix (none: ns); in ns */
  MPE_ENV_CLAMP_LOW = 8   /* below lo: lo, said, rather than refused */
};
MPE_HIDDEN double      mpe__env_number (const char *name, double dflt,
                                        double lo, double hi,
                                        const char *unit, unsigned flags);
/* One of the NULL-terminated choices (its index), else dflt. */
MPE_HIDDEN int         mpe__env_choice (const char *name,
                                        const char *const *choices,
                                        int dflt);
/* A message about variable NAME in the same form, once per process. */
MPE_HIDDEN void        mpe__env_say (const char *name, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

/* Definitions, serialised as the spill file's STATE/EVENT text lines. */
typedef struct
{
  int   is_state;
  int   a, b;         /* start/end, or id and 0 */
  char *name, *color, *format;
} mpe_def_t;

/* mpe-defs.c */
MPE_HIDDEN int  mpe__defs_snapshot (mpe_def_t **defs, size_t *n);
MPE_HIDDEN void mpe__defs_free (mpe_def_t *defs, size_t n);
MPE_HIDDEN void mpe__defs_respill (void);
MPE_HIDDEN void mpe__add_def (int is_state, int a, int b, const char *name,
                              const char *color, const char *format,
                              int unique);

/* Communicator definitions for the merge. */
typedef struct
{
  uint32_t id;
  int32_t  kind;
  uint32_t size;
  int32_t *ranks;
  char    *name;
  int      eager;   /* registered by every member when made (world, the
                       wrappers' creation calls): then only its lowest
                       member sends it to the merge */
} mpe_commdef_t;

/* mpe-comms.c */
MPE_HIDDEN int  mpe__comms_snapshot (mpe_commdef_t **c, size_t *n);
MPE_HIDDEN void mpe__comms_free (mpe_commdef_t *c, size_t n);
MPE_HIDDEN void mpe__comms_reset (void);
MPE_HIDDEN void mpe__comms_add_world (void);

/* ---- Metric cells (mpe-metrics.c, mpe_metrics.h) ----------------------
 * Metric ids in the log: user cells 0..MPE_METRIC_MAX_CELLS-1, standard
 * scalar cells MPE_MID_STD + k, per MPI function MPE_MID_FN + 2 fn
 * (calls) and + 1 (time, kept in ticks), channel cells MPE_MID_CHAN + k
 * with the partner as the sample's object.  The function index fn is the
 * wrappers' known-state number. */
#define MPE_MID_STD  0x100000u
#define MPE_MID_FN   0x200000u
#define MPE_MID_CHAN 0x300000u
#define MPE_MFN_MAX  1024
enum
{
  MPE_MSTD_MPI_CALLS, MPE_MSTD_MPI_TIME, MPE_MSTD_MSGS_SENT,
  MPE_MSTD_BYTES_SENT, MPE_MSTD_MSGS_RECV, MPE_MSTD_BYTES_RECV,
  MPE_MSTD_COLL_CALLS, MPE_MSTD_COLL_BYTES, MPE_MSTD_N
};
#define MPE_MCHAN_N 4   /* msgs sent, bytes sent, msgs recv, bytes recv */
#define MPE_METRIC_MAX_CELLS_ 256

/* One thread's cells and the values of their last samples (_em). */
typedef struct mpe_mcells
{
  int64_t  user[MPE_METRIC_MAX_CELLS_], user_em[MPE_METRIC_MAX_CELLS_];
  uint64_t user_t0[MPE_METRIC_MAX_CELLS_];  /* running timers' start */
  int64_t  std[MPE_MSTD_N], std_em[MPE_MSTD_N];
  int64_t  fn[2 * MPE_MFN_MAX], fn_em[2 * MPE_MFN_MAX];
  uint64_t fn_t0[MPE_MFN_MAX];               /* begin tick of the call */
  int64_t *chan[MPE_MCHAN_N], *chan_em[MPE_MCHAN_N];
  int      nchan;                            /* partners in chan[] */
  struct mpe_tbuf   *tb;                     /* the thread's buffer */
  struct mpe_mcells *next;
} mpe_mcells_t;

extern __thread mpe_mcells_t *mpe__mtls
  __attribute__ ((tls_model ("initial-exec"))) MPE_HIDDEN;
/* Tick at which the thread's next periodic sample is due. */
extern __thread uint64_t mpe__mdue
  __attribute__ ((tls_model ("initial-exec"))) MPE_API;
extern int mpe__mstd_guarded MPE_HIDDEN;  /* a standard cell has a guard */
extern int mpe__mon_n MPE_HIDDEN;         /* MPE_Metric_sample_on events */

MPE_HIDDEN mpe_mcells_t *mpe__mcells_create (void);
MPE_HIDDEN void     mpe__metrics_init (void);
MPE_HIDDEN void     mpe__metrics_respill (void);
MPE_HIDDEN void     mpe__metrics_final (void);
MPE_HIDDEN void     mpe__metric_due (uint64_t t);
MPE_HIDDEN void     mpe__metric_on (int32_t id);
MPE_HIDDEN void     mpe__metric_describe_fn (int fn, const char *name);
MPE_HIDDEN void     mpe__metric_describe_counter (uint32_t id, uint32_t flags,
                                                  const char *name,
                                                  const char *unit);
MPE_HIDDEN size_t   mpe__metric_defs (logfmt_metric_def_t **out);
MPE_HIDDEN int      mpe__mguard_open (const mpe_mcells_t *c, int16_t g);
MPE_HIDDEN int16_t  mpe__mguard_std (int k);
MPE_HIDDEN int16_t  mpe__mguard_fn (int k);
MPE_HIDDEN int64_t *mpe__mchan_grow (mpe_mcells_t *c, int partner);

/* The wrappers' function index of a known-state event id, or -1; *end
 * set for an end id. */
static inline int
mpe__known_fn (int32_t id, int *end)
{
  if ((uint32_t) id < 600)
    {
      *end = id & 1;
      return id >> 1;
    }
  if (id <= -1001)
    {
      uint32_t k = (uint32_t) (-1001 - (int64_t) id);
      *end = (int) (k & 1);
      return k / 2 < MPE_MFN_MAX - 300 ? 300 + (int) (k / 2) : -1;
    }
  return -1;
}

/* A standard cell update under guards (rare: only once one is set). */
static inline int
mpe__mstd_open (const mpe_mcells_t *c, int k)
{
  return !MPE_UNLIKELY (mpe__mstd_guarded)
         || mpe__mguard_open (c, mpe__mguard_std (k));
}

/* Hook of the wrappers' state records: a known state's begin remembers
 * its tick, its end adds one call and the ticks in between. */
static inline __attribute__ ((always_inline)) void
mpe__metric_call (int32_t id, uint64_t t)
{
  int end, fn = mpe__known_fn (id, &end);
  if (fn < 0)
    return;
  mpe_mcells_t *c = mpe__mtls;
  if (MPE_UNLIKELY (c == NULL) && !(c = mpe__mcells_create ()))
    return;
  if (!end)
    {
      c->fn_t0[fn] = t;
      return;
    }
  uint64_t t0 = c->fn_t0[fn];
  if (MPE_UNLIKELY (t0 == 0))
    return;
  c->fn_t0[fn] = 0;
  if (MPE_UNLIKELY (mpe__mstd_guarded))
    {
      if (mpe__mguard_open (c, mpe__mguard_fn (2 * fn)))
        c->fn[2 * fn]++;
      if (mpe__mguard_open (c, mpe__mguard_fn (2 * fn + 1)))
        c->fn[2 * fn + 1] += (int64_t) (t - t0);
      return;
    }
  c->fn[2 * fn]++;
  c->fn[2 * fn + 1] += (int64_t) (t - t0);
}

/* Hook of message records: process and channel cells. */
static inline __attribute__ ((always_inline)) void
mpe__metric_msg (int send, int wp, uint64_t bytes)
{
  mpe_mcells_t *c = mpe__mtls;
  if (MPE_UNLIKELY (c == NULL) && !(c = mpe__mcells_create ()))
    return;
  int k = send ? MPE_MSTD_MSGS_SENT : MPE_MSTD_MSGS_RECV;
  if (mpe__mstd_open (c, k))
    c->std[k]++;
  if (mpe__mstd_open (c, k + 1))
    c->std[k + 1] += (int64_t) bytes;
  if (MPE_UNLIKELY (wp >= c->nchan) && !mpe__mchan_grow (c, wp))
    return;
  c->chan[send ? 0 : 2][wp]++;
  c->chan[send ? 1 : 3][wp] += (int64_t) bytes;
}

/* The gate of b's call-site writes (b->end, which mpe_log.h's inline
 * bare event and put_bare_fast test instead of mpe__bare_fast: a flag
 * tested at each call cost 3.5% of a record on an Intel Xeon guest)
 * opened at wend when mpe__bare_fast says they may be written, by b's
 * thread.  mpe__mode_store closes every gate after clearing the flag;
 * the flag read again after the opening (both seq_cst) leaves no gate
 * open behind a closing. */
static inline void
mpe__gate (mpe_tbuf_t *b)
{
  if (!__atomic_load_n (&mpe__bare_fast, __ATOMIC_RELAXED))
    return;   /* closed when the flag was cleared, or when made */
  __atomic_store_n (&b->end, b->wend, __ATOMIC_SEQ_CST);
  if (MPE_UNLIKELY (!__atomic_load_n (&mpe__bare_fast, __ATOMIC_SEQ_CST)))
    __atomic_store_n (&b->end, b->base, __ATOMIC_RELAXED);
}

/* Writes one record on the calling thread without checking the mode;
 * returns the record's tick stamp. */
static inline __attribute__ ((always_inline)) uint64_t
mpe__put_nocheck (int kind, int32_t id, const void *ext)
{
  mpe_tbuf_t *b = mpe__tls;
  if (MPE_UNLIKELY (b == NULL))
    b = mpe__tbuf_create (0);
  if (MPE_UNLIKELY (b == NULL))
    return 0;
  mpe_rec_t *r = b->pos;
  if (MPE_UNLIKELY (r >= b->wend))
    r = mpe__tbuf_full (b);
  else if (MPE_UNLIKELY (__atomic_load_n (&b->end, __ATOMIC_RELAXED)
                         != b->wend))
    mpe__gate (b);   /* reopened after a closing, or never opened */
  uint64_t t = mpe__ticks ();
  r->t = t;
  r->id = id;
  r->aux = (uint32_t) kind | b->tag;
  if (kind == MPE_REC_BARE)
    MPE_PUBLISH (b->pos, r + 1);
  else if (kind == MPE_REC_CARGO)
    {
      memcpy (r + 1, ext, 32);
      MPE_PUBLISH (b->pos, r + 3);
    }
  else
    {
      memcpy (r + 1, ext, 16);
      MPE_PUBLISH (b->pos, r + 2);
    }
  /* Metric samples: periodic, and after the events MPE_Metric_sample_on
   * chose. */
  if (MPE_UNLIKELY (t >= mpe__mdue))
    mpe__metric_due (t);
  if (MPE_UNLIKELY (mpe__mon_n != 0) && kind <= MPE_REC_CARGO)
    mpe__metric_on (id);
  return t;
}

/* The hot path: one predictable branch when logging is on (mode 1). */
static inline __attribute__ ((always_inline)) void
mpe__put (int kind, int32_t id, const void *ext)
{
  if (MPE_UNLIKELY (atomic_load_explicit (&mpe__mode,
                                          memory_order_relaxed) != 1))
    {
      mpe__log_slow (kind, id, ext);
      return;
    }
  mpe__put_nocheck (kind, id, ext);
}

#endif

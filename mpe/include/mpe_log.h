/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPE logging API, source compatible with MPE2 2.4.6.
 *
 * Collective over MPI_COMM_WORLD: MPE_Init_log, MPE_Finish_log,
 * MPE_Log_sync_clocks.  Everything else is local.  MPE_Log_get_* are local
 * counters: call them on every rank in the same order.  Every call is safe
 * from any thread (MPI_THREAD_MULTIPLE); each thread logs to its own
 * timeline.  See docs/MPE-API.md.
 */
#ifndef MPE_LOG_H
#define MPE_LOG_H

#include "clog_commset.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
# define MPE_API __attribute__ ((visibility ("default")))
#else
# define MPE_API
#endif

/* Return codes. */
#define MPE_LOG_OK                0
#define MPE_LOG_LOCKED_OUT        1
#define MPE_LOG_NO_MEMORY         2
#define MPE_LOG_FILE_PROB         3
#define MPE_LOG_NOT_INITIALIZED   4
#define MPE_LOG_PACK_FAIL         5

#define MPE_Log_OK                MPE_LOG_OK
#define MPE_Log_LOCKED_OUT        MPE_LOG_LOCKED_OUT
#define MPE_Log_NO_MEMORY         MPE_LOG_NO_MEMORY
#define MPE_Log_FILE_PROB         MPE_LOG_FILE_PROB
#define MPE_Log_NOT_INITIALIZED   MPE_LOG_NOT_INITIALIZED
#define MPE_Log_PACK_FAIL         MPE_LOG_PACK_FAIL

/* Cargo ("informational data") carried by an event: 32 bytes. */
#define MPE_LOG_BYTESIZE  (4 * sizeof (double))
typedef char MPE_LOG_BYTES[MPE_LOG_BYTESIZE];

/* Lifecycle and control. */
MPE_API int         MPE_Init_log (void);
MPE_API int         MPE_Initialized_logging (void);
MPE_API int         MPE_Start_log (void);
MPE_API int         MPE_Stop_log (void);
MPE_API int         MPE_Log_sync_clocks (void);
/* Writes <prefix>.clog (rank 0's prefix, or MPE_LOGFILE_PREFIX). */
MPE_API int         MPE_Finish_log (const char *filename);
/* "" before MPE_Finish_log; the file written afterwards.  Static storage. */
MPE_API const char *MPE_Log_merged_logfilename (void);

/* Event numbers: local counters, same order on every rank. */
MPE_API int MPE_Log_get_event_number (void);
MPE_API int MPE_Log_get_state_eventIDs (int *start_id, int *final_id);
MPE_API int MPE_Log_get_solo_eventID (int *event_id);

/* Definitions (global once written; usually called on rank 0 only). */
MPE_API int MPE_Describe_state (int start_id, int final_id,
                                const char *name, const char *color);
MPE_API int MPE_Describe_info_state (int start_id, int final_id,
                                     const char *name, const char *color,
                                     const char *format);
MPE_API int MPE_Describe_comm_state (MPI_Comm comm, int start_id,
                                     int final_id, const char *name,
                                     const char *color, const char *format);
MPE_API int MPE_Describe_event (int event_id, const char *name,
                                const char *color);
MPE_API int MPE_Describe_info_event (int event_id, const char *name,
                                     const char *color, const char *format);
MPE_API int MPE_Describe_comm_event (MPI_Comm comm, int event_id,
                                     const char *name, const char *color,
                                     const char *format);

/* Events.  bytebuf, when not NULL, is 32 bytes of cargo. */
MPE_API int MPE_Log_event (int event_id, int data, const char *bytebuf);
MPE_API int MPE_Log_bare_event (int event_id);
MPE_API int MPE_Log_info_event (int event_id, const char *bytebuf);
MPE_API int MPE_Log_comm_event (MPI_Comm comm, int event_id,
                                const char *bytebuf);
/* Appends count items of tokentype (h d x e l X E s) big-endian. */
MPE_API int MPE_Log_pack (MPE_LOG_BYTES bytebuf, int *position,
                          char tokentype, int count, const void *data);

/* Message arrows: partner ranks relative to comm (world for the plain
 * forms); MPI_PROC_NULL logs nothing. */
MPE_API int MPE_Log_send (int receiver, int tag, int size);
MPE_API int MPE_Log_receive (int sender, int tag, int size);
MPE_API int MPE_Log_comm_send (MPI_Comm comm, int receiver, int tag,
                               int size);
MPE_API int MPE_Log_comm_receive (MPI_Comm comm, int sender, int tag,
                                  int size);

/* Threads (internal in MPE2; collective). */
MPE_API void MPE_Log_thread_sync (int local_thread_count);

/* MPE2's internal entry points, kept for source compatibility. */
MPE_API int MPE_Describe_known_state (const CLOG_CommIDs_t *commIDs,
                                      int thread, int state_id,
                                      int start_id, int final_id,
                                      const char *name, const char *color,
                                      const char *format);
MPE_API int MPE_Describe_known_event (const CLOG_CommIDs_t *commIDs,
                                      int thread, int event_id,
                                      const char *name, const char *color,
                                      const char *format);
MPE_API int MPE_Log_get_known_eventID (void);
MPE_API int MPE_Log_get_known_stateID (void);
MPE_API int MPE_Log_get_known_solo_eventID (void);
MPE_API int MPE_Log_commIDs_intracomm (const CLOG_CommIDs_t *commIDs,
                                       int thread, int comm_etype,
                                       const CLOG_CommIDs_t *intracommIDs);
MPE_API int MPE_Log_commIDs_nullcomm (const CLOG_CommIDs_t *commIDs,
                                      int thread, int comm_etype);
MPE_API int MPE_Log_commIDs_intercomm (const CLOG_CommIDs_t *commIDs,
                                       int thread, int comm_etype,
                                       const CLOG_CommIDs_t *intercommIDs);
MPE_API int MPE_Log_commIDs_send (const CLOG_CommIDs_t *commIDs, int thread,
                                  int receiver, int tag, int size);
MPE_API int MPE_Log_commIDs_receive (const CLOG_CommIDs_t *commIDs,
                                     int thread, int sender, int tag,
                                     int size);
MPE_API int MPE_Log_commIDs_event (const CLOG_CommIDs_t *commIDs,
                                   int thread, int event_id,
                                   const char *bytebuf);

MPE_API extern CLOG_CommSet_t *CLOG_CommSet;

/* A stopped log costs a load and a branch at the call site: while
 * mpe__log_active is 0 (before MPE_Init_log, after MPE_Stop_log or
 * MPE_Finish_log) MPE_Log_event and MPE_Log_bare_event return
 * mpe__log_off_rc without a call.  The functions themselves are still
 * exported (function pointers, other languages); define
 * MPE_NO_INLINE_CHECK to call them always. */
MPE_API extern int mpe__log_active;
MPE_API extern int mpe__log_off_rc;

/* A bare event (no bytebuf) is written at the call site, with no call,
 * when the head of the thread's buffer lets it: libmpe keeps `end` below
 * `pos` (closed) unless logging is on with the CPU's time-stamp counter
 * as the clock and no event chosen by MPE_Metric_sample_on, and no
 * metric sample is due.  A call cost 1.3x the record itself on an Intel
 * Xeon guest (a 16-byte store stamped with rdtsc: bench/mpe-user --pair);
 * written here, 1.1x (1.07x since one test of `end` stands for the flag
 * tested before).  The record and the head of the thread's buffer are
 * libmpe's, as below: changing them, or what they mean, changes its ABI
 * (programs built with this header need a libmpe that closes `end`;
 * those built before, which also test mpe__bare_fast, run with it). */
#if defined(__GNUC__)
__extension__ typedef unsigned long long mpe__u64;
#else
typedef unsigned long long mpe__u64;
#endif
struct mpe__rec
{
  mpe__u64           t;    /* counter ticks */
  int                id;   /* event id */
  unsigned int       aux;  /* kind (0: bare) | the round's tag */
};
struct mpe__tbuf_head
{
  struct mpe__rec *pos;    /* next free slot */
  struct mpe__rec *end;    /* last slot a record may start at (+1),
                              or at most pos: closed */
  unsigned int     tag;
};

#if defined(__GNUC__) && !defined(MPE_NO_INLINE_CHECK)
# if defined(__x86_64__)
MPE_API extern __thread struct mpe__tbuf_head *mpe__tls
  __attribute__ ((tls_model ("initial-exec")));
MPE_API extern __thread mpe__u64 mpe__mdue
  __attribute__ ((tls_model ("initial-exec")));

/* 0 when the record was written; anything else is libmpe's to do.
 * Written to compile as C90 too (MPE2 programs built with -ansi). */
static __inline__ int
mpe__put_bare_inline (int event_id)
{
  struct mpe__tbuf_head *b;
  struct mpe__rec *r;
  unsigned int lo, hi;
  mpe__u64 t;
  b = mpe__tls;
  if (__builtin_expect (b == 0, 0))
    return -1;
  r = b->pos;
  /* end is a gate: libmpe closes it whenever it may not be written
   * here (logging off, another clock, events chosen for metric
   * samples), so one test covers those and the room. */
  if (__builtin_expect (r >= __atomic_load_n (&b->end, __ATOMIC_RELAXED),
                        0))
    return -1;
  __asm__ __volatile__ ("rdtsc" : "=a" (lo), "=d" (hi));
  t = (mpe__u64) hi << 32 | lo;
  if (__builtin_expect (t >= mpe__mdue, 0))
    return -1;
  r->t = t;
  r->id = event_id;
  r->aux = b->tag;
  __atomic_store_n (&b->pos, r + 1, __ATOMIC_RELAXED);
  return 0;
}
# else
#  define mpe__put_bare_inline(e) (-1)
# endif

static __inline__ int
mpe__log_event_inline (int event_id, int data, const char *bytebuf)
{
  if (bytebuf == 0 && mpe__put_bare_inline (event_id) == 0)
    return MPE_LOG_OK;
  if (__builtin_expect (__atomic_load_n (&mpe__log_active,
                                         __ATOMIC_RELAXED), 1))
    return (MPE_Log_event) (event_id, data, bytebuf);
  return __atomic_load_n (&mpe__log_off_rc, __ATOMIC_RELAXED);
}

static __inline__ int
mpe__log_bare_event_inline (int event_id)
{
  if (mpe__put_bare_inline (event_id) == 0)
    return MPE_LOG_OK;
  if (__builtin_expect (__atomic_load_n (&mpe__log_active,
                                         __ATOMIC_RELAXED), 1))
    return (MPE_Log_bare_event) (event_id);
  return __atomic_load_n (&mpe__log_off_rc, __ATOMIC_RELAXED);
}

# define MPE_Log_event(e, d, b)  mpe__log_event_inline ((e), (d), (b))
# define MPE_Log_bare_event(e)   mpe__log_bare_event_inline ((e))
#endif

#ifdef __cplusplus
}
#endif

#endif

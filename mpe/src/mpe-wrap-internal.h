/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interface between libmpe (the logging core, mpe/src/) and the
 * libraries that wrap MPI through PMPI: liblmpe (automatic logging),
 * libtmpe (tracing) and libampe (live animation).  Not installed.
 *
 * Rules both sides keep:
 *  - The core calls only PMPI_* functions, so nothing the logger does
 *    itself ever reaches a wrapper or the log.
 *  - These symbols are exported from libmpe (MPE_INTERNAL_API) because the
 *    wrapper libraries are separate shared objects.
 *  - Everything here is safe to call from any thread under
 *    MPI_THREAD_MULTIPLE.
 */
#ifndef MPE_WRAP_INTERNAL_H
#define MPE_WRAP_INTERNAL_H

#include <stdint.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
# define MPE_INTERNAL_API __attribute__ ((visibility ("default")))
#else
# define MPE_INTERNAL_API
#endif

/* Known-state numbering shared with MPE2: known state s (0..299) uses
 * event ids 2s (start) and 2s+1 (end); known solo events are -10..-1. */
#define MPE_KNOWN_STATE_START(s) (2 * (s))
#define MPE_KNOWN_STATE_END(s)   (2 * (s) + 1)
#define MPE_KNOWN_SOLO_COMM_INIT     (-10)
#define MPE_KNOWN_SOLO_COMM_FINALIZE (-9)

/* Called by the MPI_Init/MPI_Init_thread wrapper right after PMPI_Init*:
 * MPE_Init_log() plus remembering argv[0] (as passed, path included;
 * "Unknown" if argv is NULL) as the default log prefix. */
MPE_INTERNAL_API int  mpe__wrap_init (int *argc, char ***argv);

/* Called by the MPI_Finalize wrapper before PMPI_Finalize: writes the
 * merged log under the default prefix unless the user already called
 * MPE_Finish_log (then it does nothing). */
MPE_INTERNAL_API int  mpe__wrap_finalize (void);

/* Runs inside every MPE_Finish_log that writes a log, on every rank,
 * before the merge, whoever calls it (the MPI_Finalize wrapper or the
 * user): the wrappers use it to define the MPI states some rank used.
 * May make collective PMPI calls on MPI_COMM_WORLD.  NULL removes it. */
typedef void (*mpe_finish_hook) (void);
MPE_INTERNAL_API void mpe__set_finish_hook (mpe_finish_hook hook);

/* Defines a known state or solo event (for MPI functions).  May be called
 * on every rank; only one definition per id is kept. */
MPE_INTERNAL_API int  mpe__describe_known_state (int start_id, int end_id,
                                                 const char *name,
                                                 const char *color,
                                                 const char *format);
MPE_INTERNAL_API int  mpe__describe_known_event (int event_id,
                                                 const char *name,
                                                 const char *color,
                                                 const char *format);

/* Called by the MPI_Abort wrapper before PMPI_Abort (which does not
 * return; the launcher may kill the process without running a handler):
 * saves what memory holds to the spill file and tells the user where the
 * local files are and how to rebuild the log. */
MPE_INTERNAL_API void mpe__wrap_abort (void);

/* Writes a known state's (is_state, start and end id) or solo event's
 * definition into the spill file only, at once: a log recovered after a
 * crash names what the process used, while the finished log keeps the
 * finish hook's set. */
MPE_INTERNAL_API void mpe__spill_known_def (int is_state, int a, int b,
                                            const char *name,
                                            const char *color,
                                            const char *format);

/* Names the standard metric cells of a wrapped MPI function (known
 * state start_id), so that MPE_Metric_find finds "NAME.calls" and
 * "NAME.time" from the start; name must outlive the process. */
MPE_INTERNAL_API void mpe__metric_fn_name (int32_t start_id,
                                           const char *name);

/* The fast path: one record on the calling thread's timeline.  Honours
 * MPE_Start_log/MPE_Stop_log (not MPI_Pcontrol, which the wrappers own). */
MPE_INTERNAL_API void mpe__log_id (int32_t event_id);
MPE_INTERNAL_API void mpe__log_id_cargo (int32_t event_id,
                                         const void *cargo32);

/* A message end.  `partner` is a rank in `comm` (MPI_PROC_NULL: nothing
 * is logged); the core translates it to a world rank, registering comm
 * lazily if it has not seen it (any communicator works, also ones made
 * while logging was off or by unwrapped calls). */
MPE_INTERNAL_API void mpe__log_send (MPI_Comm comm, int partner, int tag,
                                     uint64_t bytes);
MPE_INTERNAL_API void mpe__log_recv (MPI_Comm comm, int partner, int tag,
                                     uint64_t bytes);

/* The same with the state's begin or end record sharing the message's
 * clock read (one timestamp for two records): begin_id then the send,
 * or the receive then end_id.  With MPI_PROC_NULL (or a partner outside
 * comm) only the event record is written. */
MPE_INTERNAL_API void mpe__log_begin_send (int32_t begin_id, MPI_Comm comm,
                                           int partner, int tag,
                                           uint64_t bytes);
MPE_INTERNAL_API void mpe__log_recv_end (MPI_Comm comm, int partner,
                                         int tag, uint64_t bytes,
                                         int32_t end_id);

/* Communicator tracking, called by wrappers whatever the Pcontrol level:
 * after a call that created newcomm (intra or inter), and before
 * MPI_Comm_free / MPI_Comm_disconnect releases a handle (handles are
 * reused by MPI, so the core must forget them). */
MPE_INTERNAL_API void mpe__comm_created (MPI_Comm newcomm);
MPE_INTERNAL_API void mpe__comm_freed (MPI_Comm comm);

/* Instrumentation points (mpe-plugin.c): when mpe__instr_on, the
 * wrappers call pre before a logged MPI call's begin record (state: the
 * wrapper's state number; site: the return address into the wrapper's
 * caller; bytes: what the call sends, when known up front) and post after
 * its end record (bytes: what it received or otherwise moved).  They
 * record the call site (MPE_CALLSITE) and run the plugins' hooks. */
extern MPE_INTERNAL_API int mpe__instr_on;
MPE_INTERNAL_API void mpe__instr_pre (int state, const char *name,
                                      const void *site, uint64_t bytes);
MPE_INTERNAL_API void mpe__instr_post (uint64_t bytes);

/* Live tap for the animation client: when set, the core also hands every
 * logged record of every thread to tap (from the logging thread; tap must
 * not block).  Only one tap; NULL removes it. */
typedef struct
{
  uint64_t time_ns;     /* same clock as the log, uncorrected */
  int32_t  world_rank;
  int32_t  thread;
  int32_t  type;        /* 1 event, 2 send, 3 recv (as LOGFMT_REC_*) */
  int32_t  event_id;    /* type 1 */
  int32_t  partner;     /* types 2/3: world rank */
  int32_t  tag;
  uint64_t bytes;
} mpe_tap_record_t;

typedef void (*mpe_tap_cb) (void *user, const mpe_tap_record_t *rec);
MPE_INTERNAL_API void mpe__set_tap (mpe_tap_cb tap, void *user);

/* State definitions known so far (names/colours for the live window):
 * calls cb for each. */
typedef void (*mpe_state_def_cb) (void *user, int start_id, int end_id,
                                  const char *name, const char *color);
MPE_INTERNAL_API void mpe__foreach_state_def (mpe_state_def_cb cb,
                                              void *user);

/* The live monitor (mpe-monitor.c): the wrapped calls move its requests
 * when it is on; off, the wrappers pay one load of mpe__mon_active. */
extern MPE_INTERNAL_API _Atomic int mpe__mon_active;
MPE_INTERNAL_API void mpe__mon_progress (void);
/* Before MPI_Init: whether the live monitor will run with its helper
 * thread (the default when it runs), so the wrappers' MPI_Init can ask
 * for MPI_THREAD_MULTIPLE on the program's behalf. */
MPE_INTERNAL_API int mpe__mon_thread_wanted (void);

#ifdef __cplusplus
}
#endif

#endif /* MPE_WRAP_INTERNAL_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the generated wrappers (lmpe-gen.c) and the hand-written parts
 * of liblmpe/libampe (wrap-core.c, wrap-req.c).  Not installed.
 *
 * Hot path of every wrapper: WRAP_ON (one relaxed load when Pcontrol(0)),
 * then wrap_begin / PMPI call / wrap_end.  The TLS nesting flag keeps MPI
 * calls made inside a wrapped call (by MPI itself, e.g. ROMIO, or by user
 * callbacks) out of the log.
 */
#ifndef MPE_WRAP_INTERNAL_WRAPPERS_H
#define MPE_WRAP_INTERNAL_WRAPPERS_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "mpe/src/mpe-wrap-internal.h"

#define MPE__WRAP_HIDDEN __attribute__ ((visibility ("hidden")))

enum
{
  MPE__CLASS_COLL, MPE__CLASS_MSG, MPE__CLASS_MSG_INIT, MPE__CLASS_COMM,
  MPE__CLASS_COMM_INFO, MPE__CLASS_TOPO, MPE__CLASS_FILE, MPE__CLASS_RMA,
  MPE__CLASS_SPAWN, MPE__CLASS_ENV, MPE__CLASS_ATTR, MPE__CLASS_GROUP,
  MPE__CLASS_DATATYPE, MPE__CLASS_TOOL, MPE__NCLASSES
};

/* Cargo layout of every collective's end event (28 of 32 bytes). */
#define MPE__COLL_FORMAT "comm=%x np=%d root=%d sent=%l recv=%l"
/* Of a one-sided data call's end (kind rma): the target rank, bytes
 * put into its window and got from it; of an MPI-IO data call's end
 * (kind io): the bytes asked to be read or written. */
#define MPE__RMA_FORMAT "target=%d sent=%l recv=%l"
#define MPE__IO_FORMAT "bytes=%l"

typedef struct
{
  const char *name;
  uint8_t     cls;
  int16_t     state;      /* MPE2 state number, or >= 300 */
  int32_t     start_id;
  int32_t     end_id;
  const char *color;
  const char *format;
} mpe__wstate_t;

/* Internal states and events MPE2 also has. */
#define MPE__ST_ISEND_WAITED 250
#define MPE__ST_IRECV_WAITED 251

extern const mpe__wstate_t mpe__wrap_states[] MPE__WRAP_HIDDEN;
extern const int mpe__wrap_nstates MPE__WRAP_HIDDEN;
extern _Atomic int mpe__wrap_on MPE__WRAP_HIDDEN;     /* Pcontrol level */
extern int mpe__wrap_inited MPE__WRAP_HIDDEN;
extern uint8_t mpe__wrap_active[] MPE__WRAP_HIDDEN;   /* class enabled */
extern _Atomic uint8_t mpe__wrap_used[] MPE__WRAP_HIDDEN;
extern _Atomic uint8_t mpe__wrap_internal_used[2] MPE__WRAP_HIDDEN;
/* State s's first call in this process: marks it used and writes its
 * definition where a crash leaves it (the spill file). */
void mpe__wrap_first_use (int s) MPE__WRAP_HIDDEN;
/* The same for the internal states (0: MPE_Isend_waited, 1:
 * MPE_Irecv_waited). */
void mpe__wrap_first_internal (int which) MPE__WRAP_HIDDEN;
extern __thread int mpe__wrap_nest
  __attribute__ ((tls_model ("initial-exec"))) MPE__WRAP_HIDDEN;
#define WRAP_ON(s)                                                      \
  (atomic_load_explicit (&mpe__wrap_on, memory_order_relaxed)           \
   && mpe__wrap_active[s] && !mpe__wrap_nest)

/* The instrumentation point before a call (mpe__instr_pre); inlined into
 * the wrapper itself, so the return address is into the user's code. */
#define WRAP_INSTR_PRE(s, bytes)                                        \
  do {                                                                  \
    if (__builtin_expect (mpe__instr_on, 0))                            \
      mpe__instr_pre (mpe__wrap_states[s].state, mpe__wrap_states[s].name, \
                      __builtin_return_address (0), (bytes));           \
  } while (0)
#define WRAP_INSTR_POST(bytes)                                          \
  do {                                                                  \
    if (__builtin_expect (mpe__instr_on, 0))                            \
      mpe__instr_post (bytes);                                          \
  } while (0)

static inline __attribute__ ((always_inline)) void
wrap_begin (int s, int32_t start_id)
{
  mpe__wrap_nest = 1;
  WRAP_INSTR_PRE (s, 0);
  if (!atomic_load_explicit (&mpe__wrap_used[s], memory_order_relaxed))
    mpe__wrap_first_use (s);
  mpe__log_id (start_id);
}

/* Moves the live monitor's requests (mpe-monitor.c) when it is on. */
#define WRAP_MONITOR()                                                  \
  do {                                                                  \
    if (__builtin_expect (atomic_load_explicit (&mpe__mon_active,       \
                                                memory_order_relaxed), 0)) \
      mpe__mon_progress ();                                             \
  } while (0)

static inline __attribute__ ((always_inline)) void
wrap_end (int32_t end_id)
{
  mpe__log_id (end_id);
  WRAP_INSTR_POST (0);
  mpe__wrap_nest = 0;
  WRAP_MONITOR ();
}

/* Bytes of one element; MPICH encodes it in builtin handles. */
uint64_t mpe__wrap_type_size_slow (MPI_Datatype t) MPE__WRAP_HIDDEN;
/* The thread level the program sees: the one it asked for when MPI_Init
 * raised it for the monitor's helper thread, else MPI's. */
int mpe__wrap_thread_level (int actual) MPE__WRAP_HIDDEN;
static inline uint64_t
wrap_type_size (MPI_Datatype t)
{
#if defined(MPICH) && !defined(MPE_WRAP_NO_HANDLE_TRICK)
  /* Builtin handles are 0x4c00SSxx with the size in SS. */
  if (((unsigned) t & 0xc0000000u) == 0x40000000u)
    return ((unsigned) t >> 8) & 0xffu;
#endif
  return mpe__wrap_type_size_slow (t);
}

static inline void
wrap_send (MPI_Comm comm, int dest, int tag, int64_t count, MPI_Datatype t)
{
  if (dest != MPI_PROC_NULL)
    mpe__log_send (comm, dest, tag, (uint64_t) count * wrap_type_size (t));
}

/* wrap_begin + wrap_send with one clock read for both records. */
static inline __attribute__ ((always_inline)) void
wrap_begin_send (int s, int32_t start_id, MPI_Comm comm, int dest, int tag,
                 int64_t count, MPI_Datatype t)
{
  mpe__wrap_nest = 1;
  if (!atomic_load_explicit (&mpe__wrap_used[s], memory_order_relaxed))
    mpe__wrap_first_use (s);
  uint64_t bytes = dest == MPI_PROC_NULL
                   ? 0 : (uint64_t) count * wrap_type_size (t);
  WRAP_INSTR_PRE (s, bytes);
  mpe__log_begin_send (start_id, comm, dest, tag, bytes);
}

uint64_t mpe__wrap_status_bytes_slow (const MPI_Status *st) MPE__WRAP_HIDDEN;

/* Bytes received, as MPI_Get_count (st, MPI_BYTE) gives them. */
static inline uint64_t
wrap_status_bytes (const MPI_Status *st)
{
#if defined(MPICH) && !defined(MPE_WRAP_NO_HANDLE_TRICK)
  /* MPICH keeps the byte count in the status (MPIR_STATUS_GET_COUNT). */
  return ((uint64_t) ((unsigned) st->count_hi_and_cancelled >> 1) << 32)
         + (unsigned) st->count_lo;
#else
  return mpe__wrap_status_bytes_slow (st);
#endif
}

/* The receive (when ok and it matched a real source) and wrap_end, with
 * one clock read for both records. */
static inline __attribute__ ((always_inline)) void
wrap_recv_end (MPI_Comm comm, const MPI_Status *st, int ok, int32_t end_id)
{
  if (ok && st->MPI_SOURCE >= 0)
    {
      uint64_t bytes = wrap_status_bytes (st);
      mpe__log_recv_end (comm, st->MPI_SOURCE, st->MPI_TAG, bytes, end_id);
      WRAP_INSTR_POST (bytes);
    }
  else
    {
      mpe__log_id (end_id);
      WRAP_INSTR_POST (0);
    }
  mpe__wrap_nest = 0;
  WRAP_MONITOR ();
}

/* Communicators a wrapped call made or frees: tracked always; when the
 * call is logged (on), MPE_Comm_init / MPE_Comm_finalize as MPE2 logs
 * them (finalize for MPI_Comm_free only: MPE2's disconnect is silent). */
void mpe__wrap_rank2procname (void) MPE__WRAP_HIDDEN;
void wrap_comm_created (MPI_Comm comm, int on) MPE__WRAP_HIDDEN;
void wrap_comm_freed (MPI_Comm comm, int on) MPE__WRAP_HIDDEN;

/* Collectives. */
typedef struct
{
  int np, me, is_root, in, out;
} mpe__coll_info_t;
void mpe__wrap_coll_info (MPI_Comm comm, int root, mpe__coll_info_t *ci)
  MPE__WRAP_HIDDEN;
void wrap_end_coll (int32_t end_id, MPI_Comm comm, int root, uint64_t sent,
                    uint64_t recv) MPE__WRAP_HIDDEN;
void wrap_end_rma (int32_t end_id, int target, uint64_t sent, uint64_t recv)
  MPE__WRAP_HIDDEN;
void wrap_end_io (int32_t end_id, uint64_t bytes) MPE__WRAP_HIDDEN;
uint64_t mpe__wrap_sum_i (const int *a, int n) MPE__WRAP_HIDDEN;
uint64_t mpe__wrap_sum_c (const MPI_Count *a, int n) MPE__WRAP_HIDDEN;
uint64_t mpe__wrap_sumw_i (const int *a, const MPI_Datatype *t, int n)
  MPE__WRAP_HIDDEN;
uint64_t mpe__wrap_sumw_c (const MPI_Count *a, const MPI_Datatype *t, int n)
  MPE__WRAP_HIDDEN;

#define WRAP_COLL_VARS(comm, root)                                      \
  mpe__coll_info_t ci_;                                                 \
  mpe__wrap_coll_info ((comm), (root), &ci_)
#define NP   ci_.np
#define ME   ci_.me
#define ROOT ci_.is_root
#define IN   ci_.in
#define OUT  ci_.out
#define IP(b) ((const void *) (b) == (const void *) MPI_IN_PLACE)
#define TS(t) wrap_type_size (t)
#define SUM(a, n)                                                       \
  _Generic ((a), int *: mpe__wrap_sum_i, const int *: mpe__wrap_sum_i,  \
            MPI_Count *: mpe__wrap_sum_c,                               \
            const MPI_Count *: mpe__wrap_sum_c) ((a), (n))
#define SUMW(a, t, n)                                                   \
  _Generic ((a), int *: mpe__wrap_sumw_i, const int *: mpe__wrap_sumw_i, \
            MPI_Count *: mpe__wrap_sumw_c,                              \
            const MPI_Count *: mpe__wrap_sumw_c) ((a), (t), (n))

/* Request tracking (wrap-req.c). */
#define MPE__REQ_RECV      0x01u
#define MPE__REQ_SEND      0x02u
#define MPE__REQ_PERSIST   0x04u
#define MPE__REQ_ACTIVE    0x08u
#define MPE__REQ_CANCELLED 0x10u
#define MPE__REQ_LOGGED    0x20u

void mpe__req_add (MPI_Request r, unsigned flags, MPI_Comm comm,
                   int partner, int tag, uint64_t bytes) MPE__WRAP_HIDDEN;
void mpe__msg_add (MPI_Message m, MPI_Comm comm) MPE__WRAP_HIDDEN;
MPI_Comm mpe__msg_take (MPI_Message m) MPE__WRAP_HIDDEN;
void mpe__req_reset (void) MPE__WRAP_HIDDEN;

int mpe__wrap_start (int s, MPI_Request *r) MPE__WRAP_HIDDEN;
int mpe__wrap_startall (int s, int n, MPI_Request r[]) MPE__WRAP_HIDDEN;
int mpe__wrap_wait (int s, MPI_Request *r, MPI_Status *st) MPE__WRAP_HIDDEN;
int mpe__wrap_waitall (int s, int n, MPI_Request r[], MPI_Status st[])
  MPE__WRAP_HIDDEN;
int mpe__wrap_waitany (int s, int n, MPI_Request r[], int *index,
                       MPI_Status *st) MPE__WRAP_HIDDEN;
int mpe__wrap_waitsome (int s, int n, MPI_Request r[], int *outcount,
                        int indices[], MPI_Status st[]) MPE__WRAP_HIDDEN;
int mpe__wrap_test (int s, MPI_Request *r, int *flag, MPI_Status *st)
  MPE__WRAP_HIDDEN;
int mpe__wrap_testall (int s, int n, MPI_Request r[], int *flag,
                       MPI_Status st[]) MPE__WRAP_HIDDEN;
int mpe__wrap_testany (int s, int n, MPI_Request r[], int *index,
                       int *flag, MPI_Status *st) MPE__WRAP_HIDDEN;
int mpe__wrap_testsome (int s, int n, MPI_Request r[], int *outcount,
                        int indices[], MPI_Status st[]) MPE__WRAP_HIDDEN;
int mpe__wrap_reqfree (int s, MPI_Request *r) MPE__WRAP_HIDDEN;
int mpe__wrap_cancel (int s, MPI_Request *r) MPE__WRAP_HIDDEN;

/* Live animation (wrap-anim.c): starts the client with the core's tap;
 * returns as anim_client_start (1: no window address configured). */
int mpe__wrap_anim_start (int world_rank, int world_size) MPE__WRAP_HIDDEN;
void mpe__wrap_anim_stop (void) MPE__WRAP_HIDDEN;

#endif

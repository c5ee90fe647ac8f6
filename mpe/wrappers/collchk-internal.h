/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libmpe_collchk: shared by the generated wrappers (collchk-gen.c) and
 * the checks (collchk-core.c).  Not installed.
 *
 * Each checked call fills one record (what must agree across the
 * communicator: the call, root, operator, MPI_IN_PLACE use, hashes of
 * arrays, the datatype signatures of what this rank sends and receives),
 * the records are all-gathered over a private duplicate of the
 * communicator, and every rank compares them the same way; per-peer
 * signatures (the v-collectives) take one more exchange.  A mismatch is
 * printed with the call stack and the job is aborted.
 */
#ifndef MPE_WRAP_COLLCHK_INTERNAL_H
#define MPE_WRAP_COLLCHK_INTERNAL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define MPE__CC_HIDDEN __attribute__ ((visibility ("hidden")))

/* A datatype signature times a count: h hashes the sequence of n basic
   types (concatenation-compatible, so 2 x MPI_INT, MPI_2INT and a
   contiguous type of 2 ints agree; see collchk-sig.c); count and type
   name are for the report only. */
typedef struct
{
  uint64_t h;
  uint64_t n;
  int64_t  count;
  int32_t  packed;     /* MPI_PACKED: matches any signature */
  int32_t  set;
  char     type[40];
} mpe__cc_side_t;

typedef struct
{
  int32_t        call;         /* index into mpe__cc_names */
  int32_t        root;         /* -1: none */
  int32_t        op;           /* Fortran handle of the MPI_Op, or -1 */
  int32_t        inplace;      /* all or none: -1 not applicable */
  int32_t        rootinplace;  /* MPI_IN_PLACE at the root (Gather...) */
  int32_t        aux[2];       /* call-specific values that must agree */
  int32_t        hasroot;      /* the call has a root argument */
  int32_t        grp;          /* intercommunicator: 0 or 1, the group */
  int32_t        lrank;        /* rank in the local group */
  uint64_t       arr;          /* hash of arrays that must agree */
  uint64_t       vec;          /* hash of the receive vector (Allgatherv) */
  mpe__cc_side_t s;            /* what this rank sends (per peer) */
  mpe__cc_side_t r;            /* what it receives (per peer) */
} mpe__cc_rec_t;

/* Per-peer counts of the v-collectives (int or MPI_Count arrays, one
   datatype or one per peer). */
typedef struct
{
  const void         *counts;
  int                 big;       /* counts are MPI_Count */
  const MPI_Datatype *types;     /* NULL: all `type` */
  MPI_Datatype        type;
} mpe__cc_vec_t;

typedef struct mpe__cc_pending mpe__cc_pending_t;

typedef struct
{
  int           active;        /* the check runs (else pass through) */
  int           nested;        /* entered inside another checked call */
  MPI_Comm      cc;            /* private communicator to check over (an
                                  intercommunicator's: both groups merged) */
  int           np, me;        /* in cc: records are all[0 .. np-1] */
  int           inter;         /* the user's communicator is an inter */
  int           lnp;           /* local group size (arrays over it) */
  int           pnp;           /* peers: remote size for an inter, else np */
  mpe__cc_rec_t rec;
  mpe__cc_vec_t sv, rv;
  mpe__cc_pending_t *nb;       /* nonblocking: the check under way */
} mpe__cc_call_t;

enum
{
  MPE__CC_NONE, MPE__CC_UNIFORM, MPE__CC_BCAST, MPE__CC_GATHER,
  MPE__CC_SCATTER, MPE__CC_ALLGATHER, MPE__CC_GATHERV, MPE__CC_SCATTERV,
  MPE__CC_ALLGATHERV, MPE__CC_ALLTOALLV
};

extern const char *const mpe__cc_names[] MPE__CC_HIDDEN;

int  mpe__cc_enter (mpe__cc_call_t *c, MPI_Comm comm, int call)
  MPE__CC_HIDDEN;
void mpe__cc_leave (mpe__cc_call_t *c) MPE__CC_HIDDEN;
void mpe__cc_run (mpe__cc_call_t *c, int shape) MPE__CC_HIDDEN;

/* Nonblocking collectives: _start posts the exchange of the records
   (nonblocking, on cc) before the user's call, _started ties it to the
   user's request; the check is finished, and a mismatch reported, when
   that request is completed (the wait and test calls below), before MPI
   completes it. */
void mpe__cc_start (mpe__cc_call_t *c, int shape) MPE__CC_HIDDEN;
void mpe__cc_started (mpe__cc_call_t *c, int rc, const MPI_Request *req)
  MPE__CC_HIDDEN;
int  mpe__cc_npending (void) MPE__CC_HIDDEN;
/* 1 when no request of reqs[0..n-1] has a check left (blocking: waits
   for them; else tests). */
int  mpe__cc_settle (int n, const MPI_Request *reqs, int blocking)
  MPE__CC_HIDDEN;
int  mpe__cc_anysome (int n, MPI_Request reqs[], int *indx, int *flag,
                      MPI_Status *status, int *outcount, int indices[],
                      MPI_Status statuses[], int blocking) MPE__CC_HIDDEN;
/* collchk-sig.c: the signature of count x type, and whether two sides
   match by the MPI standard's type-matching rules. */
void mpe__cc_side (mpe__cc_side_t *s, int64_t count, MPI_Datatype type)
  MPE__CC_HIDDEN;
int  mpe__cc_sig_match (const mpe__cc_side_t *a, const mpe__cc_side_t *b)
  MPE__CC_HIDDEN;
#define MPE__CC_HASH_P UINT64_C (0x9e3779b97f4a7c15)
uint64_t mpe__cc_mix64 (uint64_t x) MPE__CC_HIDDEN;
uint64_t mpe__cc_hash_ints (const int *a, int n) MPE__CC_HIDDEN;
uint64_t mpe__cc_hash_counts (const MPI_Count *a, int n) MPE__CC_HIDDEN;
uint64_t mpe__cc_hash_str (const char *s) MPE__CC_HIDDEN;

/* Files and windows: the communicator they were opened on. */
void     mpe__cc_track_file (MPI_File fh, MPI_Comm comm) MPE__CC_HIDDEN;
void     mpe__cc_untrack_file (MPI_File fh) MPE__CC_HIDDEN;
MPI_Comm mpe__cc_file_comm (MPI_File fh) MPE__CC_HIDDEN;
void     mpe__cc_track_win (MPI_Win win, MPI_Comm comm) MPE__CC_HIDDEN;
void     mpe__cc_untrack_win (MPI_Win win) MPE__CC_HIDDEN;
MPI_Comm mpe__cc_win_comm (MPI_Win win) MPE__CC_HIDDEN;

#define MPE__CC_IS_BIG(a)                                               \
  _Generic ((a), const MPI_Count *: 1, MPI_Count *: 1, default: 0)
#define MPE__CC_HASH_INTS(a, n)                                         \
  _Generic ((a), const MPI_Count *: mpe__cc_hash_counts,                \
            MPI_Count *: mpe__cc_hash_counts,                           \
            default: mpe__cc_hash_ints) ((a), (n))
#define MPE__CC_VEC(v, cnts, t)                                         \
  do {                                                                  \
    (v).counts = (cnts);                                                \
    (v).big = MPE__CC_IS_BIG (cnts);                                    \
    (v).types = NULL;                                                   \
    (v).type = (t);                                                     \
  } while (0)
#define MPE__CC_VECW(v, cnts, ts)                                       \
  do {                                                                  \
    (v).counts = (cnts);                                                \
    (v).big = MPE__CC_IS_BIG (cnts);                                    \
    (v).types = (ts);                                                   \
    (v).type = MPI_DATATYPE_NULL;                                       \
  } while (0)

#endif

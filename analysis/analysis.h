/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a log says about "how much" and "between whom": the communication
 * matrix (point-to-point messages by sender and receiver, collectives by
 * communicator) and the mpiP-style profile (calls, times, bytes and their
 * spread over the ranks, per MPI function and per user state).
 *
 * Written once for clogtool (matrix, profile) and the viewer (matrix
 * window, profile table).  Uses only the public logfmt API; states pair
 * through logfmt's one interval rule (FORMAT.md section 13).  Streams are
 * read in parallel by a few threads; results never depend on how many.
 */
#ifndef MPE_ANALYSIS_H
#define MPE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include <logfmt/logfmt.h>

/* ------------------------------------------------------------------ */
/* What a state is                                                     */
/* ------------------------------------------------------------------ */

typedef enum
{
  AN_STATE_USER = 0,   /* a user state (anything not named MPI_*) */
  AN_STATE_MPI  = 1,   /* an MPI function logged by the wrappers */
  AN_STATE_COLL = 2    /* an MPI collective whose END carries the
                          wrappers' cargo (comm, np, root, sent, recv) */
} an_state_class_t;

an_state_class_t an_state_class (const logfmt_state_def_t *d);

/* The cargo the wrappers put on a collective's END (mpe/wrappers,
 * MPE__COLL_FORMAT): big-endian comm label, np, root, sent, recv. */
typedef struct
{
  uint32_t label;   /* equal on every member; ffffffff = MPI_COMM_WORLD */
  int32_t  np, root;
  uint64_t sent, recv;
} an_coll_cargo_t;

void an_coll_cargo_decode (const uint8_t *cargo, an_coll_cargo_t *c);

/* The communicator definition whose members give the wrappers' label
 * (world for ffffffff), or NULL. */
typedef struct an_comm_map an_comm_map_t;
int  an_comm_map_new (const logfmt_reader_t *r, an_comm_map_t **out);
const logfmt_comm_def_t *an_comm_map_find (const an_comm_map_t *m,
                                           uint32_t label);
void an_comm_map_free (an_comm_map_t *m);

/* ------------------------------------------------------------------ */
/* Communication matrix                                                */
/* ------------------------------------------------------------------ */

typedef struct
{
  uint64_t t0, t1;      /* window (ns, inclusive); 0 and UINT64_MAX: all */
  int      by_comm;     /* count only communicator `comm` */
  uint32_t comm;        /* logfmt_comm_def_t.id */
  int      collectives; /* also read the collectives (scans the states) */
  unsigned threads;     /* 0: as many as cores, at most 8 */
} an_matrix_opts_t;

void an_matrix_opts_init (an_matrix_opts_t *o);

/* One non-empty cell: messages from world rank `from` to world rank
 * `to`.  A message is in the window if its send (or, when the send was
 * not logged, its receive) is. */
typedef struct
{
  int32_t  from, to;
  uint64_t count;
  uint64_t bytes;
  uint64_t time_ns;   /* sum of receive - send over the matched ones */
} an_cell_t;

/* Collectives of one MPI function on one communicator. */
typedef struct
{
  int32_t  state;         /* state index (logfmt_reader_state) */
  const char *name;
  uint64_t calls;         /* instances, summed over the ranks */
  uint64_t bytes_sent;    /* as each rank's arguments describe */
  uint64_t bytes_recv;
  uint64_t time_ns;       /* inclusive, summed over the ranks */
} an_coll_func_t;

typedef struct
{
  uint32_t id;            /* logfmt_comm_def_t.id, or the wrappers' label
                             if no definition has these members */
  const logfmt_comm_def_t *def;  /* NULL if unknown */
  uint64_t calls, bytes_sent, bytes_recv, time_ns;
  an_coll_func_t *funcs;  /* sorted by name */
  size_t nfuncs;
} an_coll_comm_t;

typedef struct
{
  uint32_t nranks;        /* world size: rows and columns 0 .. nranks-1 */
  an_cell_t *cells;       /* sorted by (from, to) */
  size_t ncells;
  uint64_t messages, bytes;            /* totals of the cells */
  uint64_t unmatched_sends;            /* counted, receive not logged */
  uint64_t unmatched_recvs;            /* counted, send not logged */
  uint64_t outside;       /* messages naming a rank outside the world */
  an_coll_comm_t *comms;  /* by id; only with opts.collectives */
  size_t ncomms;
  uint64_t coll_no_cargo; /* collective instances without the cargo */
} an_matrix_t;

/* 1 if the matrix counts this message under o (window, communicator),
 * else 0: the one rule for the matrix and for listing a cell's
 * messages. */
int  an_matrix_selects (const an_matrix_opts_t *o,
                        const logfmt_message_t *msg);

int  an_matrix_compute (const logfmt_reader_t *r, const an_matrix_opts_t *o,
                        an_matrix_t **out, logfmt_error_t *err);
/* The cell (from, to), or NULL when empty. */
const an_cell_t *an_matrix_cell (const an_matrix_t *m, int32_t from,
                                 int32_t to);
void an_matrix_free (an_matrix_t *m);

/* ------------------------------------------------------------------ */
/* Counters (libmpe's MPE_COUNTERS, metrics flagged COUNTER)           */
/* ------------------------------------------------------------------ */

typedef struct
{
  uint32_t    id;         /* metric id */
  const char *name, *unit;
} an_counter_t;

/* The log's counters (not their .err companions); *out malloc'd. */
size_t an_counters_list (const logfmt_reader_t *r, an_counter_t **out);
/* Index of the counter named name, or -1. */
int    an_counter_find (const an_counter_t *c, size_t n, const char *name);

/* One stream's readings of one counter, in time order. */
typedef struct
{
  size_t    n, cap;
  uint64_t *t;
  double   *v;
} an_series_t;

/* Stream's readings of counters c[0..n-1] into out[0..n-1] (zeroed
 * series, or ones to reuse).  0 or a LOGFMT_E* code. */
int    an_counters_load (const logfmt_reader_t *r, uint32_t stream,
                         const an_counter_t *c, size_t n, an_series_t *out,
                         logfmt_error_t *err);
/* The counter's value at t: linear between the readings around t, the
 * first reading's before it, the last's after it (0 without readings).
 * A counter's increase over [a, b] is at (b) - at (a). */
double an_series_at (const an_series_t *s, uint64_t t);
void   an_series_free (an_series_t *s, size_t n);

/* ------------------------------------------------------------------ */
/* Profile                                                             */
/* ------------------------------------------------------------------ */

typedef struct
{
  uint64_t t0, t1;      /* window; an instance counts if it starts in it,
                           a message end if its record is in it */
  int32_t  rank;        /* only this world rank; -1: all */
  unsigned threads;     /* 0: as many as cores, at most 8 */
} an_profile_opts_t;

void an_profile_opts_init (an_profile_opts_t *o);

/* Message sizes: bin 0 holds 0 bytes, bin k (1..64) [2^(k-1), 2^k). */
#define AN_HIST_BINS 65
uint64_t an_hist_lo (int bin);
uint64_t an_hist_hi (int bin);   /* exclusive; UINT64_MAX for the last */

typedef struct
{
  uint64_t calls, time_ns, excl_ns, bytes_sent, bytes_recv;
} an_rank_use_t;

/* One MPI function or user state, over the ranks profiled. */
typedef struct
{
  int32_t  state;         /* logfmt_reader_state index */
  const char *name;
  an_state_class_t cls;
  uint64_t calls;         /* closed instances */
  uint64_t time_ns;       /* inclusive, summed */
  uint64_t excl_ns;       /* exclusive (innermost), summed */
  uint64_t min_ns, max_ns;               /* one instance */
  uint64_t bytes_sent, bytes_recv;       /* see an_profile_compute */
  uint64_t hist[AN_HIST_BINS];
  an_rank_use_t *per_rank;               /* index as an_profile_t.ranks */
  /* Per counter (an_profile_t.counters): its increase over each
   * instance (inclusive), summed over the instances whose thread has
   * readings at or before their start and at or after their end;
   * counter_known: how many instances that is (0: no data). */
  double  *counter;
  uint64_t *counter_known;
  /* Spread of time_ns over the ranks (ranks without a call count as 0). */
  uint64_t rank_min_ns, rank_max_ns;
  double   rank_mean_ns;
  int32_t  rank_min, rank_max;           /* world ranks holding them */
} an_prof_entry_t;

typedef struct
{
  size_t   nranks;
  int32_t *ranks;         /* world ranks profiled, ascending */
  uint64_t *app_ns;       /* per rank: its first to last record (clipped
                             to the window) */
  uint64_t *mpi_ns;       /* per rank: inclusive time in MPI functions */
  uint64_t app_total_ns, mpi_total_ns;
  uint64_t t_first, t_last;              /* of the records read */
  an_prof_entry_t *entries;  /* MPI functions first, then user states;
                                each by time_ns descending */
  size_t nentries, nfunctions;
  uint64_t left_open;     /* instances cut at the end of their stream
                             (not counted) */
  uint64_t msg_outside;   /* message ends inside no MPI function */
  an_counter_t *counters; /* the log's counters (an_counters_list) */
  size_t   ncounters;
} an_profile_t;

/* Bytes: a message record (send or receive) counts for the innermost
 * open MPI function around it and for the innermost open user state; a
 * collective's END cargo gives its sent and received bytes, as does a
 * one-sided data call's (put: sent, get: received) and an MPI-IO read's
 * or write's (received, sent).  The histogram holds one sample per
 * message record and one per collective, one-sided or MPI-IO call
 * (sent + received). */
int  an_profile_compute (const logfmt_reader_t *r,
                         const an_profile_opts_t *o,
                         an_profile_t **out, logfmt_error_t *err);
void an_profile_free (an_profile_t *p);

/* ------------------------------------------------------------------ */
/* Wait states and their direct causes (docs/ANALYSIS.md)              */
/* ------------------------------------------------------------------ */

typedef enum
{
  AN_WAIT_LATE_SENDER = 0,  /* receive (or its Wait) entered before the send */
  AN_WAIT_LATE_SENDER_WO,   /* the same while an earlier-sent message to
                               this rank waited to be received */
  AN_WAIT_LATE_RECEIVER,    /* blocking send held until the receive began */
  AN_WAIT_NXN,              /* N x N collective: until the last rank entered */
  AN_WAIT_BARRIER,          /* MPI_Barrier: until the last rank entered */
  AN_WAIT_LATE_BCAST,       /* 1-to-N: a non-root waiting for a late root */
  AN_WAIT_EARLY_REDUCE,     /* N-to-1: the root waiting for its first sender */
  AN_WAIT_NKINDS
} an_wait_kind_t;

const char *an_wait_kind_name (an_wait_kind_t k);   /* "late sender" ... */

/* One wait of one MPI call instance. */
typedef struct
{
  an_wait_kind_t kind;
  int32_t  state;        /* the waiting MPI function (state index) */
  int32_t  rank;         /* the waiting world rank */
  uint32_t stream;
  uint32_t comm;         /* logfmt_comm_def_t.id, or the wrappers' label */
  uint64_t call_start;   /* the waiting call's start */
  uint64_t wait_start;   /* the wait is [wait_start, wait_start + wait_ns] */
  uint64_t wait_ns;
  int32_t  cause_rank;   /* the rank waited for */
  /* The largest of this wait's causes (an_wait_cause_t): top_state -1
   * outside every state; top_rank -1 (top_state -2) when none is found. */
  int32_t  top_rank, top_state;
  uint64_t top_ns;
} an_wait_inst_t;

typedef struct
{
  /* Called once per wait, in the order they are found (may be NULL). */
  void (*each) (void *arg, const an_wait_inst_t *w);
  void *arg;
} an_waits_opts_t;

/* Waits summed per (kind, function, waiting rank, communicator). */
typedef struct
{
  an_wait_kind_t kind;
  int32_t  state, rank;
  uint32_t comm;
  uint64_t calls;        /* call instances that waited */
  uint64_t wait_ns, max_ns;
} an_wait_row_t;

/* The direct cause of waits: the waited-for rank's extra time in a
 * state (cause_state, -1: outside every state) between its previous MPI
 * call and the one waited for, over the waiting rank's time there. */
typedef struct
{
  an_wait_kind_t kind;
  int32_t  state, rank;  /* as in the row it explains */
  uint32_t comm;
  int32_t  cause_rank, cause_state;
  uint64_t ns;
} an_wait_cause_t;

typedef struct
{
  an_wait_row_t   *rows;      /* by wait_ns descending */
  size_t           nrows;
  an_wait_cause_t *causes;    /* by ns descending */
  size_t           ncauses;
  uint64_t total_ns;          /* sum of the rows */
  uint64_t messages;          /* matched sends and receives analysed */
  uint64_t unmatched;         /* receives with no send before them */
  uint64_t collectives;       /* collective instances matched (groups) */
  uint64_t incomplete;        /* groups some member never reached */
  uint64_t peak_pending;      /* most sends and collective members held
                                 at once (the analysis' memory) */
  uint64_t t_last;            /* the latest last record of a thread */
  int32_t  rank_last;         /* its rank */
} an_waits_t;

/* One pass over the records of all streams merged in time order (one
 * cursor per stream): memory is the cursors, the sends not yet received
 * and the collectives not yet entered by every member. */
int  an_waits_compute (const logfmt_reader_t *r, const an_waits_opts_t *o,
                       an_waits_t **out, logfmt_error_t *err);
void an_waits_free (an_waits_t *w);

/* The critical path: from the end of the rank that finished last,
 * backwards along its own time until a wait, then to the rank waited
 * for at the wait's end, and so on to the start.  Time on the path by
 * rank and innermost state. */
typedef struct
{
  int32_t  rank, state;  /* state -1: outside every state */
  uint64_t ns;
} an_cp_item_t;

typedef struct
{
  uint64_t t_end;        /* the path ends here, on rank_end */
  int32_t  rank_end;
  uint64_t length_ns;    /* sum of the items */
  size_t   segments;     /* stretches on one rank */
  an_cp_item_t *items;   /* by ns descending */
  size_t   nitems;
  uint64_t waits;        /* wait instances read to build the path */
} an_critpath_t;

/* Two passes: the waits (an_waits_compute, each instance kept: memory
 * grows with the number of waits), then each stream's records once. */
int  an_critpath_compute (const logfmt_reader_t *r, an_critpath_t **out,
                          logfmt_error_t *err);
void an_critpath_free (an_critpath_t *p);

#endif

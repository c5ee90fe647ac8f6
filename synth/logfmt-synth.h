/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Deterministic synthetic MPI timelines for tests and benchmarks: P
 * processes x T threads, nested states, ~2% point-to-point messages whose
 * receive follows the send by a size-dependent latency, gaps of 50 ns to a
 * few microseconds.  Same options and seed -> same bytes.
 */
#ifndef LOGFMT_SYNTH_H
#define LOGFMT_SYNTH_H

#include "logfmt/logfmt.h"

typedef struct
{
  size_t   size;                /* sizeof (logfmt_synth_opts_t) */
  uint32_t nprocs;              /* default 2 */
  uint32_t threads_per_proc;    /* default 1 */
  uint64_t events_per_stream;   /* default 100000 */
  uint64_t seed;                /* default 1 */
  uint32_t nstates;             /* default 8 (plus MPI_Send/MPI_Recv) */
  double   msg_fraction;        /* fraction of records that are SEND or
                                   RECV; default 0.02 */
  uint32_t block_events;        /* writer option; 0 = default */
  logfmt_progress_cb progress;  /* logfmt_synth_write: called as the
                                   records are written; may be NULL */
  void    *progress_user;
} logfmt_synth_opts_t;

void logfmt_synth_opts_init (logfmt_synth_opts_t *o);

/* Writes a complete .clog file (messages matched by the writer).  Stream
 * by stream, one block of each at a time (the records of
 * logfmt_synth_next, replayed per stream): time O(log streams) per
 * record, memory bounded by one block per stream and the messages in
 * flight, whatever the number of processes. */
int logfmt_synth_write (const char *path, const logfmt_synth_opts_t *o,
                        logfmt_error_t *err);

/* Lower level, for benchmarks: events come in global time order. */
typedef struct logfmt_synth logfmt_synth_t;
int  logfmt_synth_new (const logfmt_synth_opts_t *o, logfmt_synth_t **out);
/* Adds states, event definitions, streams and MPI_COMM_WORLD to w. */
int  logfmt_synth_define (logfmt_synth_t *s, logfmt_writer_t *w);
uint32_t logfmt_synth_nstreams (const logfmt_synth_t *s);
/* Fills up to n events (and their stream indices); returns how many, 0
 * when every stream has its events_per_stream records. */
size_t logfmt_synth_next (logfmt_synth_t *s, logfmt_event_t *ev,
                          uint32_t *stream, size_t n);
void logfmt_synth_free (logfmt_synth_t *s);

#endif

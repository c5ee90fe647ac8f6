/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the analysis files (not for callers). */
#ifndef MPE_AN_INTERNAL_H
#define MPE_AN_INTERNAL_H

#include "analysis.h"

/* Work on one stream with one worker's private state: 0 or a negative
 * LOGFMT_E* code (which stops the other workers after their stream). */
typedef int (*an__stream_fn) (void *worker, uint32_t stream);

/* How many workers to use for n streams: `threads` if set, else the
 * cores, at most 8, never more than n (at least 1). */
unsigned an__workers (unsigned threads, uint32_t n);

/* Runs fn over the streams listed in `streams` (n of them), spread
 * over nworkers threads; workers[i] is thread i's state.  Returns 0 or
 * the first error. */
int an__for_streams (const uint32_t *streams, uint32_t n,
                     void **workers, unsigned nworkers, an__stream_fn fn);

/* The data an MPI state's END cargo carries beyond the collectives'
 * (the wrappers' one-sided and MPI-IO data calls): its bytes sent and
 * received; 0 when the state has none such (then *sent, *recv are
 * left alone). */
enum { AN__DATA_NONE, AN__DATA_RMA, AN__DATA_IO_READ, AN__DATA_IO_WRITE };
int  an__state_data (const logfmt_state_def_t *d);
void an__data_cargo (int kind, const uint8_t *cargo, uint64_t *sent,
                     uint64_t *recv);

/* Fills *err (may be NULL) with code and a message. */
void an__error (logfmt_error_t *err, int code, const char *what);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ivahead: a states scan read ahead in a worker thread.  The worker runs
 * logfmt's interval iterator over the given streams in turn (what the
 * states cursor does on SQLite's thread without it) and hands the
 * instances over in batches, at most a few batches ahead of the reader
 * (bounded memory), so that decoding overlaps SQLite's per-row work on a
 * second core.  Rows, their order and errors are the plain scan's.
 */
#ifndef CLOGSQL_IVAHEAD_H
#define CLOGSQL_IVAHEAD_H

#include <stddef.h>
#include <stdint.h>

#include <logfmt/logfmt.h>

#include "grouped.h"

typedef struct ivahead ivahead_t;

/* Starts the worker over streams[0..n) (copied), window [t0, t1]; with
 * gp, the worker runs the grouped pass (grouped.h) and delivers its rows:
 * gp is the worker's until ivahead_stop, except for grouped_group.  0,
 * or LOGFMT_ENOMEM when the thread or its buffers cannot be had (the
 * caller then scans on its own thread). */
int ivahead_start (const logfmt_reader_t *r, const uint32_t *streams,
                   size_t n, uint64_t t0, uint64_t t1, grouped_t *gp,
                   ivahead_t **out);

/* The next batch (the previous one is given back): its count with *rows
 * set, 0 at the end, or a negative LOGFMT_E* code after the rows read
 * before the error (ivahead_error has the message). */
long ivahead_next (ivahead_t *a, const logfmt_interval_t **rows);

/* The worker's error (message empty when it had none to give). */
const logfmt_error_t *ivahead_error (const ivahead_t *a);

/* Stops the worker (also mid-scan), waits for it and frees; NULL ok. */
void ivahead_stop (ivahead_t *a);

/* Whether a scan of about `events` events should be read ahead: more
 * than one CPU available and a scan large enough to pay for a thread;
 * CLOGSQL_AHEAD=0 or 1 overrides. */
int ivahead_wanted (uint64_t events);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * waits: every wait of a log (analysis/an-waits.c, one row each) with
 * the duration of the MPI call that waited, for the waits table
 * (docs/SQL.md, "Wait states").  libc memory only.
 */
#ifndef CLOGSQL_WAITS_H
#define CLOGSQL_WAITS_H

#include <stddef.h>
#include <stdint.h>

#include <logfmt/logfmt.h>

#include "analysis/analysis.h"

typedef struct
{
  an_wait_inst_t w;
  uint64_t duration;     /* of the waiting call; UINT64_MAX: not found */
} sqlwait_t;

/* The waits in stream order, then by call start.  0 with *out and *n
 * set (free() *out), or a negative LOGFMT_E* code (err: the message). */
int sqlwaits_compute (const logfmt_reader_t *r, sqlwait_t **out, size_t *n,
                      logfmt_error_t *err);

#endif

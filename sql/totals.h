/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * totals: per state name, the count of instances and the sums of their
 * inclusive and exclusive times, in one pass over the streams (on two
 * threads when two CPUs are there), for the state_totals table
 * (docs/SQL.md, "Totals without a row per instance").  libc memory only.
 */
#ifndef CLOGSQL_TOTALS_H
#define CLOGSQL_TOTALS_H

#include <stddef.h>
#include <stdint.h>

#include <logfmt/logfmt.h>

#include "grouped.h"

typedef struct
{
  uint32_t ngroups;      /* grouped.h's groups: 0 = no definition */
  uint64_t *count;       /* per group */
  uint64_t *inclusive;   /* per group, ns */
  uint64_t *exclusive;   /* per group, ns */
  /* A time or a sum past INT64_MAX: SQLite's sum() would not be an
   * exact integer (a REAL, or "integer overflow"), so these sums are
   * not what it computes. */
  int wide;
} totals_t;

/* The totals of gp's groups over streams[0..n) (whole streams).  0 with
 * *out set, or a negative LOGFMT_E* code (err: the iterator's message,
 * if any). */
int totals_compute (const logfmt_reader_t *r, const grouped_t *gp,
                    const uint32_t *streams, size_t n, int threads,
                    totals_t **out, logfmt_error_t *err);
void totals_free (totals_t *t);

#endif

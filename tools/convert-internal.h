/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the `clogtool convert` back ends (not installed). */
#ifndef CONVERT_INTERNAL_H
#define CONVERT_INTERNAL_H

#include <stdint.h>

#include <logfmt/logfmt.h>

#include "clogtool-internal.h"

typedef struct
{
  const char *in, *out;
  int         progress;       /* --progress: a percentage on stderr */
  clogtool_progress_t prog;   /* drawn on a terminal only */
  double      prog_lo, prog_hi;   /* the current phase's share */
  uint64_t    total;          /* events the back end writes, for ticks */
  uint64_t    events;         /* records written */
  uint64_t    messages;       /* messages (arrows) written */
  uint64_t    dropped;        /* records the target format cannot hold */
} convert_ctx_t;

/* Progress in [prog_lo, prog_hi] for fraction f of the current step;
 * matches logfmt_progress_cb. */
int  convert__progress_cb (void *user, double f);
void convert__progress_done (convert_ctx_t *c);
/* Counts one event written (c->events) and now and then shows the
 * share of c->total done, so that one long stream moves the bar too. */
void convert__count_event (convert_ctx_t *c);

/* Each back end reads everything from r and writes c->out.  They print
 * their own error messages and return 0 or -1. */
int  convert__to_clog (convert_ctx_t *c, const logfmt_reader_t *r);
int  convert__to_json (convert_ctx_t *c, const logfmt_reader_t *r);
int  convert__to_otf2 (convert_ctx_t *c, const logfmt_reader_t *r);
int  convert__to_clog2 (convert_ctx_t *c, const logfmt_reader_t *r);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* Level-of-detail summaries (placeholder until the builder lands). */
#include "config.h"
#include "logfmt-internal.h"

int
logfmt_summary_builder_new (const logfmt_state_def_t *states, size_t n,
                            logfmt_summary_builder_t **out)
{
  (void) states; (void) n;
  if (out)
    *out = NULL;
  return LOGFMT_ENOENT;
}

int
logfmt_summary_builder_add (logfmt_summary_builder_t *sb,
                            const logfmt_event_t *ev, size_t n)
{
  (void) sb; (void) ev; (void) n;
  return LOGFMT_ENOENT;
}

int
logfmt_summary_builder_finish (logfmt_summary_builder_t *sb, uint32_t stream,
                               void **bytes, size_t *len)
{
  (void) sb; (void) stream; (void) bytes; (void) len;
  return LOGFMT_ENOENT;
}

void
logfmt_summary_builder_free (logfmt_summary_builder_t *sb)
{
  (void) sb;
}

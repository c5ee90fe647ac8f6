/* SPDX-License-Identifier: BSD-3-Clause */
/* Writer-side message matching (placeholder until the matcher lands). */
#include "config.h"
#include "logfmt-writer-internal.h"

int logfmt__match_finish (logfmt_writer_t *w);
void logfmt__match_free (logfmt_writer_t *w);

int
logfmt__match_finish (logfmt_writer_t *w)
{
  (void) w;
  return 0;
}

void
logfmt__match_free (logfmt_writer_t *w)
{
  (void) w;
}

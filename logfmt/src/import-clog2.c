/* SPDX-License-Identifier: BSD-3-Clause */
/* Placeholder until the importer lands. */
#include "logfmt-import-internal.h"
#include <stdio.h>

int
logfmt__import_clog2 (const uint8_t *data, size_t len, const char *name,
                   logfmt_writer_t *w, logfmt_progress_cb progress,
                   void *user, logfmt_error_t *err)
{
  (void) data; (void) len; (void) w; (void) progress; (void) user;
  if (err)
    {
      err->code = LOGFMT_EBADMAGIC;
      err->offset = 0;
      snprintf (err->message, sizeof err->message,
                "%s: reading this format is not implemented yet", name);
    }
  return LOGFMT_EBADMAGIC;
}

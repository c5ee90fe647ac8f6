/* SPDX-License-Identifier: BSD-3-Clause */
/* Tolerant open, verify and repair: rebuild the index by scanning chunks
 * (placeholder until the scanner lands). */
#include "config.h"
#include "logfmt-reader-internal.h"

int logfmt__reader_scan (logfmt_reader_t *r, uint64_t start,
                         logfmt_error_t *err);

int
logfmt__reader_scan (logfmt_reader_t *r, uint64_t start, logfmt_error_t *err)
{
  (void) start;
  return logfmt__err (err, LOGFMT_EPARTIAL, r->path, UINT64_MAX,
                      "no valid trailer (scanning not implemented yet)");
}

int
logfmt_verify (const char *path, logfmt_report_cb report, void *user)
{
  logfmt_reader_t *r;
  logfmt_error_t e = { 0 };
  int rc = logfmt_reader_open (path, 0, &r, &e);
  if (rc)
    {
      if (report)
        report (user, &e);
      return rc;
    }
  logfmt_reader_close (r);
  return 0;
}

int
logfmt_repair (const char *in_path, const char *out_path, uint64_t *kept,
               uint64_t *lost, logfmt_error_t *err)
{
  (void) out_path;
  if (kept)
    *kept = 0;
  if (lost)
    *lost = 0;
  return logfmt__err (err, LOGFMT_EINVAL, in_path, UINT64_MAX,
                      "repair not implemented yet");
}


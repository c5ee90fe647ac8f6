/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Importers for MPE2's own files (CLOG2 "CLOG-02.44", both byte orders, and
 * CLOG v1).  The reader calls these when logfmt_reader_open meets such a
 * file: the import feeds a logfmt writer on an unlinked temporary file,
 * which is then opened like any .clog.  `clogtool convert` uses them too.
 */
#ifndef LOGFMT_IMPORT_INTERNAL_H
#define LOGFMT_IMPORT_INTERNAL_H

#include <stdarg.h>

#include "logfmt/logfmt.h"

typedef enum
{
  LOGFMT__FMT_UNKNOWN = 0,
  LOGFMT__FMT_CLOG3,      /* our own format */
  LOGFMT__FMT_CLOG2,
  LOGFMT__FMT_CLOG1,
} logfmt__file_format_t;

/* Fills err (may be NULL) with "FILE: [offset N: ]message"; returns code.
 * (logfmt-util.c; logfmt__err is the variadic form.) */
int logfmt__verr (logfmt_error_t *err, int code, const char *file,
                  uint64_t offset, const char *fmt, va_list ap)
  __attribute__ ((format (printf, 5, 0)));

/* Recognises a file by its first bytes (len may be short). */
logfmt__file_format_t logfmt__sniff (const uint8_t *data, size_t len,
                                     uint64_t file_size);

/* Reads a whole CLOG2 or CLOG v1 file held in memory (an mmap) and writes
 * it through w (definitions first, then every stream's events; messages
 * matched by the writer).  Does not finish w.  `name` is used in error
 * messages.  progress may be NULL. */
int logfmt__import_clog2 (const uint8_t *data, size_t len, const char *name,
                          logfmt_writer_t *w, logfmt_progress_cb progress,
                          void *user, logfmt_error_t *err);
int logfmt__import_clog1 (const uint8_t *data, size_t len, const char *name,
                          logfmt_writer_t *w, logfmt_progress_cb progress,
                          void *user, logfmt_error_t *err);

/* Imports a CLOG2 / CLOG v1 image into a new .clog at out_path and
 * finishes it.  unlink_out: remove the path right after creating it (the
 * caller holds a descriptor).  creator NULL: "imported CLOG2"/"... v1". */
int logfmt__import_mem (const uint8_t *data, size_t len, const char *name,
                        logfmt__file_format_t fmt, const char *out_path,
                        int unlink_out, const char *creator,
                        logfmt_progress_cb cb, void *user,
                        logfmt_error_t *err);

#endif

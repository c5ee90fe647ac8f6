/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target for the MPE2 importers (CLOG2, and CLOG v1 for anything
 * else).  libFuzzer signature; fuzz-replay.c replays a corpus with any
 * compiler.  Whatever the bytes, an import returns 0 or an error with a
 * message, and never reads outside the buffer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logfmt/src/logfmt-import-internal.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static char path[96];
  if (!path[0])
    snprintf (path, sizeof path, "%s/fuzz-clog2-%ld.clog",
              getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp",
              (long) getpid ());
  logfmt_writer_opts_t o = { 0 };
  o.size = sizeof o;
  o.match_messages = 1;
  logfmt_writer_t *w = NULL;
  logfmt_error_t err;
  if (logfmt_writer_open (path, &o, &w, NULL))
    return 0;
  int clog2 = size >= 8 && memcmp (data, "CLOG-02.", 8) == 0;
  int rc = (clog2 ? logfmt__import_clog2 : logfmt__import_clog1)
             (data, size, "fuzz", w, NULL, NULL, &err);
  if (rc != 0 && (err.message[0] == '\0' || err.code != rc))
    abort ();                   /* every failure explains itself */
  /* Finishing would fsync; the importer is what is under test. */
  logfmt_writer_abort (w);
  return 0;
}

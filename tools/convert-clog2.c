/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clogtool convert ... OUT.clog2: MPE2's CLOG2 format, for tools built
 * around it (clog2_print, clog2TOslog2, Jumpshot).  The library writes the
 * file; this reports what CLOG2 could not hold.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "clogtool-internal.h"
#include "convert-internal.h"

/* One line per thing CLOG2 changed or left out, on stderr. */
static void
note (const char *out, uint64_t n, const char *what)
{
  if (n)
    fprintf (stderr, "clogtool: %s: %" PRIu64 " %s\n", out, n, what);
}

int
convert__to_clog2 (convert_ctx_t *c, const logfmt_reader_t *r)
{
  logfmt_clog2_report_t rep = { .size = sizeof rep };
  logfmt_error_t err = { 0 };
  int rc = logfmt_export_clog2 (r, c->out, convert__progress_cb, c, &rep,
                                &err);
  if (rc)
    {
      clogtool__lib_error (c->out, rc, &err);
      return -1;
    }
  c->events = rep.events;
  c->messages = logfmt_reader_info (r)->nmessages;
  c->dropped = rep.losses_dropped;
  note (c->out, rep.losses_dropped,
        "lost-event markers dropped (CLOG2 has no such record)");
  note (c->out, rep.sizes_clamped,
        "message sizes above 2147483647 bytes written as 2147483647");
  note (c->out, rep.ends_on_world,
        "message ends written on MPI_COMM_WORLD (their communicator does "
        "not hold both ranks)");
  note (c->out, rep.comms_world_numbered,
        "communicators written numbered by world rank (groups unknown)");
  note (c->out, rep.strings_cut,
        "names, colours, formats or host names cut to CLOG2's field sizes");
  note (c->out, rep.colors_named,
        "\"#rrggbb\" colours given the nearest X11 colour name");
  note (c->out, rep.consts_clamped, "constants clamped to 32 bits");
  return 0;
}

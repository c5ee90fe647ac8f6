/* SPDX-License-Identifier: BSD-3-Clause */
/* viewer-gen OUT PROCS EVENTS_PER_STREAM [SEED]: a synthetic log for the
 * viewer benchmark (bench/logfmt-synth). */
#include <stdio.h>
#include <stdlib.h>

#include "bench/logfmt-synth.h"

int
main (int argc, char **argv)
{
  if (argc < 4)
    {
      fprintf (stderr, "usage: viewer-gen OUT PROCS EVENTS_PER_STREAM [SEED]\n");
      return 2;
    }
  logfmt_synth_opts_t o;
  logfmt_synth_opts_init (&o);
  o.nprocs = (uint32_t) strtoul (argv[2], NULL, 10);
  o.events_per_stream = strtoull (argv[3], NULL, 10);
  if (argc > 4)
    o.seed = strtoull (argv[4], NULL, 10);
  logfmt_error_t err = { 0 };
  int rc = logfmt_synth_write (argv[1], &o, &err);
  if (rc != 0)
    {
      fprintf (stderr, "viewer-gen: %s\n", err.message[0] ? err.message
                                                         : logfmt_strerror (rc));
      return 1;
    }
  return 0;
}

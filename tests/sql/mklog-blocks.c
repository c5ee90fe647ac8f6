/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes a synthetic log with small blocks (1000 events), so that block
 * counts resolve a 1% window: mklog-blocks FILE (2 processes x 2
 * threads x 200,000 events, 200 blocks per stream). */
#include "config.h"

#include <stdio.h>

#include "synth/logfmt-synth.h"

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: mklog-blocks FILE\n");
      return 2;
    }
  logfmt_synth_opts_t o;
  logfmt_synth_opts_init (&o);
  o.nprocs = 2;
  o.threads_per_proc = 2;
  o.events_per_stream = 200000;
  o.seed = 11;
  o.block_events = 1000;
  logfmt_error_t err = { 0 };
  if (logfmt_synth_write (argv[1], &o, &err) != 0)
    {
      fprintf (stderr, "mklog-blocks: %s\n", err.message);
      return 1;
    }
  return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * viewer-gen OUT PROCS EVENTS_PER_STREAM [SEED]: a synthetic log for the
 * viewer benchmark through synth/logfmt-synth (global time order, fine
 * for tens of processes).
 * viewer-gen --wide OUT PROCS EVENTS_PER_STREAM: many processes, each
 * stream written in one go (the synth module picks the next stream by a
 * linear scan, too slow for 10,000 processes): nested states, a solo
 * event and ring messages to the next rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth/logfmt-synth.h"

static uint64_t
rnd (uint64_t *x)
{
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static int
wide (const char *path, uint32_t procs, uint64_t n)
{
  static const char *names[] = { "Compute", "Halo", "Pack", "Unpack",
                                 "Solve", "IO", "Reduce", "Sort" };
  static const char *colors[] = { "SeaGreen", "orange", "DarkOrchid",
                                  "gold", "SteelBlue", "firebrick",
                                  "khaki", "turquoise" };
  logfmt_writer_opts_t o = { sizeof o };
  o.match_messages = 1;
  o.world_size = procs;
  o.creator = "viewer-gen --wide";
  logfmt_writer_t *w = NULL;
  logfmt_error_t err = { 0 };
  int rc = logfmt_writer_open (path, &o, &w, &err);
  for (int k = 0; k < 8 && rc == 0; k++)
    {
      logfmt_state_def_t d = { 2 * k + 1, 2 * k + 2, names[k], colors[k],
                               NULL, 0 };
      rc = logfmt_writer_add_state (w, &d);
    }
  logfmt_event_def_t e = { 100, "Marker", "white", NULL, 0 };
  if (rc == 0)
    rc = logfmt_writer_add_event_def (w, &e);
  for (uint32_t p = 0; p < procs && rc == 0; p++)
    {
      logfmt_stream_def_t sd = { (int32_t) p, 0, NULL };
      uint32_t sid;
      rc = logfmt_writer_add_stream (w, &sd, &sid);
    }
  logfmt_event_t *ev = calloc (n + 8, sizeof *ev);
  for (uint32_t p = 0; p < procs && rc == 0 && ev; p++)
    {
      uint64_t x = 0x9e3779b97f4a7c15ull ^ (p * 0x100000001b3ull), t = 0;
      uint64_t i = 0, iter = 0;
      while (i + 8 <= n)
        {
          int outer = (int) (rnd (&x) % 8), inner = (outer + 3) % 8;
          memset (&ev[i], 0, 8 * sizeof *ev);
          t += 50 + rnd (&x) % 2000;
          ev[i].time = t; ev[i].type = LOGFMT_REC_EVENT;
          ev[i++].id = 2 * outer + 1;
          t += 100 + rnd (&x) % 3000;
          ev[i].time = t; ev[i].type = LOGFMT_REC_EVENT;
          ev[i++].id = 2 * inner + 1;
          t += 100 + rnd (&x) % 3000;
          ev[i].time = t; ev[i].type = LOGFMT_REC_EVENT;
          ev[i++].id = 2 * inner + 2;
          /* Every 25th iteration: a message around the ring (each rank
           * receives from the previous one at the same iteration). */
          if (iter % 25 == 0)
            {
              ev[i].time = t; ev[i].type = LOGFMT_REC_SEND;
              ev[i].partner = (int32_t) ((p + 1) % procs);
              ev[i].tag = (int32_t) iter; ev[i++].size = 4096;
              t += 200 + rnd (&x) % 500;
              ev[i].time = t; ev[i].type = LOGFMT_REC_RECV;
              ev[i].partner = (int32_t) ((p + procs - 1) % procs);
              ev[i].tag = (int32_t) iter; ev[i++].size = 4096;
            }
          t += 100 + rnd (&x) % 1000;
          ev[i].time = t; ev[i].type = LOGFMT_REC_EVENT;
          ev[i++].id = 2 * outer + 2;
          if (iter % 7 == 0)
            {
              ev[i].time = t; ev[i].type = LOGFMT_REC_EVENT;
              ev[i++].id = 100;
            }
          iter++;
        }
      rc = logfmt_writer_event (w, p, ev, i);
      /* Done with this stream: its block buffer goes (one per stream
       * held to the end took 10 GB for 100,000 streams). */
      if (rc == 0)
        rc = logfmt_writer_end_stream (w, p);
    }
  free (ev);
  if (rc == 0)
    rc = logfmt_writer_finish (w, &err);
  else if (w)
    logfmt_writer_abort (w);
  if (rc != 0)
    fprintf (stderr, "viewer-gen: %s\n", err.message[0] ? err.message
                                                       : logfmt_strerror (rc));
  return rc == 0 ? 0 : 1;
}

int
main (int argc, char **argv)
{
  if (argc == 5 && strcmp (argv[1], "--wide") == 0)
    return wide (argv[2], (uint32_t) strtoul (argv[3], NULL, 10),
                 strtoull (argv[4], NULL, 10));
  if (argc < 4)
    {
      fprintf (stderr, "usage: viewer-gen OUT PROCS EVENTS_PER_STREAM [SEED]\n"
                       "       viewer-gen --wide OUT PROCS EVENTS_PER_STREAM\n");
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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * viewer-samples-gen OUT STREAMS SAMPLES_PER_STREAM: a log for the
 * viewer's sample strips and flame graph benchmark: STREAMS ranks, each
 * in state Compute over the run and sampled at 200 Hz (one sample per
 * 5 ms) in a call-path tree of 64 functions four deep (a binary that is
 * not there: frames are prog+offset), the leaf drawn at random.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logfmt/logfmt.h>

#define NODES 85   /* root, 4 + 16 + 64 nodes under it */

int
main (int argc, char **argv)
{
  if (argc != 4)
    {
      fprintf (stderr, "usage: viewer-samples-gen OUT STREAMS SAMPLES\n");
      return 2;
    }
  int streams = atoi (argv[2]);
  long per = atol (argv[3]);
  logfmt_writer_opts_t o = { sizeof o };
  o.world_size = streams;
  o.creator = "viewer-samples-gen";
  logfmt_writer_t *w = NULL;
  logfmt_error_t err = { 0 };
  if (streams < 1 || per < 1
      || logfmt_writer_open (argv[1], &o, &w, &err) != 0)
    {
      fprintf (stderr, "viewer-samples-gen: %s\n",
               err.code ? err.message : "bad arguments");
      return 1;
    }
  logfmt_state_def_t a = { 1, 2, "Compute", "SeaGreen", NULL, 0 };
  logfmt_const_def_t hz = { "MPE_SAMPLE_HZ", 200 };
  int rc = logfmt_writer_add_state (w, &a);
  if (rc == 0)
    rc = logfmt_writer_add_const (w, &hz);
  logfmt_module_t mod = { "/nonexistent/bench/prog", "", 0x400000,
                          0x400000, 0x500000 };
  logfmt_cpnode_t nodes[NODES];
  nodes[0] = (logfmt_cpnode_t) { 0, LOGFMT_NO_MODULE, 0 };
  for (int i = 1; i < NODES; i++)
    nodes[i] = (logfmt_cpnode_t) { i <= 4 ? 0 : (uint32_t) ((i - 5) / 4 + 1),
                                   0, 0x1000 + 0x40 * (uint64_t) i };
  uint64_t x = 88172645463325252ull;
  logfmt_track_rec_t *t = calloc (4096, sizeof *t);
  for (int r = 0; r < streams && rc == 0 && t; r++)
    {
      uint32_t st;
      logfmt_stream_def_t sd = { r, 0, NULL };
      rc = logfmt_writer_add_stream (w, &sd, &st);
      void *blob = NULL;
      size_t len = 0;
      if (rc == 0)
        rc = logfmt_callpaths_encode (r, &mod, 1, nodes, NODES, &blob, &len);
      if (rc == 0)
        rc = logfmt_writer_put_callpaths (w, blob, len);
      free (blob);
      logfmt_event_t e[2];
      memset (e, 0, sizeof e);
      e[0].type = e[1].type = LOGFMT_REC_EVENT;
      e[0].id = 1;
      e[1].id = 2;
      e[0].state = e[1].state = -1;
      e[1].time = (uint64_t) per * 5000000u;
      if (rc == 0)
        rc = logfmt_writer_event (w, st, e, 2);
      for (long i = 0; i < per && rc == 0; i += 4096)
        {
          long n = per - i < 4096 ? per - i : 4096;
          for (long k = 0; k < n; k++)
            {
              x ^= x << 13;
              x ^= x >> 7;
              x ^= x << 17;
              t[k].time = (uint64_t) (i + k) * 5000000u;
              t[k].col[LOGFMT_SAMPLE_COL_NODE] = 21 + (int64_t) (x % 64);
              t[k].col[LOGFMT_SAMPLE_COL_CPU] = r % 2;
              t[k].col[LOGFMT_SAMPLE_COL_FLAGS] = LOGFMT_SAMPLE_FP;
              t[k].col[LOGFMT_SAMPLE_COL_STATE] = -1;
              t[k].col[LOGFMT_SAMPLE_COL_WEIGHT] = 1;
            }
          rc = logfmt_writer_track_add (w, st, LOGFMT_TRACK_CALLPATH, t,
                                        (size_t) n);
        }
      if (rc == 0)
        rc = logfmt_writer_track_flush (w, st);
    }
  free (t);
  if (rc != 0)
    {
      logfmt_writer_abort (w);
      fprintf (stderr, "viewer-samples-gen: %s\n", logfmt_strerror (rc));
      return 1;
    }
  if (logfmt_writer_finish (w, &err) != 0)
    {
      fprintf (stderr, "viewer-samples-gen: %s\n", err.message);
      return 1;
    }
  return 0;
}

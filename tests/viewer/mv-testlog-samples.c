/* SPDX-License-Identifier: BSD-3-Clause */
/* The call-path sample test log (mv-testlog.h, mv_testlog_write_samples). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logfmt/logfmt.h>

#include "mv-testlog.h"

/* Samples of one rank: node `first` over [0, switch_ms) ms, `second`
 * over [switch_ms, 1000) ms, one per ms. */
static int
add_samples (logfmt_writer_t *w, uint32_t st, int first, int second,
             int switch_ms)
{
  logfmt_track_rec_t t[1000];
  memset (t, 0, sizeof t);
  for (int i = 0; i < 1000; i++)
    {
      t[i].time = (uint64_t) i * 1000000u;
      t[i].col[LOGFMT_SAMPLE_COL_NODE] = i < switch_ms ? first : second;
      t[i].col[LOGFMT_SAMPLE_COL_CPU] = 0;
      t[i].col[LOGFMT_SAMPLE_COL_FLAGS] = LOGFMT_SAMPLE_FP;
      t[i].col[LOGFMT_SAMPLE_COL_STATE] = -1;
      t[i].col[LOGFMT_SAMPLE_COL_WEIGHT] = 1;
    }
  return logfmt_writer_track_add (w, st, LOGFMT_TRACK_CALLPATH, t, 1000);
}

int
mv_testlog_write_samples (const char *path)
{
  logfmt_writer_opts_t o = { sizeof o };
  o.world_size = 2;
  o.creator = "mv-testlog";
  logfmt_writer_t *w = NULL;
  logfmt_error_t err = { 0 };
  if (logfmt_writer_open (path, &o, &w, &err) != 0)
    {
      fprintf (stderr, "%s\n", err.message);
      return -1;
    }
  logfmt_state_def_t a = { 1, 2, "A", "#ff0000", NULL, 0 };
  logfmt_const_def_t hz = { "MPE_SAMPLE_HZ", 1000 };
  int rc = logfmt_writer_add_state (w, &a);
  if (rc == 0)
    rc = logfmt_writer_add_const (w, &hz);
  /* A binary that is not there: frames are prog+offset. */
  logfmt_module_t mod = { "/nonexistent/mv-test/prog", "", 0x400000,
                          0x401000, 0x409000 };
  logfmt_cpnode_t nodes[] = {
    { 0, LOGFMT_NO_MODULE, 0 },
    { 0, 0, 0x1000 },   /* 1 main */
    { 1, 0, 0x2000 },   /* 2 via_helper */
    { 2, 0, 0x3000 },   /* 3 hot */
    { 1, 0, 0x4000 },   /* 4 warm */
  };
  uint32_t st[2];
  for (int r = 0; r < 2 && rc == 0; r++)
    {
      logfmt_stream_def_t sd = { r, 0, NULL };
      rc = logfmt_writer_add_stream (w, &sd, &st[r]);
      void *blob = NULL;
      size_t len = 0;
      if (rc == 0)
        rc = logfmt_callpaths_encode (r, &mod, 1, nodes, 5, &blob, &len);
      if (rc == 0)
        rc = logfmt_writer_put_callpaths (w, blob, len);
      free (blob);
    }
  for (int r = 0; r < 2 && rc == 0; r++)
    {
      logfmt_event_t e[2];
      memset (e, 0, sizeof e);
      e[0].type = e[1].type = LOGFMT_REC_EVENT;
      e[0].id = 1;
      e[1].id = 2;
      e[0].state = e[1].state = -1;
      e[1].time = 1000000000u;
      rc = logfmt_writer_event (w, st[r], e, 2);
    }
  if (rc == 0)
    rc = add_samples (w, st[0], 3, 4, 800);
  if (rc == 0)
    rc = add_samples (w, st[1], 4, 3, 500);
  if (rc != 0)
    {
      logfmt_writer_abort (w);
      return rc;
    }
  if (logfmt_writer_finish (w, &err) != 0)
    {
      fprintf (stderr, "%s\n", err.message);
      return -1;
    }
  return 0;
}

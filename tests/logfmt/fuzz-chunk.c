/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target aimed at one chunk at a time: a sound template log
 * (blocks, summaries, message runs, definitions, index, tracks, track
 * directory, call-path tables) is made once; each input's first byte
 * picks one of its chunks, the rest is laid over that chunk's payload
 * (same length, so every offset stays right), the checksums are
 * recomputed and the result read as fuzz-reader.c reads a file.  Every
 * chunk type thus gets inputs that pass framing and checksums. */
#include "logfmt-internal.h"
#include "fix-checksums.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
void logfmt_fuzz_exercise (const uint8_t *data, size_t size,
                           unsigned flags);

static uint8_t *tpl;
static size_t ntpl;
static uint64_t chunk_off[256];
static size_t nchunks;

static logfmt_event_t
ev (uint64_t t, uint8_t type, int32_t id, int32_t partner)
{
  logfmt_event_t e;
  memset (&e, 0, sizeof e);
  e.time = t;
  e.type = type;
  e.id = id;
  e.partner = partner;
  e.size = type == LOGFMT_REC_LOSS ? 3 : 8;
  e.state = -1;
  return e;
}

static int
make_template (void)
{
  char path[128];
  snprintf (path, sizeof path, "%s/fuzz-chunk-%ld.clog",
            getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp", (long) getpid ());
  logfmt_writer_opts_t o = { .size = sizeof o, .match_messages = 1,
                             .block_events = 16, .world_size = 2 };
  logfmt_writer_t *w;
  if (logfmt_writer_open (path, &o, &w, NULL))
    return -1;
  logfmt_state_def_t st = { 1, 2, "s", "red", NULL, 0 };
  logfmt_event_def_t ed = { 5, "e", "blue", "v=%d", 0 };
  logfmt_comm_def_t cw = { 0, 1, "MPI_COMM_WORLD", 2, NULL };
  logfmt_stream_def_t d0 = { 0, 0, "a" }, d1 = { 1, 0, "b" };
  logfmt_metric_def_t md = { 1, LOGFMT_METRIC_LEVEL, "m", "1" };
  logfmt_const_def_t k = { "MPI_PROC_NULL", -1 };
  uint32_t s0, s1;
  int rc = logfmt_writer_add_state (w, &st);
  rc = rc ? rc : logfmt_writer_add_event_def (w, &ed);
  rc = rc ? rc : logfmt_writer_add_comm (w, &cw);
  rc = rc ? rc : logfmt_writer_add_const (w, &k);
  rc = rc ? rc : logfmt_writer_add_stream (w, &d0, &s0);
  rc = rc ? rc : logfmt_writer_add_stream (w, &d1, &s1);
  rc = rc ? rc : logfmt_writer_add_metric (w, &md);
  for (int i = 0; i < 40 && !rc; i++)
    {
      uint64_t t = 100 + (uint64_t) i * 100;
      logfmt_event_t a[4] = { ev (t, LOGFMT_REC_EVENT, 1, 0),
                              ev (t + 10, LOGFMT_REC_SEND, 0, 1),
                              ev (t + 20, LOGFMT_REC_EVENT, 5, 0),
                              ev (t + 50, LOGFMT_REC_EVENT, 2, 0) };
      a[2].flags = LOGFMT_EVF_CARGO;
      a[2].cargo[3] = (uint8_t) i;
      logfmt_event_t b[3] = { ev (t + 5, LOGFMT_REC_EVENT, 1, 0),
                              ev (t + 30, LOGFMT_REC_RECV, 0, 0),
                              ev (t + 60, i == 7 ? LOGFMT_REC_LOSS
                                                 : LOGFMT_REC_EVENT, 2, 0) };
      rc = logfmt_writer_event (w, s0, a, 4);
      rc = rc ? rc : logfmt_writer_event (w, s1, b, 3);
      logfmt_track_rec_t m = { t, { 1, -1, i % 5 } };
      rc = rc ? rc : logfmt_writer_track_add (w, s0, LOGFMT_TRACK_METRIC,
                                              &m, 1);
    }
  logfmt_module_t mod = { "/bin/p", "ab", 0x1000, 0x2000, 0x3000 };
  logfmt_cpnode_t nodes[3] = { { 0, LOGFMT_NO_MODULE, 0 },
                               { 0, 0, 0x10 }, { 1, LOGFMT_NO_MODULE, 5 } };
  void *blob;
  size_t blen;
  if (!rc && logfmt_callpaths_encode (0, &mod, 1, nodes, 3, &blob, &blen) == 0)
    {
      rc = logfmt_writer_put_callpaths (w, blob, blen);
      free (blob);
    }
  if (rc || logfmt_writer_finish (w, NULL))
    {
      if (rc)
        logfmt_writer_abort (w);
      unlink (path);
      return -1;
    }
  FILE *f = fopen (path, "rb");
  unlink (path);
  if (!f)
    return -1;
  fseek (f, 0, SEEK_END);
  ntpl = (size_t) ftell (f);
  fseek (f, 0, SEEK_SET);
  tpl = malloc (ntpl);
  if (!tpl || fread (tpl, 1, ntpl, f) != ntpl)
    ntpl = 0;
  fclose (f);
  uint64_t off = ld32 (tpl + 12);
  while (ntpl && nchunks < 256
         && off + LOGFMT__CHUNK_HDR + LOGFMT__CHUNK_CRC
              + LOGFMT__TRAILER_SIZE <= ntpl)
    {
      chunk_off[nchunks++] = off;
      off += LOGFMT__CHUNK_HDR + ld64 (tpl + off + 8) + LOGFMT__CHUNK_CRC;
    }
  return ntpl ? 0 : -1;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static int ready;
  if (!ready)
    ready = make_template () == 0 ? 1 : -1;
  if (ready < 0)
    abort ();  /* the template itself must be writable */
  if (size < 1)
    return 0;
  uint64_t off = chunk_off[data[0] % nchunks];
  uint64_t plen = ld64 (tpl + off + 8);
  uint8_t *c = malloc (ntpl);
  if (!c)
    return 0;
  memcpy (c, tpl, ntpl);
  size_t n = size - 1 < plen ? size - 1 : (size_t) plen;
  memcpy (c + off + LOGFMT__CHUNK_HDR, data + 1, n);
  logfmt_test_fix_checksums (c, ntpl);
  logfmt_fuzz_exercise (c, ntpl, 0);
  logfmt_fuzz_exercise (c, ntpl, LOGFMT_OPEN_TOLERANT);
  free (c);
  return 0;
}

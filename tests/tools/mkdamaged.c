/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes the damaged-file corpus of tests/tools/damaged: a small sound log
 * (two ranks, states, messages, a metric track, call paths), then one
 * file per kind of damage, each with its checksums recomputed so the
 * damage itself is what readers meet.  The corpus is committed; this
 * program documents and rebuilds it:  mkdamaged OUTDIR */
#include "config.h"
#include "logfmt-internal.h"
#include "tests/logfmt/fix-checksums.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                        \
  do                                                                    \
    {                                                                   \
      int rc_ = (x);                                                    \
      if (rc_ < 0)                                                      \
        {                                                               \
          fprintf (stderr, "mkdamaged: %s: %s\n", #x,                   \
                   logfmt_strerror (rc_));                              \
          exit (1);                                                     \
        }                                                               \
    }                                                                   \
  while (0)

typedef struct
{
  uint32_t world;
  int32_t rank1, thread1;   /* the second stream's */
  int nmsgs;
  int huge;                 /* a last event near 2^64 ns on stream 0 */
} base_opts_t;

static logfmt_event_t
ev (uint64_t t, uint8_t type, int32_t id)
{
  logfmt_event_t e;
  memset (&e, 0, sizeof e);
  e.time = t;
  e.type = type;
  e.id = id;
  e.state = -1;
  return e;
}

/* The sound log: BEGIN/END pairs on both streams, nmsgs messages from
 * stream 0 to stream 1, small blocks (many of them), metric samples on
 * both streams, call paths for rank 0. */
static void
write_base (const char *path, const base_opts_t *bo)
{
  logfmt_writer_opts_t o;
  memset (&o, 0, sizeof o);
  o.size = sizeof o;
  o.match_messages = 1;
  o.block_events = 256;
  o.creator = "mkdamaged";
  o.world_size = bo->world;
  logfmt_writer_t *w;
  logfmt_error_t err;
  memset (&err, 0, sizeof err);
  CHECK (logfmt_writer_open (path, &o, &w, &err));
  logfmt_state_def_t st = { 1, 2, "work", "red", NULL, 0 };
  CHECK (logfmt_writer_add_state (w, &st));
  logfmt_comm_def_t world = { 0, 1, "MPI_COMM_WORLD", 2, NULL };
  CHECK (logfmt_writer_add_comm (w, &world));
  logfmt_stream_def_t d0 = { 0, 0, "node-a" };
  logfmt_stream_def_t d1 = { bo->rank1, bo->thread1, "node-b" };
  uint32_t s0, s1;
  CHECK (logfmt_writer_add_stream (w, &d0, &s0));
  CHECK (logfmt_writer_add_stream (w, &d1, &s1));
  logfmt_metric_def_t md = { 1, LOGFMT_METRIC_LEVEL, "queue", "1" };
  CHECK (logfmt_writer_add_metric (w, &md));
  for (int i = 0; i < bo->nmsgs; i++)
    {
      uint64_t t = 1000 + (uint64_t) i * 1000;
      logfmt_event_t a[3] = { ev (t, LOGFMT_REC_EVENT, 1),
                              ev (t + 100, LOGFMT_REC_SEND, 0),
                              ev (t + 400, LOGFMT_REC_EVENT, 2) };
      a[1].partner = bo->rank1;
      a[1].tag = i & 7;
      a[1].size = 64;
      logfmt_event_t b[3] = { ev (t + 10, LOGFMT_REC_EVENT, 1),
                              ev (t + 300, LOGFMT_REC_RECV, 0),
                              ev (t + 500, LOGFMT_REC_EVENT, 2) };
      b[1].partner = 0;
      b[1].tag = i & 7;
      b[1].size = 64;
      CHECK (logfmt_writer_event (w, s0, a, 3));
      CHECK (logfmt_writer_event (w, s1, b, 3));
      logfmt_track_rec_t m = { t, { 1, -1, i % 13 } };
      CHECK (logfmt_writer_track_add (w, s0, LOGFMT_TRACK_METRIC, &m, 1));
      m.col[2] = i % 7;
      CHECK (logfmt_writer_track_add (w, s1, LOGFMT_TRACK_METRIC, &m, 1));
    }
  if (bo->huge)
    {
      logfmt_event_t z = ev (UINT64_MAX - 1000, LOGFMT_REC_EVENT, 1);
      CHECK (logfmt_writer_event (w, s0, &z, 1));
    }
  logfmt_module_t mod = { "/bin/prog", "", 0x400000, 0x401000, 0x402000 };
  logfmt_cpnode_t nodes[3] = { { 0, LOGFMT_NO_MODULE, 0 },
                               { 0, 0, 0x1010 }, { 1, 0, 0x1020 } };
  void *blob;
  size_t blen;
  CHECK (logfmt_callpaths_encode (0, &mod, 1, nodes, 3, &blob, &blen));
  CHECK (logfmt_writer_put_callpaths (w, blob, blen));
  free (blob);
  CHECK (logfmt_writer_finish (w, &err));
}

static uint8_t *
slurp (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    {
      fprintf (stderr, "mkdamaged: %s: %s\n", path, strerror (errno));
      exit (1);
    }
  fseek (f, 0, SEEK_END);
  long n = ftell (f);
  fseek (f, 0, SEEK_SET);
  uint8_t *p = malloc ((size_t) n);
  if (!p || fread (p, 1, (size_t) n, f) != (size_t) n)
    exit (1);
  fclose (f);
  *len = (size_t) n;
  return p;
}

static void
spit (const char *dir, const char *name, const uint8_t *p, size_t len,
      int fix)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/%s", dir, name);
  uint8_t *c = malloc (len);
  memcpy (c, p, len);
  if (fix)
    logfmt_test_fix_checksums (c, len);
  FILE *f = fopen (path, "wb");
  if (!f || fwrite (c, 1, len, f) != len || fclose (f) != 0)
    {
      fprintf (stderr, "mkdamaged: %s: cannot write\n", path);
      exit (1);
    }
  free (c);
}

/* Offset of the k-th chunk (from 0) of a type, 0 if none. */
static uint64_t
chunk (const uint8_t *d, size_t n, uint32_t type, int k)
{
  uint64_t off = ld32 (d + 12);
  while (off + LOGFMT__CHUNK_HDR + LOGFMT__CHUNK_CRC + LOGFMT__TRAILER_SIZE
         <= n)
    {
      uint64_t len = ld64 (d + off + 8);
      if (ld32 (d + off) == type && k-- == 0)
        return off;
      off += LOGFMT__CHUNK_HDR + len + LOGFMT__CHUNK_CRC;
    }
  fprintf (stderr, "mkdamaged: no chunk of type %u\n", type);
  exit (1);
}

static uint64_t
index_off (const uint8_t *d, size_t n)
{
  return ld64 (d + n - LOGFMT__TRAILER_SIZE);
}

/* Payload offset of the k-th DEFS record of a kind in the final DEFS. */
static uint64_t
defs_rec (const uint8_t *d, size_t n, uint32_t kind, int k)
{
  uint64_t defs = ld64 (d + index_off (d, n) + LOGFMT__CHUNK_HDR + 8);
  uint64_t p = defs + LOGFMT__CHUNK_HDR;
  uint64_t end = p + ld64 (d + defs + 8);
  while (p < end)
    {
      if (ld32 (d + p) == kind && k-- == 0)
        return p;
      p += 8 + ld32 (d + p + 4);
    }
  fprintf (stderr, "mkdamaged: no definition of kind %u\n", kind);
  exit (1);
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: mkdamaged OUTDIR\n");
      return 2;
    }
  const char *dir = argv[1];
  char base[4096];
  snprintf (base, sizeof base, "%s/.base.clog", dir);
  size_t n;
  uint8_t *d;
  base_opts_t bo = { 2, 1, 0, 100 };
#define ONE(name, ...)                                                  \
  do                                                                    \
    {                                                                   \
      write_base (base, &(base_opts_t) { __VA_ARGS__ });                \
      d = slurp (base, &n);                                             \
      spit (dir, name, d, n, 0);                                        \
      free (d);                                                         \
    }                                                                   \
  while (0)
  /* Definitions a writer accepts but readers must not. */
  ONE ("rank-max.clog", 0, INT32_MAX, 0, 100);
  ONE ("rank-neg.clog", 0, -1, -1, 100);
  ONE ("world-huge.clog", 0xffffffffu, 1, 0, 100);
  ONE ("world-small.clog", 1, 1, 0, 100);
  /* Sound but extreme (odd-*: verify passes them): a time near 2^64. */
  ONE ("odd-time-huge.clog", 2, 1, 0, 100, 1);

  /* Cut just before the second of two message runs: the blocks of
   * every message survive, the table holds the first run only. */
  write_base (base, &(base_opts_t) { 2, 1, 0, 5000 });
  d = slurp (base, &n);
  spit (dir, "cut-after-msgs.clog", d, chunk (d, n, LOGFMT__CHUNK_MSGS, 1),
        0);
  free (d);

  /* Damage applied to the sound log. */
  write_base (base, &bo);
  d = slurp (base, &n);
  uint8_t *c = malloc (n);
#define DAMAGE(name, len, fix, ...)                                     \
  do                                                                    \
    {                                                                   \
      memcpy (c, d, n);                                                 \
      __VA_ARGS__;                                                      \
      spit (dir, name, c, len, fix);                                    \
    }                                                                   \
  while (0)
  uint64_t blk = chunk (d, n, LOGFMT__CHUNK_BLOCK, 1);
  uint64_t idx = index_off (d, n) + LOGFMT__CHUNK_HDR;
  uint64_t sum = chunk (d, n, LOGFMT__CHUNK_SUMMARY, 0);
  /* A chunk length of 2^63 (the index still points at the block). */
  DAMAGE ("chunk-len-2e63.clog", n, 0, st64 (c + blk + 8, 1ull << 63));
  /* The track directory lists a chunk at a wrong offset. */
  {
    uint64_t td = chunk (d, n, LOGFMT__CHUNK_TRACKDIR, 0);
    DAMAGE ("trackdir-offset.clog", n, 1,
            st64 (c + td + LOGFMT__CHUNK_HDR + 8,
                  ld64 (d + td + LOGFMT__CHUNK_HDR + 8) + 8));
    /* The last entry names a stream the file does not have. */
    uint64_t tn = ld32 (d + td + LOGFMT__CHUNK_HDR);
    DAMAGE ("trackdir-stream.clog", n, 1,
            st32 (c + td + LOGFMT__CHUNK_HDR + 8 + (tn - 1) * 48 + 8, 2));
    DAMAGE ("trackdir-count.clog", n, 1,
            st32 (c + td + LOGFMT__CHUNK_HDR + 8 + 16,
                  ld32 (d + td + LOGFMT__CHUNK_HDR + 8 + 16) + 1));
  }
  /* No track directory record: the TRACK chunks are there. */
  DAMAGE ("trackdir-missing.clog", n, 1,
          st32 (c + defs_rec (d, n, 6, 0), 99));
  /* Call-path tables: a node whose parent is itself; a module count
   * beyond the chunk; DEFS kind 10 naming a chunk type it cannot be. */
  {
    uint64_t cp = chunk (d, n, 9, 0) + LOGFMT__CHUNK_HDR + 16;
    DAMAGE ("callpath-parent.clog", n, 1, c[cp] = 0);
    uint64_t mo = chunk (d, n, 8, 0) + LOGFMT__CHUNK_HDR + 4;
    DAMAGE ("modules-count.clog", n, 1, st32 (c + mo, 1000000));
    DAMAGE ("defs10-type.clog", n, 1,
            st32 (c + defs_rec (d, n, 10, 0) + 12, 3));
    DAMAGE ("defs10-offset.clog", n, 1,
            st64 (c + defs_rec (d, n, 10, 0) + 16, 8));
  }
  /* A summary whose origin is not its stream's first record. */
  DAMAGE ("summary-origin.clog", n, 1,
          st64 (c + sum + LOGFMT__CHUNK_HDR + 8,
                ld64 (d + sum + LOGFMT__CHUNK_HDR + 8) + 4096));
  /* Lost counts: the index's against the blocks' LOSS sums, and a block
   * header's sum against its (absent) LOSS records. */
  DAMAGE ("index-lost.clog", n, 1, st64 (c + idx + 32 + 24, 5));
  DAMAGE ("block-lost.clog", n, 1,
          st64 (c + blk + LOGFMT__CHUNK_HDR + 40, 7));
  /* Reserved fields that must be zero. */
  DAMAGE ("reserved-header.clog", n, 1, st32 (c + 52, 1));
  DAMAGE ("reserved-flags.clog", n, 1, st32 (c + 20, 1));
  DAMAGE ("reserved-chunk.clog", n, 1, st32 (c + blk + 4, 1));
  DAMAGE ("reserved-block.clog", n, 1,
          c[blk + LOGFMT__CHUNK_HDR + 33] = 1);
  DAMAGE ("reserved-index.clog", n, 1, st64 (c + idx + 24, 1));
  DAMAGE ("reserved-msgs.clog", n, 1,
          st64 (c + chunk (d, n, LOGFMT__CHUNK_MSGS, 0)
                  + LOGFMT__CHUNK_HDR + 24, 1));
  free (c);
  free (d);
  remove (base);
  return 0;
}

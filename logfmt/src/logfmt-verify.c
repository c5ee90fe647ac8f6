/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The checks logfmt_verify makes beyond reading everything through the
 * reader (logfmt-scan.c): fields that readers skip or trust but the
 * format fixes (reserved fields, lost counts), and
 * chunks that only some tools read (call-path tables) or that nothing
 * would read if a definition were missing (TRACK chunks without a
 * directory).  So verify passes nothing another tool would reject or
 * silently drop.
 */
#include "config.h"
#include "logfmt-reader-internal.h"
#include "logfmt-track-internal.h"
#include "logfmt-callpath-internal.h"

#include <stdlib.h>

typedef struct
{
  const logfmt_reader_t *r;
  logfmt__verify_cb cb;
  void *user;
} chk_t;

#define PROBLEM(c, off, ...)                                            \
  do                                                                    \
    {                                                                   \
      logfmt_error_t e_;                                                \
      logfmt__err (&e_, LOGFMT_ECORRUPT, (c)->r->path, off, __VA_ARGS__); \
      (c)->cb ((c)->user, &e_);                                         \
    }                                                                   \
  while (0)

static bool
zero (const uint8_t *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (p[i])
      return false;
  return true;
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return (x > y) - (x < y);
}

static bool
listed (const uint64_t *v, size_t n, uint64_t off)
{
  return n && bsearch (&off, v, n, sizeof *v, cmp_u64) != NULL;
}

/* Reserved fields of one chunk's payload (FORMAT.md 6, 9, 14, 15) that
 * the reader does not check itself (it checks blocks' and runs'). */
static void
chunk_reserved (const chk_t *c, uint64_t off, uint32_t type,
                const uint8_t *p, uint64_t len)
{
  const char *what = NULL;
  switch (type)
    {
    case LOGFMT__CHUNK_SUMMARY:
      if (len >= 32 && ld32 (p + 28))
        what = "summary header";
      break;
    case LOGFMT__CHUNK_INDEX:
      if (len >= 32)
        {
          uint32_t ns = ld32 (p), nm = ld32 (p + 4);
          if (ld64 (p + 24))
            what = "index header";
          uint64_t q = 32, nb = 0;
          for (uint32_t i = 0; i < ns && q + 48 <= len && !what; i++, q += 48)
            {
              nb += ld32 (p + q + 40);
              if (ld32 (p + q + 44))
                what = "index stream entry";
            }
          for (uint64_t i = 0; i < nb + nm && q + 32 <= len && !what;
               i++, q += 32)
            if (ld32 (p + q + 28))
              what = "index block or message entry";
        }
      break;
    case LOGFMT__CHUNK_TRACK:
      if (len >= 56 && !zero (p + 49, 7))
        what = "track header";
      break;
    case LOGFMT__CHUNK_TRACKDIR:
      if (len >= 8 && ld32 (p + 4))
        what = "track directory header";
      break;
    case LOGFMT__CHUNK_CALLPATHS:
      if (len >= 8 && ld32 (p + 4))
        what = "call-path table header";
      break;
    default:
      break;
    }
  if (what)
    PROBLEM (c, off, "reserved field of the %s is not zero", what);
}

/* Every chunk: flags zero, reserved fields zero, and every TRACK,
 * MODULES and CALLPATHS chunk named by the definitions (else no tool
 * would ever read it: its data would be silently gone). */
static void
chunks (const chk_t *c)
{
  const logfmt_reader_t *r = c->r;
  const uint8_t *h = r->data;
  if (ld32 (h + 20))
    PROBLEM (c, 20, "header flags are 0x%x, not 0", ld32 (h + 20));
  if (ld32 (h + 52))
    PROBLEM (c, 52, "reserved header field is not zero");
  uint64_t *tr = malloc ((r->ntracks + 1) * sizeof *tr);
  uint64_t *cp = malloc ((r->ncprefs + 1) * sizeof *cp);
  if (!tr || !cp)
    {
      free (tr);
      free (cp);
      return;
    }
  for (size_t i = 0; i < r->ntracks; i++)
    tr[i] = r->tracks[i].offset;
  for (size_t i = 0; i < r->ncprefs; i++)
    cp[i] = r->cprefs[i].offset;
  qsort (tr, r->ntracks, sizeof *tr, cmp_u64);
  qsort (cp, r->ncprefs, sizeof *cp, cmp_u64);
  uint64_t off = ld32 (h + 12), end = r->size - LOGFMT__TRAILER_SIZE;
  uint64_t unlisted_tracks = 0, first_unlisted = 0;
  while (off < end && end - off >= LOGFMT__CHUNK_HDR + LOGFMT__CHUNK_CRC)
    {
      uint32_t type = ld32 (h + off);
      uint64_t len = ld64 (h + off + 8);
      if (len > end - off - LOGFMT__CHUNK_HDR - LOGFMT__CHUNK_CRC)
        break;  /* framing: reported by the main walk */
      if (ld32 (h + off + 4))
        PROBLEM (c, off, "chunk flags are 0x%x, not 0", ld32 (h + off + 4));
      chunk_reserved (c, off, type, h + off + LOGFMT__CHUNK_HDR, len);
      if (type == LOGFMT__CHUNK_TRACK && !listed (tr, r->ntracks, off))
        {
          if (!unlisted_tracks++)
            first_unlisted = off;
        }
      else if ((type == LOGFMT__CHUNK_MODULES
                || type == LOGFMT__CHUNK_CALLPATHS)
               && !listed (cp, r->ncprefs, off))
        PROBLEM (c, off, "call-path table chunk that no definition names");
      off += LOGFMT__CHUNK_HDR + len + LOGFMT__CHUNK_CRC;
    }
  if (unlisted_tracks)
    PROBLEM (c, first_unlisted, "%llu TRACK chunk(s), the first here, are "
             "not in the track directory%s: no tool reads them",
             (unsigned long long) unlisted_tracks,
             r->trackdir_n ? "" : " (the file has none)");
  free (tr);
  free (cp);
}

/* Each rank's call-path tables decode, both are present, and the
 * definitions name only table chunk types. */
static void
callpaths (const chk_t *c)
{
  const logfmt_reader_t *r = c->r;
  for (size_t i = 0; i < r->ncprefs; i++)
    {
      int32_t rank = r->cprefs[i].rank;
      bool first = true;
      for (size_t k = 0; k < i && first; k++)
        first = r->cprefs[k].rank != rank;
      if (!first)
        continue;
      logfmt_callpaths_t *t;
      logfmt_error_t e;
      if (logfmt_reader_callpaths (r, rank, &t, &e) == 0)
        logfmt_callpaths_free (t);
      else
        c->cb (c->user, &e);
    }
}

/* Lost counts: each block header's against its LOSS records, and the
 * index's per stream against its blocks'. */
static void
losses (const chk_t *c)
{
  const logfmt_reader_t *r = c->r;
  for (uint32_t s = 0; s < r->nstreams; s++)
    {
      const logfmt__rstream_t *rs = &r->streams[s];
      uint64_t sum = 0;
      bool whole = true;
      for (size_t b = 0; b < rs->nblocks; b++)
        {
          const uint8_t *p;
          uint64_t len;
          logfmt_error_t e;
          logfmt__block_hdr_t bh;
          uint64_t off = rs->blocks[b].offset;
          logfmt_event_t *ev;
          size_t n;
          if (logfmt__chunk_at (r, off, LOGFMT__CHUNK_BLOCK, false, &p, &len,
                                &e)
              || logfmt__block_parse (p, len, &bh, NULL, off, NULL)
              || logfmt_block_decode (r->data + off,
                                      LOGFMT__CHUNK_HDR + len
                                        + LOGFMT__CHUNK_CRC,
                                      NULL, &ev, &n, NULL))
            {
              whole = false;  /* reported by the main walk */
              continue;
            }
          uint64_t rec = 0;
          for (size_t i = 0; i < n; i++)
            if (ev[i].type == LOGFMT_REC_LOSS)
              rec += ev[i].size;
          free (ev);
          if (rec != bh.lost)
            PROBLEM (c, off, "block of stream %u says %llu events lost, "
                     "its LOSS records %llu", s,
                     (unsigned long long) bh.lost, (unsigned long long) rec);
          sum += bh.lost;
        }
      if (whole && sum != rs->lost && !r->info.partial)
        PROBLEM (c, UINT64_MAX, "stream %u: the index says %llu events "
                 "lost, its blocks %llu", s, (unsigned long long) rs->lost,
                 (unsigned long long) sum);
    }
}

void
logfmt__verify_more (const logfmt_reader_t *r, logfmt__verify_cb cb,
                     void *user)
{
  chk_t c = { r, cb, user };
  chunks (&c);
  callpaths (&c);
  losses (&c);
}

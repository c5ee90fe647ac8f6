/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TRACK chunk codec (FORMAT.md section 14): one (stream, kind, level)'s
 * records as a time column and ncols value columns, each delta coded
 * as varints, compressed together with zstd.  Every reader of track
 * chunks (iterator, verify, scanner) decodes through this file.
 */
#include "config.h"
#include "logfmt-track-internal.h"

#include <stdlib.h>
#include <zstd.h>

/* Column count of each known kind (0 = unknown).  A new kind adds its
 * line here and its columns to logfmt.h. */
static const uint8_t kind_ncols[LOGFMT_TRACK_KIND_MAX + 1] = {
  [LOGFMT_TRACK_METRIC] = LOGFMT__METRIC_COLS,
  [LOGFMT_TRACK_CALLPATH] = 5,   /* node, cpu, flags, state, weight */
  [LOGFMT_TRACK_CALLSITE] = 4,   /* node, state, duration, bytes */
  [LOGFMT_TRACK_SWITCH] = 2,   /* cpu, what */
  [LOGFMT_TRACK_MEMORY] = 3,   /* cell, live bytes, calls */
  [LOGFMT_TRACK_NETWORK] = 5,  /* nic, rx/tx bytes, rx/tx packets */
};

int
logfmt_track_kind_ncols (uint32_t kind)
{
  if (kind == 0 || kind > LOGFMT_TRACK_KIND_MAX || kind_ncols[kind] == 0)
    return LOGFMT_ENOENT;
  return kind_ncols[kind];
}

int
logfmt__trackref_cmp (const void *a, const void *b)
{
  const logfmt__trackref_t *x = a, *y = b;
  if (x->stream != y->stream)
    return x->stream < y->stream ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  if (x->level != y->level)
    return x->level < y->level ? -1 : 1;
  return (x->t_first > y->t_first) - (x->t_first < y->t_first);
}

int
logfmt__track_encode (ZSTD_CCtx *cctx, const logfmt__trackref_t *h,
                      const logfmt_track_rec_t *recs, uint32_t n,
                      uint8_t **out, size_t *cap, size_t *len)
{
  if (n == 0 || n > LOGFMT__TRACK_MAX_RECS || h->ncols == 0
      || h->ncols > LOGFMT_TRACK_MAX_COLS)
    return LOGFMT_EINVAL;
  /* Raw columns first (worst case 10 bytes a value), then the chunk
   * after them in the same buffer. */
  size_t rawmax = (size_t) n * (1 + h->ncols) * 10;
  size_t bound = ZSTD_compressBound (rawmax);
  size_t pre = LOGFMT__CHUNK_HDR + LOGFMT__TRACK_HDR;
  int rc = logfmt__reserve ((void **) out, cap,
                            rawmax + pre + bound + LOGFMT__CHUNK_CRC, 1,
                            4096);
  if (rc)
    return rc;
  uint8_t *raw = *out, *q = raw;
  uint64_t prev = recs[0].time;
  for (uint32_t i = 0; i < n; i++)
    {
      if (recs[i].time < prev)
        return LOGFMT_EINVAL;
      q = put_uv (q, recs[i].time - prev);
      prev = recs[i].time;
    }
  for (unsigned c = 0; c < h->ncols; c++)
    {
      int64_t pv = 0;
      for (uint32_t i = 0; i < n; i++)
        {
          /* Wrapping difference: any int64 pair round-trips. */
          q = put_uv (q, zz64 ((int64_t) ((uint64_t) recs[i].col[c]
                                          - (uint64_t) pv)));
          pv = recs[i].col[c];
        }
    }
  size_t rawlen = (size_t) (q - raw);
  uint8_t *o = raw + rawmax;
  size_t clen = ZSTD_compressCCtx (cctx, o + pre, bound, raw, rawlen, 1);
  if (ZSTD_isError (clen))
    return LOGFMT_EZSTD;
  uint8_t codec = LOGFMT__CODEC_ZSTD;
  if (clen >= rawlen)
    {
      memcpy (o + pre, raw, rawlen);
      clen = rawlen;
      codec = LOGFMT__CODEC_RAW;
    }
  uint64_t plen = LOGFMT__TRACK_HDR + clen;
  st32 (o, LOGFMT__CHUNK_TRACK);
  st32 (o + 4, 0);
  st64 (o + 8, plen);
  uint8_t *b = o + LOGFMT__CHUNK_HDR;
  memset (b, 0, LOGFMT__TRACK_HDR);
  st32 (b, h->stream);
  st32 (b + 4, ~h->stream);
  st32 (b + 8, h->kind);
  st16 (b + 12, h->level);
  st16 (b + 14, h->ncols);
  st64 (b + 16, recs[0].time);
  st64 (b + 24, recs[n - 1].time);
  st64 (b + 32, h->bin_ns);
  st32 (b + 40, n);
  st32 (b + 44, (uint32_t) rawlen);
  b[48] = codec;
  st32 (b + plen, logfmt__chunk_crc (o, b, plen, LOGFMT__TRACK_CRC_SKIP));
  *len = LOGFMT__CHUNK_HDR + plen + LOGFMT__CHUNK_CRC;
  /* The caller gets the chunk at the start of its buffer. */
  memmove (raw, o, *len);
  return 0;
}

#define BAD(...) logfmt__err (err, LOGFMT_ECORRUPT, file, off, __VA_ARGS__)

int
logfmt__track_parse (const uint8_t *p, uint64_t len, logfmt__track_hdr_t *h,
                     const char *file, uint64_t off, logfmt_error_t *err)
{
  if (len < LOGFMT__TRACK_HDR)
    return BAD ("track chunk payload of %llu bytes is shorter than its "
                "%d-byte header", (unsigned long long) len,
                LOGFMT__TRACK_HDR);
  memset (h, 0, sizeof *h);
  h->ref.stream = ld32 (p);
  if (ld32 (p + 4) != ~h->ref.stream)
    return BAD ("track stream id %u fails its check word", h->ref.stream);
  h->ref.kind = ld32 (p + 8);
  h->ref.level = ld16 (p + 12);
  h->ref.ncols = ld16 (p + 14);
  h->ref.t_first = ld64 (p + 16);
  h->ref.t_last = ld64 (p + 24);
  h->ref.bin_ns = ld64 (p + 32);
  h->ref.count = ld32 (p + 40);
  h->raw_size = ld32 (p + 44);
  h->codec = p[48];
  h->body = p + LOGFMT__TRACK_HDR;
  h->body_len = (size_t) (len - LOGFMT__TRACK_HDR);
  if (h->ref.kind == 0 || h->ref.kind > LOGFMT_TRACK_KIND_MAX)
    return BAD ("track kind %u out of range", h->ref.kind);
  if (h->ref.ncols == 0 || h->ref.ncols > LOGFMT_TRACK_MAX_COLS)
    return BAD ("track column count %u out of range", h->ref.ncols);
  if (h->ref.t_last < h->ref.t_first)
    return BAD ("track time range [%llu, %llu] is reversed",
                (unsigned long long) h->ref.t_first,
                (unsigned long long) h->ref.t_last);
  if (h->ref.count == 0 || h->ref.count > LOGFMT__TRACK_MAX_RECS)
    return BAD ("track record count %u out of range", h->ref.count);
  if ((h->ref.level == 0) != (h->ref.bin_ns == 0))
    return BAD ("track level %u with bin width %llu", h->ref.level,
                (unsigned long long) h->ref.bin_ns);
  uint64_t vals = (uint64_t) h->ref.count * (1u + h->ref.ncols);
  if (h->raw_size < vals || h->raw_size > vals * 10)
    return BAD ("track raw size %u impossible for %u records of %u "
                "columns", h->raw_size, h->ref.count, h->ref.ncols);
  if (h->codec != LOGFMT__CODEC_ZSTD && h->codec != LOGFMT__CODEC_RAW)
    return BAD ("unknown track codec %u", h->codec);
  if (h->codec == LOGFMT__CODEC_RAW && h->body_len != h->raw_size)
    return BAD ("stored track of %zu bytes, header says %u", h->body_len,
                h->raw_size);
  for (int i = 49; i < LOGFMT__TRACK_HDR; i++)
    if (p[i])
      return BAD ("reserved track header byte %d is not zero", i);
  return 0;
}

int
logfmt__track_decode (ZSTD_DCtx *dctx, const logfmt__track_hdr_t *h,
                      uint8_t **buf, size_t *cap, logfmt_track_rec_t *out,
                      const char *file, uint64_t off, logfmt_error_t *err)
{
  const uint8_t *raw = h->body;
  if (h->codec == LOGFMT__CODEC_ZSTD)
    {
      if (logfmt__reserve ((void **) buf, cap, h->raw_size, 1, 4096))
        return logfmt__err (err, LOGFMT_ENOMEM, file, off, "no memory");
      size_t got = ZSTD_decompressDCtx (dctx, *buf, h->raw_size, h->body,
                                        h->body_len);
      if (ZSTD_isError (got))
        return BAD ("track body does not decompress: %s",
                    ZSTD_getErrorName (got));
      if (got != h->raw_size)
        return BAD ("track body decompresses to %zu bytes, header says %u",
                    got, h->raw_size);
      raw = *buf;
    }
  const uint8_t *q = raw, *end = raw + h->raw_size;
  uint32_t n = h->ref.count;
  uint64_t t = h->ref.t_first;
  for (uint32_t i = 0; i < n; i++)
    {
      uint64_t d;
      if (!get_uv (&q, end, &d))
        return BAD ("track time column is cut short at record %u", i);
      if (d > h->ref.t_last - t)
        return BAD ("track record %u lies after the chunk's last time", i);
      t += d;
      out[i].time = t;
    }
  if (t != h->ref.t_last)
    return BAD ("track's last record time %llu differs from its header's "
                "%llu", (unsigned long long) t,
                (unsigned long long) h->ref.t_last);
  for (unsigned c = 0; c < LOGFMT_TRACK_MAX_COLS; c++)
    {
      if (c >= h->ref.ncols)
        {
          for (uint32_t i = 0; i < n; i++)
            out[i].col[c] = 0;
          continue;
        }
      uint64_t v = 0;
      for (uint32_t i = 0; i < n; i++)
        {
          uint64_t d;
          if (!get_uv (&q, end, &d))
            return BAD ("track column %u is cut short at record %u", c, i);
          v += (uint64_t) unzz64 (d);
          out[i].col[c] = (int64_t) v;
        }
    }
  if (q != end)
    return BAD ("%zu bytes left over after the track's columns",
                (size_t) (end - q));
  return 0;
}

int
logfmt__trackdir_parse (const uint8_t *p, uint64_t len, uint64_t file_size,
                        logfmt__trackref_t **out, size_t *nout,
                        const char *file, uint64_t off, logfmt_error_t *err)
{
  *out = NULL;
  *nout = 0;
  if (len < LOGFMT__TRACKDIR_HDR)
    return BAD ("track directory of %llu bytes is too short",
                (unsigned long long) len);
  uint32_t n = ld32 (p);
  if (ld32 (p + 4) != 0)
    return BAD ("reserved track directory word is not zero");
  if ((uint64_t) n * LOGFMT__TRACKDIR_ENTRY != len - LOGFMT__TRACKDIR_HDR)
    return BAD ("track directory of %llu bytes cannot hold %u entries",
                (unsigned long long) len, n);
  logfmt__trackref_t *v = calloc ((size_t) n + 1, sizeof *v);
  if (!v)
    return logfmt__err (err, LOGFMT_ENOMEM, file, off, "no memory");
  const uint8_t *e = p + LOGFMT__TRACKDIR_HDR;
  for (uint32_t i = 0; i < n; i++, e += LOGFMT__TRACKDIR_ENTRY)
    {
      logfmt__trackref_t *t = &v[i];
      t->offset = ld64 (e);
      t->stream = ld32 (e + 8);
      t->kind = ld32 (e + 12);
      t->level = ld16 (e + 16);
      t->ncols = ld16 (e + 18);
      t->count = ld32 (e + 20);
      t->t_first = ld64 (e + 24);
      t->t_last = ld64 (e + 32);
      t->bin_ns = ld64 (e + 40);
      const char *why = NULL;
      if (t->offset >= file_size)
        why = "points outside the file";
      else if (t->kind == 0 || t->kind > LOGFMT_TRACK_KIND_MAX
               || t->ncols == 0 || t->ncols > LOGFMT_TRACK_MAX_COLS)
        why = "has an impossible kind or column count";
      else if (t->count == 0 || t->count > LOGFMT__TRACK_MAX_RECS
               || t->t_last < t->t_first)
        why = "has an impossible count or time range";
      else if (i > 0 && logfmt__trackref_cmp (&v[i - 1], t) > 0)
        why = "is out of order";
      else if (i > 0 && v[i - 1].stream == t->stream
               && v[i - 1].kind == t->kind && v[i - 1].level == t->level
               && v[i - 1].t_last > t->t_first)
        why = "overlaps the previous chunk of its track";
      if (why)
        {
          free (v);
          return BAD ("track directory entry %u %s", i, why);
        }
    }
  *out = v;
  *nout = n;
  return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Block encoder and decoder.  A block holds one stream's records as
 * columns (time deltas, type bytes, ids, message fields, cargo); FORMAT.md
 * section 5 has the layout.  The encoder writes codec 2: each column
 * compressed on its own (zstd gives each its own entropy tables), and
 * time deltas less a per-slot base (the smallest delta before a record of
 * that event id or type in the block: an END follows its BEGIN by at
 * least the state's shortest duration) split into a symbol byte and
 * extra bytes.  The decoder also reads codecs 0 and 1 (format 1.0).
 */
#include "config.h"
#include "logfmt-internal.h"

#include <stdlib.h>
#include <zstd.h>

struct logfmt_encoder
{
  logfmt_encoder_opts_t opts;
  logfmt_block_cb cb;
  void *user;
  ZSTD_CCtx *cctx;
  bool own_cctx;                /* not a writer's shared one */
  /* columns: deltas (u64), slots (u16), types, ids, messages, cargo */
  logfmt__bytes_t dcol, scol, tycol, icol, mcol, ccol;
  logfmt__bytes_t sec[3];       /* sealing: bases, tsym, text */
  logfmt__bytes_t out, joint;   /* the chunk: codec 2, codec 1 */
  uint64_t base[LOGFMT__TIME_SLOTS];   /* smallest delta per slot */
  uint32_t count;
  uint64_t t_first, t_prev, lost;
  bool have_prev;
  uint64_t fixed;
};

int
logfmt_encoder_new (const logfmt_encoder_opts_t *opts, logfmt_block_cb cb,
                    void *user, logfmt_encoder_t **out)
{
  return logfmt__encoder_new_shared (opts, cb, user, NULL, out);
}

int
logfmt__encoder_new_shared (const logfmt_encoder_opts_t *opts,
                            logfmt_block_cb cb, void *user, ZSTD_CCtx *cctx,
                            logfmt_encoder_t **out)
{
  if (!opts || !cb || !out)
    return LOGFMT_EINVAL;
  logfmt_encoder_t *e = calloc (1, sizeof *e);
  if (!e)
    return LOGFMT_ENOMEM;
  size_t sz = opts->size < sizeof e->opts ? opts->size : sizeof e->opts;
  memcpy (&e->opts, opts, sz);
  if (e->opts.block_events == 0)
    e->opts.block_events = 65536;
  if (e->opts.block_events > LOGFMT__MAX_BLOCK_EVENTS)
    e->opts.block_events = LOGFMT__MAX_BLOCK_EVENTS;
  if (e->opts.zstd_level == 0)
    e->opts.zstd_level = 1;
  e->cb = cb;
  e->user = user;
  memset (e->base, 0xff, sizeof e->base);
  e->own_cctx = cctx == NULL;
  e->cctx = cctx ? cctx : ZSTD_createCCtx ();
  if (!e->cctx)
    {
      free (e);
      return LOGFMT_ENOMEM;
    }
  *out = e;
  return 0;
}

void
logfmt_encoder_free (logfmt_encoder_t *e)
{
  if (!e)
    return;
  if (e->own_cctx)
    ZSTD_freeCCtx (e->cctx);
  free (e->dcol.p);
  free (e->scol.p);
  free (e->tycol.p);
  free (e->icol.p);
  free (e->mcol.p);
  free (e->ccol.p);
  for (int i = 0; i < 3; i++)
    free (e->sec[i].p);
  free (e->out.p);
  free (e->joint.p);
  free (e);
}

uint64_t
logfmt_encoder_fixed_times (const logfmt_encoder_t *e)
{
  return e ? e->fixed : 0;
}

uint32_t logfmt__split_try_joint = 4096;

/* The time slot of a record: its event id's low byte, or its type. */
static inline uint32_t
time_slot (uint8_t type, int32_t id)
{
  return type == LOGFMT_REC_EVENT ? (uint32_t) id & 0xffu
                                  : 256u + type - LOGFMT_REC_SEND;
}

/* Builds the bases, tsym and text sections from the pending deltas. */
static int
build_time_sections (logfmt_encoder_t *e)
{
  logfmt__bytes_t *bs = &e->sec[0], *sy = &e->sec[1], *tx = &e->sec[2];
  bs->len = sy->len = tx->len = 0;
  int rc;
  if ((rc = logfmt__bytes_reserve (bs, LOGFMT__MAX_BASES_RAW))
      || (rc = logfmt__bytes_reserve (sy, e->count))
      || (rc = logfmt__bytes_reserve (tx, (size_t) e->count * 10)))
    return rc;
  uint8_t *p = bs->p;
  for (uint32_t k = 0; k < LOGFMT__TIME_SLOTS; k++)
    if (e->base[k] != UINT64_MAX)
      {
        p = put_uv (p, k);
        p = put_uv (p, e->base[k]);
      }
  bs->len = (size_t) (p - bs->p);
  const uint64_t *d = (const uint64_t *) (void *) e->dcol.p;
  const uint16_t *sl = (const uint16_t *) (void *) e->scol.p;
  uint8_t *s = sy->p, *x = tx->p;
  for (uint32_t i = 0; i < e->count; i++)
    {
      uint64_t r = d[i] - e->base[sl[i]];
      if (r < LOGFMT__TIME_DIRECT)
        *s++ = (uint8_t) r;
      else if ((r - LOGFMT__TIME_DIRECT) >> 8 < 255 - LOGFMT__TIME_DIRECT)
        {
          r -= LOGFMT__TIME_DIRECT;
          *s++ = (uint8_t) (LOGFMT__TIME_DIRECT + (r >> 8));
          *x++ = (uint8_t) r;
        }
      else
        {
          *s++ = 255;
          x = put_uv (x, r);
        }
    }
  sy->len = (size_t) (s - sy->p);
  tx->len = (size_t) (x - tx->p);
  memset (e->base, 0xff, sizeof e->base);
  return 0;
}

/* A section stays compressed only when zstd saves at least 1/this of
 * it: below that, inflating it costs the scan more time than the bytes
 * are worth (the synthetic log's tsym: 10% saved for 0.7 ns an event,
 * 8% of a full scan). */
#define SPLIT_MIN_SAVING 8

/* Codec 2 body into o (room for it reserved by the caller): each section
 * as u32 raw length, u32 stored length, then a zstd frame, or the bytes
 * themselves when zstd does not shrink them by SPLIT_MIN_SAVING.  Returns
 * the body length or 0 on a zstd error; *rawlen gets the sum of the raw
 * lengths. */
static size_t
pack_split (logfmt_encoder_t *e, const logfmt__bytes_t *const *sec,
            uint8_t *o, size_t *rawlen)
{
  uint8_t *q = o;
  *rawlen = 0;
  for (int i = 0; i < LOGFMT__SPLIT_SECTIONS; i++)
    {
      size_t n = sec[i]->len, clen = 0;
      if (n > 0)
        {
          clen = ZSTD_compressCCtx (e->cctx, q + 8, ZSTD_compressBound (n),
                                    sec[i]->p, n, e->opts.zstd_level);
          if (ZSTD_isError (clen))
            return 0;
          if (clen >= n - n / SPLIT_MIN_SAVING)
            {
              memcpy (q + 8, sec[i]->p, n);
              clen = n;
            }
        }
      st32 (q, (uint32_t) n);
      st32 (q + 4, (uint32_t) clen);
      q += 8 + clen;
      *rawlen += n;
    }
  return (size_t) (q - o);
}

/* Codec 1 (or 0) body into e->joint at offset pre: the format 1.0 raw
 * area, times as varint deltas, compressed as one frame. */
static int
pack_joint (logfmt_encoder_t *e, size_t pre, size_t *body, size_t *rawlen,
            uint8_t *codec)
{
  logfmt__bytes_t *t = &e->sec[1], *raw = &e->sec[2];   /* free again by now */
  const uint64_t *d = (const uint64_t *) (void *) e->dcol.p;
  t->len = raw->len = 0;
  int rc = logfmt__bytes_reserve (t, (size_t) e->count * 10);
  if (rc)
    return rc;
  uint8_t *p = t->p;
  for (uint32_t i = 0; i < e->count; i++)
    p = put_uv (p, d[i]);
  t->len = (size_t) (p - t->p);
  size_t n = 4 * LOGFMT__RAW_COLS + t->len + e->tycol.len + e->icol.len
             + e->mcol.len + e->ccol.len;
  if ((rc = logfmt__bytes_reserve (raw, n)))
    return rc;
  uint8_t *r = raw->p;
  st32 (r, (uint32_t) t->len);
  st32 (r + 4, (uint32_t) e->icol.len);
  st32 (r + 8, (uint32_t) e->mcol.len);
  st32 (r + 12, (uint32_t) e->ccol.len);
  r += 16;
  const logfmt__bytes_t *cols[] = { t, &e->tycol, &e->icol, &e->mcol,
                                    &e->ccol };
  for (int i = 0; i < 5; i++)
    {
      memcpy (r, cols[i]->p, cols[i]->len);
      r += cols[i]->len;
    }
  size_t bound = ZSTD_compressBound (n);
  e->joint.len = 0;
  if ((rc = logfmt__bytes_reserve (&e->joint,
                                   pre + bound + LOGFMT__CHUNK_CRC)))
    return rc;
  size_t clen = ZSTD_compressCCtx (e->cctx, e->joint.p + pre, bound,
                                   raw->p, n, e->opts.zstd_level);
  if (ZSTD_isError (clen))
    return LOGFMT_EZSTD;
  *codec = LOGFMT__CODEC_ZSTD;
  if (clen >= n)
    {
      memcpy (e->joint.p + pre, raw->p, n);
      clen = n;
      *codec = LOGFMT__CODEC_RAW;
    }
  *body = clen;
  *rawlen = n;
  return 0;
}

/* Builds the chunk for the pending records and hands it to the callback:
 * codec 2, or for a small block whichever of codecs 2 and 1 is smaller
 * (codec 2's per-section headers and tables cost more than they save on
 * a few hundred records). */
static int
seal (logfmt_encoder_t *e)
{
  if (e->count == 0)
    return 0;
  int rc = build_time_sections (e);
  if (rc)
    return rc;
  const logfmt__bytes_t *sec[LOGFMT__SPLIT_SECTIONS] = {
    &e->sec[0], &e->sec[1], &e->sec[2], &e->tycol, &e->icol, &e->mcol,
    &e->ccol,
  };
  size_t bound = 0;
  for (int i = 0; i < LOGFMT__SPLIT_SECTIONS; i++)
    bound += 8 + ZSTD_compressBound (sec[i]->len);
  size_t pre = LOGFMT__CHUNK_HDR + LOGFMT__BLOCK_HDR;
  e->out.len = 0;
  rc = logfmt__bytes_reserve (&e->out, pre + bound + LOGFMT__CHUNK_CRC);
  if (rc)
    return rc;
  size_t rawlen, body = pack_split (e, sec, e->out.p + pre, &rawlen);
  if (body == 0)
    return LOGFMT_EZSTD;
  uint8_t *o = e->out.p;
  uint8_t codec = LOGFMT__CODEC_SPLIT;
  if (e->count < logfmt__split_try_joint)
    {
      size_t jbody, jraw;
      uint8_t jcodec;
      rc = pack_joint (e, pre, &jbody, &jraw, &jcodec);
      if (rc)
        return rc;
      if (jbody < body)
        {
          o = e->joint.p;
          body = jbody;
          rawlen = jraw;
          codec = jcodec;
        }
    }
  uint64_t plen = LOGFMT__BLOCK_HDR + body;
  st32 (o, LOGFMT__CHUNK_BLOCK);
  st32 (o + 4, 0);
  st64 (o + 8, plen);
  uint8_t *b = o + LOGFMT__CHUNK_HDR;
  memset (b, 0, LOGFMT__BLOCK_HDR);
  st32 (b, e->opts.stream);
  st32 (b + 4, ~e->opts.stream);
  st64 (b + 8, e->t_first);
  st64 (b + 16, e->t_prev);
  st32 (b + 24, e->count);
  st32 (b + 28, (uint32_t) rawlen);
  b[32] = codec;
  st64 (b + 40, e->lost);
  uint32_t crc = logfmt__chunk_crc (o, b, plen, LOGFMT__BLOCK_CRC_SKIP);
  st32 (b + plen, crc);

  logfmt_block_info_t info = {
    .stream = e->opts.stream, .t_first = e->t_first, .t_last = e->t_prev,
    .count = e->count, .raw_size = (uint32_t) rawlen,
  };
  size_t total = LOGFMT__CHUNK_HDR + plen + LOGFMT__CHUNK_CRC;
  e->count = 0;
  e->lost = 0;
  e->dcol.len = e->scol.len = e->tycol.len = e->icol.len = e->mcol.len
    = e->ccol.len = 0;
  return e->cb (e->user, o, total, &info);
}

int
logfmt_encoder_add (logfmt_encoder_t *e, const logfmt_event_t *ev, size_t n)
{
  if (!e || (!ev && n))
    return LOGFMT_EINVAL;
  while (n > 0)
    {
      /* Reserve for a whole batch up to the block end, then fill without
       * checks. */
      size_t room = e->opts.block_events - e->count;
      size_t k = n < room ? n : room;
      int rc;
      if ((rc = logfmt__bytes_reserve (&e->dcol, k * sizeof (uint64_t)))
          || (rc = logfmt__bytes_reserve (&e->scol, k * sizeof (uint16_t)))
          || (rc = logfmt__bytes_reserve (&e->tycol, k))
          || (rc = logfmt__bytes_reserve (&e->icol, k * 5))
          || (rc = logfmt__bytes_reserve (&e->mcol, k * 25))
          || (rc = logfmt__bytes_reserve (&e->ccol, k * LOGFMT_CARGO_SIZE)))
        return rc;
      uint64_t *dp = (uint64_t *) (void *) (e->dcol.p + e->dcol.len);
      uint16_t *sp = (uint16_t *) (void *) (e->scol.p + e->scol.len);
      uint8_t *ty = e->tycol.p + e->tycol.len;
      uint8_t *ip = e->icol.p + e->icol.len;
      uint8_t *mp = e->mcol.p + e->mcol.len;
      uint8_t *cp = e->ccol.p + e->ccol.len;
      uint64_t prev = e->t_prev;
      if (e->count == 0)
        {
          uint64_t t0 = ev[0].time;
          if (e->have_prev && t0 < prev)
            t0 = prev;
          e->t_first = t0;
          prev = t0;
        }
      for (size_t i = 0; i < k; i++)
        {
          const logfmt_event_t *x = &ev[i];
          uint64_t t = x->time;
          if (LOGFMT_UNLIKELY (t < prev))
            {
              t = prev;
              e->fixed++;
            }
          uint64_t d = t - prev;
          prev = t;
          uint8_t type = x->type;
          if (LOGFMT_UNLIKELY (type < LOGFMT_REC_EVENT
                               || type > LOGFMT_REC_LOSS))
            type = LOGFMT_REC_EVENT;
          uint32_t slot = time_slot (type, x->id);
          *dp++ = d;
          *sp++ = (uint16_t) slot;
          if (d < e->base[slot])
            e->base[slot] = d;
          uint8_t tb = type;
          switch (type)
            {
            case LOGFMT_REC_EVENT:
              ip = put_uv (ip, zz64 (x->id));
              break;
            case LOGFMT_REC_SEND:
            case LOGFMT_REC_RECV:
              mp = put_uv (mp, zz64 (x->partner));
              mp = put_uv (mp, zz64 (x->tag));
              mp = put_uv (mp, x->comm);
              mp = put_uv (mp, x->size);
              break;
            default:
              mp = put_uv (mp, x->size);
              e->lost += x->size;
              break;
            }
          if (x->flags & LOGFMT_EVF_CARGO)
            {
              tb |= LOGFMT__TB_CARGO;
              memcpy (cp, x->cargo, LOGFMT_CARGO_SIZE);
              cp += LOGFMT_CARGO_SIZE;
            }
          *ty++ = tb;
        }
      e->t_prev = prev;
      e->have_prev = true;
      e->dcol.len += k * sizeof (uint64_t);
      e->scol.len += k * sizeof (uint16_t);
      e->tycol.len = (size_t) (ty - e->tycol.p);
      e->icol.len = (size_t) (ip - e->icol.p);
      e->mcol.len = (size_t) (mp - e->mcol.p);
      e->ccol.len = (size_t) (cp - e->ccol.p);
      e->count += (uint32_t) k;
      ev += k;
      n -= k;
      if (e->count >= e->opts.block_events)
        {
          rc = seal (e);
          if (rc)
            return rc;
        }
    }
  return 0;
}

int
logfmt_encoder_flush (logfmt_encoder_t *e)
{
  if (!e)
    return LOGFMT_EINVAL;
  return seal (e);
}

/* ---- Decoding -------------------------------------------------------- */

int
logfmt__block_parse (const uint8_t *p, uint64_t len, logfmt__block_hdr_t *h,
                     const char *file, uint64_t off, logfmt_error_t *err)
{
  if (len < LOGFMT__BLOCK_HDR)
    return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                        "block payload of %llu bytes is shorter than its "
                        "%d-byte header", (unsigned long long) len,
                        LOGFMT__BLOCK_HDR);
  h->stream = ld32 (p);
  if (ld32 (p + 4) != ~h->stream)
    return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                        "block stream id %u fails its check word",
                        h->stream);
  h->t_first = ld64 (p + 8);
  h->t_last = ld64 (p + 16);
  h->count = ld32 (p + 24);
  h->raw_size = ld32 (p + 28);
  h->codec = p[32];
  h->lost = ld64 (p + 40);
  h->body = p + LOGFMT__BLOCK_HDR;
  h->body_len = (size_t) (len - LOGFMT__BLOCK_HDR);
  if (h->t_last < h->t_first)
    return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                        "block time range [%llu, %llu] is reversed",
                        (unsigned long long) h->t_first,
                        (unsigned long long) h->t_last);
  if (h->count == 0 || h->count > LOGFMT__MAX_BLOCK_EVENTS)
    return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                        "block event count %u out of range", h->count);
  if (h->codec != LOGFMT__CODEC_ZSTD && h->codec != LOGFMT__CODEC_RAW
      && h->codec != LOGFMT__CODEC_SPLIT)
    return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                        "unknown block codec %u", h->codec);
  /* Codecs 0 and 1 have four length words in the raw area; codec 2 has
   * the bases section instead. */
  uint64_t lo = 4 * LOGFMT__RAW_COLS, hi = 4 * LOGFMT__RAW_COLS;
  if (h->codec == LOGFMT__CODEC_SPLIT)
    lo = 0, hi = LOGFMT__MAX_BASES_RAW;
  if (h->raw_size < lo + 2 * (uint64_t) h->count
      || h->raw_size > (uint64_t) h->count * LOGFMT__MAX_REC_RAW + hi)
    return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                        "block raw size %u impossible for %u events",
                        h->raw_size, h->count);
  if (h->codec == LOGFMT__CODEC_RAW && h->body_len != h->raw_size)
    return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                        "stored block of %zu bytes, header says %u",
                        h->body_len, h->raw_size);
  for (int i = 33; i < 40; i++)
    if (p[i])
      return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                          "reserved block header byte %d is not zero", i);
  return 0;
}

/* Codec 2: the sections one after the other in *buf, after a word with
 * each one's length (the raw area logfmt__cols_init reads). */
static int
inflate_split (ZSTD_DCtx *dctx, const logfmt__block_hdr_t *h, uint8_t *out,
               const char *file, uint64_t off, logfmt_error_t *err)
{
  const uint8_t *p = h->body, *end = h->body + h->body_len;
  uint8_t *q = out + 4 * LOGFMT__SPLIT_SECTIONS;
  uint64_t left = h->raw_size;
  for (int i = 0; i < LOGFMT__SPLIT_SECTIONS; i++)
    {
      if (end - p < 8)
        return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                            "block section %d header runs past the block",
                            i);
      uint32_t n = ld32 (p), clen = ld32 (p + 4);
      p += 8;
      if (n > left || clen > (uint64_t) (end - p) || clen > n
          || (n > 0 && clen == 0))
        return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                            "block section %d: %u bytes stored as %u, "
                            "%llu of the raw size and %zu of the block "
                            "left", i, n, clen, (unsigned long long) left,
                            (size_t) (end - p));
      if (clen == n)
        memcpy (q, p, n);
      else
        {
          size_t got = ZSTD_decompressDCtx (dctx, q, n, p, clen);
          if (ZSTD_isError (got))
            return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                                "block section %d does not decompress: %s",
                                i, ZSTD_getErrorName (got));
          if (got != n)
            return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                                "block section %d decompressed to %zu "
                                "bytes, its header says %u", i, got, n);
        }
      st32 (out + 4 * i, n);
      p += clen;
      q += n;
      left -= n;
    }
  if (left != 0 || p != end)
    return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                        "block sections do not add up to its raw size and "
                        "length");
  return 0;
}

int
logfmt__block_inflate (ZSTD_DCtx *dctx, const logfmt__block_hdr_t *h,
                       uint8_t **buf, size_t *cap, const uint8_t **raw,
                       const char *file, uint64_t off, logfmt_error_t *err)
{
  /* The decoder reads a few bytes past a column without checking, so the
   * columns always sit in our buffer, followed by zeroed slack. */
  size_t words = h->codec == LOGFMT__CODEC_SPLIT
                   ? 4 * LOGFMT__SPLIT_SECTIONS : 0;
  size_t need = words + (size_t) h->raw_size + LOGFMT__RAW_SLACK;
  if (*cap < need)
    {
      uint8_t *p = realloc (*buf, need);
      if (!p)
        return logfmt__err (err, LOGFMT_ENOMEM, file, off,
                            "cannot allocate %zu bytes", need);
      *buf = p;
      *cap = need;
    }
  if (h->codec == LOGFMT__CODEC_SPLIT)
    {
      int rc = inflate_split (dctx, h, *buf, file, off, err);
      if (rc)
        return rc;
    }
  else if (h->codec == LOGFMT__CODEC_RAW)
    memcpy (*buf, h->body, h->raw_size);
  else
    {
      size_t got = ZSTD_decompressDCtx (dctx, *buf, h->raw_size, h->body,
                                        h->body_len);
      if (ZSTD_isError (got))
        return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                            "block does not decompress: %s",
                            ZSTD_getErrorName (got));
      if (got != h->raw_size)
        return logfmt__err (err, LOGFMT_ECORRUPT, file, off,
                            "block decompressed to %zu bytes, header says %u",
                            got, h->raw_size);
    }
  memset (*buf + words + h->raw_size, 0, LOGFMT__RAW_SLACK);
  *raw = *buf;
  return 0;
}

/* Codec 2's raw area: the length words, then bases, tsym, text, types,
 * ids, msg, cargo. */
static int
cols_init_split (logfmt__cols_t *c, const uint8_t *raw, size_t len,
                 uint32_t count)
{
  uint64_t n[LOGFMT__SPLIT_SECTIONS], sum = 0;
  for (int i = 0; i < LOGFMT__SPLIT_SECTIONS; i++)
    sum += n[i] = ld32 (raw + 4 * i);
  if (sum != len || n[1] != count || n[3] != count)
    return LOGFMT_ECORRUPT;
  const uint8_t *p = raw + 4 * LOGFMT__SPLIT_SECTIONS;
  /* Bases: (varint slot, varint base) pairs, slots ascending. */
  const uint8_t *bend = p + n[0];
  memset (c->base, 0, sizeof c->base);
  uint64_t next = 0;
  while (p < bend)
    {
      uint64_t k, v;
      if (!get_uv (&p, bend, &k) || k < next || k >= LOGFMT__TIME_SLOTS
          || !get_uv (&p, bend, &v))
        return LOGFMT_ECORRUPT;
      c->base[k] = v;
      next = k + 1;
    }
  c->tp = p;
  c->tend = p += n[1];
  c->xp = p;
  c->xend = p += n[2];
  c->ty = p;
  c->tyend = p += n[3];
  c->ip = p;
  c->iend = p += n[4];
  c->mp = p;
  c->mend = p += n[5];
  c->cp = p;
  c->cend = p + n[6];
  c->split = true;
  return 0;
}

int
logfmt__cols_init (logfmt__cols_t *c, const uint8_t *raw, size_t len,
                   uint32_t count, uint64_t t_first, uint8_t codec)
{
  c->time = t_first;
  c->left = count;
  if (codec == LOGFMT__CODEC_SPLIT)
    return cols_init_split (c, raw, len, count);
  c->split = false;
  c->xp = c->xend = NULL;
  if (len < 4 * LOGFMT__RAW_COLS)
    return LOGFMT_ECORRUPT;
  uint64_t lt = ld32 (raw), li = ld32 (raw + 4), lm = ld32 (raw + 8),
           lc = ld32 (raw + 12);
  if (16 + lt + count + li + lm + lc != len)
    return LOGFMT_ECORRUPT;
  const uint8_t *p = raw + 16;
  c->tp = p;
  c->tend = p += lt;
  c->ty = p;
  c->tyend = p += count;
  c->ip = p;
  c->iend = p += li;
  c->mp = p;
  c->mend = p += lm;
  c->cp = p;
  c->cend = p + lc;
  return 0;
}

/* Varint with the one- and two-byte cases inline (time deltas and ids are
 * almost always that short).  May read one byte past end, which the
 * slack allows; the caller rejects *pp > end. */
static inline __attribute__ ((always_inline)) bool
get_uv_fast (const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
  const uint8_t *p = *pp;
  uint8_t b0 = p[0];
  if (LOGFMT_LIKELY (b0 < 0x80))
    {
      *out = b0;
      *pp = p + 1;
      return true;
    }
  uint8_t b1 = p[1];
  if (b1 < 0x80)
    {
      *out = (uint64_t) (b0 & 0x7f) | ((uint64_t) b1 << 7);
      *pp = p + 2;
      return true;
    }
  return get_uv (pp, end, out);
}

/* Codec 2: a record's time residual from the tsym and text sections.  A
 * symbol below LOGFMT__TIME_DIRECT is the residual, up to 254 takes one
 * extra byte (without a branch: the two mix unpredictably), 255 a varint.
 * The extra bytes are checked once per run of records (*xpp > xend): the
 * types section follows them and is longer than a run, so a bad block
 * cannot make this read outside the area first. */
static inline __attribute__ ((always_inline)) uint64_t
split_residual (const uint8_t **tpp, const uint8_t **xpp,
                const uint8_t *xend, bool *bad)
{
  uint32_t sym = *(*tpp)++;
  uint64_t r = 0;
  if (LOGFMT_UNLIKELY (sym == 255))
    {
      if (!get_uv (xpp, xend, &r))
        *bad = true;
      return r;
    }
  /* A mask, not a conditional: compilers turn that into a branch. */
  const uint8_t *xp = *xpp;
  uint32_t big = (sym + (256 - LOGFMT__TIME_DIRECT)) >> 8;
  uint32_t mask = 0u - big;
  uint32_t wide = LOGFMT__TIME_DIRECT
                  + (((sym - LOGFMT__TIME_DIRECT) << 8) | xp[0]);
  *xpp = xp + big;
  return (wide & mask) | (sym & ~mask);
}

/* An EVENT record's fields but time and cargo (flags 0: the caller sets
 * the cargo flag), as four wide stores rather than nine narrow ones: the
 * decoding loop is bound by its stores. */
static inline __attribute__ ((always_inline)) void
put_event_fields (logfmt_event_t *ev, uint8_t kind, int32_t id,
                  int32_t state)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  _Static_assert (offsetof (logfmt_event_t, type) == 8
                  && offsetof (logfmt_event_t, kind) == 9
                  && offsetof (logfmt_event_t, flags) == 10
                  && offsetof (logfmt_event_t, id) == 12
                  && offsetof (logfmt_event_t, state) == 16
                  && offsetof (logfmt_event_t, partner) == 20
                  && offsetof (logfmt_event_t, cargo) == 40,
                  "put_event_fields assumes this layout");
  /* Each word its own store: a wider copy from a local array goes
   * through the stack, and its load stalls on the narrower stores. */
  uint64_t head = LOGFMT_REC_EVENT | (uint64_t) kind << 8
                  | (uint64_t) (uint32_t) id << 32;
  uint64_t st = (uint32_t) state, zero = 0;  /* partner 0 */
  uint8_t *p = (uint8_t *) ev + offsetof (logfmt_event_t, type);
  memcpy (p, &head, 8);
  memcpy (p + 8, &st, 8);
  memcpy (p + 16, &zero, 8);   /* tag, comm */
  memcpy (p + 24, &zero, 8);   /* size */
#else
  ev->type = LOGFMT_REC_EVENT;
  ev->kind = kind;
  ev->flags = 0;
  ev->id = id;
  ev->state = state;
  ev->partner = 0;
  ev->tag = 0;
  ev->comm = 0;
  ev->size = 0;
#endif
}

/* The decoding loop, specialised for codec 2 (split) or not, and for
 * classifying through the direct table (direct: cls and its table are
 * set, the readers' case) or not.  Each loop-invariant test taken out of
 * the loop frees a register the loop would otherwise spill. */
static inline __attribute__ ((always_inline)) int
cols_decode (logfmt__cols_t *c, logfmt_event_t *out, uint32_t max,
             const logfmt__classify_t *cls, const bool split,
             const bool direct)
{
  uint32_t n = c->left < max ? c->left : max;
  const uint8_t *tp = c->tp, *ty = c->ty, *ip = c->ip, *mp = c->mp,
                *cp = c->cp, *xp = c->xp;
  const uint8_t *const xend = c->xend;
  bool bad = false;
  const uint8_t *const tend = c->tend, *const iend = c->iend,
                *const mend = c->mend, *const cend = c->cend;
  const uint64_t *const base = c->base;
  uint64_t time = c->time;
  /* Locals, so stores to out[] do not force reloads. */
  static const int32_t no_state = -1;
  const int32_t *tab = cls ? cls->tab : NULL;
  int32_t tab_lo = 0;
  uint32_t tab_span = 0;
  if (tab && cls->hi >= cls->lo)
    {
      tab_lo = cls->lo;
      tab_span = (uint32_t) cls->hi - (uint32_t) cls->lo;
    }
  else if (tab)
    tab = &no_state;  /* no states defined */
  for (uint32_t i = 0; i < n; i++)
    {
      logfmt_event_t *ev = &out[i];
      uint64_t d = 0, v;
      /* Time deltas are one or two bytes in a mix no branch predictor
       * guesses well: decode those two cases without a branch. */
      if (!split)
        {
          uint32_t b0 = tp[0], b1 = tp[1];
          uint32_t two = b0 >> 7;
          if (LOGFMT_UNLIKELY (two & (b1 >> 7)))
            {
              if (!get_uv (&tp, tend, &d))
                return LOGFMT_ECORRUPT;
            }
          else
            {
              uint32_t hi = two ? b1 : 0;
              d = (b0 & 0x7f) | (hi << 7);
              tp += 1 + two;
            }
          if (LOGFMT_UNLIKELY (tp > tend))
            return LOGFMT_ECORRUPT;
        }
      uint8_t tb = *ty++;
      uint8_t type = tb & 7;
      if (!split)
        {
          time += d;
          ev->time = time;
        }
      if (LOGFMT_LIKELY (type == LOGFMT_REC_EVENT))
        {
          if (LOGFMT_UNLIKELY (!get_uv_fast (&ip, iend, &v) || ip > iend))
            return LOGFMT_ECORRUPT;
          int32_t id = (int32_t) unzz64 (v);
          if (split)
            {
              time += base[(uint32_t) id & 0xffu]
                      + split_residual (&tp, &xp, xend, &bad);
              ev->time = time;
            }
          /* k = state * 2 + end, or -1 (solo); begin and end are
           * interleaved unpredictably, so no branch on them. */
          int32_t k = -1;
          if (direct || tab != NULL)
            {
              uint32_t o = (uint32_t) id - (uint32_t) tab_lo;
              if (LOGFMT_LIKELY (o <= tab_span))
                k = tab[o];
            }
          else if (cls)
            k = logfmt__classify (cls, id);
          put_event_fields (ev, !direct && !cls ? 0
                                : k < 0 ? LOGFMT_KIND_SOLO
                                        : (uint8_t) (LOGFMT_KIND_BEGIN
                                                     + (k & 1)),
                            id, k >> 1 /* -1 stays -1 */);
        }
      else if (type == LOGFMT_REC_SEND || type == LOGFMT_REC_RECV)
        {
          ev->type = type;
          ev->flags = 0;
          if (split)
            {
              time += base[256u + type - LOGFMT_REC_SEND]
                      + split_residual (&tp, &xp, xend, &bad);
              ev->time = time;
            }
          ev->kind = direct || cls ? (type == LOGFMT_REC_SEND
                                      ? LOGFMT_KIND_SEND : LOGFMT_KIND_RECV)
                                   : 0;
          ev->id = 0;
          ev->state = -1;
          if (!get_uv (&mp, mend, &v))
            return LOGFMT_ECORRUPT;
          ev->partner = (int32_t) unzz64 (v);
          if (!get_uv (&mp, mend, &v))
            return LOGFMT_ECORRUPT;
          ev->tag = (int32_t) unzz64 (v);
          if (!get_uv (&mp, mend, &v))
            return LOGFMT_ECORRUPT;
          ev->comm = (uint32_t) v;
          if (!get_uv (&mp, mend, &v))
            return LOGFMT_ECORRUPT;
          ev->size = v;
        }
      else if (type == LOGFMT_REC_LOSS)
        {
          ev->type = type;
          ev->flags = 0;
          if (split)
            {
              time += base[256u + type - LOGFMT_REC_SEND]
                      + split_residual (&tp, &xp, xend, &bad);
              ev->time = time;
            }
          ev->kind = direct || cls ? LOGFMT_KIND_LOSS : 0;
          ev->id = 0;
          ev->state = -1;
          ev->partner = 0;
          ev->tag = 0;
          ev->comm = 0;
          if (!get_uv (&mp, mend, &v))
            return LOGFMT_ECORRUPT;
          ev->size = v;
        }
      else
        return LOGFMT_ECORRUPT;
      if (LOGFMT_UNLIKELY (tb & ~7u))
        {
          if (tb != (type | LOGFMT__TB_CARGO)
              || cend - cp < LOGFMT_CARGO_SIZE)
            return LOGFMT_ECORRUPT;
          memcpy (ev->cargo, cp, LOGFMT_CARGO_SIZE);
          cp += LOGFMT_CARGO_SIZE;
          ev->flags = LOGFMT_EVF_CARGO;
        }
    }
  /* Codec 2: the deltas into times, apart from the loop above so that
   * no step of it waits for the previous record's time. */
  if (split && (bad || xp > xend))
    return LOGFMT_ECORRUPT;
  c->tp = tp;
  c->xp = xp;
  c->ty = ty;
  c->ip = ip;
  c->mp = mp;
  c->cp = cp;
  c->time = time;
  c->left -= n;
  if (c->left == 0
      && (c->tp != tend || ip != iend || mp != mend || cp != cend
          || c->xp != c->xend))
    return LOGFMT_ECORRUPT;
  return (int) n;
}

int
logfmt__cols_decode (logfmt__cols_t *c, logfmt_event_t *out, uint32_t max,
                     const logfmt__classify_t *cls)
{
  if (cls && cls->tab)
    return c->split ? cols_decode (c, out, max, cls, true, true)
                    : cols_decode (c, out, max, cls, false, true);
  return c->split ? cols_decode (c, out, max, cls, true, false)
                  : cols_decode (c, out, max, cls, false, false);
}

int
logfmt_block_decode (const void *block, size_t len, logfmt_block_info_t *info,
                     logfmt_event_t **out, size_t *n, logfmt_error_t *err)
{
  const uint8_t *p = block;
  if (out)
    *out = NULL;
  if (n)
    *n = 0;
  if (!block || !out || !n)
    return logfmt__err (err, LOGFMT_EINVAL, NULL, UINT64_MAX,
                        "logfmt_block_decode: NULL argument");
  if (len < LOGFMT__CHUNK_HDR + LOGFMT__CHUNK_CRC)
    return logfmt__err (err, LOGFMT_ETRUNCATED, NULL, 0,
                        "block chunk of %zu bytes is too short", len);
  if (ld32 (p) != LOGFMT__CHUNK_BLOCK)
    return logfmt__err (err, LOGFMT_ECORRUPT, NULL, 0,
                        "chunk type %u is not a block", ld32 (p));
  uint64_t plen = ld64 (p + 8);
  if (plen > len - LOGFMT__CHUNK_HDR - LOGFMT__CHUNK_CRC)
    return logfmt__err (err, LOGFMT_ETRUNCATED, NULL, 8,
                        "block payload length %llu exceeds the %zu bytes "
                        "given", (unsigned long long) plen, len);
  const uint8_t *pay = p + LOGFMT__CHUNK_HDR;
  if (logfmt__chunk_crc (p, pay, plen, LOGFMT__BLOCK_CRC_SKIP)
      != ld32 (pay + plen))
    return logfmt__err (err, LOGFMT_ECHECKSUM, NULL, 0,
                        "block checksum mismatch");
  logfmt__block_hdr_t h;
  int rc = logfmt__block_parse (pay, plen, &h, NULL, LOGFMT__CHUNK_HDR, err);
  if (rc)
    return rc;
  ZSTD_DCtx *dctx = ZSTD_createDCtx ();
  if (!dctx)
    return logfmt__err (err, LOGFMT_ENOMEM, NULL, UINT64_MAX, "no memory");
  uint8_t *buf = NULL;
  size_t cap = 0;
  const uint8_t *raw;
  rc = logfmt__block_inflate (dctx, &h, &buf, &cap, &raw, NULL,
                              LOGFMT__CHUNK_HDR, err);
  ZSTD_freeDCtx (dctx);
  if (rc)
    {
      free (buf);
      return rc;
    }
  logfmt__cols_t c;
  logfmt_event_t *ev = NULL;
  if (logfmt__cols_init (&c, raw, h.raw_size, h.count, h.t_first,
                         h.codec))
    goto corrupt;
  ev = malloc ((size_t) h.count * sizeof *ev);
  if (!ev)
    {
      free (buf);
      return logfmt__err (err, LOGFMT_ENOMEM, NULL, UINT64_MAX, "no memory");
    }
  if (logfmt__cols_decode (&c, ev, h.count, NULL) != (int) h.count
      || ev[h.count - 1].time != h.t_last)
    goto corrupt;
  for (uint32_t i = 0; i < h.count; i++)
    if (!(ev[i].flags & LOGFMT_EVF_CARGO))
      memset (ev[i].cargo, 0, LOGFMT_CARGO_SIZE);
  free (buf);
  if (info)
    *info = (logfmt_block_info_t) {
      .stream = h.stream, .t_first = h.t_first, .t_last = h.t_last,
      .count = h.count, .raw_size = h.raw_size,
    };
  *out = ev;
  *n = h.count;
  return 0;

corrupt:
  free (buf);
  free (ev);
  return logfmt__err (err, LOGFMT_ECORRUPT, NULL, LOGFMT__CHUNK_HDR,
                      "block columns are inconsistent with its header");
}

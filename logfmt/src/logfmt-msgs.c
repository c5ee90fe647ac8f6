/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MSGS chunk: a run of message-table entries sorted by their first time,
 * stored as varint columns compressed with zstd (FORMAT.md "Messages").
 */
#include "config.h"
#include "logfmt-writer-internal.h"

#include <stdlib.h>
#include <zstd.h>

#define MSG_HDR 32
/* Worst case raw bytes per entry: 9 varints of up to 10 bytes. */
#define MSG_MAX_RAW 90

static uint64_t
first_time (const logfmt_message_t *x)
{
  return x->send_stream != LOGFMT_NO_STREAM ? x->send_time : x->recv_time;
}

int
logfmt__msgs_encode (const logfmt_message_t *m, size_t n, uint8_t **outp,
                     size_t *lenp, uint64_t *t_min, uint64_t *t_max)
{
  uint8_t *raw = malloc (n * MSG_MAX_RAW + 1);
  if (!raw)
    return LOGFMT_ENOMEM;
  uint8_t *r = raw;
  uint64_t lo = UINT64_MAX, hi = 0, prev = 0;
  for (size_t i = 0; i < n; i++)
    {
      const logfmt_message_t *x = &m[i];
      bool hs = x->send_stream != LOGFMT_NO_STREAM;
      bool hr = x->recv_stream != LOGFMT_NO_STREAM;
      uint64_t a = first_time (x);
      uint64_t b = hr ? x->recv_time : x->send_time;
      uint64_t mn = a < b ? a : b, mx = a < b ? b : a;
      if (mn < lo)
        lo = mn;
      if (mx > hi)
        hi = mx;
      /* Streams are stored +1 so that LOGFMT_NO_STREAM is 0. */
      r = put_uv (r, hs ? (uint64_t) x->send_stream + 1 : 0);
      r = put_uv (r, hr ? (uint64_t) x->recv_stream + 1 : 0);
      r = put_uv (r, zz64 ((int64_t) (a - prev)));
      prev = a;
      if (hs && hr)
        r = put_uv (r, zz64 ((int64_t) (x->recv_time - x->send_time)));
      r = put_uv (r, zz64 (x->send_rank));
      r = put_uv (r, zz64 (x->recv_rank));
      r = put_uv (r, zz64 (x->tag));
      r = put_uv (r, x->comm);
      r = put_uv (r, x->size);
    }
  if (n == 0)
    lo = hi = 0;
  size_t rawlen = (size_t) (r - raw);
  size_t bound = ZSTD_compressBound (rawlen);
  size_t cap = LOGFMT__CHUNK_HDR + MSG_HDR + bound + LOGFMT__CHUNK_CRC;
  uint8_t *o = malloc (cap);
  if (!o)
    {
      free (raw);
      return LOGFMT_ENOMEM;
    }
  uint8_t *h = o + LOGFMT__CHUNK_HDR;
  size_t clen = ZSTD_compress (h + MSG_HDR, bound, raw, rawlen, 3);
  free (raw);
  if (ZSTD_isError (clen))
    {
      free (o);
      return LOGFMT_EZSTD;
    }
  uint64_t plen = MSG_HDR + clen;
  memset (h, 0, MSG_HDR);
  st32 (h, (uint32_t) n);
  st32 (h + 4, (uint32_t) rawlen);
  st64 (h + 8, lo);
  st64 (h + 16, hi);
  st32 (o, LOGFMT__CHUNK_MSGS);
  st32 (o + 4, 0);
  st64 (o + 8, plen);
  st32 (h + plen, logfmt__chunk_crc (o, h, plen, 0));
  *outp = o;
  *lenp = LOGFMT__CHUNK_HDR + plen + LOGFMT__CHUNK_CRC;
  *t_min = lo;
  *t_max = hi;
  return 0;
}

int
logfmt__msgs_decode (const uint8_t *pay, uint64_t len, uint32_t nstreams,
                     logfmt_message_t **outp, size_t *np)
{
  *outp = NULL;
  *np = 0;
  if (len < MSG_HDR)
    return LOGFMT_ECORRUPT;
  uint32_t n = ld32 (pay);
  uint32_t rawlen = ld32 (pay + 4);
  uint64_t lo = ld64 (pay + 8), hi = ld64 (pay + 16);
  if (ld64 (pay + 24) != 0 || n > LOGFMT__MSGS_PER_CHUNK * 16u
      || rawlen > (uint64_t) n * MSG_MAX_RAW || rawlen < 7 * (uint64_t) n
      || hi < lo)
    return LOGFMT_ECORRUPT;
  uint8_t *raw = malloc (rawlen + 1);
  logfmt_message_t *m = malloc ((n ? n : 1) * sizeof *m);
  if (!raw || !m)
    {
      free (raw);
      free (m);
      return LOGFMT_ENOMEM;
    }
  size_t got = ZSTD_decompress (raw, rawlen, pay + MSG_HDR,
                                (size_t) (len - MSG_HDR));
  bool bad = ZSTD_isError (got) || got != rawlen;
  const uint8_t *p = raw, *end = raw + rawlen;
  uint64_t prev = 0;
  for (uint32_t i = 0; i < n && !bad; i++)
    {
      logfmt_message_t *x = &m[i];
      uint64_t ss, rs, dt, lat = 0, sr, rr, tag, comm, size;
      if (!get_uv (&p, end, &ss) || !get_uv (&p, end, &rs)
          || !get_uv (&p, end, &dt) || ss > nstreams || rs > nstreams
          || (ss == 0 && rs == 0))
        {
          bad = true;
          break;
        }
      if (ss && rs && !get_uv (&p, end, &lat))
        {
          bad = true;
          break;
        }
      if (!get_uv (&p, end, &sr) || !get_uv (&p, end, &rr)
          || !get_uv (&p, end, &tag) || !get_uv (&p, end, &comm)
          || !get_uv (&p, end, &size) || comm > UINT32_MAX)
        {
          bad = true;
          break;
        }
      uint64_t a = prev + (uint64_t) unzz64 (dt);
      prev = a;
      x->send_stream = ss ? (uint32_t) (ss - 1) : LOGFMT_NO_STREAM;
      x->recv_stream = rs ? (uint32_t) (rs - 1) : LOGFMT_NO_STREAM;
      x->send_time = ss ? a : 0;
      x->recv_time = rs ? (ss ? a + (uint64_t) unzz64 (lat) : a) : 0;
      x->send_rank = (int32_t) unzz64 (sr);
      x->recv_rank = (int32_t) unzz64 (rr);
      x->tag = (int32_t) unzz64 (tag);
      x->comm = (uint32_t) comm;
      x->size = size;
      uint64_t b = rs ? x->recv_time : a;
      if (a < lo || a > hi || b < lo || b > hi)
        bad = true;
    }
  if (!bad && p != end)
    bad = true;
  free (raw);
  if (bad)
    {
      free (m);
      return LOGFMT_ECORRUPT;
    }
  *outp = m;
  *np = n;
  return 0;
}

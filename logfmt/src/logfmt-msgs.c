/* SPDX-License-Identifier: BSD-3-Clause */
/* MSGS chunk encoding: a run of message-table entries. */
#include "config.h"
#include "logfmt-writer-internal.h"

#include <stdlib.h>

#define MSG_HDR 24

int
logfmt__msgs_encode (const logfmt_message_t *m, size_t n, uint8_t **outp,
                     size_t *lenp, uint64_t *t_min, uint64_t *t_max)
{
  uint64_t plen = MSG_HDR + (uint64_t) n * LOGFMT__MSG_ENTRY_SIZE;
  size_t len = LOGFMT__CHUNK_HDR + plen + LOGFMT__CHUNK_CRC;
  uint8_t *o = malloc (len);
  if (!o)
    return LOGFMT_ENOMEM;
  uint64_t lo = UINT64_MAX, hi = 0;
  uint8_t *p = o + LOGFMT__CHUNK_HDR + MSG_HDR;
  for (size_t i = 0; i < n; i++, p += LOGFMT__MSG_ENTRY_SIZE)
    {
      const logfmt_message_t *x = &m[i];
      uint64_t st = x->send_stream != LOGFMT_NO_STREAM ? x->send_time : 0;
      uint64_t rt = x->recv_stream != LOGFMT_NO_STREAM ? x->recv_time : 0;
      uint64_t a = x->send_stream != LOGFMT_NO_STREAM ? st : rt;
      uint64_t b = x->recv_stream != LOGFMT_NO_STREAM ? rt : st;
      if (a > b)
        {
          uint64_t t = a;
          a = b;
          b = t;
        }
      if (a < lo)
        lo = a;
      if (b > hi)
        hi = b;
      memset (p, 0, LOGFMT__MSG_ENTRY_SIZE);
      st32 (p, x->send_stream);
      st32 (p + 4, x->recv_stream);
      st64 (p + 8, st);
      st64 (p + 16, rt);
      st32 (p + 24, (uint32_t) x->send_rank);
      st32 (p + 28, (uint32_t) x->recv_rank);
      st32 (p + 32, (uint32_t) x->tag);
      st32 (p + 36, x->comm);
      st64 (p + 40, x->size);
    }
  if (n == 0)
    lo = hi = 0;
  uint8_t *h = o + LOGFMT__CHUNK_HDR;
  st32 (h, (uint32_t) n);
  st32 (h + 4, 0);
  st64 (h + 8, lo);
  st64 (h + 16, hi);
  st32 (o, LOGFMT__CHUNK_MSGS);
  st32 (o + 4, 0);
  st64 (o + 8, plen);
  st32 (h + plen, logfmt__chunk_crc (o, h, plen, 0));
  *outp = o;
  *lenp = len;
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
  if (ld32 (pay + 4) != 0
      || (len - MSG_HDR) / LOGFMT__MSG_ENTRY_SIZE != n
      || (len - MSG_HDR) % LOGFMT__MSG_ENTRY_SIZE != 0)
    return LOGFMT_ECORRUPT;
  logfmt_message_t *m = malloc ((n ? n : 1) * sizeof *m);
  if (!m)
    return LOGFMT_ENOMEM;
  const uint8_t *p = pay + MSG_HDR;
  for (uint32_t i = 0; i < n; i++, p += LOGFMT__MSG_ENTRY_SIZE)
    {
      logfmt_message_t *x = &m[i];
      x->send_stream = ld32 (p);
      x->recv_stream = ld32 (p + 4);
      x->send_time = ld64 (p + 8);
      x->recv_time = ld64 (p + 16);
      x->send_rank = (int32_t) ld32 (p + 24);
      x->recv_rank = (int32_t) ld32 (p + 28);
      x->tag = (int32_t) ld32 (p + 32);
      x->comm = ld32 (p + 36);
      x->size = ld64 (p + 40);
      if ((x->send_stream != LOGFMT_NO_STREAM && x->send_stream >= nstreams)
          || (x->recv_stream != LOGFMT_NO_STREAM
              && x->recv_stream >= nstreams)
          || (x->send_stream == LOGFMT_NO_STREAM
              && x->recv_stream == LOGFMT_NO_STREAM)
          || ld64 (p + 48) != 0)
        {
          free (m);
          return LOGFMT_ECORRUPT;
        }
    }
  *outp = m;
  *np = n;
  return 0;
}

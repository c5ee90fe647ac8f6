/* SPDX-License-Identifier: BSD-3-Clause */
/* Errors, crc32c, growable arrays and byte buffers, and the event-id
 * classification table. */
#include "config.h"
#include "logfmt-internal.h"
#include "logfmt-import-internal.h"  /* logfmt__verr, defined here */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
logfmt__reserve (void **arr, size_t *cap, size_t need, size_t esz,
                 size_t first)
{
  if (need <= *cap)
    return 0;
  /* Doubling stops at the most elements a size_t can count the bytes
   * of, rather than wrapping around. */
  size_t most = SIZE_MAX / esz;
  if (need > most)
    return LOGFMT_ENOMEM;
  size_t c = *cap ? *cap : first;
  while (c < need)
    c = c <= most / 2 ? c * 2 : most;
  if (c > most)
    c = most;
  void *p = realloc (*arr, c * esz);
  if (!p)
    return LOGFMT_ENOMEM;
  *arr = p;
  *cap = c;
  return 0;
}

int
logfmt__grow (void **arr, size_t *cap, size_t n, size_t esz)
{
  return logfmt__reserve (arr, cap, n + 1, esz, 16);
}

int
logfmt__bytes_reserve (logfmt__bytes_t *b, size_t extra)
{
  void *p = b->p;
  if (extra > SIZE_MAX - b->len
      || logfmt__reserve (&p, &b->cap, b->len + extra, 1, 4096) != 0)
    {
      b->oom = true;
      return LOGFMT_ENOMEM;
    }
  b->p = p;
  return 0;
}

uint8_t *
logfmt__bytes_take (logfmt__bytes_t *b, size_t n)
{
  if (b->oom || logfmt__bytes_reserve (b, n) != 0)
    return NULL;
  uint8_t *r = b->p + b->len;
  b->len += n;
  return r;
}

void
logfmt__bytes_put (logfmt__bytes_t *b, const void *src, size_t n)
{
  uint8_t *p = logfmt__bytes_take (b, n);
  if (p && n)
    memcpy (p, src, n);
}

void
logfmt__bytes_u32 (logfmt__bytes_t *b, uint32_t v)
{
  uint8_t *p = logfmt__bytes_take (b, 4);
  if (p)
    st32 (p, v);
}

void
logfmt__bytes_u64 (logfmt__bytes_t *b, uint64_t v)
{
  uint8_t *p = logfmt__bytes_take (b, 8);
  if (p)
    st64 (p, v);
}

void
logfmt__bytes_uv (logfmt__bytes_t *b, uint64_t v)
{
  uint8_t tmp[10];
  logfmt__bytes_put (b, tmp, (size_t) (put_uv (tmp, v) - tmp));
}

LOGFMT_API const char *
logfmt_strerror (int code)
{
  switch (code)
    {
    case 0:
      return "success";
#define LOGFMT_ERR_CASE_(name, val, msg) case -(val): return msg;
      LOGFMT_ERRORS (LOGFMT_ERR_CASE_)
#undef LOGFMT_ERR_CASE_
    default:
      return "unknown error";
    }
}

int
logfmt__verr (logfmt_error_t *err, int code, const char *file,
              uint64_t offset, const char *fmt, va_list ap)
{
  if (!err)
    return code;
  err->code = code;
  err->offset = offset;
  int n;
  if (offset != UINT64_MAX)
    n = snprintf (err->message, sizeof err->message, "%s: offset %llu: ",
                  file ? file : "(memory)", (unsigned long long) offset);
  else
    n = snprintf (err->message, sizeof err->message, "%s: ",
                  file ? file : "(memory)");
  if (n < 0 || (size_t) n >= sizeof err->message)
    return code;
  vsnprintf (err->message + n, sizeof err->message - (size_t) n, fmt, ap);
  return code;
}

int
logfmt__err (logfmt_error_t *err, int code, const char *file,
             uint64_t offset, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  logfmt__verr (err, code, file, offset, fmt, ap);
  va_end (ap);
  return code;
}

/* ---- crc32c (Castagnoli), slicing-by-8 ------------------------------- */

static uint32_t crc_tab[8][256];
static int crc_ready;

static void
crc_init (void)
{
  for (uint32_t i = 0; i < 256; i++)
    {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
        c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      crc_tab[0][i] = c;
    }
  for (uint32_t i = 0; i < 256; i++)
    for (int t = 1; t < 8; t++)
      crc_tab[t][i] = (crc_tab[t - 1][i] >> 8)
                      ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
  __atomic_store_n (&crc_ready, 1, __ATOMIC_RELEASE);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__ ((target ("sse4.2"))) static uint32_t
crc_hw (uint32_t crc, const uint8_t *p, size_t len)
{
  uint64_t c = crc;
  while (len >= 8)
    {
      uint64_t v;
      memcpy (&v, p, 8);
      c = __builtin_ia32_crc32di (c, v);
      p += 8;
      len -= 8;
    }
  uint32_t c32 = (uint32_t) c;
  while (len--)
    c32 = __builtin_ia32_crc32qi (c32, *p++);
  return c32;
}
#endif

uint32_t
logfmt__crc32c (uint32_t crc, const void *data, size_t len)
{
  const uint8_t *p = data;
  crc = ~crc;
#if defined(__x86_64__) && defined(__GNUC__)
  static int have_hw = -1;
  int hw = __atomic_load_n (&have_hw, __ATOMIC_RELAXED);
  if (hw < 0)
    {
      __builtin_cpu_init ();
      hw = __builtin_cpu_supports ("sse4.2") ? 1 : 0;
      __atomic_store_n (&have_hw, hw, __ATOMIC_RELAXED);
    }
  if (hw)
    return ~crc_hw (crc, p, len);
#endif
  if (!__atomic_load_n (&crc_ready, __ATOMIC_ACQUIRE))
    crc_init ();  /* idempotent: racing threads write identical tables */
  while (len >= 8)
    {
      uint32_t lo = crc ^ ld32 (p);
      uint32_t hi = ld32 (p + 4);
      crc = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff]
            ^ crc_tab[5][(lo >> 16) & 0xff] ^ crc_tab[4][lo >> 24]
            ^ crc_tab[3][hi & 0xff] ^ crc_tab[2][(hi >> 8) & 0xff]
            ^ crc_tab[1][(hi >> 16) & 0xff] ^ crc_tab[0][hi >> 24];
      p += 8;
      len -= 8;
    }
  while (len--)
    crc = crc_tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}

size_t
logfmt__chunk_skip (uint32_t type)
{
  /* Both start with a stream id and its complement (8 bytes). */
  return type == LOGFMT__CHUNK_BLOCK || type == LOGFMT__CHUNK_TRACK
           ? LOGFMT__BLOCK_CRC_SKIP : 0;
}

uint32_t
logfmt__chunk_crc (const uint8_t *hdr, const uint8_t *payload, uint64_t len,
                   size_t skip)
{
  uint32_t c = logfmt__crc32c (0, hdr, LOGFMT__CHUNK_HDR);
  if (len > skip)
    c = logfmt__crc32c (c, payload + skip, (size_t) (len - skip));
  return c;
}

/* ---- Classification -------------------------------------------------- */

static int
cmp_i64 (const void *a, const void *b)
{
  int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
  return (x > y) - (x < y);
}

int
logfmt__classify_init (logfmt__classify_t *c,
                       const logfmt_state_def_t *states, size_t n)
{
  memset (c, 0, sizeof *c);
  int32_t lo = INT32_MAX, hi = INT32_MIN;
  for (size_t i = 0; i < n; i++)
    {
      int32_t a = states[i].start_id, b = states[i].end_id;
      if (a < lo) lo = a;
      if (b < lo) lo = b;
      if (a > hi) hi = a;
      if (b > hi) hi = b;
    }
  if (n == 0)
    {
      lo = 0;
      hi = -1;
    }
  int64_t span = (int64_t) hi - lo + 1;
  if (span <= (1 << 20))
    {
      c->lo = lo;
      c->hi = hi;
      c->tab = malloc ((size_t) (span > 0 ? span : 1) * sizeof (int32_t));
      if (!c->tab)
        return LOGFMT_ENOMEM;
      for (int64_t i = 0; i < span; i++)
        c->tab[i] = -1;
      /* Later definitions win, as in the writer's replace rule; an end id
       * shared with a start keeps the start meaning. */
      for (size_t i = 0; i < n; i++)
        {
          c->tab[(int64_t) states[i].end_id - lo] = (int32_t) (i * 2 + 1);
        }
      for (size_t i = 0; i < n; i++)
        c->tab[(int64_t) states[i].start_id - lo] = (int32_t) (i * 2);
      return 0;
    }
  c->sorted = malloc (2 * n * sizeof (int64_t));
  if (!c->sorted)
    return LOGFMT_ENOMEM;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    {
      c->sorted[k++] = ((int64_t) states[i].start_id * ((int64_t) 1 << 32))
                       | (uint32_t) (i * 2);
      if (states[i].end_id != states[i].start_id)
        c->sorted[k++] = ((int64_t) states[i].end_id * ((int64_t) 1 << 32))
                         | (uint32_t) (i * 2 + 1);
    }
  qsort (c->sorted, k, sizeof (int64_t), cmp_i64);
  c->n = k;
  return 0;
}

void
logfmt__classify_free (logfmt__classify_t *c)
{
  free (c->tab);
  free (c->sorted);
  memset (c, 0, sizeof *c);
}

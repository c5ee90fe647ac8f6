/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal helpers shared by the logfmt sources: little-endian load/store,
 * varints, crc32c, error reporting, and the on-disk constants of
 * docs/FORMAT.md.  Never installed.
 */
#ifndef LOGFMT_INTERNAL_H
#define LOGFMT_INTERNAL_H

#include "logfmt/logfmt.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define LOGFMT_LIKELY(x)   __builtin_expect (!!(x), 1)
#define LOGFMT_UNLIKELY(x) __builtin_expect (!!(x), 0)

/* ---- On-disk constants (FORMAT.md) ---------------------------------- */

#define LOGFMT__MAGIC        "\x89" "CLOG3\r\n"   /* 8 bytes, no NUL used */
#define LOGFMT__TRAILER_MAGIC "CLOG3END"
#define LOGFMT__MAJOR        1
#define LOGFMT__MINOR        1
#define LOGFMT__HEADER_FIXED 56
#define LOGFMT__BOM          0x01020304u
#define LOGFMT__MAX_CREATOR  4096
#define LOGFMT__CHUNK_HDR    16   /* u32 type, u32 flags, u64 length */
#define LOGFMT__CHUNK_CRC    4
#define LOGFMT__TRAILER_SIZE 40
/* Largest world size and stream rank + 1 a reader accepts: far beyond any
 * MPI job, and small enough that a tool may keep a table per rank. */
#define LOGFMT__MAX_WORLD    (1u << 24)

enum
{
  LOGFMT__CHUNK_BLOCK   = 1,
  LOGFMT__CHUNK_SUMMARY = 2,
  LOGFMT__CHUNK_MSGS    = 3,
  LOGFMT__CHUNK_DEFS    = 4,
  LOGFMT__CHUNK_INDEX   = 5,
  LOGFMT__CHUNK_TRACK   = 6,   /* FORMAT.md section 14 */
  LOGFMT__CHUNK_TRACKDIR = 7,
};

/* BLOCK payload header (before the compressed columns). */
#define LOGFMT__BLOCK_HDR     48
/* Bytes at the start of a BLOCK payload not covered by the chunk CRC: the
 * stream id and its complement, so put_block can patch them cheaply. */
#define LOGFMT__BLOCK_CRC_SKIP 8
#define LOGFMT__CODEC_RAW     0
#define LOGFMT__CODEC_ZSTD    1
/* Format 1.1: the columns as sections, each compressed on its own, and
 * time deltas relative to a per-slot base (FORMAT.md section 5). */
#define LOGFMT__CODEC_SPLIT   2
/* Sections: bases, tsym, text, types, ids, msg, cargo. */
#define LOGFMT__SPLIT_SECTIONS 7
/* Time slots: EVENT id & 255; SEND, RECV, LOSS 256, 257, 258. */
#define LOGFMT__TIME_SLOTS    259
#define LOGFMT__TIME_DIRECT   192 /* tsym bytes below this are the residual */
/* Blocks of fewer records than this are also packed with codec 1, and
 * the smaller kept (4096; tests set 0 to see codec 2 on small blocks). */
extern uint32_t logfmt__split_try_joint;
/* Largest bases section: every slot, a 2-byte slot and a 10-byte base. */
#define LOGFMT__MAX_BASES_RAW (LOGFMT__TIME_SLOTS * 12)
#define LOGFMT__RAW_COLS      4   /* column length words at raw start */
#define LOGFMT__MAX_BLOCK_EVENTS (1u << 22)
/* Worst-case raw bytes per record: time 10, type 1, id 5, msg 5+5+5+10,
 * cargo 32. */
#define LOGFMT__MAX_REC_RAW   73

/* Type byte in a block: low 3 bits record type, bit 3 cargo present. */
#define LOGFMT__TB_CARGO 0x08u

#define LOGFMT__MSGS_PER_CHUNK LOGFMT_MESSAGES_PER_CHUNK

/* ---- Load / store (little-endian, any alignment) -------------------- */

static inline uint16_t
ld16 (const uint8_t *p)
{
  return (uint16_t) (p[0] | (p[1] << 8));
}

static inline uint32_t
ld32 (const uint8_t *p)
{
  uint32_t v;
  memcpy (&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32 (v);
#endif
  return v;
}

static inline uint64_t
ld64 (const uint8_t *p)
{
  uint64_t v;
  memcpy (&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64 (v);
#endif
  return v;
}

static inline void
st16 (uint8_t *p, uint16_t v)
{
  p[0] = (uint8_t) v;
  p[1] = (uint8_t) (v >> 8);
}

static inline void
st32 (uint8_t *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32 (v);
#endif
  memcpy (p, &v, 4);
}

static inline void
st64 (uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64 (v);
#endif
  memcpy (p, &v, 8);
}

/* ---- Varints (LEB128) ------------------------------------------------ */

static inline uint8_t *
put_uv (uint8_t *p, uint64_t v)
{
  while (v >= 0x80)
    {
      *p++ = (uint8_t) (v | 0x80);
      v >>= 7;
    }
  *p++ = (uint8_t) v;
  return p;
}

static inline uint64_t
zz64 (int64_t v)
{
  return ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
}

static inline int64_t
unzz64 (uint64_t v)
{
  return (int64_t) (v >> 1) ^ -(int64_t) (v & 1);
}

/* Reads a varint from [*pp, end); returns false if it runs off the end or
 * is longer than 10 bytes. */
static inline bool
get_uv (const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
  const uint8_t *p = *pp;
  if (LOGFMT_LIKELY (p < end && *p < 0x80))
    {
      *out = *p;
      *pp = p + 1;
      return true;
    }
  uint64_t v = 0;
  unsigned shift = 0;
  while (p < end && shift < 64)
    {
      uint8_t b = *p++;
      v |= (uint64_t) (b & 0x7f) << shift;
      if (!(b & 0x80))
        {
          *out = v;
          *pp = p;
          return true;
        }
      shift += 7;
    }
  return false;
}

/* ---- Bounds-checked cursor over untrusted bytes ---------------------- */

typedef struct
{
  const uint8_t *p, *end;
  bool bad;
} logfmt__cur_t;

static inline bool
cur_need (logfmt__cur_t *c, size_t n)
{
  if (c->bad || (size_t) (c->end - c->p) < n)
    {
      c->bad = true;
      return false;
    }
  return true;
}

static inline uint8_t
cur_u8 (logfmt__cur_t *c)
{
  if (!cur_need (c, 1))
    return 0;
  return *c->p++;
}

static inline uint32_t
cur_u32 (logfmt__cur_t *c)
{
  if (!cur_need (c, 4))
    return 0;
  uint32_t v = ld32 (c->p);
  c->p += 4;
  return v;
}

static inline uint64_t
cur_u64 (logfmt__cur_t *c)
{
  if (!cur_need (c, 8))
    return 0;
  uint64_t v = ld64 (c->p);
  c->p += 8;
  return v;
}

/* ---- Misc ------------------------------------------------------------ */

uint32_t logfmt__crc32c (uint32_t crc, const void *data, size_t len);

/* The X11 colour name nearest to 0xRRGGBB (logfmt-color.c). */
const char *logfmt__color_nearest (uint32_t rgb);

/* Grows an array of elements of size esz (*cap of them) to hold need,
 * doubling from `first`; 0 or LOGFMT_ENOMEM (the array is kept). */
int logfmt__reserve (void **arr, size_t *cap, size_t need, size_t esz,
                     size_t first);
/* logfmt__reserve for n+1 elements, doubling from 16. */
int logfmt__grow (void **arr, size_t *cap, size_t n, size_t esz);

/* A writer of many streams compresses with one zstd context: a context
 * per stream (an encoder's) and one per summary level (ZSTD_compress's)
 * cost more than a 200-event stream's compression itself.  The context
 * is borrowed, not owned, and used from the writer's thread only. */
struct ZSTD_CCtx_s;
int logfmt__encoder_new_shared (const logfmt_encoder_opts_t *opts,
                                logfmt_block_cb cb, void *user,
                                struct ZSTD_CCtx_s *cctx,
                                logfmt_encoder_t **out);
int logfmt__summary_builder_finish_cctx (logfmt_summary_builder_t *b,
                                         uint32_t stream,
                                         struct ZSTD_CCtx_s *cctx,
                                         void **bytes, size_t *len);

/* A growable byte buffer, for what is built before it is written (a
 * block's columns, definitions, the index, call-path tables).  A growth
 * that fails sets oom, which take then keeps: a builder appends without
 * checking each step and looks once at the end. */
typedef struct
{
  uint8_t *p;
  size_t   len, cap;
  bool     oom;
} logfmt__bytes_t;

/* Room for extra more bytes (doubling from 4 KB); 0 or LOGFMT_ENOMEM. */
int      logfmt__bytes_reserve (logfmt__bytes_t *b, size_t extra);
/* n bytes appended, for the caller to fill; NULL once out of memory. */
uint8_t *logfmt__bytes_take (logfmt__bytes_t *b, size_t n);
void     logfmt__bytes_put (logfmt__bytes_t *b, const void *src, size_t n);
void     logfmt__bytes_u32 (logfmt__bytes_t *b, uint32_t v);
void     logfmt__bytes_u64 (logfmt__bytes_t *b, uint64_t v);
void     logfmt__bytes_uv (logfmt__bytes_t *b, uint64_t v);

/* Fills err (may be NULL) and returns code. */
int logfmt__err (logfmt_error_t *err, int code, const char *file,
                 uint64_t offset, const char *fmt, ...)
  __attribute__ ((format (printf, 5, 6)));

/* Chunk CRC: over the 16-byte chunk header then payload[skip..]. */
uint32_t logfmt__chunk_crc (const uint8_t *hdr, const uint8_t *payload,
                            uint64_t len, size_t skip);
size_t logfmt__chunk_skip (uint32_t type);

/* Classification table: event id -> state index and begin/end. */
typedef struct
{
  int32_t  lo, hi;      /* direct table range [lo, hi] */
  int32_t *tab;         /* (hi-lo+1) entries: state*2 + (end?1:0), or -1 */
  size_t   n;           /* sorted fallback when the id range is huge */
  int64_t *sorted;      /* (id << 32) | code */
} logfmt__classify_t;

int  logfmt__classify_init (logfmt__classify_t *c,
                            const logfmt_state_def_t *states, size_t n);
void logfmt__classify_free (logfmt__classify_t *c);

/* Returns state*2 + end, or -1 for a solo event. */
static inline int32_t
logfmt__classify (const logfmt__classify_t *c, int32_t id)
{
  if (LOGFMT_LIKELY (c->tab != NULL))
    {
      if (id < c->lo || id > c->hi)
        return -1;
      return c->tab[(int64_t) id - c->lo];
    }
  /* Binary search of the sorted fallback. */
  size_t a = 0, b = c->n;
  while (a < b)
    {
      size_t m = (a + b) / 2;
      int32_t mid = (int32_t) (c->sorted[m] >> 32);
      if (mid < id)
        a = m + 1;
      else
        b = m;
    }
  if (a < c->n && (int32_t) (c->sorted[a] >> 32) == id)
    return (int32_t) (uint32_t) c->sorted[a];
  return -1;
}

/* Decoded view of one block (columns located in a raw buffer). */
typedef struct
{
  uint32_t stream;
  uint64_t t_first, t_last;
  uint32_t count;
  uint32_t raw_size;
  uint8_t  codec;
  uint64_t lost;
  const uint8_t *body;     /* compressed (or raw) column bytes */
  size_t   body_len;
} logfmt__block_hdr_t;

/* Parses and checks a block chunk's payload header (not the CRC). */
int logfmt__block_parse (const uint8_t *payload, uint64_t len,
                         logfmt__block_hdr_t *h, const char *file,
                         uint64_t offset, logfmt_error_t *err);

/* Column cursor state for decoding one raw block. */
typedef struct
{
  const uint8_t *tp, *tend;    /* time deltas (split: one symbol each) */
  const uint8_t *xp, *xend;    /* split: the symbols' extra bytes */
  const uint8_t *ty, *tyend;   /* type bytes */
  const uint8_t *ip, *iend;    /* ids */
  const uint8_t *mp, *mend;    /* message fields */
  const uint8_t *cp, *cend;    /* cargo */
  uint64_t time;
  uint32_t left;
  bool     split;              /* codec 2 */
  uint64_t base[LOGFMT__TIME_SLOTS];   /* split: time delta bases */
} logfmt__cols_t;

/* Sets up the cursors over a raw area as logfmt__block_inflate leaves it
 * for the block's codec. */
int logfmt__cols_init (logfmt__cols_t *c, const uint8_t *raw, size_t len,
                       uint32_t count, uint64_t t_first, uint8_t codec);
/* Decodes up to max records into out: every field but cargo, which is
 * written only for records that carry it (flags).  With cls, kind and
 * state are classified; without, kind is 0 and state -1.  The column
 * bytes must be followed by LOGFMT__RAW_SLACK readable bytes (as
 * logfmt__block_inflate leaves them).  Returns the number decoded (0 at
 * the end) or LOGFMT_ECORRUPT; after the last record it also checks that
 * every column was used up exactly. */
int logfmt__cols_decode (logfmt__cols_t *c, logfmt_event_t *out,
                         uint32_t max, const logfmt__classify_t *cls);

/* Decompresses (or copies) a block body into *buf (grown as needed),
 * followed by LOGFMT__RAW_SLACK zero bytes; *cap in bytes.  Returns 0 or
 * a code. */
#define LOGFMT__RAW_SLACK 16
struct ZSTD_DCtx_s;
int logfmt__block_inflate (struct ZSTD_DCtx_s *dctx,
                           const logfmt__block_hdr_t *h,
                           uint8_t **buf, size_t *cap,
                           const uint8_t **raw,
                           const char *file, uint64_t offset,
                           logfmt_error_t *err);

#endif

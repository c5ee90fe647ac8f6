/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The local spill file of one MPE process: what the logger keeps on disk
 * during the run, and what `clogtool recover` reads after a crash.  No MPI
 * here (clogtool includes this header).
 *
 * File = 16-byte header ("MPESPIL1", u32 version = 1, u32 header size = 16)
 * followed by frames, each 8-byte aligned, native byte order:
 *
 *   u32 magic (MPE_SPILL_FRAME_MAGIC)  u16 type  u16 thread
 *   u32 len (payload bytes)            u32 sum (mpe_spill_sum of the payload)
 *   payload, zero-padded to a multiple of 8
 *
 * Frames are appended at offsets reserved atomically, so a frame that a
 * dying process did not finish leaves zeros or garbage; readers skip to the
 * next 8-byte aligned magic whose checksum holds.
 *
 * Types:
 *  META   text, "key value" lines: rank, size, pid, host, runid, clock
 *         (tsc|cntvct|mono), tick0, mult (ns per tick as %.17g), mono0 (absolute
 *         local ns of the local origin, test skew included), real0 (unix
 *         ns at the origin).
 *  STATE  text: "start end\tname\tcolor\tformat"
 *  EVENT  text: "id\tname\tcolor\tformat"
 *  SYNC   two int64: local ns since origin, offset ns to add (to reach
 *         rank 0's clock).
 *  COMM   u32 id, i32 kind, u32 size, i32 world ranks[size], then the
 *         name (NUL-terminated).
 *  PACKED records of thread `thread` as spilled during the run, packed
 *         for speed (the spill may sit on the program's critical path; the
 *         merge encodes them properly): u64 tick of the first record, u32
 *         record count, then per record u8 kind, varint zigzag(tick -
 *         previous tick), varint zigzag(id - previous id of the same
 *         class: event ids, or partners of SEND/RECV) and by kind:
 *         CARGO 32 bytes; SEND/RECV varint zigzag(tag), varint comm,
 *         varint size; LOSS varint events lost.  Varints: LEB128.
 *  BLOCK  one logfmt block chunk of thread `thread`; times are ns since the
 *         local origin, not corrected (written by version 1 spill files).
 *  RAW    raw in-memory records of thread `thread` (what was not yet
 *         encoded when the process died): mpe_spill_rec_t, times in clock
 *         ticks to convert with META's tick0/mult.
 *  END    the run finished normally (payload: nothing).
 *
 * Ring files.  Each thread's record buffer is a file mapped MAP_SHARED
 * (on /dev/shm by default), so what a thread had not yet spilled is still
 * there when its process is killed without a chance to save it (SIGKILL
 * from the launcher while blocked in MPI, say).  META's "ring" line gives
 * the path prefix; thread t's file is PREFIX.t<t>.ring:
 *
 *   mpe_ring_header_t, zero-padded to MPE_RING_HEADER_SIZE, then `cap`
 *   16-byte record slots.  The buffer is one part [0, cap), or two parts
 *   [0, split) and [split, cap) when a spill thread drains one part while
 *   the thread writes the other.  Records of a part's current round carry
 *   the part's tag in aux bits 8-31; a part is read from its first slot up
 *   to the first record with another tag, an unknown kind or a time that
 *   goes backwards (what follows is an older round, already spilled).
 *   live[p] = 0 once part p's records are known to be in the spill file.
 *   `spill` names the spill file: a ring whose process is dead and whose
 *   spill file is gone can be removed.
 *   Records may also be in the spill file (a spill cut short, or RAW
 *   frames of the crash handler): a reader keeps from the ring only what
 *   is newer than the thread's last spilled event.
 */
#ifndef MPE_SPILL_H
#define MPE_SPILL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <logfmt/logfmt.h>

#define MPE_SPILL_MAGIC        "MPESPIL1"
#define MPE_SPILL_VERSION      2u
#define MPE_SPILL_HEADER_SIZE  16u
#define MPE_SPILL_FRAME_MAGIC  0x4650454du  /* "MEPF" little-endian */
#define MPE_SPILL_NAME_PREFIX  "mpe-"
#define MPE_SPILL_NAME_SUFFIX  ".spill"

enum
{
  MPE_SPILL_META  = 1,
  MPE_SPILL_STATE = 2,
  MPE_SPILL_EVENT = 3,
  MPE_SPILL_SYNC  = 5,
  MPE_SPILL_COMM  = 6,
  MPE_SPILL_BLOCK = 7,
  MPE_SPILL_RAW   = 8,
  MPE_SPILL_END   = 9,
  MPE_SPILL_PACKED = 10,
};

typedef struct
{
  uint32_t magic;
  uint16_t type;
  uint16_t thread;
  uint32_t len;
  uint32_t sum;
} mpe_spill_frame_t;

/* In-memory record, 16 bytes.  `aux` low byte is the kind; extension
 * slots (16 bytes each) follow some kinds:
 *   BARE   id = event id
 *   CARGO  id = event id, 2 slots = 32 cargo bytes
 *   SEND / RECV  id = partner world rank, 1 slot = mpe_spill_msg_t
 *   LOSS   id = 0, 1 slot = u64 lost events, u64 0 */
typedef struct
{
  uint64_t t;
  int32_t  id;
  uint32_t aux;
} mpe_spill_rec_t;

typedef struct
{
  int32_t  tag;
  uint32_t comm;
  uint64_t size;
} mpe_spill_msg_t;

#define MPE_RING_MAGIC        "MPERING1"
#define MPE_RING_VERSION      1u
#define MPE_RING_HEADER_SIZE  4096u
#define MPE_RING_SUFFIX       ".ring"

typedef struct
{
  char     magic[8];
  uint32_t version;
  uint32_t thread;
  uint64_t cap;        /* record slots after the header */
  uint64_t split;      /* first slot of part 1; cap when there is one part */
  uint32_t tag[2];     /* aux & ~0xff of each part's current round */
  uint32_t live[2];
  char     spill[2048];  /* the spill file's path ("" if too long) */
} mpe_ring_header_t;

enum
{
  MPE_REC_BARE  = 0,
  MPE_REC_CARGO = 1,
  MPE_REC_SEND  = 2,
  MPE_REC_RECV  = 3,
  MPE_REC_LOSS  = 4,
};

/* Extension slots after a record of kind k. */
static inline unsigned
mpe_spill_rec_ext (uint32_t aux)
{
  switch (aux & 0xffu)
    {
    case MPE_REC_CARGO: return 2;
    case MPE_REC_SEND: case MPE_REC_RECV: case MPE_REC_LOSS: return 1;
    default: return 0;
    }
}

/* Frame checksum: four lanes of 64-bit words (xor, multiply, fold), fast
 * enough to run on every spill; catches torn and overwritten frames. */
static inline uint32_t
mpe_spill_sum (const void *p, size_t n)
{
  const unsigned char *b = (const unsigned char *) p;
  const uint64_t k = 0x100000001b3ull;
  uint64_t h0 = 0xcbf29ce484222325ull, h1 = h0 ^ 1, h2 = h0 ^ 2, h3 = h0 ^ 3;
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    {
      uint64_t w[4];
      memcpy (w, b + i, 32);
      h0 = (h0 ^ w[0]) * k;
      h0 ^= h0 >> 32;
      h1 = (h1 ^ w[1]) * k;
      h1 ^= h1 >> 32;
      h2 = (h2 ^ w[2]) * k;
      h2 ^= h2 >> 32;
      h3 = (h3 ^ w[3]) * k;
      h3 ^= h3 >> 32;
    }
  for (; i < n; i++)
    {
      h0 = (h0 ^ b[i]) * k;
      h0 ^= h0 >> 32;
    }
  uint64_t x = h0 ^ (h1 << 16 | h1 >> 48) ^ (h2 << 32 | h2 >> 32)
               ^ (h3 << 48 | h3 >> 16) ^ (uint64_t) n;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 32;
  return (uint32_t) x;
}

static inline uint64_t
mpe_spill_pad8 (uint64_t n)
{
  return (n + 7u) & ~(uint64_t) 7u;
}

/* (a * b) >> 32 of the full 128-bit product, truncated to 64 bits, in
 * portable C (no 128-bit integer type): with a = ah:al and b = bh:bl in
 * 32-bit halves, the product shifted by 32 is ah*b + al*bh + (al*bl >> 32)
 * exactly, and each term fits in 64 bits except ah*b, whose wrap-around is
 * the truncation wanted. */
static inline uint64_t
mpe_spill_mul_shr32 (uint64_t a, uint64_t b)
{
  uint64_t ah = a >> 32, al = a & 0xffffffffu;
  uint64_t bh = b >> 32, bl = b & 0xffffffffu;
  return ah * b + al * bh + ((al * bl) >> 32);
}

/* Ticks -> ns since the local origin (32.32 fixed-point ns per tick). */
static inline uint64_t
mpe_spill_tick_ns (uint64_t t, uint64_t tick0, uint64_t mult_fp)
{
  if (t <= tick0)
    return 0;
  return mpe_spill_mul_shr32 (t - tick0, mult_fp);
}

/* Decodes in-memory records [*p, end) into at most max events; advances
 * *p past what was used and returns the number of events.  A record whose
 * extension runs past `end` is dropped (a torn write). */
static inline size_t
mpe_spill_recs_decode (const mpe_spill_rec_t **p, const mpe_spill_rec_t *end,
                       uint64_t tick0, uint64_t mult_fp,
                       logfmt_event_t *out, size_t max)
{
  const mpe_spill_rec_t *r = *p;
  size_t n = 0;
  while (r < end && n < max)
    {
      unsigned ext = mpe_spill_rec_ext (r->aux);
      if (r + 1 + ext > end)
        {
          r = end;
          break;
        }
      logfmt_event_t *e = &out[n];
      memset (e, 0, offsetof (logfmt_event_t, cargo));
      e->time = mpe_spill_tick_ns (r->t, tick0, mult_fp);
      e->state = -1;
      switch (r->aux & 0xffu)
        {
        case MPE_REC_BARE:
          e->type = LOGFMT_REC_EVENT;
          e->id = r->id;
          break;
        case MPE_REC_CARGO:
          e->type = LOGFMT_REC_EVENT;
          e->id = r->id;
          e->flags = LOGFMT_EVF_CARGO;
          memcpy (e->cargo, r + 1, 32);
          break;
        case MPE_REC_SEND:
        case MPE_REC_RECV:
          {
            mpe_spill_msg_t m;
            memcpy (&m, r + 1, sizeof m);
            e->type = (r->aux & 0xffu) == MPE_REC_SEND ? LOGFMT_REC_SEND
                                                      : LOGFMT_REC_RECV;
            e->partner = r->id;
            e->tag = m.tag;
            e->comm = m.comm;
            e->size = m.size;
            break;
          }
        case MPE_REC_LOSS:
          {
            uint64_t lost;
            memcpy (&lost, r + 1, 8);
            e->type = LOGFMT_REC_LOSS;
            e->size = lost;
            break;
          }
        default:
          /* Unknown kind: a torn or corrupt record; skip the slot. */
          r++;
          continue;
        }
      n++;
      r += 1 + ext;
    }
  *p = r;
  return n;
}

/* PACKED frames (see the top of this file). */
enum { MPE_SPILL_PACKED_HEAD = 12 };

static inline unsigned char *
mpe_spill_put_varint (unsigned char *o, uint64_t v)
{
  if (v < 0x80)
    {
      *o = (unsigned char) v;
      return o + 1;
    }
  if (v < 0x4000)
    {
      o[0] = (unsigned char) (v | 0x80);
      o[1] = (unsigned char) (v >> 7);
      return o + 2;
    }
  while (v >= 0x80)
    {
      *o++ = (unsigned char) (v | 0x80);
      v >>= 7;
    }
  *o++ = (unsigned char) v;
  return o;
}

static inline uint64_t
mpe_spill_zz (int64_t v)
{
  return ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
}

static inline int64_t
mpe_spill_unzz (uint64_t v)
{
  return (int64_t) (v >> 1) ^ -(int64_t) (v & 1);
}

/* Packs whole records from *from (up to `to`) into out[0, cap) as one
 * PACKED payload; advances *from and returns the payload's length (0 when
 * there is nothing to pack).  cap must be at least 256. */
static inline size_t
mpe_spill_pack (const mpe_spill_rec_t **from, const mpe_spill_rec_t *to,
                unsigned char *out, size_t cap)
{
  const mpe_spill_rec_t *r = *from;
  /* Worst record: 1 + 10 + 5 + 32 (cargo) or 1 + 10 + 5 + 5 + 5 + 10. */
  unsigned char *o = out + MPE_SPILL_PACKED_HEAD, *lim = out + cap - 64;
  uint64_t first = r < to ? r->t : 0, prev_t = first;
  int32_t prev[2] = { 0, 0 };  /* event id, message partner */
  uint32_t n = 0;
  while (r < to && o < lim)
    {
      unsigned kind = r->aux & 0xffu;
      if (kind == MPE_REC_BARE)
        {
          /* Most records: a short path. */
          *o++ = MPE_REC_BARE;
          o = mpe_spill_put_varint (o, mpe_spill_zz ((int64_t) (r->t
                                                                - prev_t)));
          o = mpe_spill_put_varint (o, mpe_spill_zz ((int64_t) r->id
                                                     - prev[0]));
          prev_t = r->t;
          prev[0] = r->id;
          r++;
          n++;
          continue;
        }
      unsigned ext = mpe_spill_rec_ext (r->aux);
      if (kind > MPE_REC_LOSS || r + 1 + ext > to)
        {
          r++;  /* cannot happen for a logger's own buffer */
          continue;
        }
      int msg = kind == MPE_REC_SEND || kind == MPE_REC_RECV;
      *o++ = (unsigned char) kind;
      o = mpe_spill_put_varint (o, mpe_spill_zz ((int64_t) (r->t - prev_t)));
      o = mpe_spill_put_varint (o, mpe_spill_zz ((int64_t) r->id
                                                 - prev[msg]));
      prev_t = r->t;
      prev[msg] = r->id;
      if (kind == MPE_REC_CARGO)
        {
          memcpy (o, r + 1, 32);
          o += 32;
        }
      else if (msg)
        {
          mpe_spill_msg_t m;
          memcpy (&m, r + 1, sizeof m);
          o = mpe_spill_put_varint (o, mpe_spill_zz (m.tag));
          o = mpe_spill_put_varint (o, m.comm);
          o = mpe_spill_put_varint (o, m.size);
        }
      else if (kind == MPE_REC_LOSS)
        {
          uint64_t lost;
          memcpy (&lost, r + 1, 8);
          o = mpe_spill_put_varint (o, lost);
        }
      r += 1 + ext;
      n++;
    }
  *from = r;
  if (n == 0)
    return 0;
  memcpy (out, &first, 8);
  memcpy (out + 8, &n, 4);
  return (size_t) (o - out);
}

static inline int
mpe_spill_get_varint (const unsigned char **p, const unsigned char *end,
                      uint64_t *v)
{
  uint64_t x = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7)
    {
      unsigned char c = *(*p)++;
      x |= (uint64_t) (c & 0x7f) << shift;
      if (!(c & 0x80))
        {
          *v = x;
          return 0;
        }
    }
  return -1;
}

/* Reading a PACKED payload in batches. */
typedef struct
{
  const unsigned char *p, *end;
  uint64_t t;
  int32_t  id[2];  /* event id, message partner */
  uint32_t left;   /* records not yet read */
} mpe_spill_unpack_t;

/* 0, or -1 when the payload is too short to be one. */
static inline int
mpe_spill_unpack_init (mpe_spill_unpack_t *u, const void *payload,
                       size_t len)
{
  memset (u, 0, sizeof *u);
  if (len < MPE_SPILL_PACKED_HEAD)
    return -1;
  const unsigned char *b = (const unsigned char *) payload;
  memcpy (&u->t, b, 8);
  memcpy (&u->left, b + 8, 4);
  u->p = b + MPE_SPILL_PACKED_HEAD;
  u->end = b + len;
  return 0;
}

/* Up to max events (times in ns since the local origin); 0 at the end.
 * A damaged record ends the payload (u->left says how many were not read). */
static inline size_t
mpe_spill_unpack (mpe_spill_unpack_t *u, uint64_t tick0, uint64_t mult_fp,
                  logfmt_event_t *out, size_t max)
{
  size_t n = 0;
  while (n < max && u->left > 0 && u->p < u->end)
    {
      const unsigned char *p = u->p;
      unsigned kind = *p++;
      uint64_t dt, did;
      if (kind > MPE_REC_LOSS || mpe_spill_get_varint (&p, u->end, &dt)
          || mpe_spill_get_varint (&p, u->end, &did))
        break;
      int msg = kind == MPE_REC_SEND || kind == MPE_REC_RECV;
      uint64_t t = u->t + (uint64_t) mpe_spill_unzz (dt);
      int32_t id = (int32_t) ((int64_t) u->id[msg] + mpe_spill_unzz (did));
      logfmt_event_t *e = &out[n];
      memset (e, 0, offsetof (logfmt_event_t, cargo));
      e->time = mpe_spill_tick_ns (t, tick0, mult_fp);
      e->state = -1;
      if (kind == MPE_REC_BARE || kind == MPE_REC_CARGO)
        {
          e->type = LOGFMT_REC_EVENT;
          e->id = id;
          if (kind == MPE_REC_CARGO)
            {
              if (u->end - p < 32)
                break;
              e->flags = LOGFMT_EVF_CARGO;
              memcpy (e->cargo, p, 32);
              p += 32;
            }
        }
      else if (msg)
        {
          uint64_t tag, comm, size;
          if (mpe_spill_get_varint (&p, u->end, &tag)
              || mpe_spill_get_varint (&p, u->end, &comm)
              || mpe_spill_get_varint (&p, u->end, &size))
            break;
          e->type = kind == MPE_REC_SEND ? LOGFMT_REC_SEND : LOGFMT_REC_RECV;
          e->partner = id;
          e->tag = (int32_t) mpe_spill_unzz (tag);
          e->comm = (uint32_t) comm;
          e->size = size;
        }
      else
        {
          uint64_t lost;
          if (mpe_spill_get_varint (&p, u->end, &lost))
            break;
          e->type = LOGFMT_REC_LOSS;
          e->size = lost;
        }
      u->p = p;
      u->t = t;
      u->id[msg] = id;
      u->left--;
      n++;
    }
  if (n == 0)
    u->p = u->end;
  return n;
}

#endif

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
 *   u32 len (payload bytes)            u32 sum (FNV-1a 32 of the payload)
 *   payload, zero-padded to a multiple of 8
 *
 * Frames are appended at offsets reserved atomically, so a frame that a
 * dying process did not finish leaves zeros or garbage; readers skip to the
 * next 8-byte aligned magic whose checksum holds.
 *
 * Types:
 *  META   text, "key value" lines: rank, size, pid, host, runid, clock
 *         (tsc|mono), tick0, mult (ns per tick as %.17g), mono0 (absolute
 *         local ns of the local origin, test skew included), real0 (unix
 *         ns at the origin).
 *  STATE  text: "start end\tname\tcolor\tformat"
 *  EVENT  text: "id\tname\tcolor\tformat"
 *  SYNC   two int64: local ns since origin, offset ns to add (to reach
 *         rank 0's clock).
 *  COMM   u32 id, i32 kind, u32 size, i32 world ranks[size], then the
 *         name (NUL-terminated).
 *  BLOCK  one logfmt block chunk of thread `thread`; times are ns since the
 *         local origin, not corrected.
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
#define MPE_SPILL_VERSION      1u
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

static inline uint32_t
mpe_spill_sum (const void *p, size_t n)
{
  const unsigned char *b = (const unsigned char *) p;
  uint32_t h = 2166136261u;
  /* Four lanes keep this fast enough for large RAW frames. */
  uint32_t h1 = h, h2 = h ^ 1, h3 = h ^ 2, h4 = h ^ 3;
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    {
      h1 = (h1 ^ b[i]) * 16777619u;
      h2 = (h2 ^ b[i + 1]) * 16777619u;
      h3 = (h3 ^ b[i + 2]) * 16777619u;
      h4 = (h4 ^ b[i + 3]) * 16777619u;
    }
  for (; i < n; i++)
    h1 = (h1 ^ b[i]) * 16777619u;
  return h1 ^ (h2 * 3u) ^ (h3 * 5u) ^ (h4 * 7u);
}

static inline uint64_t
mpe_spill_pad8 (uint64_t n)
{
  return (n + 7u) & ~(uint64_t) 7u;
}

/* Ticks -> ns since the local origin (32.32 fixed-point ns per tick). */
static inline uint64_t
mpe_spill_tick_ns (uint64_t t, uint64_t tick0, uint64_t mult_fp)
{
  if (t <= tick0)
    return 0;
  return (uint64_t) (((unsigned __int128) (t - tick0) * mult_fp) >> 32);
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

#endif

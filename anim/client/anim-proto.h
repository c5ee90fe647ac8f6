/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mpeanim wire protocol (docs/ANIM-PROTOCOL.md is the description):
 * shared by the rank-side client and the window.  Every frame starts with
 * a 4-byte header: u16 total length (header included), u8 type, u8 zero.
 * Integers are little-endian.  No GLib, no MPI.
 */
#ifndef ANIM_PROTO_H
#define ANIM_PROTO_H

#include <stdint.h>
#include <string.h>

#define ANIM_PROTO_MAGIC     "MPEANIM1"
#define ANIM_TOKEN_LEN       32          /* hex characters */
#define ANIM_FRAME_HDR       4
#define ANIM_FRAME_MAX       512         /* largest frame accepted */
#define ANIM_NAME_MAX        200         /* state names/colours on the wire */

enum
{
  ANIM_F_HELLO = 1,   /* magic[8] token[32] i32 rank i32 size i32 pid u32 0 */
  ANIM_F_STATE = 2,   /* i32 start i32 end u8 nlen u8 clen name color */
  ANIM_F_EVENT = 3,   /* u64 time i32 thread i32 id */
  ANIM_F_SEND  = 4,   /* u64 time i32 thread i32 partner i32 tag u32 0 u64 bytes */
  ANIM_F_RECV  = 5,   /* same as SEND */
  ANIM_F_DROPS = 6,   /* u64 dropped so far */
  ANIM_F_END   = 7,   /* u64 records sent u64 dropped */
  ANIM_F_LAST_ = 7
};

#define ANIM_HELLO_LEN  (ANIM_FRAME_HDR + 8 + ANIM_TOKEN_LEN + 16)
#define ANIM_EVENT_LEN  (ANIM_FRAME_HDR + 16)
#define ANIM_MSG_LEN    (ANIM_FRAME_HDR + 32)
#define ANIM_DROPS_LEN  (ANIM_FRAME_HDR + 8)
#define ANIM_END_LEN    (ANIM_FRAME_HDR + 16)
#define ANIM_STATE_MIN  (ANIM_FRAME_HDR + 10)

static inline void
anim_put16 (uint8_t *p, uint16_t v)
{
  p[0] = (uint8_t) v;
  p[1] = (uint8_t) (v >> 8);
}

static inline void
anim_put32 (uint8_t *p, uint32_t v)
{
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

static inline void
anim_put64 (uint8_t *p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

static inline uint16_t
anim_get16 (const uint8_t *p)
{
  return (uint16_t) (p[0] | (p[1] << 8));
}

static inline uint32_t
anim_get32 (const uint8_t *p)
{
  return (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16)
         | ((uint32_t) p[3] << 24);
}

static inline uint64_t
anim_get64 (const uint8_t *p)
{
  return (uint64_t) anim_get32 (p) | ((uint64_t) anim_get32 (p + 4) << 32);
}

static inline void
anim_put_hdr (uint8_t *p, uint16_t len, uint8_t type)
{
  anim_put16 (p, len);
  p[2] = type;
  p[3] = 0;
}

#endif

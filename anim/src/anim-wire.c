/* SPDX-License-Identifier: BSD-3-Clause */
/* Validation of the frames a client sends (anim-wire.h). */
#include "config.h"

#include <string.h>

#include "anim/client/anim-proto.h"
#include "anim-wire.h"

void
anim_wire_init (AnimWire *w, const AnimWireSink *sink, void *user,
                const char *token, int max_procs)
{
  memset (w, 0, sizeof *w);
  w->sink = sink;
  w->user = user;
  w->token = token;
  w->max_procs = max_procs;
  w->rank = -1;
}

/* Constant time: the comparison must not tell how much of a guess was
 * right. */
static int
token_equal (const uint8_t *a, const char *b)
{
  uint8_t diff = 0;
  for (int i = 0; i < ANIM_TOKEN_LEN; i++)
    diff |= a[i] ^ (uint8_t) b[i];
  return diff == 0;
}

/* Well-formed UTF-8 (no overlong forms, surrogates or values past
 * U+10FFFF), as g_utf8_validate accepts; s is NUL-terminated. */
static int
utf8_valid (const unsigned char *s)
{
  while (*s)
    {
      unsigned c = *s++;
      int more;
      uint32_t v, min;
      if (c < 0x80)
        continue;
      if (c >= 0xc2 && c <= 0xdf)
        more = 1, v = c & 0x1f, min = 0x80;
      else if (c >= 0xe0 && c <= 0xef)
        more = 2, v = c & 0x0f, min = 0x800;
      else if (c >= 0xf0 && c <= 0xf4)
        more = 3, v = c & 0x07, min = 0x10000;
      else
        return 0;
      for (int i = 0; i < more; i++, s++)
        {
          if ((*s & 0xc0) != 0x80)
            return 0;
          v = v << 6 | (*s & 0x3fu);
        }
      if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    }
  return 1;
}

/* One complete, length-checked frame: NULL, or why it is rejected. */
static const char *
frame (AnimWire *w, const uint8_t *f, size_t len)
{
  const AnimWireSink *k = w->sink;
  int type = f[2];
  if (f[3] != 0)
    return "reserved byte set";
  if (!w->hello)
    {
      if (type != ANIM_F_HELLO || len != ANIM_HELLO_LEN)
        return "first frame is not HELLO";
      if (memcmp (f + 4, ANIM_PROTO_MAGIC, 8) != 0)
        return "bad magic";
      if (!token_equal (f + 12, w->token))
        return "wrong token";
      int32_t rank = (int32_t) anim_get32 (f + 44);
      int32_t size = (int32_t) anim_get32 (f + 48);
      if (size <= 0 || size > w->max_procs || rank < 0 || rank >= size)
        return "bad rank or size";
      w->hello = 1;
      w->rank = rank;
      k->hello (w->user, rank, size);
      return NULL;
    }
  if (w->ended)
    return "frame after END";
  switch (type)
    {
    case ANIM_F_STATE:
      {
        if (len < ANIM_STATE_MIN)
          return "short STATE";
        size_t nl = f[12], cl = f[13];
        if (len != ANIM_STATE_MIN + nl + cl || nl > ANIM_NAME_MAX || cl > 64)
          return "bad STATE lengths";
        char name[ANIM_NAME_MAX + 1], color[65];
        memcpy (name, f + 14, nl);
        name[nl] = '\0';
        memcpy (color, f + 14 + nl, cl);
        color[cl] = '\0';
        if (!utf8_valid ((const unsigned char *) name))
          return "STATE name is not UTF-8";
        k->state_def (w->user, (int32_t) anim_get32 (f + 4),
                      (int32_t) anim_get32 (f + 8), name, color);
        return NULL;
      }
    case ANIM_F_EVENT:
      if (len != ANIM_EVENT_LEN)
        return "bad EVENT length";
      w->received++;
      k->event (w->user, w->rank, anim_get64 (f + 4),
                (int) anim_get32 (f + 12), (int32_t) anim_get32 (f + 16));
      return NULL;
    case ANIM_F_SEND:
    case ANIM_F_RECV:
      if (len != ANIM_MSG_LEN)
        return "bad message length";
      w->received++;
      k->msg (w->user, w->rank, type == ANIM_F_SEND, anim_get64 (f + 4),
              (int) anim_get32 (f + 12), (int32_t) anim_get32 (f + 16),
              (int32_t) anim_get32 (f + 20), anim_get64 (f + 28));
      return NULL;
    case ANIM_F_DROPS:
      if (len != ANIM_DROPS_LEN)
        return "bad DROPS length";
      k->drops (w->user, w->rank, anim_get64 (f + 4));
      return NULL;
    case ANIM_F_END:
      if (len != ANIM_END_LEN)
        return "bad END length";
      w->ended = 1;
      k->end (w->user, w->rank, anim_get64 (f + 4), anim_get64 (f + 12),
              w->received);
      return NULL;
    default:
      return "unknown frame type";
    }
}

size_t
anim_wire_feed (AnimWire *w, const uint8_t *buf, size_t len,
                const char **error)
{
  size_t off = 0;
  *error = NULL;
  while (len - off >= ANIM_FRAME_HDR)
    {
      const uint8_t *f = buf + off;
      size_t flen = anim_get16 (f);
      if (flen < ANIM_FRAME_HDR || flen > ANIM_FRAME_MAX
          || f[2] < ANIM_F_HELLO || f[2] > ANIM_F_LAST_)
        {
          *error = "bad frame header";
          return off;
        }
      if (len - off < flen)
        break;
      *error = frame (w, f, flen);
      if (*error)
        return off;
      off += flen;
    }
  return off;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the live window's wire parser (anim/src/anim-wire.c)
 * reading what a client sends, as the server does: bytes arrive in
 * chunks, whole frames are consumed, the rest waits for more.
 *   byte 0, bit 0: a valid HELLO precedes the data (the token cannot be
 *                  guessed, and everything after HELLO deserves fuzzing);
 *   byte 0, bits 1-7: chunk size (0: everything at once);
 *   byte 1: the job size in that HELLO. */
#include "config.h"

#include <string.h>

#include "anim/client/anim-proto.h"
#include "anim/src/anim-wire.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static const char token[] = "0123456789abcdef0123456789abcdef";
static volatile uint64_t sink_sum;

static void
hello (void *u, int rank, int size)
{
  (void) u;
  sink_sum += (uint64_t) rank + (uint64_t) size;
}

static void
state_def (void *u, int32_t start, int32_t end, const char *name,
           const char *color)
{
  (void) u;
  sink_sum += (uint64_t) start + (uint64_t) end + strlen (name)
              + strlen (color);
}

static void
event (void *u, int rank, uint64_t t, int thread, int32_t id)
{
  (void) u;
  sink_sum += (uint64_t) rank + t + (uint64_t) thread + (uint64_t) id;
}

static void
msg (void *u, int rank, int is_send, uint64_t t, int thread, int32_t partner,
     int32_t tag, uint64_t bytes)
{
  (void) u;
  sink_sum += (uint64_t) rank + (uint64_t) is_send + t + (uint64_t) thread
              + (uint64_t) partner + (uint64_t) tag + bytes;
}

static void
drops (void *u, int rank, uint64_t total)
{
  (void) u;
  sink_sum += (uint64_t) rank + total;
}

static void
end (void *u, int rank, uint64_t sent, uint64_t dropped, uint64_t received)
{
  (void) u;
  sink_sum += (uint64_t) rank + sent + dropped + received;
}

static const AnimWireSink sink = { hello, state_def, event, msg, drops, end };

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 2)
    return 0;
  AnimWire w;
  anim_wire_init (&w, &sink, NULL, token, 65536);
  uint8_t buf[4096];
  size_t have = 0;
  if (data[0] & 1)
    {
      uint8_t *h = buf;
      anim_put_hdr (h, ANIM_HELLO_LEN, ANIM_F_HELLO);
      memcpy (h + 4, ANIM_PROTO_MAGIC, 8);
      memcpy (h + 12, token, ANIM_TOKEN_LEN);
      anim_put32 (h + 44, 0);
      anim_put32 (h + 48, data[1] ? data[1] : 1);
      anim_put32 (h + 52, 1234);
      anim_put32 (h + 56, 0);
      have = ANIM_HELLO_LEN;
    }
  size_t chunk = data[0] >> 1;
  if (chunk == 0)
    chunk = sizeof buf;
  const uint8_t *p = data + 2, *stop = data + size;
  for (;;)
    {
      size_t n = (size_t) (stop - p);
      if (n > chunk)
        n = chunk;
      if (n > sizeof buf - have)
        n = sizeof buf - have;
      memcpy (buf + have, p, n);
      have += n;
      p += n;
      const char *err;
      size_t used = anim_wire_feed (&w, buf, have, &err);
      if (err)
        break;
      memmove (buf, buf + used, have - used);
      have -= used;
      if (p == stop || (n == 0 && used == 0))
        break;
    }
  return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Block codec 2 (FORMAT.md section 5): every record survives the encoder
 * and logfmt_block_decode, whatever its time delta (each side of the
 * symbol thresholds, huge gaps), its id (negative, sharing a time slot
 * with another id) or type; the encoder writes codec 2, or for a small
 * block whichever of codecs 1 and 2 is smaller; and damaged
 * sections, with the checksum made right again so that the codec checks
 * are the ones that answer, give ECORRUPT with a message, never a crash.
 */
#include "tests/common/tap.h"
#include "logfmt/logfmt.h"
#include "logfmt-internal.h"

#include <stdlib.h>

typedef struct
{
  uint8_t *p;
  size_t len;
  int nblocks;
} sink_t;

/* Keeps the last block. */
static int
keep (void *user, const void *block, size_t len,
      const logfmt_block_info_t *info)
{
  (void) info;
  sink_t *s = user;
  free (s->p);
  s->p = malloc (len);
  if (!s->p)
    return LOGFMT_ENOMEM;
  memcpy (s->p, block, len);
  s->len = len;
  s->nblocks++;
  return 0;
}

/* Record i of the test block: deltas around every boundary of the time
 * symbols, ids that share a slot (1 and 257, -255 and 1), every type. */
static void
make (int i, uint64_t *t, logfmt_event_t *e)
{
  static const uint64_t deltas[] = {
    0, 1, 190, 191, 192, 193, 447, 448, 16318, 16319, 16320, 16321, 65535,
    1u << 20, 5000000000ull, 1ull << 40, 3, 7,
  };
  memset (e, 0, sizeof *e);
  *t += deltas[(i * 7) % (sizeof deltas / sizeof deltas[0])];
  e->time = *t;
  switch (i % 9)
    {
    case 0: e->type = LOGFMT_REC_EVENT; e->id = 1; break;
    case 1: e->type = LOGFMT_REC_EVENT; e->id = 257; break;
    case 2: e->type = LOGFMT_REC_EVENT; e->id = -255; break;
    case 3: e->type = LOGFMT_REC_EVENT; e->id = INT32_MIN; break;
    case 4:
      e->type = LOGFMT_REC_SEND; e->partner = 3; e->tag = -7; e->comm = 2;
      e->size = UINT64_MAX;
      break;
    case 5: e->type = LOGFMT_REC_RECV; e->partner = 0; e->tag = 9;
      e->size = 8;
      break;
    case 6: e->type = LOGFMT_REC_LOSS; e->size = (uint64_t) i; break;
    case 7:
      e->type = LOGFMT_REC_EVENT; e->id = 900; e->flags = LOGFMT_EVF_CARGO;
      for (int k = 0; k < LOGFMT_CARGO_SIZE; k++)
        e->cargo[k] = (uint8_t) (i * 31 + k);
      break;
    default: e->type = LOGFMT_REC_EVENT; e->id = INT32_MAX; break;
    }
}

static int
same (const logfmt_event_t *a, const logfmt_event_t *b)
{
  return a->time == b->time && a->type == b->type && a->flags == b->flags
         && a->id == b->id && a->partner == b->partner && a->tag == b->tag
         && a->comm == b->comm && a->size == b->size
         && (!(a->flags & LOGFMT_EVF_CARGO)
             || memcmp (a->cargo, b->cargo, LOGFMT_CARGO_SIZE) == 0);
}

/* Encodes n records as one block (block size n) into *s. */
static int
encode (int n, sink_t *s, logfmt_event_t *ev)
{
  logfmt_encoder_opts_t o = { .size = sizeof o, .stream = 3,
                              .block_events = (uint32_t) n };
  logfmt_encoder_t *e;
  int rc = logfmt_encoder_new (&o, keep, s, &e);
  if (rc)
    return rc;
  uint64_t t = 1000;
  for (int i = 0; i < n; i++)
    make (i, &t, &ev[i]);
  rc = logfmt_encoder_add (e, ev, (size_t) n);
  if (!rc)
    rc = logfmt_encoder_flush (e);
  logfmt_encoder_free (e);
  return rc;
}

/* The checksum over a block chunk, made right after a change. */
static void
fix_crc (uint8_t *b, size_t len)
{
  uint64_t plen = ld64 (b + 8);
  (void) len;
  st32 (b + LOGFMT__CHUNK_HDR + plen,
        logfmt__chunk_crc (b, b + LOGFMT__CHUNK_HDR, plen,
                           LOGFMT__BLOCK_CRC_SKIP));
}

/* Decodes a (damaged) copy: 0, or the code with a message set. */
static int
decode_copy (const uint8_t *b, size_t len, int *msg_ok)
{
  logfmt_event_t *out = NULL;
  size_t n = 0;
  logfmt_error_t err = { 0 };
  int rc = logfmt_block_decode (b, len, NULL, &out, &n, &err);
  *msg_ok = rc == 0 || err.message[0] != 0;
  free (out);
  return rc;
}

/* Size of the block of n records with codec 2 forced (or not). */
static size_t
block_size (int n, bool force_split, int *codec, logfmt_event_t *ev)
{
  uint32_t keep_try = logfmt__split_try_joint;
  if (force_split)
    logfmt__split_try_joint = 0;
  sink_t s = { 0 };
  int rc = encode (n, &s, ev);
  logfmt__split_try_joint = keep_try;
  size_t len = rc == 0 && s.p ? s.len : 0;
  *codec = len ? s.p[LOGFMT__CHUNK_HDR + 32] : -1;
  free (s.p);
  return len;
}

int
main (void)
{
  static const int sizes[] = { 1, 2, 9, 100, 5000 };
  static logfmt_event_t ev[5000];
  /* The choice on small blocks: never larger than codec 2 alone. */
  for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++)
    {
      int n = sizes[c], cs, cd;
      size_t split = block_size (n, true, &cs, ev);
      size_t dflt = block_size (n, false, &cd, ev);
      ok (cs == LOGFMT__CODEC_SPLIT && dflt > 0 && dflt <= split
          && (n < 4096 || cd == LOGFMT__CODEC_SPLIT),
          "%d records: codec %d, %zu bytes (codec 2: %zu)", n, cd, dflt,
          split);
    }
  /* The rest on codec 2. */
  logfmt__split_try_joint = 0;
  for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++)
    {
      int n = sizes[c];
      sink_t s = { 0 };
      int rc = encode (n, &s, ev);
      ok (rc == 0 && s.nblocks == 1 && s.p
          && s.p[LOGFMT__CHUNK_HDR + 32] == LOGFMT__CODEC_SPLIT,
          "%d records: one block, codec 2 (rc %d)", n, rc);
      if (rc || !s.p)
        continue;
      logfmt_event_t *out = NULL;
      size_t got = 0;
      logfmt_block_info_t info;
      logfmt_error_t err = { 0 };
      rc = logfmt_block_decode (s.p, s.len, &info, &out, &got, &err);
      int bad = 0;
      for (size_t i = 0; rc == 0 && i < got; i++)
        bad += !same (&out[i], &ev[i]);
      ok (rc == 0 && got == (size_t) n && bad == 0
          && info.t_first == ev[0].time && info.t_last == ev[n - 1].time,
          "%d records decode to what went in (rc %d %s, %d differ)", n, rc,
          err.message, bad);
      free (out);
      free (s.p);
    }

  /* Damage: every single byte of the sections of a 100-record block
   * changed (checksum fixed), then a few hundred random multi-byte
   * changes.  Each must decode or fail with ECORRUPT and a message. */
  sink_t s = { 0 };
  if (encode (100, &s, ev) != 0 || !s.p)
    {
      ok (0, "encode the block to damage");
      return exit_status ();
    }
  uint8_t *copy = malloc (s.len);
  size_t body = LOGFMT__CHUNK_HDR + LOGFMT__BLOCK_HDR;
  size_t end = s.len - LOGFMT__CHUNK_CRC;
  int tried = 0, wrong = 0, nomsg = 0, errors = 0;
  for (size_t at = body; at < end; at++)
    for (int flip = 1; flip < 256; flip <<= 2)
      {
        memcpy (copy, s.p, s.len);
        copy[at] ^= (uint8_t) flip;
        fix_crc (copy, s.len);
        int msg_ok;
        int rc = decode_copy (copy, s.len, &msg_ok);
        tried++;
        if (rc != 0 && rc != LOGFMT_ECORRUPT)
          wrong++;
        errors += rc != 0;
        nomsg += !msg_ok;
      }
  ok (wrong == 0 && nomsg == 0 && errors > 0,
      "%d single-byte changes: %d rejected, all as ECORRUPT with a message"
      " (%d other codes, %d without message)", tried, errors,
      wrong, nomsg);
  uint64_t seed = 12345;
  wrong = nomsg = errors = 0;
  for (int k = 0; k < 2000; k++)
    {
      memcpy (copy, s.p, s.len);
      for (int j = 0; j < 4; j++)
        {
          seed = seed * 6364136223846793005ull + 1442695040888963407ull;
          size_t at = body + (size_t) (seed >> 33) % (end - body);
          copy[at] = (uint8_t) (seed >> 17);
        }
      fix_crc (copy, s.len);
      int msg_ok;
      int rc = decode_copy (copy, s.len, &msg_ok);
      if (rc != 0 && rc != LOGFMT_ECORRUPT)
        wrong++;
      errors += rc != 0;
      nomsg += !msg_ok;
    }
  ok (wrong == 0 && nomsg == 0 && errors > 1000,
      "2000 random 4-byte changes: %d rejected as ECORRUPT with a message"
      " (%d other codes, %d without message)", errors, wrong, nomsg);

  /* A section claiming more than the block holds, and a raw size that
   * disagrees with the sections. */
  memcpy (copy, s.p, s.len);
  st32 (copy + body + 4, 0x7fffffff);
  fix_crc (copy, s.len);
  int msg_ok;
  ok (decode_copy (copy, s.len, &msg_ok) == LOGFMT_ECORRUPT && msg_ok,
      "a section longer than the block: ECORRUPT");
  memcpy (copy, s.p, s.len);
  st32 (copy + LOGFMT__CHUNK_HDR + 28,
        ld32 (copy + LOGFMT__CHUNK_HDR + 28) + 1);
  fix_crc (copy, s.len);
  ok (decode_copy (copy, s.len, &msg_ok) == LOGFMT_ECORRUPT && msg_ok,
      "raw size one more than the sections: ECORRUPT");
  free (copy);
  free (s.p);
  return exit_status ();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes the seed corpora of the spill and ring fuzz targets: small spill
 * files with every frame type (and damaged variants), small ring files
 * with one and two parts.  Not built by make; the committed corpora came
 * from it (and from real files, see docs/SPILL-FORMAT.md):
 *   cc -I. -Ispill -Ilogfmt/include -Ibuild tests/spill/mkcorpus.c \
 *     build/spill/.libs/libspillfmt.a build/logfmt/.libs/liblogfmt.so \
 *     -o mkcorpus && ./mkcorpus tests/spill
 * corpus-spill/spill-NN are its output at spill format version 2 (kept:
 * old files must still read); v3-spill-NN at version 3 (packed runs);
 * corpus-ring/ring-NN at ring version 1, ring-v2-NN at version 2 (frame
 * areas).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spillfmt.h"

static unsigned char f[65536];
static size_t at;

static void
frame (int type, int thread, const void *p, size_t len)
{
  mpe_spill_frame_t h = { MPE_SPILL_FRAME_MAGIC, (uint16_t) type,
                          (uint16_t) thread, (uint32_t) len,
                          mpe_spill_sum (p, len) };
  memcpy (f + at, &h, sizeof h);
  if (len)
    memcpy (f + at + sizeof h, p, len);
  memset (f + at + sizeof h + len, 0, mpe_spill_pad8 (len) - len);
  at += sizeof h + mpe_spill_pad8 (len);
}

static void
save (const char *dir, const char *name, const void *p, size_t len)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/%s", dir, name);
  FILE *o = fopen (path, "wb");
  if (!o || fwrite (p, 1, len, o) != len || fclose (o) != 0)
    {
      perror (path);
      exit (1);
    }
}

static int
block_cb (void *user, const void *block, size_t len,
          const logfmt_block_info_t *info)
{
  (void) user;
  (void) info;
  frame (MPE_SPILL_BLOCK, 0, block, len);
  return 0;
}

static mpe_spill_rec_t recs[4096];
static size_t nrecs;

static void
records (unsigned seed, size_t want, uint32_t tag)
{
  nrecs = 0;
  uint64_t t = 1000000;
  unsigned char cargo[32] = "cargo bytes, thirty-two of them";
  while (nrecs + 3 <= want)
    {
      seed = seed * 1103515245u + 12345u;
      unsigned kind = (seed >> 16) % 10;
      kind = kind < 6 ? MPE_REC_BARE : kind - 5;
      t += (seed >> 8) % 5000;
      recs[nrecs].t = t;
      recs[nrecs].id = kind == MPE_REC_SEND || kind == MPE_REC_RECV
                       ? (int32_t) (seed % 4) : 600 + (int32_t) (seed % 3);
      recs[nrecs].aux = kind | tag;
      if (kind == MPE_REC_CARGO)
        memcpy (&recs[nrecs + 1], cargo, 32);
      else if (kind == MPE_REC_SEND || kind == MPE_REC_RECV)
        {
          mpe_spill_msg_t m = { (int32_t) (seed % 7) - 1, 1 + seed % 3,
                                seed % 100000 };
          memcpy (&recs[nrecs + 1], &m, 16);
        }
      else if (kind == MPE_REC_LOSS)
        {
          uint64_t lost[2] = { seed % 1000, 0 };
          memcpy (&recs[nrecs + 1], lost, 16);
        }
      nrecs += 1 + mpe_spill_rec_ext (recs[nrecs].aux);
    }
}

static void
header (uint32_t version)
{
  memcpy (f, MPE_SPILL_MAGIC, 8);
  uint32_t hs = MPE_SPILL_HEADER_SIZE;
  memcpy (f + 8, &version, 4);
  memcpy (f + 12, &hs, 4);
  at = 16;
}

static void
defs (void)
{
  char meta[512];
  int n = snprintf (meta, sizeof meta,
                    "rank 1\nsize 2\npid 4242\nhost node1\nrunid 5f00\n"
                    "clock tsc\ntick0 900000\nmult 0.33333333333333331\n"
                    "mult_fp 1431655765\nmono0 123456789\nreal0 "
                    "1795000000000000000\nring /dev/shm/mpe-5f00-000001-4242\n"
                    "creator mpe 1.0\n");
  frame (MPE_SPILL_META, 0, meta, (size_t) n);
  int64_t s0[2] = { 0, 0 }, s1[2] = { 2000000000, 35000 };
  frame (MPE_SPILL_SYNC, 0, s0, 16);
  const char st[] = "600 601\tWork\tred\tx=%d";
  frame (MPE_SPILL_STATE, 0, st, sizeof st - 1);
  const char ev[] = "602\tTick\tblue\t";
  frame (MPE_SPILL_EVENT, 0, ev, sizeof ev - 1);
  unsigned char comm[64];
  uint32_t id = 1, size = 2;
  int32_t kind = 2, ranks[2] = { 0, 1 };
  memcpy (comm, &id, 4);
  memcpy (comm + 4, &kind, 4);
  memcpy (comm + 8, &size, 4);
  memcpy (comm + 12, ranks, 8);
  memcpy (comm + 20, "split", 6);
  frame (MPE_SPILL_COMM, 0, comm, 26);
  frame (MPE_SPILL_SYNC, 0, s1, 16);
}

int
main (int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : ".";
  char sd[4096], rd[4096], name[64];
  snprintf (sd, sizeof sd, "%s/corpus-spill", dir);
  snprintf (rd, sizeof rd, "%s/corpus-ring", dir);
  unsigned char pk[16384];

  /* Spill files: definitions plus data frames of each kind. */
  for (int v = 0; v < 20; v++)
    {
      header (MPE_SPILL_VERSION);
      defs ();
      records (17u + (unsigned) v, 40 + 30 * (size_t) v, 0x100);
      const mpe_spill_rec_t *from = recs;
      size_t len = mpe_spill_pack (&from, recs + nrecs, pk, sizeof pk);
      frame (MPE_SPILL_PACKED, (uint16_t) (v % 3), pk, len);
      if (v % 2)
        frame (MPE_SPILL_RAW, 0, recs, (v % 4 + 1) * 3 * sizeof *recs);
      if (v % 3 == 0)
        frame (MPE_SPILL_END, 0, NULL, 0);
      if (v == 4)
        f[at - 40] ^= 0x55;            /* a damaged frame in the middle */
      if (v == 5)
        memset (f + 300, 0, 40);       /* a torn frame */
      snprintf (name, sizeof name, "spill-%02d.spill", v);
      save (sd, name, f, v == 7 ? at - 13 : at);  /* 7: cut short */
    }
  /* A version 1 file with a logfmt BLOCK frame. */
  header (1);
  defs ();
  {
    logfmt_encoder_t *enc;
    logfmt_encoder_opts_t o = { sizeof o, 0, 0, 0 };
    if (logfmt_encoder_new (&o, block_cb, NULL, &enc) == 0)
      {
        logfmt_event_t ev[8];
        memset (ev, 0, sizeof ev);
        for (int i = 0; i < 8; i++)
          {
            ev[i].type = LOGFMT_REC_EVENT;
            ev[i].time = 1000 + 10 * (uint64_t) i;
            ev[i].id = 600 + (i & 1);
            ev[i].state = -1;
          }
        logfmt_encoder_add (enc, ev, 8);
        logfmt_encoder_flush (enc);
        logfmt_encoder_free (enc);
      }
  }
  save (sd, "spill-v1-block.spill", f, at);

  /* Ring files: one part and two, tags, a round boundary, torn ends. */
  static unsigned char r[MPE_RING_HEADER_SIZE + 1024 * 16];
  for (int v = 0; v < 20; v++)
    {
      memset (r, 0, sizeof r);
      mpe_ring_header_t *h = (mpe_ring_header_t *) (void *) r;
      memcpy (h->magic, MPE_RING_MAGIC, 8);
      h->version = MPE_RING_VERSION;
      h->thread = (uint32_t) v % 3;
      h->cap = 64 + 32 * (uint64_t) v;
      h->split = v % 2 ? h->cap / 2 : h->cap;
      h->tag[0] = 0x300;
      h->tag[1] = 0x200;
      h->live[0] = 1;
      h->live[1] = v % 2;
      snprintf (h->spill, sizeof h->spill,
                "/tmp/spill/mpe-5f00-000001-4242.spill");
      mpe_spill_rec_t *slot = (mpe_spill_rec_t *) (void *) (r
                                                   + MPE_RING_HEADER_SIZE);
      records (99u + (unsigned) v, (size_t) h->split - (size_t) v % 3, 0x300);
      memcpy (slot, recs, nrecs * sizeof *recs);
      if (v % 2)
        {
          records (7u + (unsigned) v, (size_t) (h->cap - h->split), 0x200);
          for (size_t i = 0; i < nrecs; i++)
            recs[i].t -= 900000;   /* the older part */
          memcpy (slot + h->split, recs, nrecs * sizeof *recs);
        }
      size_t len = MPE_RING_HEADER_SIZE + (size_t) h->cap * 16;
      snprintf (name, sizeof name, "ring-%02d.ring", v);
      save (rd, name, r, len);
    }

  /* Version 2: two frame areas of packed frames (f[] builds them), one
   * or both live, lengths short of the frames, as long, or past them. */
  static unsigned char r2[8192 + 2 * 16384];
  for (int v = 0; v < 8; v++)
    {
      memset (r2, 0, sizeof r2);
      mpe_ring_header_t *h = (mpe_ring_header_t *) (void *) r2;
      memcpy (h->magic, MPE_RING_MAGIC, 8);
      h->version = 2;
      h->cap = 200;
      h->split = 200;
      h->tag[0] = 0x500;
      h->live[0] = 1;
      h->frames_off = 8192;
      h->frames_cap = 16384;
      for (int a = 0; a < 2; a++)
        {
          at = 0;
          for (int k = 0; k < 2 + v % 3; k++)
            {
              records (300u + (unsigned) (v * 4 + a * 2 + k), 120, 0x400);
              const mpe_spill_rec_t *from = recs;
              size_t len = mpe_spill_pack (&from, recs + nrecs, pk, 3000);
              frame (MPE_SPILL_PACKED, 0, pk, len);
            }
          memcpy (r2 + 8192 + (size_t) a * 16384, f, at);
          h->frames_len[a] = v == 5 ? at / 2 : v == 6 ? at + 64 : at;
          h->frames_gen[a] = (uint32_t) (v % 2 ? 2 - a : 1 + a);
          h->frames_live[a] = a == 0 || v % 4 != 3;
        }
      records (900u + (unsigned) v, 200, 0x500);
      memcpy (r2 + MPE_RING_HEADER_SIZE, recs, nrecs * sizeof *recs);
      snprintf (name, sizeof name, "ring-v2-%02d.ring", v);
      save (rd, name, r2, sizeof r2);
    }
  return 0;
}

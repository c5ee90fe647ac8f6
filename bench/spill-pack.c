/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The spill packer (spill/spill-codec.c) on what a loop logging as fast as
 * it can gives it: 32,768 records entering and leaving one state, tick
 * deltas of 20-32, and here and there one the host stretched (300 more:
 * a preemption, a page walk), packed over and over (the packer alone, its
 * records in the cache), with AVX2 and without.  Then the same packing
 * as libmpe does it in the logger's loop: a window of 8,192 records,
 * each stamped with the counter libmpe reads and stored into a 32 MB
 * ring, packed once full, the packing timed apart.  Then the merge's
 * side: the same records unpacked into events in batches of 256 and of
 * 4,096, and read by its first pass (messages only).  Prints ns a record
 * (the best of the rounds) and bytes a record.
 *
 *   bench/spill-pack [ROUNDS]
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spillfmt.h"
#include "bench-clock.h"

/* N records packed over and over; the loop's windows as libmpe's
 * (PACK_WINDOW, mpe/src/mpe-flush.c) in a ring as its 32 MB buffer. */
enum { N = 32768, WINDOW = 8192, OUT = 256 * 1024, RING = 2 * 1024 * 1024 };

static unsigned char out[OUT];

/* Packs r[0, n) into frames of out; returns the bytes. */
static size_t
pack_all (const mpe_spill_rec_t *r, size_t n)
{
  size_t bytes = 0;
  const mpe_spill_rec_t *p = r;
  while (p < r + n)
    {
      size_t len = mpe_spill_pack (&p, r + n, out, sizeof out);
      if (len == 0)
        break;
      bytes += len;
    }
  return bytes;
}

/* Records with a stretched delta about every `every` (0: none). */
static void
fill (mpe_spill_rec_t *r, size_t n, unsigned every)
{
  uint64_t t = 1000;
  srand (1);
  for (size_t i = 0; i < n; i++)
    {
      t += 20 + (i * 7919) % 13;
      if (every && (unsigned) rand () % every == 0)
        t += 300;
      r[i].t = t;
      r[i].id = 600 + (int32_t) (i & 1);
      r[i].aux = MPE_REC_BARE;
    }
}

static void
hot (mpe_spill_rec_t *r, unsigned every, int rounds)
{
  fill (r, N, every);
  for (int avx2 = 1; avx2 >= 0; avx2--)
    {
      mpe_spill__avx2 = avx2 ? -1 : 0;
      double best = 1e9;
      size_t bytes = 0;
      for (int k = 0; k < rounds; k++)
        {
          double t0 = bench_now ();
          for (int j = 0; j < 20; j++)
            bytes = pack_all (r, N);
          double ns = (bench_now () - t0) / (20.0 * N) * 1e9;
          if (ns < best)
            best = ns;
        }
      printf ("hot, a stretched delta %s%-5u %-9s %6.3f ns a record, "
              "%.3f bytes\n", every ? "every " : "never ", every,
              avx2 && mpe_spill__avx2 ? "AVX2" : "no AVX2", best,
              (double) bytes / N);
    }
  mpe_spill__avx2 = -1;
}

/* The logger's loop: the packing of each full window, timed apart. */
static void
loop (mpe_spill_rec_t *ring, int rounds)
{
  double best_pack = 1e9, best_loop = 1e9;
  for (int k = 0; k < rounds; k++)
    {
      double pack = 0, t0 = bench_now ();
      size_t from = 0;
      for (size_t i = 0; i < RING; i++)
        {
          mpe_spill_rec_t *r = &ring[i];
          r->t = bench_stamp ();
          r->id = 600 + (int32_t) (i & 1);
          r->aux = MPE_REC_BARE;
          __asm__ volatile ("" ::: "memory");
          if (i + 1 - from == WINDOW)
            {
              double p0 = bench_now ();
              pack_all (ring + from, WINDOW);
              pack += bench_now () - p0;
              from = i + 1;
            }
        }
      double all = bench_now () - t0;
      if (pack / RING < best_pack)
        best_pack = pack / RING;
      if ((all - pack) / RING < best_loop)
        best_loop = (all - pack) / RING;
    }
  printf ("in the loop: packing %.3f ns a record, the loop itself %.3f ns "
          "a record\n", best_pack * 1e9, best_loop * 1e9);
}

/* The merge's side: the packed records read back, as its second pass
 * does (mpe_spill_unpack, batches of `batch` events) and as its first
 * (mpe_spill_unpack_msgs: only messages come out). */
static void
unpack (mpe_spill_rec_t *r, unsigned every, int rounds)
{
  static unsigned char buf[4 * N];
  static logfmt_event_t ev[4096];
  fill (r, N, every);
  size_t len = 0;
  for (const mpe_spill_rec_t *p = r; p < r + N;)
    {
      size_t l = mpe_spill_pack (&p, r + N, buf + len, sizeof buf - len);
      if (l == 0)
        return;
      len += mpe_spill_pad8 (l);
    }
  static const size_t batches[] = { 256, 4096, 0 };
  for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++)
    {
      double best = 1e9;
      for (int k = 0; k < rounds; k++)
        {
          size_t got = 0;
          double t0 = bench_now ();
          for (int j = 0; j < 20; j++)
            {
              mpe_spill_unpack_t u;
              if (mpe_spill_unpack_init (&u, buf, len) != 0)
                return;
              size_t n;
              while ((n = batches[b]
                            ? mpe_spill_unpack (&u, 500, 2ull << 32, ev,
                                                batches[b])
                            : mpe_spill_unpack_msgs (&u, 500, 2ull << 32, ev,
                                                     256)) > 0)
                got += n;
              got += batches[b] ? 0 : N;
            }
          double ns = (bench_now () - t0) / (double) got * 1e9;
          if (ns < best)
            best = ns;
        }
      if (batches[b])
        printf ("unpack, a stretched delta %s%-5u batches of %-4zu %6.3f ns "
                "a record\n", every ? "every " : "never ", every, batches[b],
                best);
      else
        printf ("first pass, a stretched delta %s%-5u          %6.3f ns "
                "a record\n", every ? "every " : "never ", every, best);
    }
}

int
main (int argc, char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 10;
  if (rounds < 1)
    rounds = 1;
  mpe_spill_rec_t *r = malloc (RING * sizeof *r);
  if (!r)
    {
      fprintf (stderr, "spill-pack: out of memory\n");
      return 1;
    }
  /* Faulted in before any timing. */
  for (size_t o = 0; o < RING * sizeof *r; o += 4096)
    ((volatile char *) r)[o] = 1;
  static const unsigned every[] = { 0, 1000, 350, 100 };
  for (size_t i = 0; i < sizeof every / sizeof every[0]; i++)
    hot (r, every[i], rounds);
  loop (r, rounds);
  unpack (r, 0, rounds);
  unpack (r, 350, rounds);
  free (r);
  return 0;
}

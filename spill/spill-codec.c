/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Record codec of the spill format (docs/SPILL-FORMAT.md): the frame
 * checksum, PACKED payloads (what a spill writes, and their reading), and
 * the decoding of in-memory records (ring files, RAW frames).
 */
#include "config.h"

#include <string.h>
#if defined __SSE2__
#include <emmintrin.h>
#endif
#if defined __x86_64__ && defined __GNUC__
#include <immintrin.h>
#endif

#include "spillfmt.h"

enum
{
  PACKED_HEAD = 12,   /* u64 first tick, u32 record count */
  RUN = 0x80,         /* kind byte RUN | n: n narrow BARE records follow
                         (n = 1..63), 2 bytes each */
  ALT = 0xc0,         /* kind byte ALT | n: n alternating BARE records
                         (n = 1..63), 1 byte each; ALT alone: a u16 n
                         follows (version 4) */
  RUN_MAX = 63,
  ALT_LONG = 65528,   /* records an alternating run is cut at: even, and
                         a multiple of the eight the run's loop tests at
                         once */
  ALT_EXC_MAX = 255,  /* exceptions of a long run, at most */
  ALT_EXC_BYTES = 10, /* bytes of an exception, at most (u16, varint of
                         a delta >> 8) */
  NARROW_MAX = 16     /* records in one narrow run */
};

/* Frame checksum: four lanes of 64-bit words (xor, multiply, fold), fast
 * enough to run on every spill; catches torn and overwritten frames. */
uint32_t
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

/* Decodes in-memory records [*p, end) into at most max events; advances
 * *p past what was used and returns the number of events.  A record whose
 * extension runs past `end` is dropped (a torn write). */
size_t
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
        case MPE_REC_METRIC:
          {
            mpe_spill_metric_t m;
            memcpy (&m, r + 1, sizeof m);
            e->type = MPE_SPILL_EV_METRIC;
            e->id = r->id;
            e->partner = (int32_t) m.object;
            e->size = (uint64_t) m.value;
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

static inline unsigned char *
put_varint (unsigned char *o, uint64_t v)
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
zz (int64_t v)
{
  return ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
}

static inline int64_t
unzz (uint64_t v)
{
  return (int64_t) (v >> 1) ^ -(int64_t) (v & 1);
}

/* A long run's deltas of 256 or more (a preemption, a page walk: one in
 * ~350 records in a loop logging as fast as it can) are exceptions: the
 * low byte in its place, the rest after the run's bytes, so that they
 * do not end the run and the eight-at-a-time test needs no second look
 * at the bytes. */
typedef struct
{
  uint32_t at;     /* index in the run */
  uint64_t high;   /* delta >> 8 */
} alt_exc_t;

typedef struct
{
  alt_exc_t *v;
  size_t     n, cap;
} alt_excs_t;

#if defined __x86_64__ && defined __GNUC__
#define HAVE_ALT8 1
/* The tick deltas' low bytes, in record order, of the eight records
 * whose deltas d0-d3 hold (lanes 0: records 0 2 4 6; lanes 1: 1 3 5 7),
 * to o. */
__attribute__ ((target ("avx2"))) static inline void
alt8_out (__m256i d0, __m256i d1, __m256i d2, __m256i d3, unsigned char *o)
{
  __m256i e = _mm256_or_si256 (
      _mm256_or_si256 (d0, _mm256_slli_epi64 (d1, 8)),
      _mm256_or_si256 (_mm256_slli_epi64 (d2, 16),
                       _mm256_slli_epi64 (d3, 24)));
  __m128i u = _mm_unpacklo_epi8 (_mm256_castsi256_si128 (e),
                                 _mm256_extracti128_si256 (e, 1));
  _mm_storel_epi64 ((__m128i *) (void *) o, u);
}

/* alt_run's test eight records at a time with AVX2, no shuffle on the
 * way in (the spill of a loop logging as fast as it can runs on that
 * loop's critical path; with long runs, exceptions and the test by
 * differences, 2.8 -> 1.2 TSC ticks a record packed over and over on a
 * 2.5 GHz Xeon, Cascade Lake).  Records r[0, max) are the run's from
 * index `at`; returns how many (a multiple of 8) passed, their bytes at
 * o, their exceptions added to x; *t becomes the tick of the last. */
__attribute__ ((target ("avx2"))) static size_t
alt8 (const mpe_spill_rec_t *r, uint64_t *t, uint32_t a, uint32_t b,
      unsigned char *o, size_t max, size_t at, alt_excs_t *x)
{
  if (max < 8)
    return 0;
  /* Each 32-byte load holds records 2j (lane 0) and 2j + 1 (lane 1);
   * less the same load one record back, its tick words are the two
   * records' deltas.  The first eight: tick words below 256, id/kind
   * words equal want's; the first record's predecessor may not be in
   * memory before it, its tick is *t. */
  const __m256i *v = (const __m256i *) (const void *) r;
  {
    const __m256i want = _mm256_set_epi64x ((int64_t) b, 0, (int64_t) a, 0);
    const __m256i test = _mm256_set_epi64x (0xffffffffffll, ~(int64_t) 0xff,
                                            0xffffffffffll, ~(int64_t) 0xff);
    const __m256i *back = (const __m256i *) (const void *) (r - 1);
    __m256i a0 = _mm256_loadu_si256 (v), a1 = _mm256_loadu_si256 (v + 1);
    __m256i a2 = _mm256_loadu_si256 (v + 2), a3 = _mm256_loadu_si256 (v + 3);
    __m256i b0 = _mm256_blend_epi32 (_mm256_permute4x64_epi64 (a0, 0),
                                     _mm256_set1_epi64x ((int64_t) *t), 0x03);
    __m256i d0 = _mm256_sub_epi64 (a0, b0);
    __m256i d1 = _mm256_sub_epi64 (a1, _mm256_loadu_si256 (back + 1));
    __m256i d2 = _mm256_sub_epi64 (a2, _mm256_loadu_si256 (back + 2));
    __m256i d3 = _mm256_sub_epi64 (a3, _mm256_loadu_si256 (back + 3));
    /* Tick words from the deltas, id/kind words from the records. */
    __m256i x0 = _mm256_blend_epi32 (d0, _mm256_xor_si256 (a0, want), 0xcc);
    __m256i x1 = _mm256_blend_epi32 (d1, _mm256_xor_si256 (a1, want), 0xcc);
    __m256i x2 = _mm256_blend_epi32 (d2, _mm256_xor_si256 (a2, want), 0xcc);
    __m256i x3 = _mm256_blend_epi32 (d3, _mm256_xor_si256 (a3, want), 0xcc);
    __m256i bad = _mm256_or_si256 (_mm256_or_si256 (x0, x1),
                                   _mm256_or_si256 (x2, x3));
    if (!_mm256_testz_si256 (bad, test))
      return 0;
    alt8_out (d0, d1, d2, d3, o);
  }
  /* The rest by differences alone: a record's id/aux word less its
   * predecessor's is a - b (or b - a) exactly when its id is the one
   * expected and its aux is its predecessor's, so BARE as the first
   * eight were (the whole aux: another round's tag ends this loop, and
   * the caller's four at a time go on). */
  const __m256i want = _mm256_set_epi64x ((int64_t) ((uint64_t) b - a), 0,
                                          (int64_t) ((uint64_t) a - b), 0);
  const __m256i test = _mm256_set_epi64x (~(int64_t) 0, ~(int64_t) 0xff,
                                          ~(int64_t) 0, ~(int64_t) 0xff);
  const __m256i ids = _mm256_set_epi64x (~(int64_t) 0, 0, ~(int64_t) 0, 0);
  size_t k = 8;
  for (v += 4, o += 8; k + 8 <= max; k += 8, v += 4, o += 8)
    {
      const __m256i *back = (const __m256i *) (const void *)
                            ((const mpe_spill_rec_t *) (const void *) v - 1);
      __m256i d0 = _mm256_sub_epi64 (_mm256_loadu_si256 (v),
                                     _mm256_loadu_si256 (back));
      __m256i d1 = _mm256_sub_epi64 (_mm256_loadu_si256 (v + 1),
                                     _mm256_loadu_si256 (back + 1));
      __m256i d2 = _mm256_sub_epi64 (_mm256_loadu_si256 (v + 2),
                                     _mm256_loadu_si256 (back + 2));
      __m256i d3 = _mm256_sub_epi64 (_mm256_loadu_si256 (v + 3),
                                     _mm256_loadu_si256 (back + 3));
      __m256i bad = _mm256_or_si256 (
          _mm256_or_si256 (_mm256_xor_si256 (d0, want),
                           _mm256_xor_si256 (d1, want)),
          _mm256_or_si256 (_mm256_xor_si256 (d2, want),
                           _mm256_xor_si256 (d3, want)));
      if (_mm256_testz_si256 (bad, test))
        {
          alt8_out (d0, d1, d2, d3, o);
          continue;
        }
      /* An id or an aux: the run ends in these eight.  Else a delta of
       * 256 or more: these eight one by one. */
      if (!_mm256_testz_si256 (bad, ids) || x->cap - x->n < 8)
        break;
      for (size_t j = k; j < k + 8; j++)
        {
          uint64_t d = r[j].t - r[j - 1].t;
          o[j - k] = (unsigned char) d;
          if (d >> 8)
            x->v[x->n++] = (alt_exc_t) { (uint32_t) (at + j), d >> 8 };
        }
    }
  *t = r[k - 1].t;
  return k;
}

int mpe_spill__avx2 = -1;

static int
have_avx2 (void)
{
  int v = __atomic_load_n (&mpe_spill__avx2, __ATOMIC_RELAXED);
  if (v < 0)
    {
      __builtin_cpu_init ();
      v = __builtin_cpu_supports ("avx2") ? 1 : 0;
      __atomic_store_n (&mpe_spill__avx2, v, __ATOMIC_RELAXED);
    }
  return v;
}
#else
int mpe_spill__avx2 = 0;
#endif

/* alt_run's test four records at a time, each delta below 256, at most
 * max of them; returns how many (a multiple of 4) passed, their bytes at
 * o; *t becomes the tick of the last. */
static size_t
alt4 (const mpe_spill_rec_t *r, uint64_t *t, uint32_t a, uint32_t b,
      unsigned char *o, size_t max)
{
  size_t k = 0;
#if defined __SSE2__ && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  /* Two records at a time: lo holds the ticks of records 0 and 2, hi
   * those of 1 and 3.  0.91 -> 0.66 ns a record on an AMD EPYC (Zen 3),
   * where the spill runs on the logger's path. */
  const __m128i kind_id = _mm_set1_epi64x (0xffffffffffll);
  const __m128i want_a = _mm_set1_epi64x ((int64_t) a);
  const __m128i want_b = _mm_set1_epi64x ((int64_t) b);
  const __m128i high = _mm_set1_epi64x (~(int64_t) 0xff);
  __m128i prev = _mm_cvtsi64_si128 ((int64_t) *t);
  for (; k + 4 <= max; k += 4, r += 4, o += 4)
    {
      const __m128i *v = (const __m128i *) (const void *) r;
      __m128i r0 = _mm_loadu_si128 (v), r1 = _mm_loadu_si128 (v + 1);
      __m128i r2 = _mm_loadu_si128 (v + 2), r3 = _mm_loadu_si128 (v + 3);
      __m128i lo = _mm_unpacklo_epi64 (r0, r2);
      __m128i hi = _mm_unpacklo_epi64 (r1, r3);
      __m128i d_odd = _mm_sub_epi64 (hi, lo);
      __m128i d_even = _mm_sub_epi64 (lo, _mm_unpacklo_epi64 (prev, hi));
      __m128i bad = _mm_and_si128 (_mm_or_si128 (d_odd, d_even), high);
      __m128i ids = _mm_or_si128 (
          _mm_xor_si128 (_mm_unpackhi_epi64 (r0, r2), want_a),
          _mm_xor_si128 (_mm_unpackhi_epi64 (r1, r3), want_b));
      bad = _mm_or_si128 (bad, _mm_and_si128 (ids, kind_id));
      if (_mm_movemask_epi8 (_mm_cmpeq_epi8 (bad, _mm_setzero_si128 ()))
          != 0xffff)
        break;
      /* Bytes d0 d1 at word 0, d2 d3 at word 4 (no delta exceeds 255). */
      __m128i w = _mm_or_si128 (d_even, _mm_slli_epi64 (d_odd, 8));
      w = _mm_shufflelo_epi16 (_mm_shuffle_epi32 (w, 0x08), 0x08);
      uint32_t four = (uint32_t) _mm_cvtsi128_si32 (w);
      memcpy (o, &four, 4);
      prev = _mm_unpackhi_epi64 (hi, hi);
    }
  *t = (uint64_t) _mm_cvtsi128_si64 (prev);
#else
  uint64_t pt = *t;
  for (; k + 4 <= max; k += 4, r += 4, o += 4)
    {
      uint64_t d0 = r[0].t - pt, d1 = r[1].t - r[0].t;
      uint64_t d2 = r[2].t - r[1].t, d3 = r[3].t - r[2].t;
      uint32_t x = ((uint32_t) r[0].id ^ a) | ((uint32_t) r[1].id ^ b)
                   | ((uint32_t) r[2].id ^ a) | ((uint32_t) r[3].id ^ b);
      if (((d0 | d1 | d2 | d3) >> 8) | x
          | ((r[0].aux | r[1].aux | r[2].aux | r[3].aux) & 0xffu))
        break;
      /* Period two: after four records a and b are where they were. */
      o[0] = (unsigned char) d0;
      o[1] = (unsigned char) d1;
      o[2] = (unsigned char) d2;
      o[3] = (unsigned char) d3;
      pt = r[3].t;
    }
  *t = pt;
#endif
  return k;
}

/* The BARE records from r on (at most max, before `to`) whose id is the
 * event id two records back (id2; id1 is the last one): a state entered
 * and left over and over, as a loop around one call makes them.  Their
 * tick deltas' low bytes written to o, one each, and the deltas of 256
 * or more added to x (none when x has no room: the run ends there);
 * returns how many.  Eight or four records per test. */
static size_t
alt_run (const mpe_spill_rec_t *r, const mpe_spill_rec_t *to,
         uint64_t t, int32_t id2, int32_t id1, unsigned char *o, size_t max,
         alt_excs_t *x)
{
  size_t avail = (size_t) (to - r);
  if (max > avail)
    max = avail;
  size_t k = 0;
  uint32_t a = (uint32_t) id2, b = (uint32_t) id1;
  for (;;)
    {
#ifdef HAVE_ALT8
      if (max - k >= 8 && have_avx2 ())
        k += alt8 (r + k, &t, a, b, o + k, max - k, k, x);
#endif
      /* Where eight at a time stopped, four at a time. */
      k += alt4 (r + k, &t, a, b, o + k, max - k);
      /* Then one at a time, to the next four: the record that stopped
       * them (an exception, or the run's end) and those up to a multiple
       * of four, so that a and b are where they were. */
      size_t stop = k + 4 < max ? k + 4 : max;
      for (; k < stop; k++)
        {
          const mpe_spill_rec_t *c = &r[k];
          uint64_t d = c->t - t;
          if (((uint32_t) c->id ^ a) | (c->aux & 0xffu))
            return k;
          if (d >> 8)
            {
              if (x->n == x->cap)
                return k;
              x->v[x->n++] = (alt_exc_t) { (uint32_t) k, d >> 8 };
            }
          o[k] = (unsigned char) d;
          t = c->t;
          uint32_t e = a;
          a = b;
          b = e;
        }
      if (k >= max)
        return k;
    }
}

/* The BARE records from r on (at most max, before `to`) whose tick delta
 * fits a byte and id delta a signed byte, written to o two bytes each
 * (tick delta, id delta + 128); returns how many.  A loop logging as
 * fast as it can makes these, and the spill then runs on its critical
 * path: four records per test and one 8-byte store. */
static size_t
narrow_run (const mpe_spill_rec_t *r, const mpe_spill_rec_t *to,
            uint64_t t, int32_t id, unsigned char *o, size_t max)
{
  size_t avail = (size_t) (to - r);
  if (max > avail)
    max = avail;
  size_t k = 0;
  uint32_t pid = (uint32_t) id;
  for (; k + 4 <= max; k += 4, r += 4, o += 8)
    {
      uint64_t d0 = r[0].t - t, d1 = r[1].t - r[0].t;
      uint64_t d2 = r[2].t - r[1].t, d3 = r[3].t - r[2].t;
      uint32_t i0 = (uint32_t) r[0].id - pid + 128u;
      uint32_t i1 = (uint32_t) r[1].id - (uint32_t) r[0].id + 128u;
      uint32_t i2 = (uint32_t) r[2].id - (uint32_t) r[1].id + 128u;
      uint32_t i3 = (uint32_t) r[3].id - (uint32_t) r[2].id + 128u;
      if (((d0 | d1 | d2 | d3) >> 8) | ((i0 | i1 | i2 | i3) >> 8)
          | ((r[0].aux | r[1].aux | r[2].aux | r[3].aux) & 0xffu))
        break;
      /* Every delta is below 256 here: no masks. */
      uint64_t w = d0 | (uint64_t) i0 << 8 | d1 << 16 | (uint64_t) i1 << 24
                   | d2 << 32 | (uint64_t) i2 << 40 | d3 << 48
                   | (uint64_t) i3 << 56;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
      w = __builtin_bswap64 (w);   /* bytes in record order */
#endif
      memcpy (o, &w, 8);
      t = r[3].t;
      pid = (uint32_t) r[3].id;
    }
  for (; k < max; k++, r++, o += 2)
    {
      uint64_t d = r->t - t;
      uint32_t i = (uint32_t) r->id - pid + 128u;
      if ((d >> 8) | (i >> 8) | (r->aux & 0xffu))
        break;
      o[0] = (unsigned char) d;
      o[1] = (unsigned char) i;
      t = r->t;
      pid = (uint32_t) r->id;
    }
  return k;
}

/* Alternating runs from r on, each ALT_LONG records but the last, each
 * after its kind byte (and count) at *op, which advances; ends at lim.
 * Returns the records taken.  A loop around one call makes a stretch of
 * them as long as a frame, and the spill then runs on that loop's
 * critical path: one run a stretch, not one per 63 records. */
static size_t
alt_stretch (const mpe_spill_rec_t *r, const mpe_spill_rec_t *to,
             uint64_t t, int32_t id2, int32_t id1, unsigned char **op,
             const unsigned char *lim)
{
  alt_exc_t exc[ALT_EXC_MAX];
  unsigned char *o = *op;
  size_t total = 0;
  while (lim - o >= 8)
    {
      /* Room: the long form's 4 header bytes, the records' bytes, then
       * the exceptions'. */
      size_t room = (size_t) (lim - o) - 4;
      alt_excs_t x = { exc, 0, room / 16 < ALT_EXC_MAX ? room / 16
                                                       : ALT_EXC_MAX };
      room -= x.cap * ALT_EXC_BYTES;
      /* Even: id2 and id1 are where they were after the run. */
      size_t max = room < ALT_LONG ? room & ~(size_t) 1 : ALT_LONG;
      size_t k = alt_run (r + total, to, t, id2, id1, o + 4, max, &x);
      if (k == 0)
        break;
      if (k <= RUN_MAX && x.n == 0)
        {
          /* Short, no exception: its one kind byte, the records moved
           * up to it. */
          o[0] = (unsigned char) (ALT | k);
          memmove (o + 1, o + 4, k);
          o += 1 + k;
        }
      else
        {
          o[0] = ALT;
          o[1] = (unsigned char) k;
          o[2] = (unsigned char) (k >> 8);
          o[3] = (unsigned char) x.n;
          o += 4 + k;
          for (size_t i = 0; i < x.n; i++)
            {
              o[0] = (unsigned char) exc[i].at;
              o[1] = (unsigned char) (exc[i].at >> 8);
              o = put_varint (o + 2, exc[i].high);
            }
        }
      total += k;
      t = r[total - 1].t;
      /* ALT_LONG is even: id2 and id1 are where they were. */
      if (k < max || max < ALT_LONG)
        break;
    }
  *op = o;
  return total;
}

/* Packs whole records from *from (up to `to`) into out[0, cap) as one
 * PACKED payload; advances *from and returns the payload's length (0 when
 * there is nothing to pack).  cap must be at least 256. */
size_t
mpe_spill_pack (const mpe_spill_rec_t **from, const mpe_spill_rec_t *to,
                unsigned char *out, size_t cap)
{
  const mpe_spill_rec_t *r = *from;
  /* Worst record: 1 + 10 + 5 + 32 (cargo) or 1 + 10 + 5 + 5 + 5 + 10. */
  unsigned char *o = out + PACKED_HEAD, *lim = out + cap - 64;
  uint64_t first = r < to ? r->t : 0, prev_t = first;
  int32_t prev[2] = { 0, 0 };  /* event id, message partner */
  int32_t prev2 = 0;           /* the event id before prev[0] */
  uint32_t n = 0;
  while (r < to && o < lim)
    {
      unsigned kind = r->aux & 0xffu;
      if (kind == MPE_REC_BARE)
        {
          /* Most records: an alternating run, a narrow run, or one on
           * its own. */
          size_t k = alt_stretch (r, to, prev_t, prev2, prev[0], &o, lim);
          if (k == 0)
            {
              /* Short, so that an alternating stretch soon gets its
                 turn again. */
              size_t room = (size_t) (lim - o - 1) / 2;
              k = narrow_run (r, to, prev_t, prev[0], o + 1,
                              room < NARROW_MAX ? room : NARROW_MAX);
              if (k > 0)
                {
                  *o = (unsigned char) (RUN | k);
                  o += 1 + 2 * k;
                }
            }
          if (k > 0)
            {
              r += k;
              n += (uint32_t) k;
              prev_t = r[-1].t;
              prev2 = k >= 2 ? r[-2].id : prev[0];
              prev[0] = r[-1].id;
              continue;
            }
          *o++ = MPE_REC_BARE;
          o = put_varint (o, zz ((int64_t) (r->t - prev_t)));
          o = put_varint (o, zz ((int64_t) r->id - prev[0]));
          prev_t = r->t;
          prev2 = prev[0];
          prev[0] = r->id;
          r++;
          n++;
          continue;
        }
      unsigned ext = mpe_spill_rec_ext (r->aux);
      if (kind > MPE_REC_METRIC || r + 1 + ext > to)
        {
          r++;  /* cannot happen for a logger's own buffer */
          continue;
        }
      int msg = kind == MPE_REC_SEND || kind == MPE_REC_RECV;
      *o++ = (unsigned char) kind;
      o = put_varint (o, zz ((int64_t) (r->t - prev_t)));
      o = put_varint (o, zz ((int64_t) r->id
                                                 - prev[msg]));
      prev_t = r->t;
      if (!msg)
        prev2 = prev[0];
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
          o = put_varint (o, zz (m.tag));
          o = put_varint (o, m.comm);
          o = put_varint (o, m.size);
        }
      else if (kind == MPE_REC_LOSS)
        {
          uint64_t lost;
          memcpy (&lost, r + 1, 8);
          o = put_varint (o, lost);
        }
      else
        {
          mpe_spill_metric_t m;
          memcpy (&m, r + 1, sizeof m);
          o = put_varint (o, zz (m.object));
          o = put_varint (o, zz (m.value));
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
get_varint (const unsigned char **p, const unsigned char *end,
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

int
mpe_spill_unpack_init (mpe_spill_unpack_t *u, const void *payload,
                       size_t len)
{
  memset (u, 0, sizeof *u);
  if (len < PACKED_HEAD)
    return -1;
  const unsigned char *b = (const unsigned char *) payload;
  memcpy (&u->t, b, 8);
  memcpy (&u->left, b + 8, 4);
  u->p = b + PACKED_HEAD;
  u->end = b + len;
  return 0;
}

/* A run's BARE record as an event. */
static inline void
put_bare (logfmt_event_t *e, uint64_t t, int32_t id, uint64_t tick0,
          uint64_t mult_fp)
{
  memset (e, 0, offsetof (logfmt_event_t, cargo));
  e->time = mpe_spill_tick_ns (t, tick0, mult_fp);
  e->state = -1;
  e->type = LOGFMT_REC_EVENT;
  e->id = id;
}

/* A whole run of BARE records passed over (mpe_spill_unpack_msgs): the
 * deltas summed (a long run's exceptions added).  Event ids are not
 * kept: no event comes out with one, and messages have their own.
 * Returns 0, or `run` (nothing read) when the run is not whole or its
 * exceptions are not in order, for the record by record reading to find
 * the damaged record. */
static inline uint32_t
skim_run (const unsigned char *end, const unsigned char **pp, uint32_t run,
          int alt, int lng, uint32_t *ri, uint32_t *xat, uint32_t *xleft,
          const unsigned char **xp, uint64_t *t, uint32_t *left)
{
  const unsigned char *p = *pp;
  size_t width = alt ? 1 : 2;
  if ((size_t) (end - p) < run * width
      || (lng && (*ri != 0 || *xat != UINT32_MAX || !*xp)))
    return run;
  uint64_t sum = 0;
  const unsigned char *next = p + run * width;
  if (lng)
    {
      const unsigned char *x = *xp;
      for (uint32_t k = 0, at = 0; k < *xleft; k++)
        {
          uint64_t high;
          if (end - x < 2)
            return run;
          uint32_t i = (uint32_t) x[0] | (uint32_t) x[1] << 8;
          x += 2;
          if (i >= run || (k > 0 && i <= at) || get_varint (&x, end, &high))
            return run;
          at = i;
          sum += high << 8;
        }
      next = x;
      *ri = run;
      *xleft = 0;
      *xp = x;
    }
  if (alt)
    for (uint32_t i = 0; i < run; i++)   /* no stride: 0.47 ns, not 0.65 */
      sum += p[i];
  else
    for (uint32_t i = 0; i < run; i++)
      sum += p[2 * i];
  *t += sum;
  *left -= run;
  *pp = next;
  return 0;
}

/* The decoder of both: with `msgs`, only SEND and RECV records come out
 * (the rest are read, checked and passed over without being written),
 * so out fills with messages alone and 0 still means the end. */
static inline __attribute__ ((always_inline)) size_t
unpack (mpe_spill_unpack_t *u, uint64_t tick0, uint64_t mult_fp,
        logfmt_event_t *out, size_t max, const int msgs)
{
  size_t n = 0;
  while (n < max && u->left > 0 && u->p < u->end)
    {
      const unsigned char *p = u->p;
      uint32_t run = u->run;  /* committed with p, as the record is */
      int alt = u->alt, lng = u->lng;
      uint32_t ri = u->ri, xat = u->xat, xleft = u->xleft;
      const unsigned char *xp = u->xp;
      if (run == 0 && (*p & RUN))
        {
          alt = (*p & ALT) == ALT;
          run = *p++ & RUN_MAX;
          lng = 0;
          if (run == 0 && alt && u->end - p >= 3)
            {
              /* A long alternating run: u16 count, u8 exceptions; the
               * records' bytes, then the exceptions. */
              run = (uint32_t) p[0] | (uint32_t) p[1] << 8;
              xleft = p[2];
              p += 3;
              xp = (size_t) (u->end - p) >= run ? p + run : NULL;
              xat = UINT32_MAX;
              ri = 0;
              lng = 1;
            }
          if (run == 0)
            break;
        }
      if (run > 0)
        {
          /* Records of the run, as many as the batch takes: its state in
           * locals, committed once with the last good record (a damaged
           * one ends the batch before it).  Alternating: 1 byte each,
           * exceptions after a long run's bytes; narrow: 2 bytes. */
          uint32_t left0 = u->left;
          size_t n0 = n;
          uint64_t t = u->t;
          int32_t id0 = u->id[0], id2 = u->id2;
          uint32_t left = u->left;
          int bad = 0;
          if (msgs && run <= left)
            run = skim_run (u->end, &p, run, alt, lng, &ri, &xat, &xleft, &xp,
                            &t, &left);
          while (run > 0 && n < max && left > 0)
            {
              /* A stretch with no exception in it (and not a long run's
               * last record, which the exceptions follow): the records
               * alone, without the tests below. */
              uint32_t k = 0;
              if (!msgs && !lng)
                {
                  size_t fit = (size_t) (u->end - p) / (2 - alt);
                  k = fit < run ? (uint32_t) fit : run;
                }
              else if (!msgs && xp)
                k = xat != UINT32_MAX ? xat - ri : xleft ? 0 : run - 1;
              if (lng && k > run - 1)
                k = run - 1;
              if (k > max - n)
                k = (uint32_t) (max - n);
              if (k > left)
                k = left;
              if (k >= 4)
                {
                  for (uint32_t j = 0; j < k; j++, p += 2 - alt)
                    {
                      t += p[0];
                      int32_t id = alt ? id2
                                 : (int32_t) ((uint32_t) id0 + p[1] - 128u);
                      put_bare (&out[n++], t, id, tick0, mult_fp);
                      id2 = id0;
                      id0 = id;
                    }
                  run -= k;
                  left -= k;
                  ri += lng ? k : 0;
                  continue;
                }
              if (u->end - p < 2 - alt)
                {
                  bad = 1;
                  break;
                }
              uint64_t dt = p[0];
              const unsigned char *next = p + 2 - alt;
              if (lng)
                {
                  /* The next exception's index, then its delta >> 8 when
                   * it is this record's; after the last record, the bytes
                   * that follow the exceptions. */
                  uint32_t nat = xat, nleft = xleft;
                  const unsigned char *nxp = xp;
                  if (nat == UINT32_MAX && nleft > 0)
                    {
                      if (!nxp || u->end - nxp < 2)
                        {
                          bad = 1;
                          break;
                        }
                      nat = (uint32_t) nxp[0] | (uint32_t) nxp[1] << 8;
                      nxp += 2;
                      nleft--;
                      if (nat < ri)
                        {
                          bad = 1;
                          break;
                        }
                    }
                  if (nat == ri)
                    {
                      uint64_t high;
                      if (get_varint (&nxp, u->end, &high))
                        {
                          bad = 1;
                          break;
                        }
                      dt |= high << 8;
                      nat = UINT32_MAX;
                    }
                  if (run == 1)
                    {
                      if (nleft > 0 || nat != UINT32_MAX || !nxp)
                        {
                          bad = 1;
                          break;
                        }
                      next = nxp;
                    }
                  xat = nat;
                  xleft = nleft;
                  xp = nxp;
                  ri++;
                }
              t += dt;
              int32_t id = alt ? id2
                               : (int32_t) ((uint32_t) id0 + p[1] - 128u);
              if (!msgs)
                put_bare (&out[n++], t, id, tick0, mult_fp);
              id2 = id0;
              id0 = id;
              p = next;
              run--;
              left--;
            }
          if (msgs ? left == left0 : n == n0)
            break;
          u->p = p;
          u->run = run;
          u->alt = alt;
          u->lng = lng;
          u->ri = ri;
          u->xat = xat;
          u->xleft = xleft;
          u->xp = xp;
          u->t = t;
          u->id[0] = id0;
          u->id2 = id2;
          u->left = left;
          if (bad)
            break;
          continue;
        }
      unsigned kind = *p++;
      uint64_t dt, did;
      if (kind > MPE_REC_METRIC || get_varint (&p, u->end, &dt)
          || get_varint (&p, u->end, &did))
        break;
      int msg = kind == MPE_REC_SEND || kind == MPE_REC_RECV;
      uint64_t t = u->t + (uint64_t) unzz (dt);
      /* Ids wrap at 32 bits (what the packer's differences assume). */
      int32_t id = (int32_t) (uint32_t) ((uint64_t) (int64_t) u->id[msg]
                                         + (uint64_t) unzz (did));
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
          if (get_varint (&p, u->end, &tag)
              || get_varint (&p, u->end, &comm)
              || get_varint (&p, u->end, &size))
            break;
          e->type = kind == MPE_REC_SEND ? LOGFMT_REC_SEND : LOGFMT_REC_RECV;
          e->partner = id;
          e->tag = (int32_t) unzz (tag);
          e->comm = (uint32_t) comm;
          e->size = size;
        }
      else if (kind == MPE_REC_LOSS)
        {
          uint64_t lost;
          if (get_varint (&p, u->end, &lost))
            break;
          e->type = LOGFMT_REC_LOSS;
          e->size = lost;
        }
      else
        {
          uint64_t obj, val;
          if (get_varint (&p, u->end, &obj) || get_varint (&p, u->end, &val))
            break;
          e->type = MPE_SPILL_EV_METRIC;
          e->id = id;
          e->partner = (int32_t) unzz (obj);
          e->size = (uint64_t) unzz (val);
        }
      u->p = p;
      u->t = t;
      if (!msg)
        u->id2 = u->id[0];
      u->id[msg] = id;
      u->left--;
      if (!msgs || msg)
        n++;
    }
  if (n == 0)
    u->p = u->end;
  return n;
}

size_t
mpe_spill_unpack (mpe_spill_unpack_t *u, uint64_t tick0, uint64_t mult_fp,
                  logfmt_event_t *out, size_t max)
{
  return unpack (u, tick0, mult_fp, out, max, 0);
}

size_t
mpe_spill_unpack_msgs (mpe_spill_unpack_t *u, uint64_t tick0,
                       uint64_t mult_fp, logfmt_event_t *out, size_t max)
{
  return unpack (u, tick0, mult_fp, out, max, 1);
}


/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The clock correction's slow path.  Local times become rank 0's times
 * by offsets interpolated between sync points (spillfmt.h); the merge and
 * `clogtool recover` both use mpe_spill_clock_correct, so a finished log
 * and a recovered one of the same run agree to the nanosecond.  Integer
 * arithmetic throughout: the product offset-change x elapsed exceeds 63
 * bits only after hours with a large drift, and then goes through the
 * exact 128-bit product below instead of a floating-point type whose
 * width depends on the architecture (long double is 64, 80 or 128 bits).
 */
#include "config.h"

#include "spillfmt.h"

/* Magnitude of v as unsigned (INT64_MIN included). */
static uint64_t
mag (int64_t v)
{
  return v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;
}

int64_t
mpe_spill_muldiv (int64_t a, int64_t b, int64_t c)
{
  uint64_t x = mag (a), y = mag (b), d = (uint64_t) c;
  /* 128-bit product hi:lo from 32-bit halves. */
  uint64_t xl = x & 0xffffffffu, xh = x >> 32, yl = y & 0xffffffffu,
           yh = y >> 32;
  uint64_t ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
  uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
  uint64_t lo = (mid << 32) | (ll & 0xffffffffu);
  uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
  /* Long division by d (< 2^63): the remainder always fits 64 bits. */
  uint64_t q = 0, r = 0;
  for (int i = 127; i >= 0; i--)
    {
      r = (r << 1) | ((i >= 64 ? hi >> (i - 64) : lo >> i) & 1u);
      q <<= 1;  /* quotient bits above 64 wrap away */
      if (r >= d)
        {
          r -= d;
          q |= 1;
        }
    }
  return (a < 0) != (b < 0) ? (int64_t) ((uint64_t) 0 - q) : (int64_t) q;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* The tick -> ns conversion's 64x64 -> 128-bit multiply-shift, written in
 * portable C (spill/spillfmt.h), against exact products. */
#include "config.h"

#include <stdint.h>

#include "spillfmt.h"
#include "tests/common/tap.h"

/* Exact (a * b) >> 32 mod 2^64 by schoolbook long multiplication in 16-bit
 * digits: slow and obviously right. */
static uint64_t
ref_mul_shr32 (uint64_t a, uint64_t b)
{
  uint32_t p[8] = { 0 };   /* the 128-bit product, 16-bit digits */
  for (int i = 0; i < 4; i++)
    {
      uint32_t carry = 0;
      for (int j = 0; j < 4; j++)
        {
          uint32_t d = (uint32_t) ((a >> (16 * i)) & 0xffff)
                       * (uint32_t) ((b >> (16 * j)) & 0xffff);
          uint64_t s = (uint64_t) p[i + j] + (d & 0xffff) + carry;
          p[i + j] = (uint32_t) (s & 0xffff);
          carry = (uint32_t) (s >> 16) + (d >> 16);
        }
      for (int k = i + 4; carry && k < 8; k++)
        {
          uint32_t s = p[k] + carry;
          p[k] = s & 0xffff;
          carry = s >> 16;
        }
    }
  return (uint64_t) p[2] | (uint64_t) p[3] << 16 | (uint64_t) p[4] << 32
         | (uint64_t) p[5] << 48;
}

static uint64_t
xorshift (uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

int
main (void)
{
  plan (8);
  ok (mpe_spill_mul_shr32 (UINT64_MAX, UINT64_MAX) == 0xfffffffe00000000ull,
      "max x max: (2^128 - 2^65 + 1) >> 32, truncated");
  ok (mpe_spill_mul_shr32 (1ull << 32, 12345) == 12345, "2^32 x b >> 32 = b");
  ok (mpe_spill_mul_shr32 (3, 1ull << 31) == 1, "a low product rounds down");
  ok (ref_mul_shr32 (UINT64_MAX, UINT64_MAX) == 0xfffffffe00000000ull,
      "the reference agrees on max x max");
  uint64_t s = 0x9e3779b97f4a7c15ull;
  int bad = 0;
  for (int i = 0; i < 200000; i++)
    {
      /* Every size of factor: shift random bits down by 0..63. */
      uint64_t a = xorshift (&s) >> (xorshift (&s) & 63);
      uint64_t b = xorshift (&s) >> (xorshift (&s) & 63);
      if (mpe_spill_mul_shr32 (a, b) != ref_mul_shr32 (a, b) && bad++ < 3)
        diag ("  %llx x %llx", (unsigned long long) a, (unsigned long long) b);
    }
  ok (bad == 0, "200000 random products agree with long multiplication");
  /* A 3 GHz TSC: 1/3 ns per tick in 32.32 fixed point. */
  uint64_t mult_fp = (uint64_t) (1.0 / 3.0 * 4294967296.0 + 0.5);
  ok (mpe_spill_tick_ns (1000, 1000, mult_fp) == 0, "tick0 -> 0 ns");
  ok (mpe_spill_tick_ns (5, 1000, mult_fp) == 0, "before tick0 -> 0 ns");
  /* A day of ticks: the 128-bit product is needed, the result is not;
   * the 32.32 rate is off by up to 2^-33 ns per tick (30 us a day). */
  uint64_t day_ns = 86400ull * 1000000000ull;
  uint64_t ns = mpe_spill_tick_ns (7 + 3 * day_ns, 7, mult_fp);
  ok (ns >= day_ns - 40000 && ns <= day_ns + 40000,
      "a day of 3 GHz ticks is a day of ns (%llu)", (unsigned long long) ns);
  return exit_status ();
}

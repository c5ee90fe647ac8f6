/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the bytes are a ring file (a killed process's record
 * buffer and frame areas), loaded and decoded as `clogtool recover` does
 * (libspillfmt).
 * The tick origin and rate come from the header's reserved bytes, so the
 * fuzzer varies them too. */
#include "config.h"

#include <string.h>

#include "spillfmt.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  mpe_spill_mem_t mem = { data, size };
  mpe_ring_t ring;
  if (mpe_ring_load (&ring, mpe_spill_read_mem_cb, &mem, size) != 0)
    return 0;
  uint64_t tick0 = 0, mult_fp = (uint64_t) 1 << 32;
  if (size >= sizeof ring.h + 16)
    {
      memcpy (&tick0, data + sizeof ring.h, 8);
      memcpy (&mult_fp, data + sizeof ring.h + 8, 8);
    }
  logfmt_event_t ev[64];
  for (int a = 0; a < 2; a++)
    {
      mpe_spill_mem_t am = { ring.area[a], ring.area_len[a] };
      mpe_spill_scan_t sc;
      mpe_spill_scan_area (&sc, mpe_spill_read_mem_cb, &am, am.len);
      mpe_spill_frame_t h;
      uint64_t at;
      while (mpe_spill_scan_next (&sc, &h, &at) == 1)
        {
          mpe_spill_events_t it;
          logfmt_error_t err;
          if (mpe_spill_events_init (&it, h.type, sc.payload, h.len, tick0,
                                     mult_fp, &err) != 0)
            continue;
          while (mpe_spill_events_next (&it, ev, 64) > 0)
            ;
          mpe_spill_events_free (&it);
        }
      mpe_spill_scan_free (&sc);
    }
  for (int p = 0; p < 2; p++)
    {
      if (!ring.len[p])  /* part[p] may be NULL */
        continue;
      const mpe_spill_rec_t *r = ring.part[p], *end = r + ring.len[p];
      while (r < end)
        mpe_spill_recs_decode (&r, end, tick0, mult_fp, ev, 64);
    }
  mpe_ring_free (&ring);
  return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the bytes are a spill file, read as `clogtool
 * recover` reads one (libspillfmt): every frame scanned, META, SYNC and
 * the definitions parsed, every data frame's events decoded and their
 * times corrected with the file's own sync points. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "spillfmt.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* The merge's first pass reads a PACKED payload as the full decoding
 * does: the same messages, the same last record, as many unread. */
static void
check_msgs (const void *payload, size_t len, uint64_t tick0, uint64_t mult)
{
  mpe_spill_unpack_t a, b;
  if (mpe_spill_unpack_init (&a, payload, len) != 0)
    return;
  mpe_spill_unpack_init (&b, payload, len);
  logfmt_event_t ev[64], m[64];
  size_t n, nm = 0, im = 0;
  while ((n = mpe_spill_unpack (&a, tick0, mult, ev, 64)) > 0)
    for (size_t i = 0; i < n; i++)
      {
        if (ev[i].type != LOGFMT_REC_SEND && ev[i].type != LOGFMT_REC_RECV)
          continue;
        if (im == nm)
          {
            nm = mpe_spill_unpack_msgs (&b, tick0, mult, m, 64);
            im = 0;
          }
        if (im == nm || m[im].type != ev[i].type || m[im].time != ev[i].time
            || m[im].partner != ev[i].partner || m[im].tag != ev[i].tag
            || m[im].comm != ev[i].comm || m[im].size != ev[i].size)
          abort ();
        im++;
      }
  if (im < nm || mpe_spill_unpack_msgs (&b, tick0, mult, m, 64) != 0
      || a.t != b.t || a.left != b.left)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  mpe_spill_mem_t mem = { data, size };
  mpe_spill_scan_t sc;
  if (mpe_spill_scan_init (&sc, mpe_spill_read_mem_cb, &mem, size) != 0)
    return 0;
  mpe_spill_meta_t meta;
  memset (&meta, 0, sizeof meta);
  int64_t l[64], off[64];
  int nsync = 0;
  logfmt_event_t ev[64];
  mpe_spill_frame_t h;
  uint64_t at;
  /* Two passes, as recovery does: metadata and sync points first. */
  for (int pass = 0; pass < 2; pass++)
    {
      mpe_spill_clock_t clock = { meta.mono0, l, off, nsync, 0 };
      sc.off = MPE_SPILL_HEADER_SIZE;
      while (mpe_spill_scan_next (&sc, &h, &at) == 1)
        {
          if (pass == 0)
            {
              if (h.type == MPE_SPILL_META)
                mpe_spill_meta_parse (&meta, sc.payload, h.len);
              else if (h.type == MPE_SPILL_SYNC && nsync < 64
                       && mpe_spill_sync_parse (sc.payload, h.len, &l[nsync],
                                                &off[nsync]) == 0)
                {
                  if (nsync > 0 && l[nsync] < l[nsync - 1])
                    l[nsync] = l[nsync - 1];
                  nsync++;
                }
              continue;
            }
          if (h.type == MPE_SPILL_PACKED)
            check_msgs (sc.payload, h.len, meta.tick0, meta.mult_fp);
          mpe_spill_def_t d;
          mpe_spill_events_t it;
          logfmt_error_t err;
          size_t n;
          switch (h.type)
            {
            case MPE_SPILL_STATE:
            case MPE_SPILL_EVENT:
            case MPE_SPILL_COMM:
            case MPE_SPILL_METRIC:
              if (mpe_spill_def_parse (h.type, sc.payload, h.len, &d) == 0
                  && d.type == MPE_SPILL_COMM && d.comm.name)
                (void) strlen (d.comm.name);
              if (mpe_spill_def_parse (h.type, sc.payload, h.len, &d) == 0
                  && d.type == MPE_SPILL_METRIC)
                (void) (strlen (d.metric.name) + strlen (d.metric.unit));
              break;
            case MPE_SPILL_PACKED:
            case MPE_SPILL_RAW:
            case MPE_SPILL_BLOCK:
              if (mpe_spill_events_init (&it, h.type, sc.payload, h.len,
                                         meta.tick0, meta.mult_fp, &err) != 0)
                break;
              while ((n = mpe_spill_events_next (&it, ev, 64)) > 0)
                for (size_t i = 0; i < n; i++)
                  (void) mpe_spill_clock_correct (&clock, ev[i].time);
              (void) mpe_spill_events_unread (&it);
              mpe_spill_events_free (&it);
              break;
            default:
              break;
            }
        }
    }
  mpe_spill_scan_free (&sc);
  return 0;
}

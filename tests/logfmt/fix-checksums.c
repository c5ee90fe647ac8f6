/* SPDX-License-Identifier: BSD-3-Clause */
/* Recomputes every checksum of a .clog image in place: the header's,
 * each framed chunk's and the trailer's.  A fuzzer's mutations then reach
 * the checks behind the checksums instead of stopping at them, and a
 * hand-damaged corpus file stays "valid" but for the damage it carries. */
#include "logfmt-internal.h"
#include "fix-checksums.h"

void
logfmt_test_fix_checksums (uint8_t *d, size_t n)
{
  if (n < LOGFMT__HEADER_FIXED || memcmp (d, LOGFMT__MAGIC, 8) != 0)
    return;
  uint64_t hl = ld32 (d + 12);
  if (hl < LOGFMT__HEADER_FIXED || hl > n)
    return;
  st32 (d + 48, 0);
  st32 (d + 48, logfmt__crc32c (0, d, (size_t) hl));
  bool trailer = n >= hl + LOGFMT__TRAILER_SIZE
                 && memcmp (d + n - 8, LOGFMT__TRAILER_MAGIC, 8) == 0;
  uint64_t end = trailer ? n - LOGFMT__TRAILER_SIZE : n;
  uint64_t off = hl;
  while (off <= end && end - off >= LOGFMT__CHUNK_HDR + LOGFMT__CHUNK_CRC)
    {
      uint8_t *h = d + off;
      uint32_t type = ld32 (h);
      uint64_t len = ld64 (h + 8);
      if (len > end - off - LOGFMT__CHUNK_HDR - LOGFMT__CHUNK_CRC)
        break;
      uint8_t *p = h + LOGFMT__CHUNK_HDR;
      st32 (p + len, logfmt__chunk_crc (h, p, len, logfmt__chunk_skip (type)));
      off += LOGFMT__CHUNK_HDR + len + LOGFMT__CHUNK_CRC;
    }
  if (trailer)
    {
      uint8_t *t = d + n - LOGFMT__TRAILER_SIZE;
      uint32_t crc = logfmt__crc32c (0, t, 28);
      st32 (t + 28, logfmt__crc32c (crc, t + 32, 8));
    }
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Recognises .clog (ours), CLOG2 and CLOG v1 files by content. */
#include "config.h"
#include "logfmt-internal.h"
#include "logfmt-import-internal.h"

static uint32_t
be32 (const uint8_t *p)
{
  return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16
         | (uint32_t) p[2] << 8 | p[3];
}

logfmt__file_format_t
logfmt__sniff (const uint8_t *data, size_t len, uint64_t file_size)
{
  if (!data)
    return LOGFMT__FMT_UNKNOWN;
  if (len >= 8 && memcmp (data, LOGFMT__MAGIC, 8) == 0)
    return LOGFMT__FMT_CLOG3;
  if (len >= 7 && memcmp (data, "CLOG-02", 7) == 0)
    return LOGFMT__FMT_CLOG2;
  /* CLOG v1 (MPE-COMPAT section 6): no preamble; a 24-byte BE record
   * header (f64 time, i32 rectype in -2..8, i32 length in 8-byte units
   * including the header), file length a multiple of 65536. */
  if (len >= 24 && file_size >= 65536 && file_size % 65536 == 0)
    {
      int32_t type = (int32_t) be32 (data + 8);
      int32_t units = (int32_t) be32 (data + 12);
      uint64_t bits = (uint64_t) be32 (data) << 32 | be32 (data + 4);
      unsigned exp = (unsigned) (bits >> 52) & 0x7ff;
      static const int32_t body[] = { 0, 0, 0, 32, 24, 24, 16, 24, 56, 48,
                                      8 };
      if (type >= -2 && type <= 8 && type != 0 && exp != 0x7ff && !(bits >> 63)
          && units == (24 + body[type + 2]) / 8)
        return LOGFMT__FMT_CLOG1;
    }
  return LOGFMT__FMT_UNKNOWN;
}

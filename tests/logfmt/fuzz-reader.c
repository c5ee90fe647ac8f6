/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: an image read through the reader as every tool
 * reads it (fuzz-exercise.c).  With LOGFMT_FUZZ_FIX_CHECKSUMS=1 in the environment
 * each input is also read with its checksums recomputed, so mutations
 * reach the checks behind them (fuzz-chunk.c aims at one chunk type). */
#include "logfmt-internal.h"
#include "fix-checksums.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
void logfmt_fuzz_exercise (const uint8_t *data, size_t size,
                           unsigned flags);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static int fix = -1;
  if (fix < 0)
    {
      const char *v = getenv ("LOGFMT_FUZZ_FIX_CHECKSUMS");
      fix = v && *v && strcmp (v, "0") != 0;
    }
  logfmt_fuzz_exercise (data, size, 0);
  logfmt_fuzz_exercise (data, size, LOGFMT_OPEN_TOLERANT);
  if (fix && size)
    {
      uint8_t *c = malloc (size);
      if (!c)
        return 0;
      memcpy (c, data, size);
      logfmt_test_fix_checksums (c, size);
      logfmt_fuzz_exercise (c, size, 0);
      logfmt_fuzz_exercise (c, size, LOGFMT_OPEN_TOLERANT);
      free (c);
    }
  return 0;
}

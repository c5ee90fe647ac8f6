/* SPDX-License-Identifier: BSD-3-Clause */
/* Read-time symbol resolution (callpath/cp-symbols.c): N distinct
 * addresses spread over [LO, HI) of one binary, resolved once each to
 * function, file and line; prints the time.
 * Usage: cct-symbols BINARY LO HI [N]   (LO/HI: hex ELF addresses of its
 * .text, e.g. from readelf -SW) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "callpath/callpath.h"

int
main (int argc, char **argv)
{
  if (argc < 4)
    return 2;
  uint64_t lo = strtoull (argv[2], NULL, 16), hi = strtoull (argv[3], NULL, 16);
  size_t n = argc > 4 ? (size_t) atol (argv[4]) : 10000;
  logfmt_module_t m = { argv[1], "", 0, lo, hi };
  logfmt_cpnode_t *nodes = calloc (n + 1, sizeof *nodes);
  if (!nodes || hi <= lo)
    return 1;
  for (size_t i = 1; i <= n; i++)
    {
      nodes[i].parent = 0;
      nodes[i].module = 0;
      nodes[i].addr = lo + (hi - lo) * (i - 1) / n;
    }
  logfmt_callpaths_t cp = { 0, 1, &m, n + 1, nodes };
  struct timespec t0, t1;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  cp_symbols_t *sy = cp_symbols_new ();
  size_t named = 0, lines = 0;
  for (size_t i = 1; i <= n; i++)
    {
      cp_frame_t f;
      cp_symbols_frame (sy, &cp, (uint32_t) i, &f);
      named += f.resolved;
      lines += f.file != NULL;
    }
  clock_gettime (CLOCK_MONOTONIC, &t1);
  double ms = (double) (t1.tv_sec - t0.tv_sec) * 1e3
              + (double) (t1.tv_nsec - t0.tv_nsec) * 1e-6;
  printf ("%zu distinct addresses of %s: %.1f ms (%zu named, %zu with a "
          "line)\n", n, argv[1], ms, named, lines);
  cp_symbols_free (sy);
  free (nodes);
  return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cost of the memory layer per malloc/free pair: N pairs of sizes 16..1024
 * (a fixed pseudo-random sequence), 8 blocks alive at a time, timed in
 * the thread's CPU time (the machine may be loaded).  Run by
 * bench/memory-run.sh without the wrappers, with them loaded but off,
 * and recording (MPE_MEMORY=1), interleaved.
 * Prints "ns_per_pair X".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 10000000;
  void *volatile slot[8] = { 0 };
  uint32_t x = 12345;
  double t0 = now ();
  for (long i = 0; i < n; i++)
    {
      x = x * 1103515245u + 12345u;
      size_t sz = 16 + (x >> 16) % 1009;
      int k = (int) (i & 7);
      free (slot[k]);
      slot[k] = malloc (sz);
    }
  double t1 = now ();
  for (int k = 0; k < 8; k++)
    free (slot[k]);
  printf ("ns_per_pair %.2f\n", (t1 - t0) * 1e9 / (double) n);
  return 0;
}

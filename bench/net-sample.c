/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cost of one sample of the network layer (MPE_NETWORK=1): the host
 * leader's poller reads every interface's rx/tx byte and packet counters
 * from /sys/class/net/IFACE/statistics with the calls mpe-netprof.c
 * makes (fopen, fscanf, fclose per counter), every
 * MPE_NETWORK_INTERVAL_MS (100 ms).  The MPI ranks' own threads do none
 * of it.  For comparison, what sar -n DEV (sysstat) reads instead: one
 * /proc/net/dev for all interfaces.  Thread CPU time, median of REPS
 * runs of N samples.
 *
 *   net-sample [N] [REPS]
 *   prints: nics K sample_us X procnetdev_us Y
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-cpu.h"

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 2000;
  int reps = argc > 2 ? atoi (argv[2]) : 5;
  if (reps < 1 || reps > 64)
    reps = 5;
  static const char *const what[4] = { "rx_bytes", "tx_bytes",
                                       "rx_packets", "tx_packets" };
  char names[64][64];
  int nn = 0;
  DIR *d = opendir ("/sys/class/net");
  struct dirent *e;
  while (d && (e = readdir (d)) && nn < 64)
    if (e->d_name[0] != '.' && strlen (e->d_name) < sizeof names[0])
      strcpy (names[nn++], e->d_name);
  if (d)
    closedir (d);
  double r[64], q[64];
  long long sum = 0;
  for (int k = 0; k < reps; k++)
    {
      double t0 = bench_thread_cpu_s ();
      for (long i = 0; i < n; i++)
        for (int c = 0; c < nn; c++)
          for (int w = 0; w < 4; w++)
            {
              char p[256];
              snprintf (p, sizeof p, "/sys/class/net/%.63s/statistics/%s",
                        names[c], what[w]);
              FILE *f = fopen (p, "r");
              long long v = 0;
              if (f && fscanf (f, "%lld", &v) == 1)
                sum += v;
              if (f)
                fclose (f);
            }
      double t1 = bench_thread_cpu_s ();
      for (long i = 0; i < n; i++)
        {
          char buf[8192];
          FILE *f = fopen ("/proc/net/dev", "r");
          if (f)
            {
              sum += (long long) fread (buf, 1, sizeof buf, f);
              fclose (f);
            }
        }
      r[k] = (t1 - t0) / (double) n * 1e6;
      q[k] = (bench_thread_cpu_s () - t1) / (double) n * 1e6;
    }
  qsort (r, (size_t) reps, sizeof r[0], bench_cmp_double);
  qsort (q, (size_t) reps, sizeof q[0], bench_cmp_double);
  printf ("nics %d sample_us %.1f procnetdev_us %.1f\n", nn, r[reps / 2],
          q[reps / 2]);
  return sum == 42;   /* keeps the reads */
}

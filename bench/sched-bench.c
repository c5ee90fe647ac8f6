/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cost of the scheduling layer per blocking round trip: two threads pass
 * a token N times through eventfds (each pass blocks one thread and wakes
 * the other: two context switches per round trip), with neither thread's
 * switch ring open, or both (as MPE_SCHED=1 opens them), drained at the
 * end.  Prints "us_per_round_trip X records Y".
 *   sched-bench N [on]
 */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "mpe-perf-internal.h"

static int efd[2];
static long n;
static int on;
static mpe_sw_t sw[2];

static void *
player (void *arg)
{
  int me = (int) (intptr_t) arg;
  char err[256];
  if (on && mpe__sw_open (&sw[me], 64, 0, err, sizeof err) != 0)
    fprintf (stderr, "%s\n", err);
  uint64_t v;
  for (long i = 0; i < n; i++)
    {
      if (me == 0)
        {
          v = 1;
          if (write (efd[1], &v, 8) != 8 || read (efd[0], &v, 8) != 8)
            break;
        }
      else
        {
          if (read (efd[1], &v, 8) != 8 || write (efd[0], &v, 8) != 8)
            break;
        }
      if (on && (i & 1023) == 0)
        mpe__sw_drain (&sw[me]);  /* what the poller does */
    }
  if (on)
    mpe__sw_close (&sw[me]);
  return NULL;
}

int
main (int argc, char **argv)
{
  n = argc > 1 ? atol (argv[1]) : 100000;
  on = argc > 2 && strcmp (argv[2], "on") == 0;
  efd[0] = eventfd (0, 0);
  efd[1] = eventfd (0, 0);
  struct timespec a, b;
  clock_gettime (CLOCK_MONOTONIC, &a);
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create (&t[i], NULL, player, (void *) (intptr_t) i);
  for (int i = 0; i < 2; i++)
    pthread_join (t[i], NULL);
  clock_gettime (CLOCK_MONOTONIC, &b);
  double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
  printf ("us_per_round_trip %.3f records %zu\n", s * 1e6 / (double) n,
          sw[0].n + sw[1].n);
  mpe__sw_free (&sw[0]);
  mpe__sw_free (&sw[1]);
  return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The logging cost as a user's program sees it (issue 22): MPE_Init_log,
 * one state described, MPI_Barrier, then N calls of MPE_Log_event
 * alternating the state's start and end, timed with clock_gettime
 * around the loop, then MPE_Finish_log.  Each run is one process
 * start, so first touches, the spill thread and the spills are all in
 * the figure.  With --floor, the same program runs the floor loop
 * instead (the clock libmpe reads and a 16-byte store per call, into a
 * ring of the size of MPE's buffer, faulted in before the loop): what
 * the logging cannot go below.  bench/mpe-user.sh interleaves the two.
 * With --pair, the user's loop runs in blocks of 65536 calls, by turns
 * with as many calls of the floor loop (into its own ring): the two see
 * the same core at the same speed, which on a host whose speed wanders
 * from process to process and within one (the same clock-read loop took
 * 8.8-12.8 ns a minute apart; a floor loop and the user's loop right
 * after it in one process, 0.9-1.5x) is the only ratio that holds still.
 * The loop's time is then the user's blocks' alone.
 *
 *   mpiexec -n R mpe-user [N] [--floor | --pair]
 * prints, on rank 0: "mpe-user: R ranks, N calls: X ns/call, C ns CPU
 * (floor|mpe)": X the slowest rank's wall time around the loop, C the
 * most CPU time a rank's process (all its threads: the spill thread
 * too) spent in it, which a loaded machine disturbs far less; then what
 * disturbed the timed (logging) thread in the loop, the most of any rank:
 * "F faults, S switches, M migrations": page faults (the library's or the
 * floor's first touches would show here), involuntary context switches
 * (another process or our spill thread took its core) and moves to
 * another core (-1 where the kernel does not say); then "B blocked":
 * voluntary switches (the thread slept, e.g. in a write); with --pair,
 * then "paired floor P ns/call": the floor's blocks, P the slowest
 * rank's.
 */
#define _GNU_SOURCE 1
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include <mpi.h>
#include "mpe.h"
#include "bench-clock.h"

typedef struct { uint64_t t; int32_t id; uint32_t aux; } rec_t;

static double cpu0, cpu;   /* process CPU time at the loop's start, in it */

/* What disturbed the calling thread: page faults, involuntary switches,
 * migrations (from /proc, -1 without it). */
typedef struct { double faults, switches, migrations, blocked; } disturb_t;

static double
migrations (void)
{
  FILE *f = fopen ("/proc/thread-self/sched", "r");
  if (!f)
    return -1;
  char line[256];
  double m = -1;
  while (fgets (line, sizeof line, f))
    if (!strncmp (line, "se.nr_migrations", 16))
      {
        const char *c = strchr (line, ':');
        m = c ? atof (c + 1) : -1;
        break;
      }
  fclose (f);
  return m;
}

static disturb_t
disturb_now (void)
{
  struct rusage u;
  getrusage (RUSAGE_THREAD, &u);
  return (disturb_t) { (double) (u.ru_minflt + u.ru_majflt),
                       (double) u.ru_nivcsw, migrations (),
                       (double) u.ru_nvcsw };
}

static disturb_t d0, dloop;   /* at the loop's start, in it */

static void
loop_start (void)
{
  d0 = disturb_now ();
  cpu0 = bench_clock_s (CLOCK_PROCESS_CPUTIME_ID);
}

static void
loop_end (void)
{
  cpu = bench_clock_s (CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  disturb_t d1 = disturb_now ();
  dloop.faults = d1.faults - d0.faults;
  dloop.switches = d1.switches - d0.switches;
  dloop.blocked = d1.blocked - d0.blocked;
  dloop.migrations = d0.migrations < 0 || d1.migrations < 0
                       ? -1 : d1.migrations - d0.migrations;
}

/* The floor's ring: MPE_BUFFER_MB (default 64) MiB, as MPE's; *cap
 * records (a power of two). */
static rec_t *
floor_ring (size_t *cap)
{
  const char *mb = getenv ("MPE_BUFFER_MB");
  size_t bytes = (size_t) ((mb && atof (mb) > 0 ? atof (mb) : 64) * 1048576);
  *cap = 1;
  while (*cap * 2 * sizeof (rec_t) <= bytes)
    *cap *= 2;
  rec_t *ring = malloc (*cap * sizeof *ring);
  if (!ring)
    return NULL;
  /* Every page faulted in as libmpe faults its buffer in.  Not memset
   * to 0: the compiler makes malloc + memset a calloc, which leaves a
   * fresh mapping untouched, and the floor then paid a fault every 256
   * calls in the loop (0.8x "faster" MPE figures, until 2026-11-25). */
  for (size_t o = 0; o < *cap * sizeof *ring; o += 4096)
    ((volatile char *) ring)[o] = 1;
  return ring;
}

/* Floor calls [from, from + n) of the ring. */
static void
floor_calls (rec_t *ring, size_t cap, long from, long n)
{
  for (long i = from; i < from + n; i++)
    {
      rec_t *r = &ring[(size_t) i & (cap - 1)];
      r->t = bench_stamp ();
      r->id = (int32_t) (i & 1);
      r->aux = 0;
      __asm__ volatile ("" ::: "memory");
    }
}

/* The user's calls: n / 2 starts and ends. */
static void
mpe_calls (int a, int b, long n)
{
  for (long i = 0; i < n / 2; i++)
    {
      MPE_Log_event (a, 0, NULL);
      MPE_Log_event (b, 0, NULL);
    }
}

static double
floor_loop (long n)
{
  size_t cap;
  rec_t *ring = floor_ring (&cap);
  if (!ring)
    return -1;
  MPI_Barrier (MPI_COMM_WORLD);
  loop_start ();
  double t0 = bench_now ();
  floor_calls (ring, cap, 0, n);
  double t = bench_now () - t0;
  loop_end ();
  free (ring);
  return t;
}

/* --pair: blocks of this many calls, the floor's and the user's by
 * turns (about a millisecond each: the host's speed holds that long). */
enum { PAIR_BLOCK = 65536 };

/* The user's program; with `paired`, its loop goes in blocks, each after
 * (or, every other block, before) as many floor calls, whose time goes
 * to *paired. */
static double
mpe_loop (long n, double *paired)
{
  MPE_Init_log ();
  int a, b, rank;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPE_Log_get_state_eventIDs (&a, &b);
  if (rank == 0)
    MPE_Describe_state (a, b, "Work", "red");
  size_t cap = 0;
  rec_t *ring = paired ? floor_ring (&cap) : NULL;
  if (paired && !ring)
    MPI_Abort (MPI_COMM_WORLD, 1);
  MPI_Barrier (MPI_COMM_WORLD);
  loop_start ();
  double t = 0, tf = 0;
  if (!paired)
    {
      double t0 = bench_now ();
      mpe_calls (a, b, n);
      t = bench_now () - t0;
    }
  else
    for (long done = 0, k = 0; done < n; done += PAIR_BLOCK, k++)
      {
        long m = n - done < PAIR_BLOCK ? n - done : PAIR_BLOCK;
        double t0 = bench_now (), t1, t2;
        if (k & 1)
          {
            mpe_calls (a, b, m);
            t1 = bench_now ();
            floor_calls (ring, cap, done, m);
            t2 = bench_now ();
            t += t1 - t0;
            tf += t2 - t1;
          }
        else
          {
            floor_calls (ring, cap, done, m);
            t1 = bench_now ();
            mpe_calls (a, b, m);
            t2 = bench_now ();
            tf += t1 - t0;
            t += t2 - t1;
          }
      }
  loop_end ();
  free (ring);
  if (paired)
    {
      *paired = tf;
      cpu -= tf;   /* the floor's blocks: one thread, on its core */
    }
  char prefix[64];
  snprintf (prefix, sizeof prefix, "/tmp/mpe-bench-user-%ld",
            (long) getpid ());
  MPI_Bcast (prefix, sizeof prefix, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPE_Finish_log (prefix);
  if (rank == 0)
    {
      char path[80];
      snprintf (path, sizeof path, "%s.clog", prefix);
      unlink (path);
    }
  return t;
}

int
main (int argc, char **argv)
{
  long n = 10000000;
  int floor = 0, pair = 0;
  for (int i = 1; i < argc; i++)
    if (!strcmp (argv[i], "--floor"))
      floor = 1;
    else if (!strcmp (argv[i], "--pair"))
      pair = 1;
    else
      n = atol (argv[i]);
  if (n < 2)
    n = 2;
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  double paired = 0, worst_paired = 0;
  double t[6] = { floor ? floor_loop (n)
                        : mpe_loop (n, pair ? &paired : NULL), cpu,
                   dloop.faults, dloop.switches, dloop.migrations,
                   dloop.blocked },
         worst[6];
  MPI_Reduce (t, worst, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce (&paired, &worst_paired, 1, MPI_DOUBLE, MPI_MAX, 0,
              MPI_COMM_WORLD);
  if (rank == 0)
    printf ("mpe-user: %d ranks, %ld calls: %.2f ns/call, %.2f ns CPU (%s); "
            "%.0f faults, %.0f switches, %.0f migrations, %.0f blocked",
            size, n, worst[0] / (double) n * 1e9,
            worst[1] / (double) n * 1e9, floor ? "floor" : "mpe",
            worst[2], worst[3], worst[4], worst[5]);
  if (rank == 0 && pair && !floor)
    printf ("; paired floor %.2f ns/call", worst_paired / (double) n * 1e9);
  if (rank == 0)
    printf ("\n");
  MPI_Finalize ();
  return 0;
}

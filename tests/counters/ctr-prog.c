/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The counter layer's test program (tests/counters: perf.sh, rotate.sh), with
 * MPE_COUNTERS set by the script.
 *   ctr-prog states N: per rank, states with known counts, each opened
 *       and closed next to an MPE_Counters_read: "Sleep" (N nanosleeps of
 *       2 ms: N voluntary context switches), "Touch" (N * 64 fresh pages
 *       written once: at least that many minor faults), "Fault" (N * 16
 *       pages of a file dropped from the page cache, read once through
 *       a mapping without readahead: a major fault each where the file
 *       system reads them back; the kernel's count of the state's major
 *       faults is printed, "ctr-prog: rank R fault state MAJOR") and
 *       "Spin" (N * 2 ms of busy looping: that much task clock, timed by
 *       it);
 *   ctr-prog barriers N MS: N rounds of MS ms of busy looping in state
 *       "Spin" then an MPI_Barrier (an instrumentation point: rotation
 *       periods end there), then MPE_Counters_read;
 *   ctr-prog compute N: N ms of busy looping in state "Spin" with no
 *       instrumentation point in it (rotation then happens at timer
 *       samples only), then MPE_Counters_read;
 *   ctr-prog threads N: two threads that call neither MPI nor
 *       MPE_Counters_read each spin N ms in state "Spin" and end (joined);
 *       a third spins N ms in state "Sleep" and then waits, still
 *       running at the finish (released after MPI_Finalize).
 * At exit every rank prints what the kernel counted for its main thread
 * over its whole life ("ctr-prog: rank R csw VOLUNTARY INVOLUNTARY
 * majflt MAJOR"): the counters, read over part of that life, can never
 * exceed it.
 */
#define _GNU_SOURCE 1
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mpe.h"
#include "mpe_metrics.h"

/* The calling thread's CPU time in seconds, by perf's task clock where the
 * kernel lets the thread open it: the very clock the counter layer
 * reads as "task-clock".  The thread CPU clock, the fallback, is
 * accounted apart by the kernel: under CI's load the two were 9-12%
 * apart over a spin, and a test's known count must be in the clock it
 * is compared with. */
static double
cpu_now (void)
{
  static __thread int fd = -2;
  if (fd == -2)
    {
      struct perf_event_attr a;
      memset (&a, 0, sizeof a);
      a.size = sizeof a;
      a.type = PERF_TYPE_SOFTWARE;
      a.config = PERF_COUNT_SW_TASK_CLOCK;
      a.exclude_hv = 1;
      fd = (int) syscall (SYS_perf_event_open, &a, 0, -1, -1,
                          PERF_FLAG_FD_CLOEXEC);
      if (fd < 0)
        fd = -1;
    }
  uint64_t v;
  if (fd >= 0 && read (fd, &v, sizeof v) == (ssize_t) sizeof v)
    return (double) v * 1e-9;
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* s seconds of this thread's CPU time (a frame of its own in the
 * samples' call paths). */
static void __attribute__ ((noinline))
spin (double s)
{
  double end = cpu_now () + s;
  volatile double x = 0;
  while (cpu_now () < end)
    for (int i = 0; i < 1000; i++)
      x += i;
  (void) x;   /* read once: clang warns on a volatile only ever set */
}

static void
state (int id[2], int open)
{
  if (open)
    {
      MPE_Log_event (id[0], 0, NULL);
      MPE_Counters_read ();
    }
  else
    {
      MPE_Counters_read ();
      MPE_Log_event (id[1], 0, NULL);
    }
}

/* The calling thread's major faults so far, as getrusage counts them. */
static long
majflt (void)
{
  struct rusage ru;
  return getrusage (RUSAGE_THREAD, &ru) == 0 ? ru.ru_majflt : -1;
}

/* A file of `pages` pages, written, synced and dropped from the page
 * cache; then, in state id, one byte of each page read through a
 * mapping that does no readahead.  Returns the major faults the kernel
 * counted for the thread in the state, or -1 where the file could not
 * be made. */
static long
fault_state (int id[2], int pages, int rank)
{
  char path[64];
  snprintf (path, sizeof path, "ctr-fault-%d.tmp", rank);
  int fd = open (path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0)
    return -1;
  unlink (path);
  char page[4096];
  memset (page, 7, sizeof page);
  for (int i = 0; i < pages; i++)
    if (write (fd, page, sizeof page) != (ssize_t) sizeof page)
      {
        close (fd);
        return -1;
      }
  size_t len = (size_t) pages * 4096;
  fsync (fd);
  posix_fadvise (fd, 0, (off_t) len, POSIX_FADV_DONTNEED);
  char *p = mmap (NULL, len, PROT_READ, MAP_SHARED, fd, 0);
  close (fd);
  if (p == MAP_FAILED)
    return -1;
  madvise (p, len, MADV_RANDOM);
  volatile char sum = 0;
  state (id, 1);
  long before = majflt ();
  for (size_t o = 0; o < len; o += 4096)
    sum += p[o];
  long during = majflt () - before;
  state (id, 0);
  munmap (p, len);
  (void) sum;
  return during;
}

static int t_spin[2], t_wait[2];
static double t_ms;
static pthread_mutex_t t_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t t_cond = PTHREAD_COND_INITIALIZER;
static int t_release, t_waiting;

static void *
spinner (void *arg)
{
  (void) arg;
  MPE_Log_event (t_spin[0], 0, NULL);
  spin (t_ms * 1e-3);
  MPE_Log_event (t_spin[1], 0, NULL);
  return NULL;
}

static void *
waiter (void *arg)
{
  (void) arg;
  MPE_Log_event (t_wait[0], 0, NULL);
  spin (t_ms * 1e-3);
  MPE_Log_event (t_wait[1], 0, NULL);
  pthread_mutex_lock (&t_lock);
  t_waiting = 1;
  pthread_cond_broadcast (&t_cond);
  while (!t_release)
    pthread_cond_wait (&t_cond, &t_lock);
  pthread_mutex_unlock (&t_lock);
  return NULL;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  if (argc < 3)
    {
      fprintf (stderr, "usage: ctr-prog states N | barriers N MS | compute "
               "N\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  int n = atoi (argv[2]);
  int s_sleep[2], s_touch[2], s_fault[2], s_spin[2];
  MPE_Log_get_state_eventIDs (&s_sleep[0], &s_sleep[1]);
  MPE_Log_get_state_eventIDs (&s_touch[0], &s_touch[1]);
  MPE_Log_get_state_eventIDs (&s_fault[0], &s_fault[1]);
  MPE_Log_get_state_eventIDs (&s_spin[0], &s_spin[1]);
  MPE_Describe_state (s_sleep[0], s_sleep[1], "Sleep", "blue");
  MPE_Describe_state (s_touch[0], s_touch[1], "Touch", "green");
  MPE_Describe_state (s_fault[0], s_fault[1], "Fault", "orange");
  MPE_Describe_state (s_spin[0], s_spin[1], "Spin", "red");
  if (MPE_Counters_read () != MPE_LOG_OK)
    fprintf (stderr, "ctr-prog: MPE_Counters_read failed\n");
  int rank;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  if (!strcmp (argv[1], "states"))
    {
      state (s_sleep, 1);
      for (int i = 0; i < n; i++)
        {
          struct timespec ts = { 0, 2000000 };
          nanosleep (&ts, NULL);
        }
      state (s_sleep, 0);
      size_t len = (size_t) n * 64 * 4096;
      char *p = mmap (NULL, len, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      madvise (p, len, MADV_NOHUGEPAGE);
      state (s_touch, 1);
      for (size_t o = 0; o < len; o += 4096)
        p[o] = 1;
      state (s_touch, 0);
      munmap (p, len);
      long mj = fault_state (s_fault, n * 16, rank);
      printf ("ctr-prog: rank %d fault state %ld\n", rank, mj);
      state (s_spin, 1);
      spin (n * 0.002);
      state (s_spin, 0);
    }
  else if (!strcmp (argv[1], "barriers") && argc > 3)
    {
      double ms = atof (argv[3]);
      for (int i = 0; i < n; i++)
        {
          MPE_Log_event (s_spin[0], 0, NULL);
          spin (ms * 1e-3);
          MPE_Log_event (s_spin[1], 0, NULL);
          MPI_Barrier (MPI_COMM_WORLD);
        }
      MPE_Counters_read ();
    }
  else if (!strcmp (argv[1], "threads"))
    {
      pthread_t th[3];
      t_spin[0] = s_spin[0];
      t_spin[1] = s_spin[1];
      t_wait[0] = s_sleep[0];
      t_wait[1] = s_sleep[1];
      t_ms = n;
      pthread_create (&th[0], NULL, spinner, NULL);
      pthread_create (&th[1], NULL, spinner, NULL);
      pthread_join (th[0], NULL);
      pthread_join (th[1], NULL);
      pthread_create (&th[2], NULL, waiter, NULL);
      pthread_mutex_lock (&t_lock);
      while (!t_waiting)
        pthread_cond_wait (&t_cond, &t_lock);
      pthread_mutex_unlock (&t_lock);
      MPI_Finalize ();
      pthread_mutex_lock (&t_lock);
      t_release = 1;
      pthread_cond_broadcast (&t_cond);
      pthread_mutex_unlock (&t_lock);
      pthread_join (th[2], NULL);
      return 0;
    }
  else if (!strcmp (argv[1], "compute"))
    {
      MPE_Log_event (s_spin[0], 0, NULL);
      spin (n * 1e-3);
      MPE_Log_event (s_spin[1], 0, NULL);
      MPE_Counters_read ();
    }
  MPI_Finalize ();
  struct rusage ru;
  if (getrusage (RUSAGE_THREAD, &ru) == 0)
    printf ("ctr-prog: rank %d csw %ld %ld majflt %ld\n", rank, ru.ru_nvcsw,
            ru.ru_nivcsw, ru.ru_majflt);
  return 0;
}

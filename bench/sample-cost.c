/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a timer sample costs a compute-bound thread, by source:
 *   timer   - timer_create (CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID)
 *   perf    - perf_event_open task-clock sampling, a signal per overflow
 *             (F_SETOWN_EX to the thread, re-armed by an ioctl per sample)
 * each with an empty handler, and the timer with the sampler's unwinders
 * in the handler (frame-pointer walk, unw_backtrace) at a known depth.
 * The same fixed work runs in every mode, interleaved, several rounds;
 * the best round of each is kept.  Cost per sample = (CPU time with
 * samples - without) / samples, split into user and kernel time
 * (RUSAGE_THREAD).
 * Usage: sample-cost [HZ [ROUNDS]]
 */
#include "config.h"

#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifdef HAVE_LIBUNWIND
# define UNW_LOCAL_ONLY
# include <libunwind.h>
#endif

enum { M_NONE, M_TIMER, M_PERF, M_TIMER_FP, M_TIMER_UNW, NMODES };
static const char *mode_name[NMODES] = {
  "none", "timer (empty handler)", "perf_event (empty handler + refresh)",
  "timer + frame-pointer walk", "timer + unw_backtrace"
};

static volatile sig_atomic_t nsamples;
static volatile int mode;
static int perf_fd = -1;
static volatile uint64_t sink;

static void
on_sig (int sig, siginfo_t *si, void *ucv)
{
  (void) sig;
  (void) si;
  nsamples++;
  if (mode == M_PERF)
    ioctl (perf_fd, PERF_EVENT_IOC_REFRESH, 1);
  else if (mode == M_TIMER_FP)
    {
      const ucontext_t *uc = ucv;
      uintptr_t fp = (uintptr_t) uc->uc_mcontext.gregs[REG_RBP];
      uintptr_t sp = (uintptr_t) uc->uc_mcontext.gregs[REG_RSP];
      uint64_t acc = (uint64_t) uc->uc_mcontext.gregs[REG_RIP];
      for (int d = 0; d < 64 && fp >= sp && !(fp & 7); d++)
        {
          uintptr_t next = ((uintptr_t *) fp)[0];
          acc += ((uintptr_t *) fp)[1];
          if (next <= fp)
            break;
          sp = fp;
          fp = next;
        }
      sink += acc;
    }
#ifdef HAVE_LIBUNWIND
  else if (mode == M_TIMER_UNW)
    {
      void *buf[64];
      sink += (uint64_t) unw_backtrace (buf, 64);
    }
#endif
}

/* A call chain of known depth ending in the work, with frame pointers. */
__attribute__ ((noinline)) static double
work (long n)
{
  double a = 1.0;
  for (long i = 0; i < n; i++)
    a = a * 1.0000001 + (double) (i & 7);
  return a;
}

__attribute__ ((noinline)) static double
chain (int depth, long n)
{
  double r = depth ? chain (depth - 1, n) : work (n);
  __asm__ volatile ("" : : : "memory");
  return r;
}

static double
ts (const struct timeval *t)
{
  return (double) t->tv_sec + (double) t->tv_usec * 1e-6;
}

int
main (int argc, char **argv)
{
  int hz = argc > 1 ? atoi (argv[1]) : 1000;
  int rounds = argc > 2 ? atoi (argv[2]) : 5;
  long n = 400000000L;   /* about 1 s of work */
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sig;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction (SIGPROF, &sa, NULL);

  timer_t timer;
  struct sigevent ev;
  memset (&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGPROF;
  ev._sigev_un._tid = (pid_t) syscall (SYS_gettid);
  if (timer_create (CLOCK_THREAD_CPUTIME_ID, &ev, &timer) != 0)
    {
      perror ("timer_create");
      return 1;
    }
  struct perf_event_attr pa;
  memset (&pa, 0, sizeof pa);
  pa.size = sizeof pa;
  pa.type = PERF_TYPE_SOFTWARE;
  pa.config = PERF_COUNT_SW_TASK_CLOCK;
  pa.sample_period = 1000000000ull / (unsigned) hz;
  pa.disabled = 1;
  pa.exclude_kernel = 1;
  pa.exclude_hv = 1;
  pa.wakeup_events = 1;
  perf_fd = (int) syscall (SYS_perf_event_open, &pa, 0, -1, -1, 0);
  int perf_ok = perf_fd >= 0;
  if (!perf_ok)
    fprintf (stderr, "perf_event_open: %s (perf_event_paranoid?)\n",
             strerror (errno));
  else
    {
      struct f_owner_ex own = { F_OWNER_TID, (pid_t) syscall (SYS_gettid) };
      fcntl (perf_fd, F_SETOWN_EX, &own);
      fcntl (perf_fd, F_SETSIG, SIGPROF);
      fcntl (perf_fd, F_SETFL, fcntl (perf_fd, F_GETFL) | O_ASYNC);
    }

  double best[NMODES][3];
  int got[NMODES];
  for (int m = 0; m < NMODES; m++)
    best[m][0] = best[m][1] = best[m][2] = 1e30, got[m] = 0;
  for (int r = 0; r < rounds; r++)
    for (int m = 0; m < NMODES; m++)
      {
        if (m == M_PERF && !perf_ok)
          continue;
#ifndef HAVE_LIBUNWIND
        if (m == M_TIMER_UNW)
          continue;
#endif
        mode = m;
        nsamples = 0;
        long ns = 1000000000L / hz;
        struct itimerspec its = { { 0, ns }, { 0, ns } };
        struct itimerspec off = { { 0, 0 }, { 0, 0 } };
        struct rusage u0, u1;
        struct timespec c0, c1;
        getrusage (RUSAGE_THREAD, &u0);
        clock_gettime (CLOCK_THREAD_CPUTIME_ID, &c0);
        if (m == M_PERF)
          ioctl (perf_fd, PERF_EVENT_IOC_REFRESH, 1);
        else if (m != M_NONE)
          timer_settime (timer, 0, &its, NULL);
        sink += (uint64_t) chain (12, n);
        if (m == M_PERF)
          ioctl (perf_fd, PERF_EVENT_IOC_DISABLE, 0);
        else if (m != M_NONE)
          timer_settime (timer, 0, &off, NULL);
        clock_gettime (CLOCK_THREAD_CPUTIME_ID, &c1);
        getrusage (RUSAGE_THREAD, &u1);
        /* The total from the thread's CPU clock (exact); the kernel's
         * part from rusage (tick-sampled: a rough split). */
        double cpu = (double) (c1.tv_sec - c0.tv_sec)
                     + (double) (c1.tv_nsec - c0.tv_nsec) * 1e-9;
        double sys = ts (&u1.ru_stime) - ts (&u0.ru_stime);
        double user = cpu - sys;
        if (user + sys < best[m][0] + best[m][1])
          {
            best[m][0] = user;
            best[m][1] = sys;
            best[m][2] = nsamples;
          }
        got[m] = 1;
      }
  printf ("sampling cost at %d Hz (best of %d rounds of ~1 s CPU, depth "
          "~14 frames)\n", hz, rounds);
  printf ("%-38s %9s %9s %8s %11s %11s %8s\n", "mode", "user s", "sys s",
          "samples", "us/sample", "sys/sample", "slowdown");
  for (int m = 0; m < NMODES; m++)
    {
      if (!got[m])
        {
          printf ("%-38s unavailable\n", mode_name[m]);
          continue;
        }
      double d = best[m][0] + best[m][1] - best[M_NONE][0] - best[M_NONE][1];
      double ds = best[m][1] - best[M_NONE][1];
      double k = best[m][2] > 0 ? best[m][2] : 1;
      printf ("%-38s %9.4f %9.4f %8.0f %11.2f %11.2f %7.2f%%\n",
              mode_name[m], best[m][0], best[m][1], best[m][2],
              m ? d / k * 1e6 : 0.0, m ? ds / k * 1e6 : 0.0,
              100.0 * d / (best[M_NONE][0] + best[M_NONE][1]));
    }
  return sink == 42;
}

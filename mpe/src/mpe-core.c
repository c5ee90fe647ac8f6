/* SPDX-License-Identifier: BSD-3-Clause */
/* Process-wide state, the clock, and the one wait on MPI that gives the
 * core away (the merge's and the clock sync's).  The other jobs of the
 * logger have their own files: mpe-tbuf.c (thread buffers and their ring
 * files), mpe-flush.c (moving full buffers to the spill file),
 * mpe-spillfile.c (the spill file), mpe-crash.c (the crash path). */
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe-internal.h"

atomic_int mpe__mode;
int mpe__bare_fast;
__thread mpe_tbuf_t *mpe__tls __attribute__ ((tls_model ("initial-exec")));
int mpe__use_counter;
mpe_global_t mpe__g = { .lock = PTHREAD_MUTEX_INITIALIZER, .spill_fd = -1,
                        .spill_dfd = -1 };
MPI_Comm mpe__comm = MPI_COMM_NULL;  /* private dup of world */

/* ------------------------------------------------------------------ */
/* Clock                                                               */
/* ------------------------------------------------------------------ */

int64_t
mpe__mono_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
mpe__real_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#if MPE_HAVE_COUNTER
/* Whether the counter can stamp events on this machine. */
static int
counter_usable (void)
{
#if defined MPE_COUNTER_TSC
  /* The TSC must tick at a constant rate through frequency changes and
   * sleep states. */
  FILE *f = fopen ("/proc/cpuinfo", "r");
  if (!f)
    return 0;
  char line[8192];
  int found = 0;
  while (fgets (line, sizeof line, f))
    if (strncmp (line, "flags", 5) == 0)
      {
        found = strstr (line, " constant_tsc") && strstr (line, " nonstop_tsc");
        break;
      }
  fclose (f);
  return found;
#else
  /* The generic timer runs at a constant rate by definition; a zero
   * frequency register means firmware left it unset. */
  return mpe_counter_hz () != 0;
#endif
}

/* A (counter, mono) pair read as close together as possible. */
static void
counter_pair (uint64_t *ticks, int64_t *mono)
{
  int64_t best = INT64_MAX;
  *ticks = 0;
  *mono = 0;
  for (int i = 0; i < 7; i++)
    {
      int64_t a = mpe__mono_ns ();
      uint64_t t = mpe_counter_read ();
      int64_t b = mpe__mono_ns ();
      if (b - a < best)
        {
          best = b - a;
          *ticks = t;
          *mono = a + (b - a) / 2;
        }
    }
}
#endif

void
mpe__clock_init (void)
{
  mpe__use_counter = 0;
#if MPE_HAVE_COUNTER
  const char *no = getenv ("MPE_NO_TSC");
  mpe__use_counter = counter_usable () && !(no && *no && *no != '0');
  if (mpe__use_counter)
    {
      uint64_t t0;
      int64_t m0;
      counter_pair (&t0, &m0);
      uint64_t hz = mpe_counter_hz ();
      if (hz)
        mpe__g.mult = 1e9 / (double) hz;
      else
        {
          /* 3 ms of calibration: a few ppm.  Every process on a host
           * then takes its host leader's conversion (mpe__clock_share),
           * so this error is the host's, not a process's: the sync's
           * offsets at the start and the finish absorb it between hosts. */
          uint64_t t1;
          int64_t m1;
          do
            counter_pair (&t1, &m1);
          while (m1 - m0 < 3000000);
          mpe__g.mult = (double) (m1 - m0) / (double) (t1 - t0);
        }
      mpe__g.tick0 = t0;
      mpe__g.mono0 = m0;
    }
#endif
  if (!mpe__use_counter)
    {
      mpe__g.mult = 1.0;
      mpe__g.tick0 = (uint64_t) mpe__mono_ns ();
      mpe__g.mono0 = (int64_t) mpe__g.tick0;
    }
  /* Test hook: rank r's rate off by r times this many ppm, as a poor
   * calibration would leave it (mpe__clock_share must undo it). */
  const char *ppm = getenv ("MPE_TEST_CLOCK_RATE_PPM");
  if (ppm && *ppm)
    mpe__g.mult *= 1.0 + atof (ppm) * 1e-6 * (double) mpe__g.rank;
  mpe__g.mult_fp = (uint64_t) (mpe__g.mult * 4294967296.0 + 0.5);
  int64_t now = mpe__mono_ns ();
  mpe__g.real0 = mpe__real_ns () - (now - mpe__g.mono0);
}

/* Completes rq, giving the core away while it is not done.  A blocking
 * MPI call spins: with more ranks than cores (a test job, a node shared
 * by several jobs) the spinning ranks take the time slices of the ranks
 * they wait for, and each collective of the merge costs tens of ms.
 * With a core per rank the first tests complete it. */
void
mpe__mpi_wait (MPI_Request *rq)
{
  int done = 0;
  for (int spins = 0;; spins++)
    {
      PMPI_Test (rq, &done, MPI_STATUS_IGNORE);
      if (done)
        return;
      if (spins >= 64)
        sched_yield ();
    }
}

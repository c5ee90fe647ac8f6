/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scheduling layer: with MPE_SCHED=1 every logged thread opens its
 * own context-switch ring (mpe-perf.c) when it gets its buffer, and a
 * poller thread drains all rings every MPE_SCHED_POLL_MS (20) ms, so the
 * logged threads never make a system call for it.  The kernel stamps
 * switches with CLOCK_MONOTONIC; the poller also records (log clock,
 * CLOCK_MONOTONIC) pairs, and the merge gets switch times on the log's
 * clock by interpolating between them (the log's counter and the kernel's
 * clock agree to the ns at each pair, whatever the counter's calibration).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpe-internal.h"
#include "mpe-perf-internal.h"
#include "mpe-sched.h"

typedef struct
{
  int64_t local, mono;
} clock_pair_t;

static struct
{
  int             on;
  unsigned        pages;       /* ring data pages per thread */
  size_t          max;         /* records kept per thread */
  int             poll_ms;
  int             warned;
  int             host_leader; /* the lowest rank of its host */
  int             net_every, net_tick;  /* NIC sample every n polls */
  pthread_mutex_t lock;        /* rings, nrings, pairs */
  mpe_sw_t      **rings;       /* by thread index; NULL: none */
  int             nrings;
  clock_pair_t   *pairs;
  size_t          npairs, cappairs;
  pthread_t       poller;
  int             poller_on;
  pthread_mutex_t stop_lock;
  pthread_cond_t  stop_cv;
  int             stop;
} S = { .lock = PTHREAD_MUTEX_INITIALIZER,
        .stop_lock = PTHREAD_MUTEX_INITIALIZER,
        .stop_cv = PTHREAD_COND_INITIALIZER };

static long
env_long (const char *name, long dflt, long lo, long hi)
{
  return (long) mpe__env_number (name, (double) dflt, (double) lo,
                                 (double) hi, "", MPE_ENV_INT);
}

/* A (log clock, CLOCK_MONOTONIC) pair read as close together as the
 * best of three tries. Called with S.lock held. */
static void
add_pair (void)
{
  if (S.npairs == S.cappairs)
    {
      size_t nc = S.cappairs ? S.cappairs * 2 : 256;
      clock_pair_t *p = realloc (S.pairs, nc * sizeof *p);
      if (!p)
        return;
      S.pairs = p;
      S.cappairs = nc;
    }
  int64_t best = INT64_MAX;
  clock_pair_t got = { 0, 0 };
  for (int i = 0; i < 3; i++)
    {
      int64_t a = mpe__mono_ns ();
      uint64_t t = mpe__ticks ();
      int64_t b = mpe__mono_ns ();
      if (b - a < best)
        {
          best = b - a;
          got.local = (int64_t) mpe__ticks_to_local (t);
          got.mono = a + (b - a) / 2;
        }
    }
  S.pairs[S.npairs++] = got;
}

static void
warn_once (const char *why)
{
  if (S.warned++)
    return;
  fprintf (stderr, "mpe: rank %d: MPE_SCHED: %s; context switches are not "
           "recorded\n", mpe__g.rank, why);
}

void
mpe__sched_thread (int thread)
{
  mpe__mem_thread (thread);
  if (!__atomic_load_n (&S.on, __ATOMIC_ACQUIRE) || thread < 0)
    return;
  pthread_mutex_lock (&S.lock);
  if (thread >= S.nrings)
    {
      int nn = thread + 16;
      mpe_sw_t **r = realloc (S.rings, (size_t) nn * sizeof *r);
      if (!r)
        {
          pthread_mutex_unlock (&S.lock);
          return;
        }
      memset (r + S.nrings, 0, (size_t) (nn - S.nrings) * sizeof *r);
      S.rings = r;
      S.nrings = nn;
    }
  if (S.rings[thread])
    {
      pthread_mutex_unlock (&S.lock);
      return;
    }
  mpe_sw_t *s = malloc (sizeof *s);
  char err[256];
  int rc = s ? mpe__sw_open (s, S.pages, S.max, err, sizeof err) : -ENOMEM;
  if (rc == 0)
    S.rings[thread] = s;
  else
    {
      if (s)
        mpe__sw_free (s);
      free (s);
      warn_once (rc == -ENOMEM ? "no memory" : err);
    }
  pthread_mutex_unlock (&S.lock);
}

static void
drain_all (void)
{
  pthread_mutex_lock (&S.lock);
  add_pair ();
  for (int i = 0; i < S.nrings; i++)
    if (S.rings[i])
      mpe__sw_drain (S.rings[i]);
  pthread_mutex_unlock (&S.lock);
}

static void *
poll_main (void *arg)
{
  (void) arg;
  pthread_mutex_lock (&S.stop_lock);
  while (!S.stop)
    {
      struct timespec ts;
      clock_gettime (CLOCK_REALTIME, &ts);
      ts.tv_nsec += (long) S.poll_ms * 1000000L;
      ts.tv_sec += ts.tv_nsec / 1000000000L;
      ts.tv_nsec %= 1000000000L;
      pthread_cond_timedwait (&S.stop_cv, &S.stop_lock, &ts);
      if (S.stop)
        break;
      pthread_mutex_unlock (&S.stop_lock);
      if (mpe__sched_on ())
        drain_all ();
      mpe__mem_sample ();
      if (mpe__net_on () && ++S.net_tick >= S.net_every)
        {
          S.net_tick = 0;
          mpe__net_sample ();
        }
      pthread_mutex_lock (&S.stop_lock);
    }
  pthread_mutex_unlock (&S.stop_lock);
  return NULL;
}

int
mpe__sched_host_leader (void)
{
  return S.host_leader;
}

int
mpe__sched_on (void)
{
  return __atomic_load_n (&S.on, __ATOMIC_ACQUIRE);
}

void
mpe__sched_init (void)
{
  mpe__sched_reset ();
  /* Every rank takes the same decision (rank 0's), since the topology
   * is gathered with collectives at the finish. */
  int on2[2] = { mpe__env_bool ("MPE_SCHED", 0),
                  mpe__env_bool ("MPE_NETWORK", 0) };
  PMPI_Bcast (on2, 2, MPI_INT, 0, mpe__comm);
  int on = on2[0];
  S.host_leader = 0;
  if (on2[0] || on2[1])
    {
      MPI_Comm node;
      int nr = 0;
      if (PMPI_Comm_split_type (mpe__comm, MPI_COMM_TYPE_SHARED, 0,
                                MPI_INFO_NULL, &node) == MPI_SUCCESS)
        {
          PMPI_Comm_rank (node, &nr);
          PMPI_Comm_free (&node);
        }
      S.host_leader = nr == 0;
    }
  S.poll_ms = (int) env_long ("MPE_SCHED_POLL_MS", 20, 1, 60000);
  if (on)
    {
      S.warned = 0;
      S.pages = (unsigned) env_long ("MPE_SCHED_RING_PAGES", 64, 1, 1 << 16);
      if (S.pages & (S.pages - 1))
        S.pages = 64;
      S.max = (size_t) env_long ("MPE_SCHED_MAX", 1 << 22, 1024, 1L << 30);
      pthread_mutex_lock (&S.lock);
      add_pair ();
      pthread_mutex_unlock (&S.lock);
      __atomic_store_n (&S.on, 1, __ATOMIC_RELEASE);
      if (mpe__tls)
        mpe__sched_thread (mpe__tls->thread);
    }
  mpe__mem_init ();
  if (mpe__mem_on ())
    {
      int ms = (int) env_long ("MPE_MEMORY_INTERVAL_MS", 10, 1, 60000);
      if (!on || ms < S.poll_ms)
        S.poll_ms = ms;
    }
  if (on2[1])
    mpe__net_init (S.host_leader);
  if (mpe__net_on ())
    {
      int ms = (int) env_long ("MPE_NETWORK_INTERVAL_MS", 100, 1, 60000);
      if (!on && !mpe__mem_on ())
        S.poll_ms = ms;
      S.net_every = ms / S.poll_ms > 1 ? ms / S.poll_ms : 1;
      S.net_tick = 0;
    }
  S.stop = 0;
  if (on || mpe__mem_on () || mpe__net_on ())
    S.poller_on = pthread_create (&S.poller, NULL, poll_main, NULL) == 0;
}

void
mpe__sched_stop (void)
{
  if (S.poller_on)
    {
      pthread_mutex_lock (&S.stop_lock);
      S.stop = 1;
      pthread_cond_signal (&S.stop_cv);
      pthread_mutex_unlock (&S.stop_lock);
      pthread_join (S.poller, NULL);
      S.poller_on = 0;
      mpe__mem_freeze ();
      mpe__net_sample ();
    }
  if (!mpe__sched_on ())
    return;
  pthread_mutex_lock (&S.lock);
  add_pair ();
  for (int i = 0; i < S.nrings; i++)
    if (S.rings[i])
      mpe__sw_close (S.rings[i]);
  pthread_mutex_unlock (&S.lock);
}

/* CLOCK_MONOTONIC ns -> local ns of the log, between the nearest pairs. */
static uint64_t
to_local (int64_t mono, size_t *seg)
{
  const clock_pair_t *p = S.pairs;
  size_t n = S.npairs;
  if (n == 0)
    return 0;
  size_t i = *seg;
  while (i + 1 < n && p[i + 1].mono <= mono)
    i++;
  while (i > 0 && p[i].mono > mono)
    i--;
  *seg = i;
  int64_t local;
  if (i + 1 < n && p[i].mono <= mono && p[i + 1].mono > p[i].mono)
    {
      double f = (double) (mono - p[i].mono)
                 / (double) (p[i + 1].mono - p[i].mono);
      local = p[i].local + (int64_t) (f * (double) (p[i + 1].local
                                                    - p[i].local));
    }
  else
    local = p[i].local + (mono - p[i].mono);
  return local < 0 ? 0 : (uint64_t) local;
}

int
mpe__sched_records (int thread, mpe_sched_rec_t **out, size_t *n,
                    uint64_t *lost)
{
  *out = NULL;
  *n = 0;
  *lost = 0;
  pthread_mutex_lock (&S.lock);
  mpe_sw_t *s = thread >= 0 && thread < S.nrings ? S.rings[thread] : NULL;
  if (!s || s->n == 0)
    {
      if (s)
        *lost = s->lost;
      pthread_mutex_unlock (&S.lock);
      return 0;
    }
  mpe_sched_rec_t *r = malloc (s->n * sizeof *r);
  if (!r)
    {
      pthread_mutex_unlock (&S.lock);
      return -1;
    }
  size_t seg = 0;
  uint64_t prev = 0;
  for (size_t i = 0; i < s->n; i++)
    {
      uint64_t t = to_local ((int64_t) s->recs[i].t_mono, &seg);
      if (t < prev)  /* the interpolation never reorders a thread */
        t = prev;
      prev = t;
      r[i] = (mpe_sched_rec_t) { t, s->recs[i].cpu, s->recs[i].what };
    }
  *out = r;
  *n = s->n;
  *lost = s->lost;
  pthread_mutex_unlock (&S.lock);
  return 0;
}

void
mpe__sched_reset (void)
{
  mpe__sched_stop ();
  pthread_mutex_lock (&S.lock);
  for (int i = 0; i < S.nrings; i++)
    if (S.rings[i])
      {
        mpe__sw_free (S.rings[i]);
        free (S.rings[i]);
        S.rings[i] = NULL;
      }
  S.npairs = 0;
  __atomic_store_n (&S.on, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock (&S.lock);
  mpe__mem_reset ();
  mpe__net_reset ();
}

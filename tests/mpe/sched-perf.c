/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch ring of the scheduling layer (mpe/src/mpe-perf.c) alone: a
 * sleeping thread's switches equal its sleeps and it is almost never on a
 * CPU; a spinning thread never blocks; a thread moved with
 * sched_setaffinity shows the move inside the call.  Only facts that
 * scheduling noise cannot change are asserted exactly; times are bounded
 * generously (the machine may be loaded).
 */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tests/common/tap.h"
#include "mpe-perf-internal.h"

#define NSLEEPS 25

static uint64_t
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void
spin_for (uint64_t ns)
{
  uint64_t end = now () + ns;
  while (now () < end)
    ;
}

typedef struct
{
  mpe_sw_t sw;
  int      rc;
  char     err[256];
  uint64_t t0, t1, tm0, tm1;  /* loop; the move (migrate thread) */
  int      cpu_a, cpu_b;
} job_t;

static void *
sleeper (void *p)
{
  job_t *j = p;
  j->rc = mpe__sw_open (&j->sw, 64, 0, j->err, sizeof j->err);
  /* One sleep before the window: the first call's path (a sanitizer's
   * interceptor, pages not yet read in) may block once more, which
   * is not a sleep (seen under TSan in CI: 26 blocks for 25 sleeps). */
  struct timespec warm = { 0, 1000000 };
  nanosleep (&warm, NULL);
  j->t0 = now ();
  for (int i = 0; i < NSLEEPS; i++)
    {
      struct timespec ts = { 0, 2000000 };
      nanosleep (&ts, NULL);
    }
  j->t1 = now ();
  mpe__sw_close (&j->sw);
  return NULL;
}

static void *
spinner (void *p)
{
  job_t *j = p;
  j->rc = mpe__sw_open (&j->sw, 64, 0, j->err, sizeof j->err);
  j->t0 = now ();
  spin_for (60000000);
  j->t1 = now ();
  mpe__sw_close (&j->sw);
  return NULL;
}

static int
pin (int cpu)
{
  cpu_set_t s;
  CPU_ZERO (&s);
  CPU_SET (cpu, &s);
  return sched_setaffinity (0, sizeof s, &s);
}

static void *
mover (void *p)
{
  job_t *j = p;
  j->rc = mpe__sw_open (&j->sw, 64, 0, j->err, sizeof j->err);
  pin (j->cpu_a);
  j->t0 = now ();
  spin_for (30000000);
  j->tm0 = now ();
  pin (j->cpu_b);
  j->tm1 = now ();
  spin_for (30000000);
  j->t1 = now ();
  mpe__sw_close (&j->sw);
  return NULL;
}

/* Switch-outs of a kind and on-CPU ns within [t0, t1]. */
static void
tally (const mpe_sw_t *s, uint64_t t0, uint64_t t1, int *blocked,
       int *preempted, uint64_t *on_ns)
{
  *blocked = *preempted = 0;
  *on_ns = 0;
  int on = 1;  /* the thread runs when the window opens */
  uint64_t since = t0;
  for (size_t i = 0; i < s->n; i++)
    {
      const mpe_sw_rec_t *r = &s->recs[i];
      if (r->t_mono < t0)
        {
          on = r->what == MPE_SW_IN;
          continue;
        }
      if (r->t_mono > t1)
        break;
      if (r->what == MPE_SW_IN)
        {
          if (!on)
            since = r->t_mono;
          on = 1;
        }
      else
        {
          *blocked += r->what == MPE_SW_OUT_BLOCKED;
          *preempted += r->what == MPE_SW_OUT_PREEMPTED;
          if (on)
            *on_ns += r->t_mono - since;
          on = 0;
        }
    }
  if (on)
    *on_ns += t1 - since;
}

int
main (void)
{
  plan (10);
  job_t js = { 0 }, jp = { 0 };
  pthread_t a, b;
  pthread_create (&a, NULL, sleeper, &js);
  pthread_create (&b, NULL, spinner, &jp);
  pthread_join (a, NULL);
  pthread_join (b, NULL);
  if (js.rc)
    diag ("%s", js.err);
  ok (js.rc == 0 && jp.rc == 0, "switch rings open (unprivileged)");

  int blocked, preempted;
  uint64_t on;
  tally (&js.sw, js.t0, js.t1, &blocked, &preempted, &on);
  diag ("sleeper: %d blocked, %d preempted, %.3f ms on CPU of %.3f ms, "
        "lost %llu", blocked, preempted, on / 1e6, (js.t1 - js.t0) / 1e6,
        (unsigned long long) js.sw.lost);
  ASSERT_EQ (blocked, NSLEEPS, "the sleeper blocked once per sleep");
  ok (on < (js.t1 - js.t0) / 5, "the sleeper was on a CPU under 20%% of "
      "the time");
  tally (&jp.sw, jp.t0, jp.t1, &blocked, &preempted, &on);
  diag ("spinner: %d blocked, %d preempted, %.3f ms on CPU of %.3f ms",
        blocked, preempted, on / 1e6, (jp.t1 - jp.t0) / 1e6);
  ASSERT_EQ (blocked, 0, "the spinner never blocked");
  ok (jp.sw.lost == 0 && js.sw.lost == 0, "no record lost");

  /* The move: two CPUs this process may use. */
  cpu_set_t set;
  sched_getaffinity (0, sizeof set, &set);
  job_t jm = { 0 };
  jm.cpu_a = jm.cpu_b = -1;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET (c, &set))
      {
        if (jm.cpu_a < 0)
          jm.cpu_a = c;
        else if (jm.cpu_b < 0)
          jm.cpu_b = c;
      }
  ok (jm.cpu_b >= 0, "two CPUs to move between (have %d)", CPU_COUNT (&set));
  if (jm.cpu_b < 0)
    jm.cpu_b = jm.cpu_a;
  pthread_t m;
  pthread_create (&m, NULL, mover, &jm);
  pthread_join (m, NULL);
  int before_ok = 1, after_ok = 1, moved = 0;
  for (size_t i = 0; i < jm.sw.n; i++)
    {
      const mpe_sw_rec_t *r = &jm.sw.recs[i];
      if (r->what != MPE_SW_IN)
        continue;
      if (r->t_mono >= jm.t0 && r->t_mono < jm.tm0)
        before_ok &= r->cpu == jm.cpu_a;
      else if (r->t_mono >= jm.tm0 && r->t_mono <= jm.tm1)
        moved += r->cpu == jm.cpu_b;
      else if (r->t_mono > jm.tm1 && r->t_mono <= jm.t1)
        after_ok &= r->cpu == jm.cpu_b;
    }
  ok (jm.rc == 0, "mover's ring opens");
  ok (before_ok, "before the move it ran on CPU %d only", jm.cpu_a);
  ok (moved >= 1, "it switched in on CPU %d during sched_setaffinity",
      jm.cpu_b);
  ok (after_ok, "after the move it ran on CPU %d only", jm.cpu_b);
  mpe__sw_free (&js.sw);
  mpe__sw_free (&jp.sw);
  mpe__sw_free (&jm.sw);
  return exit_status ();
}

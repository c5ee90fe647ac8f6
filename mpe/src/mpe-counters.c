/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The counter layer (MPE_COUNTERS=task-clock,context-switches,...): each
 * event named goes to the first counter source that knows it (plugins in
 * their loading order, then the built-in perf software events, then
 * PAPI), and every logged thread counts its own events (per-thread,
 * virtualised counts only: 004-2).
 *
 * Reads are system calls (about 1 us for a perf group here), so they
 * happen at timer samples (MPE_SAMPLE_HZ), at MPE_Counters_read and at
 * the end of rotation periods, never per event.  Each reading lands in
 * the thread's own store (reserved memory: the timer's signal handler
 * writes it too, guarded by `busy`; a thread is read a last time when it
 * ends, and threads still running at the finish from the finishing
 * thread where the source allows it) and reaches the log at the merge as
 * metric samples, interleaved in time with the thread's other metric
 * samples (mpe-merge.c).  Values are cumulative since the thread started
 * counting; every reading is kept (an unchanged value too), so tools may
 * interpolate between two readings.
 *
 * A source with fewer slots than events rotates sets of events
 * (mpe-rotate.c): a period ends at the first instrumentation point (a
 * wrapped MPI call, MPE_Counters_read) after MPE_COUNTERS_ROTATE (10ms by
 * default), or at the first timer sample after it when the source's
 * start and stop are async-signal-safe (MPE_COUNTER_SIGNAL_SAFE: perf,
 * not PAPI), and the next set is drawn at random; periods are measured
 * in the thread's CPU time, the time its counts were gathered in.  So
 * with sampling on, a thread in a long stretch without MPI calls keeps
 * rotating at its samples, whose times owe nothing to the program's
 * phases, and every reading (sample or point) is of the set then
 * counting, scaled.  Each
 * rotated event's value is the scaled estimate and its companion metric
 * NAME.err the estimate's standard error.
 */
#include "config.h"

#define _GNU_SOURCE 1
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "mpe-counters.h"
#include "mpe-rotate.h"
#include "mpe_metrics.h"

#define MAX_SOURCES 8
#define MAX_EVENTS 64

int mpe__ctr_on;
int mpe__ctr_rotating;

typedef struct
{
  const mpe_counter_source_t *src;
  void       *state;
  const char *name;
  int         builtin;
  int         slots;                /* 0 or >= nev: one set */
  int         nev;
  int         ev[MAX_EVENTS];       /* the log's event index */
  const char *names[MAX_EVENTS];
  int         warned;
  int         signal_rotate;        /* rotates at timer samples too */
  int         any_thread;           /* read may be called from any
                                       thread */
} source_t;

/* One source on one thread. */
typedef struct
{
  int       ok;
  void     *set[MAX_EVENTS];        /* one per group */
  mpe_rot_t rot;
  int64_t   base[MAX_EVENTS];       /* the current set's counts when its
                                       period began */
  uint64_t  cpu0;                   /* thread CPU ns then */
  uint64_t  next_rot;               /* ticks: its period may end */
} tsrc_t;

typedef struct cthread
{
  int            thread, gen;
  /* Held by whoever reads or changes the thread's sets and store: its
   * own thread (normal context or timer handler: the handler skips its
   * sample while the thread holds it), or the finishing thread reading
   * a thread that still runs. */
  atomic_int     busy;
  int            ended;             /* its last reading taken, sets
                                       closed (thread exit) */
  tsrc_t         s[MAX_SOURCES];
  uint64_t       next_rot;          /* ticks: the first source's period
                                       may end (relaxed atomic: the
                                       handler changes it) */
  mpe_ctr_rec_t *recs;
  size_t         n, cap;
  size_t         flushed;           /* readings in the spill file */
  uint64_t       flush_t;           /* ticks: when they went there */
  uint64_t       lost;
  struct cthread *next;
} cthread_t;

static struct
{
  source_t        src[MAX_SOURCES];
  int             nsrc;
  char           *events[MAX_EVENTS];
  int             nev;
  uint64_t        rotate_ticks;
  uint64_t        flush_ticks;      /* readings to the spill file */
  size_t          max_recs;
  int             gen;
  pthread_mutex_t lock;
  cthread_t      *list;
} C = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread cthread_t *ctls __attribute__ ((tls_model ("initial-exec")));

/* ---- Configuration ---------------------------------------------------- */

void
mpe__counters_add_source (const mpe_counter_source_t *s, void *state,
                          const char *name)
{
  if (!s || s->size < sizeof *s || C.nsrc == MAX_SOURCES)
    {
      fprintf (stderr, "mpe: counter source %s not used (%s)\n",
               name ? name : "?", s ? "too many sources"
               : "no description");
      return;
    }
  source_t *so = &C.src[C.nsrc++];
  memset (so, 0, sizeof *so);
  so->src = s;
  so->state = state;
  so->name = name ? name : "?";
}

static uint64_t
ns_to_ticks (double ns)
{
  return mpe__g.mult_fp ? (uint64_t) (ns * 4294967296.0
                                      / (double) mpe__g.mult_fp)
                        : (uint64_t) ns;
}

static void
define_event (int e, const char *name, const char *unit, int rotated)
{
  char n[256];
  mpe__metric_describe_counter (MPE_MID_CTR + 2 * (uint32_t) e,
                                LOGFMT_METRIC_COUNTER, name, unit);
  if (!rotated)
    return;
  snprintf (n, sizeof n, "%s.err", name);
  mpe__metric_describe_counter (MPE_MID_CTR + 2 * (uint32_t) e + 1,
                                LOGFMT_METRIC_COUNTER | LOGFMT_METRIC_LEVEL,
                                n, unit);
}

void
mpe__counters_init (void)
{
  C.gen++;
  __atomic_store_n (&mpe__ctr_on, 0, __ATOMIC_RELEASE);
  mpe__ctr_rotating = 0;
  for (int i = 0; i < C.nev; i++)
    free (C.events[i]);
  C.nev = 0;
  const char *list = getenv ("MPE_COUNTERS");
  if (!list || !*list)
    return;
  double rot_ns = mpe__env_number ("MPE_COUNTERS_ROTATE", 1e7, 1e3, 3600e9,
                                   "", MPE_ENV_DURATION);
  C.rotate_ticks = ns_to_ticks (rot_ns);
  C.max_recs = (size_t) mpe__env_number ("MPE_COUNTERS_BUFFER", 1u << 20,
                                         1024, 1u << 30, "records",
                                         MPE_ENV_INT | MPE_ENV_CLAMP);
  C.flush_ticks = ns_to_ticks (1e8);   /* 100 ms */
  const mpe_counter_source_t *perf = mpe__csrc_perf ();
  if (perf)
    {
      mpe__counters_add_source (perf, NULL, "perf");
      C.src[C.nsrc - 1].builtin = 1;
    }
  const mpe_counter_source_t *papi = mpe__csrc_papi ();
  if (papi)
    {
      mpe__counters_add_source (papi, mpe__csrc_papi_state (), "papi");
      C.src[C.nsrc - 1].builtin = 1;
    }

  char *copy = strdup (list), *save = NULL;
  for (char *tok = copy ? strtok_r (copy, ", \t", &save) : NULL; tok;
       tok = strtok_r (NULL, ", \t", &save))
    {
      if (C.nev == MAX_EVENTS)
        {
          fprintf (stderr, "mpe: MPE_COUNTERS: more than %d events; %s and "
                   "the rest not counted\n", MAX_EVENTS, tok);
          break;
        }
      int s = 0, said = 0, rc = -1;
      const char *unit = "1";
      for (; s < C.nsrc; s++)
        if (C.src[s].src->known
            && (rc = C.src[s].src->known (C.src[s].state, tok, &unit)) == 0)
          break;
        else
          said |= rc > 0;
      if (s == C.nsrc)
        {
          if (mpe__g.rank == 0 && !said)
            fprintf (stderr, "mpe: MPE_COUNTERS: no counter source counts "
                     "\"%s\" here; not counted (perf software events: "
                     "task-clock, context-switches, cpu-migrations, "
                     "page-faults, major-faults, minor-faults)\n", tok);
          continue;
        }
      source_t *so = &C.src[s];
      if (so->nev == MAX_EVENTS || !(C.events[C.nev] = strdup (tok)))
        continue;
      so->ev[so->nev] = C.nev;
      so->names[so->nev] = C.events[C.nev];
      so->nev++;
      C.nev++;
      (void) unit;
    }
  free (copy);
  for (int s = 0; s < C.nsrc; s++)
    {
      source_t *so = &C.src[s];
      if (!so->nev)
        continue;
      so->slots = so->src->slots ? so->src->slots (so->state) : 0;
      int rotated = so->slots > 0 && so->slots < so->nev;
      so->signal_rotate = so->src->size >= offsetof (mpe_counter_source_t,
                                                     flags)
                                           + sizeof so->src->flags
                          && (so->src->flags & MPE_COUNTER_SIGNAL_SAFE);
      so->any_thread = so->src->size >= offsetof (mpe_counter_source_t,
                                                  flags)
                                        + sizeof so->src->flags
                       && (so->src->flags & MPE_COUNTER_ANY_THREAD);
      mpe__ctr_rotating |= rotated;
      for (int k = 0; k < so->nev; k++)
        {
          const char *unit = "1";
          so->src->known (so->state, so->names[k], &unit);
          define_event (so->ev[k], so->names[k], unit, rotated);
        }
    }
  if (C.nev)
    __atomic_store_n (&mpe__ctr_on, 1, __ATOMIC_RELEASE);
}

/* ---- Readings ---------------------------------------------------------- */

static uint64_t
thread_cpu_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void
put (cthread_t *c, uint64_t t, uint32_t id, int64_t v)
{
  if (c->n >= c->cap)
    {
      c->lost++;
      return;
    }
  c->recs[c->n] = (mpe_ctr_rec_t) { t, id, v };
  c->n++;
}

/* Reads source i's current set and stores every event's estimate; where
 * a period may end (rotate) and its period is due, ends it and draws the
 * next.  In the thread's normal context, or in its timer's handler when
 * the source is signal-safe. */
static void
read_source (cthread_t *c, int i, uint64_t t, int rotate)
{
  const source_t *so = &C.src[i];
  tsrc_t *ts = &c->s[i];
  if (!ts->ok)
    return;
  int g = ts->rot.cur, first, k = mpe__rot_group (&ts->rot, g, &first);
  int64_t v[MAX_EVENTS];
  if (so->src->read (ts->set[g], v) != 0)
    return;
  double part[MAX_EVENTS];
  for (int j = 0; j < k; j++)
    part[j] = (double) (v[j] - ts->base[j]);
  int rotated = ts->rot.ngroups > 1;
  uint64_t cpu = rotated ? thread_cpu_ns () : 0;
  double d = rotated && cpu > ts->cpu0 ? (double) (cpu - ts->cpu0) : 0;
  for (int e = 0; e < so->nev; e++)
    {
      double est, err;
      mpe__rot_estimate (&ts->rot, e, d, part, &est, &err);
      put (c, t, MPE_MID_CTR + 2 * (uint32_t) so->ev[e], llround (est));
      if (rotated && err >= 0)
        put (c, t, MPE_MID_CTR + 2 * (uint32_t) so->ev[e] + 1,
             llround (err));
    }
  if (!rotate || !rotated || t < ts->next_rot)
    return;
  ts->next_rot = t + C.rotate_ticks;
  int next = mpe__rot_commit (&ts->rot, d, part);
  if (next == g)
    {
      memcpy (ts->base, v, (size_t) k * sizeof *v);
      ts->cpu0 = cpu;
      return;
    }
  so->src->stop (ts->set[g]);
  if (so->src->read (ts->set[next], ts->base) != 0
      || so->src->start (ts->set[next]) != 0)
    ts->ok = 0;
  /* The switch itself counted in no set: time, not rate. */
  ts->cpu0 = thread_cpu_ns ();
  mpe__rot_gap (&ts->rot, ts->cpu0 > cpu ? (double) (ts->cpu0 - cpu) : 0);
}

/* The earliest time a period of c's sources may end. */
static void
update_next_rot (cthread_t *c)
{
  uint64_t m = UINT64_MAX;
  for (int i = 0; i < C.nsrc; i++)
    if (c->s[i].ok && c->s[i].rot.ngroups > 1 && c->s[i].next_rot < m)
      m = c->s[i].next_rot;
  __atomic_store_n (&c->next_rot, m, __ATOMIC_RELAXED);
}

/* Normal context: every source read, periods ended when due. */
static void
read_point (cthread_t *c, int force)
{
  if (!force && (!mpe__ctr_rotating
                 || mpe__ticks () < __atomic_load_n (&c->next_rot,
                                                     __ATOMIC_RELAXED)))
    return;
  /* Busy before the time is taken: a sample between the two would store
   * a later reading first. */
  if (atomic_exchange (&c->busy, 1))
    return;   /* the finish reads it now */
  uint64_t t = mpe__ticks ();
  for (int i = 0; i < C.nsrc; i++)
    read_source (c, i, t, mpe__ctr_rotating);
  update_next_rot (c);
  atomic_store (&c->busy, 0);
}

static cthread_t *
self (void)
{
  cthread_t *c = ctls;
  return c && c->gen == C.gen
         && __atomic_load_n (&mpe__ctr_on, __ATOMIC_ACQUIRE) ? c : NULL;
}

void
mpe__counters_sample (uint64_t t)
{
  cthread_t *c = ctls;
  if (!c || c->gen != C.gen || atomic_exchange (&c->busy, 1))
    return;
  int due = mpe__ctr_rotating
            && t >= __atomic_load_n (&c->next_rot, __ATOMIC_RELAXED);
  for (int i = 0; i < C.nsrc; i++)
    read_source (c, i, t, due && C.src[i].signal_rotate);
  if (due)
    update_next_rot (c);
  /* Now and then the new readings go to the spill file (a SIGKILLed
   * process keeps them; the crash path writes the rest). */
  if (c->n > c->flushed && t - c->flush_t >= C.flush_ticks)
    {
      size_t from = c->flushed;
      c->flushed = c->n;
      c->flush_t = t;
      mpe__counters_spill (c->thread, c->recs + from, c->n - from);
    }
  atomic_store (&c->busy, 0);
}

void
mpe__counters_point (void)
{
  cthread_t *c = self ();
  if (c)
    read_point (c, 0);
}

int
MPE_Counters_read (void)
{
  cthread_t *c = self ();
  if (!c)
    return __atomic_load_n (&mpe__ctr_on, __ATOMIC_ACQUIRE)
           ? MPE_LOG_NOT_INITIALIZED : MPE_LOG_OK;
  read_point (c, 1);
  return MPE_LOG_OK;
}

/* The finish: the calling thread's last reading, and one of every other
 * logged thread that still runs, from here, of its sources that allow
 * it (perf: a thread's count so far, read from any thread; not of
 * rotated sets, whose estimates need the thread's own CPU clock).  A
 * thread that has ended was read at its end. */
void
mpe__counters_final (void)
{
  cthread_t *me = self ();
  if (me)
    read_point (me, 1);
  if (!__atomic_load_n (&mpe__ctr_on, __ATOMIC_ACQUIRE))
    return;
  pthread_mutex_lock (&C.lock);
  for (cthread_t *c = C.list; c; c = c->next)
    {
      if (c == me || c->gen != C.gen || c->ended
          || atomic_exchange (&c->busy, 1))
        continue;
      uint64_t t = mpe__ticks ();
      for (int i = 0; i < C.nsrc; i++)
        if (C.src[i].any_thread && c->s[i].rot.ngroups == 1)
          read_source (c, i, t, 0);
      atomic_store (&c->busy, 0);
    }
  pthread_mutex_unlock (&C.lock);
}

/* ---- Threads ----------------------------------------------------------- */

static void
close_sets (const source_t *so, tsrc_t *ts)
{
  for (int g = 0; g < ts->rot.ngroups; g++)
    if (ts->set[g])
      {
        so->src->close (ts->set[g]);
        ts->set[g] = NULL;
      }
  mpe__rot_free (&ts->rot);
  ts->ok = 0;
}

static void
open_source (cthread_t *c, int i)
{
  source_t *so = &C.src[i];
  tsrc_t *ts = &c->s[i];
  memset (ts, 0, sizeof *ts);
  if (!so->nev)
    return;
  uint64_t seed = ((uint64_t) (uint32_t) mpe__g.rank << 32)
                  ^ ((uint64_t) (uint32_t) c->thread << 16)
                  ^ mpe__ticks () ^ (uint64_t) i;
  if (mpe__rot_init (&ts->rot, so->nev, so->slots, seed) != 0)
    return;
  int rc = 0;
  for (int g = 0; g < ts->rot.ngroups && rc == 0; g++)
    {
      int first, k = mpe__rot_group (&ts->rot, g, &first);
      rc = so->src->open (so->state, &so->names[first], k, &ts->set[g]);
    }
  int cur = ts->rot.cur;
  if (rc == 0 && so->src->read (ts->set[cur], ts->base) == 0
      && so->src->start (ts->set[cur]) == 0)
    {
      ts->cpu0 = thread_cpu_ns ();
      ts->next_rot = mpe__ticks () + C.rotate_ticks;
      ts->ok = 1;
      return;
    }
  if (!so->warned++)
    fprintf (stderr, "mpe: rank %d: counter source %s cannot count %s%s "
             "on thread %d (%d); its counters are not recorded\n",
             mpe__g.rank, so->name, so->names[0], so->nev > 1 ? ", ..." : "",
             c->thread, rc);
  close_sets (so, ts);
}

/* A logged thread ends: its last reading, from itself, and its sets
 * closed (their descriptors are not kept for a thread that is gone). */
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void
thread_exit (void *p)
{
  cthread_t *c = p;
  pthread_mutex_lock (&C.lock);
  if (c->gen == C.gen && !c->ended
      && __atomic_load_n (&mpe__ctr_on, __ATOMIC_ACQUIRE))
    {
      while (atomic_exchange (&c->busy, 1))
        sched_yield ();
      uint64_t t = mpe__ticks ();
      for (int i = 0; i < C.nsrc; i++)
        {
          read_source (c, i, t, 0);
          if (c->s[i].ok || c->s[i].rot.acc)
            close_sets (&C.src[i], &c->s[i]);
        }
      c->ended = 1;
      atomic_store (&c->busy, 0);
    }
  pthread_mutex_unlock (&C.lock);
}

static void
exit_key_make (void)
{
  if (pthread_key_create (&exit_key, thread_exit) != 0)
    exit_key = (pthread_key_t) -1;
}

void
mpe__counters_thread (int thread)
{
  if (!__atomic_load_n (&mpe__ctr_on, __ATOMIC_ACQUIRE) || thread < 0)
    return;
  cthread_t *c = ctls;
  if (c && c->gen == C.gen)
    return;
  if (!c)
    {
      c = calloc (1, sizeof *c);
      if (!c)
        return;
      void *p = mmap (NULL, C.max_recs * sizeof *c->recs,
                      PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED)
        {
          free (c);
          return;
        }
      c->recs = p;
      c->cap = C.max_recs;
      pthread_mutex_lock (&C.lock);
      c->next = C.list;
      C.list = c;
      pthread_mutex_unlock (&C.lock);
    }
  atomic_store (&c->busy, 1);
  c->thread = thread;
  c->n = 0;
  c->flushed = 0;
  c->flush_t = mpe__ticks ();
  c->lost = 0;
  c->ended = 0;
  for (int i = 0; i < C.nsrc; i++)
    open_source (c, i);
  /* The first reading (zero): counting starts here, so a thread's
   * counts are known from its start to its last reading. */
  uint64_t t = mpe__ticks ();
  for (int i = 0; i < C.nsrc; i++)
    read_source (c, i, t, 0);
  update_next_rot (c);
  c->gen = C.gen;
  ctls = c;
  atomic_store (&c->busy, 0);
  pthread_once (&exit_once, exit_key_make);
  if (exit_key != (pthread_key_t) -1)
    pthread_setspecific (exit_key, c);
}

const mpe_ctr_rec_t *
mpe__counters_records (int thread, size_t *n)
{
  *n = 0;
  pthread_mutex_lock (&C.lock);
  cthread_t *c = C.list;
  while (c && (c->thread != thread || c->gen != C.gen))
    c = c->next;
  pthread_mutex_unlock (&C.lock);
  if (!c)
    return NULL;
  if (c->lost && mpe__g.rank == 0)
    fprintf (stderr, "mpe: thread %d: %llu counter readings found no room "
             "(MPE_COUNTERS_BUFFER)\n", thread, (unsigned long long) c->lost);
  *n = c->n;
  return c->recs;
}

void
mpe__counters_each (void (*fn) (int thread, const mpe_ctr_rec_t *r,
                                size_t n))
{
  /* The list only grows; a reading is whole before n counts it. */
  for (cthread_t *c = __atomic_load_n (&C.list, __ATOMIC_ACQUIRE); c;
       c = c->next)
    if (c->gen == C.gen && c->n > c->flushed)
      fn (c->thread, c->recs + c->flushed, c->n - c->flushed);
}

/* Threads that still run may be at a point: they see the layer off
 * first.  Sets are closed from this thread (perf descriptors and the
 * test source allow it). */
void
mpe__counters_finalize (void)
{
  __atomic_store_n (&mpe__ctr_on, 0, __ATOMIC_RELEASE);
  mpe__ctr_rotating = 0;
  pthread_mutex_lock (&C.lock);
  for (cthread_t *c = C.list; c; c = c->next)
    {
      while (atomic_exchange (&c->busy, 1))
        sched_yield ();
      if (c->gen == C.gen)
        for (int i = 0; i < C.nsrc; i++)
          if (c->s[i].ok || c->s[i].rot.acc)
            close_sets (&C.src[i], &c->s[i]);
      c->n = 0;
      c->gen = 0;
      atomic_store (&c->busy, 0);
    }
  pthread_mutex_unlock (&C.lock);
  C.nsrc = 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake counter source plugin (mpe_plugin.h, MPE_PLUGIN_COUNTERS) with
 * known rates, for testing the rotation without a PMU: event "fakeK"
 * (K = 1..9) counts K * 1000 per ms of the thread's CPU time while its
 * set is started, and only `fake_slots` (setting MPE_FAKE_SLOTS, default
 * 2) events count at once.  Its start and stop are async-signal-safe
 * (MPE_COUNTER_SIGNAL_SAFE) unless the environment has
 * MPE_FAKE_SIGNAL_SAFE=0.  At the finish it prints per rank how many
 * sets it opened and started, and for how long its sets counted, in us
 * of thread CPU time (the exact truth for a scaled estimate, in the very
 * clock the fake counts by; a set still running counts up to its last
 * read):
 *   fake-counters: rank R: opened O started S counted U
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpe_plugin.h"

typedef struct
{
  const mpe_plugin_host_t *host;
  int slots;
  unsigned long opened, started;
  unsigned long long counted_ns;
} fake_t;

typedef struct
{
  int n, k[16], running;
  unsigned long long ns, t0;   /* CPU ns while started; start time */
  unsigned long long last;     /* ns as of the last read */
} set_t;

static unsigned long long
cpu_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (unsigned long long) ts.tv_sec * 1000000000ull
         + (unsigned long long) ts.tv_nsec;
}

static int
fake_init (const mpe_plugin_host_t *host, void **state)
{
  fake_t *f = calloc (1, sizeof *f);
  if (!f)
    return 1;
  f->host = host;
  const char *s = host->setting ("MPE_FAKE_SLOTS");
  f->slots = s ? atoi (s) : 2;
  *state = f;
  return 0;
}

static void
fake_finalize (void *state)
{
  fake_t *f = state;
  fprintf (stderr, "fake-counters: rank %d: opened %lu started %lu "
           "counted %llu\n", f->host->rank, f->opened, f->started,
           f->counted_ns / 1000);
  free (f);
}

static int
fake_slots (void *state)
{
  return ((fake_t *) state)->slots;
}

static int
fake_known (void *state, const char *event, const char **unit)
{
  (void) state;
  if (strncmp (event, "fake", 4) || event[4] < '1' || event[4] > '9'
      || event[5])
    return -1;
  *unit = "1";
  return 0;
}

static int
fake_open (void *state, const char *const *events, int n, void **out)
{
  fake_t *f = state;
  if (n > 16 || (f->slots > 0 && n > f->slots))
    return -1;
  set_t *s = calloc (1, sizeof *s);
  if (!s)
    return -1;
  s->n = n;
  for (int i = 0; i < n; i++)
    s->k[i] = events[i][4] - '0';
  f->opened++;
  *out = s;
  return 0;
}

/* Counts are attributed to the fake's state only through these: no
 * lock, the host calls them from the set's own thread (in its timer's
 * handler too: start and stop only read a clock and add). */
static fake_t *the_fake;

static int
fake_start (void *set)
{
  set_t *s = set;
  s->t0 = cpu_ns ();
  s->running = 1;
  if (the_fake)
    the_fake->started++;
  return 0;
}

static int
fake_stop (void *set)
{
  set_t *s = set;
  if (s->running)
    s->ns += cpu_ns () - s->t0;
  s->running = 0;
  return 0;
}

/* K * 1000 per ms = K per us of CPU time.  Signal-safe. */
static int
fake_read (void *set, int64_t *values)
{
  set_t *s = set;
  unsigned long long ns = s->ns + (s->running ? cpu_ns () - s->t0 : 0);
  s->last = ns;
  for (int i = 0; i < s->n; i++)
    values[i] = (int64_t) (ns / 1000) * s->k[i];
  return 0;
}

static void
fake_close (void *set)
{
  set_t *s = set;
  if (the_fake)
    the_fake->counted_ns += s->running ? s->last : s->ns;
  free (set);
}

static mpe_counter_source_t fake_source = {
  sizeof (mpe_counter_source_t), fake_slots, fake_known, fake_open,
  fake_start, fake_stop, fake_read, fake_close, MPE_COUNTER_SIGNAL_SAFE
};

static int
fake_init_global (const mpe_plugin_host_t *host, void **state)
{
  int rc = fake_init (host, state);
  if (rc == 0)
    the_fake = *state;
  return rc;
}

static const mpe_plugin_t fake_plugin = {
  MPE_PLUGIN_ABI, MPE_PLUGIN_COUNTERS, "fake-counters",
  fake_init_global, NULL, NULL, NULL, fake_finalize, &fake_source
};

const mpe_plugin_t *mpe_plugin_entry (void);

const mpe_plugin_t *
mpe_plugin_entry (void)
{
  const char *safe = getenv ("MPE_FAKE_SIGNAL_SAFE");
  if (safe && !strcmp (safe, "0"))
    fake_source.flags = 0;
  return &fake_plugin;
}

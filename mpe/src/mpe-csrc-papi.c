/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in counter source of hardware events through PAPI (configure
 * --with-papi, Debian libpapi-dev): PAPI presets (PAPI_TOT_CYC) and
 * native names, counted per thread by PAPI's perf_event component, as
 * many at once as the PMU has counters (the host rotates the rest).
 * PAPI starts only when MPE_COUNTERS names an event the sources before
 * it do not know.  On a machine without a PMU (virtual machines often)
 * PAPI has no preset events: this is said once, on rank 0, and the
 * events are left out.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "mpe-counters.h"

#if HAVE_PAPI
#include <papi.h>

#define MAX_SET 64

static struct
{
  pthread_mutex_t lock;
  int tried, ok, no_pmu, said, slots;
} P = { .lock = PTHREAD_MUTEX_INITIALIZER };

typedef struct
{
  int       es, n, running;
  long long acc[MAX_SET];
} set_t;

static unsigned long
thread_id (void)
{
  return (unsigned long) pthread_self ();
}

/* The kernel has no hardware counter for this thread: no PMU (not a
 * counter the perf_event_paranoid setting forbids, which PAPI reports). */
static int
kernel_has_no_pmu (void)
{
  struct perf_event_attr a;
  memset (&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_HARDWARE;
  a.config = PERF_COUNT_HW_CPU_CYCLES;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  long fd = syscall (SYS_perf_event_open, &a, 0, -1, -1, 0);
  if (fd >= 0)
    {
      close ((int) fd);
      return 0;
    }
  return errno == ENOENT || errno == ENODEV || errno == EOPNOTSUPP;
}

static int
papi_up (void)
{
  pthread_mutex_lock (&P.lock);
  if (!P.tried)
    {
      P.tried = 1;
      int v = PAPI_library_init (PAPI_VER_CURRENT);
      if (v != PAPI_VER_CURRENT)
        fprintf (stderr, "mpe: PAPI does not start (%s); hardware counters "
                 "are not counted\n", v < 0 ? PAPI_strerror (v)
                 : "another PAPI version");
      else if (PAPI_thread_init (thread_id) != PAPI_OK)
        fprintf (stderr, "mpe: PAPI does not support threads here; "
                 "hardware counters are not counted\n");
      else
        {
          const PAPI_component_info_t *ci = PAPI_get_component_info (0);
          P.no_pmu = !ci || ci->disabled || ci->num_preset_events == 0
                     || kernel_has_no_pmu ();
          P.slots = PAPI_num_cmp_hwctrs (0);
          P.ok = 1;
        }
    }
  int ok = P.ok;
  pthread_mutex_unlock (&P.lock);
  return ok;
}

static int
papi_slots (void *state)
{
  (void) state;
  return P.slots > 0 ? P.slots : 0;
}

/* Known when PAPI can add it to a set on this machine. */
static int
papi_known (void *state, const char *event, const char **unit)
{
  (void) state;
  if (!papi_up ())
    return 1;   /* papi_up said why */
  int es = PAPI_NULL, ok = 0, code;
  if (PAPI_event_name_to_code ((char *) event, &code) != PAPI_OK)
    return -1;   /* not a name PAPI knows */
  if (PAPI_create_eventset (&es) == PAPI_OK)
    {
      ok = PAPI_add_named_event (es, (char *) event) == PAPI_OK;
      PAPI_cleanup_eventset (es);
      PAPI_destroy_eventset (&es);
    }
  if (ok)
    {
      *unit = "1";
      return 0;
    }
  if (!P.no_pmu)
    return -1;
  pthread_mutex_lock (&P.lock);
  int say = !P.said++;
  pthread_mutex_unlock (&P.lock);
  if (say && mpe__g.rank == 0)
    fprintf (stderr, "mpe: no PMU: PAPI finds no hardware counters on this "
             "machine; hardware events (%s) are not counted\n", event);
  return 1;
}

static void
papi_close (void *set)
{
  set_t *s = set;
  if (s->running)
    {
      long long v[MAX_SET];
      PAPI_stop (s->es, v);
    }
  PAPI_cleanup_eventset (s->es);
  PAPI_destroy_eventset (&s->es);
  free (s);
}

static int
papi_open (void *state, const char *const *names, int n, void **out)
{
  (void) state;
  if (n < 1 || n > MAX_SET || !papi_up ())
    return -1;
  PAPI_register_thread ();
  set_t *s = calloc (1, sizeof *s);
  if (!s)
    return -1;
  s->es = PAPI_NULL;
  s->n = n;
  int rc = PAPI_create_eventset (&s->es);
  for (int i = 0; i < n && rc == PAPI_OK; i++)
    rc = PAPI_add_named_event (s->es, (char *) names[i]);
  if (rc != PAPI_OK)
    {
      papi_close (s);
      return rc;
    }
  *out = s;
  return 0;
}

/* PAPI_start zeroes the counters: acc keeps what earlier runs counted. */
static int
papi_start (void *set)
{
  set_t *s = set;
  int rc = PAPI_start (s->es);
  s->running = rc == PAPI_OK;
  return rc == PAPI_OK ? 0 : rc;
}

static int
papi_stop (void *set)
{
  set_t *s = set;
  long long v[MAX_SET];
  if (!s->running || PAPI_stop (s->es, v) != PAPI_OK)
    return -1;
  s->running = 0;
  for (int i = 0; i < s->n; i++)
    s->acc[i] += v[i];
  return 0;
}

static int
papi_read (void *set, int64_t *values)
{
  set_t *s = set;
  long long v[MAX_SET];
  if (s->running && PAPI_read (s->es, v) != PAPI_OK)
    return -1;
  for (int i = 0; i < s->n; i++)
    values[i] = (int64_t) (s->acc[i] + (s->running ? v[i] : 0));
  return 0;
}

static const mpe_counter_source_t papi_source = {
  sizeof (mpe_counter_source_t), papi_slots, papi_known, papi_open,
  papi_start, papi_stop, papi_read, papi_close
};

const mpe_counter_source_t *
mpe__csrc_papi (void)
{
  return &papi_source;
}

#else
const mpe_counter_source_t *
mpe__csrc_papi (void)
{
  return NULL;
}
#endif

void *
mpe__csrc_papi_state (void)
{
  return NULL;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in counter source of Linux software events (perf_event_open,
 * PERF_TYPE_SOFTWARE): task clock, context switches, CPU migrations and
 * page faults of the calling thread only, counted by the kernel while the
 * thread runs.  A set is one perf group: one read(2) returns every count
 * (about 1 us here).  Software events need no PMU and have no slot limit,
 * so they never rotate.  Kernel-side counting is asked first (context
 * switches happen there; allowed for software events at
 * perf_event_paranoid 2), user-side only as the fallback.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpe-counters.h"

#if HAVE_PERF_EVENT
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#define MAX_SET 16

static const struct
{
  const char *name, *alias, *unit;
  uint64_t config;
} events[] = {
  { "task-clock", NULL, "ns", PERF_COUNT_SW_TASK_CLOCK },
  { "context-switches", "cs", "1", PERF_COUNT_SW_CONTEXT_SWITCHES },
  { "cpu-migrations", "migrations", "1", PERF_COUNT_SW_CPU_MIGRATIONS },
  { "page-faults", "faults", "1", PERF_COUNT_SW_PAGE_FAULTS },
  { "major-faults", NULL, "1", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
  { "minor-faults", NULL, "1", PERF_COUNT_SW_PAGE_FAULTS_MIN },
};
#define NEVENTS (sizeof events / sizeof events[0])

typedef struct
{
  int n;
  int fd[MAX_SET];
} set_t;

static int
find (const char *name)
{
  for (size_t i = 0; i < NEVENTS; i++)
    if (!strcmp (name, events[i].name)
        || (events[i].alias && !strcmp (name, events[i].alias)))
      return (int) i;
  return -1;
}

static int
perf_slots (void *state)
{
  (void) state;
  return 0;
}

static int
perf_known (void *state, const char *event, const char **unit)
{
  (void) state;
  int i = find (event);
  if (i < 0)
    return -1;
  *unit = events[i].unit;
  return 0;
}

static int
open_one (uint64_t config, int group, int user_only)
{
  struct perf_event_attr a;
  memset (&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = config;
  a.disabled = group < 0;   /* members follow the leader */
  a.exclude_kernel = (unsigned) user_only;
  a.exclude_hv = 1;
  a.read_format = PERF_FORMAT_GROUP;
  long fd = syscall (SYS_perf_event_open, &a, 0 /* this thread */, -1,
                     group, PERF_FLAG_FD_CLOEXEC);
  return fd < 0 ? -errno : (int) fd;
}

static void
perf_close (void *set)
{
  set_t *s = set;
  for (int i = s->n; i-- > 0;)
    close (s->fd[i]);
  free (s);
}

static int
perf_open (void *state, const char *const *names, int n, void **out)
{
  (void) state;
  if (n < 1 || n > MAX_SET)
    return -EINVAL;
  int rc = -ENOMEM;
  for (int user_only = 0; user_only < 2; user_only++)
    {
      set_t *s = calloc (1, sizeof *s);
      if (!s)
        return -ENOMEM;
      for (int i = 0; i < n; i++)
        {
          int e = find (names[i]);
          int fd = e < 0 ? -ENOENT
                   : open_one (events[e].config, i ? s->fd[0] : -1,
                               user_only);
          if (fd < 0)
            {
              rc = fd;
              break;
            }
          s->fd[s->n++] = fd;
        }
      if (s->n == n)
        {
          *out = s;
          return 0;
        }
      perf_close (s);
      if (rc != -EACCES && rc != -EPERM)
        break;
    }
  return rc;
}

static int
perf_start (void *set)
{
  set_t *s = set;
  return ioctl (s->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

static int
perf_stop (void *set)
{
  set_t *s = set;
  return ioctl (s->fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

/* One read(2) of the group: { nr, value[nr] }.  Signal-safe. */
static int
perf_read (void *set, int64_t *values)
{
  set_t *s = set;
  uint64_t buf[1 + MAX_SET];
  ssize_t want = (ssize_t) ((size_t) (1 + s->n) * sizeof buf[0]);
  if (read (s->fd[0], buf, (size_t) want) != want || buf[0] != (uint64_t) s->n)
    return -1;
  for (int i = 0; i < s->n; i++)
    values[i] = (int64_t) buf[1 + i];
  return 0;
}

static const mpe_counter_source_t perf_source = {
  sizeof (mpe_counter_source_t), perf_slots, perf_known, perf_open,
  perf_start, perf_stop, perf_read, perf_close,
  MPE_COUNTER_SIGNAL_SAFE   /* ioctl and read */
  | MPE_COUNTER_ANY_THREAD  /* a task's counter reads from anywhere */
};

const mpe_counter_source_t *
mpe__csrc_perf (void)
{
  return &perf_source;
}

#else
const mpe_counter_source_t *
mpe__csrc_perf (void)
{
  return NULL;
}
#endif

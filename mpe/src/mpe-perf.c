/* SPDX-License-Identifier: BSD-3-Clause */
/* Linux perf_event for the scheduling layer: a thread's context switches
 * read from the kernel's mmap ring, and its software counters. */
#include "config.h"

#include <errno.h>
#if HAVE_PERF_EVENT
#include <linux/perf_event.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mpe-perf-internal.h"

const char *const mpe__swc_names[MPE_SWC_N] = {
  "task-clock", "context-switches", "cpu-migrations", "page-faults"
};

#if HAVE_PERF_EVENT

static int
perf_open (struct perf_event_attr *a)
{
  long fd = syscall (SYS_perf_event_open, a, 0 /* this thread */, -1, -1,
                     PERF_FLAG_FD_CLOEXEC);
  return fd < 0 ? -errno : (int) fd;
}

int
mpe__sw_open (mpe_sw_t *s, unsigned data_pages, size_t max_recs, char *err,
              size_t errlen)
{
  memset (s, 0, sizeof *s);
  s->fd = -1;
  pthread_mutex_init (&s->lock, NULL);
  s->max = max_recs;
  s->tid = (int) syscall (SYS_gettid);
  if (data_pages == 0 || (data_pages & (data_pages - 1)))
    data_pages = 64;
  struct perf_event_attr a;
  memset (&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_DUMMY;
  a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
  a.sample_id_all = 1;
  a.context_switch = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC;
  int fd = perf_open (&a);
  if (fd < 0)
    {
      snprintf (err, errlen, "perf_event_open (context switches): %s "
                "(kernel.perf_event_paranoid > 2, or no perf events in "
                "this kernel or container)", strerror (-fd));
      return fd;
    }
  long page = sysconf (_SC_PAGESIZE);
  s->data_len = (size_t) data_pages * (size_t) page;
  s->map_len = s->data_len + (size_t) page;
  s->map = mmap (NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                 0);
  if (s->map == MAP_FAILED)
    {
      int e = errno;
      snprintf (err, errlen, "mmap of the perf ring (%zu KiB): %s "
                "(kernel.perf_event_mlock_kb)", s->map_len / 1024,
                strerror (e));
      close (fd);
      s->map = NULL;
      return -e;
    }
  s->fd = fd;
  return 0;
}

static int
push (mpe_sw_t *s, uint64_t t, int32_t cpu, uint32_t what)
{
  if (s->n == s->cap)
    {
      if (s->max && s->n >= s->max)
        {
          s->lost++;
          return 0;
        }
      size_t nc = s->cap ? s->cap * 2 : 1024;
      if (s->max && nc > s->max)
        nc = s->max;
      mpe_sw_rec_t *r = realloc (s->recs, nc * sizeof *r);
      if (!r)
        {
          s->lost++;
          return 0;
        }
      s->recs = r;
      s->cap = nc;
    }
  s->recs[s->n++] = (mpe_sw_rec_t) { t, cpu, what };
  return 1;
}

/* Trailing sample_id of a record with TID | TIME | CPU. */
typedef struct
{
  uint32_t pid, tid;
  uint64_t time;
  uint32_t cpu, res;
} sample_id_t;

size_t
mpe__sw_drain (mpe_sw_t *s)
{
  size_t added = 0;
  pthread_mutex_lock (&s->lock);
  if (!s->map)
    {
      pthread_mutex_unlock (&s->lock);
      return 0;
    }
  struct perf_event_mmap_page *mp = s->map;
  const unsigned char *data = (const unsigned char *) s->map
                              + (s->map_len - s->data_len);
  uint64_t head = __atomic_load_n (&mp->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = mp->data_tail;
  uint64_t mask = s->data_len - 1;
  unsigned char rec[256];
  while (tail + sizeof (struct perf_event_header) <= head)
    {
      struct perf_event_header h;
      for (size_t i = 0; i < sizeof h; i++)
        ((unsigned char *) &h)[i] = data[(tail + i) & mask];
      if (h.size < sizeof h || tail + h.size > head)
        break;
      size_t len = h.size < sizeof rec ? h.size : sizeof rec;
      for (size_t i = 0; i < len; i++)
        rec[i] = data[(tail + i) & mask];
      tail += h.size;
      if (h.type == PERF_RECORD_SWITCH
          && len >= sizeof h + sizeof (sample_id_t))
        {
          sample_id_t id;
          memcpy (&id, rec + sizeof h, sizeof id);
          uint32_t what = MPE_SW_IN;
          if (h.misc & PERF_RECORD_MISC_SWITCH_OUT)
            what = (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
                   ? MPE_SW_OUT_PREEMPTED : MPE_SW_OUT_BLOCKED;
          added += (size_t) push (s, id.time, (int32_t) id.cpu, what);
        }
      else if (h.type == PERF_RECORD_LOST && len >= sizeof h + 16)
        {
          uint64_t lost;
          memcpy (&lost, rec + sizeof h + 8, 8);
          s->lost += lost;
        }
    }
  __atomic_store_n (&mp->data_tail, tail, __ATOMIC_RELEASE);
  pthread_mutex_unlock (&s->lock);
  return added;
}

void
mpe__sw_close (mpe_sw_t *s)
{
  mpe__sw_drain (s);
  pthread_mutex_lock (&s->lock);
  if (s->map)
    munmap (s->map, s->map_len);
  s->map = NULL;
  if (s->fd >= 0)
    close (s->fd);
  s->fd = -1;
  pthread_mutex_unlock (&s->lock);
}

void
mpe__sw_free (mpe_sw_t *s)
{
  mpe__sw_close (s);
  free (s->recs);
  s->recs = NULL;
  s->n = s->cap = 0;
}

/* ------------------------------------------------------------------ */
/* Software counters                                                   */
/* ------------------------------------------------------------------ */

int
mpe__swc_open (mpe_swc_t *c)
{
  static const uint64_t cfg[MPE_SWC_N] = {
    PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CONTEXT_SWITCHES,
    PERF_COUNT_SW_CPU_MIGRATIONS, PERF_COUNT_SW_PAGE_FAULTS
  };
  int ok = 0, last = -ENOSYS;
  for (int i = 0; i < MPE_SWC_N; i++)
    {
      struct perf_event_attr a;
      memset (&a, 0, sizeof a);
      a.size = sizeof a;
      a.type = PERF_TYPE_SOFTWARE;
      a.config = cfg[i];
      a.exclude_kernel = 1;
      a.exclude_hv = 1;
      c->fd[i] = perf_open (&a);
      if (c->fd[i] >= 0)
        ok++;
      else
        {
          last = c->fd[i];
          c->fd[i] = -1;
        }
    }
  return ok ? 0 : last;
}

int
mpe__swc_read (const mpe_swc_t *c, int64_t out[MPE_SWC_N])
{
  int got = 0;
  for (int i = 0; i < MPE_SWC_N; i++)
    {
      uint64_t v;
      out[i] = -1;
      if (c->fd[i] >= 0 && read (c->fd[i], &v, sizeof v) == (ssize_t) sizeof v)
        {
          out[i] = (int64_t) v;
          got++;
        }
    }
  return got ? 0 : -1;
}

void
mpe__swc_close (mpe_swc_t *c)
{
  for (int i = 0; i < MPE_SWC_N; i++)
    if (c->fd[i] >= 0)
      {
        close (c->fd[i]);
        c->fd[i] = -1;
      }
}

#else  /* !HAVE_PERF_EVENT: the layer says so once and stays off. */
int
mpe__sw_open (mpe_sw_t *s, unsigned data_pages, size_t max_recs, char *err,
              size_t errlen)
{
  (void) data_pages;
  memset (s, 0, sizeof *s);
  s->fd = -1;
  s->max = max_recs;
  pthread_mutex_init (&s->lock, NULL);
  snprintf (err, errlen, "no perf_event in this build");
  return -ENOSYS;
}

size_t
mpe__sw_drain (mpe_sw_t *s)
{
  (void) s;
  return 0;
}

void
mpe__sw_close (mpe_sw_t *s)
{
  (void) s;
}

void
mpe__sw_free (mpe_sw_t *s)
{
  free (s->recs);
  s->recs = NULL;
  s->n = s->cap = 0;
}

int
mpe__swc_open (mpe_swc_t *c)
{
  for (int i = 0; i < MPE_SWC_N; i++)
    c->fd[i] = -1;
  return -ENOSYS;
}

int
mpe__swc_read (const mpe_swc_t *c, int64_t out[MPE_SWC_N])
{
  (void) c;
  for (int i = 0; i < MPE_SWC_N; i++)
    out[i] = -1;
  return -1;
}

void
mpe__swc_close (mpe_swc_t *c)
{
  (void) c;
}
#endif

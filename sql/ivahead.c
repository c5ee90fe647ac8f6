/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A states scan read ahead in a worker thread (ivahead.h).  A ring of
 * AHEAD_SLOTS batches: the worker fills batch `head`, the reader holds
 * batch `tail` while SQLite consumes it; each side waits only when the
 * ring is full (worker) or empty (reader), never both, so one condition
 * variable serves.  Memory: AHEAD_SLOTS x AHEAD_BATCH instances (about
 * 0.9 MB), whatever the log's size.
 */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grouped.h"
#include "ivahead.h"

#define AHEAD_BATCH 8192
#define AHEAD_SLOTS 4
/* Below this many events a scan takes under a few ms: not worth a
 * thread (a join over many streams filters the table once per stream). */
#define AHEAD_MIN_EVENTS 100000

struct ivahead
{
  pthread_t tid;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  const logfmt_reader_t *r;
  uint32_t *streams;
  size_t nstreams;
  uint64_t t0, t1;
  grouped_t *gp;                    /* grouped by name: the pass's */
  logfmt_interval_t *rows;          /* AHEAD_SLOTS x AHEAD_BATCH */
  long count[AHEAD_SLOTS];
  uint64_t head, tail;              /* batches filled, given back */
  int holding;                      /* the reader holds batch tail */
  int stop;                         /* the reader is gone */
  int done, rc;                     /* the worker's end: 0 or an error */
  logfmt_error_t err;
};

/* Where the worker is: its iterator and the stream it is on. */
typedef struct
{
  logfmt_interval_iter_t *it;
  size_t si;          /* next stream */
  int have;           /* it is on a stream */
  int replay;         /* grouped: the pass is over, the buckets follow */
} pass_t;

/* Fills one batch: the scan's next rows (grouped: the NULL group's
 * during the pass, then the kept ones).  Their number; *end set at the
 * end of the scan or on an error (*rc, *err). */
static long
fill (ivahead_t *a, pass_t *ps, logfmt_interval_t *buf, int *end, int *rc,
      logfmt_error_t *err)
{
  long n = 0;
  while (n < AHEAD_BATCH)
    {
      if (ps->replay)
        {
          int k = grouped_next (a->gp, &buf[n]);
          if (k == 1)
            {
              n++;
              continue;
            }
          *rc = k;
          *end = 1;
          return n;
        }
      if (ps->have)
        {
          int k = logfmt_interval_iter_next (ps->it, &buf[n]);
          if (k == 1)
            {
              k = a->gp ? grouped_take (a->gp, &buf[n]) : 1;
              if (k < 0)
                {
                  *rc = k;
                  *end = 1;
                  return n;
                }
              n += k;   /* 0: kept for later */
              continue;
            }
          if (k < 0)
            {
              *rc = k;
              *err = *logfmt_interval_iter_error (ps->it);
              *end = 1;
              return n;
            }
          ps->have = 0;
        }
      if (ps->si >= a->nstreams)
        {
          if (a->gp)
            {
              ps->replay = 1;
              continue;
            }
          *end = 1;
          return n;
        }
      uint32_t s = a->streams[ps->si++];
      int k = ps->it ? logfmt_interval_iter_reset (ps->it, s, a->t0, a->t1)
                     : logfmt_interval_iter_new (a->r, s, a->t0, a->t1,
                                                 &ps->it);
      if (k)
        {
          *rc = k;   /* no message: as the plain scan reports it */
          *end = 1;
          return n;
        }
      ps->have = 1;
    }
  return n;
}

static void *
worker (void *arg)
{
  ivahead_t *a = arg;
  pthread_setname_np (pthread_self (), "clogsql-ahead");
  pass_t ps = { NULL, 0, 0, 0 };
  int end = 0, rc = 0;
  logfmt_error_t err;
  memset (&err, 0, sizeof err);
  while (!end)
    {
      pthread_mutex_lock (&a->lock);
      while (!a->stop && a->head - a->tail >= AHEAD_SLOTS)
        pthread_cond_wait (&a->cond, &a->lock);
      int stop = a->stop;
      uint64_t h = a->head;
      pthread_mutex_unlock (&a->lock);
      if (stop)
        break;
      /* Slot h is neither the reader's nor to be read before head moves. */
      long n = fill (a, &ps, a->rows + (h % AHEAD_SLOTS) * AHEAD_BATCH,
                     &end, &rc, &err);
      pthread_mutex_lock (&a->lock);
      if (n > 0)
        {
          a->count[h % AHEAD_SLOTS] = n;
          a->head++;
        }
      if (end)
        {
          a->done = 1;
          a->rc = rc;
          a->err = err;
        }
      pthread_cond_signal (&a->cond);
      pthread_mutex_unlock (&a->lock);
    }
  logfmt_interval_iter_free (ps.it);
  return NULL;
}

int
ivahead_start (const logfmt_reader_t *r, const uint32_t *streams, size_t n,
               uint64_t t0, uint64_t t1, grouped_t *gp, ivahead_t **out)
{
  *out = NULL;
  ivahead_t *a = calloc (1, sizeof *a);
  if (!a)
    return LOGFMT_ENOMEM;
  a->r = r;
  a->t0 = t0;
  a->t1 = t1;
  a->gp = gp;
  a->nstreams = n;
  a->streams = malloc ((n ? n : 1) * sizeof *a->streams);
  a->rows = malloc ((size_t) AHEAD_SLOTS * AHEAD_BATCH * sizeof *a->rows);
  if (!a->streams || !a->rows)
    goto fail;
  if (n)
    memcpy (a->streams, streams, n * sizeof *streams);
  if (pthread_mutex_init (&a->lock, NULL) != 0)
    goto fail;
  if (pthread_cond_init (&a->cond, NULL) != 0)
    {
      pthread_mutex_destroy (&a->lock);
      goto fail;
    }
  /* Signals stay with the application's threads. */
  sigset_t all, old;
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &old);
  int rc = pthread_create (&a->tid, NULL, worker, a);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  if (rc != 0)
    {
      pthread_cond_destroy (&a->cond);
      pthread_mutex_destroy (&a->lock);
      goto fail;
    }
  *out = a;
  return 0;
fail:
  free (a->streams);
  free (a->rows);
  free (a);
  return LOGFMT_ENOMEM;
}

long
ivahead_next (ivahead_t *a, const logfmt_interval_t **rows)
{
  long n;
  pthread_mutex_lock (&a->lock);
  if (a->holding)
    {
      a->tail++;
      a->holding = 0;
      pthread_cond_signal (&a->cond);
    }
  while (a->head == a->tail && !a->done)
    pthread_cond_wait (&a->cond, &a->lock);
  if (a->head != a->tail)
    {
      n = a->count[a->tail % AHEAD_SLOTS];
      *rows = a->rows + (a->tail % AHEAD_SLOTS) * AHEAD_BATCH;
      a->holding = 1;
    }
  else
    n = a->rc;
  pthread_mutex_unlock (&a->lock);
  return n;
}

const logfmt_error_t *
ivahead_error (const ivahead_t *a)
{
  return &a->err;
}

void
ivahead_stop (ivahead_t *a)
{
  if (!a)
    return;
  pthread_mutex_lock (&a->lock);
  a->stop = 1;
  pthread_cond_broadcast (&a->cond);
  pthread_mutex_unlock (&a->lock);
  pthread_join (a->tid, NULL);
  pthread_cond_destroy (&a->cond);
  pthread_mutex_destroy (&a->lock);
  free (a->streams);
  free (a->rows);
  free (a);
}

int
ivahead_wanted (uint64_t events)
{
  const char *e = getenv ("CLOGSQL_AHEAD");
  if (e && *e)
    return strcmp (e, "0") != 0;
  if (events < AHEAD_MIN_EVENTS)
    return 0;
  cpu_set_t set;
  if (sched_getaffinity (0, sizeof set, &set) == 0)
    return CPU_COUNT (&set) > 1;
  return sysconf (_SC_NPROCESSORS_ONLN) > 1;
}

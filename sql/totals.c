/* SPDX-License-Identifier: BSD-3-Clause */
/* Per state name totals in one pass (totals.h).  With two threads the
 * streams are cut in two runs of about equal events; each thread sums
 * its own run into its own arrays, added together at the end (sums of
 * non-negative integers do not depend on the order). */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "totals.h"

typedef struct
{
  const logfmt_reader_t *r;
  const grouped_t *gp;
  const uint32_t *streams;
  size_t n;
  uint64_t *count, *inclusive, *exclusive;   /* ngroups each */
  int wide;
  int rc;
  logfmt_error_t err;
} part_t;

static int
add_checked (uint64_t *sum, uint64_t v)
{
  return __builtin_add_overflow (*sum, v, sum) || *sum > (uint64_t) INT64_MAX;
}

static void *
run_part (void *arg)
{
  part_t *p = arg;
  logfmt_interval_iter_t *it = NULL;
  logfmt_interval_t iv;
  for (size_t i = 0; i < p->n && !p->rc; i++)
    {
      int rc = it ? logfmt_interval_iter_reset (it, p->streams[i], 0,
                                                UINT64_MAX)
                  : logfmt_interval_iter_new (p->r, p->streams[i], 0,
                                              UINT64_MAX, &it);
      if (rc)
        {
          p->rc = rc;
          break;
        }
      while ((rc = logfmt_interval_iter_next (it, &iv)) == 1)
        {
          uint32_t g = grouped_group (p->gp, &iv);
          p->count[g]++;
          p->wide |= add_checked (&p->inclusive[g], iv.inclusive)
                     | add_checked (&p->exclusive[g], iv.exclusive);
        }
      if (rc < 0)
        {
          p->rc = rc;
          p->err = *logfmt_interval_iter_error (it);
        }
    }
  logfmt_interval_iter_free (it);
  return NULL;
}

void
totals_free (totals_t *t)
{
  if (!t)
    return;
  free (t->count);
  free (t->inclusive);
  free (t->exclusive);
  free (t);
}

static totals_t *
totals_alloc (uint32_t ngroups)
{
  totals_t *t = calloc (1, sizeof *t);
  if (!t)
    return NULL;
  t->ngroups = ngroups;
  t->count = calloc (ngroups, sizeof *t->count);
  t->inclusive = calloc (ngroups, sizeof *t->inclusive);
  t->exclusive = calloc (ngroups, sizeof *t->exclusive);
  if (!t->count || !t->inclusive || !t->exclusive)
    {
      totals_free (t);
      return NULL;
    }
  return t;
}

int
totals_compute (const logfmt_reader_t *r, const grouped_t *gp,
                const uint32_t *streams, size_t n, int threads,
                totals_t **out, logfmt_error_t *err)
{
  *out = NULL;
  memset (err, 0, sizeof *err);
  totals_t *t = totals_alloc (gp->ngroups), *t2 = NULL;
  if (!t)
    return LOGFMT_ENOMEM;
  /* Where the second thread's run starts: about half of the events. */
  size_t cut = n;
  if (threads > 1 && n > 1)
    {
      uint64_t all = 0, sofar = 0;
      for (size_t i = 0; i < n; i++)
        all += logfmt_reader_stream_events (r, streams[i]);
      for (cut = 1; cut < n - 1; cut++)
        {
          sofar += logfmt_reader_stream_events (r, streams[cut - 1]);
          if (sofar >= all / 2)
            break;
        }
      if (!(t2 = totals_alloc (gp->ngroups)))
        cut = n;   /* one thread will do */
    }
  part_t a = { r, gp, streams, cut, t->count, t->inclusive, t->exclusive,
               0, 0, { 0 } };
  part_t b = { r, gp, streams + cut, n - cut, NULL, NULL, NULL, 0, 0,
               { 0 } };
  pthread_t tid;
  int two = 0;
  if (cut < n)
    {
      b.count = t2->count;
      b.inclusive = t2->inclusive;
      b.exclusive = t2->exclusive;
      /* Signals stay with the application's threads. */
      sigset_t all, old;
      sigfillset (&all);
      pthread_sigmask (SIG_SETMASK, &all, &old);
      two = pthread_create (&tid, NULL, run_part, &b) == 0;
      pthread_sigmask (SIG_SETMASK, &old, NULL);
      if (!two)
        a.n = n;   /* no thread: this one takes every stream */
    }
  run_part (&a);
  if (two)
    pthread_join (tid, NULL);
  int rc = a.rc ? a.rc : b.rc;
  *err = a.rc ? a.err : b.err;
  t->wide = a.wide | b.wide;
  for (uint32_t g = 0; two && g < t->ngroups; g++)
    {
      t->count[g] += t2->count[g];
      t->wide |= add_checked (&t->inclusive[g], t2->inclusive[g])
                 | add_checked (&t->exclusive[g], t2->exclusive[g]);
    }
  totals_free (t2);
  if (rc)
    {
      totals_free (t);
      return rc;
    }
  *out = t;
  return 0;
}

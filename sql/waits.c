/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * waits: the analysis library's waits (an_waits_compute, each instance
 * kept), then, per stream that waited, one pass of the interval
 * iterator over the span of its waiting calls to find each call's
 * duration (the rule every tool shares for a state instance).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "waits.h"

typedef struct
{
  sqlwait_t *v;
  size_t n, cap;
  int oom;
} list_t;

static void
keep (void *arg, const an_wait_inst_t *w)
{
  list_t *l = arg;
  if (l->oom)
    return;
  if (l->n == l->cap)
    {
      size_t cap = l->cap ? 2 * l->cap : 256;
      sqlwait_t *nv = realloc (l->v, cap * sizeof *nv);
      if (nv == NULL)
        {
          l->oom = 1;
          return;
        }
      l->v = nv;
      l->cap = cap;
    }
  l->v[l->n++] = (sqlwait_t) { .w = *w, .duration = UINT64_MAX };
}

static int
cmp_wait (const void *a, const void *b)
{
  const an_wait_inst_t *x = &((const sqlwait_t *) a)->w;
  const an_wait_inst_t *y = &((const sqlwait_t *) b)->w;
  if (x->stream != y->stream)
    return x->stream < y->stream ? -1 : 1;
  if (x->call_start != y->call_start)
    return x->call_start < y->call_start ? -1 : 1;
  if (x->state != y->state)
    return x->state < y->state ? -1 : 1;
  return (x->wait_start > y->wait_start) - (x->wait_start < y->wait_start);
}

/* The first of v[0..n) at or after (start, state). */
static size_t
lower (const sqlwait_t *v, size_t n, uint64_t start, int32_t state)
{
  size_t lo = 0, hi = n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      const an_wait_inst_t *w = &v[mid].w;
      if (w->call_start < start
          || (w->call_start == start && w->state < state))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

int
sqlwaits_compute (const logfmt_reader_t *r, sqlwait_t **out, size_t *n,
                  logfmt_error_t *err)
{
  list_t l = { 0 };
  an_waits_opts_t o = { .each = keep, .arg = &l };
  an_waits_t *w = NULL;
  memset (err, 0, sizeof *err);
  int rc = an_waits_compute (r, &o, &w, err);
  an_waits_free (w);
  if (rc == 0 && l.oom)
    rc = LOGFMT_ENOMEM;
  if (rc)
    {
      free (l.v);
      return rc;
    }
  if (l.n)
    qsort (l.v, l.n, sizeof *l.v, cmp_wait);
  logfmt_interval_iter_t *it = NULL;
  for (size_t i = 0; i < l.n && rc == 0;)
    {
      size_t j = i;
      while (j < l.n && l.v[j].w.stream == l.v[i].w.stream)
        j++;
      uint32_t s = l.v[i].w.stream;
      uint64_t t0 = l.v[i].w.call_start, t1 = l.v[j - 1].w.call_start;
      rc = it ? logfmt_interval_iter_reset (it, s, t0, t1)
              : logfmt_interval_iter_new (r, s, t0, t1, &it);
      logfmt_interval_t iv;
      int k;
      while (rc == 0 && (k = logfmt_interval_iter_next (it, &iv)) != 0)
        {
          if (k < 0)
            {
              const logfmt_error_t *e = logfmt_interval_iter_error (it);
              if (e)
                *err = *e;
              rc = k;
              break;
            }
          for (size_t m = i + lower (l.v + i, j - i, iv.start, iv.state);
               m < j && l.v[m].w.call_start == iv.start
               && l.v[m].w.state == iv.state; m++)
            l.v[m].duration = iv.inclusive;
        }
      i = j;
    }
  logfmt_interval_iter_free (it);
  if (rc)
    {
      free (l.v);
      return rc;
    }
  *out = l.v;
  *n = l.n;
  return 0;
}

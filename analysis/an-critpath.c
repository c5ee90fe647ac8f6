/* SPDX-License-Identifier: BSD-3-Clause */
/* The critical path over the waits of an-waits.c (docs/ANALYSIS.md). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "an-internal.h"

typedef struct
{
  int32_t rank, cause;
  uint64_t start, end;
} wv_t;

typedef struct
{
  wv_t *v;
  size_t n, cap;
  int failed;
} wlist_t;

static void
keep (void *arg, const an_wait_inst_t *w)
{
  wlist_t *l = arg;
  if (l->failed)
    return;
  if (l->n == l->cap)
    {
      size_t nc = l->cap ? 2 * l->cap : 256;
      wv_t *nv = realloc (l->v, nc * sizeof *nv);
      if (nv == NULL)
        {
          l->failed = 1;
          return;
        }
      l->v = nv;
      l->cap = nc;
    }
  l->v[l->n++] = (wv_t) { w->rank, w->cause_rank, w->wait_start,
                          w->wait_start + w->wait_ns };
}

static int
cmp_wv (const void *a, const void *b)
{
  const wv_t *x = a, *y = b;
  if (x->rank != y->rank)
    return (x->rank > y->rank) - (x->rank < y->rank);
  return (x->end > y->end) - (x->end < y->end);
}

/* A stretch [t0, t1] of the path on one rank. */
typedef struct
{
  int32_t rank;
  uint64_t t0, t1;
} seg_t;

static int
cmp_seg (const void *a, const void *b)
{
  const seg_t *x = a, *y = b;
  if (x->rank != y->rank)
    return (x->rank > y->rank) - (x->rank < y->rank);
  return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* The last wait of `rank` ending before t (strictly), or NULL. */
static const wv_t *
last_before (const wlist_t *l, int32_t rank, uint64_t t)
{
  size_t lo = 0, hi = l->n;
  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      const wv_t *m = &l->v[mid];
      if (m->rank < rank || (m->rank == rank && m->end < t))
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0 || l->v[lo - 1].rank != rank)
    return NULL;
  return &l->v[lo - 1];
}

typedef struct
{
  int32_t rank, state;
  uint64_t ns;
} acc_t;

static int
acc_add (acc_t **v, size_t *n, size_t *cap, int32_t rank, int32_t state,
         uint64_t ns)
{
  for (size_t i = 0; i < *n; i++)
    if ((*v)[i].rank == rank && (*v)[i].state == state)
      {
        (*v)[i].ns += ns;
        return 0;
      }
  if (*n == *cap)
    {
      size_t nc = *cap ? 2 * *cap : 32;
      acc_t *nv = realloc (*v, nc * sizeof *nv);
      if (nv == NULL)
        return LOGFMT_ENOMEM;
      *v = nv;
      *cap = nc;
    }
  (*v)[(*n)++] = (acc_t) { rank, state, ns };
  return 0;
}

static int
cmp_item (const void *a, const void *b)
{
  const an_cp_item_t *x = a, *y = b;
  if (x->ns != y->ns)
    return x->ns < y->ns ? 1 : -1;
  if (x->rank != y->rank)
    return (x->rank > y->rank) - (x->rank < y->rank);
  return (x->state > y->state) - (x->state < y->state);
}

/* Each stream of a rank on the path: time between its records goes to
 * its innermost open state, clipped to the path's stretches there.
 * The rank's first thread only: the path follows MPI, which the
 * wrappers log per process. */
static int
attribute (const logfmt_reader_t *r, const seg_t *sg, size_t nsg,
           acc_t **v, size_t *n, size_t *cap, logfmt_error_t *err)
{
  const logfmt_info_t *info = logfmt_reader_info (r);
  size_t nstates = logfmt_reader_n_states (r);
  logfmt_iter_t *it = NULL;
  logfmt_state_tracker_t *tr = NULL;
  int rc = 0;
  for (uint32_t st = 0; st < info->nstreams && rc == 0; st++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, st);
      if (sd == NULL || sd->thread != 0)
        continue;
      /* This rank's stretches, in time order. */
      size_t a = 0;
      while (a < nsg && sg[a].rank < sd->rank)
        a++;
      size_t b = a;
      while (b < nsg && sg[b].rank == sd->rank)
        b++;
      if (a == b)
        continue;
      /* From the stream's start, for what is open at each stretch. */
      if ((rc = it ? logfmt_iter_reset (it, st, 0, sg[b - 1].t1)
                   : logfmt_iter_new (r, st, 0, sg[b - 1].t1, &it)) < 0)
        break;
      if (tr)
        logfmt_state_tracker_reset (tr, st);
      else if ((rc = logfmt_state_tracker_new_mode (nstates, st,
                                                    LOGFMT_TRACKER_NESTING,
                                                    &tr)) < 0)
        break;
      /* Time before the stream's first record is not on the path. */
      uint64_t last = UINT64_MAX;
      size_t k = a;
      logfmt_event_t ev;
      for (;;)
        {
          int got = logfmt_iter_next (it, &ev);
          if (got < 0)
            {
              const logfmt_error_t *e = logfmt_iter_error (it);
              if (err && e && e->code && err->code == 0)
                *err = *e;
              rc = got;
              break;
            }
          uint64_t t = got ? ev.time : sg[b - 1].t1;
          if (t > sg[b - 1].t1)
            t = sg[b - 1].t1;
          if (last == UINT64_MAX)
            last = t;
          if (t > last)
            {
              uint32_t d = logfmt_state_tracker_depth (tr);
              int32_t state = d ? logfmt_state_tracker_open (tr, d - 1)->state
                                : -1;
              /* Overlap of [last, t] with the stretches. */
              while (k < b && sg[k].t1 <= last)
                k++;
              for (size_t j = k; j < b && sg[j].t0 < t; j++)
                {
                  uint64_t lo = sg[j].t0 > last ? sg[j].t0 : last;
                  uint64_t hi = sg[j].t1 < t ? sg[j].t1 : t;
                  if (hi > lo
                      && (rc = acc_add (v, n, cap, sd->rank, state,
                                        hi - lo)) < 0)
                    break;
                }
              last = t;
            }
          if (rc < 0 || !got || ev.time >= sg[b - 1].t1)
            break;
          if ((rc = logfmt_state_tracker_apply (tr, &ev, NULL, NULL)) < 0)
            break;
          rc = 0;
        }
    }
  logfmt_iter_free (it);
  logfmt_state_tracker_free (tr);
  return rc < 0 ? rc : 0;
}

int
an_critpath_compute (const logfmt_reader_t *r, an_critpath_t **out,
                     logfmt_error_t *err)
{
  wlist_t l = { 0 };
  an_waits_opts_t o = { .each = keep, .arg = &l };
  an_waits_t *w = NULL;
  an_critpath_t *p = calloc (1, sizeof *p);
  seg_t *sg = NULL;
  size_t nsg = 0, capsg = 0;
  acc_t *v = NULL;
  size_t n = 0, cap = 0;
  int rc;

  *out = NULL;
  if (p == NULL)
    return LOGFMT_ENOMEM;
  if ((rc = an_waits_compute (r, &o, &w, err)) < 0)
    goto out;
  if (l.failed)
    {
      rc = LOGFMT_ENOMEM;
      goto out;
    }
  if (l.n)
    qsort (l.v, l.n, sizeof *l.v, cmp_wv);
  p->waits = l.n;
  p->t_end = w->t_last;
  p->rank_end = w->rank_last;
  /* Backwards: each step ends strictly earlier, so at most one step per
   * wait. */
  int32_t rank = w->rank_last;
  uint64_t t = w->t_last;
  for (size_t steps = 0; steps <= l.n; steps++)
    {
      const wv_t *x = last_before (&l, rank, t);
      uint64_t t0 = x ? x->end : 0;
      if (nsg == capsg)
        {
          size_t nc = capsg ? 2 * capsg : 64;
          seg_t *ns = realloc (sg, nc * sizeof *ns);
          if (ns == NULL)
            {
              rc = LOGFMT_ENOMEM;
              goto out;
            }
          sg = ns;
          capsg = nc;
        }
      if (t > t0)
        sg[nsg++] = (seg_t) { rank, t0, t };
      if (x == NULL)
        break;
      rank = x->cause;
      t = x->end;
    }
  p->segments = nsg;
  if (nsg)
    qsort (sg, nsg, sizeof *sg, cmp_seg);
  if ((rc = attribute (r, sg, nsg, &v, &n, &cap, err)) < 0)
    goto out;
  p->items = calloc (n ? n : 1, sizeof *p->items);
  if (p->items == NULL)
    {
      rc = LOGFMT_ENOMEM;
      goto out;
    }
  for (size_t i = 0; i < n; i++)
    {
      p->items[i] = (an_cp_item_t) { v[i].rank, v[i].state, v[i].ns };
      p->length_ns += v[i].ns;
    }
  p->nitems = n;
  if (n)
    qsort (p->items, n, sizeof *p->items, cmp_item);
out:
  an_waits_free (w);
  free (l.v);
  free (sg);
  free (v);
  if (rc < 0)
    {
      an__error (err, rc, "critical path");
      an_critpath_free (p);
      return rc;
    }
  *out = p;
  return 0;
}

void
an_critpath_free (an_critpath_t *p)
{
  if (p == NULL)
    return;
  free (p->items);
  free (p);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* OS and hardware counters in a log (libmpe's MPE_COUNTERS): the metrics
 * flagged LOGFMT_METRIC_COUNTER, each stream's readings of them, and a
 * counter's value at any time, interpolated linearly between the two
 * readings around it (a cumulative count read at samples and chosen
 * points).  The one rule `clogtool profile` and `clogtool cct` share. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "an-internal.h"

size_t
an_counters_list (const logfmt_reader_t *r, an_counter_t **out)
{
  size_t nm = logfmt_reader_n_metrics (r), n = 0;
  an_counter_t *v = calloc (nm ? nm : 1, sizeof *v);
  *out = v;
  if (!v)
    return 0;
  for (size_t i = 0; i < nm; i++)
    {
      const logfmt_metric_def_t *d = logfmt_reader_metric (r, i);
      if ((d->flags & LOGFMT_METRIC_COUNTER)
          && !(d->flags & LOGFMT_METRIC_LEVEL))
        v[n++] = (an_counter_t) { d->id, d->name, d->unit };
    }
  return n;
}

int
an_counter_find (const an_counter_t *c, size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (c[i].name && !strcmp (c[i].name, name))
      return (int) i;
  return -1;
}

static int
series_add (an_series_t *s, uint64_t t, double v)
{
  if (s->n == s->cap)
    {
      size_t c = s->cap ? 2 * s->cap : 256;
      uint64_t *nt = realloc (s->t, c * sizeof *nt);
      if (!nt)
        return LOGFMT_ENOMEM;
      s->t = nt;
      double *nv = realloc (s->v, c * sizeof *nv);
      if (!nv)
        return LOGFMT_ENOMEM;
      s->v = nv;
      s->cap = c;
    }
  s->t[s->n] = t;
  s->v[s->n] = v;
  s->n++;
  return 0;
}

int
an_counters_load (const logfmt_reader_t *r, uint32_t stream,
                  const an_counter_t *c, size_t n, an_series_t *out,
                  logfmt_error_t *err)
{
  for (size_t k = 0; k < n; k++)
    out[k].n = 0;
  if (n == 0)
    return 0;
  logfmt_track_iter_t *it;
  int rc = logfmt_track_iter_new (r, stream, LOGFMT_TRACK_METRIC, 0,
                                  UINT64_MAX, &it);
  if (rc < 0)
    {
      an__error (err, rc, "metric track");
      return rc;
    }
  logfmt_track_rec_t rec;
  int got;
  while ((got = logfmt_track_iter_next (it, &rec)) == 1)
    for (size_t k = 0; k < n; k++)
      if (rec.col[LOGFMT_METRIC_COL_ID] == (int64_t) c[k].id)
        {
          rc = series_add (&out[k], rec.time,
                           (double) rec.col[LOGFMT_METRIC_COL_VALUE]);
          if (rc < 0)
            {
              logfmt_track_iter_free (it);
              an__error (err, rc, "counters");
              return rc;
            }
          break;
        }
  if (got < 0)
    {
      const logfmt_error_t *e = logfmt_track_iter_error (it);
      if (err && e && e->code)
        *err = *e;
      rc = got;
    }
  logfmt_track_iter_free (it);
  return rc < 0 ? rc : 0;
}

double
an_series_at (const an_series_t *s, uint64_t t)
{
  if (s->n == 0)
    return 0;
  if (t <= s->t[0])
    return s->v[0];
  if (t >= s->t[s->n - 1])
    return s->v[s->n - 1];
  size_t lo = 0, hi = s->n - 1;   /* t[lo] < t < t[hi] */
  while (hi - lo > 1)
    {
      size_t mid = (lo + hi) / 2;
      if (s->t[mid] <= t)
        lo = mid;
      else
        hi = mid;
    }
  double f = (double) (t - s->t[lo]) / (double) (s->t[hi] - s->t[lo]);
  return s->v[lo] + f * (s->v[hi] - s->v[lo]);
}

void
an_series_free (an_series_t *s, size_t n)
{
  for (size_t k = 0; s && k < n; k++)
    {
      free (s[k].t);
      free (s[k].v);
      s[k].t = NULL;
      s[k].v = NULL;
      s[k].n = s[k].cap = 0;
    }
}

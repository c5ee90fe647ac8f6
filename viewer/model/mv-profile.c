/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "mv-profile.h"

MvProfile *
mv_profile_compute (MvLog *log, guint64 t0, guint64 t1, GError **error)
{
  an_profile_opts_t o;
  logfmt_error_t err = { 0 };
  MvProfile *pr = g_new0 (MvProfile, 1);

  an_profile_opts_init (&o);
  o.t0 = t0;
  o.t1 = t1;
  int rc = an_profile_compute (log->reader, &o, &pr->p, &err);
  if (rc < 0)
    {
      g_set_error (error, MV_LOG_ERROR, -rc, "%s",
                   err.code ? err.message : logfmt_strerror (rc));
      g_free (pr);
      return NULL;
    }
  pr->log = mv_log_ref (log);
  pr->t0 = t0;
  pr->t1 = t1;
  return pr;
}

void
mv_profile_free (MvProfile *pr)
{
  if (pr == NULL)
    return;
  an_profile_free (pr->p);
  mv_log_unref (pr->log);
  g_free (pr);
}

guint
mv_profile_rank_columns (const MvProfile *pr, gsize entry, guint ncols,
                         double *lo, double *hi)
{
  const an_profile_t *p = pr->p;
  if (entry >= p->nentries || ncols == 0 || p->nranks == 0)
    return 0;
  const an_prof_entry_t *e = &p->entries[entry];
  gsize group = (p->nranks + ncols - 1) / ncols;
  guint n = (guint) ((p->nranks + group - 1) / group);
  for (guint c = 0; c < n; c++)
    {
      lo[c] = G_MAXDOUBLE;
      hi[c] = 0;
    }
  for (gsize i = 0; i < p->nranks; i++)
    {
      double v = (double) e->per_rank[i].time_ns;
      guint c = (guint) (i / group);
      lo[c] = MIN (lo[c], v);
      hi[c] = MAX (hi[c], v);
    }
  return n;
}

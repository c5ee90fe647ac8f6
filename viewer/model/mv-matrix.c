/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "mv-matrix.h"

MvMatrix *
mv_matrix_compute (MvLog *log, guint64 t0, guint64 t1, gboolean by_comm,
                   guint32 comm, GError **error)
{
  MvMatrix *mm = g_new0 (MvMatrix, 1);
  logfmt_error_t err = { 0 };

  an_matrix_opts_init (&mm->opts);
  mm->opts.t0 = t0;
  mm->opts.t1 = t1;
  mm->opts.by_comm = by_comm;
  mm->opts.comm = comm;
  int rc = an_matrix_compute (log->reader, &mm->opts, &mm->m, &err);
  if (rc < 0)
    {
      g_set_error (error, MV_LOG_ERROR, -rc, "%s",
                   err.code ? err.message : logfmt_strerror (rc));
      g_free (mm);
      return NULL;
    }
  mm->log = mv_log_ref (log);
  return mm;
}

void
mv_matrix_free (MvMatrix *mm)
{
  if (mm == NULL)
    return;
  an_matrix_free (mm->m);
  mv_log_unref (mm->log);
  g_free (mm);
}

MvMatrixGrid *
mv_matrix_grid (const MvMatrix *mm, MvMatrixWhat what, guint max)
{
  MvMatrixGrid *g = g_new0 (MvMatrixGrid, 1);
  guint n = MAX (mm->m->nranks, 1);

  max = MAX (max, 1);
  g->nranks = mm->m->nranks;
  g->group = (n + max - 1) / max;
  g->n = (n + g->group - 1) / g->group;
  g->v = g_new0 (double, (gsize) g->n * g->n);
  /* One pass over the non-empty cells: O(cells), whatever the size. */
  for (size_t k = 0; k < mm->m->ncells; k++)
    {
      const an_cell_t *c = &mm->m->cells[k];
      double v = what == MV_MATRIX_COUNT ? (double) c->count
                 : what == MV_MATRIX_BYTES ? (double) c->bytes
                 : (double) c->time_ns;
      double *b = &g->v[(gsize) ((guint) c->from / g->group) * g->n
                        + (guint) c->to / g->group];
      *b += v;
      if (*b > g->vmax)
        g->vmax = *b;
    }
  return g;
}

void
mv_matrix_grid_free (MvMatrixGrid *g)
{
  if (g == NULL)
    return;
  g_free (g->v);
  g_free (g);
}

GArray *
mv_matrix_messages (const MvMatrix *mm, gint32 from0, gint32 from1,
                    gint32 to0, gint32 to1, guint max,
                    GCancellable *cancellable)
{
  logfmt_msg_iter_t *it = NULL;
  logfmt_message_t msg;
  int rc = logfmt_msg_iter_new (mm->log->reader, mm->opts.t0, mm->opts.t1,
                                &it);
  if (rc < 0)
    return NULL;
  GArray *a = g_array_new (FALSE, FALSE, sizeof (logfmt_message_t));
  guint64 seen = 0;
  while (a->len < max && (rc = logfmt_msg_iter_next (it, &msg)) == 1)
    {
      if ((++seen & 0xffff) == 0 && g_cancellable_is_cancelled (cancellable))
        break;
      if (msg.send_rank >= from0 && msg.send_rank <= from1
          && msg.recv_rank >= to0 && msg.recv_rank <= to1
          && an_matrix_selects (&mm->opts, &msg))
        g_array_append_val (a, msg);
    }
  logfmt_msg_iter_free (it);
  if (rc < 0 || g_cancellable_is_cancelled (cancellable))
    {
      g_array_unref (a);
      return NULL;
    }
  return a;
}

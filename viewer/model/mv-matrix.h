/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The communication matrix of a window (analysis/an-matrix.c) and its
 * heat map: cells aggregated into at most `max` x `max` blocks of ranks,
 * so a 10,000-rank world draws as fast as a small one.  Computing reads
 * the message table and the collectives: run it on a worker thread.
 */
#ifndef MV_MATRIX_H
#define MV_MATRIX_H

#include <gio/gio.h>

#include "analysis/analysis.h"
#include "mv-log.h"

G_BEGIN_DECLS

typedef enum
{
  MV_MATRIX_COUNT = 0,
  MV_MATRIX_BYTES = 1,
  MV_MATRIX_TIME  = 2     /* ns from send to receive, summed */
} MvMatrixWhat;

typedef struct
{
  MvLog          *log;
  an_matrix_opts_t opts;
  an_matrix_t    *m;
} MvMatrix;

/* by_comm: only communicator `comm`.  (transfer full) or NULL. */
MvMatrix *mv_matrix_compute (MvLog *log, guint64 t0, guint64 t1,
                             gboolean by_comm, guint32 comm,
                             GError **error);
void      mv_matrix_free (MvMatrix *mm);

/* The heat map: block (i, j) sums the cells from ranks [i*group,
 * (i+1)*group) to ranks [j*group, (j+1)*group). */
typedef struct
{
  guint   nranks;
  guint   group;      /* ranks per block side */
  guint   n;          /* blocks per side: ceil (nranks / group) */
  double *v;          /* n * n, row = sender block */
  double  vmax;       /* largest block value */
} MvMatrixGrid;

/* max: blocks per side at most (e.g. the pixels available). */
MvMatrixGrid *mv_matrix_grid (const MvMatrix *mm, MvMatrixWhat what,
                              guint max);
void          mv_matrix_grid_free (MvMatrixGrid *g);

/* The messages the matrix counts from ranks [from0, from1] to ranks
 * [to0, to1], at most max, in the table's order.  (transfer full)
 * GArray of logfmt_message_t; NULL if cancelled or on error. */
GArray *mv_matrix_messages (const MvMatrix *mm, gint32 from0, gint32 from1,
                            gint32 to0, gint32 to1, guint max,
                            GCancellable *cancellable);

G_END_DECLS

#endif

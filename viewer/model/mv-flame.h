/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flame graph (icicle) of a time range and a set of ranks: the
 * calling-context tree of `clogtool cct` (callpath/cp-tree.c, the same
 * code, so the numbers are the same), laid out with each node as wide as
 * its samples, children ordered as cct orders them (most samples first),
 * and where in time each sample fell, so a node can be shown in the
 * timeline (its samples and its descendants').  Reads every sample of
 * the range: run it on a worker.
 */
#ifndef MV_FLAME_H
#define MV_FLAME_H

#include <stdio.h>

#include "callpath/callpath.h"
#include "mv-log.h"
#include "mv-samples.h"

G_BEGIN_DECLS

typedef struct
{
  guint32 node;        /* index in tree->nodes */
  guint32 depth;       /* 0: the root ("[program]") */
  double  x0, x1;      /* share of the root's samples, [0, 1] */
} MvFlameBox;

typedef struct
{
  guint32 stream;
  guint32 node;        /* the leaf of the sample's path */
  guint64 time, weight;
} MvFlameSample;

typedef struct
{
  MvLog     *log;
  guint64    t0, t1;      /* [t0, t1); t1 = G_MAXUINT64: to the end */
  gint32    *ranks;       /* the ranks asked for; nranks 0: every rank */
  gsize      nranks;
  cp_tree_t *tree;
  GArray    *boxes;       /* MvFlameBox of the nodes with samples,
                             parents before children */
  guint      max_depth;
  guint32   *box_of;      /* node -> index in boxes + 1, 0 none */
  guint32   *pre, *post;  /* node -> preorder number, and its subtree's
                             end: leaf l is under n iff pre[n] <= pre[l]
                             < post[n] */
  GArray    *samples;     /* MvFlameSample, per stream in time order */
  double     period_ns;
} MvFlame;

/* (transfer full) or NULL with error set (also when the log has no
 * call paths). */
MvFlame *mv_flame_compute (MvLog *log, guint64 t0, guint64 t1,
                           const gint32 *ranks, gsize nranks,
                           GError **error);
void     mv_flame_free (MvFlame *fl);

/* The box at share x (0..1) and depth, or NULL. */
const MvFlameBox *mv_flame_hit (const MvFlame *fl, double x, guint depth);
/* The node named `func` with the most samples, or 0 (the root). */
guint32  mv_flame_find (const MvFlame *fl, const char *func);
/* Tooltip text of a node: function, file:line, module, self and total
 * samples and their share (caller frees). */
char    *mv_flame_describe (const MvFlame *fl, guint32 node);
/* Where the node's samples fell (its own and its descendants'): a mark
 * per run of samples on one stream, each sample covering its period;
 * (transfer full) GArray of MvTimeMark. */
GArray  *mv_flame_marks (const MvFlame *fl, guint32 node);
/* The tree as `clogtool cct --json` nests it (name, file, line,
 * module, self, total, children). */
void     mv_flame_write_json (const MvFlame *fl, FILE *fp);
/* Parses "all", or a list of ranks and ranges ("0,2-3"); FALSE if bad. */
gboolean mv_flame_parse_ranks (const char *s, gint32 **ranks, gsize *n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MvFlame, mv_flame_free)

G_END_DECLS

#endif

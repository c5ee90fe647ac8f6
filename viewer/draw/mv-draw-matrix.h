/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The communication matrix's heat map (cairo only, no GTK): the window
 * and mpeview --bench-matrix draw with the same code.
 */
#ifndef MV_DRAW_MATRIX_H
#define MV_DRAW_MATRIX_H

#include <cairo.h>

#include "../model/mv-matrix.h"

G_BEGIN_DECLS

typedef struct
{
  double x, y, side;   /* the square plot: senders down, receivers across */
} MvMatrixLayout;

/* The plot inside a w x h drawing, with room for the axis labels. */
void  mv_matrix_layout (MvMatrixLayout *l, double w, double h);
/* Blocks per side worth drawing: one per pixel at most. */
guint mv_matrix_layout_blocks (const MvMatrixLayout *l);

/* Paints the grid (log colour scale; empty blocks light grey), the axes
 * and a frame around block (sel_i, sel_j) if sel_i >= 0. */
void  mv_draw_matrix (cairo_t *cr, const MvMatrixGrid *g,
                      const MvMatrixLayout *l, MvMatrixWhat what,
                      int sel_i, int sel_j);
/* The block under (x, y), or FALSE. */
gboolean mv_matrix_hit (const MvMatrixGrid *g, const MvMatrixLayout *l,
                        double x, double y, guint *i, guint *j);
/* "12", "3.4 MB", "1.2 ms": a block value as text. */
void  mv_matrix_format (MvMatrixWhat what, double v, char *buf, gsize len);

G_END_DECLS

#endif

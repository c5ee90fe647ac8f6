/* SPDX-License-Identifier: BSD-3-Clause */
/* The flame graph (icicle: the root on top, callees below) of an
 * MvFlame: cairo/pango only, shared by its window and --export-flame. */
#ifndef MV_DRAW_FLAME_H
#define MV_DRAW_FLAME_H

#include <cairo.h>

#include "../model/mv-flame.h"

G_BEGIN_DECLS

#define MV_FLAME_BOX_H 18.0
#define MV_FLAME_SELECTED_RGB 0x101014u   /* the selected box's outline */

/* Height of one level in a drawing h pixels high. */
double mv_flame_level_h (const MvFlame *fl, double h);
/* The box under (x, y) of a w x h drawing, or NULL. */
const MvFlameBox *mv_flame_box_at (const MvFlame *fl, double w, double h,
                                   double x, double y);
/* Every box with samples as wide as its share of w; `selected` (a node,
 * 0 none) outlined and the rest of the graph outside its subtree and
 * ancestry faded. */
void   mv_draw_flame (cairo_t *cr, const MvFlame *fl, double w, double h,
                      guint32 selected);

G_END_DECLS

#endif

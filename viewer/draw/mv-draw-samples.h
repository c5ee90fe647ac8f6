/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drawing of call-path samples: the sample strips of a scene's lanes
 * (mv-lane-samples.c) and the time marks of a flame graph's selected
 * context over the timeline.  cairo only, shared by the window and
 * --export.
 */
#ifndef MV_DRAW_SAMPLES_H
#define MV_DRAW_SAMPLES_H

#include <cairo.h>

#include "../model/mv-scene.h"

G_BEGIN_DECLS

/* The colour of the bar under a time mark (pixel tests look for it). */
#define MV_DRAW_MARK_RGB 0xc8106eu

/* Each lane's sample strip: one column per pixel in its function's
 * colour (mv_sample_func_rgb), over a pale strip. */
void mv_draw_sample_strips (cairo_t *cr, const MvScene *s);

/* Marks over the plot of a window [t0, t1) of `width` pixels with rows
 * of row_h pixels scrolled by y0 (slots as in mv-groups.h, may be NULL): each mark tints its row over its
 * time and gets a bar along the row's bottom. */
void mv_draw_time_marks (cairo_t *cr, const MvLog *log, guint64 t0,
                         guint64 t1, double width, double height,
                         double row_h, double y0, const GArray *slots,
                         const MvTimeMark *marks, guint n);

G_END_DECLS

#endif

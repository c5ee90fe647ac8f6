/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timeline drawing.  Takes only a cairo_t, a scene and a layout, so the
 * window, --export (PNG/SVG/PDF) and --bench run exactly the same code.
 * No GTK here: pango/cairo only.
 */
#ifndef MV_DRAW_H
#define MV_DRAW_H

#include <cairo.h>

#include "../model/mv-scene.h"

G_BEGIN_DECLS

typedef struct
{
  double width, height;    /* whole drawing */
  double label_w;          /* row labels on the left */
  double ruler_h;          /* time ruler on top */
  double legend_h;         /* legend strip at the bottom (export), or 0 */
  double plot_x, plot_y, plot_w, plot_h;
} MvLayout;

/* Sizes for a drawing of w x h; legend adds a bottom legend strip. */
void   mv_layout_compute (MvLayout *l, const MvLog *log, double w, double h,
                          gboolean legend);
/* The same with room in the legend for `layers` more entries (see
 * mv_legend_layer_items). */
void   mv_layout_compute_layers (MvLayout *l, const MvLog *log, double w,
                                 double h, guint layers);
/* Legend entries the layers take: off-CPU blocked and preempted, a
 * counter or resource track, the sample strip's most common functions
 * (MV_LEGEND_SAMPLE_FUNCS at most); MPI waits (p.show_waits) one more. */
#define MV_LEGEND_SAMPLE_FUNCS 6
guint  mv_legend_layer_items (gboolean sched, gboolean counter,
                              gboolean samples);
/* Row height that shares the plot's height among all rows, at most
 * MV_DRAW_ROW_MAX_H: few processes fill the plot, many get thin rows. */
double mv_layout_fit_row_h (const MvLayout *l, const MvLog *log);
double mv_layout_fit_row_h_for (double plot_h, const MvLog *log);
/* The same for nslots slots (grouped rows, mv-groups.h). */
double mv_layout_fit_row_h_slots (double plot_h, guint nslots);

#define MV_COUNTER_RGB 0x1a4099u  /* a counter track's step line */
#define MV_DRAW_ROW_H 22.0       /* export's default height per row */
#define MV_DRAW_ROW_MAX_H 160.0

typedef struct
{
  gboolean has_sel;        /* highlighted range, e.g. a rubber band */
  guint64  sel_t0, sel_t1;
  const guint8 *state_hidden;   /* for the legend, may be NULL */
  const guint8 *evdef_hidden;
  gint32   highlight_state;     /* outline instances of it, -1 none */
} MvDrawOpts;

/* Draws everything; the scene's window and scroll are used. */
void mv_draw_timeline (cairo_t *cr, const MvScene *scene,
                       const MvLayout *l, const MvDrawOpts *o);
/* Only the plot's contents, with (0,0) at the plot's top-left. */
void mv_draw_plot (cairo_t *cr, const MvScene *scene, double w, double h,
                   const MvDrawOpts *o);
/* Arrows from which mv_draw_plot builds their density image on a thread
 * of its own, beside the rest of the plot (tests set it to G_MAXUINT to
 * draw it on the caller's thread). */
extern guint mv__draw_density_thread_min;
/* Dense arrows are stepped pixel by pixel when their steps number under
 * 1/N of the image's pixels, else summed as runs (tests set N to 0 or
 * G_MAXUINT to draw the same arrows either way). */
extern guint mv__draw_sparse_below;
/* The ruler, labels and decorations around a plot. */
void mv_draw_frame (cairo_t *cr, const MvScene *scene, const MvLayout *l,
                    const MvDrawOpts *o);

G_END_DECLS

#endif

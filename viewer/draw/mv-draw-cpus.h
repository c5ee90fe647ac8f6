/* SPDX-License-Identifier: BSD-3-Clause */
/* The CPU view: one row per CPU, coloured by the thread on it. */
#ifndef MV_DRAW_CPUS_H
#define MV_DRAW_CPUS_H

#include <cairo.h>

#include "../model/mv-cpuview.h"

G_BEGIN_DECLS

typedef struct
{
  double label_w, ruler_h, legend_h;
  double plot_x, plot_y, plot_w, plot_h;
  double row_h;
} MvCpuLayout;

#define MV_CPU_ROW_H 22.0   /* default and largest row height */

void mv_cpu_layout (MvCpuLayout *l, const MvCpuView *cv, double w, double h);
/* Labels, a ruler for [t0, t1), the rows and a legend of the ranks. */
void mv_draw_cpuview (cairo_t *cr, const MvCpuView *cv, const MvCpuLayout *l,
                      guint64 t0, guint64 t1);
/* The stream in the row under (x, y) of the drawing, or -1. */
gint32 mv_cpuview_hit (const MvCpuView *cv, const MvCpuLayout *l,
                       guint64 t0, guint64 t1, double x, double y,
                       guint *row);

G_END_DECLS

#endif

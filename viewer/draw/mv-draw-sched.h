/* SPDX-License-Identifier: BSD-3-Clause */
/* On/off-CPU shading of thread rows (MPE_SCHED=1 logs). */
#ifndef MV_DRAW_SCHED_H
#define MV_DRAW_SCHED_H

#include <cairo.h>

#include "../model/mv-scene.h"

G_BEGIN_DECLS

/* The strip's colours where a thread was off its CPU for a whole pixel
 * column (tests look for them). */
#define MV_OFFCPU_BLOCKED_RGB   0x3c4678u
#define MV_OFFCPU_PREEMPTED_RGB 0xe0641eu

/* Over each lane with lane->offcpu: a veil as dark as the column was
 * off its CPU, and at the lane's top a strip in the colour of why
 * (blocked, preempted; mixed with white by how much). */
void mv__draw_offcpu (cairo_t *cr, const MvScene *s);

G_END_DECLS

#endif

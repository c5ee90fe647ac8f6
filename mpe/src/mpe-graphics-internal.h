/* SPDX-License-Identifier: BSD-3-Clause */
/* Between the graphics client (mpe-graphics.c) and its Fortran bindings
 * (mpe-graphics-fortran.c): Fortran handles are small integers. */
#ifndef MPE_GRAPHICS_INTERNAL_H
#define MPE_GRAPHICS_INTERNAL_H

#include "mpe_graphics.h"

/* 1-based index of a live handle, 0 for none. */
int        mpe__graph_to_f (MPE_XGraph h) __attribute__ ((visibility ("hidden")));
/* The handle of a Fortran index, NULL if it is not a live one. */
MPE_XGraph mpe__graph_from_f (int index) __attribute__ ((visibility ("hidden")));

#endif

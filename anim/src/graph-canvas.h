/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The picture of an MPE graphics window: an RGB image every rank's
 * drawing lands on, with X11's raster operations (MPE_LOGIC_*: the new
 * pixel is a bitwise function of the drawn colour and the pixel there)
 * and X11's aliased pixel rules.  cairo only; no GTK.
 */
#ifndef GRAPH_CANVAS_H
#define GRAPH_CANVAS_H

#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

typedef struct GraphCanvas GraphCanvas;

/* A rank's graphics context (MPE_Draw_logic, MPE_Line_thickness,
 * MPE_Draw_dashes, MPE_Dash_offset). */
typedef struct
{
  int logic;          /* X11 GX code 0..15; 3 = copy */
  int thickness;      /* 0 and 1: one pixel */
  int dashlen;        /* 0: solid */
  int dashoff;
} GraphGC;

#define GRAPH_GC_DEFAULT { 3, 0, 0, 0 }

/* A white w x h picture, or NULL without memory. */
GraphCanvas     *graph_canvas_new (int w, int h);
void             graph_canvas_free (GraphCanvas *c);
int              graph_canvas_width (const GraphCanvas *c);
int              graph_canvas_height (const GraphCanvas *c);
cairo_surface_t *graph_canvas_surface (GraphCanvas *c);

/* The raster operation `fn` (X11 GX code) of src on dst, 24-bit RGB. */
uint32_t graph_rop (int fn, uint32_t src, uint32_t dst);

/* pts: n wire points (i32 x, i32 y, u32 rgb, little-endian). */
void graph_canvas_points (GraphCanvas *c, const GraphGC *gc,
                          const uint8_t *pts, size_t n);
void graph_canvas_line (GraphCanvas *c, const GraphGC *gc, int x1, int y1,
                        int x2, int y2, uint32_t rgb);
void graph_canvas_circle (GraphCanvas *c, const GraphGC *gc, int cx, int cy,
                          int r, uint32_t rgb, int fill);
void graph_canvas_rect (GraphCanvas *c, const GraphGC *gc, int x, int y,
                        int w, int h, uint32_t rgb);
/* (x, y) is the left end of the baseline, as in X11. */
void graph_canvas_string (GraphCanvas *c, const GraphGC *gc, int x, int y,
                          uint32_t rgb, const char *text, size_t n);

/* Writes the picture as PNG to fd (left open).  0, or -1 when it could
 * not be written. */
int graph_canvas_write_png (GraphCanvas *c, int fd);

#endif

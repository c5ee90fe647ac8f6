/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drawing of one animation frame with cairo only (no GTK): the window,
 * replay export and benchmarks all call anim_render on a cairo_t.
 */
#ifndef ANIM_RENDER_H
#define ANIM_RENDER_H

#include <cairo.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define ANIM_NO_STATE    0x808080u  /* node colour outside any state */
#define ANIM_BG_RGB      0x1e1e1eu
#define ANIM_DOT_RGB     0xffd700u
#define ANIM_CIRCLE_MAX  64         /* more processes: a grid */

typedef struct
{
  int32_t  src, dst;     /* process indices */
  float    frac;         /* 0 at the sender, 1 at the receiver */
  uint64_t bytes;
} AnimDotView;

/* One line of the legend: a state's name and colour. */
typedef struct
{
  const char *name;
  uint32_t    rgb;
} AnimLegendItem;

typedef struct
{
  int                 nprocs;
  const uint32_t     *proc_rgb;   /* nprocs colours 0xRRGGBB */
  const uint8_t      *proc_seen;  /* may be NULL; 0 draws a hollow node */
  const AnimDotView  *dots;
  size_t              ndots;
  const char         *status;     /* top line, may be NULL */
  const char *const  *info;       /* selected process history, may be NULL */
  int                 ninfo;
  int                 selected;   /* -1 for none */
  const AnimLegendItem *legend;   /* states that occur, may be NULL */
  int                 nlegend;
} AnimScene;

/* Centre and radius of node i of n in a w x h area.  Up to
 * ANIM_CIRCLE_MAX nodes sit on a circle of radius 0.4 * min (w, h) around
 * the centre, node 0 at the top, going clockwise; more fill a grid. */
void anim_layout_node (int n, double w, double h, int i,
                       double *x, double *y, double *r);
/* Node under (px, py), or -1. */
int  anim_layout_hit (int n, double w, double h, double px, double py);
/* Stroke width of a message of that size (1..12 pixels). */
double anim_dot_width (uint64_t bytes);

/* Draws the frame, the legend in the bottom-left corner: each state's
 * colour and name (as many as fit, then "+N more states"), "no state",
 * a hollow node (not connected, live), a message, and where solo
 * events are shown. */
void anim_render (cairo_t *cr, double w, double h, const AnimScene *s);

/* The frame's text, one line each: "status: ...", "legend: NAME #rrggbb"
 * per state, "info: ..." per line of the history box. */
void anim_scene_write_text (FILE *f, const AnimScene *s);

#endif

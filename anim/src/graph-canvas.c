/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every primitive but points and rectangles is rasterised by cairo,
 * without antialiasing, into a coverage mask over its bounding box; the
 * covered pixels then get the raster operation.  One code path for all
 * sixteen operations, so MPE_LOGIC_XOR drawn twice restores the picture
 * exactly, as on X11.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "anim/client/anim-proto.h"
#include "graph-canvas.h"

#define FONT_PX 13      /* X11's default "fixed" font is 6x13 */

struct GraphCanvas
{
  int              w, h;
  cairo_surface_t *img;     /* RGB24: the picture */
  cairo_surface_t *mask;    /* A8: coverage of the current primitive */
};

typedef struct
{
  int x0, y0, x1, y1;       /* [x0, x1) x [y0, y1), inside the canvas */
} box_t;

GraphCanvas *
graph_canvas_new (int w, int h)
{
  GraphCanvas *c = calloc (1, sizeof *c);
  if (!c)
    return NULL;
  c->w = w;
  c->h = h;
  c->img = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  c->mask = cairo_image_surface_create (CAIRO_FORMAT_A8, w, h);
  if (cairo_surface_status (c->img) || cairo_surface_status (c->mask))
    {
      graph_canvas_free (c);
      return NULL;
    }
  cairo_t *cr = cairo_create (c->img);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_destroy (cr);
  return c;
}

void
graph_canvas_free (GraphCanvas *c)
{
  if (!c)
    return;
  if (c->img)
    cairo_surface_destroy (c->img);
  if (c->mask)
    cairo_surface_destroy (c->mask);
  free (c);
}

int
graph_canvas_width (const GraphCanvas *c)
{
  return c->w;
}

int
graph_canvas_height (const GraphCanvas *c)
{
  return c->h;
}

cairo_surface_t *
graph_canvas_surface (GraphCanvas *c)
{
  return c->img;
}

uint32_t
graph_rop (int fn, uint32_t s, uint32_t d)
{
  uint32_t r;
  switch (fn)
    {
    case 0: r = 0; break;
    case 1: r = s & d; break;
    case 2: r = s & ~d; break;
    case 3: r = s; break;
    case 4: r = ~s & d; break;
    case 5: r = d; break;
    case 6: r = s ^ d; break;
    case 7: r = s | d; break;
    case 8: r = ~(s | d); break;
    case 9: r = ~s ^ d; break;
    case 10: r = ~d; break;
    case 11: r = s | ~d; break;
    case 12: r = ~s; break;
    case 13: r = ~s | d; break;
    case 14: r = ~(s & d); break;
    default: r = 0xffffffu; break;
    }
  return r & 0xffffffu;
}

static uint32_t *
row (GraphCanvas *c, int y)
{
  return (uint32_t *) (cairo_image_surface_get_data (c->img)
                       + (size_t) y * (size_t) cairo_image_surface_get_stride
                         (c->img));
}

static void
put (GraphCanvas *c, int fn, int x, int y, uint32_t rgb)
{
  if (x < 0 || y < 0 || x >= c->w || y >= c->h)
    return;
  uint32_t *p = row (c, y) + x;
  *p = graph_rop (fn, rgb, *p & 0xffffffu);
}

void
graph_canvas_points (GraphCanvas *c, const GraphGC *gc, const uint8_t *pts,
                     size_t n)
{
  cairo_surface_flush (c->img);
  for (size_t i = 0; i < n; i++, pts += 12)
    put (c, gc->logic, (int32_t) anim_get32 (pts),
         (int32_t) anim_get32 (pts + 4), anim_get32 (pts + 8) & 0xffffffu);
  cairo_surface_mark_dirty (c->img);
}

static int
clamp (long v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : (int) v;
}

static box_t
make_box (const GraphCanvas *c, long x0, long y0, long x1, long y1)
{
  box_t b = { clamp (x0, 0, c->w), clamp (y0, 0, c->h),
              clamp (x1, 0, c->w), clamp (y1, 0, c->h) };
  return b;
}

/* A cairo context on the mask, cleared and clipped to b, drawing opaque
 * coverage without antialiasing; NULL if b is empty. */
static cairo_t *
mask_begin (GraphCanvas *c, box_t b, const GraphGC *gc)
{
  if (b.x0 >= b.x1 || b.y0 >= b.y1)
    return NULL;
  cairo_t *cr = cairo_create (c->mask);
  cairo_rectangle (cr, b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0);
  cairo_clip (cr);
  cairo_set_operator (cr, CAIRO_OPERATOR_CLEAR);
  cairo_paint (cr);
  cairo_set_operator (cr, CAIRO_OPERATOR_OVER);
  cairo_set_source_rgba (cr, 0, 0, 0, 1);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  int t = gc->thickness > 1 ? gc->thickness : 1;
  cairo_set_line_width (cr, t);
  cairo_set_line_cap (cr, t == 1 ? CAIRO_LINE_CAP_SQUARE
                               : CAIRO_LINE_CAP_BUTT);
  if (gc->dashlen > 0)
    {
      double d = gc->dashlen;
      cairo_set_dash (cr, &d, 1, gc->dashoff);
    }
  return cr;
}

/* Applies rgb with the context's operation where the mask is covered. */
static void
mask_apply (GraphCanvas *c, cairo_t *cr, box_t b, const GraphGC *gc,
            uint32_t rgb)
{
  cairo_destroy (cr);
  cairo_surface_flush (c->mask);
  cairo_surface_flush (c->img);
  const uint8_t *m = cairo_image_surface_get_data (c->mask);
  int ms = cairo_image_surface_get_stride (c->mask);
  for (int y = b.y0; y < b.y1; y++)
    {
      uint32_t *p = row (c, y);
      const uint8_t *mr = m + (size_t) y * (size_t) ms;
      for (int x = b.x0; x < b.x1; x++)
        if (mr[x] >= 128)
          p[x] = graph_rop (gc->logic, rgb, p[x] & 0xffffffu);
    }
  cairo_surface_mark_dirty (c->img);
}

void
graph_canvas_line (GraphCanvas *c, const GraphGC *gc, int x1, int y1,
                   int x2, int y2, uint32_t rgb)
{
  long pad = (gc->thickness > 1 ? gc->thickness : 1) + 2;
  box_t b = make_box (c, (long) (x1 < x2 ? x1 : x2) - pad,
                      (long) (y1 < y2 ? y1 : y2) - pad,
                      (long) (x1 > x2 ? x1 : x2) + pad + 1,
                      (long) (y1 > y2 ? y1 : y2) + pad + 1);
  cairo_t *cr = mask_begin (c, b, gc);
  if (!cr)
    return;
  cairo_move_to (cr, x1 + 0.5, y1 + 0.5);
  cairo_line_to (cr, x2 + 0.5, y2 + 0.5);
  cairo_stroke (cr);
  mask_apply (c, cr, b, gc, rgb);
}

/* X11's XDrawArc / XFillArc of the box (cx - r, cy - r, 2r, 2r). */
void
graph_canvas_circle (GraphCanvas *c, const GraphGC *gc, int cx, int cy,
                     int r, uint32_t rgb, int fill)
{
  long pad = (long) r + (gc->thickness > 1 ? gc->thickness : 1) + 2;
  box_t b = make_box (c, cx - pad, cy - pad, cx + pad + 1, cy + pad + 1);
  cairo_t *cr = mask_begin (c, b, gc);
  if (!cr)
    return;
  if (fill)
    {
      cairo_arc (cr, cx, cy, r, 0, 2 * M_PI);
      cairo_fill (cr);
    }
  else
    {
      cairo_arc (cr, cx + 0.5, cy + 0.5, r, 0, 2 * M_PI);
      cairo_stroke (cr);
    }
  mask_apply (c, cr, b, gc, rgb);
}

/* XFillRectangle: the w x h pixels from (x, y). */
void
graph_canvas_rect (GraphCanvas *c, const GraphGC *gc, int x, int y, int w,
                   int h, uint32_t rgb)
{
  box_t b = make_box (c, x, y, (long) x + w, (long) y + h);
  cairo_surface_flush (c->img);
  for (int yy = b.y0; yy < b.y1; yy++)
    {
      uint32_t *p = row (c, yy);
      for (int xx = b.x0; xx < b.x1; xx++)
        p[xx] = graph_rop (gc->logic, rgb, p[xx] & 0xffffffu);
    }
  cairo_surface_mark_dirty (c->img);
}

void
graph_canvas_string (GraphCanvas *c, const GraphGC *gc, int x, int y,
                     uint32_t rgb, const char *text, size_t n)
{
  char *s = malloc (n + 1);
  if (!s)
    return;
  memcpy (s, text, n);
  s[n] = '\0';
  box_t b = make_box (c, (long) x - 2, (long) y - 2 * FONT_PX,
                      (long) x + (long) (n + 2) * FONT_PX, (long) y + FONT_PX);
  cairo_t *cr = mask_begin (c, b, gc);
  if (cr)
    {
      cairo_font_options_t *fo = cairo_font_options_create ();
      cairo_font_options_set_antialias (fo, CAIRO_ANTIALIAS_NONE);
      cairo_set_font_options (cr, fo);
      cairo_font_options_destroy (fo);
      cairo_select_font_face (cr, "monospace", CAIRO_FONT_SLANT_NORMAL,
                              CAIRO_FONT_WEIGHT_NORMAL);
      cairo_set_font_size (cr, FONT_PX);
      cairo_move_to (cr, x, y);
      cairo_show_text (cr, s);
      mask_apply (c, cr, b, gc, rgb);
    }
  free (s);
}

static cairo_status_t
write_fd (void *closure, const unsigned char *data, unsigned int length)
{
  int fd = *(int *) closure;
  while (length)
    {
      ssize_t w = write (fd, data, length);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return CAIRO_STATUS_WRITE_ERROR;
      data += w;
      length -= (unsigned int) w;
    }
  return CAIRO_STATUS_SUCCESS;
}

int
graph_canvas_write_png (GraphCanvas *c, int fd)
{
  cairo_surface_flush (c->img);
  return cairo_surface_write_to_png_stream (c->img, write_fd, &fd)
         == CAIRO_STATUS_SUCCESS ? 0 : -1;
}

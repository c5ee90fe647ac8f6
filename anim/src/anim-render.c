/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "anim-render.h"

#define WIDTH_BUCKETS 12

static void
set_rgb (cairo_t *cr, uint32_t rgb)
{
  cairo_set_source_rgb (cr, ((rgb >> 16) & 255) / 255.0,
                        ((rgb >> 8) & 255) / 255.0, (rgb & 255) / 255.0);
}

static void
grid_dims (int n, double w, double h, int *cols, int *rows, double *cell)
{
  int c = (int) ceil (sqrt (n * w / (h > 1 ? h : 1)));
  if (c < 1)
    c = 1;
  int r = (n + c - 1) / c;
  double cw = w * 0.9 / c, ch = (h - 30) * 0.9 / (r > 0 ? r : 1);
  *cols = c;
  *rows = r;
  *cell = cw < ch ? cw : ch;
}

void
anim_layout_node (int n, double w, double h, int i,
                  double *x, double *y, double *r)
{
  if (n <= ANIM_CIRCLE_MAX)
    {
      double m = w < h ? w : h, big = 0.4 * m;
      double a = -M_PI / 2 + 2 * M_PI * i / (n > 0 ? n : 1);
      *x = w / 2 + big * cos (a);
      *y = h / 2 + big * sin (a);
      /* Neighbours must not touch: chord between them is 2R sin(pi/n). */
      double rr = n > 1 ? 0.4 * big * sin (M_PI / n) : 0.1 * m;
      *r = rr > 24 ? 24 : (rr < 3 ? 3 : rr);
      return;
    }
  int cols, rows;
  double cell;
  grid_dims (n, w, h, &cols, &rows, &cell);
  double ox = (w - cols * cell) / 2, oy = 30 + (h - 30 - rows * cell) / 2;
  *x = ox + (i % cols + 0.5) * cell;
  *y = oy + (i / cols + 0.5) * cell;
  *r = cell * 0.35 < 1.5 ? 1.5 : cell * 0.35;
}

int
anim_layout_hit (int n, double w, double h, double px, double py)
{
  for (int i = 0; i < n; i++)
    {
      double x, y, r;
      anim_layout_node (n, w, h, i, &x, &y, &r);
      double d = r < 6 ? 6 : r;
      if ((px - x) * (px - x) + (py - y) * (py - y) <= d * d)
        return i;
    }
  return -1;
}

double
anim_dot_width (uint64_t bytes)
{
  /* 1 px for tiny messages, +1 px per factor 4 in size, up to 12. */
  double l = bytes > 1 ? log2 ((double) bytes) / 2 : 0;
  double wd = 1 + floor (l);
  return wd > WIDTH_BUCKETS ? WIDTH_BUCKETS : wd;
}

static void
draw_dots (cairo_t *cr, double w, double h, const AnimScene *s)
{
  /* One path per width so 10,000 dots cost a dozen strokes. */
  static const double trail = 0.08;
  int n = s->nprocs;
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  for (int b = 1; b <= WIDTH_BUCKETS; b++)
    {
      int any = 0;
      for (size_t k = 0; k < s->ndots; k++)
        {
          const AnimDotView *d = &s->dots[k];
          if (d->src < 0 || d->src >= n || d->dst < 0 || d->dst >= n
              || (int) anim_dot_width (d->bytes) != b)
            continue;
          double x0, y0, x1, y1, r;
          anim_layout_node (n, w, h, d->src, &x0, &y0, &r);
          anim_layout_node (n, w, h, d->dst, &x1, &y1, &r);
          double f = d->frac < 0 ? 0 : (d->frac > 1 ? 1 : d->frac);
          double ft = f - trail < 0 ? 0 : f - trail;
          cairo_move_to (cr, x0 + (x1 - x0) * ft, y0 + (y1 - y0) * ft);
          cairo_line_to (cr, x0 + (x1 - x0) * f, y0 + (y1 - y0) * f);
          any = 1;
        }
      if (!any)
        continue;
      /* A head at least 5 px wide keeps small messages visible. */
      cairo_set_line_width (cr, b + 4);
      set_rgb (cr, ANIM_DOT_RGB);
      cairo_stroke (cr);
    }
}

static void
draw_info (cairo_t *cr, double w, const AnimScene *s)
{
  if (!s->info || s->ninfo <= 0)
    return;
  double lh = 15, bw = 330, bh = 10 + lh * s->ninfo;
  double x = w - bw - 10, y = 30;
  cairo_set_source_rgba (cr, 0, 0, 0, 0.75);
  cairo_rectangle (cr, x, y, bw, bh);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, 0.9, 0.9, 0.9);
  cairo_set_font_size (cr, 12);
  for (int i = 0; i < s->ninfo; i++)
    {
      cairo_move_to (cr, x + 6, y + 5 + lh * (i + 1) - 3);
      cairo_show_text (cr, s->info[i]);
    }
}

void
anim_render (cairo_t *cr, double w, double h, const AnimScene *s)
{
  int n = s->nprocs;
  cairo_save (cr);
  set_rgb (cr, ANIM_BG_RGB);
  cairo_paint (cr);

  /* Nodes first, grouped by colour would save little: n is small. */
  for (int i = 0; i < n; i++)
    {
      double x, y, r;
      anim_layout_node (n, w, h, i, &x, &y, &r);
      cairo_new_path (cr);
      cairo_arc (cr, x, y, r, 0, 2 * M_PI);
      if (!s->proc_seen || s->proc_seen[i])
        {
          set_rgb (cr, s->proc_rgb ? s->proc_rgb[i] : ANIM_NO_STATE);
          cairo_fill_preserve (cr);
        }
      if (i == s->selected)
        {
          cairo_set_source_rgb (cr, 1, 1, 1);
          cairo_set_line_width (cr, 3);
        }
      else
        {
          cairo_set_source_rgb (cr, 0.55, 0.55, 0.55);
          cairo_set_line_width (cr, 1);
        }
      cairo_stroke (cr);
      if (n <= ANIM_CIRCLE_MAX && r >= 8)
        {
          char lab[16];
          double a = atan2 (y - h / 2, x - w / 2);
          snprintf (lab, sizeof lab, "%d", i);
          cairo_set_font_size (cr, 11);
          cairo_set_source_rgb (cr, 0.8, 0.8, 0.8);
          cairo_move_to (cr, x + cos (a) * (r + 8) - 4,
                         y + sin (a) * (r + 8) + 4);
          cairo_show_text (cr, lab);
        }
    }
  cairo_new_path (cr);
  draw_dots (cr, w, h, s);

  if (s->status)
    {
      cairo_set_font_size (cr, 13);
      cairo_set_source_rgb (cr, 0.9, 0.9, 0.9);
      cairo_move_to (cr, 8, 18);
      cairo_show_text (cr, s->status);
    }
  draw_info (cr, w, s);
  cairo_restore (cr);
}

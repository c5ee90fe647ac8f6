/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim-render.h"

#define WIDTH_MAX 12

static void
set_rgb (cairo_t *cr, uint32_t rgb)
{
  cairo_set_source_rgb (cr, ((rgb >> 16) & 255) / 255.0,
                        ((rgb >> 8) & 255) / 255.0, (rgb & 255) / 255.0);
}

#define LEGEND_LH  16
#define LEGEND_SW  12   /* swatch side */

/* Height kept for the legend at the bottom: a grid of nodes stays above
 * it, and the legend never grows past it. */
static double
legend_band (double h)
{
  double b = 10 + 6 + 10 * LEGEND_LH;
  return b < 0.3 * h ? b : 0.3 * h;
}

static void
grid_dims (int n, double w, double h, int *cols, int *rows, double *cell)
{
  h -= legend_band (h);
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
  double gh = h - legend_band (h);
  double ox = (w - cols * cell) / 2, oy = 30 + (gh - 30 - rows * cell) / 2;
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
  return wd > WIDTH_MAX ? WIDTH_MAX : wd;
}

/* Solid square of side 2 * half + 1 centred on (cx, cy), clipped. */
static void
fill_square (uint32_t *px, int stride, int w, int h, int cx, int cy,
             int half, uint32_t argb)
{
  int x0 = cx - half < 0 ? 0 : cx - half, x1 = cx + half >= w ? w - 1
                                                               : cx + half;
  int y0 = cy - half < 0 ? 0 : cy - half, y1 = cy + half >= h ? h - 1
                                                               : cy + half;
  for (int y = y0; y <= y1; y++)
    {
      uint32_t *row = px + (size_t) y * stride;
      for (int x = x0; x <= x1; x++)
        row[x] = argb;
    }
}

static void
draw_dots (cairo_t *cr, double w, double h, const double *pos,
           const AnimScene *s)
{
  /* Cairo's stroker costs tens of microseconds per segment, too much for
   * 10,000 moving dots at 60 frames/s: the dots are stamped as opaque
   * squares straight into the target when it is an untransformed 32-bit
   * image (the window's frame, a PNG), else into a layer painted once. */
  static const double trail = 0.08, trail_max_px = 24;
  int n = s->nprocs, iw = (int) w, ih = (int) h;
  if (!s->ndots || iw <= 0 || ih <= 0)
    return;
  cairo_surface_t *target = cairo_get_target (cr), *layer = NULL;
  cairo_matrix_t m;
  cairo_get_matrix (cr, &m);
  double ox, oy;
  cairo_surface_get_device_offset (target, &ox, &oy);
  int direct = cairo_surface_get_type (target) == CAIRO_SURFACE_TYPE_IMAGE
               && (cairo_image_surface_get_format (target)
                   == CAIRO_FORMAT_RGB24
                   || cairo_image_surface_get_format (target)
                      == CAIRO_FORMAT_ARGB32)
               && m.xx == 1 && m.yy == 1 && m.xy == 0 && m.yx == 0
               && m.x0 == 0 && m.y0 == 0 && ox == 0 && oy == 0;
  if (direct)
    {
      layer = cairo_surface_reference (target);
      if (cairo_image_surface_get_width (target) < iw)
        iw = cairo_image_surface_get_width (target);
      if (cairo_image_surface_get_height (target) < ih)
        ih = cairo_image_surface_get_height (target);
    }
  else
    layer = cairo_surface_create_similar_image (target, CAIRO_FORMAT_ARGB32,
                                                iw, ih);
  if (cairo_surface_status (layer) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (layer);
      return;
    }
  cairo_surface_flush (layer);
  uint32_t *px = (uint32_t *) cairo_image_surface_get_data (layer);
  int stride = cairo_image_surface_get_stride (layer) / 4;
  const uint32_t argb = 0xff000000u | ANIM_DOT_RGB;
  /* Thousands of dots share a few channels: a stamp already made at the
     same centre with at least the same size this frame is skipped (one
     byte per pixel, cleared per frame; the array is kept, so a frame
     does not fault in fresh pages). */
  static uint8_t *done;
  static size_t done_cap;
  size_t need = (size_t) iw * (size_t) ih;
  if (need > done_cap)
    {
      free (done);
      done = malloc (need);
      done_cap = done ? need : 0;
    }
  if (done)
    memset (done, 0, need);
#define STAMP(cx, cy, hf)                                               \
  do {                                                                  \
    int sx_ = (cx), sy_ = (cy), sh_ = (hf);                             \
    if (sx_ >= 0 && sy_ >= 0 && sx_ < iw && sy_ < ih && done)           \
      {                                                                 \
        uint8_t *m_ = &done[(size_t) sy_ * (size_t) iw + (size_t) sx_]; \
        if (*m_ > sh_)                                                  \
          break;                                                        \
        *m_ = (uint8_t) (sh_ + 1);                                      \
      }                                                                 \
    fill_square (px, stride, iw, ih, sx_, sy_, sh_, argb);              \
  } while (0)
  for (size_t k = 0; k < s->ndots; k++)
    {
      const AnimDotView *d = &s->dots[k];
      if (d->src < 0 || d->src >= n || d->dst < 0 || d->dst >= n)
        continue;
      double x0 = pos[2 * d->src], y0 = pos[2 * d->src + 1];
      double dx = pos[2 * d->dst] - x0, dy = pos[2 * d->dst + 1] - y0;
      double f = d->frac < 0 ? 0 : (d->frac > 1 ? 1 : d->frac);
      double len = sqrt (dx * dx + dy * dy);
      double tl = trail * len < trail_max_px ? trail * len : trail_max_px;
      double ft = len > 0 ? f - tl / len : f;
      if (ft < 0)
        ft = 0;
      /* Head at least 3 px wide so small messages stay visible; the
       * trail is one pixel thinner.  Coordinates are >= 0 (the layout
       * is inside the window), so + 0.5 and a cast round them. */
      int half = (int) (anim_dot_width (d->bytes) + 2) / 2;
      double seg = (f - ft) * len;
      int steps = (int) (seg / (half > 1 ? half : 1));
      for (int i = 1; i <= steps; i++)
        {
          double g = f - (f - ft) * i / steps;
          STAMP ((int) (x0 + dx * g + 0.5), (int) (y0 + dy * g + 0.5),
                 half > 1 ? half - 1 : half);
        }
      STAMP ((int) (x0 + dx * f + 0.5), (int) (y0 + dy * f + 0.5), half);
    }
#undef STAMP
  cairo_surface_mark_dirty (layer);
  if (!direct)
    {
      cairo_set_source_surface (cr, layer, 0, 0);
      cairo_paint (cr);
    }
  cairo_surface_destroy (layer);
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

static void
draw_legend (cairo_t *cr, double w, double h, const AnimScene *s)
{
  /* "not connected" only where nodes can be hollow (live). */
  static const char *const fixed_all[] = {
    "no state", "not connected", "message (wider: larger)",
    "solo events: click a rank (history)"
  };
  static const char *const fixed_replay[] = {
    "no state", "message (wider: larger)",
    "solo events: click a rank (history)"
  };
  const char *const *fixed = s->proc_seen ? fixed_all : fixed_replay;
  const int nfixed = s->proc_seen ? 4 : 3;
  int rows_max = (int) ((legend_band (h) - 16) / LEGEND_LH) - nfixed;
  if (rows_max < 1)
    rows_max = 1;
  int nshow = s->nlegend, more = 0;
  if (nshow > rows_max)
    {
      nshow = rows_max - 1 > 0 ? rows_max - 1 : 0;
      more = s->nlegend - nshow;
    }
  int rows = nshow + (more > 0) + nfixed;
  char more_txt[48];
  snprintf (more_txt, sizeof more_txt, "+%d more states", more);
  cairo_set_font_size (cr, 12);
  double tw = 0;
  cairo_text_extents_t te;
  for (int i = 0; i < nshow + (more > 0) + nfixed; i++)
    {
      const char *t = i < nshow ? s->legend[i].name
                      : (more > 0 && i == nshow) ? more_txt
                      : fixed[i - nshow - (more > 0)];
      cairo_text_extents (cr, t ? t : "", &te);
      if (te.x_advance > tw)
        tw = te.x_advance;
    }
  double bw = 8 + LEGEND_SW + 6 + (tw > 260 ? 260 : tw) + 8;
  double bh = 6 + rows * LEGEND_LH, x = 10, y = h - 10 - bh;
  if (y < 30)
    y = 30;
  cairo_save (cr);
  cairo_rectangle (cr, x, y, bw, bh);
  cairo_clip_preserve (cr);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.6);
  cairo_fill (cr);
  for (int i = 0; i < rows; i++)
    {
      double ry = y + 3 + i * LEGEND_LH, sx = x + 8;
      double sy = ry + (LEGEND_LH - LEGEND_SW) / 2.0;
      const char *t;
      if (i < nshow)
        {
          t = s->legend[i].name ? s->legend[i].name : "";
          set_rgb (cr, s->legend[i].rgb);
          cairo_rectangle (cr, sx, sy, LEGEND_SW, LEGEND_SW);
          cairo_fill (cr);
        }
      else if (more > 0 && i == nshow)
        t = more_txt;
      else
        {
          int k = i - nshow - (more > 0);
          t = fixed[k];
          if (k >= 1 && !s->proc_seen)
            k++;
          if (k == 0)
            {
              set_rgb (cr, ANIM_NO_STATE);
              cairo_rectangle (cr, sx, sy, LEGEND_SW, LEGEND_SW);
              cairo_fill (cr);
            }
          else if (k == 1)
            {
              cairo_set_source_rgb (cr, 0.55, 0.55, 0.55);
              cairo_set_line_width (cr, 1);
              cairo_new_path (cr);
              cairo_arc (cr, sx + LEGEND_SW / 2.0, sy + LEGEND_SW / 2.0,
                         LEGEND_SW / 2.0 - 0.5, 0, 2 * M_PI);
              cairo_stroke (cr);
            }
          else if (k == 2)
            {
              set_rgb (cr, ANIM_DOT_RGB);
              cairo_rectangle (cr, sx, sy + LEGEND_SW / 2.0 - 2, LEGEND_SW,
                               4);
              cairo_fill (cr);
            }
        }
      cairo_set_source_rgb (cr, 0.9, 0.9, 0.9);
      cairo_move_to (cr, sx + LEGEND_SW + 6, ry + LEGEND_LH - 4);
      cairo_show_text (cr, t);
    }
  cairo_restore (cr);
}

void
anim_scene_write_text (FILE *f, const AnimScene *s)
{
  if (s->status)
    fprintf (f, "status: %s\n", s->status);
  for (int i = 0; s->legend && i < s->nlegend; i++)
    fprintf (f, "legend: %s #%06x\n", s->legend[i].name ? s->legend[i].name
                                                         : "",
             (unsigned) s->legend[i].rgb);
  for (int i = 0; s->info && i < s->ninfo; i++)
    fprintf (f, "info: %s\n", s->info[i]);
}

void
anim_render (cairo_t *cr, double w, double h, const AnimScene *s)
{
  int n = s->nprocs;
  cairo_save (cr);
  set_rgb (cr, ANIM_BG_RGB);
  cairo_paint (cr);

  double *pos = malloc (2 * sizeof (double) * (n > 0 ? n : 1));
  if (!pos)
    {
      cairo_restore (cr);
      return;
    }
  for (int i = 0; i < n; i++)
    {
      double x, y, r;
      anim_layout_node (n, w, h, i, &x, &y, &r);
      pos[2 * i] = x;
      pos[2 * i + 1] = y;
      int filled = !s->proc_seen || s->proc_seen[i];
      uint32_t rgb = s->proc_rgb ? s->proc_rgb[i] : ANIM_NO_STATE;
      if (n > ANIM_CIRCLE_MAX)
        {
          /* Many processes: pixel-aligned squares, which cairo fills
           * on a fast path (arcs cost ~30 us each). */
          double side = floor (2 * r), x0 = floor (x - r), y0 = floor (y - r);
          cairo_rectangle (cr, x0, y0, side, side);
          if (filled)
            {
              set_rgb (cr, rgb);
              cairo_fill (cr);
            }
          else
            cairo_new_path (cr);
          if (i == s->selected)
            {
              cairo_set_source_rgb (cr, 1, 1, 1);
              cairo_set_line_width (cr, 2);
              cairo_rectangle (cr, x0 - 1, y0 - 1, side + 2, side + 2);
              cairo_stroke (cr);
            }
          continue;
        }
      cairo_new_path (cr);
      cairo_arc (cr, x, y, r, 0, 2 * M_PI);
      if (filled)
        {
          set_rgb (cr, rgb);
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
      if (r >= 8)
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
  draw_dots (cr, w, h, pos, s);
  free (pos);

  if (s->status)
    {
      cairo_set_font_size (cr, 13);
      cairo_set_source_rgb (cr, 0.9, 0.9, 0.9);
      cairo_move_to (cr, 8, 18);
      cairo_show_text (cr, s->status);
    }
  draw_info (cr, w, s);
  draw_legend (cr, w, h, s);
  cairo_restore (cr);
}

/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>

#include <pango/pangocairo.h>

#include "mv-draw-matrix.h"
#include "../model/mv-view.h"

#define M_LEFT 64.0
#define M_TOP 34.0
#define M_PAD 8.0

void
mv_matrix_layout (MvMatrixLayout *l, double w, double h)
{
  l->x = M_LEFT;
  l->y = M_TOP;
  l->side = floor (MAX (MIN (w - M_LEFT - M_PAD, h - M_TOP - M_PAD), 1.0));
}

guint
mv_matrix_layout_blocks (const MvMatrixLayout *l)
{
  return (guint) MAX (l->side, 1.0);
}

/* Light yellow -> orange -> dark red along f in (0, 1]. */
static void
heat (double f, guint8 rgb[3])
{
  static const double stops[3][3] = {
    { 1.00, 0.93, 0.62 }, { 0.96, 0.45, 0.13 }, { 0.40, 0.02, 0.08 }
  };
  double p = f * 2;
  int k = p >= 1 ? 1 : 0;
  double u = p - k;
  for (int c = 0; c < 3; c++)
    rgb[c] = (guint8) lround (255 * (stops[k][c] * (1 - u)
                                     + stops[k + 1][c] * u));
}

void
mv_matrix_format (MvMatrixWhat what, double v, char *buf, gsize len)
{
  if (what == MV_MATRIX_TIME)
    mv_format_duration ((guint64) llround (v), buf, len);
  else if (what == MV_MATRIX_BYTES)
    {
      char *s = g_format_size ((guint64) llround (v));
      g_snprintf (buf, len, "%s", s);
      g_free (s);
    }
  else
    g_snprintf (buf, len, "%.0f", v);
}

static void
text (cairo_t *cr, PangoLayout *pl, const char *s, double x, double y,
      double align)
{
  int tw, th;
  pango_layout_set_text (pl, s, -1);
  pango_layout_get_pixel_size (pl, &tw, &th);
  cairo_move_to (cr, x - align * tw, y);
  pango_cairo_show_layout (cr, pl);
}

void
mv_draw_matrix (cairo_t *cr, const MvMatrixGrid *g, const MvMatrixLayout *l,
                MvMatrixWhat what, int sel_i, int sel_j)
{
  cairo_save (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  if (g == NULL || g->n == 0)
    {
      cairo_restore (cr);
      return;
    }
  /* One pixel per block in an image, scaled up without smoothing. */
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                     (int) g->n, (int) g->n);
  int stride = cairo_image_surface_get_stride (img);
  guint8 *px = cairo_image_surface_get_data (img);
  double lmax = log1p (g->vmax);
  for (guint i = 0; i < g->n; i++)
    {
      guint32 *row = (guint32 *) (px + (gsize) i * stride);
      for (guint j = 0; j < g->n; j++)
        {
          double v = g->v[(gsize) i * g->n + j];
          guint8 c[3] = { 0xf1, 0xf2, 0xf4 };
          if (v > 0)
            heat (lmax > 0 ? MAX (log1p (v) / lmax, 0.05) : 1, c);
          row[j] = ((guint32) c[0] << 16) | ((guint32) c[1] << 8) | c[2];
        }
    }
  cairo_surface_mark_dirty (img);
  cairo_save (cr);
  cairo_translate (cr, l->x, l->y);
  cairo_scale (cr, l->side / g->n, l->side / g->n);
  cairo_set_source_surface (cr, img, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_rectangle (cr, 0, 0, g->n, g->n);
  cairo_fill (cr);
  cairo_restore (cr);
  cairo_surface_destroy (img);

  cairo_set_line_width (cr, 1);
  cairo_set_source_rgb (cr, 0.55, 0.57, 0.60);
  cairo_rectangle (cr, l->x - 0.5, l->y - 0.5, l->side + 1, l->side + 1);
  cairo_stroke (cr);
  if (sel_i >= 0 && sel_j >= 0)
    {
      double sb = l->side / g->n;
      cairo_set_source_rgb (cr, 0.18, 0.44, 0.87);
      cairo_set_line_width (cr, 2);
      cairo_rectangle (cr, l->x + sel_j * sb - 1, l->y + sel_i * sb - 1,
                       MAX (sb, 1) + 2, MAX (sb, 1) + 2);
      cairo_stroke (cr);
    }

  /* Axes: first and last rank on each side, and what the cells hold. */
  PangoLayout *pl = pango_cairo_create_layout (cr);
  PangoFontDescription *fd = pango_font_description_from_string ("Sans 8");
  pango_layout_set_font_description (pl, fd);
  pango_font_description_free (fd);
  char buf[96], vb[48];
  double b = l->side / g->n;
  /* Cells with room show their value, light on the dark cells. */
  if (b >= 36)
    for (guint i = 0; i < g->n; i++)
      for (guint j = 0; j < g->n; j++)
        {
          double v = g->v[(gsize) i * g->n + j];
          if (v <= 0)
            continue;
          double f = lmax > 0 ? MAX (log1p (v) / lmax, 0.05) : 1;
          mv_matrix_format (what, v, vb, sizeof vb);
          int tw, th;
          pango_layout_set_text (pl, vb, -1);
          pango_layout_get_pixel_size (pl, &tw, &th);
          if (tw > b - 4)
            continue;
          if (f > 0.45)
            cairo_set_source_rgb (cr, 1, 1, 1);
          else
            cairo_set_source_rgb (cr, 0.12, 0.14, 0.16);
          text (cr, pl, vb, l->x + (j + 0.5) * b, l->y + (i + 0.5) * b
                                                  - th / 2.0, 0.5);
        }
  cairo_set_source_rgb (cr, 0.25, 0.27, 0.30);
  /* Rank labels where there is room (24 px apart across, 16 down):
   * every rank, every other..., always the first and the last. */
  guint last = g->nranks ? g->nranks - 1 : 0;
  double per_rank = g->nranks ? l->side / g->nranks : l->side;
  for (int axis = 0; axis < 2; axis++)
    {
      double gap = axis == 0 ? 24 : 16;
      guint step = 1;
      while (step * per_rank < gap && step < G_MAXUINT / 2)
        step *= 2;
      for (guint r = 0; r <= last; r += step)
        {
          /* Grouped: the last rank goes at the very end, clear of it. */
          if (step > 1 && r != 0 && (last - r) * per_rank < gap * 1.5)
            break;
          g_snprintf (buf, sizeof buf, "%u", r);
          double c = (r + 0.5) * per_rank;
          if (axis == 0)
            text (cr, pl, buf, l->x + c, l->y - 14, 0.5);
          else
            text (cr, pl, buf, l->x - 4, l->y + c - 6, 1);
        }
      if (step > 1)
        {
          g_snprintf (buf, sizeof buf, "%u", last);
          if (axis == 0)
            text (cr, pl, buf, l->x + l->side, l->y - 14, 1);
          else
            text (cr, pl, buf, l->x - 4, l->y + l->side - 12, 1);
        }
    }
  /* The colour scale (logarithmic), from 1 to the maximum. */
  for (int k = 0; k < 80; k++)
    {
      guint8 c[3];
      heat (MAX ((k + 0.5) / 80, 0.05), c);
      cairo_set_source_rgb (cr, c[0] / 255.0, c[1] / 255.0, c[2] / 255.0);
      cairo_rectangle (cr, l->x + 24 + k, l->y - 27, 1, 9);
      cairo_fill (cr);
    }
  cairo_set_source_rgb (cr, 0.25, 0.27, 0.30);
  text (cr, pl, "1", l->x + 20, l->y - 29, 1);
  text (cr, pl, "max (log)", l->x + 108, l->y - 29, 0);
  text (cr, pl, "to →", l->x + l->side / 2, l->y - 28, 0.5);
  text (cr, pl, "from ↓", l->x - 4, l->y - 14, 1);
  mv_matrix_format (what, g->vmax, vb, sizeof vb);
  if (g->group > 1)
    g_snprintf (buf, sizeof buf, "max %s  ·  %u ranks per pixel", vb,
                g->group);
  else
    g_snprintf (buf, sizeof buf, "max %s", vb);
  text (cr, pl, buf, l->x + l->side, l->y - 28, 1);
  g_object_unref (pl);
  cairo_restore (cr);
}

gboolean
mv_matrix_hit (const MvMatrixGrid *g, const MvMatrixLayout *l, double x,
               double y, guint *i, guint *j)
{
  if (g == NULL || g->n == 0 || x < l->x || y < l->y
      || x >= l->x + l->side || y >= l->y + l->side)
    return FALSE;
  double b = l->side / g->n;
  *i = MIN ((guint) ((y - l->y) / b), g->n - 1);
  *j = MIN ((guint) ((x - l->x) / b), g->n - 1);
  return TRUE;
}

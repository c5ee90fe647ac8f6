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
      double b = l->side / g->n;
      cairo_set_source_rgb (cr, 0.18, 0.44, 0.87);
      cairo_set_line_width (cr, 2);
      cairo_rectangle (cr, l->x + sel_j * b - 1, l->y + sel_i * b - 1,
                       MAX (b, 1) + 2, MAX (b, 1) + 2);
      cairo_stroke (cr);
    }

  /* Axes: first and last rank on each side, and what the cells hold. */
  PangoLayout *pl = pango_cairo_create_layout (cr);
  PangoFontDescription *fd = pango_font_description_from_string ("Sans 8");
  pango_layout_set_font_description (pl, fd);
  pango_font_description_free (fd);
  char buf[96], vb[48];
  cairo_set_source_rgb (cr, 0.25, 0.27, 0.30);
  g_snprintf (buf, sizeof buf, "%u", g->nranks ? g->nranks - 1 : 0);
  text (cr, pl, "0", l->x, l->y - 14, 0);
  text (cr, pl, buf, l->x + l->side, l->y - 14, 1);
  text (cr, pl, "0", l->x - 4, l->y, 1);
  text (cr, pl, buf, l->x - 4, l->y + l->side - 12, 1);
  text (cr, pl, "to →", l->x + l->side / 2, l->y - 28, 0.5);
  text (cr, pl, "from ↓", l->x - 4, l->y + l->side / 2 - 6, 1);
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

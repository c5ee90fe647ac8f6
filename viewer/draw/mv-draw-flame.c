/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>

#include <pango/pangocairo.h>

#include "mv-draw-flame.h"

double
mv_flame_level_h (const MvFlame *fl, double h)
{
  return MIN (MV_FLAME_BOX_H, h / (fl->max_depth + 1));
}

const MvFlameBox *
mv_flame_box_at (const MvFlame *fl, double w, double h, double x, double y)
{
  double lh = mv_flame_level_h (fl, h);
  if (x < 0 || y < 0 || w <= 0 || lh <= 0)
    return NULL;
  return mv_flame_hit (fl, x / w, (guint) (y / lh));
}

/* TRUE if a is n or one of n's ancestors, or under n. */
static gboolean
related (const MvFlame *fl, guint32 n, guint32 a)
{
  if (fl->pre[n] <= fl->pre[a] && fl->pre[a] < fl->post[n])
    return TRUE;
  return fl->pre[a] <= fl->pre[n] && fl->pre[n] < fl->post[a];
}

void
mv_draw_flame (cairo_t *cr, const MvFlame *fl, double w, double h,
               guint32 selected)
{
  double lh = mv_flame_level_h (fl, h);
  cairo_save (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  PangoLayout *pl = pango_cairo_create_layout (cr);
  PangoFontDescription *fd = pango_font_description_from_string ("Sans 8");
  pango_layout_set_font_description (pl, fd);
  pango_font_description_free (fd);
  pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
  const MvFlameBox *sel = NULL;
  for (guint i = 0; i < fl->boxes->len; i++)
    {
      const MvFlameBox *b = &g_array_index (fl->boxes, MvFlameBox, i);
      double x0 = round (b->x0 * w), x1 = round (b->x1 * w);
      if (x1 - x0 < 1)
        {
          /* Thinner than a pixel: a hairline unless it rounds away. */
          if (b->x1 * w - b->x0 * w < 0.25)
            continue;
          x1 = x0 + 1;
        }
      double y = floor (b->depth * lh);
      const cp_node_t *x = &fl->tree->nodes[b->node];
      guint32 c = b->node == 0 ? 0xd0d3d8u : mv_sample_func_rgb (x->frame.func);
      double r = ((c >> 16) & 0xff) / 255.0, g = ((c >> 8) & 0xff) / 255.0,
             bl = (c & 0xff) / 255.0;
      if (selected && !related (fl, selected, b->node))
        {
          /* Faded towards white: not on the selected context's path. */
          r = 0.55 + 0.45 * r;
          g = 0.55 + 0.45 * g;
          bl = 0.55 + 0.45 * bl;
        }
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
      cairo_set_source_rgb (cr, r, g, bl);
      cairo_rectangle (cr, x0, y, x1 - x0 - (x1 - x0 > 3 ? 1 : 0),
                       MAX (floor (lh) - 1, 1));
      cairo_fill (cr);
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
      if (b->node == selected && selected)
        sel = b;
      if (x1 - x0 >= 24 && lh >= 12)
        {
          pango_layout_set_text (pl, x->frame.func, -1);
          pango_layout_set_width (pl, (int) ((x1 - x0 - 6) * PANGO_SCALE));
          int tw, th;
          pango_layout_get_pixel_size (pl, &tw, &th);
          cairo_set_source_rgb (cr, 0.08, 0.08, 0.10);
          cairo_move_to (cr, x0 + 3, y + (lh - 1 - th) / 2);
          pango_cairo_show_layout (cr, pl);
        }
    }
  if (sel)
    {
      guint32 c = MV_FLAME_SELECTED_RGB;
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
      cairo_set_source_rgb (cr, ((c >> 16) & 0xff) / 255.0,
                            ((c >> 8) & 0xff) / 255.0, (c & 0xff) / 255.0);
      cairo_set_line_width (cr, 2);
      double x0 = round (sel->x0 * w), x1 = MAX (round (sel->x1 * w), x0 + 2);
      cairo_rectangle (cr, x0 + 1, floor (sel->depth * lh) + 1, x1 - x0 - 2,
                       MAX (floor (lh) - 2, 1));
      cairo_stroke (cr);
    }
  g_object_unref (pl);
  cairo_restore (cr);
}

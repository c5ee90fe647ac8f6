/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>
#include <wchar.h>
#include <string.h>

#include <pango/pangocairo.h>

#include "mv-draw.h"
#include "mv-draw-sched.h"
#include "mv-draw-samples.h"
#include "../model/mv-restracks.h"
#include "../model/mv-view.h"

/* A quiet light palette: dark text on white. */
#define C_BG        0xffffff
#define C_ROW_ALT   0xf5f6f8
#define C_GROUP_BG  0xe6ebf2   /* a group's header row (its aggregate) */
#define C_RULE      0xd9dce1
#define C_TEXT      0x1f2328
#define C_TEXT_DIM  0x6a737d
#define C_ARROW     0x1f2937
#define C_SEL       0x2f6fde
#define C_NOTE      0x7a4b00
#define C_NOTE_BG   0xfff4d6
#define C_COUNTER   MV_COUNTER_RGB
#define C_WAIT      MV_WAIT_HATCH_RGB

static void
set_rgb (cairo_t *cr, guint32 c)
{
  cairo_set_source_rgb (cr, ((c >> 16) & 0xff) / 255.0,
                        ((c >> 8) & 0xff) / 255.0, (c & 0xff) / 255.0);
}

static void
set_rgba (cairo_t *cr, guint32 c, double a)
{
  cairo_set_source_rgba (cr, ((c >> 16) & 0xff) / 255.0,
                         ((c >> 8) & 0xff) / 255.0, (c & 0xff) / 255.0, a);
}

static guint32
darker (guint32 c)
{
  guint r = ((c >> 16) & 0xff) * 6 / 10, g = ((c >> 8) & 0xff) * 6 / 10,
        b = (c & 0xff) * 6 / 10;
  return r << 16 | g << 8 | b;
}

static PangoLayout *
make_layout (cairo_t *cr, const char *font)
{
  PangoLayout *pl = pango_cairo_create_layout (cr);
  PangoFontDescription *fd = pango_font_description_from_string (font);
  pango_layout_set_font_description (pl, fd);
  pango_font_description_free (fd);
  return pl;
}

static void
text_at (cairo_t *cr, PangoLayout *pl, const char *s, double x, double y,
         double align /* 0 left, 0.5 centre, 1 right */, guint32 color)
{
  int w, h;
  pango_layout_set_text (pl, s, -1);
  pango_layout_get_pixel_size (pl, &w, &h);
  set_rgb (cr, color);
  cairo_move_to (cr, round (x - align * w), round (y - h / 2.0));
  pango_cairo_show_layout (cr, pl);
}

static void mv_layout_compute_legend (MvLayout *l, const MvLog *log,
                                      double w, double h, gboolean legend,
                                      guint layers);

guint
mv_legend_layer_items (gboolean sched, gboolean counter, gboolean samples)
{
  return (sched ? 2 : 0) + (counter ? 1 : 0)
         + (samples ? MV_LEGEND_SAMPLE_FUNCS : 0);
}

/* The legend's own entries besides the states and events: loss records
 * (when the log has some). */
static guint
legend_log_items (const MvLog *log)
{
  return log->info->lost_events > 0 ? 1 : 0;
}

void
mv_layout_compute (MvLayout *l, const MvLog *log, double w, double h,
                   gboolean legend)
{
  mv_layout_compute_legend (l, log, w, h, legend, 0);
}

void
mv_layout_compute_layers (MvLayout *l, const MvLog *log, double w, double h,
                          guint layers)
{
  mv_layout_compute_legend (l, log, w, h, TRUE, layers);
}

static void
mv_layout_compute_legend (MvLayout *l, const MvLog *log, double w, double h,
                          gboolean legend, guint layers)
{
  memset (l, 0, sizeof *l);
  l->width = w;
  l->height = h;
  l->label_w = log && log->max_threads > 1 ? 118 : 96;
  /* From 1000 ranks rows are grouped by rank range: room for the
   * widest "▸ ranks 9728-9983" (about 7.5 px a character at the labels'
   * size, after the triangle and indent). */
  gint32 top = log && log->nrows ? log->rows[log->nrows - 1].rank : 0;
  for (guint i = 0; log && i < log->nrows; i++)
    top = MAX (top, log->rows[i].rank);
  int digits = 1;
  for (gint32 r = top; r >= 10; r /= 10)
    digits++;
  if (digits >= 4)
    l->label_w = MAX (l->label_w, ceil (18 + 7.5 * (7 + 2 * digits)));
  l->ruler_h = 30;
  if (legend && log)
    {
      /* Legend rows of ~170 px items. */
      guint items = log->nstates + log->nevdefs + legend_log_items (log)
                    + layers;
      guint per_row = MAX ((guint) ((w - 24) / 170), 1u);
      guint rows = (items + per_row - 1) / per_row;
      l->legend_h = rows ? 14 + rows * 20 : 0;
    }
  l->plot_x = l->label_w;
  l->plot_y = l->ruler_h;
  l->plot_w = MAX (w - l->label_w - 12, 1);
  l->plot_h = MAX (h - l->ruler_h - l->legend_h, 1);
}

double
mv_layout_fit_row_h_for (double plot_h, const MvLog *log)
{
  if (log == NULL || log->nrows == 0)
    return MV_DRAW_ROW_H;
  return MIN (MV_DRAW_ROW_MAX_H, plot_h / log->nrows);
}

double
mv_layout_fit_row_h_slots (double plot_h, guint nslots)
{
  if (nslots == 0)
    return MV_DRAW_ROW_H;
  return MIN (MV_DRAW_ROW_MAX_H, plot_h / nslots);
}

double
mv_layout_fit_row_h (const MvLayout *l, const MvLog *log)
{
  return mv_layout_fit_row_h_for (l->plot_h, log);
}

/* ---- plot -------------------------------------------------------------- */

/* Direct pixel access for opaque, pixel-aligned boxes on an image
 * surface: 10,000 spans cost cairo's box path several ms, plain stores a
 * fraction of that.  Only when user space is the device space shifted by
 * whole pixels and the clip is one rectangle; else cairo draws. */
typedef struct
{
  guint32 *px;
  int      stride;              /* in pixels */
  int      dx, dy;              /* user -> device offset */
  int      cx0, cy0, cx1, cy1;  /* clip, device pixels */
} Pixels;

static gboolean
pixels_get (cairo_t *cr, Pixels *p)
{
  cairo_surface_t *t = cairo_get_target (cr);
  if (cairo_surface_get_type (t) != CAIRO_SURFACE_TYPE_IMAGE)
    return FALSE;
  cairo_format_t f = cairo_image_surface_get_format (t);
  if (f != CAIRO_FORMAT_ARGB32 && f != CAIRO_FORMAT_RGB24)
    return FALSE;
  cairo_matrix_t m;
  cairo_get_matrix (cr, &m);
  double ox, oy;
  cairo_surface_get_device_offset (t, &ox, &oy);
  double tx = m.x0 + ox, ty = m.y0 + oy;
  if (m.xx != 1 || m.yy != 1 || m.xy != 0 || m.yx != 0
      || tx != floor (tx) || ty != floor (ty))
    return FALSE;
  cairo_rectangle_list_t *cl = cairo_copy_clip_rectangle_list (cr);
  gboolean okay = cl->status == CAIRO_STATUS_SUCCESS && cl->num_rectangles == 1;
  if (okay)
    {
      const cairo_rectangle_t *c = &cl->rectangles[0];
      p->cx0 = (int) floor (c->x + tx);
      p->cy0 = (int) floor (c->y + ty);
      p->cx1 = (int) ceil (c->x + c->width + tx);
      p->cy1 = (int) ceil (c->y + c->height + ty);
    }
  cairo_rectangle_list_destroy (cl);
  if (!okay)
    return FALSE;
  cairo_surface_flush (t);
  p->px = (guint32 *) cairo_image_surface_get_data (t);
  p->stride = cairo_image_surface_get_stride (t) / 4;
  p->dx = (int) tx;
  p->dy = (int) ty;
  p->cx0 = MAX (p->cx0, 0);
  p->cy0 = MAX (p->cy0, 0);
  p->cx1 = MIN (p->cx1, cairo_image_surface_get_width (t));
  p->cy1 = MIN (p->cy1, cairo_image_surface_get_height (t));
  return p->px != NULL && p->cx0 < p->cx1 && p->cy0 < p->cy1;
}

/* How far a summary lane's colour stays inside its row, top and bottom. */
static double
lane_inset (double h)
{
  return h >= 8 ? 3 : h >= 4 ? 1 : 0;
}

/* Lanes are stored straight into an image target: each pixel row whose
 * centre lies in the lane (what cairo fills on whole pixels) gets the
 * lane's row.  A cairo fill per lane, stretching an image row through a
 * transformed pattern, cost most of a frame of a few hundred lanes
 * (100,000 processes in rank ranges).  Returns FALSE, drawing nothing,
 * where the target is not such an image (a vector target: cairo draws
 * every lane). */
static gboolean
summary_lanes_direct (cairo_t *cr, const MvScene *s, double w)
{
  Pixels px;
  int iw = s->p.width;
  if (iw != w || !pixels_get (cr, &px))
    return FALSE;
  int x0 = MAX (px.dx, px.cx0), x1 = MIN (iw + px.dx, px.cx1);
  for (guint i = 0; i < s->nlanes; i++)
    {
      const MvLane *l = &s->lanes[i];
      if (l->pixels == NULL)
        continue;
      double in = lane_inset (l->h);
      int ya = (int) floor (l->y + in + 0.5) + px.dy;
      int yb = (int) floor (l->y + l->h - in + 0.5) + px.dy;
      ya = MAX (ya, px.cy0);
      yb = MIN (yb, px.cy1);
      const guint32 *src = l->pixels - px.dx;
      for (int y = ya; y < yb; y++)
        {
          guint32 *row = px.px + (size_t) y * px.stride;
          for (int x = x0; x < x1; x++)
            if (src[x] != MV_SCENE_BG_RGB)
              row[x] = 0xff000000u | src[x];
        }
    }
  cairo_surface_mark_dirty (cairo_get_target (cr));
  return TRUE;
}

static void
draw_summary_lanes (cairo_t *cr, const MvScene *s, double w, double h)
{
  /* One image row per lane (not per pixel row): small to fill, then
   * each lane's row is stretched over the lane's height. */
  int iw = s->p.width, n = (int) s->nlanes;
  if (iw <= 0 || n <= 0 || summary_lanes_direct (cr, s, w))
    return;
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                     iw, n);
  cairo_surface_flush (img);
  guint8 *data = cairo_image_surface_get_data (img);
  int stride = cairo_image_surface_get_stride (img);
  for (int i = 0; i < n; i++)
    {
      const MvLane *l = &s->lanes[i];
      guint32 *row = (guint32 *) (data + (gsize) i * stride);
      for (int x = 0; x < iw; x++)
        row[x] = l->pixels == NULL || l->pixels[x] == MV_SCENE_BG_RGB
                 ? 0 : 0xff000000u | l->pixels[x];
    }
  cairo_surface_mark_dirty (img);
  cairo_save (cr);
  cairo_scale (cr, w / iw, 1);
  cairo_pattern_t *pat = cairo_pattern_create_for_surface (img);
  cairo_pattern_set_filter (pat, CAIRO_FILTER_NEAREST);
  for (int i = 0; i < n; i++)
    {
      const MvLane *l = &s->lanes[i];
      double in = lane_inset (l->h);
      double y0 = l->y + in, hh = l->h - 2 * in;
      if (hh <= 0 || y0 > h || y0 + hh < 0)
        continue;
      /* Image row i stretched over [y0, y0 + hh). */
      cairo_matrix_t m;
      cairo_matrix_init (&m, 1, 0, 0, 1 / hh, 0, i - y0 / hh);
      cairo_pattern_set_matrix (pat, &m);
      cairo_set_source (cr, pat);
      cairo_rectangle (cr, 0, y0, iw, hh);
      cairo_fill (cr);
    }
  cairo_pattern_destroy (pat);
  cairo_restore (cr);
  cairo_surface_destroy (img);
}

typedef struct
{
  double   x, y, w, h;
  gboolean outline;
} Rect;

static void
pixels_fill (const Pixels *p, double x, double y, double w, double h,
             guint32 rgb)
{
  int x0 = MAX ((int) x + p->dx, p->cx0), x1 = MIN ((int) (x + w) + p->dx,
                                                    p->cx1);
  int y0 = MAX ((int) y + p->dy, p->cy0), y1 = MIN ((int) (y + h) + p->dy,
                                                    p->cy1);
  guint32 v = 0xff000000u | rgb;
  if (x1 <= x0)
    return;
  for (int yy = y0; yy < y1; yy++)
    {
      guint32 *row = p->px + (size_t) yy * p->stride;
#if WCHAR_MAX == 0x7fffffff
      /* glibc's wmemset stores 32-bit words with vector stores; this
       * loop was a store a pixel (a tenth of a deep view's frame). */
      wmemset ((wchar_t *) (void *) (row + x0), (wchar_t) v,
               (size_t) (x1 - x0));
#else
      for (int xx = x0; xx < x1; xx++)
        row[xx] = v;
#endif
    }
}

/* The 1-px border just inside the box, as cairo strokes it. */
static void
pixels_outline (const Pixels *p, double x, double y, double w, double h,
                guint32 rgb)
{
  pixels_fill (p, x, y, w, 1, rgb);
  pixels_fill (p, x, y + h - 1, w, 1, rgb);
  pixels_fill (p, x, y + 1, 1, h - 2, rgb);
  pixels_fill (p, x + w - 1, y + 1, 1, h - 2, rgb);
}

/* All lanes' spans, depth by depth (nested ones on top), one fill per
 * state and depth: a few cairo calls instead of several per span. */
static void
draw_spans (cairo_t *cr, const MvScene *s, const MvDrawOpts *o)
{
  Pixels px;
  gboolean direct = pixels_get (cr, &px);
  const MvLog *log = s->log;
  guint ns = log->nstates;
  GArray **rects = g_new0 (GArray *, ns + 1);
  guint *cur = g_new0 (guint, MAX (s->nlanes, 1));
  cairo_set_line_width (cr, 1);
  for (guint d = 0; d <= s->max_depth; d++)
    {
      for (guint i = 0; i < s->nlanes; i++)
        {
          const MvLane *l = &s->lanes[i];
          if (l->spans == NULL)
            continue;
          double in = mv_scene_depth_inset (l->h, d);
          double y = l->y + in, hh = l->h - 2 * in;
          for (; cur[i] < l->spans->len; cur[i]++)
            {
              const MvSpan *sp = &g_array_index (l->spans, MvSpan, cur[i]);
              if (sp->depth != d)
                break;
              if (hh <= 0)
                continue;
              guint k = sp->state >= 0 && (guint) sp->state < ns
                        ? (guint) sp->state : ns;
              /* Whole pixels: cairo fills aligned boxes without
               * rasterising polygons (several times faster). */
              double x0 = floor (sp->x0 + 0.5);
              double x1 = MAX (floor (sp->x1 + 0.5), x0 + 1.0);
              Rect r = { x0, round (y), x1 - x0, round (y + hh) - round (y),
                         (x1 - x0) >= 4 && hh >= 6 };
              if (rects[k] == NULL)
                rects[k] = g_array_new (FALSE, FALSE, sizeof (Rect));
              g_array_append_val (rects[k], r);
            }
        }
      for (guint k = 0; k <= ns; k++)
        {
          if (rects[k] == NULL || rects[k]->len == 0)
            continue;
          const logfmt_state_def_t *def = k < ns ? mv_log_state (log, k)
                                                 : NULL;
          guint32 c = def ? def->rgb : 0x888888;
          gboolean outline = FALSE;
          if (direct)
            {
              for (guint j = 0; j < rects[k]->len; j++)
                {
                  const Rect *r = &g_array_index (rects[k], Rect, j);
                  pixels_fill (&px, r->x, r->y, r->w, r->h, c);
                  if (r->outline)
                    pixels_outline (&px, r->x, r->y, r->w, r->h,
                                    darker (c));
                }
              g_array_set_size (rects[k], 0);
              continue;
            }
          for (guint j = 0; j < rects[k]->len; j++)
            {
              const Rect *r = &g_array_index (rects[k], Rect, j);
              cairo_rectangle (cr, r->x, r->y, r->w, r->h);
              outline |= r->outline;
            }
          set_rgb (cr, c);
          cairo_fill (cr);
          if (outline)
            {
              for (guint j = 0; j < rects[k]->len; j++)
                {
                  const Rect *r = &g_array_index (rects[k], Rect, j);
                  if (r->outline)
                    cairo_rectangle (cr, r->x + 0.5, r->y + 0.5, r->w - 1,
                                     r->h - 1);
                }
              set_rgb (cr, darker (c));
              cairo_stroke (cr);
            }
          g_array_set_size (rects[k], 0);
        }
    }
  if (direct)
    cairo_surface_mark_dirty (cairo_get_target (cr));
  for (guint k = 0; k <= ns; k++)
    if (rects[k])
      g_array_unref (rects[k]);
  g_free (rects);
  g_free (cur);
  if (o == NULL || o->highlight_state < 0)
    return;
  set_rgb (cr, C_SEL);
  cairo_set_line_width (cr, 2);
  for (guint i = 0; i < s->nlanes; i++)
    {
      const MvLane *l = &s->lanes[i];
      for (guint j = 0; l->spans && j < l->spans->len; j++)
        {
          const MvSpan *sp = &g_array_index (l->spans, MvSpan, j);
          if (sp->state != o->highlight_state)
            continue;
          double in = mv_scene_depth_inset (l->h, sp->depth);
          double x0 = sp->x0, x1 = MAX (sp->x1, sp->x0 + 1.0);
          double y = l->y + in, hh = l->h - 2 * in;
          if (hh > 0)
            cairo_rectangle (cr, x0 - 1, y - 1, x1 - x0 + 2, hh + 2);
        }
    }
  cairo_stroke (cr);
}

/* The waiting part of MPI calls (p.show_waits): diagonal hatching over
 * the part of each wait's span (the MPI function's, at its depth) that
 * the wait covers.  Whole pixels, no antialiasing: the hatch is one
 * exact colour. */
static void
draw_waits (cairo_t *cr, const MvScene *s)
{
  cairo_save (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  cairo_set_line_width (cr, 1);
  set_rgb (cr, C_WAIT);
  for (guint i = 0; i < s->nlanes; i++)
    {
      const MvLane *l = &s->lanes[i];
      if (l->waits == NULL || l->spans == NULL)
        continue;
      for (guint k = 0; k < l->waits->len; k++)
        {
          const MvWaitSpan *w = &g_array_index (l->waits, MvWaitSpan, k);
          for (guint j = 0; j < l->spans->len; j++)
            {
              const MvSpan *sp = &g_array_index (l->spans, MvSpan, j);
              if (sp->state != w->state || sp->t_end <= w->t0
                  || sp->t_begin >= w->t1)
                continue;
              double in = mv_scene_depth_inset (l->h, sp->depth);
              double y0 = round (l->y + in), y1 = round (l->y + l->h - in);
              double x0 = floor (MAX (sp->x0, w->x0) + 0.5);
              double x1 = floor (MIN (sp->x1, w->x1) + 0.5);
              if (x1 - x0 < 2 || y1 - y0 < 3)
                continue;
              /* Inside the span's outline. */
              cairo_save (cr);
              cairo_rectangle (cr, x0 + 1, y0 + 1, x1 - x0 - 2, y1 - y0 - 2);
              cairo_clip (cr);
              double hh = y1 - y0;
              for (double x = x0 - hh; x < x1; x += 6)
                {
                  cairo_move_to (cr, x + 0.5, y1);
                  cairo_line_to (cr, x + hh + 0.5, y0);
                }
              cairo_stroke (cr);
              cairo_restore (cr);
            }
        }
    }
  cairo_restore (cr);
}

/* A crowded marker: a 5x4 downward tick, whole pixels. */
static void
tick_pixels (const Pixels *p, double x, double y, guint32 rgb)
{
  static const int half[4] = { 2, 1, 1, 0 };
  int cx = (int) floor (x) + p->dx, cy = (int) floor (y) + p->dy;
  guint32 v = 0xff000000u | rgb;
  for (int k = 0; k < 4; k++)
    {
      int yy = cy + k;
      if (yy < p->cy0 || yy >= p->cy1)
        continue;
      guint32 *row = p->px + (gsize) yy * p->stride;
      for (int xx = MAX (cx - half[k], p->cx0);
           xx <= MIN (cx + half[k], p->cx1 - 1); xx++)
        row[xx] = v;
    }
}

/* dst OVER premultiplied src, as pixman rounds it. */
static inline guint32
over (guint32 src, guint32 dst)
{
  /* Red and blue side by side in 16 bits each, then green: per channel
   * t = d * ia + 0x80, (t + (t >> 8)) >> 8, plus the source's, at most
   * 255 (no channel's sum reaches the next). */
  guint32 ia = 255 - (src >> 24);
  guint32 rb = (dst & 0xff00ffu) * ia + 0x800080u;
  rb = ((rb + ((rb >> 8) & 0xff00ffu)) >> 8) & 0xff00ffu;
  rb += src & 0xff00ffu;
  rb |= 0x1000100u - ((rb >> 8) & 0x10001u);
  guint32 g = ((dst >> 8) & 0xffu) * ia + 0x80u;
  g = (g + (g >> 8)) >> 8;
  g = MIN (g + ((src >> 8) & 0xffu), 255u);
  return 0xff000000u | (rb & 0xff00ffu) | g << 8;
}

/* A marker: a downward triangle with a stem, visible on any bar colour;
 * x on a pixel centre, y the lane's top + 1, h the lane's height. */
static void
marker_path_draw (cairo_t *cr, double x, double y, double sz, double h,
                  guint32 c)
{
  cairo_move_to (cr, x, y + h - 2);
  cairo_line_to (cr, x, y + sz);
  set_rgb (cr, C_TEXT);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
  cairo_move_to (cr, x - sz, y);
  cairo_line_to (cr, x + sz, y);
  cairo_line_to (cr, x, y + sz * 1.4);
  cairo_close_path (cr);
  set_rgb (cr, c);
  cairo_fill_preserve (cr);
  set_rgb (cr, C_TEXT);
  cairo_stroke (cr);
}

/* A marker drawn once by cairo and kept as its covered pixels: stamping
 * those costs a fraction of a cairo fill and two strokes per marker. */
typedef struct
{
  guint32  c;
  double   sz, h, fy;   /* fy: y's fraction, in quarters */
  int      ox, oy;      /* the marker's pixel in the sprite */
  GArray  *px;          /* SpritePx */
} Sprite;

typedef struct
{
  gint16  dx, dy;
  guint32 argb;         /* premultiplied */
} SpritePx;

static const Sprite *
sprite_get (GArray *cache, guint32 c, double sz, double h, double fy)
{
  for (guint i = 0; i < cache->len; i++)
    {
      const Sprite *sp = &g_array_index (cache, Sprite, i);
      if (sp->c == c && sp->sz == sz && sp->h == h && sp->fy == fy)
        return sp;
    }
  Sprite sp = { c, sz, h, fy, (int) ceil (sz) + 2, 1, NULL };
  int w = 2 * sp.ox + 1, ht = sp.oy + (int) ceil (h) + 2;
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                     w, ht);
  cairo_t *cr = cairo_create (img);
  marker_path_draw (cr, sp.ox + 0.5, sp.oy + fy, sz, h, c);
  cairo_destroy (cr);
  cairo_surface_flush (img);
  sp.px = g_array_new (FALSE, FALSE, sizeof (SpritePx));
  const guint8 *data = cairo_image_surface_get_data (img);
  int stride = cairo_image_surface_get_stride (img);
  for (int y = 0; y < ht; y++)
    for (int x = 0; x < w; x++)
      {
        guint32 v = ((const guint32 *) (data + (gsize) y * stride))[x];
        if (v >> 24)
          {
            SpritePx q = { (gint16) (x - sp.ox), (gint16) (y - sp.oy), v };
            g_array_append_val (sp.px, q);
          }
      }
  cairo_surface_destroy (img);
  g_array_append_val (cache, sp);
  return &g_array_index (cache, Sprite, cache->len - 1);
}

static void
sprites_free (GArray *cache)
{
  for (guint i = 0; i < cache->len; i++)
    g_array_unref (g_array_index (cache, Sprite, i).px);
  g_array_unref (cache);
}

static void
sprite_stamp (const Pixels *p, const Sprite *sp, int x, int y)
{
  const SpritePx *q = (const SpritePx *) sp->px->data;
  for (guint i = 0; i < sp->px->len; i++)
    {
      int xx = x + q[i].dx + p->dx, yy = y + q[i].dy + p->dy;
      if (xx >= p->cx0 && xx < p->cx1 && yy >= p->cy0 && yy < p->cy1)
        {
          guint32 *d = p->px + (gsize) yy * p->stride + xx;
          *d = over (q[i].argb, *d);
        }
    }
}

static void
draw_markers (cairo_t *cr, const MvScene *s, const MvLane *l,
              const Pixels *direct, GArray *sprites)
{
  const MvLog *log = s->log;
  double sz = CLAMP (l->h * 0.35, 3, 6);
  /* Crowded markers: small plain ticks, no stems or outlines. */
  gboolean crowded = l->markers->len > s->p.width / 10.0;
  guint32 pending = G_MAXUINT32;
  for (guint i = 0; i < l->markers->len; i++)
    {
      const MvMarker *m = &g_array_index (l->markers, MvMarker, i);
      guint32 c = m->loss ? MV_LOSS_RGB
                  : m->evdef >= 0 ? mv_log_evdef (log, m->evdef)->rgb
                  : 0x7f7f7f;
      double x = round (m->x) + 0.5, y = l->y + 1;
      if (crowded && direct)
        {
          tick_pixels (direct, x, y, c == 0xffffff ? C_TEXT : c);
          continue;
        }
      if (crowded)
        {
          /* One fill per run of markers of a colour. */
          c = c == 0xffffff ? C_TEXT : c;
          if (c != pending && pending != G_MAXUINT32)
            {
              set_rgb (cr, pending);
              cairo_fill (cr);
            }
          pending = c;
          cairo_move_to (cr, x - 2.5, y);
          cairo_line_to (cr, x + 2.5, y);
          cairo_line_to (cr, x, y + 4);
          cairo_close_path (cr);
          continue;
        }
      if (direct)
        {
          /* y to a quarter pixel: a few sprites serve every lane. */
          double fy = round ((y - floor (y)) * 4) / 4;
          int iy = (int) floor (y);
          if (fy >= 1)
            {
              fy = 0;
              iy++;
            }
          sprite_stamp (direct, sprite_get (sprites, c, sz, l->h, fy),
                        (int) floor (x), iy);
          continue;
        }
      marker_path_draw (cr, x, y, sz, l->h, c);
    }
  if (pending != G_MAXUINT32)
    {
      set_rgb (cr, pending);
      cairo_fill (cr);
    }
}

/* Pixels [x0, x1) x [y0, y1) touched so far. */
typedef struct
{
  int x0, y0, x1, y1;
} Box;

static void
box_add (Box *bx, int x0, int y0, int x1, int y1)
{
  bx->x0 = MIN (bx->x0, x0);
  bx->y0 = MIN (bx->y0, y0);
  bx->x1 = MAX (bx->x1, x1);
  bx->y1 = MAX (bx->y1, y1);
}

/* floor (num / den) for num >= 0, den > 0, from inv = 1.0 / den: a
 * 64-bit division per run was most of line_runs (tens of cycles each,
 * 100,000 runs in a view of 28,000 aggregated arrows); the double's
 * estimate is off by one at most, and corrected exactly. */
static inline gint64
floor_div (gint64 num, gint64 den, double inv)
{
  gint64 f = (gint64) ((double) num * inv);
  while (f > 0 && f * den > num)
    f--;
  while ((f + 1) * den <= num)
    f++;
  return f;
}

/* Adds cnt along a 1-px line as runs in a difference buffer: the line
 * is stepped along its major axis in 16.16 fixed point from (fa, fb), n
 * steps of (sa, sb), and every stretch of steps on one row of the minor
 * axis becomes a run, i.e. two additions, whatever its length.  Entry
 * (row, pos) is diff[row * row_step + pos * pos_step], pos < len + 1,
 * row < nrows.  bx (x: pos, y: row) grows to hold the runs. */
static void
line_runs (guint32 *diff, gsize row_step, gsize pos_step, int len,
           int nrows, gint64 fa, gint64 fb, gint64 sa, gint64 sb, gint64 n,
           guint32 cnt, Box *bx)
{
  gint64 k = 0, asb = ABS (sb);
  double inv = sb ? 1.0 / (double) asb : 0;
  while (k <= n)
    {
      gint64 row = (fb + k * sb) >> 16, next = n + 1;
      /* The first step past this row. */
      if (sb > 0)
        next = MIN (next, floor_div (((row + 1) << 16) - fb + sb - 1, asb,
                                     inv));
      else if (sb < 0)
        next = MIN (next, floor_div (fb - (row << 16), asb, inv) + 1);
      next = MAX (next, k + 1);
      gint64 a = (fa + k * sa) >> 16, b = (fa + (next - 1) * sa) >> 16;
      gint64 lo = MAX (MIN (a, b), 0), hi = MIN (MAX (a, b), len - 1);
      if (row >= 0 && row < nrows && lo <= hi)
        {
          guint32 *r = diff + (gsize) row * row_step;
          r[(gsize) lo * pos_step] += cnt;
          r[(gsize) (hi + 1) * pos_step] -= cnt;
          box_add (bx, (int) lo, (int) row, (int) hi + 1, (int) row + 1);
        }
      k = next;
    }
}

/* A count buffer kept per thread, all zeros between uses: sparse lines
 * touch few pixels, and clearing a plot-sized buffer every frame would
 * cost more than drawing them. */
typedef struct
{
  guint32 *buf;
  gsize    cap;
} Scratch;

static void
scratch_free (gpointer p)
{
  Scratch *sc = p;
  g_free (sc->buf);
  g_free (sc);
}

/* Slots: the sparse lines' counts, the dense lines' row and column
 * runs (all zeros between uses), the dense lines' counts and mask
 * (overwritten).
 * Kept, not freed: on this VM a page faulted in costs ~10 us, and a
 * fresh 4 MB buffer per frame 10 ms. */
enum { SCRATCH_SPARSE, SCRATCH_HOR, SCRATCH_VER, SCRATCH_IMG, SCRATCH_MASK,
       SCRATCH_N };
static GPrivate scratch_key[SCRATCH_N] = {
  G_PRIVATE_INIT (scratch_free), G_PRIVATE_INIT (scratch_free),
  G_PRIVATE_INIT (scratch_free), G_PRIVATE_INIT (scratch_free),
  G_PRIVATE_INIT (scratch_free),
};

/* n zeroed counts from this thread's slot. */
static guint32 *
scratch_zeroed (int slot, gsize n, gboolean clear)
{
  Scratch *sc = g_private_get (&scratch_key[slot]);
  if (sc == NULL)
    {
      sc = g_new0 (Scratch, 1);
      g_private_set (&scratch_key[slot], sc);
    }
  if (sc->cap < n)
    {
      g_free (sc->buf);
      /* Written at once (calloc may hand out untouched pages), so the
       * pages fault in here and not in a later frame. */
      sc->buf = g_malloc (n * sizeof *sc->buf);
      memset (sc->buf, 0, n * sizeof *sc->buf);
      sc->cap = n;
    }
  else if (clear)
    memset (sc->buf, 0, n * sizeof *sc->buf);
  return sc->buf;
}

/* The density image of a w x h plot: iw x ih pixels, each vs plot rows
 * tall (tall plots: half the vertical resolution, lines 2 px tall,
 * halves the passes over the image; arrows there cross many rows). */
static void
density_size (double w, double h, int *vs, int *iw, int *ih)
{
  *vs = h > 400 ? 2 : 1;
  *iw = (int) ceil (w);
  *ih = (int) ceil (h / *vs);
}

/* The dense arrows' A8 mask, in scratch words: the plot's height. */
static gsize
density_mask_words (int iw, int ih, int vs)
{
  return ((gsize) cairo_format_stride_for_width (CAIRO_FORMAT_A8, iw) * ih
          * vs + 3) / 4;
}

/* Sizes the arrow buffers for a plot on the first frame of a size, so
 * the first frame with many arrows does not pay for their pages. */
static void
density_prepare (double w, double h)
{
  int vs, iw, ih;
  density_size (w, h, &vs, &iw, &ih);
  if (iw <= 0 || ih <= 0)
    return;
  scratch_zeroed (SCRATCH_SPARSE, (gsize) iw * ih, FALSE);
  scratch_zeroed (SCRATCH_HOR, (gsize) ih * (iw + 1), FALSE);
  scratch_zeroed (SCRATCH_VER, (gsize) (ih + 1) * iw, FALSE);
  scratch_zeroed (SCRATCH_IMG, (gsize) ih * iw, FALSE);
  scratch_zeroed (SCRATCH_MASK, density_mask_words (iw, ih, vs), FALSE);
}

/* An arrow clipped to the image, as the stepping of a 1-px line along
 * its major axis: n + 1 steps from (fx, fy) by (sx, sy), 16.16 fixed
 * point. */
typedef struct
{
  gint64  fx, fy, sx, sy, n;
  guint32 count;
} Seg;

/* Opaque rgb at alpha a (0-255), premultiplied as pixman multiplies a
 * solid colour by a mask byte: a colour given as alpha alone (an A8
 * mask) and as this come out the same. */
static guint32
premultiplied (guint32 rgb, guint a)
{
  guint32 out = a << 24;
  for (int sh = 0; sh < 24; sh += 8)
    {
      guint t = ((rgb >> sh) & 0xffu) * a + 0x80u;
      out |= ((t + (t >> 8)) >> 8) << sh;
    }
  return out;
}

/* The arrows' density image as premultiplied colours per pixel: alpha
 * grows with log(count) up to 0.6 at the busiest pixel. */
static void
density_lut (guint32 vmax, guint32 *lut, guint8 **level, guint *nlev)
{
  double lmax = log1p (vmax);
  for (int k = 0; k < 256; k++)
    {
      /* C_ARROW at alpha 0.06 .. 0.6: states stay readable. */
      double al = k == 0 ? 0 : 0.06 + 0.54 * (k / 255.0);
      lut[k] = premultiplied (C_ARROW, (guint) (al * 255 + 0.5));
    }
  /* Counts are whole numbers: their levels come from a table. */
  *nlev = MIN (vmax, 65535u) + 1;
  *level = g_new (guint8, *nlev);
  for (guint v = 0; v < *nlev; v++)
    (*level)[v] = (guint8) MAX (1, (int) (log1p (v) / lmax * 255));
  (*level)[0] = 0;  /* transparent: lut[0] is 0 */
}

static inline guint32
density_colour (guint32 v, const guint32 *lut, const guint8 *level,
                guint nlev, guint32 vmax)
{
  return lut[v < nlev ? level[v]
             : MAX (1, (int) (log1p (v) / log1p (vmax) * 255))];
}

/* The arrows' density image: built from the arrows alone, apart from the
 * target (mv_draw_plot builds it on a thread of its own while it draws
 * the rest of the plot), then drawn over the plot. */
typedef struct
{
  const MvScene *s;
  double   w;         /* the plot's width, user space */
  int      vs, iw, ih;
  /* The drawing thread's scratch (per-thread slots): */
  guint32 *acc, *hor, *ver, *img;
  /* Built: */
  gboolean sparse;
  GArray  *hit;       /* sparse: the pixels of acc touched */
  Box      bx;        /* runs: where img holds counts */
  guint32  vmax;
  gsize    touched;   /* runs: pixels of the box with a count */
} Density;

/* TRUE if s's arrows are drawn as a density image. */
static gboolean
arrows_dense (const MvScene *s)
{
  /* Dense arrows fade so the states stay readable; the busiest
   * connections stay darkest (count-weighted). */
  return s->arrows != NULL
         && (s->arrows_aggregated || s->arrows->len > 300);
}

/* Fewer arrows cost less than starting a thread (~50 us). */
guint mv__draw_density_thread_min = 1000;
guint mv__draw_sparse_below = 32;

/* FALSE if there is no image to build (an empty plot). */
static gboolean
density_init (Density *d, const MvScene *s, double w, double h)
{
  memset (d, 0, sizeof *d);
  d->s = s;
  d->w = w;
  density_size (w, h, &d->vs, &d->iw, &d->ih);
  if (d->iw <= 0 || d->ih <= 0)
    return FALSE;
  int iw = d->iw, ih = d->ih;
  d->acc = scratch_zeroed (SCRATCH_SPARSE, (gsize) iw * ih, FALSE);
  d->hor = scratch_zeroed (SCRATCH_HOR, (gsize) ih * (iw + 1), FALSE);
  d->ver = scratch_zeroed (SCRATCH_VER, (gsize) (ih + 1) * iw, FALSE);
  d->img = scratch_zeroed (SCRATCH_IMG, (gsize) ih * iw, FALSE);
  return TRUE;
}

/* Few pixels of lines: each line is stepped into a zeroed per-thread
 * buffer (acc), and only the pixels it touched are coloured, blended into
 * the target (or into an image for cairo) and cleared again.  The pixels
 * and counts are those of the runs below (a pixel counts once per line). */
static void
density_sparse_build (Density *d, const Seg *segs, guint nsegs)
{
  int iw = d->iw, ih = d->ih;
  guint32 *acc = d->acc;
  GArray *hit = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < nsegs; i++)
    {
      const Seg *g = &segs[i];
      gint64 fx = g->fx, fy = g->fy, lx = -1, ly = -1;
      for (gint64 k = 0; k <= g->n; k++, fx += g->sx, fy += g->sy)
        {
          gint64 x = fx >> 16, y = fy >> 16;
          if ((x == lx && y == ly) || x < 0 || x >= iw || y < 0 || y >= ih)
            continue;
          lx = x;
          ly = y;
          guint32 idx = (guint32) (y * iw + x);
          if (acc[idx] == 0)
            g_array_append_val (hit, idx);
          acc[idx] += g->count;
        }
    }
  guint32 vmax = 1;
  const guint32 *idx = (const guint32 *) hit->data;
  for (guint i = 0; i < hit->len; i++)
    vmax = MAX (vmax, acc[idx[i]]);
  d->sparse = TRUE;
  d->hit = hit;
  d->vmax = vmax;
}

static void
density_sparse_draw (cairo_t *cr, Density *d)
{
  int iw = d->iw, ih = d->ih, vs = d->vs;
  guint32 *acc = d->acc, vmax = d->vmax, lut[256];
  GArray *hit = d->hit;
  const guint32 *idx = (const guint32 *) hit->data;
  guint8 *level;
  guint nlev;
  density_lut (vmax, lut, &level, &nlev);
  Pixels px;
  if (pixels_get (cr, &px))
    {
      for (guint i = 0; i < hit->len; i++)
        {
          int x = (int) (idx[i] % iw), y0 = (int) (idx[i] / iw) * vs;
          guint32 c = density_colour (acc[idx[i]], lut, level, nlev, vmax);
          if (x + px.dx < px.cx0 || x + px.dx >= px.cx1)
            continue;
          for (int y = y0 + px.dy; y < y0 + vs + px.dy; y++)
            if (y >= px.cy0 && y < px.cy1)
              {
                guint32 *o = px.px + (gsize) y * px.stride + x + px.dx;
                *o = over (c, *o);
              }
        }
      cairo_surface_mark_dirty (cairo_get_target (cr));
    }
  else
    {
      cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                         iw, ih);
      cairo_surface_flush (img);
      guint8 *data = cairo_image_surface_get_data (img);
      int stride = cairo_image_surface_get_stride (img);
      for (guint i = 0; i < hit->len; i++)
        ((guint32 *) (data + (gsize) (idx[i] / iw) * stride))[idx[i] % iw]
          = density_colour (acc[idx[i]], lut, level, nlev, vmax);
      cairo_surface_mark_dirty (img);
      cairo_save (cr);
      cairo_scale (cr, 1, vs);
      cairo_set_source_surface (cr, img, 0, 0);
      cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
      cairo_paint (cr);
      cairo_restore (cr);
      cairo_surface_destroy (img);
    }
  for (guint i = 0; i < hit->len; i++)
    acc[idx[i]] = 0;
  g_free (level);
  g_array_unref (hit);
}

/* Many arrows: each adds its message count to the pixels of a 1-px
 * line in a density image, shown with alpha growing with log(count).
 * Overlaps darken (count-weighted).  Few pixels of lines are stepped one
 * by one (density_sparse_build); many go in as runs (one per row or column
 * they cross) and are summed in one pass over the box they touch, so
 * the cost does not grow with their length: 30,000 arrows of 10,000
 * processes are 4M pixels of lines but ~50,000 runs. */
static void
density_build (Density *d)
{
  const MvScene *s = d->s;
  int vs = d->vs, iw = d->iw, ih = d->ih;
  GArray *segs = g_array_sized_new (FALSE, FALSE, sizeof (Seg),
                                    s->arrows->len);
  gint64 steps = 0;
  for (guint i = 0; i < s->arrows->len; i++)
    {
      const MvArrow *a0 = &g_array_index (s->arrows, MvArrow, i);
      double ax0 = a0->x0, ay0 = a0->y0 / vs;
      double dx = a0->x1 - ax0, dy = a0->y1 / vs - ay0;
      /* Clip to the image first (Liang-Barsky): messages that cross the
       * window start or end far off screen.  Most lie within it: each
       * edge's u would leave [0, 1] as it is, and is not divided for. */
      double u0 = 0, u1 = 1;
      const double pp[4] = { -dx, dx, -dy, dy };
      const double qq[4] = { ax0, iw - ax0, ay0, ih - ay0 };
      gboolean out = FALSE, inside = TRUE;
      for (int e = 0; e < 4; e++)
        inside &= qq[e] >= MAX (pp[e], 0);
      for (int e = 0; e < 4 && !out && !inside; e++)
        {
          if (pp[e] == 0)
            out = qq[e] < 0;
          else
            {
              double u = qq[e] / pp[e];
              if (pp[e] < 0)
                u0 = MAX (u0, u);
              else
                u1 = MIN (u1, u);
              out = u0 > u1;
            }
        }
      if (out)
        continue;
      double cdx = (u1 - u0) * dx, cdy = (u1 - u0) * dy;
      double n = MAX (ceil (MAX (fabs (cdx), fabs (cdy))), 1);
      Seg g = { (gint64) ((ax0 + u0 * dx) * 65536),
                (gint64) ((ay0 + u0 * dy) * 65536),
                (gint64) (cdx / n * 65536), (gint64) (cdy / n * 65536),
                (gint64) n, a0->count };
      g_array_append_val (segs, g);
      steps += g.n + 1;
    }
  /* A step of the sparse path is a cache miss or two when lines run
   * across rows (most messages do), where the runs' pass over the box
   * is sequential: measured in one process on the same scenes, the
   * two cost the same at 2-3% of the pixels in steps (at 1.7%: sparse
   * 2.7, runs 4.5 ms; at 3.3%: 6.4 and 5.2; at 6.5%: 12.3 and 5.5). */
  if ((double) steps * mv__draw_sparse_below < (double) iw * ih)
    {
      density_sparse_build (d, (const Seg *) segs->data, segs->len);
      g_array_unref (segs);
      return;
    }
  /* Mostly horizontal lines: runs along image rows (hor: ih rows of
   * iw + 1); mostly vertical ones: runs down columns (ver: ih + 1 rows
   * of iw, row-major too, so one pass over rows sums both).  Both are
   * all zeros between frames: the pass below clears what it reads.  Sums
   * wrap modulo 2^32 and come out whole. */
  guint32 *hor = d->hor, *ver = d->ver;
  Box bx = { iw, ih, 0, 0 }, vb = { ih, iw, 0, 0 };  /* vb: y, x */
  for (guint i = 0; i < segs->len; i++)
    {
      const Seg *g = &g_array_index (segs, Seg, i);
      if (ABS (g->sx) >= ABS (g->sy))
        line_runs (hor, iw + 1, 1, iw, ih, g->fx, g->fy, g->sx, g->sy, g->n,
                   g->count, &bx);
      else
        line_runs (ver, 1, iw, ih, iw, g->fy, g->fx, g->sy, g->sx, g->n,
                   g->count, &vb);
    }
  g_array_unref (segs);
  if (vb.x0 < vb.x1)
    box_add (&bx, vb.y0, vb.x0, vb.y1, vb.x1);
  if (bx.x0 >= bx.x1 || bx.y0 >= bx.y1)
    return;   /* no run anywhere: the buffers are untouched */
  /* One pass: per row, the row runs summed along it, each column's runs
   * summed down it (colsum), counts into img, the diffs cleared; end
   * marks just past the box cleared after. */
  guint32 *img = d->img;
  guint32 *colsum = g_new0 (guint32, iw);
  guint32 vmax = 1;
  gsize touched = 0;
  for (int y = bx.y0; y < bx.y1; y++)
    {
      guint32 *hr = hor + (gsize) y * (iw + 1), *vr = ver + (gsize) y * iw;
      guint32 *o = img + (gsize) y * iw, sum = 0;
      for (int x = bx.x0; x < bx.x1; x++)
        {
          sum += hr[x];
          guint32 c = colsum[x] += vr[x];
          hr[x] = 0;
          vr[x] = 0;
          o[x] = sum + c;
          vmax = MAX (vmax, o[x]);
          touched += o[x] != 0;
        }
      hr[bx.x1] = 0;
    }
  memset (ver + (gsize) bx.y1 * iw + bx.x0, 0,
          (gsize) (bx.x1 - bx.x0) * sizeof *ver);
  g_free (colsum);
  d->bx = bx;
  d->vmax = vmax;
  d->touched = touched;
}

static gpointer
density_thread (gpointer p)
{
  density_build (p);
  return NULL;
}

static void
density_draw (cairo_t *cr, Density *d)
{
  if (d->sparse)
    {
      density_sparse_draw (cr, d);
      return;
    }
  Box bx = d->bx;
  if (bx.x0 >= bx.x1 || bx.y0 >= bx.y1)
    return;
  int vs = d->vs, iw = d->iw, ih = d->ih;
  double w = d->w;
  guint32 *img = d->img, vmax = d->vmax;
  gsize touched = d->touched;
  guint32 lut[256];
  guint8 *level;
  guint nlev;
  density_lut (vmax, lut, &level, &nlev);
  Pixels px;
  if (touched * 4 < (gsize) (bx.x1 - bx.x0) * (bx.y1 - bx.y0)
      && iw == w && pixels_get (cr, &px))
    {
      /* Most of the box untouched: each touched pixel's colour blended
       * straight into the target's vs rows (one pass over the counts);
       * pixman would composite the whole box. */
      int xa = MAX (bx.x0, px.cx0 - px.dx), xb = MIN (bx.x1, px.cx1 - px.dx);
      for (int y = bx.y0; y < bx.y1; y++)
        {
          const guint32 *r = img + (gsize) y * iw;
          int ya = MAX (y * vs, px.cy0 - px.dy);
          int yb = MIN ((y + 1) * vs, px.cy1 - px.dy);
          if (ya >= yb)
            continue;
          guint32 *o = px.px + (gsize) (ya + px.dy) * px.stride + px.dx;
          for (int x = xa; x < xb; x++)
            if (r[x] != 0)
              {
                guint32 c = density_colour (r[x], lut, level, nlev, vmax);
                for (int k = 0; k < yb - ya; k++)
                  o[(gsize) k * px.stride + x]
                    = over (c, o[(gsize) k * px.stride + x]);
              }
        }
      g_free (level);
      cairo_surface_mark_dirty (cairo_get_target (cr));
    }
  else
    {
      /* Each count to its alpha in an A8 mask at the plot's height (vs
       * rows a count), then the arrow colour through it: pixman's
       * solid-through-mask path, not a scaled image's. */
      guint8 alpha[256];
      for (int k = 0; k < 256; k++)
        alpha[k] = (guint8) (lut[k] >> 24);
      int stride = cairo_format_stride_for_width (CAIRO_FORMAT_A8, iw);
      guint8 *mask = (guint8 *) scratch_zeroed
        (SCRATCH_MASK, density_mask_words (iw, ih, vs), FALSE);
      for (int y = bx.y0; y < bx.y1; y++)
        {
          const guint32 *r = img + (gsize) y * iw;
          guint8 *m = mask + (gsize) y * vs * stride;
          for (int x = bx.x0; x < bx.x1; x++)
            m[x] = r[x] < nlev ? alpha[level[r[x]]]
                   : (guint8) (density_colour (r[x], lut, level, nlev, vmax)
                               >> 24);
          for (int k = 1; k < vs; k++)
            memcpy (m + (gsize) k * stride + bx.x0, m + bx.x0,
                    (gsize) (bx.x1 - bx.x0));
        }
      g_free (level);
      cairo_surface_t *ms = cairo_image_surface_create_for_data
        (mask, CAIRO_FORMAT_A8, iw, ih * vs, stride);
      cairo_save (cr);
      cairo_rectangle (cr, bx.x0, bx.y0 * vs, bx.x1 - bx.x0,
                       (bx.y1 - bx.y0) * vs);
      cairo_clip (cr);
      set_rgb (cr, C_ARROW);
      cairo_mask_surface (cr, ms, 0, 0);
      cairo_restore (cr);
      cairo_surface_destroy (ms);
    }
}

/* Many arrows, as above, built and drawn on this thread. */
static void
draw_arrow_density (cairo_t *cr, const MvScene *s, double w, double h)
{
  Density d;
  if (!density_init (&d, s, w, h))
    return;
  density_build (&d);
  density_draw (cr, &d);
}

/* An antialiased line of width lw from (x0, y0) to (x1, y1), user space,
 * blended into p: in each pixel column (row, for a steep line) whose
 * centre the line spans, the pixels get the share of them the line's
 * cross-section covers, as colour lut[255 * share].  Butt ends. */
static void
line_direct (const Pixels *p, double x0, double y0, double x1, double y1,
             double lw, const guint32 *lut)
{
  if (!isfinite (x0 + y0 + x1 + y1))
    return;   /* nothing to draw, and no loop over every pixel */
  x0 += p->dx;
  x1 += p->dx;
  y0 += p->dy;
  y1 += p->dy;
  gboolean steep = fabs (y1 - y0) > fabs (x1 - x0);
  if (steep)
    {
      double t = x0; x0 = y0; y0 = t;
      t = x1; x1 = y1; y1 = t;
    }
  if (x1 < x0)
    {
      double t = x0; x0 = x1; x1 = t;
      t = y0; y0 = y1; y1 = t;
    }
  if (x1 - x0 < 1e-9)
    return;
  /* Major axis u (x, or y when steep), minor axis v. */
  int ulo = steep ? p->cy0 : p->cx0, uhi = steep ? p->cy1 : p->cx1;
  int vlo = steep ? p->cx0 : p->cy0, vhi = steep ? p->cx1 : p->cy1;
  double m = (y1 - y0) / (x1 - x0);
  double hw = lw / 2 * sqrt (1 + m * m);  /* half the span across v */
  /* Clamped as doubles: a message's far end may lie far off screen. */
  int u0 = (int) MAX (ceil (x0 - 0.5), (double) ulo);
  int u1 = (int) MIN (floor (x1 - 0.5), (double) (uhi - 1));
  for (int u = u0; u <= u1; u++)
    {
      double c = y0 + (u + 0.5 - x0) * m, lo = c - hw, hi = c + hw;
      int v0 = (int) MAX (floor (lo), (double) vlo);
      int v1 = (int) MIN (floor (hi), (double) (vhi - 1));
      for (int v = v0; v <= v1; v++)
        {
          double cov = MIN (hi, v + 1.0) - MAX (lo, (double) v);
          int k = (int) (MIN (cov, 1.0) * 255 + 0.5);
          if (k <= 0)
            continue;
          guint32 *o = steep ? p->px + (gsize) u * p->stride + v
                             : p->px + (gsize) v * p->stride + u;
          *o = over (lut[k], *o);
        }
    }
}

static void
draw_arrows (cairo_t *cr, const MvScene *s, double w, double h)
{
  if (s->arrows == NULL)
    return;
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  if (arrows_dense (s))
    {
      draw_arrow_density (cr, s, w, h);
      return;
    }
  /* The lines straight into an image target (cairo's stroke cost about
   * 30 us an arrow, batched or not: a deep view's 200 arrows were a
   * third of its frame); one fill for every head. */
  const double lw = 1.2, hs = 6 + lw;
  Pixels px;
  if (pixels_get (cr, &px))
    {
      guint32 lut[256];
      for (int k = 0; k < 256; k++)
        lut[k] = premultiplied (C_ARROW, (guint) (k * 0.85 + 0.5));
      for (guint i = 0; i < s->arrows->len; i++)
        {
          const MvArrow *a = &g_array_index (s->arrows, MvArrow, i);
          line_direct (&px, a->x0, a->y0, a->x1, a->y1, lw, lut);
        }
      cairo_surface_mark_dirty (cairo_get_target (cr));
    }
  else
    {
      set_rgba (cr, C_ARROW, 0.85);
      cairo_set_line_width (cr, lw);
      for (guint i = 0; i < s->arrows->len; i++)
        {
          const MvArrow *a = &g_array_index (s->arrows, MvArrow, i);
          cairo_move_to (cr, a->x0, a->y0);
          cairo_line_to (cr, a->x1, a->y1);
        }
      cairo_stroke (cr);
    }
  set_rgba (cr, C_ARROW, 0.85);
  for (guint i = 0; i < s->arrows->len; i++)
    {
      const MvArrow *a = &g_array_index (s->arrows, MvArrow, i);
      double dx = a->x1 - a->x0, dy = a->y1 - a->y0;
      double len = sqrt (dx * dx + dy * dy);
      if (len < 10)
        continue;
      double ux = dx / len, uy = dy / len;
      cairo_move_to (cr, a->x1, a->y1);
      cairo_line_to (cr, a->x1 - hs * ux + hs * 0.45 * uy,
                     a->y1 - hs * uy - hs * 0.45 * ux);
      cairo_line_to (cr, a->x1 - hs * ux - hs * 0.45 * uy,
                     a->y1 - hs * uy + hs * 0.45 * ux);
      cairo_close_path (cr);
    }
  cairo_fill (cr);
}

/* Counter tracks: in the lower part of each lane of one process, the
 * metric's range within each pixel column (a pale band) and its value
 * as a step line, on one scale for every lane of the frame. */
static void
draw_counters (cairo_t *cr, const MvScene *s)
{
  if (!s->counter_known)
    return;
  double lo = (double) s->counter_lo, hi = (double) s->counter_hi;
  double span = hi > lo ? hi - lo : 1;
  for (guint i = 0; i < s->nlanes; i++)
    {
      const MvLane *lane = &s->lanes[i];
      if (lane->counter == NULL)
        continue;
      double y, h;
      mv_scene_counter_strip (lane, &y, &h);
      /* A sub-track of its own: the states above it keep their colours
       * (a veil over them read as other states). */
      set_rgb (cr, C_BG);
      cairo_rectangle (cr, 0, y, s->p.width, h);
      cairo_fill (cr);
      set_rgb (cr, C_RULE);
      cairo_rectangle (cr, 0, floor (y), s->p.width, 1);
      cairo_fill (cr);
#define VY(v) (y + h - ((double) (v) - lo) / span * h)
      cairo_set_source_rgba (cr, 0.16, 0.40, 0.78, 0.30);
      for (int x = 0; x < s->p.width; x++)
        {
          const logfmt_metric_bin_t *b = &lane->counter[x];
          if (b->known && b->min != b->max)
            cairo_rectangle (cr, x, VY (b->max), 1,
                             MAX (VY (b->min) - VY (b->max), 1));
        }
      cairo_fill (cr);
      /* A crisp one-pixel step line: snapped to pixel centres. */
      cairo_save (cr);
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
      set_rgb (cr, C_COUNTER);
      cairo_set_line_width (cr, 1);
      gboolean on = FALSE;
      for (int x = 0; x < s->p.width; x++)
        {
          const logfmt_metric_bin_t *b = &lane->counter[x];
          if (!b->known)
            {
              on = FALSE;
              continue;
            }
          double vy = floor (MIN (VY (b->last), y + h - 1)) + 0.5;
          if (!on)
            cairo_move_to (cr, x, vy);
          else
            cairo_line_to (cr, x, vy);
          cairo_line_to (cr, x + 1, vy);
          on = TRUE;
        }
      cairo_stroke (cr);
      cairo_restore (cr);
#undef VY
    }
}

void
mv_draw_plot (cairo_t *cr, const MvScene *s, double w, double h,
              const MvDrawOpts *o)
{
  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, w, h);
  cairo_clip (cr);
  /* Many arrows: their density image is built on a thread of its own
   * while this one draws the rest (a view of 28,000 aggregated arrows
   * spent 5 of its 12 ms drawing in it), and drawn over it at the end. */
  Density dens;
  GThread *dth = NULL;
  if (!s->p.hide_arrows && arrows_dense (s)
      && s->arrows->len >= mv__draw_density_thread_min)
    {
      density_prepare (w, h);
      if (density_init (&dens, s, w, h))
        dth = g_thread_try_new ("mv-arrows", density_thread, &dens, NULL);
    }
  set_rgb (cr, C_BG);
  cairo_paint (cr);
  /* Zebra rows (processes), when rows are tall enough to tell apart;
   * group headers tinted, with a rule above. */
  const MvLog *log = s->log;
  if (s->p.row_h >= 6)
    {
      guint first, last;
      mv_scene_visible_slots (log, &s->p, &first, &last);
      set_rgb (cr, C_ROW_ALT);
      for (guint i = first; i < last; i++)
        {
          MvSlot sl = mv_slots_get (s->p.slots, i);
          if (sl.kind == MV_SLOT_ROW && log->rows[sl.row_first].rank % 2 == 1)
            cairo_rectangle (cr, 0, i * s->p.row_h - s->p.y0, w, s->p.row_h);
        }
      cairo_fill (cr);
      for (guint i = first; s->p.slots && i < last; i++)
        if (mv_slots_get (s->p.slots, i).kind != MV_SLOT_ROW)
          {
            double y = i * s->p.row_h - s->p.y0;
            set_rgb (cr, C_GROUP_BG);
            cairo_rectangle (cr, 0, y, w, s->p.row_h);
            cairo_fill (cr);
            set_rgb (cr, C_RULE);
            cairo_rectangle (cr, 0, y, w, 1);
            cairo_fill (cr);
          }
    }
  if (s->summary || s->group_lanes)
    draw_summary_lanes (cr, s, w, h);
  if (!s->summary)
    {
      draw_spans (cr, s, o);
      draw_waits (cr, s);
      /* Markers are stored straight into an image target (crowded ones
       * as plain ticks, others stamped from sprites): thousands of small
       * cairo paths cost milliseconds. */
      Pixels px;
      gboolean direct = pixels_get (cr, &px);
      GArray *sprites = g_array_new (FALSE, FALSE, sizeof (Sprite));
      for (guint i = 0; i < s->nlanes; i++)
        if (s->lanes[i].markers)
          draw_markers (cr, s, &s->lanes[i], direct ? &px : NULL, sprites);
      sprites_free (sprites);
      if (direct)
        cairo_surface_mark_dirty (cairo_get_target (cr));
    }
  draw_counters (cr, s);
  mv__draw_offcpu (cr, s);
  mv_draw_sample_strips (cr, s);
  if (dth)
    {
      g_thread_join (dth);
      density_draw (cr, &dens);
    }
  else
    {
      if (!s->p.hide_arrows)
        density_prepare (w, h);
      draw_arrows (cr, s, w, h);
    }
  cairo_restore (cr);
}

/* ---- frame: ruler, labels, legend ------------------------------------ */

static void
draw_ruler (cairo_t *cr, const MvScene *s, const MvLayout *l,
            const MvDrawOpts *o)
{
  guint64 t0 = s->p.t0, t1 = s->p.t1, span = t1 - t0;
  double w = l->plot_w;
  MvTimeMap map = mv_time_map (t0, t1, w);
  PangoLayout *pl = make_layout (cr, "Sans 8");
  guint64 step = mv_ticks_step (span, w, 90);
  guint64 lead = step;
  while (lead >= 10)
    lead /= 10;
  guint64 minor = lead == 2 ? step / 2 : step / 5;
  if (minor == 0)
    minor = step;
  set_rgb (cr, C_RULE);
  cairo_set_line_width (cr, 1);
  for (guint64 t = t0 - t0 % minor + (t0 % minor ? minor : 0); t <= t1;
       t += minor)
    {
      double x = round (l->plot_x + mv_time_map_x (&map, t)) + 0.5;
      gboolean major = t % step == 0;
      cairo_move_to (cr, x, l->ruler_h - (major ? 9 : 4));
      cairo_line_to (cr, x, l->ruler_h);
      if (t + minor < t)
        break;
    }
  cairo_stroke (cr);
  char buf[64];
  for (guint64 t = t0 - t0 % step + (t0 % step ? step : 0); t <= t1;
       t += step)
    {
      double x = l->plot_x + mv_time_map_x (&map, t);
      mv_format_time (t, step, buf, sizeof buf);
      text_at (cr, pl, buf, x, l->ruler_h / 2 - 2, 0.5, C_TEXT_DIM);
      if (t + step < t)
        break;
    }
  /* Bottom rule of the ruler. */
  set_rgb (cr, C_RULE);
  cairo_move_to (cr, 0, l->ruler_h - 0.5);
  cairo_line_to (cr, l->width, l->ruler_h - 0.5);
  cairo_stroke (cr);
  if (o && o->has_sel && o->sel_t1 > o->sel_t0)
    {
      mv_format_duration (o->sel_t1 - o->sel_t0, buf, sizeof buf);
      double a = l->plot_x + mv_time_map_x (&map, o->sel_t0);
      double b = l->plot_x + mv_time_map_x (&map, o->sel_t1);
      set_rgba (cr, C_SEL, 0.9);
      cairo_rectangle (cr, a, l->ruler_h - 14, MAX (b - a, 1), 14);
      cairo_fill (cr);
      text_at (cr, pl, buf, (a + b) / 2, l->ruler_h - 7, 0.5, 0xffffff);
    }
  g_object_unref (pl);
}

/* One row label as drawn: text (and the host under it) at (x, y) in
 * the label column, y from the plot's top. */
typedef struct
{
  char   *text, *host;
  double  x, y;
  gboolean big;
} Label;

/* The label column's labels for this view. */
static GArray *
labels_of (const MvScene *s)
{
  const MvLog *log = s->log;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Label));
  guint first, last;
  mv_scene_visible_slots (log, &s->p, &first, &last);
  double rh = s->p.row_h;
  /* Label every n-th row so labels never overlap (14 px each). */
  guint every = rh >= 14 ? 1 : (guint) ceil (14 / MAX (rh, 1e-6));
  guint nice[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
                   10000, 20000, 50000, 100000 };
  for (guint i = 0; i < G_N_ELEMENTS (nice); i++)
    if (nice[i] >= every)
      {
        every = nice[i];
        break;
      }
  for (guint r = first; r < last; r++)
    {
      if (r % every != 0)
        continue;
      double y = r * rh - s->p.y0 + MAX (rh, 14) / 2;
      if (every > 1)
        y = r * rh - s->p.y0 + 5;
      MvSlot sl = mv_slots_get (s->p.slots, r);
      char *name = mv_slot_label (log, &sl);
      /* A group's header: a triangle (click it to fold or unfold) and
       * its name; rows indented under their group. */
      Label lb = { NULL, NULL, 4 + MIN (sl.depth, 6) * 8, y, rh >= 14 };
      lb.text = sl.kind == MV_SLOT_ROW ? g_strdup (name)
        : g_strdup_printf ("%s %s", sl.collapsed ? "\xe2\x96\xb8" : "\xe2\x96\xbe",
                           name);
      const char *host = sl.kind == MV_SLOT_ROW && s->p.slots == NULL
                         ? log->rows[sl.row_first].host : NULL;
      if (rh >= 30 && host)
        lb.host = g_strdup (host);
      else if (s->p.slots == NULL)
        lb.x = 10;
      g_free (name);
      g_array_append_val (out, lb);
    }
  return out;
}

static void
labels_free (GArray *labels)
{
  for (guint i = 0; i < labels->len; i++)
    {
      g_free (g_array_index (labels, Label, i).text);
      g_free (g_array_index (labels, Label, i).host);
    }
  g_array_unref (labels);
}

/* The labels drawn at (0, top). */
static void
labels_draw (cairo_t *cr, GArray *labels, double top)
{
  PangoLayout *pl = make_layout (cr, "Sans 9");
  PangoLayout *small = make_layout (cr, "Sans 7");
  for (guint i = 0; i < labels->len; i++)
    {
      const Label *lb = &g_array_index (labels, Label, i);
      if (lb->host)
        {
          text_at (cr, pl, lb->text, lb->x + 6, top + lb->y - 6, 0, C_TEXT);
          text_at (cr, small, lb->host, lb->x + 6, top + lb->y + 8, 0,
                   C_TEXT_DIM);
        }
      else
        text_at (cr, lb->big ? pl : small, lb->text, lb->x, top + lb->y, 0,
                 C_TEXT);
    }
  g_object_unref (pl);
  g_object_unref (small);
}

/* The label column as last drawn to a raster target, per thread, with
 * a hash of everything drawn in it: rows stay put while the view zooms
 * and pans in time, and rendering their labels again cost more than
 * the rest of the frame around the plot (64 rows: 2-3 ms). */
typedef struct
{
  cairo_surface_t *img;
  guint64          key;
} LabelCache;

static void
label_cache_free (gpointer p)
{
  LabelCache *lc = p;
  if (lc->img)
    cairo_surface_destroy (lc->img);
  g_free (lc);
}

static GPrivate label_key = G_PRIVATE_INIT (label_cache_free);

static guint64
hash_bytes (guint64 h, const void *p, gsize n)
{
  const guchar *b = p;
  for (gsize i = 0; i < n; i++)
    h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

static guint64
labels_key (cairo_t *cr, GArray *labels, const MvLayout *l)
{
  double sx = 1, sy = 1;
  cairo_surface_get_device_scale (cairo_get_target (cr), &sx, &sy);
  cairo_font_options_t *fo = cairo_font_options_create ();
  cairo_get_font_options (cr, fo);
  double dims[4] = { l->label_w, l->plot_h, sx, sy };
  guint64 h = hash_bytes (0xcbf29ce484222325ull, dims, sizeof dims);
  gulong foh = cairo_font_options_hash (fo);
  h = hash_bytes (h, &foh, sizeof foh);
  cairo_font_options_destroy (fo);
  for (guint i = 0; i < labels->len; i++)
    {
      const Label *lb = &g_array_index (labels, Label, i);
      double xy[3] = { lb->x, lb->y, lb->big };
      h = hash_bytes (h, xy, sizeof xy);
      h = hash_bytes (h, lb->text, strlen (lb->text) + 1);
      if (lb->host)
        h = hash_bytes (h, lb->host, strlen (lb->host) + 1);
    }
  return h;
}

static void
draw_labels (cairo_t *cr, const MvScene *s, const MvLayout *l)
{
  GArray *labels = labels_of (s);
  cairo_surface_t *target = cairo_get_target (cr);
  cairo_surface_type_t type = cairo_surface_get_type (target);
  gboolean vector = type == CAIRO_SURFACE_TYPE_PDF
                    || type == CAIRO_SURFACE_TYPE_PS
                    || type == CAIRO_SURFACE_TYPE_SVG
                    || type == CAIRO_SURFACE_TYPE_RECORDING
                    || type == CAIRO_SURFACE_TYPE_SCRIPT;
  cairo_save (cr);
  cairo_rectangle (cr, 0, l->plot_y, l->label_w, l->plot_h);
  cairo_clip (cr);
  if (!vector && l->label_w >= 1 && l->plot_h >= 1)
    {
      LabelCache *lc = g_private_get (&label_key);
      if (lc == NULL)
        {
          lc = g_new0 (LabelCache, 1);
          g_private_set (&label_key, lc);
        }
      guint64 key = labels_key (cr, labels, l);
      if (lc->img == NULL || lc->key != key)
        {
          if (lc->img)
            cairo_surface_destroy (lc->img);
          lc->img = cairo_surface_create_similar (
              target, CAIRO_CONTENT_COLOR, (int) ceil (l->label_w),
              (int) ceil (l->plot_h));
          cairo_t *ic = cairo_create (lc->img);
          cairo_font_options_t *fo = cairo_font_options_create ();
          cairo_get_font_options (cr, fo);
          cairo_set_font_options (ic, fo);
          cairo_font_options_destroy (fo);
          set_rgb (ic, C_BG);
          cairo_paint (ic);
          labels_draw (ic, labels, 0);
          cairo_destroy (ic);
          lc->key = key;
        }
      cairo_set_source_surface (cr, lc->img, 0, l->plot_y);
      cairo_paint (cr);
    }
  else
    labels_draw (cr, labels, l->plot_y);   /* vector targets: text stays text */
  cairo_restore (cr);
  labels_free (labels);
  set_rgb (cr, C_RULE);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, l->label_w - 0.5, l->plot_y);
  cairo_line_to (cr, l->label_w - 0.5, l->plot_y + l->plot_h);
  cairo_stroke (cr);
}

enum { SW_BOX, SW_TRI, SW_STRIP, SW_LINE };

/* One legend entry at place n: a swatch of colour c and its name. */
static void
legend_item (cairo_t *cr, PangoLayout *pl, const MvLayout *l, guint n,
             int shape, guint32 c, const char *name)
{
  guint per_row = MAX ((guint) ((l->width - 24) / 170), 1u);
  double top = l->plot_y + l->plot_h;
  double x = 12 + (n % per_row) * 170.0;
  double y = top + 10 + (n / per_row) * 20.0;
  if (shape == SW_BOX)
    cairo_rectangle (cr, x, y + 3, 14, 10);
  else if (shape == SW_TRI)
    {
      cairo_move_to (cr, x + 2, y + 3);
      cairo_line_to (cr, x + 12, y + 3);
      cairo_line_to (cr, x + 7, y + 13);
      cairo_close_path (cr);
    }
  else if (shape == SW_STRIP)
    cairo_rectangle (cr, x, y + 3, 14, 4);
  else
    {
      cairo_move_to (cr, x, y + 12);
      cairo_line_to (cr, x + 5, y + 12);
      cairo_line_to (cr, x + 5, y + 5);
      cairo_line_to (cr, x + 14, y + 5);
      set_rgb (cr, c);
      cairo_stroke (cr);
    }
  if (shape != SW_LINE)
    {
      set_rgb (cr, c);
      cairo_fill_preserve (cr);
      set_rgb (cr, darker (c));
      cairo_stroke (cr);
    }
  cairo_save (cr);
  cairo_rectangle (cr, x + 20, y, 146, 18);
  cairo_clip (cr);
  text_at (cr, pl, name ? name : "?", x + 20, y + 8, 0, C_TEXT);
  cairo_restore (cr);
}

static int
count_cmp (gconstpointer a, gconstpointer b)
{
  const guint32 *x = a, *y = b;
  return x[1] < y[1] ? 1 : x[1] > y[1] ? -1 : (x[0] > y[0]) - (x[0] < y[0]);
}

/* The sample strips' most common functions (pixel columns), at most
 * MV_LEGEND_SAMPLE_FUNCS: pairs (function, columns), most first. */
static GArray *
sample_funcs (const MvScene *s)
{
  GHashTable *h = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < s->nlanes; i++)
    for (int x = 0; s->lanes[i].sample_fn && x < s->p.width; x++)
      if (s->lanes[i].sample_fn[x])
        {
          gpointer k = GUINT_TO_POINTER (s->lanes[i].sample_fn[x]);
          g_hash_table_insert (h, k, GUINT_TO_POINTER
                                       (GPOINTER_TO_UINT
                                          (g_hash_table_lookup (h, k)) + 1));
        }
  GArray *a = g_array_new (FALSE, FALSE, 2 * sizeof (guint32));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, h);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      guint32 e[2] = { GPOINTER_TO_UINT (k), GPOINTER_TO_UINT (v) };
      g_array_append_vals (a, e, 1);
    }
  g_hash_table_destroy (h);
  g_array_sort (a, count_cmp);
  if (a->len > MV_LEGEND_SAMPLE_FUNCS)
    g_array_set_size (a, MV_LEGEND_SAMPLE_FUNCS);
  return a;
}

static void
draw_legend (cairo_t *cr, const MvScene *s, const MvLayout *l,
             const MvDrawOpts *o)
{
  const MvLog *log = s->log;
  if (l->legend_h <= 0)
    return;
  PangoLayout *pl = make_layout (cr, "Sans 8");
  double top = l->plot_y + l->plot_h;
  set_rgb (cr, C_RULE);
  cairo_move_to (cr, 0, top + 0.5);
  cairo_line_to (cr, l->width, top + 0.5);
  cairo_stroke (cr);
  guint n = 0;
  for (guint i = 0; i < log->nstates; i++)
    legend_item (cr, pl, l, n++, SW_BOX, mv_log_state (log, i)->rgb,
                 mv_log_state (log, i)->name);
  for (guint i = 0; i < log->nevdefs; i++)
    legend_item (cr, pl, l, n++, SW_TRI, mv_log_evdef (log, i)->rgb,
                 mv_log_evdef (log, i)->name);
  if (legend_log_items (log))
    legend_item (cr, pl, l, n++, SW_TRI, MV_LOSS_RGB,
                 "events lost (buffer full)");
  /* The layers drawn, each named (mv_legend_layer_items). */
  if (s->p.show_waits)
    legend_item (cr, pl, l, n++, SW_STRIP, MV_WAIT_HATCH_RGB,
                 "MPI waits (hatched)");
  if (s->p.show_sched)
    {
      legend_item (cr, pl, l, n++, SW_STRIP, MV_OFFCPU_BLOCKED_RGB,
                   "off CPU: blocked");
      legend_item (cr, pl, l, n++, SW_STRIP, MV_OFFCPU_PREEMPTED_RGB,
                   "off CPU: preempted");
    }
  if (s->p.show_metric || s->p.restrack)
    {
      char *name = NULL;
      if (s->p.restrack)
        name = g_strdup (mv_restrack_name (s->p.restrack));
      else
        {
          int di = logfmt_reader_find_metric (log->reader, s->p.metric);
          const logfmt_metric_def_t *d
            = di >= 0 ? logfmt_reader_metric (log->reader, (size_t) di)
                      : NULL;
          gboolean unit = d && d->unit && strcmp (d->unit, "1") != 0;
          name = g_strdup_printf ("counter: %s%s%s%s",
                                  d && d->name ? d->name : "metric",
                                  unit ? " (" : "", unit ? d->unit : "",
                                  unit ? ")" : "");
        }
      legend_item (cr, pl, l, n++, SW_LINE, C_COUNTER, name);
      g_free (name);
    }
  if (s->p.samples)
    {
      GArray *f = sample_funcs (s);
      for (guint i = 0; i < f->len; i++)
        {
          const char *name = mv_sample_source_func_name
                               (s->p.samples,
                                g_array_index (f, guint32, 2 * i));
          char *label = g_strdup_printf ("sampled: %s", name ? name : "?");
          legend_item (cr, pl, l, n++, SW_STRIP, mv_sample_func_rgb (name),
                       label);
          g_free (label);
        }
      g_array_unref (f);
    }
  (void) o;
  g_object_unref (pl);
}

/* A counter value for the scale: bytes (resource tracks) in B/KB/MB,
 * others compact (12.3k, 4.5M) with the metric's unit. */
static char *
counter_text (const MvScene *s, gint64 v)
{
  if (s->p.restrack)
    {
      char *sz = g_format_size ((guint64) MAX (v, 0));
      char *t = g_strconcat (sz, s->p.restrack == MV_RESTRACK_NETWORK
                                 ? "/s" : "", NULL);
      g_free (sz);
      return t;
    }
  int di = logfmt_reader_find_metric (s->log->reader, s->p.metric);
  const logfmt_metric_def_t *d
    = di >= 0 ? logfmt_reader_metric (s->log->reader, (size_t) di) : NULL;
  const char *unit = d && d->unit && strcmp (d->unit, "1") != 0 ? d->unit
                                                                 : "";
  double a = fabs ((double) v);
  return a >= 1e9 ? g_strdup_printf ("%.3gG %s", v / 1e9, unit)
         : a >= 1e6 ? g_strdup_printf ("%.3gM %s", v / 1e6, unit)
         : a >= 1e4 ? g_strdup_printf ("%.3gk %s", v / 1e3, unit)
         : g_strdup_printf ("%" G_GINT64_FORMAT " %s", v, unit);
}

/* Each counter strip's scale, in the label column beside it: the
 * common maximum at its top, the minimum at its bottom (where there is
 * room), in the step line's colour. */
static void
draw_counter_scale (cairo_t *cr, const MvScene *s, const MvLayout *l)
{
  if (!s->counter_known || s->nlanes == 0)
    return;
  char *hi = counter_text (s, s->counter_hi);
  char *lo = counter_text (s, s->counter_lo);
  PangoLayout *pl = make_layout (cr, "Sans 7");
  cairo_save (cr);
  cairo_rectangle (cr, 0, l->plot_y, l->label_w, l->plot_h);
  cairo_clip (cr);
  for (guint i = 0; i < s->nlanes; i++)
    {
      const MvLane *lane = &s->lanes[i];
      if (lane->counter == NULL)
        continue;
      double y, h;
      mv_scene_counter_strip (lane, &y, &h);
      y += l->plot_y;
      if (h < 9)
        continue;
      /* Under the row's own label (which sits at the row's middle). */
      set_rgb (cr, C_BG);
      cairo_rectangle (cr, 1, y, l->label_w - 2, h);
      cairo_fill (cr);
      text_at (cr, pl, hi, l->label_w - 4, y + 5, 1, C_COUNTER);
      if (h >= 22)
        text_at (cr, pl, lo, l->label_w - 4, y + h - 5, 1, C_COUNTER);
    }
  cairo_restore (cr);
  g_object_unref (pl);
  g_free (hi);
  g_free (lo);
}

void
mv_draw_frame (cairo_t *cr, const MvScene *s, const MvLayout *l,
               const MvDrawOpts *o)
{
  cairo_save (cr);
  set_rgb (cr, C_BG);
  cairo_rectangle (cr, 0, 0, l->width, l->ruler_h);
  cairo_rectangle (cr, 0, l->ruler_h, l->label_w, l->plot_h);
  cairo_rectangle (cr, l->plot_x + l->plot_w, l->ruler_h,
                   l->width - l->plot_x - l->plot_w, l->plot_h);
  cairo_rectangle (cr, 0, l->plot_y + l->plot_h, l->width, l->legend_h);
  cairo_fill (cr);
  draw_ruler (cr, s, l, o);
  draw_labels (cr, s, l);
  draw_counter_scale (cr, s, l);
  draw_legend (cr, s, l, o);
  cairo_restore (cr);
}

void
mv_draw_timeline (cairo_t *cr, const MvScene *s, const MvLayout *l,
                  const MvDrawOpts *o)
{
  cairo_save (cr);
  cairo_translate (cr, l->plot_x, l->plot_y);
  mv_draw_plot (cr, s, l->plot_w, l->plot_h, o);
  if (o && o->has_sel && o->sel_t1 > o->sel_t0)
    {
      MvTimeMap map = mv_time_map (s->p.t0, s->p.t1, l->plot_w);
      double a = mv_time_map_x (&map, o->sel_t0);
      double b = mv_time_map_x (&map, o->sel_t1);
      set_rgba (cr, C_SEL, 0.15);
      cairo_rectangle (cr, a, 0, b - a, l->plot_h);
      cairo_fill (cr);
    }
  if (s->log->warning || s->problem)
    {
      /* What is missing, over the plot's bottom left corner. */
      char *msg = g_strdup_printf ("%s%s%s", s->problem ? s->problem : "",
                                   s->problem && s->log->warning ? " · " : "",
                                   s->log->warning ? s->log->warning : "");
      PangoLayout *pl = make_layout (cr, "Sans 9");
      pango_layout_set_width (pl, (int) (MAX (l->plot_w - 24, 50))
                                  * PANGO_SCALE);
      pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
      pango_layout_set_text (pl, msg, -1);
      int tw, th;
      pango_layout_get_pixel_size (pl, &tw, &th);
      double y = MAX (l->plot_h - th - 14, 0);
      set_rgb (cr, C_NOTE_BG);
      cairo_rectangle (cr, 6, y, tw + 12, th + 8);
      cairo_fill (cr);
      set_rgb (cr, C_NOTE);
      cairo_move_to (cr, 12, y + 4);
      pango_cairo_show_layout (cr, pl);
      g_object_unref (pl);
      g_free (msg);
    }
  cairo_restore (cr);
  mv_draw_frame (cr, s, l, o);
}

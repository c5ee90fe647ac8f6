/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>

#include "mv-view.h"

#define MIN_SPAN 10u
#define HISTORY_MAX 64

void
mv_view_init (MvView *v, guint64 lo, guint64 hi, double width)
{
  v->lo = lo;
  v->hi = MAX (hi, lo + MIN_SPAN);
  v->t0 = v->lo;
  v->t1 = v->hi;
  v->width = MAX (width, 1.0);
  v->row_h = 22;
  v->y0 = 0;
  v->back = g_array_new (FALSE, FALSE, sizeof (guint64));
  v->fwd = g_array_new (FALSE, FALSE, sizeof (guint64));
}

void
mv_view_clear (MvView *v)
{
  g_clear_pointer (&v->back, g_array_unref);
  g_clear_pointer (&v->fwd, g_array_unref);
}

double
mv_time_map_dt (const MvTimeMap *m, double x)
{
  return x / m->width * m->span;
}

/* t + off (ns, may be negative) to the nearest ns (halves up), in
 * integers (t may be beyond a double's exact range), clamped to
 * [0, G_MAXUINT64]. */
static guint64
add_offset (guint64 t, double off)
{
  double d = floor (off + 0.5);
  if (d < 0)
    return -d >= (double) t ? 0 : t - (guint64) -d;
  if (d >= (double) (G_MAXUINT64 - t))
    return G_MAXUINT64;
  return t + (guint64) d;
}

guint64
mv_time_map_t (const MvTimeMap *m, double x)
{
  return add_offset (m->t0, mv_time_map_dt (m, x));
}

MvTimeMap
mv_view_map (const MvView *v)
{
  return mv_time_map (v->t0, v->t1, v->width);
}

double
mv_view_time_to_x (const MvView *v, guint64 t)
{
  MvTimeMap m = mv_view_map (v);
  return mv_time_map_x (&m, t);
}

guint64
mv_view_x_to_time (const MvView *v, double x)
{
  MvTimeMap m = mv_view_map (v);
  return CLAMP (mv_time_map_t (&m, x), v->lo, v->hi);
}

static void
push (GArray *a, guint64 t0, guint64 t1)
{
  if (a == NULL)
    return;
  if (a->len >= 2 * HISTORY_MAX)
    g_array_remove_range (a, 0, 2);
  g_array_append_val (a, t0);
  g_array_append_val (a, t1);
}

void
mv_view_set (MvView *v, guint64 t0, guint64 t1, gboolean history)
{
  if (t1 < t0)
    {
      guint64 x = t0;
      t0 = t1;
      t1 = x;
    }
  guint64 full = v->hi - v->lo;
  guint64 span = t1 - t0;
  if (span < MIN_SPAN)
    span = MIN_SPAN;
  if (span > full)
    span = full;
  if (t0 < v->lo)
    t0 = v->lo;
  if (t0 > v->hi - span)
    t0 = v->hi - span;
  if (t0 == v->t0 && t0 + span == v->t1)
    return;
  if (history)
    {
      push (v->back, v->t0, v->t1);
      if (v->fwd)
        g_array_set_size (v->fwd, 0);
    }
  v->t0 = t0;
  v->t1 = t0 + span;
}

void
mv_view_zoom_at (MvView *v, double x, double factor)
{
  MvTimeMap m = mv_view_map (v);
  double nspan = MAX (m.span / factor, (double) MIN_SPAN);
  /* Offsets from t0 in ns: x keeps showing the time it shows now. */
  double nt0 = mv_time_map_dt (&m, x) - (x / v->width) * nspan;
  nt0 = MAX (nt0, -(double) (v->t0 - v->lo));
  mv_view_set (v, add_offset (v->t0, nt0), add_offset (v->t0, nt0 + nspan),
               FALSE);
}

void
mv_view_remember (MvView *v)
{
  push (v->back, v->t0, v->t1);
  if (v->fwd)
    g_array_set_size (v->fwd, 0);
}

void
mv_view_pan (MvView *v, double dx)
{
  MvTimeMap m = mv_view_map (v);
  guint64 span = v->t1 - v->t0;
  guint64 t0 = CLAMP (mv_time_map_t (&m, dx), v->lo, v->hi - span);
  mv_view_set (v, t0, t0 + span, FALSE);
}

void
mv_view_fit (MvView *v)
{
  mv_view_set (v, v->lo, v->hi, TRUE);
}

static gboolean
hop (MvView *v, GArray *from, GArray *to)
{
  if (from == NULL || from->len < 2)
    return FALSE;
  guint64 t0 = g_array_index (from, guint64, from->len - 2);
  guint64 t1 = g_array_index (from, guint64, from->len - 1);
  g_array_set_size (from, from->len - 2);
  push (to, v->t0, v->t1);
  mv_view_set (v, t0, t1, FALSE);
  return TRUE;
}

gboolean
mv_view_back (MvView *v)
{
  return hop (v, v->back, v->fwd);
}

gboolean
mv_view_forward (MvView *v)
{
  return hop (v, v->fwd, v->back);
}

guint64
mv_ticks_step (guint64 span, double width, double min_px)
{
  static const guint64 mult[] = { 1, 2, 5 };
  guint64 dec = 1;
  for (int k = 0; k < 19; k++, dec *= 10)
    for (int m = 0; m < 3; m++)
      {
        guint64 step = mult[m] * dec;
        if ((double) step * width / (double) MAX (span, 1) >= min_px)
          return step;
      }
  return dec;
}

void
mv_format_time (guint64 t, guint64 step, char *buf, gsize len)
{
  static const struct { guint64 unit; const char *name; } units[] = {
    { 1000000000u, "s" }, { 1000000u, "ms" }, { 1000u, "us" }, { 1u, "ns" },
  };
  int u = 0;
  /* The largest unit at most 10 steps long: 500 us steps read as ms. */
  while (u < 3 && step * 10 < units[u].unit)
    u++;
  /* Digits after the point so that the step is shown exactly. */
  int digits = 0;
  for (guint64 q = units[u].unit; q > 1 && step % q != 0; q /= 10)
    digits++;
  g_snprintf (buf, len, "%.*f %s", digits,
              (double) t / (double) units[u].unit, units[u].name);
}

void
mv_format_duration (guint64 d, char *buf, gsize len)
{
  if (d < 1000u)
    g_snprintf (buf, len, "%" G_GUINT64_FORMAT " ns", d);
  else if (d < 1000000u)
    g_snprintf (buf, len, "%.4g us", d / 1e3);
  else if (d < 1000000000u)
    g_snprintf (buf, len, "%.4g ms", d / 1e6);
  else
    g_snprintf (buf, len, "%.4g s", d / 1e9);
}

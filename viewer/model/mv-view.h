/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MvView: the visible window [t0, t1] mapped onto `width` pixels, the
 * vertical scroll position, and the zoom history.  One object owns the
 * time <-> pixel mapping that every drawing path uses.
 */
#ifndef MV_VIEW_H
#define MV_VIEW_H

#include <glib.h>

G_BEGIN_DECLS

/* The one time <-> pixel mapping: [t0, t1] onto [0, width] pixels.
 * Every path that places something in time uses it, so the same time
 * lands on the same pixel in the scene, the drawing and the widgets:
 * mv_time_map_x (t0) == 0 and mv_time_map_x (t1) == width exactly, and
 * mv_time_map_t inverts it (rounded to the nearest nanosecond). */
typedef struct
{
  guint64 t0, t1;       /* t1 > t0 */
  double  width;        /* pixels */
  double  span;         /* t1 - t0, as a double */
  double  scale;        /* width / span: pixels per ns */
} MvTimeMap;

static inline MvTimeMap
mv_time_map (guint64 t0, guint64 t1, double width)
{
  MvTimeMap m = { t0, MAX (t1, t0 + 1), width, 0, 0 };
  m.span = (double) (m.t1 - m.t0);
  m.scale = width / m.span;
  return m;
}

/* Inline, one multiply: the scene maps every decoded event through it.
 * The signed difference is taken in integers first (times may be ~1e18
 * ns since the epoch, beyond a double's exact range), then scaled; t1
 * itself maps to exactly width (a product could miss it by an ulp). */
static inline double
mv_time_map_x (const MvTimeMap *m, guint64 t)
{
  if (G_UNLIKELY (t == m->t1))
    return m->width;
  double d = t >= m->t0 ? (double) (t - m->t0) : -(double) (m->t0 - t);
  return d * m->scale;
}

/* The time at pixel x as an offset from t0, in ns (not rounded). */
double  mv_time_map_dt (const MvTimeMap *m, double x);
/* The time at pixel x, rounded to the nearest ns, clamped to
 * [0, G_MAXUINT64]. */
guint64 mv_time_map_t (const MvTimeMap *m, double x);

typedef struct
{
  guint64 t0, t1;       /* visible time window, ns, t1 > t0 */
  guint64 lo, hi;       /* whole run; the window stays inside it */
  double  width;        /* plot width in pixels */
  double  row_h;        /* pixels per row (may be < 1: rows aggregate) */
  double  y0;           /* first visible pixel of the rows area */
  GArray *back;         /* zoom history: pairs of guint64 */
  GArray *fwd;
} MvView;

void    mv_view_init (MvView *v, guint64 lo, guint64 hi, double width);
void    mv_view_clear (MvView *v);
/* The window's MvTimeMap. */
MvTimeMap mv_view_map (const MvView *v);
double  mv_view_time_to_x (const MvView *v, guint64 t);
/* Clamped to [lo, hi]. */
guint64 mv_view_x_to_time (const MvView *v, double x);
/* Sets the window (clamped; span at least 10 ns); records history. */
void    mv_view_set (MvView *v, guint64 t0, guint64 t1, gboolean history);
/* Zooms by `factor` (> 1 zooms in) keeping the time under x fixed. */
void    mv_view_zoom_at (MvView *v, double x, double factor);
/* Pans by dx pixels (positive shows later times). */
void    mv_view_pan (MvView *v, double dx);
/* Records the window in the history (before steps that do not). */
void    mv_view_remember (MvView *v);
void    mv_view_fit (MvView *v);
gboolean mv_view_back (MvView *v);
gboolean mv_view_forward (MvView *v);

/* Time-ruler ticks: a step from the 1-2-5 table so that labels are at
 * least min_px apart.  Returns the step in ns. */
guint64 mv_ticks_step (guint64 span, double width, double min_px);
/* "1.5 ms", "250 us", "3 s": shortest exact-enough form for step. */
void    mv_format_time (guint64 t, guint64 step, char *buf, gsize len);
/* Duration with 3-4 significant digits, e.g. "12.3 us". */
void    mv_format_duration (guint64 d, char *buf, gsize len);

G_END_DECLS

#endif

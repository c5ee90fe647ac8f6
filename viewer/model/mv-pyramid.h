/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Occupancy pyramids: per bin of a stream (or of a lane of several), the
 * innermost state that dominates it (2 bytes, 0xffff none) and how much
 * of the bin states cover (1 byte, 0-255); nb base bins, then halves,
 * `levels` levels in all, so a frame reads about one bin per pixel
 * whatever the zoom.  Pure functions: the cache (mv-cache.c) keeps them.
 */
#ifndef MV_PYRAMID_H
#define MV_PYRAMID_H

#include <glib.h>

G_BEGIN_DECLS

/* Bytes of the first k levels of a pyramid of nb base bins (the offset
 * of level k). */
gsize mv_pyr_offset (guint nb, guint k);

/* Fills a pyramid (q, mv_pyr_offset (nb, nlev) bytes) from occupancy
 * fractions (nb bins x ns states), which are averaged pairwise in place
 * for each coarser level. */
void  mv_pyr_build (float *occ, guint nb, guint ns, guint nlev, guint8 *q);

/* Where each pixel of a window falls in the pyramids: the coarsest
 * level with at least one bin per pixel, and per pixel its first bin and
 * the overlap of up to 4 bins.  Computed once per frame: every lane
 * shares it. */
typedef struct
{
  guint    width;      /* pixels */
  guint    n;          /* bins of the level */
  gsize    off;        /* level's offset in a pyramid */
  double   first, per; /* pixel 0's first bin, bins per pixel */
  gint32  *b0;         /* per pixel: first bin */
  guint8  *nbins;      /* per pixel: bins overlapped (0..4) */
  float   *w;          /* per pixel: 4 overlaps, in pixel fractions */
  guint32 *run;        /* per pixel: how many pixels from it on (itself
                          included) have its bins and overlaps, so its
                          colour (zoomed in past the pyramid: long runs
                          in one bin) */
} MvPyrGeom;

/* The window [t0, t1] on width pixels, over pyramids of nb bins and
 * nlev levels spanning [lo, hi]. */
void  mv_pyr_geom_init (MvPyrGeom *g, guint nb, guint nlev, guint64 lo,
                        guint64 hi, guint64 t0, guint64 t1, guint width);
void  mv_pyr_geom_clear (MvPyrGeom *g);

/* A lane's pixel columns [xa, xb) from a pyramid: the dominant state
 * and the coverage, coloured through lut (state x coverage 0-255), or
 * bg where no state is; hidden states (flags, may be NULL) are left out.
 * Every pixel of the range is written. */
void  mv_pyr_sample (const MvPyrGeom *g, const guint8 *pyr, guint nstates,
                     const guint8 *hidden, const guint32 *lut, guint32 bg,
                     guint32 *pixels, gint16 *dominant, guint8 *pct,
                     guint xa, guint xb);

G_END_DECLS

#endif

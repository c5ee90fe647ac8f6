/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mv-pyramid.h"

gsize
mv_pyr_offset (guint nb, guint k)
{
  gsize n = 0;
  for (guint i = 0; i < k; i++)
    n += nb >> i;
  return 3 * n;
}

void
mv_pyr_build (float *occ, guint nb, guint ns, guint nlev, guint8 *q)
{
  for (guint k = 0; k < nlev; k++)
    {
      guint n = nb >> k;
      if (k > 0)
        for (guint b = 0; b < n; b++)
          for (guint j = 0; j < ns; j++)
            occ[(gsize) b * ns + j] = 0.5f * (occ[(gsize) 2 * b * ns + j]
                                              + occ[(gsize) (2 * b + 1) * ns
                                                    + j]);
      for (guint b = 0; b < n; b++, q += 3)
        {
          /* The dominant state, and how much of the bin any state
           * covers: a busy bin stays a strong colour even when several
           * states share it. */
          float best = 0, total = 0;
          guint dom = 0xffff;
          const float *o = occ + (gsize) b * ns;
          for (guint j = 0; j < ns; j++)
            {
              total += o[j];
              if (o[j] > best)
                {
                  best = o[j];
                  dom = j;
                }
            }
          q[0] = dom & 0xff;
          q[1] = dom >> 8;
          q[2] = (guint8) lround (CLAMP (total, 0, 1) * 255);
        }
    }
}

void
mv_pyr_geom_init (MvPyrGeom *g, guint nb, guint nlev, guint64 lo,
                  guint64 hi, guint64 t0, guint64 t1, guint w)
{
  double cbin = (double) (hi - lo) / nb;
  double first = ((double) t0 - (double) lo) / cbin;
  double per = (double) (t1 - t0) / w / cbin;  /* bins/pixel */
  guint k = 0;
  while (k + 1 < nlev && per >= 2.0)
    {
      per /= 2;
      first /= 2;
      k++;
    }
  g->width = w;
  g->n = nb >> k;
  g->off = mv_pyr_offset (nb, k);
  g->first = first;
  g->per = per;
  g->b0 = g_new (gint32, w);
  g->nbins = g_new0 (guint8, w);
  g->w = g_new0 (float, (gsize) w * 4);
  g->run = g_new (guint32, MAX (w, 1));
  for (guint x = 0; x < w; x++)
    {
      double xa = first + x * per, xb = xa + per;
      gint64 b0 = MAX ((gint64) floor (xa), 0);
      gint64 b1 = MIN ((gint64) ceil (xb), (gint64) g->n);
      /* More than 4 bins only at the coarsest level: keep the 4 first
       * (a zoomed-out view of a pyramid that stops early). */
      b1 = MIN (b1, b0 + 4);
      g->b0[x] = (gint32) b0;
      for (gint64 b = b0; b < b1; b++)
        {
          double ov = MIN (xb, (double) b + 1) - MAX (xa, (double) b);
          g->w[(gsize) x * 4 + g->nbins[x]++] = (float) (MAX (ov, 0) / per);
        }
    }
  /* Runs, from the right: a pixel continues its right neighbour's run
   * if both lie in the same one bin with the same overlap (more bins
   * than one: rarely the same, not worth comparing). */
  for (guint x = w; x-- > 0;)
    g->run[x] = x + 1 < w && g->nbins[x] == 1 && g->nbins[x + 1] == 1
                && g->b0[x] == g->b0[x + 1]
                && g->w[(gsize) x * 4] == g->w[(gsize) (x + 1) * 4]
                ? g->run[x + 1] + 1 : 1;
}

void
mv_pyr_geom_clear (MvPyrGeom *g)
{
  g_free (g->b0);
  g_free (g->nbins);
  g_free (g->w);
  g_free (g->run);
}

void
mv_pyr_sample (const MvPyrGeom *g, const guint8 *pyr, guint ns,
               const guint8 *hid, const guint32 *lut, guint32 bg,
               guint32 *pixels,
               gint16 *dominant_out, guint8 *pct_out, guint xa, guint xb)
{
  const guint8 *q = pyr + g->off;
  /* Locals, so the stores below are not taken to alias the inputs. */
  guint32 *restrict pix = pixels;
  gint16 *restrict dominant = dominant_out;
  guint8 *restrict pct = pct_out;
  const gint32 *restrict b0 = g->b0;
  const guint8 *restrict nbins = g->nbins;
  const float *restrict w = g->w;
  const guint32 *restrict run = g->run;
  /* One colour per run of pixels (zoomed in past the pyramid, pixels
   * share bins), stored along it: the fill is a plain loop, without
   * reading back what was just stored. */
  for (guint x = xa, n; x < xb; x += n)
    {
      n = MIN (run[x], xb - x);
      guint32 pv;
      gint16 dv;
      guint8 cv;
      const guint8 *e = q + 3 * (gsize) b0[x];
      const float *wx = w + (gsize) x * 4;
      guint dstate[4];
      float dw[4];
      guint nd = 0;
      float cov = 0;
      for (guint j = 0; j < nbins[x]; j++, e += 3)
        {
          guint dom = e[0] | (guint) e[1] << 8;
          if (dom >= ns || e[2] == 0 || (hid && hid[dom]))
            continue;
          float v = wx[j] * e[2];
          cov += v;
          guint i = 0;
          while (i < nd && dstate[i] != dom)
            i++;
          if (i == nd)
            {
              dstate[nd] = dom;
              dw[nd++] = 0;
            }
          dw[i] += v;
        }
      if (nd == 0)
        {
          pv = bg;
          dv = -1;
          cv = 0;
        }
      else
        {
          guint bj = 0;
          for (guint i = 1; i < nd; i++)
            if (dw[i] > dw[bj])
              bj = i;
          guint c = (guint) MIN (cov + 0.5f, 255.0f);
          pv = lut[(gsize) dstate[bj] * 256 + c];
          dv = (gint16) dstate[bj];
          cv = (guint8) MIN (cov * (100.0f / 255) + 0.5f, 100);
        }
      for (guint i = x; i < x + n; i++)
        {
          pix[i] = pv;
          dominant[i] = dv;
          pct[i] = cv;
        }
    }
}

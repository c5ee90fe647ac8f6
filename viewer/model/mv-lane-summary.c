/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Summary lanes: per pixel column the dominant state and how much of
 * the pixel states cover, sampled from the cache's pyramids (a lane of
 * several rows from a pyramid summed over them), or from the file's
 * summary for the window when zoomed in past the pyramids.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mv-scene-build.h"

static guint
hidden_hash (const MvScene *s)
{
  guint h = 0;
  for (guint k = 0; s->p.state_hidden && k < s->log->nstates; k++)
    h = h * 31 + (s->p.state_hidden[k] ? k + 1 : 0);
  return h;
}

/* How many pixels the view moved since the memo's frame (new pixel x
 * is the memo's pixel x + shift), if the frames differ only by a pan of
 * whole pixels: same lanes, size, pyramid level and scale, hidden
 * states.  A pan by a fraction of a pixel resamples every pixel. */
static gboolean
memo_shift (const MvLaneMemo *m, const MvScene *s, const MvPyrGeom *g,
            guint hid, gint *shift)
{
  if (m == NULL || m->nlanes != s->nlanes || m->width != s->p.width
      || m->height != s->p.height || m->row_h != s->p.row_h
      || m->y0 != s->p.y0 || m->off != g->off || m->hidden != hid
      || fabs (m->per - g->per) > 1e-9 * g->per)
    return FALSE;
  /* Times are whole nanoseconds, so a pan of whole pixels can be off
   * by a nanosecond: that much is the same picture. */
  double d = (g->first - m->first) / g->per;
  double px_ns = (double) (s->p.t1 - s->p.t0) / s->p.width;
  if (fabs (d - round (d)) * px_ns > 1.0 + 1e-3 * px_ns
      || fabs (d) >= s->p.width)
    return FALSE;
  *shift = (gint) round (d);
  return TRUE;
}

void
mv__summary_frame_init (MvScene *s, MvSummaryFrame *f)
{
  MvLog *log = s->log;
  MvCache *cache = s->cache;
  const MvSceneParams *p = &s->p;
  mv_pyr_geom_init (&f->geom, mv_cache_bins (cache), mv_cache_levels (cache),
                    mv_log_t_first (log), mv_log_t_last (log), p->t0, p->t1,
                    p->width);
  f->hid = hidden_hash (s);
  /* A memo this frame cannot use is dropped first, so its block can
   * serve this frame (mv_cache_block_new).  Fine lanes neither use nor
   * replace it: the coarse stage before them made it, for the next
   * coarse stage (a pan); nor do group headers among decoded rows. */
  if (!s->fine && s->summary)
    {
      f->memo = mv_cache_memo_get (cache);
      if (f->memo && !memo_shift (f->memo, s, &f->geom, f->hid, &f->shift))
        {
          mv_cache_memo_drop (cache, f->memo);
          mv_lane_memo_unref (cache, g_steal_pointer (&f->memo));
        }
    }
  /* One block for every lane's arrays. */
  gsize bsize = (gsize) MAX (s->nlanes, 1) * p->width
                * (sizeof (guint32) + sizeof (gint16) + sizeof (guint8));
  s->lane_block = mv_cache_block_new (cache, bsize);
  mv_cache_block_ahead (cache, bsize);
  guint first, last;
  mv_scene_visible_rows (log, p, &first, &last);
  /* Grouped rows: big groups' rows are read by their lanes, without
   * keeping their pyramids; so are the rows of pixel rows holding as
   * many (100,000 processes ungrouped). */
  if (!p->sample_rows && p->slots == NULL
      && !mv__rows_per_pixel_many (log, p))
    mv_cache_prefill (cache, first, last);
  guint ns = MAX (log->nstates, 1);
  guint32 *rgb = g_new (guint32, ns);
  guint32 *lut = g_new (guint32, (gsize) ns * 256);
  for (guint k = 0; k < log->nstates; k++)
    {
      rgb[k] = mv_log_state (log, k)->rgb;
      for (guint c = 0; c < 256; c++)
        {
          guint32 out = 0;
          for (int sh = 16; sh >= 0; sh -= 8)
            {
              guint v = (c * ((rgb[k] >> sh) & 0xff)
                         + (255 - c) * ((MV_SCENE_BG_RGB >> sh) & 0xff)
                         + 127) / 255;
              out |= (guint32) v << sh;
            }
          lut[(gsize) k * 256 + c] = out;
        }
    }
  f->rgb = rgb;
  f->lut = lut;
}

void
mv__summary_frame_publish (MvScene *s, MvSummaryFrame *f)
{
  MvLaneMemo *m = g_new0 (MvLaneMemo, 1);
  m->ref = 1;
  m->width = s->p.width;
  m->height = s->p.height;
  m->row_h = s->p.row_h;
  m->y0 = s->p.y0;
  m->off = f->geom.off;
  m->first = f->geom.first;
  m->per = f->geom.per;
  m->hidden = f->hid;
  m->nlanes = s->nlanes;
  m->block = mv_block_ref (s->lane_block);
  m->lanes = g_new0 (MvMemoLane, MAX (s->nlanes, 1));
  for (guint i = 0; i < s->nlanes; i++)
    {
      const MvLane *l = &s->lanes[i];
      MvMemoLane *c = &m->lanes[i];
      c->row_first = l->row_first;
      c->row_count = l->row_count;
      if (l->from_pyramid)
        {
          c->pixels = l->pixels;
          c->dominant = l->dominant;
          c->dom_pct = l->dom_pct;
        }
    }
  mv_cache_memo_publish (s->cache, m);
}

void
mv__summary_frame_clear (MvScene *s, MvSummaryFrame *f)
{
  mv_lane_memo_unref (s->cache, f->memo);
  g_free ((gpointer) f->rgb);
  g_free ((gpointer) f->lut);
  mv_pyr_geom_clear (&f->geom);
  memset (f, 0, sizeof *f);
}

/* The pyramid of a lane holding several rows (the dominant state of
 * each row's bins, summed over the rows), built once and kept: pans and
 * zooms then cost one pass over the pixels per lane.  After the pyramid:
 * the rank of its first row with a damaged summary, or -1 (gint32). */
static GBytes *
lane_pyr (MvScene *s, const MvLane *lane, guint hid)
{
  MvLog *log = s->log;
  MvCache *cache = s->cache;
  /* A first stage over many unread rows reads k of them, spread over
   * the lane (kept apart from the exact pyramid: bit 63 of the key). */
  guint k = s->p.sample_rows && lane->row_count > s->p.sample_rows
            ? s->p.sample_rows : lane->row_count;
  guint64 key = (guint64) lane->row_first << 32 | lane->row_count;
  /* The exact one, if built already, serves a first stage too. */
  GBytes *b = mv_cache_lane_pyr_get (cache, key, hid);
  if (b)
    return b;
  if (k < lane->row_count)
    {
      g_atomic_int_set (&s->rows_sampled, TRUE);
      key |= 1ull << 63;
      if ((b = mv_cache_lane_pyr_get (cache, key, hid)))
        return b;
    }
  guint nb = mv_cache_bins (cache), ns = log->nstates;
  float *acc = g_new0 (float, (gsize) nb * ns);
  float inv = 1.0f / (255.0f * k);
  gint32 damaged = -1;
  /* A big group's rows, or a pixel row's as many, are read without
   * keeping their pyramids. */
  guint8 *scratch = lane->row_count > MV_SCENE_FINE_MAX_GROUP_ROWS
    ? g_malloc (mv_pyr_offset (nb, mv_cache_levels (cache))) : NULL;
  for (guint j = 0; j < k; j++)
    {
      guint r = (guint) ((guint64) j * lane->row_count / k
                         + lane->row_count / (2 * k));
      guint32 st = log->rows[lane->row_first + r].stream;
      MvPyrQuality q;
      const guint8 *c = scratch
        ? mv_cache_pyramid_scratch (cache, st, scratch, &q)
        : mv_cache_pyramid (cache, st, &q);
      if (q == MV_PYR_DAMAGED && damaged < 0)
        damaged = log->rows[lane->row_first + r].rank;
      for (guint i = 0; i < nb; i++, c += 3)
        {
          guint dom = c[0] | (guint) c[1] << 8;
          if (dom < ns && c[2] != 0
              && !(s->p.state_hidden && s->p.state_hidden[dom]))
            acc[(gsize) i * ns + dom] += c[2] * inv;
        }
    }
  g_free (scratch);
  gsize bytes = mv_pyr_offset (nb, mv_cache_levels (cache)) + sizeof damaged;
  guint8 *q = g_malloc (bytes);
  mv_pyr_build (acc, nb, ns, mv_cache_levels (cache), q);
  memcpy (q + bytes - sizeof damaged, &damaged, sizeof damaged);
  g_free (acc);
  b = g_bytes_new_take (q, bytes);
  mv_cache_lane_pyr_put (cache, key, hid, b);
  return b;
}

/* A lane's pixels from its pyramid: the columns the memo still has
 * (a pan) are copied, the others sampled. */
static void
lane_sample (MvScene *s, const MvSummaryFrame *f, const guint8 *pyr,
             MvLane *lane)
{
  guint w = s->p.width, ns = s->log->nstates;
  const guint8 *hid = s->p.state_hidden;
  const MvMemoLane *old = f->memo ? &f->memo->lanes[lane - s->lanes] : NULL;
  lane->from_pyramid = TRUE;
  if (old == NULL || old->pixels == NULL
      || old->row_first != lane->row_first
      || old->row_count != lane->row_count)
    {
      mv_pyr_sample (&f->geom, pyr, ns, hid, f->lut, MV_SCENE_BG_RGB,
                     lane->pixels, lane->dominant, lane->dom_pct, 0, w);
      return;
    }
  /* New x is old x + shift: keep [xa, xb). */
  gint shift = f->shift;
  guint xa = (guint) MAX (0, -shift);
  guint xb = (guint) MIN ((gint) w, (gint) w - shift);
  memcpy (lane->pixels + xa, old->pixels + xa + shift,
          (xb - xa) * sizeof *lane->pixels);
  memcpy (lane->dominant + xa, old->dominant + xa + shift,
          (xb - xa) * sizeof *lane->dominant);
  memcpy (lane->dom_pct + xa, old->dom_pct + xa + shift, xb - xa);
  g_atomic_pointer_add (&s->pan_reused, (gssize) (xb - xa));
  mv_pyr_sample (&f->geom, pyr, ns, hid, f->lut, MV_SCENE_BG_RGB,
                 lane->pixels, lane->dominant, lane->dom_pct, 0, xa);
  mv_pyr_sample (&f->geom, pyr, ns, hid, f->lut, MV_SCENE_BG_RGB,
                 lane->pixels, lane->dominant, lane->dom_pct, xb, w);
}

gboolean
mv__lane_summary (MvScene *s, MvLane *lane, const MvSummaryFrame *f,
                  float *occ, MvFineAcc *fine, guint64 *nread,
                  GError **error)
{
  MvLog *log = s->log;
  MvCache *cache = s->cache;
  guint w = s->p.width, ns = log->nstates;
  /* The arrays are in the scene's block (a pan's memo keeps it). */
  gsize i = (gsize) (lane - s->lanes);
  lane->pixels = (guint32 *) s->lane_block + i * w;
  lane->dominant = (gint16 *) (s->lane_block + (gsize) s->nlanes * w * 4)
                   + i * w;
  lane->dom_pct = s->lane_block + (gsize) s->nlanes * w * 6 + i * w;
  lane->in_block = TRUE;
  gint32 damaged = -1;
  guint32 st = log->rows[lane->row_first].stream;
  const guint8 *c = NULL;
  GBytes *b = NULL;
  MvPyrQuality quality = MV_PYR_COARSER;
  if (fine != NULL
      && (s->p.slots == NULL
          || lane->row_count <= MV_SCENE_FINE_MAX_GROUP_ROWS)
      && (lane->row_count > 1
          || mv__fine_rows_has (s->fine_rows, lane->row_first)
          || (mv_cache_pyramid (cache, st, &quality) != NULL
              && quality == MV_PYR_FINEST)))
    {
      /* A pixel row of rows whose pyramids are not kept: its own
       * pyramid is built on the way (the rows' pyramids are read for
       * their quality anyway), for the first images of later views. */
      if (ns > 0 && lane->row_count > MV_SCENE_FINE_MAX_GROUP_ROWS)
        g_bytes_unref (lane_pyr (s, lane, f->hid));
      mv__lane_fine (s, lane, fine, f->lut, nread);
      return TRUE;
    }
  if (ns > 0 && lane->row_count > 1)
    {
      gsize bytes;
      b = lane_pyr (s, lane, f->hid);
      c = g_bytes_get_data (b, &bytes);
      memcpy (&damaged, c + bytes - sizeof damaged, sizeof damaged);
    }
  else if (ns > 0)
    {
      c = mv_cache_pyramid (cache, st, &quality);
      if (quality == MV_PYR_DAMAGED)
        damaged = log->rows[lane->row_first].rank;
    }
  if (damaged >= 0)
    mv__scene_problem (s, g_strdup_printf ("rank %d: the summary is damaged "
                                           "(empty where it cannot be read)",
                                           damaged));
  double cbin = mv__run_span (log) / mv_cache_bins (cache);
  double pbin = (double) (s->p.t1 - s->p.t0) / w;
  if (b != NULL || (c != NULL && (cbin <= pbin || quality != MV_PYR_COARSER)))
    {
      lane_sample (s, f, c, lane);
      if (b)
        g_bytes_unref (b);
      return TRUE;
    }
  for (guint x = 0; x < w; x++)
    {
      lane->pixels[x] = MV_SCENE_BG_RGB;
      lane->dominant[x] = -1;
      lane->dom_pct[x] = 0;
    }
  if (ns == 0)
    return TRUE;
  /* Finer than the cache: ask the file. */
  logfmt_error_t err = { 0 };
  if (logfmt_reader_summary (log->reader, st, s->p.t0, s->p.t1, w, occ,
                             NULL, NULL, &err) != 0)
    {
      /* A damaged summary shows as empty, with a note. */
      mv__scene_problem (s, g_strdup (err.message));
      return TRUE;
    }
  const guint32 bg = MV_SCENE_BG_RGB;
  for (guint x = 0; x < w; x++)
    {
      double cov = 0, best = 0;
      int dom = -1;
      const float *row = occ + (gsize) x * ns;
      for (guint k = 0; k < ns; k++)
        {
          double v = row[k];
          if (v <= 0 || (s->p.state_hidden && s->p.state_hidden[k]))
            continue;
          cov += v;
          if (v > best)
            {
              best = v;
              dom = k;
            }
        }
      if (dom < 0)
        continue;
      cov = MIN (cov, 1.0);
      guint32 col = f->rgb[dom], out = 0;
      for (int sh = 16; sh >= 0; sh -= 8)
        {
          double v = cov * ((col >> sh) & 0xff) + (1 - cov) * ((bg >> sh) & 0xff);
          out |= (guint32) (CLAMP (v, 0, 255) + 0.5) << sh;
        }
      lane->pixels[x] = out;
      lane->dominant[x] = (gint16) dom;
      lane->dom_pct[x] = (guint8) (CLAMP (cov, 0, 1) * 100 + 0.5);
    }
  (void) error;
  return TRUE;
}

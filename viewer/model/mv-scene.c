/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mv-scene.h"
#include "mv-view.h"

/* Decode from the stream's start when that costs fewer events than this;
 * otherwise look back a few window widths for states opened earlier. */
#define FULL_LOOKBACK_EVENTS 4096u
#define LOOKBACK_SPANS       4u
/* Above this many messages in the window, arrows are not drawn (they
 * would be a solid mass; the status says to zoom in). */
#define MAX_MSGS_SCANNED     40000u

/* The part of an event the drawing needs (24 bytes instead of 88). */
typedef struct
{
  guint64 time;
  gint32  a;         /* state (BEGIN/END) or event id (SOLO) */
  guint8  kind;
  guint8  flags;
  guint16 pad;
  guint32 cargo;     /* index into the cargo array, SOLO with cargo */
} Ev;

static double
run_span (const MvLog *log)
{
  return (double) (mv_log_t_last (log) - mv_log_t_first (log));
}

/* Where a stream's decode for [t0, t1] starts: far enough back to find
 * the states open at t0 (the whole stream's start when that is cheap). */
static guint64
decode_start (const MvLog *log, guint32 stream, guint64 t0, guint64 t1)
{
  guint64 lo = mv_log_t_first (log);
  guint64 n = logfmt_reader_stream_events (log->reader, stream);
  double before = (double) n * (double) (t0 > lo ? t0 - lo : 0)
                  / MAX (run_span (log), 1);
  return before <= FULL_LOOKBACK_EVENTS ? 0
    : t0 - MIN (t0, (guint64) LOOKBACK_SPANS * (t1 - t0));
}

void
mv_scene_visible_rows (const MvLog *log, const MvSceneParams *p,
                       guint *first, guint *last)
{
  double rh = p->row_h > 0 ? p->row_h : 1;
  double f = floor (MAX (p->y0, 0) / rh);
  double l = ceil ((MAX (p->y0, 0) + p->height) / rh);
  *first = (guint) MIN (f, (double) log->nrows);
  *last = (guint) MIN (l, (double) log->nrows);
}

gboolean
mv_scene_choose_summary (const MvLog *log, const MvSceneParams *p)
{
  if (p->force_lod >= 0)
    return p->force_lod == 1;
  if (p->row_h < MV_SCENE_MIN_DECODE_ROW_H)
    return TRUE;
  guint first, last;
  mv_scene_visible_rows (log, p, &first, &last);
  double frac = (double) (p->t1 - p->t0) / run_span (log);
  double est = 0;
  for (guint i = first; i < last; i++)
    est += (double) logfmt_reader_stream_events (log->reader,
                                                 log->rows[i].stream) * frac;
  guint64 budget = p->budget ? p->budget : MV_SCENE_DEFAULT_BUDGET;
  return est > (double) budget;
}

static gboolean fine_wanted (MvLog *log, const MvSceneParams *p);

/* Rows whose decoded events before a frame must be read from the file
 * this many or more: the frame would take several block decodes. */
#define COARSE_MIN_ROWS 4u

gboolean
mv_scene_coarse_first (MvLog *log, const MvSceneParams *p,
                       MvSceneParams *coarse)
{
  *coarse = *p;
  gboolean need = FALSE;
  if (!mv_scene_choose_summary (log, p))
    {
      guint first, last, missing = 0;
      mv_scene_visible_rows (log, p, &first, &last);
      g_mutex_lock (&log->cache_lock);
      for (guint r = first; r < last && missing < COARSE_MIN_ROWS; r++)
        {
          guint32 st = log->rows[r].stream;
          const MvDecCache *d = log->dec[st];
          missing += d == NULL || d->ta > decode_start (log, st, p->t0, p->t1)
                     || d->tb < p->t1;
        }
      g_mutex_unlock (&log->cache_lock);
      if (missing >= COARSE_MIN_ROWS)
        {
          coarse->force_lod = 1;
          coarse->coarse_lanes = TRUE;
          need = TRUE;
        }
    }
  else if (fine_wanted (log, p))
    {
      coarse->coarse_lanes = TRUE;
      need = TRUE;
    }
  double est = (double) log->info->nmessages * (double) (p->t1 - p->t0)
               / MAX (run_span (log), 1);
  if (!p->hide_arrows && est <= MAX_MSGS_SCANNED)
    {
      g_mutex_lock (&log->cache_lock);
      gboolean cached = log->msgs && log->msg_ta <= p->t0
                        && log->msg_tb >= p->t1;
      g_mutex_unlock (&log->cache_lock);
      if (!cached && est > MV_SCENE_MAX_ARROWS)
        {
          coarse->hide_arrows = TRUE;
          need = TRUE;
        }
    }
  return need;
}

double
mv_scene_depth_inset (double h, guint depth)
{
  /* Each nesting level is 3 px (in tall rows 12% of the row) smaller on
   * both sides, keeping 4 px. */
  double inset = MAX (2.0, 0.06 * h) + MAX (3.0, 0.12 * h) * depth;
  double max = MAX ((h - 4.0) / 2.0, 0.0);
  return MIN (inset, max);
}

static void
lane_clear (MvLane *l)
{
  if (l->spans)
    g_array_unref (l->spans);
  if (l->markers)
    g_array_unref (l->markers);
  if (!l->in_block)
    {
      g_free (l->pixels);
      g_free (l->dominant);
      g_free (l->dom_pct);
    }
}

/* Lane blocks (every summary lane's arrays of a frame in one
 * allocation) are reference counted: a scene and the pan memo share
 * one.  The last reference returns it to one of the log's two spare
 * slots, and a later frame takes it from there: a fresh 13 MB block
 * (1,000 lanes) would fault in page by page, ~30 ms on this VM. */
typedef struct
{
  gint  ref;
  gsize size;
} BlockHead;

#define BLOCK_HEAD 16  /* sizeof (BlockHead), rounded for alignment */

static guint8 *
lane_block_new (MvLog *log, gsize size)
{
  BlockHead *h = NULL;
  g_mutex_lock (&log->cache_lock);
  for (int i = 0; i < 2 && h == NULL; i++)
    if (log->lane_spare[i]
        && ((BlockHead *) log->lane_spare[i])->size == size)
      h = g_steal_pointer (&log->lane_spare[i]);
  g_mutex_unlock (&log->cache_lock);
  if (h == NULL)
    {
      h = g_malloc (BLOCK_HEAD + size);
      h->size = size;
    }
  h->ref = 1;
  return (guint8 *) h + BLOCK_HEAD;
}

/* On the first summary frame: a second block, its pages written now,
 * for the frame after it (a pan keeps the first one in its memo); frame
 * one pays for it instead of the first pan. */
static void
lane_block_ahead (MvLog *log, gsize size)
{
  g_mutex_lock (&log->cache_lock);
  gboolean make = !log->lane_spare_made && log->lane_spare[0] == NULL;
  log->lane_spare_made = TRUE;
  g_mutex_unlock (&log->cache_lock);
  if (!make)
    return;
  BlockHead *h = g_malloc (BLOCK_HEAD + size);
  memset (h, 0, BLOCK_HEAD + size);
  h->size = size;
  g_mutex_lock (&log->cache_lock);
  if (log->lane_spare[0] == NULL)
    {
      log->lane_spare[0] = h;
      h = NULL;
    }
  g_mutex_unlock (&log->cache_lock);
  g_free (h);
}

static guint8 *
lane_block_ref (guint8 *b)
{
  g_atomic_int_inc (&((BlockHead *) (b - BLOCK_HEAD))->ref);
  return b;
}

/* log NULL: free it (the log is going). */
static void
lane_block_unref (MvLog *log, guint8 *b)
{
  BlockHead *h = (BlockHead *) (b - BLOCK_HEAD);
  if (!g_atomic_int_dec_and_test (&h->ref))
    return;
  if (log)
    {
      /* Into an empty slot, else in place of one of another size (the
       * plot was resized), else freed. */
      g_mutex_lock (&log->cache_lock);
      for (int i = 0; i < 2 && h; i++)
        if (log->lane_spare[i] == NULL
            || ((BlockHead *) log->lane_spare[i])->size != h->size)
          {
            gpointer old = log->lane_spare[i];
            log->lane_spare[i] = h;
            h = old;
            break;
          }
      g_mutex_unlock (&log->cache_lock);
    }
  g_free (h);
}

void
mv_scene_free (MvScene *s)
{
  if (s == NULL)
    return;
  for (guint i = 0; i < s->nlanes; i++)
    lane_clear (&s->lanes[i]);
  g_free (s->lanes);
  if (s->lane_block)
    lane_block_unref (s->log, s->lane_block);
  if (s->arrows)
    g_array_unref (s->arrows);
  mv_log_unref (s->log);
  g_free (s->problem);
  g_free (s);
}

static gboolean
hidden (const guint8 *flags, guint n, gint32 i)
{
  return flags != NULL && i >= 0 && (guint) i < n && flags[i];
}

/* Keeps the first problem met (lanes run on several threads). */
static void
scene_problem (MvScene *s, char *msg)
{
  static GMutex lock;
  g_mutex_lock (&lock);
  if (s->problem == NULL)
    {
      s->problem = msg;
      msg = NULL;
    }
  g_mutex_unlock (&lock);
  g_free (msg);
}

/* ---- summary lanes ---------------------------------------------------- */

/* Bytes of a pyramid of nb base bins and nlev levels, and the offset
 * of level k in it. */
static gsize
pyr_offset (guint nb, guint k)
{
  gsize n = 0;
  for (guint i = 0; i < k; i++)
    n += nb >> i;
  return 3 * n;
}

/* Fills a pyramid from occupancy fractions (nb bins x ns states), which
 * are averaged pairwise in place for each coarser level. */
static void
pyr_build (float *occ, guint nb, guint ns, guint nlev, guint8 *q)
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

/* The stream's whole-run cache pyramid, filled on first use (empty if
 * the summary cannot be read). */
static const guint8 *
cache_get (MvLog *log, guint32 stream)
{
  g_mutex_lock (&log->cache_lock);
  const guint8 *c = log->cache[stream];
  g_mutex_unlock (&log->cache_lock);
  if (c != NULL)
    return c;
  /* Read outside the lock so several threads can fill the cache. */
  guint nb = log->cache_bins, ns = log->nstates;
  gsize bytes = pyr_offset (nb, log->cache_levels);
  float *occ = g_new (float, (gsize) nb * MAX (ns, 1));
  logfmt_error_t err = { 0 };
  guint8 *q = g_malloc (bytes);
  memset (q, 0xff, bytes);
  for (gsize i = 2; i < bytes; i += 3)
    q[i] = 0;
  guint64 level = 0;
  double cbin = (double) (mv_log_t_last (log) - mv_log_t_first (log)) / nb;
  gboolean bad = FALSE;
  if (ns > 0)
    {
      if (logfmt_reader_summary (log->reader, stream, mv_log_t_first (log),
                                 mv_log_t_last (log), nb, occ, NULL, &level,
                                 &err) == 0)
        pyr_build (occ, nb, ns, log->cache_levels, q);
      else
        bad = TRUE;
    }
  g_free (occ);
  g_mutex_lock (&log->cache_lock);
  if (log->cache[stream] == NULL)
    {
      /* The file has nothing finer: the cache serves every zoom. */
      log->cache_exact[stream] = bad ? 2 : level >= cbin;
      log->cache[stream] = q;
      log->cache_filled++;
      q = NULL;
    }
  c = log->cache[stream];
  g_mutex_unlock (&log->cache_lock);
  g_free (q);
  return c;
}

typedef struct
{
  MvLog *log;
  guint  first, last, step;
} Prefill;

static gpointer
prefill_thread (gpointer data)
{
  Prefill *pf = data;
  for (guint r = pf->first; r < pf->last; r += pf->step)
    cache_get (pf->log, pf->log->rows[r].stream);
  return NULL;
}

/* Fills the cache for rows [first, last) on all cores (first frame of a
 * many-process log: one summary read per stream). */
static void
cache_prefill (MvLog *log, guint first, guint last)
{
  guint n = MIN (MAX (g_get_num_processors (), 1), 8);
  g_mutex_lock (&log->cache_lock);
  gboolean all = log->cache_filled == log->nrows;
  g_mutex_unlock (&log->cache_lock);
  if (last - first < 64 || n < 2 || all)
    return;
  GThread *th[8];
  Prefill pf[8];
  for (guint i = 0; i < n; i++)
    {
      pf[i] = (Prefill) { log, first + i, last, n };
      th[i] = g_thread_new ("mv-cache", prefill_thread, &pf[i]);
    }
  for (guint i = 0; i < n; i++)
    g_thread_join (th[i]);
}

/* Lane cache bound: pyramids of aggregated lanes (pixel rows). */
#define LANE_CACHE_MAX_BYTES (32u << 20)

/* Where each pixel of [t0, t1) falls in the pyramids: the coarsest
 * level with at least one bin per pixel, and per pixel its first bin
 * and the overlap of up to 4 bins.  Computed once per frame: every
 * lane (10,000 processes: ~1,000 of them) shares it. */
typedef struct
{
  guint    n;          /* bins of the level */
  gsize    off;        /* level's offset in a pyramid */
  double   first, per; /* pixel 0's first bin, bins per pixel */
  gint32  *b0;         /* per pixel: first bin */
  guint8  *nbins;      /* per pixel: bins overlapped (0..4) */
  float   *w;          /* per pixel: 4 overlaps, in pixel fractions */
} PyrGeom;

static void
pyr_geom_init (PyrGeom *g, const MvScene *s)
{
  const MvLog *log = s->log;
  guint nb = log->cache_bins, w = s->p.width;
  guint64 lo = mv_log_t_first (log), hi = mv_log_t_last (log);
  double cbin = (double) (hi - lo) / nb;
  double first = ((double) s->p.t0 - (double) lo) / cbin;
  double per = (double) (s->p.t1 - s->p.t0) / w / cbin;  /* bins/pixel */
  guint k = 0;
  while (k + 1 < log->cache_levels && per >= 2.0)
    {
      per /= 2;
      first /= 2;
      k++;
    }
  g->n = nb >> k;
  g->off = pyr_offset (nb, k);
  g->first = first;
  g->per = per;
  g->b0 = g_new (gint32, w);
  g->nbins = g_new0 (guint8, w);
  g->w = g_new0 (float, (gsize) w * 4);
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
}

static void
pyr_geom_clear (PyrGeom *g)
{
  g_free (g->b0);
  g_free (g->nbins);
  g_free (g->w);
}

/* Per pixel of [xa, xb), the dominant state and the coverage from a
 * pyramid, coloured through lut (state x coverage 0-255); every pixel of
 * the range is written. */
static void
pyr_sample (const MvScene *s, const PyrGeom *g, const guint8 *pyr,
            const guint32 *lut, MvLane *lane, guint xa, guint xb)
{
  guint ns = s->log->nstates;
  const guint8 *q = pyr + g->off;
  const guint8 *hid = s->p.state_hidden;
  /* Locals, so the stores below are not taken to alias the inputs. */
  guint32 *restrict pix = lane->pixels;
  gint16 *restrict dominant = lane->dominant;
  guint8 *restrict pct = lane->dom_pct;
  const gint32 *restrict b0 = g->b0;
  const guint8 *restrict nbins = g->nbins;
  const float *restrict w = g->w;
  for (guint x = xa; x < xb; x++)
    {
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
          pix[x] = MV_SCENE_BG_RGB;
          dominant[x] = -1;
          pct[x] = 0;
          continue;
        }
      guint bj = 0;
      for (guint i = 1; i < nd; i++)
        if (dw[i] > dw[bj])
          bj = i;
      guint c = (guint) MIN (cov + 0.5f, 255.0f);
      pix[x] = lut[(gsize) dstate[bj] * 256 + c];
      dominant[x] = (gint16) dstate[bj];
      pct[x] = (guint8) MIN (cov * (100.0f / 255) + 0.5f, 100);
    }
}

static guint
hidden_hash (const MvScene *s)
{
  guint h = 0;
  for (guint k = 0; s->p.state_hidden && k < s->log->nstates; k++)
    h = h * 31 + (s->p.state_hidden[k] ? k + 1 : 0);
  return h;
}

/* The pyramid of a lane holding several rows (the dominant state of
 * each row's bins, summed over the rows), built once and kept: pans and
 * zooms then cost one pass over the pixels per lane.  After the pyramid:
 * the rank of its first row with a damaged summary, or -1 (gint32). */
static GBytes *
lane_pyr (MvScene *s, const MvLane *lane, guint hid)
{
  MvLog *log = s->log;
  gint64 key = (gint64) lane->row_first << 32 | lane->row_count;
  g_mutex_lock (&log->cache_lock);
  if (log->lane_cache_hidden != hid)
    {
      g_hash_table_remove_all (log->lane_cache);
      log->lane_cache_bytes = 0;
      log->lane_cache_hidden = hid;
    }
  GBytes *b = g_hash_table_lookup (log->lane_cache, &key);
  if (b)
    g_bytes_ref (b);
  g_mutex_unlock (&log->cache_lock);
  if (b)
    return b;
  guint nb = log->cache_bins, ns = log->nstates;
  float *acc = g_new0 (float, (gsize) nb * ns);
  float inv = 1.0f / (255.0f * lane->row_count);
  gint32 damaged = -1;
  for (guint r = 0; r < lane->row_count; r++)
    {
      guint32 st = log->rows[lane->row_first + r].stream;
      const guint8 *c = cache_get (log, st);
      if (log->cache_exact[st] == 2 && damaged < 0)
        damaged = log->rows[lane->row_first + r].rank;
      for (guint i = 0; i < nb; i++, c += 3)
        {
          guint dom = c[0] | (guint) c[1] << 8;
          if (dom < ns && c[2] != 0
              && !(s->p.state_hidden && s->p.state_hidden[dom]))
            acc[(gsize) i * ns + dom] += c[2] * inv;
        }
    }
  gsize bytes = pyr_offset (nb, log->cache_levels) + sizeof damaged;
  guint8 *q = g_malloc (bytes);
  pyr_build (acc, nb, ns, log->cache_levels, q);
  memcpy (q + bytes - sizeof damaged, &damaged, sizeof damaged);
  g_free (acc);
  b = g_bytes_new_take (q, bytes);
  g_mutex_lock (&log->cache_lock);
  if (log->lane_cache_hidden == hid)
    {
      if (log->lane_cache_bytes + bytes > LANE_CACHE_MAX_BYTES)
        {
          g_hash_table_remove_all (log->lane_cache);
          log->lane_cache_bytes = 0;
        }
      if (!g_hash_table_contains (log->lane_cache, &key))
        {
          g_hash_table_insert (log->lane_cache, g_memdup2 (&key, sizeof key),
                               g_bytes_ref (b));
          log->lane_cache_bytes += bytes;
        }
    }
  g_mutex_unlock (&log->cache_lock);
  return b;
}

/* The lanes of the last summary frame and where its pixels fell in the
 * pyramids.  Immutable once published in log->lane_memo; lanes hold a
 * reference on the scene's lane block. */
typedef struct MvLaneMemo_
{
  gint          ref;
  MvSceneParams p;        /* hidden pointers NULL */
  gsize         off;
  double        first, per;
  guint         hid;
  guint         nlanes;
  MvLane       *lanes;
  guint8       *block;    /* the scene's lane block, referenced */
} MvLaneMemo;

void
mv__lane_memo_unref (MvLog *log, MvLaneMemo *m)
{
  if (m == NULL || !g_atomic_int_dec_and_test (&m->ref))
    return;
  if (m->block)
    lane_block_unref (log, m->block);
  g_free (m->lanes);
  g_free (m);
}

/* How many pixels the view moved since the memo's frame (new pixel x
 * is the memo's pixel x + shift), if the frames differ only by a pan of
 * whole pixels: same lanes, size, pyramid level and scale, hidden
 * states.  A pan by a fraction of a pixel resamples every pixel. */
static gboolean
memo_shift (const MvLaneMemo *m, const MvScene *s, const PyrGeom *g,
            guint hid, gint *shift)
{
  if (m == NULL || m->nlanes != s->nlanes || m->p.width != s->p.width
      || m->p.height != s->p.height || m->p.row_h != s->p.row_h
      || m->p.y0 != s->p.y0 || m->off != g->off || m->hid != hid
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

/* Publishes the scene's pyramid lanes as the memo for the next frame. */
static void
memo_publish (MvScene *s, const PyrGeom *g, guint hid)
{
  MvLaneMemo *m = g_new0 (MvLaneMemo, 1);
  m->ref = 1;
  m->p = s->p;
  m->p.state_hidden = NULL;
  m->p.evdef_hidden = NULL;
  m->off = g->off;
  m->first = g->first;
  m->per = g->per;
  m->hid = hid;
  m->nlanes = s->nlanes;
  m->block = lane_block_ref (s->lane_block);
  m->lanes = g_new0 (MvLane, MAX (s->nlanes, 1));
  for (guint i = 0; i < s->nlanes; i++)
    {
      const MvLane *l = &s->lanes[i];
      MvLane *c = &m->lanes[i];
      c->row_first = l->row_first;
      c->row_count = l->row_count;
      if (l->from_pyramid)
        {
          c->pixels = l->pixels;
          c->dominant = l->dominant;
          c->dom_pct = l->dom_pct;
          c->from_pyramid = TRUE;
        }
    }
  g_mutex_lock (&s->log->cache_lock);
  MvLaneMemo *old = s->log->lane_memo;
  s->log->lane_memo = m;
  g_mutex_unlock (&s->log->cache_lock);
  mv__lane_memo_unref (s->log, old);
}

/* A lane's pixels from its pyramid: the columns the memo still has
 * (a pan) are copied, the others sampled. */
static void
lane_sample (MvScene *s, const PyrGeom *g, const guint8 *pyr,
             const guint32 *lut, MvLane *lane, const MvLaneMemo *memo,
             gint shift)
{
  guint w = s->p.width;
  const MvLane *old = memo ? &memo->lanes[lane - s->lanes] : NULL;
  lane->from_pyramid = TRUE;
  if (old == NULL || !old->from_pyramid
      || old->row_first != lane->row_first
      || old->row_count != lane->row_count)
    {
      pyr_sample (s, g, pyr, lut, lane, 0, w);
      return;
    }
  /* New x is old x + shift: keep [xa, xb). */
  guint xa = (guint) MAX (0, -shift), xb = (guint) MIN ((gint) w, (gint) w - shift);
  memcpy (lane->pixels + xa, old->pixels + xa + shift,
          (xb - xa) * sizeof *lane->pixels);
  memcpy (lane->dominant + xa, old->dominant + xa + shift,
          (xb - xa) * sizeof *lane->dominant);
  memcpy (lane->dom_pct + xa, old->dom_pct + xa + shift, xb - xa);
  g_atomic_pointer_add (&s->pan_reused, (gssize) (xb - xa));
  pyr_sample (s, g, pyr, lut, lane, 0, xa);
  pyr_sample (s, g, pyr, lut, lane, xb, w);
}

/* ---- fine summary lanes -------------------------------------------------- */

/* Zoomed in further than the whole-run pyramids resolve (a bin wider
 * than FINE_MIN_BIN_PX pixels), summary lanes are computed from the file
 * for the window instead: streams whose stored summary is no finer than
 * the pyramid are decoded, the others' summaries resampled.  At most
 * FINE_MAX_EVENTS events are decoded for a frame (whole blocks count);
 * beyond that the pyramids serve, blocky as they are. */
#define FINE_MIN_BIN_PX  4.0
#define FINE_MAX_EVENTS  40000000.0
#define FINE_BLOCK_GUESS 65536.0   /* events of a typical block */
#define FINE_SLOTS       4         /* states kept per pixel of a lane */
#define FINE_DEPTH       256       /* nesting followed (as summaries) */

static gboolean
fine_wanted (MvLog *log, const MvSceneParams *p)
{
  if (p->coarse_lanes || log->nstates == 0 || p->width <= 0)
    return FALSE;
  double cbin = run_span (log) / log->cache_bins;
  double pbin = (double) (p->t1 - p->t0) / p->width;
  if (pbin * FINE_MIN_BIN_PX >= cbin)
    return FALSE;
  guint first, last;
  mv_scene_visible_rows (log, p, &first, &last);
  double frac = (double) (p->t1 - p->t0) / MAX (run_span (log), 1);
  double est = 0;
  gboolean differs = p->row_h < 1;
  g_mutex_lock (&log->cache_lock);
  for (guint r = first; r < last; r++)
    {
      guint32 st = log->rows[r].stream;
      double n = (double) logfmt_reader_stream_events (log->reader, st);
      est += MIN (n, n * frac + FINE_BLOCK_GUESS);
      /* A row of its own whose stored summary is finer than the
       * pyramid is read from the file already (lane_summary). */
      differs |= log->cache[st] == NULL || log->cache_exact[st] == 1;
    }
  g_mutex_unlock (&log->cache_lock);
  return differs && est <= FINE_MAX_EVENTS;
}

/* A lane's pixels being summed from its rows: per pixel, the rows'
 * coverage by their dominant state, for the FINE_SLOTS most common. */
typedef struct
{
  guint    width;
  gint16  *state;     /* width x FINE_SLOTS, -1 free */
  float   *weight;    /* width x FINE_SLOTS */
  float   *total;     /* width: summed row coverage */
  /* One row's current pixel (rows are swept left to right). */
  gint     cur_x;
  guint    cur_n;
  gint32   cur_state[8];
  float    cur_w[8];
  GArray  *evs;       /* FineEv: one row's decoded events */
  gint32   stack[FINE_DEPTH];  /* open states, outermost first */
  gint32   pre[FINE_DEPTH];    /* states open before the decode */
  float   *occ;       /* width x nstates: a stored summary */
  logfmt_iter_t *it;  /* reused for every row */
} FineAcc;

typedef struct
{
  guint64 time;
  gint32  state;
  guint8  kind;
} FineEv;

static FineAcc *
fine_acc_new (guint width, guint nstates)
{
  FineAcc *a = g_new0 (FineAcc, 1);
  a->width = width;
  a->state = g_new (gint16, (gsize) width * FINE_SLOTS);
  a->weight = g_new (float, (gsize) width * FINE_SLOTS);
  a->total = g_new (float, width);
  a->evs = g_array_new (FALSE, FALSE, sizeof (FineEv));
  a->occ = g_new (float, (gsize) width * MAX (nstates, 1));
  return a;
}

static void
fine_acc_free (FineAcc *a)
{
  if (a == NULL)
    return;
  g_free (a->state);
  g_free (a->weight);
  g_free (a->total);
  g_array_unref (a->evs);
  g_free (a->occ);
  logfmt_iter_free (a->it);
  g_free (a);
}

static void
fine_acc_reset (FineAcc *a)
{
  memset (a->state, 0xff, (gsize) a->width * FINE_SLOTS * sizeof *a->state);
  memset (a->weight, 0, (gsize) a->width * FINE_SLOTS * sizeof *a->weight);
  memset (a->total, 0, a->width * sizeof *a->total);
}

/* One row's pixel x: covered `cov` (0..1) in all, mostly by `state`. */
static void
fine_add (FineAcc *a, guint x, gint32 state, float cov)
{
  gint16 *st = a->state + (gsize) x * FINE_SLOTS;
  float *w = a->weight + (gsize) x * FINE_SLOTS;
  a->total[x] += cov;
  guint min = 0;
  for (guint i = 0; i < FINE_SLOTS; i++)
    {
      if (st[i] == state || st[i] < 0)
        {
          st[i] = (gint16) state;
          w[i] += cov;
          return;
        }
      if (w[i] < w[min])
        min = i;
    }
  /* More states than slots: the rarest gives way. */
  if (cov > w[min])
    {
      st[min] = (gint16) state;
      w[min] = cov;
    }
}

/* Ends the row's current pixel: its dominant state takes its coverage. */
static void
fine_flush (FineAcc *a)
{
  if (a->cur_x < 0 || a->cur_n == 0)
    {
      a->cur_n = 0;
      return;
    }
  guint best = 0;
  float cov = 0;
  for (guint i = 0; i < a->cur_n; i++)
    {
      cov += a->cur_w[i];
      if (a->cur_w[i] > a->cur_w[best])
        best = i;
    }
  fine_add (a, (guint) a->cur_x, a->cur_state[best], MIN (cov, 1.0f));
  a->cur_n = 0;
}

static void
fine_part (FineAcc *a, gint x, gint32 state, float w)
{
  if (x != a->cur_x)
    {
      fine_flush (a);
      a->cur_x = x;
    }
  guint i = 0;
  while (i < a->cur_n && a->cur_state[i] != state)
    i++;
  if (i == a->cur_n)
    {
      if (a->cur_n == G_N_ELEMENTS (a->cur_state))
        return;  /* a pixel of many tiny states: the first ones count */
      a->cur_state[a->cur_n] = state;
      a->cur_w[a->cur_n++] = 0;
    }
  a->cur_w[i] += w;
}

/* The row's innermost state was `state` over pixels [xa, xb). */
static void
fine_interval (FineAcc *a, gint32 state, double xa, double xb)
{
  xa = MAX (xa, 0);
  xb = MIN (xb, (double) a->width);
  if (xb <= xa)
    return;
  gint ia = (gint) floor (xa), ib = (gint) ceil (xb) - 1;
  if (ia == ib)
    {
      fine_part (a, ia, state, (float) (xb - xa));
      return;
    }
  fine_part (a, ia, state, (float) (ia + 1 - xa));
  fine_flush (a);
  /* Whole pixels: the slot the state had in the last pixel is tried
   * first (neighbouring pixels of a lane mostly share their layout). */
  guint hint = 0;
  for (gint x = ia + 1; x < ib; x++)
    {
      gint16 *st = a->state + (gsize) x * FINE_SLOTS;
      if (st[hint] == state)
        {
          a->weight[(gsize) x * FINE_SLOTS + hint] += 1.0f;
          a->total[x] += 1.0f;
          continue;
        }
      fine_add (a, (guint) x, state, 1.0f);
      for (guint i = 0; i < FINE_SLOTS; i++)
        if (st[i] == state)
          hint = i;
    }
  a->cur_x = ib;
  fine_part (a, ib, state, (float) (xb - ib));
}

/* Applies a BEGIN or END to the open states (stack, *depth deep, of
 * which the outermost FINE_DEPTH are kept).  FALSE for an END that
 * closes nothing open here. */
static inline gboolean
fine_nest (gint32 *stack, guint *depth, const FineEv *e)
{
  if (e->kind == LOGFMT_KIND_BEGIN)
    {
      if (*depth < FINE_DEPTH)
        stack[*depth] = e->state;
      (*depth)++;
      return TRUE;
    }
  gint k = (gint) MIN (*depth, FINE_DEPTH) - 1;
  while (k >= 0 && stack[k] != e->state)
    k--;
  if (k >= 0)
    *depth = (guint) k;
  else if (*depth > FINE_DEPTH)
    (*depth)--;
  else
    return FALSE;
  return TRUE;
}

/* Adds one row to the lane from its decoded events. */
static gboolean
fine_row_decode (MvScene *s, FineAcc *a, guint32 stream, guint64 *nread)
{
  MvLog *log = s->log;
  guint64 t0 = s->p.t0, t1 = s->p.t1;
  guint64 tstart = decode_start (log, stream, t0, t1);
  /* One iterator per lane job: a new one per row would cost a zstd
   * context each (a fifth of the time for 10,000 rows). */
  int rc = a->it ? logfmt_iter_reset (a->it, stream, tstart, t1)
           : logfmt_iter_new (log->reader, stream, tstart, t1, &a->it);
  if (rc != 0)
    {
      scene_problem (s, g_strdup_printf ("stream %u: %s", stream,
                                         logfmt_strerror (rc)));
      return FALSE;
    }
  logfmt_iter_t *it = a->it;
  g_array_set_size (a->evs, 0);
  logfmt_event_t buf[256];
  long got;
  while ((got = logfmt_iter_next_batch (it, buf, G_N_ELEMENTS (buf))) > 0)
    {
      *nread += (guint64) got;
      guint len = a->evs->len;
      g_array_set_size (a->evs, len + (guint) got);
      FineEv *out = (FineEv *) a->evs->data + len;
      for (long i = 0; i < got; i++)
        if (buf[i].kind == LOGFMT_KIND_BEGIN || buf[i].kind == LOGFMT_KIND_END)
          *out++ = (FineEv) { buf[i].time, buf[i].state, (guint8) buf[i].kind };
      g_array_set_size (a->evs, (guint) (out - (FineEv *) a->evs->data));
    }
  if (got < 0)
    scene_problem (s, g_strdup (logfmt_iter_error (it)->message));

  /* Ends without a begin: states open before tstart, innermost first.
   * Nesting deeper than FINE_DEPTH is not followed. */
  const FineEv *ev = (const FineEv *) a->evs->data;
  guint n = a->evs->len;
  gint32 *stack = a->stack;
  guint depth = 0, npre = 0;
  for (guint i = 0; i < n; i++)
    if (!fine_nest (stack, &depth, &ev[i]) && npre < FINE_DEPTH)
      a->pre[npre++] = ev[i].state;
  for (depth = 0; depth < npre; depth++)
    stack[depth] = a->pre[npre - 1 - depth];

  double scale = (double) a->width / (double) (t1 - t0);
  const guint8 *hid = s->p.state_hidden;
  guint ns = log->nstates;
  a->cur_x = -1;
  a->cur_n = 0;
  guint64 prev = tstart;
  for (guint i = 0; i <= n; i++)
    {
      guint64 t = i < n ? MIN (ev[i].time, t1) : t1;
      if (depth > 0 && depth <= FINE_DEPTH && t > prev && t > t0)
        {
          gint32 top = stack[depth - 1];
          if (top >= 0 && (guint) top < ns && !(hid && hid[top]))
            fine_interval (a, top,
                           ((double) MAX (prev, t0) - (double) t0) * scale,
                           ((double) t - (double) t0) * scale);
        }
      if (i == n || ev[i].time > t1)
        break;
      prev = MAX (prev, t);
      fine_nest (stack, &depth, &ev[i]);
    }
  fine_flush (a);
  return TRUE;
}

/* Adds one row to the lane from its stored summary. */
static void
fine_row_summary (MvScene *s, FineAcc *a, guint32 stream)
{
  MvLog *log = s->log;
  guint ns = log->nstates;
  logfmt_error_t err = { 0 };
  if (logfmt_reader_summary (log->reader, stream, s->p.t0, s->p.t1,
                             a->width, a->occ, NULL, NULL, &err) != 0)
    {
      scene_problem (s, g_strdup (err.message));
      return;
    }
  for (guint x = 0; x < a->width; x++)
    {
      const float *o = a->occ + (gsize) x * ns;
      float cov = 0, best = 0;
      gint32 dom = -1;
      for (guint k = 0; k < ns; k++)
        {
          if (o[k] <= 0 || (s->p.state_hidden && s->p.state_hidden[k]))
            continue;
          cov += o[k];
          if (o[k] > best)
            {
              best = o[k];
              dom = (gint32) k;
            }
        }
      if (dom >= 0)
        fine_add (a, x, dom, MIN (cov, 1.0f));
    }
}

/* A summary lane from the file for this window (see FINE_MIN_BIN_PX). */
static void
lane_fine (MvScene *s, MvLane *lane, FineAcc *a, const guint32 *lut,
           guint64 *nread)
{
  MvLog *log = s->log;
  fine_acc_reset (a);
  for (guint r = 0; r < lane->row_count; r++)
    {
      const MvRow *row = &log->rows[lane->row_first + r];
      cache_get (log, row->stream);
      guint8 exact = log->cache_exact[row->stream];
      if (exact == 2)
        scene_problem (s, g_strdup_printf ("rank %d: the summary is damaged "
                                           "(empty where it cannot be read)",
                                           row->rank));
      else if (exact == 1)
        fine_row_decode (s, a, row->stream, nread);
      else
        fine_row_summary (s, a, row->stream);
    }
  float inv = 1.0f / lane->row_count;
  for (guint x = 0; x < a->width; x++)
    {
      const gint16 *st = a->state + (gsize) x * FINE_SLOTS;
      const float *w = a->weight + (gsize) x * FINE_SLOTS;
      guint best = 0;
      for (guint i = 1; i < FINE_SLOTS; i++)
        if (w[i] > w[best])
          best = i;
      if (a->total[x] <= 0 || st[best] < 0)
        {
          lane->pixels[x] = MV_SCENE_BG_RGB;
          lane->dominant[x] = -1;
          lane->dom_pct[x] = 0;
          continue;
        }
      float cov = MIN (a->total[x] * inv, 1.0f);
      lane->pixels[x] = lut[(gsize) st[best] * 256
                            + (guint) lroundf (cov * 255)];
      lane->dominant[x] = st[best];
      lane->dom_pct[x] = (guint8) lroundf (cov * 100);
    }
}

static gboolean
lane_summary (MvScene *s, MvLane *lane, float *occ, guint hid,
              const guint32 *rgb, const guint32 *lut, const PyrGeom *g,
              const MvLaneMemo *memo, gint shift, FineAcc *fine,
              guint64 *nread, GError **error)
{
  MvLog *log = s->log;
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
  if (fine != NULL
      && (lane->row_count > 1 || (cache_get (log, st) != NULL
                                  && log->cache_exact[st] == 1)))
    {
      lane_fine (s, lane, fine, lut, nread);
      return TRUE;
    }
  if (ns > 0 && lane->row_count > 1)
    {
      gsize bytes;
      b = lane_pyr (s, lane, hid);
      c = g_bytes_get_data (b, &bytes);
      memcpy (&damaged, c + bytes - sizeof damaged, sizeof damaged);
    }
  else if (ns > 0)
    {
      c = cache_get (log, st);
      if (log->cache_exact[st] == 2)
        damaged = log->rows[lane->row_first].rank;
    }
  if (damaged >= 0)
    scene_problem (s, g_strdup_printf ("rank %d: the summary is damaged "
                                       "(empty where it cannot be read)",
                                       damaged));
  double cbin = (double) (mv_log_t_last (log) - mv_log_t_first (log))
                / log->cache_bins;
  double pbin = (double) (s->p.t1 - s->p.t0) / w;
  if (b != NULL || (c != NULL && (cbin <= pbin || log->cache_exact[st])))
    {
      lane_sample (s, g, c, lut, lane, memo, shift);
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
      scene_problem (s, g_strdup (err.message));
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
          double f = row[k];
          if (f <= 0 || (s->p.state_hidden && s->p.state_hidden[k]))
            continue;
          cov += f;
          if (f > best)
            {
              best = f;
              dom = k;
            }
        }
      if (dom < 0)
        continue;
      cov = MIN (cov, 1.0);
      guint32 col = rgb[dom], out = 0;
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

/* ---- decoded lanes ----------------------------------------------------- */

typedef struct
{
  gint32  state;
  guint16 flags;
  guint64 t_begin;
} Open;

static void
emit_span (MvScene *s, MvLane *lane, GArray *last_at_depth, guint depth,
           const Open *o, guint64 t_end, guint16 extra_flags)
{
  if (t_end < s->p.t0 || hidden (s->p.state_hidden, s->log->nstates, o->state))
    return;
  double span = (double) (s->p.t1 - s->p.t0);
  double w = s->p.width;
  double x0 = (o->flags & MV_SPAN_OPEN_LEFT) ? -1
    : ((double) o->t_begin - (double) s->p.t0) * w / span;
  double x1 = (extra_flags & MV_SPAN_OPEN_RIGHT) ? w + 1
    : ((double) t_end - (double) s->p.t0) * w / span;
  x0 = CLAMP (x0, -1, w + 1);
  x1 = CLAMP (x1, -1, w + 1);
  if (last_at_depth->len <= depth)
    {
      guint old = last_at_depth->len;
      g_array_set_size (last_at_depth, depth + 1);
      for (guint i = old; i <= depth; i++)
        g_array_index (last_at_depth, gint, i) = -1;
    }
  gint li = g_array_index (last_at_depth, gint, depth);
  if (x1 - x0 < 1.0 && li >= 0)
    {
      /* Sub-pixel instances next to a narrow neighbour merge into it. */
      MvSpan *last = &g_array_index (lane->spans, MvSpan, li);
      if (last->x1 >= x0 - 1.0
          && (last->x1 - last->x0 < 2.0 || (last->flags & MV_SPAN_MERGED)))
        {
          last->x1 = MAX (last->x1, (float) x1);
          last->count++;
          last->flags |= MV_SPAN_MERGED;
          last->t_end = t_end;
          return;
        }
    }
  MvSpan sp = {
    .x0 = (float) x0, .x1 = (float) x1, .depth = depth,
    .flags = o->flags | extra_flags, .state = o->state, .count = 1,
    .t_begin = o->t_begin, .t_end = t_end,
  };
  g_array_append_val (lane->spans, sp);
  g_array_index (last_at_depth, gint, depth) = lane->spans->len - 1;
}

static int
span_cmp (gconstpointer a, gconstpointer b)
{
  const MvSpan *x = a, *y = b;
  if (x->depth != y->depth)
    return x->depth < y->depth ? -1 : 1;
  return x->x0 < y->x0 ? -1 : x->x0 > y->x0;
}

/* Decoded events kept across frames, at most this many in all. */
#define DEC_CACHE_MAX_EVENTS 3000000u
/* Decoded beyond the window on each side, in window widths, so that
 * pans and zooms in are served from the cache. */
#define DEC_MARGIN_SPANS     2u

/* Decodes the events of a stream in [ta, tb] (all but messages). */
static MvDecCache *
dec_decode (const MvLog *log, guint32 stream, guint64 ta, guint64 tb,
            guint64 *nread, char **problem, GError **error)
{
  logfmt_iter_t *it = NULL;
  int rc = logfmt_iter_new (log->reader, stream, ta, tb, &it);
  if (rc != 0)
    {
      g_set_error (error, MV_LOG_ERROR, -rc, "stream %u: %s", stream,
                   logfmt_strerror (rc));
      return NULL;
    }
  MvDecCache *d = g_new0 (MvDecCache, 1);
  d->ta = ta;
  d->tb = tb;
  /* Sized from the stream's average rate (+25%): a doubling array
   * copies, and faults in fresh pages, at each step. */
  guint64 total = logfmt_reader_stream_events (log->reader, stream);
  double frac = (double) (MIN (tb, mv_log_t_last (log))
                          - MIN (MAX (ta, mv_log_t_first (log)),
                                 mv_log_t_last (log)))
                / MAX (run_span (log), 1);
  d->evs = g_array_sized_new (FALSE, FALSE, sizeof (Ev),
                              (guint) MIN (total * frac * 1.25 + 64,
                                           (double) total + 1));
  d->cargo = g_array_new (FALSE, FALSE, LOGFMT_CARGO_SIZE);
  logfmt_event_t buf[128];
  long got;
  while ((got = logfmt_iter_next_batch (it, buf, G_N_ELEMENTS (buf))) > 0)
    {
      *nread += (guint64) got;
      for (long i = 0; i < got; i++)
        {
          const logfmt_event_t *ev = &buf[i];
          if (ev->kind == LOGFMT_KIND_SEND || ev->kind == LOGFMT_KIND_RECV)
            continue;
          Ev e = { ev->time, ev->kind == LOGFMT_KIND_BEGIN
                             || ev->kind == LOGFMT_KIND_END ? ev->state
                                                            : ev->id,
                   ev->kind, (guint8) ev->flags, 0, 0 };
          if (ev->kind == LOGFMT_KIND_SOLO && (ev->flags & LOGFMT_EVF_CARGO))
            {
              e.cargo = d->cargo->len;
              g_array_append_vals (d->cargo, ev->cargo, 1);
            }
          g_array_append_val (d->evs, e);
        }
    }
  if (got < 0)
    {
      /* Show what decoded before the damage; not kept for later. */
      *problem = g_strdup (logfmt_iter_error (it)->message);
      d->used = G_MAXUINT64;
    }
  logfmt_iter_free (it);
  return d;
}

/* The stream's cached events covering [tstart, t1], decoding them (with
 * a margin) if the cache does not hold them.  Returns with the cache
 * lock held (dec_release drops it) so the entry cannot go away. */
static MvDecCache *
dec_get (MvLog *log, guint32 stream, guint64 tstart, guint64 t1,
         guint64 span, guint64 *nread, char **problem, GError **error)
{
  g_mutex_lock (&log->cache_lock);
  MvDecCache *d = log->dec[stream];
  if (d != NULL && d->ta <= tstart && d->tb >= t1)
    {
      d->used = ++log->dec_clock;
      return d;
    }
  g_mutex_unlock (&log->cache_lock);
  guint64 m = (guint64) DEC_MARGIN_SPANS * span;
  guint64 ta = tstart == 0 ? 0 : tstart - MIN (tstart, m);
  guint64 tb = t1 > G_MAXUINT64 - m ? G_MAXUINT64 : t1 + m;
  d = dec_decode (log, stream, ta, tb, nread, problem, error);
  if (d == NULL)
    return NULL;
  gboolean damaged = d->used == G_MAXUINT64;
  g_mutex_lock (&log->cache_lock);
  if (damaged)
    {
      d->used = 0;
      d->ta = G_MAXUINT64;  /* marks "not in the cache" for dec_release */
      return d;
    }
  if (log->dec[stream] != NULL)
    {
      log->dec_events -= log->dec[stream]->evs->len;
      mv__dec_cache_free (log->dec[stream]);
    }
  log->dec[stream] = d;
  d->used = ++log->dec_clock;
  log->dec_events += d->evs->len;
  /* Over the bound: drop the least recently used streams. */
  while (log->dec_events > DEC_CACHE_MAX_EVENTS)
    {
      guint victim = G_MAXUINT;
      for (guint i = 0; i < log->nrows; i++)
        if (log->dec[i] != NULL && log->dec[i] != d
            && (victim == G_MAXUINT || log->dec[i]->used
                                       < log->dec[victim]->used))
          victim = i;
      if (victim == G_MAXUINT)
        break;
      log->dec_events -= log->dec[victim]->evs->len;
      mv__dec_cache_free (log->dec[victim]);
      log->dec[victim] = NULL;
    }
  return d;
}

static void
dec_release (MvLog *log, MvDecCache *d)
{
  gboolean own = d->ta == G_MAXUINT64;
  g_mutex_unlock (&log->cache_lock);
  if (own)
    mv__dec_cache_free (d);
}

static gboolean
lane_decode (MvScene *s, MvLane *lane, GArray *evs, guint64 *nread,
             GError **error)
{
  MvLog *log = s->log;
  guint32 stream = log->rows[lane->row_first].stream;
  guint64 t0 = s->p.t0, t1 = s->p.t1, span = t1 - t0;
  guint64 tstart = decode_start (log, stream, t0, t1);

  lane->spans = g_array_new (FALSE, FALSE, sizeof (MvSpan));
  lane->markers = g_array_new (FALSE, FALSE, sizeof (MvMarker));
  g_array_set_size (evs, 0);

  GArray *cargo = g_array_new (FALSE, FALSE, LOGFMT_CARGO_SIZE);
  char *problem = NULL;
  MvDecCache *d = dec_get (s->log, stream, tstart, t1, span, nread,
                           &problem, error);
  if (problem)
    scene_problem (s, problem);
  if (d == NULL)
    {
      g_array_unref (cargo);
      return FALSE;
    }
  /* Copy this window's part out of the cached events. */
  const Ev *all = (const Ev *) d->evs->data;
  guint lo_i = 0, hi_i = d->evs->len;
  while (lo_i < hi_i)
    {
      guint mid = lo_i + (hi_i - lo_i) / 2;
      if (all[mid].time < tstart)
        lo_i = mid + 1;
      else
        hi_i = mid;
    }
  for (guint i = lo_i; i < d->evs->len && all[i].time <= t1; i++)
    {
      Ev e = all[i];
      if ((e.kind == LOGFMT_KIND_SOLO || e.kind == LOGFMT_KIND_LOSS)
          && e.time < t0)
        continue;
      if (e.kind == LOGFMT_KIND_SOLO && (e.flags & LOGFMT_EVF_CARGO))
        {
          g_array_append_vals (cargo, &g_array_index (d->cargo, guint8,
                                                      (gsize) e.cargo
                                                      * LOGFMT_CARGO_SIZE),
                               1);
          e.cargo = cargo->len - 1;
        }
      g_array_append_val (evs, e);
    }
  dec_release (s->log, d);

  /* Pass 1: ends without a begin are states opened before tstart,
   * innermost first. */
  GArray *stack = g_array_new (FALSE, FALSE, sizeof (Open));
  GArray *pre = g_array_new (FALSE, FALSE, sizeof (gint32));
  for (guint i = 0; i < evs->len; i++)
    {
      const Ev *e = &g_array_index (evs, Ev, i);
      if (e->kind == LOGFMT_KIND_BEGIN)
        {
          Open o = { e->a, 0, e->time };
          g_array_append_val (stack, o);
        }
      else if (e->kind == LOGFMT_KIND_END)
        {
          gint k = (gint) stack->len - 1;
          while (k >= 0 && g_array_index (stack, Open, k).state != e->a)
            k--;
          if (k >= 0)
            g_array_set_size (stack, k);
          else
            g_array_append_val (pre, e->a);
        }
    }
  g_array_set_size (stack, 0);
  for (gint i = (gint) pre->len - 1; i >= 0; i--)
    {
      Open o = { g_array_index (pre, gint32, i), MV_SPAN_OPEN_LEFT, tstart };
      g_array_append_val (stack, o);
    }

  /* Pass 2: spans with their depth, markers. */
  GArray *last = g_array_new (FALSE, FALSE, sizeof (gint));
  double span_d = (double) span;
  for (guint i = 0; i < evs->len; i++)
    {
      const Ev *e = &g_array_index (evs, Ev, i);
      switch (e->kind)
        {
        case LOGFMT_KIND_BEGIN:
          {
            Open o = { e->a, 0, e->time };
            g_array_append_val (stack, o);
            break;
          }
        case LOGFMT_KIND_END:
          {
            gint k = (gint) stack->len - 1;
            while (k >= 0 && g_array_index (stack, Open, k).state != e->a)
              k--;
            if (k < 0)
              break;
            /* Unclosed inner states end with their parent. */
            for (gint j = (gint) stack->len - 1; j >= k; j--)
              emit_span (s, lane, last, j, &g_array_index (stack, Open, j),
                         e->time, 0);
            g_array_set_size (stack, k);
            break;
          }
        case LOGFMT_KIND_SOLO:
        case LOGFMT_KIND_LOSS:
          {
            if (e->time < t0)
              break;
            int dd = e->kind == LOGFMT_KIND_SOLO
                    ? mv_log_find_evdef (log, e->a) : -1;
            if (hidden (s->p.evdef_hidden, log->nevdefs, dd))
              break;
            float x = (float) ((double) (e->time - t0) * s->p.width / span_d);
            if (lane->markers->len > 0)
              {
                MvMarker *m = &g_array_index (lane->markers, MvMarker,
                                              lane->markers->len - 1);
                if (x - m->x < 1.0f && m->evdef == dd)
                  {
                    m->count++;
                    break;
                  }
              }
            MvMarker m = { .x = x, .evdef = dd,
                           .id = e->kind == LOGFMT_KIND_SOLO ? e->a : -1,
                           .count = 1, .time = e->time, .flags = e->flags };
            if (e->flags & LOGFMT_EVF_CARGO)
              memcpy (m.cargo, &g_array_index (cargo, guint8,
                                               (gsize) e->cargo
                                               * LOGFMT_CARGO_SIZE),
                      sizeof m.cargo);
            g_array_append_val (lane->markers, m);
            break;
          }
        default:
          break;
        }
    }
  for (gint j = (gint) stack->len - 1; j >= 0; j--)
    emit_span (s, lane, last, j, &g_array_index (stack, Open, j), t1,
               MV_SPAN_OPEN_RIGHT);
  g_array_sort (lane->spans, span_cmp);
  g_array_unref (cargo);
  g_array_unref (last);
  g_array_unref (stack);
  g_array_unref (pre);
  return TRUE;
}

/* ---- arrows ------------------------------------------------------------ */

static double
row_center (const MvScene *s, guint row)
{
  return ((double) row + 0.5) * s->p.row_h - s->p.y0;
}

static gpointer
arrow_key (const MvArrow *a)
{
  /* 4-pixel cells: arrows closer than that look the same. */
  guint64 q[4] = {
    (guint64) (gint64) floor (a->x0 / 4) & 0xffff,
    (guint64) (gint64) floor (a->y0 / 4) & 0xffff,
    (guint64) (gint64) floor (a->x1 / 4) & 0xffff,
    (guint64) (gint64) floor (a->y1 / 4) & 0xffff,
  };
  return GSIZE_TO_POINTER ((gsize) (q[0] << 48 | q[1] << 32 | q[2] << 16
                                    | q[3]));
}

static guint
key_hash (gconstpointer k)
{
  guint64 v = GPOINTER_TO_SIZE (k);
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdull;
  v ^= v >> 33;
  return (guint) v;
}

/* Adds an arrow to the cells table (aggregated mode). */
static void
cell_add (MvScene *s, GHashTable *cells, const MvArrow *a)
{
  gpointer key = arrow_key (a);
  gpointer v = g_hash_table_lookup (cells, key);
  if (v != NULL)
    g_array_index (s->arrows, MvArrow, GPOINTER_TO_UINT (v) - 1).count
      += a->count;
  else
    {
      g_array_append_val (s->arrows, *a);
      g_hash_table_insert (cells, key, GUINT_TO_POINTER (s->arrows->len));
    }
}

/* Messages kept across frames: at most this many. */
#define MSG_CACHE_MAX (10 * MAX_MSGS_SCANNED)

/* Messages meeting [ta, tb], at most max (NULL if more, or damaged:
 * *problem then says why). */
static GArray *
msgs_read (const MvLog *log, guint64 ta, guint64 tb, guint64 max,
           GCancellable *cancellable, char **problem)
{
  logfmt_msg_iter_t *it = NULL;
  if (logfmt_msg_iter_new (log->reader, ta, tb, &it) != 0)
    return NULL;
  /* Sized for the messages expected from the run's average (+25%): a
   * doubling array copies and faults in fresh pages at each step. */
  double est = (double) log->info->nmessages
               * (double) (MIN (tb, mv_log_t_last (log))
                           - MIN (MAX (ta, mv_log_t_first (log)),
                                  mv_log_t_last (log)))
               / MAX (run_span (log), 1);
  GArray *a = g_array_sized_new (FALSE, FALSE, sizeof (logfmt_message_t),
                                 (guint) MIN (est * 1.25 + 64, (double) max));
  logfmt_message_t m;
  int rc;
  while ((rc = logfmt_msg_iter_next (it, &m)) == 1)
    {
      if (a->len >= max
          || ((a->len & 4095) == 0 && g_cancellable_is_cancelled (cancellable)))
        {
          g_array_unref (a);
          a = NULL;
          break;
        }
      g_array_append_val (a, m);
    }
  if (rc < 0)
    *problem = g_strdup (logfmt_msg_iter_error (it)->message);
  logfmt_msg_iter_free (it);
  return a;
}

/* The window's messages, from the cache if it holds them, else read
 * with a margin of two window widths each side and kept. */
static GArray *
msgs_get (MvLog *log, guint64 t0, guint64 t1, GCancellable *cancellable,
          char **problem)
{
  g_mutex_lock (&log->cache_lock);
  GArray *a = NULL;
  if (log->msgs && log->msg_ta <= t0 && log->msg_tb >= t1)
    a = g_array_ref (log->msgs);
  g_mutex_unlock (&log->cache_lock);
  if (a)
    return a;
  guint64 m = 2 * (t1 - t0);
  guint64 ta = t0 - MIN (t0, m);
  guint64 tb = t1 > G_MAXUINT64 - m ? G_MAXUINT64 : t1 + m;
  a = msgs_read (log, ta, tb, MSG_CACHE_MAX, cancellable, problem);
  if (a == NULL && *problem == NULL)
    return msgs_read (log, t0, t1, 2 * MAX_MSGS_SCANNED, cancellable,
                      problem);
  if (a && *problem == NULL)
    {
      g_mutex_lock (&log->cache_lock);
      if (log->msgs)
        g_array_unref (log->msgs);
      log->msgs = g_array_ref (a);
      log->msg_ta = ta;
      log->msg_tb = tb;
      g_mutex_unlock (&log->cache_lock);
    }
  return a;
}

static gboolean
scene_arrows (MvScene *s, GCancellable *cancellable)
{
  MvLog *log = s->log;
  GHashTable *cells = NULL;
  s->arrows = g_array_new (FALSE, FALSE, sizeof (MvArrow));
  if (s->p.hide_arrows)
    return TRUE;
  double span = (double) (s->p.t1 - s->p.t0), w = s->p.width;
  guint64 scanned = 0;
  double est = (double) log->info->nmessages * span / run_span (log);
  if (est > MAX_MSGS_SCANNED)
    {
      s->arrows_skipped = TRUE;
      return TRUE;
    }
  char *problem = NULL;
  GArray *msgs = msgs_get (log, s->p.t0, s->p.t1, cancellable, &problem);
  if (problem)
    scene_problem (s, problem);
  if (msgs == NULL)
    {
      /* Messages bunched in this window: too many to draw. */
      s->arrows_skipped = !g_cancellable_is_cancelled (cancellable);
      return TRUE;
    }
  for (guint mi = 0; mi < msgs->len; mi++)
    {
      const logfmt_message_t m = g_array_index (msgs, logfmt_message_t, mi);
      if (m.send_stream != LOGFMT_NO_STREAM
          && m.recv_stream != LOGFMT_NO_STREAM
          && (MIN (m.send_time, m.recv_time) > s->p.t1
              || MAX (m.send_time, m.recv_time) < s->p.t0))
        continue;
      if (++scanned > 2 * MAX_MSGS_SCANNED)
        {
          /* Messages bunched in this window: give up, as above. */
          s->arrows_skipped = TRUE;
          g_array_set_size (s->arrows, 0);
          break;
        }
      if (m.send_stream == LOGFMT_NO_STREAM
          || m.recv_stream == LOGFMT_NO_STREAM
          || m.send_stream >= log->nrows || m.recv_stream >= log->nrows)
        continue;
      MvArrow a = { .count = 1, .msg = m };
      a.y0 = (float) row_center (s, log->stream_row[m.send_stream]);
      a.y1 = (float) row_center (s, log->stream_row[m.recv_stream]);
      if ((a.y0 < 0 && a.y1 < 0)
          || (a.y0 > s->p.height && a.y1 > s->p.height))
        continue;
      a.x0 = (float) (((double) m.send_time - (double) s->p.t0) * w / span);
      a.x1 = (float) (((double) m.recv_time - (double) s->p.t0) * w / span);
      s->nmessages++;
      if (cells != NULL)
        cell_add (s, cells, &a);
      else
        {
          g_array_append_val (s->arrows, a);
          if (s->arrows->len > MV_SCENE_MAX_ARROWS)
            {
              /* Too many to tell apart: switch to count-weighted cells. */
              GArray *old = s->arrows;
              /* Sized for every message left (pages are touched only
               * as cells are added): no copying as it grows. */
              s->arrows = g_array_sized_new (FALSE, FALSE, sizeof (MvArrow),
                                             MIN (msgs->len - mi + old->len,
                                                  2 * MAX_MSGS_SCANNED + 1));
              cells = g_hash_table_new (key_hash, g_direct_equal);
              for (guint i = 0; i < old->len; i++)
                cell_add (s, cells, &g_array_index (old, MvArrow, i));
              g_array_unref (old);
              s->arrows_aggregated = TRUE;
            }
        }
    }
  g_array_unref (msgs);
  if (cells)
    g_hash_table_unref (cells);
  return TRUE;
}

/* ---- scene ------------------------------------------------------------- */

typedef struct
{
  MvScene        *s;
  gint           *next;          /* the next lane to take (shared) */
  GCancellable   *cancellable;
  const guint32  *rgb, *lut;
  const PyrGeom  *geom;
  const MvLaneMemo *memo;        /* last frame, if this one is its pan */
  gint            shift;
  guint           hid;
  gboolean        okay;
  GError         *error;
  guint64         decoded;
} LaneJob;

static gpointer
lane_job (gpointer data)
{
  LaneJob *j = data;
  MvScene *s = j->s;
  float *occ = NULL;
  GArray *evs = NULL;
  FineAcc *fine = NULL;
  if (s->summary)
    occ = g_new (float, (gsize) s->p.width * MAX (s->log->nstates, 1));
  else
    evs = g_array_new (FALSE, FALSE, sizeof (Ev));
  if (s->fine)
    fine = fine_acc_new ((guint) s->p.width, s->log->nstates);
  for (guint i; j->okay && (i = (guint) g_atomic_int_add (j->next, 1))
                            < s->nlanes;)
    {
      if (g_cancellable_set_error_if_cancelled (j->cancellable, &j->error))
        j->okay = FALSE;
      else if (s->summary)
        j->okay = lane_summary (s, &s->lanes[i], occ, j->hid, j->rgb,
                                j->lut, j->geom, j->memo, j->shift,
                                fine, &j->decoded, &j->error);
      else
        j->okay = lane_decode (s, &s->lanes[i], evs, &j->decoded,
                               &j->error);
    }
  g_free (occ);
  if (evs)
    g_array_unref (evs);
  fine_acc_free (fine);
  return NULL;
}

MvScene *
mv_scene_compute (MvLog *log, const MvSceneParams *p,
                  GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (log != NULL && p != NULL, NULL);
  g_return_val_if_fail (p->t1 > p->t0 && p->width > 0, NULL);

  MvScene *s = g_new0 (MvScene, 1);
  s->log = mv_log_ref (log);
  s->p = *p;
  s->summary = mv_scene_choose_summary (log, p);
  s->fine = s->summary && fine_wanted (log, p);

  guint first, last;
  mv_scene_visible_rows (log, p, &first, &last);
  if (p->row_h >= 1)
    {
      s->nlanes = last - first;
      s->lanes = g_new0 (MvLane, MAX (s->nlanes, 1));
      for (guint i = 0; i < s->nlanes; i++)
        {
          MvLane *l = &s->lanes[i];
          l->row_first = first + i;
          l->row_count = 1;
          l->y = (first + i) * p->row_h - p->y0;
          l->h = p->row_h;
        }
    }
  else
    {
      /* One lane per pixel row, holding every row that falls in it. */
      guint npx = (guint) ceil (p->height);
      s->lanes = g_new0 (MvLane, MAX (npx, 1));
      for (guint px = 0; px < npx; px++)
        {
          double a = floor ((px + p->y0) / p->row_h);
          double b = floor ((px + 1 + p->y0) / p->row_h);
          guint ra = (guint) MIN (a, (double) log->nrows);
          guint rb = (guint) MIN (b, (double) log->nrows);
          if (rb <= ra)
            continue;
          MvLane *l = &s->lanes[s->nlanes++];
          l->row_first = ra;
          l->row_count = rb - ra;
          l->y = px;
          l->h = 1;
        }
    }

  /* Lanes are independent: shared by (at most 2) threads. */
  guint nth = MIN (MAX (g_get_num_processors (), 1), 2);
  if (s->nlanes < 8)
    nth = 1;
  LaneJob jobs[2];
  GThread *th[2] = { NULL, NULL };
  guint32 *rgb = NULL, *lut = NULL;
  PyrGeom geom = { 0 };
  MvLaneMemo *memo = NULL;
  gint shift = 0;
  guint hid = hidden_hash (s);
  if (s->summary)
    {
      pyr_geom_init (&geom, s);
      /* A memo this frame cannot use is dropped first, so its block can
       * serve this frame (lane_block_new).  Fine lanes neither use nor
       * replace it: the coarse stage before them made it, for the next
       * coarse stage (a pan). */
      MvLaneMemo *drop = NULL;
      g_mutex_lock (&log->cache_lock);
      memo = log->lane_memo;
      if (s->fine)
        memo = NULL;
      else if (memo_shift (memo, s, &geom, hid, &shift))
        g_atomic_int_inc (&memo->ref);
      else
        {
          drop = g_steal_pointer (&log->lane_memo);
          memo = NULL;
        }
      g_mutex_unlock (&log->cache_lock);
      mv__lane_memo_unref (log, drop);
      /* One block for every lane's arrays. */
      gsize bsize = (gsize) MAX (s->nlanes, 1) * p->width
                    * (sizeof (guint32) + sizeof (gint16) + sizeof (guint8));
      s->lane_block = lane_block_new (log, bsize);
      lane_block_ahead (log, bsize);
      cache_prefill (log, first, last);
      guint ns = MAX (log->nstates, 1);
      rgb = g_new (guint32, ns);
      lut = g_new (guint32, (gsize) ns * 256);
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
    }
  /* Lanes are taken one at a time by both threads; this one first does
   * the arrows (independent of the lanes), then joins in. */
  gint next = 0;
  for (guint j = 0; j < nth; j++)
    {
      jobs[j] = (LaneJob) { .s = s, .next = &next,
                            .cancellable = cancellable, .rgb = rgb,
                            .lut = lut, .geom = &geom, .memo = memo,
                            .shift = shift, .hid = hid, .okay = TRUE };
      if (j > 0)
        th[j] = g_thread_new ("mv-lanes", lane_job, &jobs[j]);
    }
  scene_arrows (s, cancellable);
  lane_job (&jobs[0]);
  gboolean okay = TRUE;
  for (guint j = 0; j < nth; j++)
    {
      if (th[j])
        g_thread_join (th[j]);
      s->decoded += jobs[j].decoded;
      if (!jobs[j].okay && okay)
        {
          okay = FALSE;
          g_propagate_error (error, jobs[j].error);
        }
      else if (jobs[j].error)
        g_error_free (jobs[j].error);
    }
  if (okay && s->summary && !s->fine)
    memo_publish (s, &geom, hid);
  mv__lane_memo_unref (log, memo);
  g_free (rgb);
  g_free (lut);
  pyr_geom_clear (&geom);
  for (guint i = 0; i < s->nlanes; i++)
    for (guint k = 0; s->lanes[i].spans && k < s->lanes[i].spans->len; k++)
      s->max_depth = MAX (s->max_depth,
                          g_array_index (s->lanes[i].spans, MvSpan, k).depth);
  if (okay && g_cancellable_set_error_if_cancelled (cancellable, error))
    okay = FALSE;
  s->p.state_hidden = NULL;
  s->p.evdef_hidden = NULL;
  if (!okay)
    {
      mv_scene_free (s);
      return NULL;
    }
  return s;
}

/* ---- hit testing -------------------------------------------------------- */

static double
seg_dist (double px, double py, double x0, double y0, double x1, double y1)
{
  double dx = x1 - x0, dy = y1 - y0;
  double l2 = dx * dx + dy * dy;
  double t = l2 > 0 ? ((px - x0) * dx + (py - y0) * dy) / l2 : 0;
  t = CLAMP (t, 0, 1);
  double cx = x0 + t * dx - px, cy = y0 + t * dy - py;
  return sqrt (cx * cx + cy * cy);
}

gboolean
mv_scene_hit (const MvScene *s, double x, double y, MvHit *hit)
{
  memset (hit, 0, sizeof *hit);
  if (s == NULL || x < 0 || x >= s->p.width || y < 0)
    return FALSE;
  const MvLane *lane = NULL;
  for (guint i = 0; i < s->nlanes; i++)
    if (y >= s->lanes[i].y && y < s->lanes[i].y + MAX (s->lanes[i].h, 1))
      lane = &s->lanes[i];
  /* Arrows lie over the bars: test them first. */
  if (s->arrows)
    {
      double best = 3.0;
      for (guint i = 0; i < s->arrows->len; i++)
        {
          const MvArrow *a = &g_array_index (s->arrows, MvArrow, i);
          double d = seg_dist (x, y, a->x0, a->y0, a->x1, a->y1);
          if (d < best)
            {
              best = d;
              hit->kind = MV_HIT_ARROW;
              hit->arrow = a;
            }
        }
      if (hit->kind == MV_HIT_ARROW)
        return TRUE;
    }
  if (lane == NULL)
    return FALSE;
  hit->lane = lane;
  if (lane->pixels != NULL)
    {
      hit->kind = MV_HIT_PIXEL;
      hit->px = (int) x;
      return lane->dominant[(int) x] >= 0;
    }
  if (lane->markers)
    for (guint i = 0; i < lane->markers->len; i++)
      {
        const MvMarker *m = &g_array_index (lane->markers, MvMarker, i);
        if (fabs (m->x - x) <= 4 && y < lane->y + lane->h / 2 + 2)
          {
            hit->kind = MV_HIT_MARKER;
            hit->marker = m;
            return TRUE;
          }
      }
  if (lane->spans)
    for (guint i = lane->spans->len; i-- > 0;)
      {
        const MvSpan *sp = &g_array_index (lane->spans, MvSpan, i);
        double in = mv_scene_depth_inset (lane->h, sp->depth);
        if (x >= sp->x0 - 0.5 && x <= MAX (sp->x1, sp->x0 + 1) + 0.5
            && y >= lane->y + in && y <= lane->y + lane->h - in)
          {
            hit->kind = MV_HIT_SPAN;
            hit->span = sp;
            return TRUE;
          }
      }
  return FALSE;
}

static void
append_time (GString *str, const char *what, guint64 t)
{
  g_string_append_printf (str, "\n%s: %.9f s", what, (double) t / 1e9);
}

static void
append_row (GString *str, const MvLog *log, guint row)
{
  const MvRow *r = &log->rows[row];
  g_string_append_printf (str, "\nrank %d, thread %d", r->rank, r->thread);
  if (r->host)
    g_string_append_printf (str, " on %s", r->host);
}

char *
mv_scene_describe (const MvScene *s, const MvHit *hit)
{
  const MvLog *log = s->log;
  GString *str = g_string_new (NULL);
  char buf[64];
  switch (hit->kind)
    {
    case MV_HIT_SPAN:
      {
        const MvSpan *sp = hit->span;
        const logfmt_state_def_t *d = mv_log_state (log, sp->state);
        g_string_append (str, d && d->name ? d->name : "(unnamed state)");
        if (sp->count > 1)
          g_string_append_printf (str, " (%u instances, zoom in)", sp->count);
        append_row (str, log, hit->lane->row_first);
        if (sp->flags & MV_SPAN_OPEN_LEFT)
          g_string_append (str, "\nstart: before the decoded range");
        else
          append_time (str, "start", sp->t_begin);
        if (sp->flags & MV_SPAN_OPEN_RIGHT)
          g_string_append (str, "\nend: after the window");
        else
          append_time (str, "end", sp->t_end);
        if (!(sp->flags & (MV_SPAN_OPEN_LEFT | MV_SPAN_OPEN_RIGHT)))
          {
            mv_format_duration (sp->t_end - sp->t_begin, buf, sizeof buf);
            g_string_append_printf (str, "\nduration: %s", buf);
          }
        logfmt_event_t ev;
        if (d && d->format && sp->count == 1
            && !(sp->flags & MV_SPAN_OPEN_LEFT)
            && mv_log_find_begin (log, log->rows[hit->lane->row_first].stream,
                                  sp->t_begin, sp->state, &ev)
            && (ev.flags & LOGFMT_EVF_CARGO))
          {
            char out[256];
            logfmt_format_cargo (d->format, ev.cargo, sizeof ev.cargo,
                                 out, sizeof out);
            g_string_append_printf (str, "\n%s", out);
          }
        break;
      }
    case MV_HIT_MARKER:
      {
        const MvMarker *m = hit->marker;
        const logfmt_event_def_t *d = m->evdef >= 0
                                      ? mv_log_evdef (log, m->evdef) : NULL;
        if (m->id < 0)
          g_string_append (str, "events lost (buffer full)");
        else if (d && d->name)
          g_string_append (str, d->name);
        else
          g_string_append_printf (str, "event %d", m->id);
        if (m->count > 1)
          g_string_append_printf (str, " (%u events, zoom in)", m->count);
        append_row (str, log, hit->lane->row_first);
        append_time (str, "time", m->time);
        if (d && d->format && (m->flags & LOGFMT_EVF_CARGO))
          {
            char out[256];
            logfmt_format_cargo (d->format, m->cargo, sizeof m->cargo,
                                 out, sizeof out);
            g_string_append_printf (str, "\n%s", out);
          }
        break;
      }
    case MV_HIT_ARROW:
      {
        const logfmt_message_t *m = &hit->arrow->msg;
        if (hit->arrow->count > 1)
          g_string_append_printf (str, "%u messages (zoom in); first:\n",
                                  hit->arrow->count);
        g_string_append_printf (str, "message rank %d -> rank %d\n"
                                "tag %d, %" G_GUINT64_FORMAT " bytes, "
                                "comm %u", m->send_rank, m->recv_rank,
                                m->tag, m->size, m->comm);
        append_time (str, "send", m->send_time);
        append_time (str, "receive", m->recv_time);
        mv_format_duration (m->recv_time - m->send_time, buf, sizeof buf);
        g_string_append_printf (str, "\nin flight: %s", buf);
        break;
      }
    case MV_HIT_PIXEL:
      {
        int dom = hit->lane->dominant[hit->px];
        const logfmt_state_def_t *d = dom >= 0 ? mv_log_state (log, dom)
                                               : NULL;
        g_string_append_printf (str, "mostly %s (states cover %u%% of "
                                "this pixel)", d && d->name ? d->name : "?",
                                hit->lane->dom_pct[hit->px]);
        if (hit->lane->row_count > 1)
          g_string_append_printf (str, "\nranks %d .. %d",
                                  log->rows[hit->lane->row_first].rank,
                                  log->rows[hit->lane->row_first
                                            + hit->lane->row_count - 1].rank);
        else
          append_row (str, log, hit->lane->row_first);
        g_string_append (str, "\nzoom in for single instances");
        break;
      }
    default:
      break;
    }
  return g_string_free (str, FALSE);
}

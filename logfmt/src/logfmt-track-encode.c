/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Track encoder: one stream's extension-track records -> sealed TRACK
 * chunks, one sequence per kind, plus the level-of-detail summaries of
 * metric tracks (per bin and series: min, max, last, samples).
 */
#include "config.h"
#include "logfmt-track-internal.h"

#include <stdlib.h>
#include <zstd.h>

#define NLEV LOGFMT__METRIC_LEVELS

enum { LEVEL_UNTESTED = 0, LEVEL_KEPT, LEVEL_DROPPED };

/* One (kind, level) sequence of records waiting for their chunk. */
typedef struct
{
  uint32_t kind;
  uint16_t level, ncols;
  uint64_t bin_ns;
  logfmt_track_rec_t *buf;   /* LOGFMT__TRACK_CHUNK_RECS records */
  uint32_t n;
  uint64_t t_prev, total;
  int state;                 /* LEVEL_*, summary levels only */
} seq_t;

/* One metric series (id, object) and its open bin at each level. */
typedef struct
{
  int64_t id, object, last;
  struct
  {
    int64_t min, max;
    uint64_t samples;        /* 0: no open bin at this level */
  } lv[NLEV + 1];
} series_t;

struct logfmt_track_encoder
{
  uint32_t stream;
  logfmt_track_chunk_cb cb;
  void *user;
  ZSTD_CCtx *cctx;
  uint8_t *cbuf;
  size_t ccap;
  uint64_t fixed;
  seq_t *seqs[LOGFMT_TRACK_KIND_MAX + 1];  /* level 0 of each kind */
  seq_t *lvl[NLEV + 1];                     /* metric summary levels */
  series_t *series;
  size_t nseries, cseries;
  uint32_t *slots;           /* open addressing: series index + 1 */
  size_t nslots;
  uint64_t cur[NLEV + 1];    /* the stream's current bin per level */
  bool have_cur;
  uint32_t *dirty[NLEV + 1]; /* series with an open bin per level */
  size_t ndirty[NLEV + 1], cdirty[NLEV + 1];
};

int
logfmt_track_encoder_new (uint32_t stream, logfmt_track_chunk_cb cb,
                          void *user, logfmt_track_encoder_t **out)
{
  if (!cb || !out)
    return LOGFMT_EINVAL;
  logfmt_track_encoder_t *te = calloc (1, sizeof *te);
  if (!te)
    return LOGFMT_ENOMEM;
  te->stream = stream;
  te->cb = cb;
  te->user = user;
  te->cctx = ZSTD_createCCtx ();
  if (!te->cctx)
    {
      free (te);
      return LOGFMT_ENOMEM;
    }
  *out = te;
  return 0;
}

static void
seq_free (seq_t *s)
{
  if (s)
    free (s->buf);
  free (s);
}

void
logfmt_track_encoder_free (logfmt_track_encoder_t *te)
{
  if (!te)
    return;
  for (int k = 0; k <= LOGFMT_TRACK_KIND_MAX; k++)
    seq_free (te->seqs[k]);
  for (int l = 0; l <= NLEV; l++)
    {
      seq_free (te->lvl[l]);
      free (te->dirty[l]);
    }
  free (te->series);
  free (te->slots);
  free (te->cbuf);
  ZSTD_freeCCtx (te->cctx);
  free (te);
}

uint64_t
logfmt_track_encoder_fixed_times (const logfmt_track_encoder_t *te)
{
  return te ? te->fixed : 0;
}

static seq_t *
seq_new (uint32_t kind, unsigned level, unsigned ncols, uint64_t bin_ns)
{
  seq_t *s = calloc (1, sizeof *s);
  if (!s)
    return NULL;
  s->buf = malloc (LOGFMT__TRACK_CHUNK_RECS * sizeof *s->buf);
  if (!s->buf)
    {
      free (s);
      return NULL;
    }
  s->kind = kind;
  s->level = (uint16_t) level;
  s->ncols = (uint16_t) ncols;
  s->bin_ns = bin_ns;
  s->state = level ? LEVEL_UNTESTED : LEVEL_KEPT;
  return s;
}

static int
seal (logfmt_track_encoder_t *te, seq_t *s)
{
  if (s->n == 0 || s->state == LEVEL_DROPPED)
    {
      s->n = 0;
      return 0;
    }
  logfmt__trackref_t h = {
    .stream = te->stream, .kind = s->kind, .level = s->level,
    .ncols = s->ncols, .bin_ns = s->bin_ns,
  };
  size_t len;
  int rc = logfmt__track_encode (te->cctx, &h, s->buf, s->n, &te->cbuf,
                                 &te->ccap, &len);
  s->n = 0;
  if (rc)
    return rc;
  return te->cb (te->user, te->cbuf, len);
}

/* A summary level is worth its space when it has at most a quarter of
 * the records of the nearest finer level kept (the samples for level
 * 1); decided once, when its first chunk fills or at the end. */
static void
test_level (logfmt_track_encoder_t *te, unsigned l)
{
  seq_t *s = te->lvl[l];
  if (!s || s->state != LEVEL_UNTESTED)
    return;
  uint64_t finer = te->seqs[LOGFMT_TRACK_METRIC]
                     ? te->seqs[LOGFMT_TRACK_METRIC]->total : 0;
  for (unsigned k = l - 1; k >= 1; k--)
    if (te->lvl[k] && te->lvl[k]->state == LEVEL_KEPT)
      {
        finer = te->lvl[k]->total;
        break;
      }
  s->state = s->total * 4 <= finer ? LEVEL_KEPT : LEVEL_DROPPED;
}

static int
seq_push (logfmt_track_encoder_t *te, seq_t *s, const logfmt_track_rec_t *r)
{
  if (s->state == LEVEL_DROPPED)
    return 0;
  logfmt_track_rec_t *d = &s->buf[s->n];
  *d = *r;
  if (s->total > 0 && d->time < s->t_prev)
    {
      d->time = s->t_prev;
      te->fixed++;
    }
  s->t_prev = d->time;
  s->total++;
  if (++s->n < LOGFMT__TRACK_CHUNK_RECS)
    return 0;
  if (s->level)
    test_level (te, s->level);
  return seal (te, s);
}

/* ---- Metric summaries ------------------------------------------------ */

static uint64_t
hash2 (int64_t a, int64_t b)
{
  uint64_t h = (uint64_t) a * 0x9E3779B97F4A7C15ull
               ^ ((uint64_t) b + 0x632BE59BD9B4E019ull)
                   * 0xC2B2AE3D27D4EB4Full;
  return h ^ (h >> 29);
}

static int
rehash (logfmt_track_encoder_t *te, size_t nslots)
{
  uint32_t *s = calloc (nslots, sizeof *s);
  if (!s)
    return LOGFMT_ENOMEM;
  for (size_t i = 0; i < te->nseries; i++)
    {
      size_t j = hash2 (te->series[i].id, te->series[i].object)
                 & (nslots - 1);
      while (s[j])
        j = (j + 1) & (nslots - 1);
      s[j] = (uint32_t) i + 1;
    }
  free (te->slots);
  te->slots = s;
  te->nslots = nslots;
  return 0;
}

static series_t *
find_series (logfmt_track_encoder_t *te, int64_t id, int64_t object)
{
  if (te->nslots == 0 || (te->nseries + 1) * 2 > te->nslots)
    if (rehash (te, te->nslots ? te->nslots * 2 : 64))
      return NULL;
  size_t j = hash2 (id, object) & (te->nslots - 1);
  while (te->slots[j])
    {
      series_t *x = &te->series[te->slots[j] - 1];
      if (x->id == id && x->object == object)
        return x;
      j = (j + 1) & (te->nslots - 1);
    }
  if (logfmt__grow ((void **) &te->series, &te->cseries, te->nseries,
                    sizeof *te->series))
    return NULL;
  series_t *x = &te->series[te->nseries];
  memset (x, 0, sizeof *x);
  x->id = id;
  x->object = object;
  te->slots[j] = (uint32_t) ++te->nseries;
  return x;
}

/* Emits every open bin of level l (all in the stream's current bin). */
static int
close_bins (logfmt_track_encoder_t *te, unsigned l)
{
  seq_t *s = te->lvl[l];
  uint64_t t = te->cur[l] << (LOGFMT__METRIC_SHIFT0 + 4 * (l - 1));
  for (size_t i = 0; i < te->ndirty[l]; i++)
    {
      series_t *x = &te->series[te->dirty[l][i]];
      logfmt_track_rec_t r = { .time = t };
      r.col[0] = x->id;
      r.col[1] = x->object;
      r.col[2] = x->lv[l].min;
      r.col[3] = x->lv[l].max;
      r.col[4] = x->last;
      r.col[5] = (int64_t) x->lv[l].samples;
      x->lv[l].samples = 0;
      int rc = seq_push (te, s, &r);
      if (rc)
        return rc;
    }
  te->ndirty[l] = 0;
  return 0;
}

static int
summarise (logfmt_track_encoder_t *te, const logfmt_track_rec_t *r)
{
  for (unsigned l = 1; l <= NLEV; l++)
    {
      if (!te->lvl[l])
        {
          te->lvl[l] = seq_new (LOGFMT_TRACK_METRIC, l,
                                LOGFMT__METRIC_SUM_COLS,
                                logfmt__metric_bin_ns (l));
          if (!te->lvl[l])
            return LOGFMT_ENOMEM;
        }
      if (te->lvl[l]->state == LEVEL_DROPPED)
        continue;
      uint64_t b = r->time >> (LOGFMT__METRIC_SHIFT0 + 4 * (l - 1));
      if (te->have_cur && b != te->cur[l])
        {
          int rc = close_bins (te, l);
          if (rc)
            return rc;
        }
      te->cur[l] = b;
    }
  te->have_cur = true;
  series_t *x = find_series (te, r->col[LOGFMT_METRIC_COL_ID],
                             r->col[LOGFMT_METRIC_COL_OBJECT]);
  if (!x)
    return LOGFMT_ENOMEM;
  int64_t v = r->col[LOGFMT_METRIC_COL_VALUE];
  uint32_t xi = (uint32_t) (x - te->series);
  for (unsigned l = 1; l <= NLEV; l++)
    {
      if (te->lvl[l]->state == LEVEL_DROPPED)
        continue;
      if (x->lv[l].samples == 0)
        {
          if (te->ndirty[l] == te->cdirty[l])
            {
              size_t c = te->cdirty[l] ? te->cdirty[l] * 2 : 16;
              uint32_t *d = realloc (te->dirty[l], c * sizeof *d);
              if (!d)
                return LOGFMT_ENOMEM;
              te->dirty[l] = d;
              te->cdirty[l] = c;
            }
          te->dirty[l][te->ndirty[l]++] = xi;
          x->lv[l].min = x->lv[l].max = v;
        }
      if (v < x->lv[l].min)
        x->lv[l].min = v;
      if (v > x->lv[l].max)
        x->lv[l].max = v;
      x->lv[l].samples++;
    }
  x->last = v;
  return 0;
}

int
logfmt_track_encoder_add (logfmt_track_encoder_t *te, uint32_t kind,
                          const logfmt_track_rec_t *recs, size_t n)
{
  if (!te || (!recs && n))
    return LOGFMT_EINVAL;
  int ncols = logfmt_track_kind_ncols (kind);
  if (ncols < 0)
    return LOGFMT_EINVAL;
  if (!te->seqs[kind])
    {
      te->seqs[kind] = seq_new (kind, 0, (unsigned) ncols, 0);
      if (!te->seqs[kind])
        return LOGFMT_ENOMEM;
    }
  seq_t *s = te->seqs[kind];
  for (size_t i = 0; i < n; i++)
    {
      int rc;
      if (kind == LOGFMT_TRACK_METRIC)
        {
          /* Summaries see the time as stored (raised if it went back). */
          logfmt_track_rec_t r = recs[i];
          if (s->total > 0 && r.time < s->t_prev)
            r.time = s->t_prev;
          rc = summarise (te, &r);
          if (rc)
            return rc;
        }
      rc = seq_push (te, s, &recs[i]);
      if (rc)
        return rc;
    }
  return 0;
}

int
logfmt_track_encoder_flush (logfmt_track_encoder_t *te)
{
  if (!te)
    return LOGFMT_EINVAL;
  int rc = 0;
  for (int k = 0; k <= LOGFMT_TRACK_KIND_MAX && !rc; k++)
    if (te->seqs[k])
      rc = seal (te, te->seqs[k]);
  for (unsigned l = 1; l <= NLEV && !rc; l++)
    if (te->lvl[l] && te->lvl[l]->state != LEVEL_DROPPED)
      {
        rc = close_bins (te, l);
        test_level (te, l);
        if (!rc)
          rc = seal (te, te->lvl[l]);
      }
  return rc;
}

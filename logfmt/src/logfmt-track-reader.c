/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reader's side of extension tracks: metric definitions, the track
 * directory, the windowed track iterator (reads only the chunks that
 * overlap its window) and metric bins drawn from the level-of-detail
 * summaries (FORMAT.md section 14).
 */
#include "config.h"
#include "logfmt-reader-internal.h"
#include "logfmt-track-internal.h"

#include <stdlib.h>
#include <zstd.h>

int
logfmt__load_trackdir (logfmt_reader_t *r, uint64_t off, uint64_t n,
                       logfmt_error_t *err)
{
  const uint8_t *p;
  uint64_t len;
  int rc = logfmt__chunk_at (r, off, LOGFMT__CHUNK_TRACKDIR, true, &p, &len,
                             err);
  if (rc)
    return rc;
  logfmt__trackref_t *v;
  size_t nv;
  rc = logfmt__trackdir_parse (p, len, r->size, &v, &nv, r->path, off, err);
  if (rc)
    return rc;
  if (nv != n)
    {
      free (v);
      return logfmt__err (err, LOGFMT_ECORRUPT, r->path, off,
                          "track directory holds %zu entries, its "
                          "definition says %llu", nv,
                          (unsigned long long) n);
    }
  for (size_t i = 0; i < nv; i++)
    if (v[i].stream >= r->nstreams)
      {
        uint32_t bad = v[i].stream;
        free (v);
        return logfmt__err (err, LOGFMT_ECORRUPT, r->path, off,
                            "track directory entry %zu names stream %u of "
                            "%zu", i, bad, r->nstreams);
      }
  free (r->tracks);
  r->tracks = v;
  r->ntracks = nv;
  return 0;
}

size_t
logfmt_reader_n_metrics (const logfmt_reader_t *r)
{
  return r ? r->nmetrics : 0;
}

const logfmt_metric_def_t *
logfmt_reader_metric (const logfmt_reader_t *r, size_t i)
{
  return r && i < r->nmetrics ? &r->metrics[i] : NULL;
}

int
logfmt_reader_find_metric (const logfmt_reader_t *r, uint32_t id)
{
  if (!r)
    return -1;
  for (size_t i = 0; i < r->nmetrics; i++)
    if (r->metrics[i].id == id)
      return (int) i;
  return -1;
}

/* First directory entry not ordered before (stream, kind, level, t). */
static size_t
lower (const logfmt_reader_t *r, uint32_t stream, uint32_t kind,
       uint16_t level, uint64_t t_first)
{
  logfmt__trackref_t key = { .stream = stream, .kind = kind,
                             .level = level, .t_first = t_first };
  size_t a = 0, b = r->ntracks;
  while (a < b)
    {
      size_t m = (a + b) / 2;
      if (logfmt__trackref_cmp (&r->tracks[m], &key) < 0)
        a = m + 1;
      else
        b = m;
    }
  return a;
}

static bool
same_track (const logfmt__trackref_t *t, uint32_t stream, uint32_t kind,
            uint16_t level)
{
  return t->stream == stream && t->kind == kind && t->level == level;
}

int
logfmt_reader_track_info (const logfmt_reader_t *r, uint32_t stream,
                          uint32_t kind, logfmt_track_info_t *info)
{
  if (!r || !info)
    return LOGFMT_EINVAL;
  memset (info, 0, sizeof *info);
  for (size_t i = 0; i < r->ntracks; i++)
    {
      const logfmt__trackref_t *t = &r->tracks[i];
      if (t->kind != kind || t->level != 0
          || (stream != LOGFMT_NO_STREAM && t->stream != stream))
        continue;
      if (info->chunks == 0 || t->t_first < info->t_first)
        info->t_first = t->t_first;
      if (t->t_last > info->t_last)
        info->t_last = t->t_last;
      info->records += t->count;
      info->chunks++;
      info->ncols = t->ncols;
    }
  return info->chunks ? 0 : LOGFMT_ENOENT;
}

/* ---- Iterator -------------------------------------------------------- */

struct logfmt_track_iter
{
  const logfmt_reader_t *r;
  uint64_t t0, t1;
  size_t next, end;            /* directory entries still to read */
  ZSTD_DCtx *dctx;
  uint8_t *buf;
  size_t cap;
  logfmt_track_rec_t *recs;
  size_t rcap;
  uint32_t n, pos, ncols;
  uint64_t chunks;
  bool filter_t0;              /* false: records before t0 too */
  int failed;
  logfmt_error_t err;
};

/* An iterator over one (stream, kind, level); with prior, it starts at
 * the chunk before the window and delivers records before t0 too. */
static int
iter_open (const logfmt_reader_t *r, uint32_t stream, uint32_t kind,
           uint16_t level, uint64_t t0, uint64_t t1, bool prior,
           logfmt_track_iter_t **out)
{
  if (!r || !out)
    return LOGFMT_EINVAL;
  *out = NULL;
  logfmt_track_iter_t *it = calloc (1, sizeof *it);
  if (!it)
    return LOGFMT_ENOMEM;
  it->dctx = ZSTD_createDCtx ();
  if (!it->dctx)
    {
      free (it);
      return LOGFMT_ENOMEM;
    }
  it->r = r;
  it->t0 = t0;
  it->t1 = t1;
  it->filter_t0 = !prior;
  size_t a = lower (r, stream, kind, level, 0);
  size_t z = lower (r, stream, kind, (uint16_t) (level + 1), 0);
  if (level == UINT16_MAX)
    z = lower (r, stream, kind + 1, 0, 0);
  /* Chunks of a track do not overlap, so t_last ascends as t_first does:
   * skip those that end before t0, stop at the first starting at t1. */
  size_t lo = a, hi = z;
  while (lo < hi)
    {
      size_t m = (lo + hi) / 2;
      if (r->tracks[m].t_last < t0)
        lo = m + 1;
      else
        hi = m;
    }
  if (prior && lo > a)
    lo--;
  size_t e = lo;
  while (e < z && r->tracks[e].t_first < t1)
    e++;
  it->next = lo;
  it->end = e;
  *out = it;
  return 0;
}

int
logfmt_track_iter_new (const logfmt_reader_t *r, uint32_t stream,
                       uint32_t kind, uint64_t t0, uint64_t t1,
                       logfmt_track_iter_t **out)
{
  return iter_open (r, stream, kind, 0, t0, t1, false, out);
}

void
logfmt_track_iter_free (logfmt_track_iter_t *it)
{
  if (!it)
    return;
  ZSTD_freeDCtx (it->dctx);
  free (it->buf);
  free (it->recs);
  free (it);
}

const logfmt_error_t *
logfmt_track_iter_error (const logfmt_track_iter_t *it)
{
  return &it->err;
}

uint64_t
logfmt_track_iter_chunks (const logfmt_track_iter_t *it)
{
  return it ? it->chunks : 0;
}

uint32_t
logfmt_track_iter_ncols (const logfmt_track_iter_t *it)
{
  return it ? it->ncols : 0;
}

static int
load_chunk (logfmt_track_iter_t *it)
{
  const logfmt_reader_t *r = it->r;
  const logfmt__trackref_t *ref = &r->tracks[it->next];
  const uint8_t *p;
  uint64_t len;
  int rc = logfmt__chunk_at (r, ref->offset, LOGFMT__CHUNK_TRACK, true, &p,
                             &len, &it->err);
  if (rc)
    return rc;
  logfmt__track_hdr_t h;
  rc = logfmt__track_parse (p, len, &h, r->path, ref->offset, &it->err);
  if (rc)
    return rc;
  if (h.ref.stream != ref->stream || h.ref.kind != ref->kind
      || h.ref.level != ref->level || h.ref.ncols != ref->ncols
      || h.ref.count != ref->count || h.ref.t_first != ref->t_first
      || h.ref.t_last != ref->t_last || h.ref.bin_ns != ref->bin_ns)
    return logfmt__err (&it->err, LOGFMT_ECORRUPT, r->path, ref->offset,
                        "track chunk header disagrees with the track "
                        "directory");
  if (h.ref.count > it->rcap)
    {
      logfmt_track_rec_t *v = realloc (it->recs, h.ref.count * sizeof *v);
      if (!v)
        return logfmt__err (&it->err, LOGFMT_ENOMEM, r->path, UINT64_MAX,
                            "no memory");
      it->recs = v;
      it->rcap = h.ref.count;
    }
  rc = logfmt__track_decode (it->dctx, &h, &it->buf, &it->cap, it->recs,
                             r->path, ref->offset, &it->err);
  if (rc)
    return rc;
  it->n = h.ref.count;
  it->pos = 0;
  it->ncols = h.ref.ncols;
  it->chunks++;
  it->next++;
  return 0;
}

int
logfmt_track_iter_next (logfmt_track_iter_t *it, logfmt_track_rec_t *rec)
{
  if (!it || !rec)
    return LOGFMT_EINVAL;
  if (it->failed)
    return it->failed;
  for (;;)
    {
      while (it->pos < it->n)
        {
          const logfmt_track_rec_t *x = &it->recs[it->pos++];
          if (x->time >= it->t1)
            {
              it->n = 0;
              it->next = it->end;
              return 0;
            }
          if (it->filter_t0 && x->time < it->t0)
            continue;
          *rec = *x;
          return 1;
        }
      if (it->next >= it->end)
        return 0;
      int rc = load_chunk (it);
      if (rc)
        {
          it->failed = rc;
          return rc;
        }
    }
}

/* ---- Metric bins ----------------------------------------------------- */

int
logfmt_reader_metric_bins (const logfmt_reader_t *r, uint32_t stream,
                           uint32_t id, int64_t object, uint64_t t0,
                           uint64_t t1, uint32_t nbins,
                           logfmt_metric_bin_t *out, uint64_t *level_ns,
                           logfmt_error_t *err)
{
  if (!r || !out || nbins == 0 || t1 <= t0)
    return logfmt__err (err, LOGFMT_EINVAL, r ? r->path : NULL, UINT64_MAX,
                        "logfmt_reader_metric_bins: bad argument");
  memset (out, 0, nbins * sizeof *out);
  uint64_t span = t1 - t0, width = span / nbins;
  /* The coarsest summary level present whose bins fit an output bin. */
  uint16_t level = 0;
  for (unsigned l = LOGFMT__METRIC_LEVELS; l >= 1; l--)
    {
      size_t i = lower (r, stream, LOGFMT_TRACK_METRIC, (uint16_t) l, 0);
      if (logfmt__metric_bin_ns (l) <= width && i < r->ntracks
          && same_track (&r->tracks[i], stream, LOGFMT_TRACK_METRIC,
                         (uint16_t) l))
        {
          level = (uint16_t) l;
          break;
        }
    }
  uint64_t bin_ns = level ? logfmt__metric_bin_ns (level) : 0;
  if (level_ns)
    *level_ns = bin_ns;
  logfmt_track_iter_t *it;
  int rc = iter_open (r, stream, LOGFMT_TRACK_METRIC, level, t0, t1, true,
                      &it);
  if (rc)
    return logfmt__err (err, rc, r->path, UINT64_MAX, "no memory");
  int64_t carry = 0;
  bool known = false;
  logfmt_track_rec_t x;
  while ((rc = logfmt_track_iter_next (it, &x)) == 1)
    {
      if (x.col[0] != (int64_t) id || x.col[1] != object)
        continue;
      int64_t mn, mx, last;
      uint64_t ns;
      if (level)
        {
          mn = x.col[2], mx = x.col[3], last = x.col[4];
          ns = (uint64_t) x.col[5];
        }
      else
        mn = mx = last = x.col[2], ns = 1;
      /* A sample, or a source bin, that ends before the window only sets
       * the value carried in. */
      if (x.time + bin_ns <= t0 || (!level && x.time < t0))
        {
          carry = last;
          known = true;
          continue;
        }
      uint64_t t = x.time < t0 ? t0 : x.time;
      uint32_t b = (uint32_t) ((unsigned __int128) (t - t0) * nbins / span);
      logfmt_metric_bin_t *o = &out[b];
      if (o->samples == 0)
        o->min = mn, o->max = mx;
      if (mn < o->min)
        o->min = mn;
      if (mx > o->max)
        o->max = mx;
      o->last = last;
      o->samples += ns;
    }
  if (rc < 0)
    {
      if (err)
        *err = *logfmt_track_iter_error (it);
      logfmt_track_iter_free (it);
      return rc;
    }
  logfmt_track_iter_free (it);
  /* Carry each bin's value into the next: an empty bin holds it, a bin
   * with samples spans it too (the value at the bin's start). */
  for (uint32_t b = 0; b < nbins; b++)
    {
      logfmt_metric_bin_t *o = &out[b];
      if (o->samples == 0)
        {
          o->min = o->max = o->last = carry;
          o->known = known;
          continue;
        }
      if (known)
        {
          if (carry < o->min)
            o->min = carry;
          if (carry > o->max)
            o->max = carry;
        }
      o->known = 1;
      carry = o->last;
      known = true;
    }
  return 0;
}

int
logfmt__track_check (const logfmt_reader_t *r, size_t i, logfmt_error_t *err)
{
  logfmt_track_iter_t *it;
  if (iter_open (r, 0, 0, 0, 0, UINT64_MAX, true, &it))
    return logfmt__err (err, LOGFMT_ENOMEM, r->path, UINT64_MAX,
                        "no memory");
  it->next = i;
  it->end = i + 1;
  int rc = load_chunk (it);
  if (rc && err)
    *err = it->err;
  logfmt_track_iter_free (it);
  return rc;
}

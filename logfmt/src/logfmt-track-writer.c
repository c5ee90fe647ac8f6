/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The writer's side of extension tracks: a track encoder per stream,
 * TRACK chunks copied into the file, then (at finish) the track
 * directory chunk and the DEFS records that locate it and define the
 * metrics (FORMAT.md section 14).
 */
#include "config.h"
#include "logfmt-track-internal.h"
#include "logfmt-writer-internal.h"

#include <stdlib.h>

struct logfmt__wtracks
{
  logfmt_track_encoder_t **enc;  /* per stream, made on first use */
  size_t nenc;
  logfmt__trackref_t *refs;
  size_t nrefs, crefs;
  logfmt_metric_def_t *metrics;
  size_t nmetrics, cmetrics;
  uint64_t dir_at, dir_n;
};

static struct logfmt__wtracks *
wt_get (logfmt_writer_t *w)
{
  struct logfmt__wtracks **p = logfmt__writer_tracks (w);
  if (!*p)
    *p = calloc (1, sizeof **p);
  return *p;
}

void
logfmt__wtracks_free (struct logfmt__wtracks *t)
{
  if (!t)
    return;
  for (size_t i = 0; i < t->nenc; i++)
    logfmt_track_encoder_free (t->enc[i]);
  for (size_t i = 0; i < t->nmetrics; i++)
    {
      free ((char *) t->metrics[i].name);
      free ((char *) t->metrics[i].unit);
    }
  free (t->enc);
  free (t->refs);
  free (t->metrics);
  free (t);
}

int
logfmt_writer_add_metric (logfmt_writer_t *w, const logfmt_metric_def_t *d)
{
  if (!w || !d)
    return LOGFMT_EINVAL;
  struct logfmt__wtracks *t = wt_get (w);
  if (!t)
    return LOGFMT_ENOMEM;
  size_t i;
  for (i = 0; i < t->nmetrics; i++)
    if (t->metrics[i].id == d->id)
      break;
  if (i == t->nmetrics)
    {
      if (logfmt__grow ((void **) &t->metrics, &t->cmetrics, t->nmetrics,
                        sizeof *t->metrics))
        return LOGFMT_ENOMEM;
      t->nmetrics++;
    }
  else
    {
      free ((char *) t->metrics[i].name);
      free ((char *) t->metrics[i].unit);
    }
  logfmt_metric_def_t *m = &t->metrics[i];
  *m = *d;
  m->name = strdup (d->name ? d->name : "");
  m->unit = strdup (d->unit ? d->unit : "");
  return m->name && m->unit ? 0 : LOGFMT_ENOMEM;
}

static int
on_chunk (void *user, const void *chunk, size_t len)
{
  logfmt_writer_t *w = user;
  const uint8_t *p = chunk;
  return logfmt_writer_put_track (w, ld32 (p + LOGFMT__CHUNK_HDR), chunk,
                                  len);
}

int
logfmt_writer_track_add (logfmt_writer_t *w, uint32_t stream, uint32_t kind,
                         const logfmt_track_rec_t *recs, size_t n)
{
  if (!w || (!recs && n))
    return LOGFMT_EINVAL;
  if (stream >= logfmt__writer_nstreams (w))
    return LOGFMT_ERANGE;
  if (logfmt_track_kind_ncols (kind) < 0)
    return LOGFMT_EINVAL;
  struct logfmt__wtracks *t = wt_get (w);
  if (!t)
    return LOGFMT_ENOMEM;
  if (stream >= t->nenc)
    {
      size_t nn = logfmt__writer_nstreams (w);
      logfmt_track_encoder_t **e = realloc (t->enc, nn * sizeof *e);
      if (!e)
        return LOGFMT_ENOMEM;
      memset (e + t->nenc, 0, (nn - t->nenc) * sizeof *e);
      t->enc = e;
      t->nenc = nn;
    }
  if (!t->enc[stream])
    {
      int rc = logfmt_track_encoder_new (stream, on_chunk, w,
                                         &t->enc[stream]);
      if (rc)
        return rc;
    }
  return logfmt_track_encoder_add (t->enc[stream], kind, recs, n);
}

int
logfmt_writer_track_flush (logfmt_writer_t *w, uint32_t stream)
{
  if (!w)
    return LOGFMT_EINVAL;
  struct logfmt__wtracks *t = *logfmt__writer_tracks (w);
  if (!t || stream >= t->nenc || !t->enc[stream])
    return 0;
  int rc = logfmt_track_encoder_flush (t->enc[stream]);
  logfmt_track_encoder_free (t->enc[stream]);
  t->enc[stream] = NULL;
  return rc;
}

/* The directory entry of a TRACK chunk at `at`. */
static int
add_trackref (logfmt_writer_t *w, uint64_t at, const logfmt__track_hdr_t *h)
{
  struct logfmt__wtracks *t = wt_get (w);
  if (!t)
    return LOGFMT_ENOMEM;
  if (logfmt__grow ((void **) &t->refs, &t->crefs, t->nrefs, sizeof *t->refs))
    return LOGFMT_ENOMEM;
  t->refs[t->nrefs] = h->ref;
  t->refs[t->nrefs++].offset = at;
  return 0;
}

int
logfmt_writer_put_track (logfmt_writer_t *w, uint32_t stream,
                         const void *chunk, size_t len)
{
  if (!w || !chunk)
    return LOGFMT_EINVAL;
  if (stream >= logfmt__writer_nstreams (w))
    return LOGFMT_ERANGE;
  const uint8_t *p = chunk;
  if (len < LOGFMT__CHUNK_HDR + LOGFMT__TRACK_HDR + LOGFMT__CHUNK_CRC
      || ld32 (p) != LOGFMT__CHUNK_TRACK
      || ld64 (p + 8) != len - LOGFMT__CHUNK_HDR - LOGFMT__CHUNK_CRC)
    return LOGFMT_EINVAL;
  uint64_t plen = ld64 (p + 8);
  const uint8_t *pay = p + LOGFMT__CHUNK_HDR;
  if (logfmt__chunk_crc (p, pay, plen, LOGFMT__TRACK_CRC_SKIP)
      != ld32 (pay + plen))
    return LOGFMT_ECHECKSUM;
  logfmt__track_hdr_t h;
  if (logfmt__track_parse (pay, plen, &h, NULL, 0, NULL))
    return LOGFMT_ECORRUPT;
  if (!wt_get (w))
    return LOGFMT_ENOMEM;
  uint8_t patch[8];
  st32 (patch, stream);
  st32 (patch + 4, ~stream);
  uint64_t at;
  int rc = logfmt__writer_raw (w, p, LOGFMT__CHUNK_HDR, &at);
  if (!rc)
    rc = logfmt__writer_raw (w, patch, 8, NULL);
  if (!rc)
    rc = logfmt__writer_raw (w, pay + 8, len - LOGFMT__CHUNK_HDR - 8, NULL);
  if (rc)
    return rc;
  h.ref.stream = stream;
  return add_trackref (w, at, &h);
}

int
logfmt__wtracks_note (logfmt_writer_t *w, uint64_t at, const uint8_t *pay,
                      size_t len, uint64_t plen)
{
  logfmt__track_hdr_t h;
  if (len < LOGFMT__TRACK_HDR
      || logfmt__track_parse (pay, plen, &h, NULL, 0, NULL))
    return LOGFMT_ECORRUPT;
  if (h.ref.stream >= logfmt__writer_nstreams (w))
    return LOGFMT_ERANGE;
  return add_trackref (w, at, &h);
}

static void
put_str (uint8_t **q, const char *s)
{
  size_t n = strlen (s);
  st32 (*q, (uint32_t) n);
  memcpy (*q + 4, s, n);
  *q += 4 + n;
}

int
logfmt__wtracks_defs (const struct logfmt__wtracks *t, bool with_dir,
                      uint8_t **out, size_t *len)
{
  *out = NULL;
  *len = 0;
  if (!t)
    return 0;
  size_t need = 24;
  for (size_t i = 0; i < t->nmetrics; i++)
    need += 24 + strlen (t->metrics[i].name) + strlen (t->metrics[i].unit);
  uint8_t *b = malloc (need), *q = b;
  if (!b)
    return LOGFMT_ENOMEM;
  if (with_dir && t->dir_n)
    {
      st32 (q, LOGFMT__DEFS_TRACKDIR);
      st32 (q + 4, 16);
      st64 (q + 8, t->dir_at);
      st64 (q + 16, t->dir_n);
      q += 24;
    }
  for (size_t i = 0; i < t->nmetrics; i++)
    {
      const logfmt_metric_def_t *m = &t->metrics[i];
      uint8_t *rec = q;
      q += 8;
      st32 (q, m->id);
      st32 (q + 4, m->flags);
      q += 8;
      put_str (&q, m->name);
      put_str (&q, m->unit);
      st32 (rec, LOGFMT__DEFS_METRIC);
      st32 (rec + 4, (uint32_t) (q - rec - 8));
    }
  *out = b;
  *len = (size_t) (q - b);
  return 0;
}

int
logfmt__wtracks_finish (logfmt_writer_t *w)
{
  struct logfmt__wtracks *t = *logfmt__writer_tracks (w);
  if (!t)
    return 0;
  for (size_t i = 0; i < t->nenc; i++)
    {
      int rc = logfmt_writer_track_flush (w, (uint32_t) i);
      if (rc)
        return rc;
    }
  if (t->nrefs == 0)
    return 0;
  qsort (t->refs, t->nrefs, sizeof *t->refs, logfmt__trackref_cmp);
  for (size_t i = 1; i < t->nrefs; i++)
    {
      const logfmt__trackref_t *a = &t->refs[i - 1], *b = &t->refs[i];
      if (a->stream == b->stream && a->kind == b->kind
          && a->level == b->level && a->t_last > b->t_first)
        return LOGFMT_ERANGE;  /* chunks of one track overlap in time */
    }
  size_t dlen = LOGFMT__TRACKDIR_HDR + t->nrefs * LOGFMT__TRACKDIR_ENTRY;
  uint8_t *d = malloc (dlen);
  if (!d)
    return LOGFMT_ENOMEM;
  st32 (d, (uint32_t) t->nrefs);
  st32 (d + 4, 0);
  uint8_t *e = d + LOGFMT__TRACKDIR_HDR;
  for (size_t i = 0; i < t->nrefs; i++, e += LOGFMT__TRACKDIR_ENTRY)
    {
      const logfmt__trackref_t *r = &t->refs[i];
      st64 (e, r->offset);
      st32 (e + 8, r->stream);
      st32 (e + 12, r->kind);
      st16 (e + 16, r->level);
      st16 (e + 18, r->ncols);
      st32 (e + 20, r->count);
      st64 (e + 24, r->t_first);
      st64 (e + 32, r->t_last);
      st64 (e + 40, r->bin_ns);
    }
  int rc = logfmt__writer_chunk (w, LOGFMT__CHUNK_TRACKDIR, d, dlen,
                                 &t->dir_at);
  free (d);
  t->dir_n = t->nrefs;
  return rc;
}

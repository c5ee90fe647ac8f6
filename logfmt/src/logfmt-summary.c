/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Level-of-detail summaries.  Per stream, an adaptive histogram of time:
 * bins of a power-of-two width in ns, doubled whenever their number would
 * pass max(1024, records/64) (at most 65536), each holding the record count
 * and, per state present, the ns during which it was the innermost open
 * state.  The finest level is stored plus coarser ones (x8) down to <= 64
 * bins; FORMAT.md "Summaries" has the bytes.  Which state is innermost
 * comes from the state tracker (logfmt-intervals.c), the rule every tool
 * shares.
 */
#include "config.h"
#include "logfmt-intervals-internal.h"
#include "logfmt-reader-internal.h"

#include <stdlib.h>
#include <zstd.h>

#define MIN_LIMIT     1024u
#define MAX_BINS      65536u
#define FIRST_SHIFT   6          /* 64 ns to start with */
#define SUM_HDR       40
#define LVL_HDR       24

typedef struct
{
  uint32_t state;
  uint64_t ns;
} sent_t;

typedef struct
{
  uint32_t count;
  uint32_t nent;
  size_t   off;       /* into entries */
} sbin_t;

struct logfmt_summary_builder
{
  logfmt__classify_t cls;
  uint32_t nstates;
  bool     started;
  uint64_t origin, t_prev, total;
  unsigned shift;          /* bin width = 1 << shift */
  logfmt_state_tracker_t *tr;
  int32_t  top;            /* innermost open state, -1 if none */
  /* Completed bins. */
  sbin_t  *bins;
  size_t   nbins, cbins;
  sent_t  *ent;
  size_t   nent, cent;
  /* Current bin (index nbins): dense accumulators + touched list. */
  uint64_t *acc;
  sent_t   *scratch;       /* 2 * (nstates + 1) entries for coarsen */
  uint32_t *touched;
  uint32_t ntouched;
  uint32_t cur_count;
  uint64_t cur_end;        /* exclusive end time of the current bin */
  bool     oom;
};

int
logfmt_summary_builder_new (const logfmt_state_def_t *states, size_t n,
                            logfmt_summary_builder_t **out)
{
  if (!out || (n && !states) || n > (1u << 24))
    return LOGFMT_EINVAL;
  *out = NULL;
  logfmt_summary_builder_t *b = calloc (1, sizeof *b);
  if (!b)
    return LOGFMT_ENOMEM;
  b->nstates = (uint32_t) n;
  b->acc = calloc (n + 1, sizeof *b->acc);
  b->touched = malloc ((n + 1) * sizeof *b->touched);
  b->scratch = malloc (2 * (n + 1) * sizeof *b->scratch);
  b->top = -1;
  if (!b->acc || !b->touched || !b->scratch
      /* Only the innermost open state counts here. */
      || logfmt_state_tracker_new_mode (n, 0, LOGFMT_TRACKER_NESTING, &b->tr)
      || logfmt__classify_init (&b->cls, states, n))
    {
      logfmt_summary_builder_free (b);
      return LOGFMT_ENOMEM;
    }
  b->shift = FIRST_SHIFT;
  *out = b;
  return 0;
}

void
logfmt_summary_builder_free (logfmt_summary_builder_t *b)
{
  if (!b)
    return;
  logfmt__classify_free (&b->cls);
  logfmt_state_tracker_free (b->tr);
  free (b->acc);
  free (b->touched);
  free (b->scratch);
  free (b->bins);
  free (b->ent);
  free (b);
}

static int
cmp_u32 (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  return (x > y) - (x < y);
}

static bool
ent_reserve (logfmt_summary_builder_t *b, size_t extra)
{
  if (b->nent + extra <= b->cent)
    return true;
  size_t c = b->cent ? b->cent * 2 : 1024;
  while (c < b->nent + extra)
    c *= 2;
  sent_t *p = realloc (b->ent, c * sizeof *p);
  if (!p)
    return false;
  b->ent = p;
  b->cent = c;
  return true;
}

/* Merges completed bins pairwise (the bin width doubles).  Each bin's
 * entries are sorted by state, so a pair merges like two sorted lists;
 * the pair is copied out first because the output overlaps it. */
static void
coarsen (logfmt_summary_builder_t *b)
{
  size_t out = 0, w = 0;
  for (size_t i = 0; i < b->nbins; i += 2)
    {
      sbin_t *x = &b->bins[i];
      sbin_t *y = i + 1 < b->nbins ? &b->bins[i + 1] : NULL;
      uint32_t nx = x->nent, ny = y ? y->nent : 0;
      uint32_t cnt = x->count + (y ? y->count : 0);
      if (nx)
        memcpy (b->scratch, b->ent + x->off, nx * sizeof (sent_t));
      if (ny)
        memcpy (b->scratch + nx, b->ent + y->off, ny * sizeof (sent_t));
      const sent_t *xa = b->scratch, *ya = b->scratch + nx;
      uint32_t xi = 0, yi = 0;
      size_t start = w;
      while (xi < nx || yi < ny)
        {
          sent_t e;
          if (yi >= ny || (xi < nx && xa[xi].state < ya[yi].state))
            e = xa[xi++];
          else if (xi >= nx || ya[yi].state < xa[xi].state)
            e = ya[yi++];
          else
            {
              e = xa[xi++];
              e.ns += ya[yi++].ns;
            }
          b->ent[w++] = e;
        }
      b->bins[out].count = cnt;
      b->bins[out].nent = (uint32_t) (w - start);
      b->bins[out].off = start;
      out++;
    }
  b->nbins = out;
  b->nent = w;
  b->shift++;
}

static size_t
limit (const logfmt_summary_builder_t *b)
{
  uint64_t l = b->total / 64;
  if (l < MIN_LIMIT)
    l = MIN_LIMIT;
  if (l > MAX_BINS)
    l = MAX_BINS;
  return (size_t) l;
}

/* Room for one more bin. */
static bool
bins_reserve (logfmt_summary_builder_t *b)
{
  return logfmt__grow ((void **) &b->bins, &b->cbins, b->nbins,
                       sizeof *b->bins) == 0;
}

/* End of the current bin, saturated: a bin that would reach past 2^64 ns
 * is the last one (no time lies beyond it), so that closing bins up to a
 * huge time ends there instead of wrapping round. */
static uint64_t
bin_end (const logfmt_summary_builder_t *b)
{
  uint64_t k = (uint64_t) b->nbins + 1;
  if (b->shift >= 64 || k > (UINT64_MAX >> b->shift))
    return UINT64_MAX;
  uint64_t span = k << b->shift;
  return span > UINT64_MAX - b->origin ? UINT64_MAX : b->origin + span;
}

/* A bin was appended: coarsen when there are too many, and open the
 * next. */
static void
bin_closed (logfmt_summary_builder_t *b)
{
  if (b->nbins >= limit (b) && b->nbins % 2 == 0)
    coarsen (b);
  b->cur_end = bin_end (b);
}

/* Closes the current bin and opens the next one. */
static void
close_bin (logfmt_summary_builder_t *b)
{
  if (!bins_reserve (b) || !ent_reserve (b, b->ntouched))
    {
      b->oom = true;
      return;
    }
  qsort (b->touched, b->ntouched, sizeof *b->touched, cmp_u32);
  sbin_t *bin = &b->bins[b->nbins++];
  bin->count = b->cur_count;
  bin->off = b->nent;
  bin->nent = 0;
  for (uint32_t i = 0; i < b->ntouched; i++)
    {
      uint32_t s = b->touched[i];
      if (b->acc[s])
        {
          b->ent[b->nent++] = (sent_t) { s, b->acc[s] };
          bin->nent++;
        }
      b->acc[s] = 0;
    }
  b->ntouched = 0;
  b->cur_count = 0;
  bin_closed (b);
}

static inline void
account (logfmt_summary_builder_t *b, uint64_t ns)
{
  if (b->top < 0 || ns == 0)
    return;
  uint32_t s = (uint32_t) b->top;
  if (b->acc[s] == 0)
    b->touched[b->ntouched++] = s;
  b->acc[s] += ns;
}

/* Closes a bin that no event fell in, from its start to its end: it
 * holds the open state's time only, so it goes in without the
 * accumulators (a sparse stream crosses thousands of them: 200 events
 * over 1,024 bins and more). */
static void
close_empty_bin (logfmt_summary_builder_t *b)
{
  if (!bins_reserve (b) || !ent_reserve (b, 1))
    {
      b->oom = true;
      return;
    }
  uint64_t ns = b->cur_end - b->t_prev;
  sbin_t *bin = &b->bins[b->nbins++];
  bin->count = 0;
  bin->off = b->nent;
  bin->nent = 0;
  if (b->top >= 0 && ns)
    {
      b->ent[b->nent++] = (sent_t) { (uint32_t) b->top, ns };
      bin->nent = 1;
    }
  b->t_prev = b->cur_end;
  bin_closed (b);
}

/* Moves time forward to t (at or past the current bin's end), splitting
 * the open state's time over bins. */
static void
advance (logfmt_summary_builder_t *b, uint64_t t)
{
  if (!b->oom)
    {
      account (b, b->cur_end - b->t_prev);
      b->t_prev = b->cur_end;
      close_bin (b);
    }
  while (t >= b->cur_end && b->cur_end != UINT64_MAX && !b->oom)
    close_empty_bin (b);
  if (t > b->t_prev)
    {
      account (b, t - b->t_prev);
      b->t_prev = t;
    }
}

int
logfmt_summary_builder_add (logfmt_summary_builder_t *b,
                            const logfmt_event_t *ev, size_t n)
{
  if (!b || (!ev && n))
    return LOGFMT_EINVAL;
  for (size_t i = 0; i < n; i++)
    {
      uint64_t t = ev[i].time;
      if (!b->started)
        {
          b->started = true;
          b->origin = b->t_prev = t;
          b->cur_end = bin_end (b);
        }
      if (t < b->t_prev)
        t = b->t_prev;  /* as the encoder does */
      if (LOGFMT_UNLIKELY (t >= b->cur_end && b->cur_end != UINT64_MAX))
        advance (b, t);
      else
        {
          account (b, t - b->t_prev);
          b->t_prev = t;
        }
      b->total++;
      b->cur_count++;
      if (ev[i].type != LOGFMT_REC_EVENT)
        continue;
      int32_t c = logfmt__classify (&b->cls, ev[i].id);
      if (c < 0)
        continue;
      int32_t st = c >> 1;
      int rc = (c & 1)
                 ? logfmt__tr_end_m (b->tr, st, t, NULL, NULL, NULL, true)
                 : logfmt__tr_begin_m (b->tr, st, t, NULL, true);
      if (rc < 0)
        b->oom = true;
      b->top = logfmt__tr_top (b->tr);
    }
  return b->oom ? LOGFMT_ENOMEM : 0;
}

/* ---- Serialisation --------------------------------------------------- */

/* Appends one level (header + zstd'd columns) built from bins/ent. */
static bool
put_level (logfmt__bytes_t *o, ZSTD_CCtx *cctx, uint64_t bin_ns,
           const sbin_t *bins, size_t nb, const sent_t *ent)
{
  size_t nent = 0;
  for (size_t i = 0; i < nb; i++)
    nent += bins[i].nent;
  size_t rawcap = nb * 10 + nent * 15 + 16;
  uint8_t *raw = malloc (rawcap);
  if (!raw)
    return false;
  uint8_t *r = raw;
  for (size_t i = 0; i < nb; i++)
    {
      r = put_uv (r, bins[i].count);
      r = put_uv (r, bins[i].nent);
      uint32_t prev = 0;
      for (uint32_t k = 0; k < bins[i].nent; k++)
        {
          const sent_t *e = &ent[bins[i].off + k];
          r = put_uv (r, e->state - prev);
          prev = e->state + 1;
          r = put_uv (r, e->ns);
        }
    }
  size_t rawlen = (size_t) (r - raw);
  size_t bound = ZSTD_compressBound (rawlen);
  if (logfmt__bytes_reserve (o, LVL_HDR + bound))
    {
      free (raw);
      return false;
    }
  uint8_t *h = o->p + o->len;
  size_t clen = ZSTD_compressCCtx (cctx, h + LVL_HDR, bound, raw, rawlen, 3);
  free (raw);
  if (ZSTD_isError (clen))
    return false;
  st64 (h, bin_ns);
  st32 (h + 8, (uint32_t) nb);
  st32 (h + 12, (uint32_t) rawlen);
  st64 (h + 16, clen);
  o->len += LVL_HDR + clen;
  return true;
}

int
logfmt_summary_builder_finish (logfmt_summary_builder_t *b, uint32_t stream,
                               void **bytes, size_t *len)
{
  ZSTD_CCtx *cctx = ZSTD_createCCtx ();
  if (!cctx)
    return LOGFMT_ENOMEM;
  int rc = logfmt__summary_builder_finish_cctx (b, stream, cctx, bytes, len);
  ZSTD_freeCCtx (cctx);
  return rc;
}

int
logfmt__summary_builder_finish_cctx (logfmt_summary_builder_t *b,
                                     uint32_t stream, ZSTD_CCtx *cctx,
                                     void **bytes, size_t *len)
{
  if (!b || !bytes || !len)
    return LOGFMT_EINVAL;
  *bytes = NULL;
  *len = 0;
  if (b->started)
    {
      /* Close the last bin (it holds the last event time); by hand,
       * since close_bin would coarsen and open another. */
      if (b->nbins == b->cbins)
        {
          sbin_t *p = realloc (b->bins, (b->cbins + 1) * sizeof *p);
          if (!p)
            return LOGFMT_ENOMEM;
          b->bins = p;
          b->cbins++;
        }
      if (!ent_reserve (b, b->ntouched))
        return LOGFMT_ENOMEM;
      qsort (b->touched, b->ntouched, sizeof *b->touched, cmp_u32);
      sbin_t *bin = &b->bins[b->nbins++];
      bin->count = b->cur_count;
      bin->off = b->nent;
      bin->nent = 0;
      for (uint32_t i = 0; i < b->ntouched; i++)
        {
          uint32_t s = b->touched[i];
          if (b->acc[s])
            {
              b->ent[b->nent++] = (sent_t) { s, b->acc[s] };
              bin->nent++;
            }
          b->acc[s] = 0;
        }
      b->ntouched = 0;
      b->cur_count = 0;
    }
  if (b->oom)
    return LOGFMT_ENOMEM;
  logfmt__bytes_t o = { 0 };
  if (logfmt__bytes_reserve (&o, LOGFMT__CHUNK_HDR + SUM_HDR))
    return LOGFMT_ENOMEM;
  o.len = LOGFMT__CHUNK_HDR + SUM_HDR;
  uint32_t nlevels = 0;
  bool ok = true;
  if (b->started)
    {
      /* Finest level, then x8 merges down to <= 64 bins. */
      ok = put_level (&o, cctx, 1ull << b->shift, b->bins, b->nbins,
                      b->ent);
      nlevels = 1;
      while (ok && b->nbins > 64 && nlevels < LOGFMT__SUM_MAX_LEVELS)
        {
          coarsen (b);
          coarsen (b);
          coarsen (b);
          ok = put_level (&o, cctx, 1ull << b->shift, b->bins, b->nbins,
                          b->ent);
          nlevels++;
        }
    }
  if (!ok || logfmt__bytes_reserve (&o, LOGFMT__CHUNK_CRC))
    {
      free (o.p);
      return LOGFMT_ENOMEM;
    }
  uint8_t *h = o.p + LOGFMT__CHUNK_HDR;
  memset (h, 0, SUM_HDR);
  st32 (h, stream);
  st32 (h + 4, b->nstates);
  st64 (h + 8, b->origin);
  st64 (h + 16, b->t_prev);
  st32 (h + 24, nlevels);
  st64 (h + 32, b->total);
  uint64_t plen = o.len - LOGFMT__CHUNK_HDR;
  st32 (o.p, LOGFMT__CHUNK_SUMMARY);
  st32 (o.p + 4, 0);
  st64 (o.p + 8, plen);
  st32 (o.p + o.len, logfmt__chunk_crc (o.p, h, plen, 0));
  o.len += LOGFMT__CHUNK_CRC;
  *bytes = o.p;
  *len = o.len;
  return 0;
}

/* ---- Reading --------------------------------------------------------- */

/* Parses a summary payload's header and level table. */
int
logfmt__summary_parse (const uint8_t *p, uint64_t len, uint32_t *stream,
                       uint64_t *origin, uint64_t *t_last, uint64_t *total,
                       logfmt__lvl_t *lv, uint32_t *nlv)
{
  if (len < SUM_HDR)
    return LOGFMT_ECORRUPT;
  *stream = ld32 (p);
  *origin = ld64 (p + 8);
  *t_last = ld64 (p + 16);
  uint32_t n = ld32 (p + 24);
  *total = ld64 (p + 32);
  if (n > LOGFMT__SUM_MAX_LEVELS || ld32 (p + 28) != 0 || *t_last < *origin)
    return LOGFMT_ECORRUPT;
  const uint8_t *q = p + SUM_HDR, *end = p + len;
  for (uint32_t i = 0; i < n; i++)
    {
      if ((size_t) (end - q) < LVL_HDR)
        return LOGFMT_ECORRUPT;
      lv[i].bin_ns = ld64 (q);
      lv[i].nbins = ld32 (q + 8);
      lv[i].raw_len = ld32 (q + 12);
      lv[i].clen = ld64 (q + 16);
      lv[i].data = q + LVL_HDR;
      if (lv[i].clen > (uint64_t) (end - q) - LVL_HDR
          || lv[i].bin_ns == 0 || (lv[i].bin_ns & (lv[i].bin_ns - 1))
          || lv[i].nbins == 0 || lv[i].nbins > 4 * MAX_BINS
          || lv[i].raw_len < 2 * (uint64_t) lv[i].nbins
          || (i > 0 && lv[i].bin_ns <= lv[i - 1].bin_ns)
          || (*t_last - *origin) / lv[i].bin_ns >= lv[i].nbins)
        return LOGFMT_ECORRUPT;
      q += LVL_HDR + lv[i].clen;
    }
  if (q != end)
    return LOGFMT_ECORRUPT;
  *nlv = n;
  return 0;
}

int
logfmt_reader_summary (const logfmt_reader_t *r, uint32_t stream,
                       uint64_t t0, uint64_t t1, uint32_t nbins,
                       float *occ, uint32_t *events, uint64_t *level_ns,
                       logfmt_error_t *err)
{
  const char *path = r ? r->path : NULL;
  if (!r || !occ || nbins == 0 || t1 <= t0)
    return logfmt__err (err, LOGFMT_EINVAL, path, UINT64_MAX,
                        "logfmt_reader_summary: bad arguments");
  if (stream >= r->nstreams)
    return logfmt__err (err, LOGFMT_ERANGE, path, UINT64_MAX,
                        "no stream %u", stream);
  size_t ns = r->nstates;
  memset (occ, 0, (size_t) nbins * ns * sizeof *occ);
  if (events)
    memset (events, 0, nbins * sizeof *events);
  if (level_ns)
    *level_ns = 0;
  const logfmt__rstream_t *s = &r->streams[stream];
  if (s->summary_off == 0)
    {
      if (s->nevents == 0)
        return 0;  /* nothing to summarise */
      return logfmt__err (err, LOGFMT_ENOENT, path, UINT64_MAX,
                          "stream %u has no summary", stream);
    }
  const uint8_t *p;
  uint64_t len;
  int rc = logfmt__chunk_at (r, s->summary_off, LOGFMT__CHUNK_SUMMARY, true,
                             &p, &len, err);
  if (rc)
    return rc;
  logfmt__lvl_t lv[LOGFMT__SUM_MAX_LEVELS];
  uint32_t nlv, sid;
  uint64_t origin, t_last, total;
  if (logfmt__summary_parse (p, len, &sid, &origin, &t_last, &total, lv,
                             &nlv) || sid != stream)
    return logfmt__err (err, LOGFMT_ECORRUPT, path, s->summary_off,
                        "malformed summary of stream %u", stream);
  /* Bins are placed from the origin: one that is not the stream's first
   * record would shift them all (a scanned file may have lost blocks). */
  if (!r->info.partial && s->nblocks
      && (origin != s->t_first || t_last != s->t_last))
    return logfmt__err (err, LOGFMT_ECORRUPT, path, s->summary_off,
                        "summary of stream %u spans %llu .. %llu ns, its "
                        "records %llu .. %llu ns", stream,
                        (unsigned long long) origin,
                        (unsigned long long) t_last,
                        (unsigned long long) s->t_first,
                        (unsigned long long) s->t_last);
  if (nlv == 0)
    return 0;
  /* The coarsest level still at least as fine as an output bin. */
  double want = (double) (t1 - t0) / nbins;
  uint32_t li = 0;
  for (uint32_t i = 0; i < nlv; i++)
    if ((double) lv[i].bin_ns <= want)
      li = i;
  const logfmt__lvl_t *L = &lv[li];
  if (level_ns)
    *level_ns = L->bin_ns;
  uint64_t fsz = ZSTD_getFrameContentSize (L->data, L->clen);
  if (fsz != L->raw_len)
    return logfmt__err (err, LOGFMT_ECORRUPT, path, s->summary_off,
                        "summary level size mismatch");
  uint8_t *raw = malloc (L->raw_len ? L->raw_len : 1);
  if (!raw)
    return logfmt__err (err, LOGFMT_ENOMEM, path, UINT64_MAX, "no memory");
  size_t got = logfmt__reader_decompress (r, raw, L->raw_len, L->data,
                                          L->clen);
  if (ZSTD_isError (got) || got != L->raw_len)
    {
      free (raw);
      return logfmt__err (err, LOGFMT_ECORRUPT, path, s->summary_off,
                          "summary level does not decompress");
    }
  const uint8_t *q = raw, *end = raw + L->raw_len;
  double span = (double) (t1 - t0);
  double obw = span / nbins;
  /* A source bin's weight in each output bin it overlaps (the overlap
   * over the two bins' widths), computed once per source bin, not per
   * state in it: v * w[k] is the state's share of output bin j0 + k.
   * bin_ns is a power of two, so dividing by it is exact. */
  double wstack[64], *w = wstack;
  size_t wcap = 64;
  bool bad = false, past = false;
  for (uint32_t i = 0; i < L->nbins && !bad; i++)
    {
      uint64_t cnt, ne;
      if (!get_uv (&q, end, &cnt) || !get_uv (&q, end, &ne)
          || ne > ns + 1 || ne > (uint64_t) (end - q))
        {
          bad = true;
          break;
        }
      uint64_t b0 = origin + (uint64_t) i * L->bin_ns;
      uint64_t b1 = b0 + L->bin_ns;
      if (b0 >= t1)
        {
          /* Bins are in time order: none after this one is inside. */
          past = true;
          break;
        }
      bool inside = b1 > t0 && ne > 0;
      if (b1 > t0 && events)
        {
          uint64_t mid = b0 + L->bin_ns / 2;
          if (mid >= t0 && mid < t1)
            events[(size_t) ((double) (mid - t0) / obw)
                   < nbins ? (size_t) ((double) (mid - t0) / obw)
                           : nbins - 1] += (uint32_t) cnt;
        }
      size_t j0 = 0, nw = 0;
      if (inside)
        {
          double a = (double) (b0 > t0 ? b0 - t0 : 0);
          double e = (double) (b1 < t1 ? b1 - t0 : t1 - t0);
          size_t j = (size_t) (a / obw);
          /* At most nbins output bins, and at most this many: past the
           * stack's, room for every output bin, once. */
          if (w == wstack && (size_t) ((e - a) / obw) + 2 > wcap)
            {
              double *all = malloc (((size_t) nbins + 2) * sizeof *all);
              if (!all)
                {
                  free (raw);
                  return logfmt__err (err, LOGFMT_ENOMEM, path, UINT64_MAX,
                                      "no memory");
                }
              w = all;
              wcap = (size_t) nbins + 2;
            }
          j0 = j;
          while (j < nbins && a < e && nw < wcap)
            {
              double je = (double) (j + 1) * obw;
              double seg = (je < e ? je : e) - a;
              w[nw++] = seg / obw / (double) L->bin_ns;
              a += seg;
              j++;
            }
        }
      uint64_t st = 0;
      for (uint64_t k = 0; k < ne; k++)
        {
          uint64_t d, v;
          if (!get_uv (&q, end, &d) || !get_uv (&q, end, &v))
            {
              bad = true;
              break;
            }
          st += d;
          if (st >= ns || v > L->bin_ns)
            {
              bad = true;
              break;
            }
          float *o = occ + j0 * ns + st;
          for (size_t x = 0; x < nw; x++, o += ns)
            *o += (float) ((double) v * w[x]);
          st++;
        }
    }
  if (w != wstack)
    free (w);
  if (!bad && !past && q != end)
    bad = true;
  free (raw);
  if (bad)
    return logfmt__err (err, LOGFMT_ECORRUPT, path, s->summary_off,
                        "summary level %u of stream %u is corrupt", li,
                        stream);
  return 0;
}

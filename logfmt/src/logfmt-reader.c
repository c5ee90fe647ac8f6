/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reader: maps the file, locates the index through the trailer, loads the
 * definitions, and iterates events and messages.  Everything read from the
 * file is checked before use; the reader is immutable after open.
 */
#include "config.h"
#include "logfmt-reader-internal.h"
#include "logfmt-import-internal.h"
#include "logfmt-callpath-internal.h"
#include "logfmt-track-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define E(code, off, ...) logfmt__err (err, code, r->path, off, __VA_ARGS__)

int
logfmt__chunk_at (const logfmt_reader_t *r, uint64_t off, uint32_t want,
                  bool check_crc, const uint8_t **payload, uint64_t *plen,
                  logfmt_error_t *err)
{
  if (off > r->size || r->size - off < LOGFMT__CHUNK_HDR + LOGFMT__CHUNK_CRC)
    return E (LOGFMT_ETRUNCATED, off, "chunk header runs past the end of "
              "the %zu-byte file", r->size);
  const uint8_t *h = r->data + off;
  uint32_t type = ld32 (h);
  if (want && type != want)
    return E (LOGFMT_ECORRUPT, off, "chunk type %u where type %u was "
              "expected", type, want);
  uint64_t len = ld64 (h + 8);
  if (len > r->size - off - LOGFMT__CHUNK_HDR - LOGFMT__CHUNK_CRC)
    return E (LOGFMT_ETRUNCATED, off, "chunk payload of %llu bytes runs "
              "past the end of the file", (unsigned long long) len);
  const uint8_t *p = h + LOGFMT__CHUNK_HDR;
  if (check_crc
      && logfmt__chunk_crc (h, p, len, logfmt__chunk_skip (type))
         != ld32 (p + len))
    return E (LOGFMT_ECHECKSUM, off, "checksum mismatch in chunk of type "
              "%u (%llu bytes)", type, (unsigned long long) len);
  *payload = p;
  *plen = len;
  return 0;
}

/* ---- Definitions ----------------------------------------------------- */

/* Reads a string into a fresh NUL-terminated copy; NULL strings give
 * *out = NULL.  Returns false on bad data (c->bad set). */
static bool
cur_str (logfmt__cur_t *c, char **out, bool *oom)
{
  *out = NULL;
  uint32_t n = cur_u32 (c);
  if (c->bad)
    return false;
  if (n == UINT32_MAX)
    return true;
  if (!cur_need (c, n))
    return false;
  char *s = malloc ((size_t) n + 1);
  if (!s)
    {
      *oom = true;
      c->bad = true;
      return false;
    }
  memcpy (s, c->p, n);
  s[n] = 0;
  if (memchr (s, 0, n))
    {
      free (s);
      c->bad = true;
      return false;
    }
  c->p += n;
  *out = s;
  return true;
}

/* A stream's rank lies in the world (its stated size, else the reader's
 * limit) and its thread is not negative: tools index tables by both. */
bool
logfmt__stream_def_ok (const logfmt_reader_t *r,
                       const logfmt_stream_def_t *d)
{
  uint32_t world = r->info.world_size ? r->info.world_size
                                      : LOGFMT__MAX_WORLD;
  return d->rank >= 0 && (uint32_t) d->rank < world && d->thread >= 0;
}

int
logfmt__load_defs (logfmt_reader_t *r, uint64_t off, bool tolerant,
                   logfmt_error_t *err)
{
  uint32_t nstreams = (uint32_t) r->nstreams;
  const uint8_t *p;
  uint64_t len;
  int rc = logfmt__chunk_at (r, off, LOGFMT__CHUNK_DEFS, true, &p, &len, err);
  if (rc)
    return rc;
  /* Count first so each array is allocated once, bounded by the chunk. */
  size_t cnt[8] = { 0 }, nres = 0;
  logfmt__cur_t c = { p, p + len, false };
  while (c.p < c.end)
    {
      uint32_t kind = cur_u32 (&c), rl = cur_u32 (&c);
      if (c.bad || !cur_need (&c, rl))
        return E (LOGFMT_ECORRUPT, off, "definition record runs past the "
                  "end of its chunk");
      if (kind >= 1 && kind <= 7)
        cnt[kind]++;
      else if (kind >= LOGFMT_RES_CPU && kind <= LOGFMT_RES_NIC)
        nres++;
      c.p += rl;
    }
  if (tolerant && cnt[3] > nstreams)
    {
      /* A scanned file may define streams that logged nothing. */
      logfmt__rstream_t *ns = realloc (r->streams,
                                       (cnt[3] + 1) * sizeof *ns);
      if (!ns)
        return E (LOGFMT_ENOMEM, UINT64_MAX, "no memory");
      memset (ns + nstreams, 0, (cnt[3] + 1 - nstreams) * sizeof *ns);
      r->streams = ns;
      r->nstreams = nstreams = (uint32_t) cnt[3];
      r->info.nstreams = nstreams;
    }
  if (cnt[3] != nstreams && !tolerant)
    return E (LOGFMT_ECORRUPT, off, "%zu stream definitions but the index "
              "lists %u streams", cnt[3], nstreams);
  r->states = calloc (cnt[1] + 1, sizeof *r->states);
  r->events = calloc (cnt[2] + 1, sizeof *r->events);
  r->comms = calloc (cnt[4] + 1, sizeof *r->comms);
  r->consts = calloc (cnt[5] + 1, sizeof *r->consts);
  r->metrics = calloc (cnt[LOGFMT__DEFS_METRIC] + 1, sizeof *r->metrics);
  r->res = calloc (nres + 1, sizeof *r->res);
  if (!r->states || !r->events || !r->comms || !r->consts || !r->metrics
      || !r->res)
    return E (LOGFMT_ENOMEM, UINT64_MAX, "no memory for definitions");
  size_t si = 0;
  bool oom = false;
  c = (logfmt__cur_t) { p, p + len, false };
  while (c.p < c.end)
    {
      uint32_t kind = cur_u32 (&c), rl = cur_u32 (&c);
      logfmt__cur_t b = { c.p, c.p + rl, false };
      uint64_t roff = off + LOGFMT__CHUNK_HDR + (uint64_t) (c.p - p);
      c.p += rl;
      char *s1 = NULL, *s2 = NULL, *s3 = NULL;
      switch (kind)
        {
        case 1:
          {
            logfmt_state_def_t *d = &r->states[r->nstates];
            d->start_id = (int32_t) cur_u32 (&b);
            d->end_id = (int32_t) cur_u32 (&b);
            if (cur_str (&b, &s1, &oom) && cur_str (&b, &s2, &oom))
              cur_str (&b, &s3, &oom);
            d->name = s1 ? s1 : strdup ("");
            d->color = s2 ? s2 : strdup ("");
            d->format = s3;
            r->nstates++;
            if (!d->name || !d->color)
              oom = true;
            else
              logfmt_color_lookup (d->color, &d->rgb);
            break;
          }
        case 2:
          {
            logfmt_event_def_t *d = &r->events[r->nevents];
            d->id = (int32_t) cur_u32 (&b);
            if (cur_str (&b, &s1, &oom) && cur_str (&b, &s2, &oom))
              cur_str (&b, &s3, &oom);
            d->name = s1 ? s1 : strdup ("");
            d->color = s2 ? s2 : strdup ("");
            d->format = s3;
            r->nevents++;
            if (!d->name || !d->color)
              oom = true;
            else
              logfmt_color_lookup (d->color, &d->rgb);
            break;
          }
        case 3:
          {
            if (si >= nstreams)
              continue;
            logfmt_stream_def_t *d = &r->streams[si++].def;
            d->rank = (int32_t) cur_u32 (&b);
            d->thread = (int32_t) cur_u32 (&b);
            cur_str (&b, &s1, &oom);
            d->host = s1;
            if (!b.bad && !logfmt__stream_def_ok (r, d))
              return E (LOGFMT_ECORRUPT, roff, "stream %zu: rank %d, thread "
                        "%d out of range (world size %u)", si - 1, d->rank,
                        d->thread, r->info.world_size);
            break;
          }
        case 4:
          {
            logfmt_comm_def_t *d = &r->comms[r->ncomms++];
            d->id = cur_u32 (&b);
            d->kind = (int32_t) cur_u32 (&b);
            d->size = cur_u32 (&b);
            uint32_t has = cur_u32 (&b);
            cur_str (&b, &s1, &oom);
            d->name = s1;
            if (b.bad)
              break;
            if (has > 1 || (has && (uint64_t) d->size * 4
                                     != (uint64_t) (b.end - b.p)))
              {
                b.bad = true;
                break;
              }
            if (has)
              {
                int32_t *rk = malloc ((size_t) d->size * 4 + 1);
                if (!rk)
                  {
                    oom = true;
                    break;
                  }
                for (uint32_t k = 0; k < d->size; k++)
                  rk[k] = (int32_t) ld32 (b.p + 4 * k);
                b.p += 4 * (size_t) d->size;
                d->ranks = rk;
              }
            break;
          }
        case 5:
          {
            logfmt_const_def_t *d = &r->consts[r->nconsts++];
            d->value = (int64_t) cur_u64 (&b);
            cur_str (&b, &s1, &oom);
            d->name = s1 ? s1 : strdup ("");
            if (!d->name)
              oom = true;
            break;
          }
        case LOGFMT__DEFS_CALLPATHS:
          {
            int32_t rank = (int32_t) cur_u32 (&b);
            uint32_t type = cur_u32 (&b);
            uint64_t at = cur_u64 (&b);
            if (type != LOGFMT__CHUNK_MODULES
                && type != LOGFMT__CHUNK_CALLPATHS)
              b.bad = true;
            if (!b.bad && logfmt__rcallpaths_add (r, rank, type, at))
              oom = true;
            break;
          }
        case LOGFMT__DEFS_TRACKDIR:
          r->trackdir_off = cur_u64 (&b);
          r->trackdir_n = cur_u64 (&b);
          break;
        case LOGFMT__DEFS_METRIC:
          {
            logfmt_metric_def_t *d = &r->metrics[r->nmetrics];
            d->id = cur_u32 (&b);
            d->flags = cur_u32 (&b);
            if (cur_str (&b, &s1, &oom))
              cur_str (&b, &s2, &oom);
            d->name = s1 ? s1 : strdup ("");
            d->unit = s2 ? s2 : strdup ("");
            r->nmetrics++;
            if (!d->name || !d->unit)
              oom = true;
            break;
          }
        case LOGFMT_RES_CPU: case LOGFMT_RES_MEMSITE:
        case LOGFMT_RES_MEMTOTAL: case LOGFMT_RES_NIC:
          {
            logfmt_resource_def_t *d = &r->res[r->nres];
            memset (d, 0, sizeof *d);
            d->kind = kind;
            d->stream = cur_u32 (&b);
            uint32_t nv = cur_u32 (&b);
            for (uint32_t k = 0; k < nv && !b.bad; k++)
              {
                int64_t v = (int64_t) cur_u64 (&b);
                if (k < LOGFMT_RES_MAX_V)
                  d->v[k] = v;
              }
            d->nv = nv < LOGFMT_RES_MAX_V ? nv : LOGFMT_RES_MAX_V;
            uint32_t ns = b.bad ? 0 : cur_u32 (&b);
            for (uint32_t k = 0; k < ns && !b.bad; k++)
              {
                cur_str (&b, &s1, &oom);
                if (k < LOGFMT_RES_MAX_S)
                  d->s[k] = s1;
                else
                  free (s1);
                s1 = NULL;
              }
            d->ns = ns < LOGFMT_RES_MAX_S ? ns : LOGFMT_RES_MAX_S;
            if (d->stream != LOGFMT_NO_STREAM && d->stream >= nstreams)
              b.bad = true;
            r->nres++;
            break;
          }
        default:
          continue;  /* unknown definition kinds are skipped */
        }
      if (oom)
        return E (LOGFMT_ENOMEM, UINT64_MAX, "no memory for definitions");
      /* Records may grow: trailing bytes are allowed, short ones are not. */
      if (b.bad)
        return E (LOGFMT_ECORRUPT, roff, "malformed definition record of "
                  "kind %u", kind);
    }
  return 0;
}

static int
cmp_evdef (const void *a, const void *b, void *u)
{
  const logfmt_event_def_t *ev = u;
  int32_t x = ev[*(const int32_t *) a].id, y = ev[*(const int32_t *) b].id;
  return (x > y) - (x < y);
}

/* ---- Index ----------------------------------------------------------- */

#define IDX_HDR 32
#define IDX_STREAM 48
#define IDX_ENTRY 32

static int
load_index (logfmt_reader_t *r, uint64_t off, uint64_t *defs_off,
            logfmt_error_t *err)
{
  const uint8_t *p;
  uint64_t len;
  int rc = logfmt__chunk_at (r, off, LOGFMT__CHUNK_INDEX, true, &p, &len,
                             err);
  if (rc)
    return rc;
  if (len < IDX_HDR)
    return E (LOGFMT_ECORRUPT, off, "index of %llu bytes is too short",
              (unsigned long long) len);
  uint32_t ns = ld32 (p), nm = ld32 (p + 4);
  *defs_off = ld64 (p + 8);
  r->info.nmessages = ld64 (p + 16);
  if ((uint64_t) ns * IDX_STREAM > len - IDX_HDR)
    return E (LOGFMT_ECORRUPT, off, "index lists %u streams but holds %llu "
              "bytes", ns, (unsigned long long) len);
  const uint8_t *sp = p + IDX_HDR;
  uint64_t nblocks = 0;
  for (uint32_t i = 0; i < ns; i++)
    nblocks += ld32 (sp + (size_t) i * IDX_STREAM + 40);
  uint64_t need = IDX_HDR + (uint64_t) ns * IDX_STREAM
                  + (nblocks + nm) * IDX_ENTRY;
  if (need != len)
    return E (LOGFMT_ECORRUPT, off, "index size %llu does not match its "
              "%u streams, %llu blocks and %u message runs",
              (unsigned long long) len, ns, (unsigned long long) nblocks,
              nm);
  r->streams = calloc (ns + 1, sizeof *r->streams);
  logfmt__blockref_t *all = malloc ((nblocks + 1) * sizeof *all);
  r->mrefs = malloc ((nm + 1) * sizeof *r->mrefs);
  if (!r->streams || !all || !r->mrefs)
    {
      free (all);
      return E (LOGFMT_ENOMEM, UINT64_MAX, "no memory for the index");
    }
  r->nstreams = ns;
  const uint8_t *ep = sp + (size_t) ns * IDX_STREAM;
  uint64_t tmin = UINT64_MAX, tmax = 0, total = 0, lost = 0;
  size_t bi = 0;
  for (uint32_t i = 0; i < ns; i++)
    {
      logfmt__rstream_t *s = &r->streams[i];
      const uint8_t *q = sp + (size_t) i * IDX_STREAM;
      s->nevents = ld64 (q);
      s->t_first = ld64 (q + 8);
      s->t_last = ld64 (q + 16);
      s->lost = ld64 (q + 24);
      s->summary_off = ld64 (q + 32);
      s->nblocks = ld32 (q + 40);
      s->blocks = all + bi;
      uint64_t cnt = 0, prev_last = 0;
      for (size_t k = 0; k < s->nblocks; k++, bi++, ep += IDX_ENTRY)
        {
          logfmt__blockref_t *b = &all[bi];
          b->offset = ld64 (ep);
          b->t_first = ld64 (ep + 8);
          b->t_last = ld64 (ep + 16);
          b->count = ld32 (ep + 24);
          if (b->t_last < b->t_first || b->t_first < prev_last
              || b->count == 0 || b->count > LOGFMT__MAX_BLOCK_EVENTS
              || b->offset >= r->size)
            {
              r->blocks_all = all;
              return E (LOGFMT_ECORRUPT, off, "index entry %zu of stream %u "
                        "is inconsistent", k, i);
            }
          prev_last = b->t_last;
          cnt += b->count;
        }
      if (cnt != s->nevents
          || (s->nblocks && (s->t_first != s->blocks[0].t_first
                             || s->t_last
                                != s->blocks[s->nblocks - 1].t_last)))
        {
          r->blocks_all = all;
          return E (LOGFMT_ECORRUPT, off, "stream %u totals disagree with "
                    "its blocks", i);
        }
      if (s->nblocks)
        {
          if (s->t_first < tmin)
            tmin = s->t_first;
          if (s->t_last > tmax)
            tmax = s->t_last;
        }
      total += cnt;
      lost += s->lost;
    }
  r->blocks_all = all;
  r->nmrefs = nm;
  uint64_t msum = 0;
  for (uint32_t i = 0; i < nm; i++, ep += IDX_ENTRY)
    {
      logfmt__msgref_t *m = &r->mrefs[i];
      m->offset = ld64 (ep);
      m->t_min = ld64 (ep + 8);
      m->t_max = ld64 (ep + 16);
      m->count = ld32 (ep + 24);
      if (m->t_max < m->t_min || m->offset >= r->size)
        return E (LOGFMT_ECORRUPT, off, "message run %u is inconsistent", i);
      msum += m->count;
      if (m->count && m->t_min < tmin)
        tmin = m->t_min;
      if (m->count && m->t_max > tmax)
        tmax = m->t_max;
    }
  if (msum != r->info.nmessages)
    return E (LOGFMT_ECORRUPT, off, "message runs hold %llu entries, index "
              "says %llu", (unsigned long long) msum,
              (unsigned long long) r->info.nmessages);
  r->info.nstreams = ns;
  r->info.nevents = total;
  r->info.lost_events = lost;
  r->info.t_first = tmin == UINT64_MAX ? 0 : tmin;
  r->info.t_last = tmax;
  return 0;
}

/* ---- Open / close ---------------------------------------------------- */

/* Frees what loading definitions, the index and the message table
 * allocated; not the path, the mapping or r itself. */
void
logfmt__reader_free_contents (logfmt_reader_t *r)
{
  for (size_t i = 0; i < r->nstates; i++)
    {
      free ((char *) r->states[i].name);
      free ((char *) r->states[i].color);
      free ((char *) r->states[i].format);
    }
  for (size_t i = 0; i < r->nevents; i++)
    {
      free ((char *) r->events[i].name);
      free ((char *) r->events[i].color);
      free ((char *) r->events[i].format);
    }
  for (size_t i = 0; i < r->ncomms; i++)
    {
      free ((char *) r->comms[i].name);
      free ((int32_t *) r->comms[i].ranks);
    }
  for (size_t i = 0; i < r->nconsts; i++)
    free ((char *) r->consts[i].name);
  free (r->cprefs);
  r->cprefs = NULL;
  r->ncprefs = 0;
  for (size_t i = 0; i < r->nmetrics; i++)
    {
      free ((char *) r->metrics[i].name);
      free ((char *) r->metrics[i].unit);
    }
  free (r->metrics);
  free (r->tracks);
  for (size_t i = 0; i < r->nres; i++)
    for (uint32_t k = 0; k < LOGFMT_RES_MAX_S; k++)
      free ((char *) r->res[i].s[k]);
  if (r->streams)
    {
      for (size_t i = 0; i < r->nstreams; i++)
        {
          free ((char *) r->streams[i].def.host);
          logfmt__ivcache_free (r->streams[i].ivcache);
        }
      free (r->blocks_all);
    }
  free (r->states);
  free (r->events);
  free (r->comms);
  free (r->consts);
  free (r->res);
  free (r->streams);
  free (r->mrefs);
  free (r->event_sorted);
  logfmt__classify_free (&r->cls);
  free (r->format_name);
  free (r->creator);
}

void
logfmt_reader_close (logfmt_reader_t *r)
{
  if (!r)
    return;
  for (size_t i = 0; i < sizeof r->dctx_pool / sizeof r->dctx_pool[0]; i++)
    ZSTD_freeDCtx (r->dctx_pool[i]);
  logfmt__reader_free_contents (r);
  free (r->path);
  if (r->map)
    munmap (r->map, r->map_len);
  free (r);
}

size_t
logfmt__reader_decompress (const logfmt_reader_t *r, void *dst, size_t cap,
                           const void *src, size_t len)
{
  /* The pool is the reader's one mutable part besides its caches: the
   * slots are exchanged atomically, so threads sharing r never share a
   * context. */
  ZSTD_DCtx **pool = (ZSTD_DCtx **) r->dctx_pool, *d = NULL;
  size_t n = sizeof r->dctx_pool / sizeof r->dctx_pool[0];
  for (size_t i = 0; i < n && !d; i++)
    d = __atomic_exchange_n (&pool[i], NULL, __ATOMIC_ACQUIRE);
  if (!d && !(d = ZSTD_createDCtx ()))
    return ZSTD_decompress (dst, cap, src, len);
  size_t got = ZSTD_decompressDCtx (d, dst, cap, src, len);
  for (size_t i = 0; i < n && d; i++)
    {
      ZSTD_DCtx *none = NULL;
      if (__atomic_compare_exchange_n (&pool[i], &none, d, false,
                                       __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        d = NULL;
    }
  ZSTD_freeDCtx (d);
  return got;
}

void
logfmt_reader_drop_pages (logfmt_reader_t *r)
{
  /* The mapping is read-only: nothing private is lost, and the pages
   * stay in the page cache for the next read to map again. */
  if (r && r->map)
    (void) madvise (r->map, r->map_len, MADV_DONTNEED);
}

static int
parse_header (logfmt_reader_t *r, uint64_t *hlen, logfmt_error_t *err)
{
  const uint8_t *h = r->data;
  if (r->size < 8 || memcmp (h, LOGFMT__MAGIC, 8) != 0)
    {
      if (r->size >= 6 && memcmp (h + 1, "CLOG3", 5) == 0)
        return E (LOGFMT_EBADMAGIC, 0, "damaged magic (file transferred in "
                  "text mode?)");
      return E (LOGFMT_EBADMAGIC, 0, "not a .clog file (bad magic)");
    }
  if (r->size < LOGFMT__HEADER_FIXED)
    return E (LOGFMT_ETRUNCATED, 0, "file of %zu bytes is shorter than the "
              "header", r->size);
  r->info.major = ld16 (h + 8);
  r->info.minor = ld16 (h + 10);
  if (r->info.major != LOGFMT__MAJOR)
    return E (LOGFMT_EVERSION, 8, "format version %u.%u; this library "
              "reads major version %d only", r->info.major, r->info.minor,
              LOGFMT__MAJOR);
  uint32_t hl = ld32 (h + 12);
  uint32_t clen = ld32 (h + 44);
  if (hl < LOGFMT__HEADER_FIXED || hl > r->size
      || clen > hl - LOGFMT__HEADER_FIXED)
    return E (LOGFMT_ECORRUPT, 12, "bad header length %u", hl);
  if (ld32 (h + 16) != LOGFMT__BOM)
    return E (LOGFMT_ECORRUPT, 16, "bad byte-order mark 0x%08x",
              ld32 (h + 16));
  if (ld64 (h + 24) != 1000000000u)
    return E (LOGFMT_ECORRUPT, 24, "unsupported clock rate %llu",
              (unsigned long long) ld64 (h + 24));
  uint8_t fixed[LOGFMT__HEADER_FIXED];
  memcpy (fixed, h, sizeof fixed);
  st32 (fixed + 48, 0);
  uint32_t crc = logfmt__crc32c (0, fixed, sizeof fixed);
  crc = logfmt__crc32c (crc, h + sizeof fixed, hl - sizeof fixed);
  if (crc != ld32 (h + 48))
    return E (LOGFMT_ECHECKSUM, 0, "header checksum mismatch");
  r->info.origin_unix_ns = (int64_t) ld64 (h + 32);
  r->info.world_size = ld32 (h + 40);
  if (r->info.world_size > LOGFMT__MAX_WORLD)
    return E (LOGFMT_ECORRUPT, 40, "world size %u is beyond the limit of "
              "%u processes", r->info.world_size, LOGFMT__MAX_WORLD);
  r->creator = malloc ((size_t) clen + 1);
  if (!r->creator)
    return E (LOGFMT_ENOMEM, UINT64_MAX, "no memory");
  memcpy (r->creator, h + LOGFMT__HEADER_FIXED, clen);
  r->creator[clen] = 0;
  *hlen = hl;
  return 0;
}

int logfmt__reader_scan (logfmt_reader_t *r, uint64_t start,
                         logfmt_error_t *err);

static int
finish_open (logfmt_reader_t *r, logfmt_error_t *err)
{
  if (logfmt__classify_init (&r->cls, r->states, r->nstates))
    return E (LOGFMT_ENOMEM, UINT64_MAX, "no memory");
  r->event_sorted = malloc ((r->nevents + 1) * sizeof (int32_t));
  if (!r->event_sorted)
    return E (LOGFMT_ENOMEM, UINT64_MAX, "no memory");
  for (size_t i = 0; i < r->nevents; i++)
    r->event_sorted[i] = (int32_t) i;
  qsort_r (r->event_sorted, r->nevents, sizeof (int32_t), cmp_evdef,
           r->events);
  r->info.creator = r->creator;
  r->info.format_name = r->format_name ? r->format_name : "clog3";
  r->info.file_size = r->size;
  return 0;
}

int
logfmt__reader_open_mem (const uint8_t *data, size_t len, const char *name,
                         unsigned flags, logfmt_reader_t **out,
                         logfmt_error_t *err)
{
  *out = NULL;
  logfmt_reader_t *r = calloc (1, sizeof *r);
  if (!r)
    return logfmt__err (err, LOGFMT_ENOMEM, name, UINT64_MAX, "no memory");
  r->path = strdup (name ? name : "(memory)");
  if (!r->path)
    {
      free (r);
      return logfmt__err (err, LOGFMT_ENOMEM, name, UINT64_MAX, "no memory");
    }
  r->data = data;
  r->size = len;
  uint64_t hlen = 0;
  int rc = parse_header (r, &hlen, err);
  if (rc)
    goto fail;
  /* The trailer, at the very end, locates the index. */
  const uint8_t *t = data + len - LOGFMT__TRAILER_SIZE;
  bool trailer_ok = false;
  if (len >= hlen + LOGFMT__TRAILER_SIZE
      && memcmp (t + 32, LOGFMT__TRAILER_MAGIC, 8) == 0)
    {
      uint32_t crc = logfmt__crc32c (0, t, 28);
      crc = logfmt__crc32c (crc, t + 32, 8);
      trailer_ok = crc == ld32 (t + 28) && ld64 (t + 16) == len
                   && ld32 (t + 24) == 0;
    }
  if (!trailer_ok)
    {
      if (!(flags & LOGFMT_OPEN_TOLERANT))
        {
          rc = logfmt__err (err, LOGFMT_EPARTIAL, r->path,
                            len >= LOGFMT__TRAILER_SIZE
                              ? len - LOGFMT__TRAILER_SIZE : 0,
                            "no valid trailer: the writer did not finish "
                            "(crashed run?); open tolerantly or repair it");
          goto fail;
        }
      rc = logfmt__reader_scan (r, hlen, err);
      if (rc)
        goto fail;
      r->info.partial = 1;
    }
  else
    {
      uint64_t idx = ld64 (t), idx_len = ld64 (t + 8);
      if (idx < hlen || idx > len - LOGFMT__TRAILER_SIZE
          || idx_len != len - LOGFMT__TRAILER_SIZE - idx)
        {
          rc = logfmt__err (err, LOGFMT_ECORRUPT, r->path,
                            len - LOGFMT__TRAILER_SIZE,
                            "trailer points the index outside the file");
          goto fail;
        }
      uint64_t defs = 0;
      rc = load_index (r, idx, &defs, err);
      if (rc)
        goto fail;
      rc = logfmt__load_defs (r, defs, false, err);
      if (rc)
        goto fail;
      if (r->trackdir_n)
        {
          rc = logfmt__load_trackdir (r, r->trackdir_off, r->trackdir_n,
                                      err);
          if (rc)
            goto fail;
        }
    }
  rc = finish_open (r, err);
  if (rc)
    goto fail;
  /* A streaming writer (an import, a conversion) may not know the number
   * of ranks when its header goes out; the streams tell. */
  if (r->info.world_size == 0)
    for (size_t i = 0; i < r->nstreams; i++)
      {
        int32_t rank = r->streams[i].def.rank;
        if (rank >= 0 && (uint32_t) rank + 1 > r->info.world_size)
          r->info.world_size = (uint32_t) rank + 1;
      }
  *out = r;
  return 0;
fail:
  logfmt_reader_close (r);
  return rc;
}

/* Imports a CLOG2 / CLOG v1 image into an unlinked temporary .clog and
 * opens that. */
static int
open_imported (const uint8_t *data, size_t len, const char *path,
               logfmt__file_format_t fmt, unsigned flags,
               logfmt_progress_cb cb, void *user, logfmt_reader_t **out,
               logfmt_error_t *err)
{
  const char *dir = getenv ("TMPDIR");
  if (!dir || !*dir)
    dir = "/tmp";
  char tmp[4096];
  snprintf (tmp, sizeof tmp, "%s/logfmt-import-XXXXXX", dir);
  int fd = mkstemp (tmp);
  if (fd < 0)
    return logfmt__err (err, LOGFMT_EIO, path, UINT64_MAX,
                        "cannot create a temporary file in %s: %s", dir,
                        strerror (errno));
  int rc = logfmt__import_mem (data, len, path, fmt, tmp, 1, NULL, cb, user,
                               err);
  if (rc)
    {
      close (fd);
      return rc;
    }
  struct stat st;
  if (fstat (fd, &st) != 0 || st.st_size <= 0)
    {
      close (fd);
      return logfmt__err (err, LOGFMT_EIO, path, UINT64_MAX,
                          "temporary conversion file is unreadable");
    }
  void *map = mmap (NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close (fd);
  if (map == MAP_FAILED)
    return logfmt__err (err, LOGFMT_EIO, path, UINT64_MAX, "mmap: %s",
                        strerror (errno));
  rc = logfmt__reader_open_mem (map, (size_t) st.st_size, path, flags, out,
                                err);
  if (rc)
    {
      munmap (map, (size_t) st.st_size);
      return rc;
    }
  (*out)->map = map;
  (*out)->map_len = (size_t) st.st_size;
  (*out)->format_name = strdup (fmt == LOGFMT__FMT_CLOG2 ? "CLOG-02.44"
                                                         : "CLOG v1");
  if ((*out)->format_name)
    (*out)->info.format_name = (*out)->format_name;
  return 0;
}

int
logfmt_reader_open_progress (const char *path, unsigned flags,
                             logfmt_progress_cb cb, void *user,
                             logfmt_reader_t **out, logfmt_error_t *err)
{
  if (out)
    *out = NULL;
  if (!path || !out)
    return logfmt__err (err, LOGFMT_EINVAL, path, UINT64_MAX,
                        "logfmt_reader_open: NULL argument");
  /* Non-blocking: opening a FIFO for reading would wait for a writer;
   * it is refused below as not a regular file. */
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return logfmt__err (err, LOGFMT_EIO, path, UINT64_MAX, "cannot open: %s",
                        strerror (errno));
  struct stat st;
  if (fstat (fd, &st) != 0)
    {
      int e = errno;
      close (fd);
      return logfmt__err (err, LOGFMT_EIO, path, UINT64_MAX, "stat: %s",
                          strerror (e));
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      return logfmt__err (err, LOGFMT_EINVAL, path, UINT64_MAX,
                          "not a regular file");
    }
  if (st.st_size == 0)
    {
      close (fd);
      return logfmt__err (err, LOGFMT_ETRUNCATED, path, 0, "empty file");
    }
  size_t len = (size_t) st.st_size;
  void *map = mmap (NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
  close (fd);
  if (map == MAP_FAILED)
    return logfmt__err (err, LOGFMT_EIO, path, UINT64_MAX, "mmap: %s",
                        strerror (errno));
  logfmt__file_format_t fmt = logfmt__sniff (map, len, len);
  int rc;
  if (fmt == LOGFMT__FMT_CLOG2 || fmt == LOGFMT__FMT_CLOG1)
    {
      rc = open_imported (map, len, path, fmt, flags, cb, user, out, err);
      munmap (map, len);
      return rc;
    }
  rc = logfmt__reader_open_mem (map, len, path, flags, out, err);
  if (rc)
    {
      munmap (map, len);
      return rc;
    }
  (*out)->map = map;
  (*out)->map_len = len;
  if (cb)
    cb (user, 1.0);
  return 0;
}

int
logfmt_reader_open (const char *path, unsigned flags, logfmt_reader_t **out,
                    logfmt_error_t *err)
{
  return logfmt_reader_open_progress (path, flags, NULL, NULL, out, err);
}

/* ---- Accessors ------------------------------------------------------- */

uint64_t
logfmt_reader_blocks_decoded (const logfmt_reader_t *r)
{
  return r ? __atomic_load_n (&r->blocks_decoded, __ATOMIC_RELAXED) : 0;
}

const logfmt_info_t *
logfmt_reader_info (const logfmt_reader_t *r)
{
  return r ? &r->info : NULL;
}

size_t
logfmt_reader_n_states (const logfmt_reader_t *r)
{
  return r ? r->nstates : 0;
}

const logfmt_state_def_t *
logfmt_reader_state (const logfmt_reader_t *r, size_t i)
{
  return r && i < r->nstates ? &r->states[i] : NULL;
}

size_t
logfmt_reader_n_event_defs (const logfmt_reader_t *r)
{
  return r ? r->nevents : 0;
}

const logfmt_event_def_t *
logfmt_reader_event_def (const logfmt_reader_t *r, size_t i)
{
  return r && i < r->nevents ? &r->events[i] : NULL;
}

int
logfmt_reader_find_event_def (const logfmt_reader_t *r, int32_t id)
{
  if (!r)
    return -1;
  size_t a = 0, b = r->nevents;
  while (a < b)
    {
      size_t m = (a + b) / 2;
      if (r->events[r->event_sorted[m]].id < id)
        a = m + 1;
      else
        b = m;
    }
  /* Among equal ids the last definition wins, as in the writer. */
  int found = -1;
  while (a < r->nevents && r->events[r->event_sorted[a]].id == id)
    found = r->event_sorted[a++];
  return found;
}

const logfmt_stream_def_t *
logfmt_reader_stream (const logfmt_reader_t *r, uint32_t i)
{
  return r && i < r->nstreams ? &r->streams[i].def : NULL;
}

size_t
logfmt_reader_n_comms (const logfmt_reader_t *r)
{
  return r ? r->ncomms : 0;
}

const logfmt_comm_def_t *
logfmt_reader_comm (const logfmt_reader_t *r, size_t i)
{
  return r && i < r->ncomms ? &r->comms[i] : NULL;
}

size_t
logfmt_reader_n_resources (const logfmt_reader_t *r)
{
  return r ? r->nres : 0;
}

const logfmt_resource_def_t *
logfmt_reader_resource (const logfmt_reader_t *r, size_t i)
{
  return r && i < r->nres ? &r->res[i] : NULL;
}

size_t
logfmt_reader_n_consts (const logfmt_reader_t *r)
{
  return r ? r->nconsts : 0;
}

const logfmt_const_def_t *
logfmt_reader_const (const logfmt_reader_t *r, size_t i)
{
  return r && i < r->nconsts ? &r->consts[i] : NULL;
}

uint64_t
logfmt_reader_stream_events (const logfmt_reader_t *r, uint32_t stream)
{
  return r && stream < r->nstreams ? r->streams[stream].nevents : 0;
}

/* ---- Event iteration ------------------------------------------------- */

/* Records are decoded a chunk at a time into a small buffer that stays in
 * L1, so logfmt_iter_next is a copy and the decoder runs in a tight
 * loop. */
#define ITER_CHUNK 256
/* A batch call with room for this many decodes into the caller's array
 * (fewer: through ev[], not to run the decoder for a handful). */
#define ITER_DIRECT 64
#define EV_HEAD offsetof (logfmt_event_t, cargo)

struct logfmt_iter
{
  const logfmt_reader_t *r;
  const logfmt__rstream_t *s;
  uint64_t t0, t1;
  size_t next_block;
  uint32_t pos, n;          /* next and end of the records in ev[] */
  logfmt__cols_t cols;
  ZSTD_DCtx *dctx;
  uint8_t *buf;
  size_t cap;
  bool done;
  logfmt_error_t err;
  logfmt_event_t ev[ITER_CHUNK];
};

/* Points it at [t0, t1] of a stream, from the start; keeps its buffer
 * and decompression context. */
static void
iter_target (logfmt_iter_t *it, uint32_t stream, uint64_t t0, uint64_t t1)
{
  it->s = &it->r->streams[stream];
  it->t0 = t0;
  it->t1 = t1;
  it->pos = it->n = 0;
  memset (&it->cols, 0, sizeof it->cols);
  memset (&it->err, 0, sizeof it->err);
  /* First block whose last time reaches t0. */
  size_t a = 0, b = it->s->nblocks;
  while (a < b)
    {
      size_t m = (a + b) / 2;
      if (it->s->blocks[m].t_last < t0)
        a = m + 1;
      else
        b = m;
    }
  it->next_block = a;
  it->done = t1 < t0;
}

int
logfmt_iter_new (const logfmt_reader_t *r, uint32_t stream, uint64_t t0,
                 uint64_t t1, logfmt_iter_t **out)
{
  if (!out)
    return LOGFMT_EINVAL;
  *out = NULL;
  if (!r)
    return LOGFMT_EINVAL;
  if (stream >= r->nstreams)
    return LOGFMT_ERANGE;
  logfmt_iter_t *it = malloc (sizeof *it);
  if (!it)
    return LOGFMT_ENOMEM;
  /* Everything but the event buffer starts zeroed. */
  memset (it, 0, offsetof (logfmt_iter_t, ev));
  it->dctx = ZSTD_createDCtx ();
  if (!it->dctx)
    {
      free (it);
      return LOGFMT_ENOMEM;
    }
  it->r = r;
  iter_target (it, stream, t0, t1);
  *out = it;
  return 0;
}

int
logfmt_iter_reset (logfmt_iter_t *it, uint32_t stream, uint64_t t0,
                   uint64_t t1)
{
  if (!it)
    return LOGFMT_EINVAL;
  if (stream >= it->r->nstreams)
    return LOGFMT_ERANGE;
  iter_target (it, stream, t0, t1);
  return 0;
}

int
logfmt__iter_seek_block (logfmt_iter_t *it, uint32_t stream, size_t block)
{
  if (!it || stream >= it->r->nstreams
      || block > it->r->streams[stream].nblocks)
    return LOGFMT_EINVAL;
  iter_target (it, stream, 0, UINT64_MAX);
  it->next_block = block;
  return 0;
}

void
logfmt_iter_free (logfmt_iter_t *it)
{
  if (!it)
    return;
  ZSTD_freeDCtx (it->dctx);
  free (it->buf);
  free (it);
}

const logfmt_error_t *
logfmt_iter_error (const logfmt_iter_t *it)
{
  return it ? &it->err : NULL;
}

static int
iter_fail (logfmt_iter_t *it, int code)
{
  it->done = true;
  it->pos = it->n = 0;
  return code;
}

/* Loads the next block of the stream into it->cols. */
static int
load_block (logfmt_iter_t *it)
{
  const logfmt_reader_t *r = it->r;
  logfmt_error_t *err = &it->err;
  const logfmt__blockref_t *b = &it->s->blocks[it->next_block++];
  const uint8_t *p;
  uint64_t len;
  int rc = logfmt__chunk_at (r, b->offset, LOGFMT__CHUNK_BLOCK, true, &p,
                             &len, err);
  if (rc)
    return rc;
  logfmt__block_hdr_t h;
  rc = logfmt__block_parse (p, len, &h, r->path, b->offset, err);
  if (rc)
    return rc;
  uint32_t sidx = (uint32_t) (it->s - r->streams);
  if (h.stream != sidx || h.t_first != b->t_first || h.t_last != b->t_last
      || h.count != b->count)
    return E (LOGFMT_ECORRUPT, b->offset, "block disagrees with its index "
              "entry (stream %u/%u, count %u/%u)", h.stream, sidx, h.count,
              b->count);
  const uint8_t *raw;
  rc = logfmt__block_inflate (it->dctx, &h, &it->buf, &it->cap, &raw,
                              r->path, b->offset, err);
  if (rc)
    return rc;
  /* The only field that changes after open: a statistic, shared by the
   * threads that read. */
  __atomic_fetch_add ((uint64_t *) &r->blocks_decoded, 1, __ATOMIC_RELAXED);
  if (logfmt__cols_init (&it->cols, raw, h.raw_size, h.count, h.t_first,
                         h.codec))
    return E (LOGFMT_ECORRUPT, b->offset, "block column sizes do not add "
              "up, or its time bases are malformed");
  return 0;
}

/* Decodes the next records inside [t0, t1] into out (up to max of them,
 * those before t0 included): they are out[*lo .. *hi).  Returns 1, 0 at
 * the end, or a negative code. */
static int
iter_decode (logfmt_iter_t *it, logfmt_event_t *out, uint32_t max,
             uint32_t *lo_out, uint32_t *hi_out)
{
  const logfmt_reader_t *r = it->r;
  logfmt_error_t *err = &it->err;
  for (;;)
    {
      if (it->done)
        return it->err.code ? it->err.code : 0;
      if (it->cols.left == 0)
        {
          if (it->next_block >= it->s->nblocks
              || it->s->blocks[it->next_block].t_first > it->t1)
            {
              it->done = true;
              return 0;
            }
          int rc = load_block (it);
          if (rc)
            return iter_fail (it, rc);
        }
      const logfmt__blockref_t *b = &it->s->blocks[it->next_block - 1];
      int n = logfmt__cols_decode (&it->cols, out, max, &r->cls);
      if (LOGFMT_UNLIKELY (n <= 0))
        {
          E (LOGFMT_ECORRUPT, b->offset, "block columns are corrupt");
          return iter_fail (it, LOGFMT_ECORRUPT);
        }
      if (it->cols.left == 0 && out[n - 1].time != b->t_last)
        {
          E (LOGFMT_ECORRUPT, b->offset, "block columns disagree with its "
             "header");
          return iter_fail (it, LOGFMT_ECORRUPT);
        }
      /* Times never decrease, so the window is a contiguous range. */
      uint32_t lo = 0, hi = (uint32_t) n;
      while (lo < hi && out[lo].time < it->t0)
        lo++;
      if (out[n - 1].time > it->t1)
        {
          while (hi > lo && out[hi - 1].time > it->t1)
            hi--;
          it->done = true;
        }
      *lo_out = lo;
      *hi_out = hi;
      if (lo < hi)
        return 1;
    }
}

/* Refills ev[] with the next chunk of records inside [t0, t1].  Returns 1,
 * 0 at the end, or a negative code. */
static int
iter_fill (logfmt_iter_t *it)
{
  int rc = iter_decode (it, it->ev, ITER_CHUNK, &it->pos, &it->n);
  if (rc <= 0)
    it->pos = it->n = 0;
  return rc;
}

static inline void
ev_copy (logfmt_event_t *dst, const logfmt_event_t *src)
{
  memcpy (dst, src, EV_HEAD);
  if (src->flags & LOGFMT_EVF_CARGO)
    memcpy (dst->cargo, src->cargo, LOGFMT_CARGO_SIZE);
}

int
logfmt_iter_next (logfmt_iter_t *it, logfmt_event_t *ev)
{
  if (LOGFMT_UNLIKELY (!it || !ev))
    return LOGFMT_EINVAL;
  if (LOGFMT_UNLIKELY (it->pos == it->n))
    {
      int rc = iter_fill (it);
      if (rc <= 0)
        return rc;
    }
  ev_copy (ev, &it->ev[it->pos++]);
  return 1;
}

long
logfmt_iter_next_batch (logfmt_iter_t *it, logfmt_event_t *ev, size_t max)
{
  if (!it || (!ev && max))
    return LOGFMT_EINVAL;
  size_t got = 0;
  while (got < max)
    {
      if (it->pos == it->n)
        {
          /* With room, straight into the caller's array: no copy. */
          bool direct = max - got >= ITER_DIRECT;
          uint32_t room = max - got < UINT32_MAX ? (uint32_t) (max - got)
                                                 : UINT32_MAX;
          uint32_t lo = 0, hi = 0;
          int rc = direct ? iter_decode (it, ev + got, room, &lo, &hi)
                          : iter_fill (it);
          if (rc < 0 && got == 0)
            return rc;
          if (rc <= 0)
            break;  /* an error is reported by the next call */
          if (direct)
            {
              if (lo)
                memmove (ev + got, ev + got + lo, (hi - lo) * sizeof *ev);
              got += hi - lo;
              continue;
            }
        }
      size_t k = it->n - it->pos;
      if (k > max - got)
        k = max - got;
      for (size_t i = 0; i < k; i++)
        ev_copy (&ev[got + i], &it->ev[it->pos + i]);
      it->pos += (uint32_t) k;
      got += k;
    }
  return (long) got;
}

long
logfmt__iter_borrow (logfmt_iter_t *it, const logfmt_event_t **ev)
{
  if (it->pos == it->n)
    {
      int rc = iter_fill (it);
      if (rc <= 0)
        return rc;
    }
  *ev = &it->ev[it->pos];
  long k = (long) (it->n - it->pos);
  it->pos = it->n;
  return k;
}

/* ---- Messages -------------------------------------------------------- */

struct logfmt_msg_iter
{
  const logfmt_reader_t *r;
  uint64_t t0, t1;
  size_t next_run;
  logfmt_message_t *buf;
  size_t n, pos;
  bool done;
  logfmt_error_t err;
};

int
logfmt_msg_iter_new (const logfmt_reader_t *r, uint64_t t0, uint64_t t1,
                     logfmt_msg_iter_t **out)
{
  if (!out)
    return LOGFMT_EINVAL;
  *out = NULL;
  if (!r)
    return LOGFMT_EINVAL;
  logfmt_msg_iter_t *it = calloc (1, sizeof *it);
  if (!it)
    return LOGFMT_ENOMEM;
  it->r = r;
  it->t0 = t0;
  it->t1 = t1;
  it->done = t1 < t0;
  *out = it;
  return 0;
}

void
logfmt_msg_iter_free (logfmt_msg_iter_t *it)
{
  if (!it)
    return;
  free (it->buf);
  free (it);
}

const logfmt_error_t *
logfmt_msg_iter_error (const logfmt_msg_iter_t *it)
{
  return it ? &it->err : NULL;
}

int
logfmt_msg_iter_next (logfmt_msg_iter_t *it, logfmt_message_t *m)
{
  if (!it || !m)
    return LOGFMT_EINVAL;
  const logfmt_reader_t *r = it->r;
  logfmt_error_t *err = &it->err;
  for (;;)
    {
      if (it->done)
        return it->err.code ? it->err.code : 0;
      while (it->pos < it->n)
        {
          const logfmt_message_t *x = &it->buf[it->pos++];
          uint64_t a = x->send_stream != LOGFMT_NO_STREAM ? x->send_time
                                                          : x->recv_time;
          uint64_t b = x->recv_stream != LOGFMT_NO_STREAM ? x->recv_time
                                                          : x->send_time;
          if (a > b)
            {
              uint64_t t = a;
              a = b;
              b = t;
            }
          if (b >= it->t0 && a <= it->t1)
            {
              *m = *x;
              return 1;
            }
        }
      /* Next run intersecting the window. */
      while (it->next_run < r->nmrefs
             && (r->mrefs[it->next_run].t_max < it->t0
                 || r->mrefs[it->next_run].t_min > it->t1))
        it->next_run++;
      if (it->next_run >= r->nmrefs)
        {
          it->done = true;
          return 0;
        }
      const logfmt__msgref_t *ref = &r->mrefs[it->next_run++];
      const uint8_t *p;
      uint64_t len;
      int rc = logfmt__chunk_at (r, ref->offset, LOGFMT__CHUNK_MSGS, true,
                                 &p, &len, err);
      if (rc)
        {
          it->done = true;
          return rc;
        }
      free (it->buf);
      it->buf = NULL;
      it->n = it->pos = 0;
      rc = logfmt__msgs_decode (p, len, (uint32_t) r->nstreams, &it->buf,
                                &it->n);
      if (rc || it->n != ref->count)
        {
          it->done = true;
          return E (rc == LOGFMT_ENOMEM ? rc : LOGFMT_ECORRUPT, ref->offset,
                    "malformed message run");
        }
    }
}

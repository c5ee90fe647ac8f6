/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading spill and ring files back, after a crash or a failed finish
 * (`clogtool recover`).  Every byte may be damaged: a frame a dying
 * process did not finish, a file cut short, a ring overwritten while it
 * was read.  Nothing here trusts a length before checking it against the
 * file; the fuzz targets (tests/spill) drive these functions.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spillfmt.h"

int
mpe_spill_read_file_cb (void *file, uint64_t off, void *buf, size_t len)
{
  FILE *f = file;
  if (off > (uint64_t) INT64_MAX || fseeko (f, (off_t) off, SEEK_SET) != 0)
    return -1;
  return fread (buf, 1, len, f) == len ? 0 : -1;
}

int
mpe_spill_read_mem_cb (void *mem, uint64_t off, void *buf, size_t len)
{
  const mpe_spill_mem_t *m = mem;
  if (off > m->len || len > m->len - off)
    return -1;
  memcpy (buf, (const char *) m->p + off, len);
  return 0;
}

/* ------------------------------------------------------------------ */
/* Frames                                                              */
/* ------------------------------------------------------------------ */

void
mpe_spill_scan_area (mpe_spill_scan_t *s, mpe_spill_read_cb read, void *ctx,
                     uint64_t size)
{
  memset (s, 0, sizeof *s);
  s->read = read;
  s->ctx = ctx;
  s->size = size;
  s->version = MPE_SPILL_VERSION;
}

int
mpe_spill_scan_init (mpe_spill_scan_t *s, mpe_spill_read_cb read, void *ctx,
                     uint64_t size)
{
  mpe_spill_scan_area (s, read, ctx, size);
  s->off = MPE_SPILL_HEADER_SIZE;
  unsigned char hdr[MPE_SPILL_HEADER_SIZE];
  if (size < sizeof hdr || read (ctx, 0, hdr, sizeof hdr) != 0
      || memcmp (hdr, MPE_SPILL_MAGIC, 8) != 0)
    return -1;
  memcpy (&s->version, hdr + 8, 4);
  if (s->version > MPE_SPILL_VERSION)
    return -2;
  return 0;
}

int
mpe_spill_scan_next (mpe_spill_scan_t *s, mpe_spill_frame_t *h, uint64_t *at)
{
  while (s->off <= s->size && s->size - s->off >= sizeof *h)
    {
      int good = s->read (s->ctx, s->off, h, sizeof *h) == 0
                 && h->magic == MPE_SPILL_FRAME_MAGIC
                 && h->len <= s->size - s->off - sizeof *h;
      if (good)
        {
          if ((size_t) h->len + 1 > s->cap)
            {
              /* 8-aligned (malloc): RAW payloads are read as records. */
              void *nb = realloc (s->payload, (size_t) h->len + 1);
              if (!nb)
                return -1;
              s->payload = nb;
              s->cap = (size_t) h->len + 1;
            }
          good = s->read (s->ctx, s->off + sizeof *h, s->payload, h->len) == 0
                 && mpe_spill_sum (s->payload, h->len) == h->sum;
        }
      if (!good)
        {
          /* Resynchronise on the next aligned frame magic. */
          s->bad++;
          for (s->off += 8; s->size - s->off >= sizeof *h; s->off += 8)
            {
              uint32_t m;
              if (s->read (s->ctx, s->off, &m, 4) != 0
                  || m == MPE_SPILL_FRAME_MAGIC)
                break;
            }
          continue;
        }
      ((char *) s->payload)[h->len] = '\0';
      *at = s->off + sizeof *h;
      s->off += sizeof *h + mpe_spill_pad8 (h->len);
      return 1;
    }
  return 0;
}

void
mpe_spill_scan_free (mpe_spill_scan_t *s)
{
  free (s->payload);
  s->payload = NULL;
  s->cap = 0;
}

/* ------------------------------------------------------------------ */
/* Metadata, sync points, definitions                                  */
/* ------------------------------------------------------------------ */

/* Copies a value, cut to fit (a host name longer than 255 bytes). */
static void
copy_value (char *dst, size_t cap, const char *v)
{
  size_t n = strlen (v);
  if (n >= cap)
    n = cap - 1;
  memcpy (dst, v, n);
  dst[n] = '\0';
}

void
mpe_spill_meta_parse (mpe_spill_meta_t *m, const char *text, size_t len)
{
  const char *p = text, *end = text + len;
  while (p < end)
    {
      const char *nl = memchr (p, '\n', (size_t) (end - p));
      const char *eol = nl ? nl : end;
      const char *sp = memchr (p, ' ', (size_t) (eol - p));
      if (sp)
        {
          char key[16], v[4096];
          size_t kl = (size_t) (sp - p), vl = (size_t) (eol - sp - 1);
          if (kl < sizeof key && vl < sizeof v)
            {
              memcpy (key, p, kl);
              key[kl] = '\0';
              memcpy (v, sp + 1, vl);
              v[vl] = '\0';
              if (!strcmp (key, "rank")) m->rank = atoi (v);
              else if (!strcmp (key, "size")) m->size = atoi (v);
              else if (!strcmp (key, "pid")) m->pid = atol (v);
              else if (!strcmp (key, "host"))
                copy_value (m->host, sizeof m->host, v);
              else if (!strcmp (key, "tick0"))
                m->tick0 = strtoull (v, NULL, 10);
              else if (!strcmp (key, "mult_fp"))
                m->mult_fp = strtoull (v, NULL, 10);
              else if (!strcmp (key, "mono0"))
                m->mono0 = strtoll (v, NULL, 10);
              else if (!strcmp (key, "real0"))
                m->real0 = strtoll (v, NULL, 10);
              else if (!strcmp (key, "ring"))
                copy_value (m->ring, sizeof m->ring,
                            strcmp (v, "none") ? v : "");
              else if (!strcmp (key, "memonly"))
                copy_value (m->memonly, sizeof m->memonly, v);
            }
        }
      p = eol + 1;
    }
}

int
mpe_spill_sync_parse (const void *payload, size_t len, int64_t *l,
                      int64_t *off)
{
  int64_t v[2];
  if (len != sizeof v)
    return -1;
  memcpy (v, payload, sizeof v);
  if (v[0] < -MPE_SPILL_SYNC_MAX || v[0] > MPE_SPILL_SYNC_MAX
      || v[1] < -MPE_SPILL_SYNC_MAX || v[1] > MPE_SPILL_SYNC_MAX)
    return -1;
  *l = v[0];
  *off = v[1];
  return 0;
}

int
mpe_spill_def_parse (int type, char *t, size_t len, mpe_spill_def_t *d)
{
  /* t[len] is a NUL (the scanner's payload): strings cannot run past. */
  memset (d, 0, sizeof *d);
  d->type = type;
  if (type == MPE_SPILL_COMM)
    {
      /* u32 id, i32 kind, u32 size, i32 ranks[size], name, NUL */
      logfmt_comm_def_t *c = &d->comm;
      if (len < 12)
        return -1;
      memcpy (&c->id, t, 4);
      memcpy (&c->kind, t + 4, 4);
      memcpy (&c->size, t + 8, 4);
      if ((uint64_t) c->size * 4 + 12 >= len)
        return -1;
      c->ranks = (const int32_t *) (void *) (t + 12);
      c->name = t + 12 + (size_t) c->size * 4;  /* t[len] is a NUL */
      if (!*c->name)
        c->name = NULL;
      return 0;
    }
  if (type == MPE_SPILL_METRIC)
    {
      /* u32 id, u32 flags, name, NUL, unit, NUL */
      logfmt_metric_def_t *m = &d->metric;
      if (len < 10 || t[len - 1] != '\0')
        return -1;
      memcpy (&m->id, t, 4);
      memcpy (&m->flags, t + 4, 4);
      m->name = t + 8;
      size_t nl = strlen (m->name);
      if (nl == 0 || 8 + nl + 1 >= len)
        return -1;
      m->unit = m->name + nl + 1;
      return 0;
    }
  if (type != MPE_SPILL_STATE && type != MPE_SPILL_EVENT)
    return -1;
  /* "start end\tname\tcolor\tformat" or "id\tname\tcolor\tformat" */
  char *f[4];
  char *p = t;
  for (int i = 0; i < 4; i++)
    {
      f[i] = p;
      char *tab = i < 3 ? strchr (p, '\t') : NULL;
      if (i < 3 && !tab)
        return -1;
      if (tab)
        {
          *tab = '\0';
          p = tab + 1;
        }
    }
  if (type == MPE_SPILL_STATE)
    {
      logfmt_state_def_t *s = &d->state;
      if (sscanf (f[0], "%d %d", &s->start_id, &s->end_id) != 2)
        return -1;
      s->name = f[1];
      s->color = f[2];
      s->format = *f[3] ? f[3] : NULL;
      logfmt_color_lookup (s->color, &s->rgb);
      return 0;
    }
  logfmt_event_def_t *e = &d->event;
  char *endp;
  long id = strtol (f[0], &endp, 10);
  if (endp == f[0] || id < INT32_MIN || id > INT32_MAX)
    return -1;
  e->id = (int32_t) id;
  e->name = f[1];
  e->color = f[2];
  e->format = *f[3] ? f[3] : NULL;
  logfmt_color_lookup (e->color, &e->rgb);
  return 0;
}

/* ------------------------------------------------------------------ */
/* Events of a data frame                                              */
/* ------------------------------------------------------------------ */

int
mpe_spill_events_init (mpe_spill_events_t *it, int type, const void *payload,
                       size_t len, uint64_t tick0, uint64_t mult_fp,
                       logfmt_error_t *err)
{
  memset (it, 0, sizeof *it);
  it->type = type;
  it->tick0 = tick0;
  it->mult_fp = mult_fp;
  switch (type)
    {
    case MPE_SPILL_PACKED:
      if (mpe_spill_unpack_init (&it->u, payload, len) != 0)
        {
          snprintf (err->message, sizeof err->message,
                    "packed frame of %zu bytes is too short", len);
          return -1;
        }
      return 0;
    case MPE_SPILL_RAW:
      it->p = payload;
      it->end = it->p + len / sizeof *it->p;
      return 0;
    case MPE_SPILL_BLOCK:
      {
        logfmt_block_info_t info;
        int rc = logfmt_block_decode (payload, len, &info, &it->block,
                                      &it->nblock, err);
        if (rc == LOGFMT_ENOMEM)
          return -2;
        return rc == 0 ? 0 : -1;
      }
    default:
      snprintf (err->message, sizeof err->message,
                "frame type %d holds no events", type);
      return -1;
    }
}

size_t
mpe_spill_events_next (mpe_spill_events_t *it, logfmt_event_t *out,
                       size_t max)
{
  switch (it->type)
    {
    case MPE_SPILL_PACKED:
      return mpe_spill_unpack (&it->u, it->tick0, it->mult_fp, out, max);
    case MPE_SPILL_RAW:
      {
        /* Skips unknown kinds: loop until events or the end. */
        size_t n = 0;
        while (n == 0 && it->p < it->end)
          n = mpe_spill_recs_decode (&it->p, it->end, it->tick0, it->mult_fp,
                                     out, max);
        return n;
      }
    case MPE_SPILL_BLOCK:
      {
        size_t n = it->nblock - it->iblock;
        if (n == 0)
          return 0;  /* it->block may be NULL */
        if (n > max)
          n = max;
        memcpy (out, it->block + it->iblock, n * sizeof *out);
        it->iblock += n;
        return n;
      }
    default:
      return 0;
    }
}

uint32_t
mpe_spill_events_unread (const mpe_spill_events_t *it)
{
  return it->type == MPE_SPILL_PACKED ? it->u.left : 0;
}

void
mpe_spill_events_free (mpe_spill_events_t *it)
{
  free (it->block);
  it->block = NULL;
}

/* ------------------------------------------------------------------ */
/* Ring files                                                          */
/* ------------------------------------------------------------------ */

/* The records of one part that belong to its current round: from its
 * first slot up to another tag, an unknown kind, a time going backwards
 * or a torn extension (an older round follows, already spilled). */
static size_t
part_valid (const mpe_spill_rec_t *r, size_t n, uint32_t tag)
{
  size_t i = 0;
  uint64_t prev = 0;
  while (i < n)
    {
      uint32_t kind = r[i].aux & 0xffu;
      if ((r[i].aux & ~0xffu) != tag || kind > MPE_REC_METRIC || r[i].t < prev)
        break;
      size_t next = i + 1 + mpe_spill_rec_ext (r[i].aux);
      if (next > n)
        break;
      prev = r[i].t;
      i = next;
    }
  return i;
}

/* The live frame areas (version 2), older first: the bytes of whole
 * frames, as the header says (frames are checked when they are read). */
static int
ring_areas (mpe_ring_t *r, mpe_spill_read_cb read, void *ctx, uint64_t size)
{
  const mpe_ring_header_t *h = &r->h;
  if (h->version < 2 || h->frames_off == 0)
    return 0;
  if (h->frames_off < MPE_RING_HEADER_SIZE || h->frames_off > size
      || h->frames_cap > (size - h->frames_off) / 2)
    return -1;
  int order[2] = { 0, 1 };
  if (h->frames_gen[1] < h->frames_gen[0])
    order[0] = 1, order[1] = 0;
  for (int k = 0, to = 0; k < 2; k++)
    {
      int a = order[k];
      uint64_t len = h->frames_len[a];
      if (!h->frames_live[a] || len == 0)
        continue;
      if (len > h->frames_cap)
        len = h->frames_cap;   /* a damaged header: what the area holds */
      r->area[to] = malloc ((size_t) len);
      if (!r->area[to])
        return -2;
      if (read (ctx, h->frames_off + (uint64_t) a * h->frames_cap,
                r->area[to], (size_t) len) == 0)
        r->area_len[to] = (size_t) len;
      to++;
    }
  return 0;
}

int
mpe_ring_load (mpe_ring_t *r, mpe_spill_read_cb read, void *ctx,
               uint64_t size)
{
  memset (r, 0, sizeof *r);
  mpe_ring_header_t *h = &r->h;
  const uint64_t slot = sizeof (mpe_spill_rec_t);
  if (size < MPE_RING_HEADER_SIZE || read (ctx, 0, h, sizeof *h) != 0
      || memcmp (h->magic, MPE_RING_MAGIC, 8) != 0
      || h->version < 1 || h->version > MPE_RING_VERSION
      || h->split > h->cap
      || h->cap > (size - MPE_RING_HEADER_SIZE) / slot)
    return -1;
  int ar = ring_areas (r, read, ctx, size);
  if (ar != 0)
    {
      mpe_ring_free (r);
      return ar;
    }
  for (int p = 0; p < 2; p++)
    {
      uint64_t from = p ? h->split : 0, to = p ? h->cap : h->split;
      if (!h->live[p] || to <= from)
        continue;
      size_t n = (size_t) (to - from);
      r->part[p] = malloc (n * slot);
      if (!r->part[p])
        {
          mpe_ring_free (r);
          return -2;
        }
      if (read (ctx, MPE_RING_HEADER_SIZE + from * slot, r->part[p],
                n * slot) == 0)
        r->len[p] = part_valid (r->part[p], n, h->tag[p]);
    }
  /* Oldest part first (by its first record). */
  if (r->len[1] && (!r->len[0] || r->part[1][0].t < r->part[0][0].t))
    {
      mpe_spill_rec_t *tp = r->part[0];
      size_t tl = r->len[0];
      r->part[0] = r->part[1];
      r->len[0] = r->len[1];
      r->part[1] = tp;
      r->len[1] = tl;
    }
  return 0;
}

void
mpe_ring_free (mpe_ring_t *r)
{
  free (r->area[0]);
  free (r->area[1]);
  r->area[0] = r->area[1] = NULL;
  r->area_len[0] = r->area_len[1] = 0;
  free (r->part[0]);
  free (r->part[1]);
  r->part[0] = r->part[1] = NULL;
  r->len[0] = r->len[1] = 0;
}

const char *
mpe_spill_default_dir (void)
{
  static const char *const vars[] = { "MPE_TMPDIR", "TMPDIR", "TMP",
                                      "TEMP" };
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    {
      const char *v = getenv (vars[i]);
      if (v && *v)
        return v;
    }
  return "/tmp";
}

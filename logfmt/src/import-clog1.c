/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CLOG v1 importer (MPE1's .clog): big-endian, fixed 65536-byte blocks, no
 * preamble.  Follows what MPE2's own converter makes of these files: RAW
 * events are state starts/ends on the process's timeline, RAW -101/-102
 * are message ends whose partner is the `data` field and whose string
 * holds "<tag> <size>", STATEDEF names the states; every other record is
 * skipped.  Two passes over the mapped file: definitions, processes and
 * the earliest time first, so definitions reach the writer before events.
 */
#include "logfmt-import-internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V1_BLOCK     65536u
#define V1_HDR       24u
#define V1_MAXPROCS  (1 << 20)
#define V1_BATCH     256
#define V1_MAXIDS    65536

enum
{
  V1_ENDLOG = -2, V1_ENDBLOCK = -1, V1_RAW = 1, V1_MSG, V1_COLL, V1_COMM,
  V1_EVENTDEF, V1_STATEDEF, V1_SRCLOC, V1_SHIFT
};

/* Body size by rectype + 2 (types -2 .. 8); 0 = not a record type. */
static const uint16_t v1_body[11] = { 0, 0, 0, 32, 24, 24, 16, 24, 56, 48, 8 };

typedef struct
{
  double         time;
  int32_t        type, procid;
  const uint8_t *body;
  uint64_t       off;
} v1rec_t;

typedef struct
{
  int32_t start, end;
  char    name[17], color[25];
} v1sdef_t;

typedef struct
{
  uint64_t        last;
  size_t          n;
  uint32_t        wstream;
  int             used;
  logfmt_event_t  buf[V1_BATCH];
} v1stream_t;

typedef struct v1 v1_t;
typedef int (*v1_fn) (v1_t *c, const v1rec_t *r);

struct v1
{
  const uint8_t  *data;
  size_t          len;
  const char     *name;
  logfmt_error_t *err;
  logfmt_writer_t *w;
  logfmt_progress_cb progress;
  void           *user;
  double          prog_lo, prog_hi;

  v1sdef_t       *sdefs;
  size_t          nsdefs, capsdefs;
  int32_t        *ids;           /* distinct RAW event ids seen */
  size_t          nids, capids;
  int32_t         nprocs;
  v1stream_t    **streams;       /* by procid, NULL if unused */
  double          tmin;
  int             have_tmin;
  uint64_t        clamped;
};

static int
fail (v1_t *c, int code, uint64_t off, const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));

static int
fail (v1_t *c, int code, uint64_t off, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  logfmt__verr (c->err, code, c->name, off, fmt, ap);
  va_end (ap);
  return code;
}

static int
nomem (v1_t *c)
{
  return fail (c, LOGFMT_ENOMEM, UINT64_MAX, "out of memory");
}

static int
wfail (v1_t *c, int rc, const char *what)
{
  return fail (c, rc, UINT64_MAX, "writing %s: %s", what,
               logfmt_strerror (rc));
}

static int32_t
be32 (const uint8_t *p)
{
  return (int32_t) ((uint32_t) p[0] << 24 | (uint32_t) p[1] << 16
                    | (uint32_t) p[2] << 8 | p[3]);
}

static double
bef64 (const uint8_t *p)
{
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v = v << 8 | p[i];
  double d;
  memcpy (&d, &v, sizeof d);
  return d;
}

static void
copy_field (char *dst, const uint8_t *src, size_t n)
{
  size_t i = 0;
  while (i < n && src[i])
    {
      dst[i] = (char) src[i];
      i++;
    }
  dst[i] = '\0';
}

static int
walk (v1_t *c, v1_fn fn)
{
  for (uint64_t base = 0; base < c->len; base += V1_BLOCK)
    {
      size_t avail = c->len - base < V1_BLOCK ? c->len - base : V1_BLOCK;
      const uint8_t *blk = c->data + base;
      size_t pos = 0;
      int rc;
      if (c->progress)
        {
          double f = c->prog_lo + (c->prog_hi - c->prog_lo)
                                  * (double) base / (double) c->len;
          if (c->progress (c->user, f))
            return fail (c, LOGFMT_ESTATE, UINT64_MAX, "import cancelled");
        }
      for (;;)
        {
          if (pos + V1_HDR > avail)
            {
              if (avail < V1_BLOCK)
                return fail (c, LOGFMT_ETRUNCATED, base + pos,
                             "file is truncated inside block %" PRIu64,
                             base / V1_BLOCK);
              return fail (c, LOGFMT_ECORRUPT, base + pos,
                           "block %" PRIu64 " has no ENDBLOCK record",
                           base / V1_BLOCK);
            }
          v1rec_t r;
          r.off = base + pos;
          r.time = bef64 (blk + pos);
          r.type = be32 (blk + pos + 8);
          int32_t units = be32 (blk + pos + 12);
          r.procid = be32 (blk + pos + 16);
          if (r.type < -2 || r.type > 8 || (r.type >= -2 && r.type <= 0
                                            && r.type != V1_ENDLOG
                                            && r.type != V1_ENDBLOCK))
            return fail (c, LOGFMT_ECORRUPT, r.off,
                         "unknown CLOG record type %d", r.type);
          size_t need = V1_HDR + v1_body[r.type + 2];
          /* The length field counts 8-byte units, header included; ends
           * of blocks are often written with a zero length. */
          size_t size = need;
          if (r.type > 0)
            {
              if (units < 0 || (size_t) units * 8 < need
                  || (size_t) units * 8 > V1_BLOCK)
                return fail (c, LOGFMT_ECORRUPT, r.off,
                             "record of type %d has bad length %d", r.type,
                             units);
              size = (size_t) units * 8;
            }
          if (pos + size > avail)
            {
              if (avail < V1_BLOCK)
                return fail (c, LOGFMT_ETRUNCATED, r.off,
                             "file is truncated inside a record");
              return fail (c, LOGFMT_ECORRUPT, r.off,
                           "record runs past the end of block %" PRIu64,
                           base / V1_BLOCK);
            }
          if (r.type == V1_ENDLOG)
            return 0;
          if (r.type == V1_ENDBLOCK)
            break;
          if (!isfinite (r.time) || fabs (r.time) > 1e9)
            return fail (c, LOGFMT_ECORRUPT, r.off,
                         "implausible timestamp %g s", r.time);
          if (r.procid < 0 || r.procid >= V1_MAXPROCS)
            return fail (c, LOGFMT_ECORRUPT, r.off,
                         "process id %d out of range", r.procid);
          r.body = blk + pos + V1_HDR;
          if ((rc = fn (c, &r)))
            return rc;
          pos += size;
        }
    }
  if (c->len == 0)
    return fail (c, LOGFMT_ETRUNCATED, 0, "empty file");
  return fail (c, LOGFMT_ETRUNCATED, c->len,
               "no ENDLOG record: file is truncated");
}

static int
pass1 (v1_t *c, const v1rec_t *r)
{
  if (r->type == V1_STATEDEF)
    {
      if (c->nsdefs >= V1_MAXIDS)
        return fail (c, LOGFMT_ECORRUPT, r->off,
                     "more than %d state definitions", V1_MAXIDS);
      if (c->nsdefs == c->capsdefs)
        {
          size_t n = c->capsdefs ? c->capsdefs * 2 : 16;
          v1sdef_t *p = realloc (c->sdefs, n * sizeof *p);
          if (!p)
            return nomem (c);
          c->sdefs = p;
          c->capsdefs = n;
        }
      v1sdef_t *d = &c->sdefs[c->nsdefs++];
      d->start = be32 (r->body + 4);
      d->end = be32 (r->body + 8);
      copy_field (d->color, r->body + 16, 24);
      copy_field (d->name, r->body + 40, 16);
      return 0;
    }
  if (r->type != V1_RAW)
    return 0;
  int32_t et = be32 (r->body);
  if (et == -201)
    return 0;
  if (r->procid + 1 > c->nprocs)
    c->nprocs = r->procid + 1;
  if (!c->have_tmin || r->time < c->tmin)
    c->tmin = r->time, c->have_tmin = 1;
  if (et == -101 || et == -102)
    return 0;
  /* Distinct ids, kept sorted (binary search; MPE1 files use a few
   * hundred, and the cap keeps hostile files cheap). */
  size_t lo = 0, hi = c->nids;
  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      if (c->ids[mid] < et)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < c->nids && c->ids[lo] == et)
    return 0;
  if (c->nids >= V1_MAXIDS)
    return fail (c, LOGFMT_ECORRUPT, r->off,
                 "more than %d distinct event ids", V1_MAXIDS);
  if (c->nids == c->capids)
    {
      size_t n = c->capids ? c->capids * 2 : 64;
      int32_t *p = realloc (c->ids, n * sizeof *p);
      if (!p)
        return nomem (c);
      c->ids = p;
      c->capids = n;
    }
  memmove (&c->ids[lo + 1], &c->ids[lo], (c->nids - lo) * sizeof *c->ids);
  c->ids[lo] = et;
  c->nids++;
  return 0;
}

static int
flush_stream (v1_t *c, v1stream_t *st)
{
  if (!st->n)
    return 0;
  int rc = logfmt_writer_event (c->w, st->wstream, st->buf, st->n);
  st->n = 0;
  return rc ? wfail (c, rc, "events") : 0;
}

static int
pass2 (v1_t *c, const v1rec_t *r)
{
  if (r->type != V1_RAW)
    return 0;
  int32_t et = be32 (r->body);
  if (et == -201)
    return 0;
  v1stream_t *st = c->streams[r->procid];
  logfmt_event_t *ev = &st->buf[st->n];
  memset (ev, 0, sizeof *ev);
  double dt = (r->time - c->tmin) * 1e9;
  uint64_t t = dt <= 0 ? 0 : (uint64_t) llround (dt);
  if (t < st->last)
    {
      t = st->last;
      c->clamped++;
    }
  st->last = t;
  ev->time = t;
  ev->id = et;
  ev->state = -1;
  if (et == -101 || et == -102)
    {
      char text[17];
      long tag = 0, size = 0;
      copy_field (text, r->body + 16, 16);
      if (sscanf (text, "%ld %ld", &tag, &size) != 2)
        return fail (c, LOGFMT_ECORRUPT, r->off,
                     "message record without \"<tag> <size>\" text");
      int32_t partner = be32 (r->body + 4);
      if (partner < 0 || partner >= V1_MAXPROCS)
        return fail (c, LOGFMT_ECORRUPT, r->off,
                     "message partner %d out of range", partner);
      ev->type = et == -101 ? LOGFMT_REC_SEND : LOGFMT_REC_RECV;
      ev->partner = partner;
      ev->tag = (int32_t) tag;
      ev->size = size < 0 ? 0 : (uint64_t) size;
      ev->comm = 0;
    }
  else
    ev->type = LOGFMT_REC_EVENT;
  if (++st->n == V1_BATCH)
    return flush_stream (c, st);
  return 0;
}

static int
write_defs (v1_t *c)
{
  int rc;
  for (size_t i = 0; i < c->nsdefs; i++)
    {
      v1sdef_t *d = &c->sdefs[i];
      logfmt_state_def_t s = { d->start, d->end, d->name, d->color, NULL, 0 };
      if ((rc = logfmt_writer_add_state (c->w, &s)))
        return wfail (c, rc, "state definition");
    }
  /* Ids without a definition: MPE1 numbered MPI states in pairs from 1,
   * user states in pairs from 500.  c->ids is sorted. */
  int32_t last_start = INT32_MIN;
  for (size_t i = 0; i < c->nids; i++)
    {
      int32_t id = c->ids[i], start;
      int defined = 0;
      for (size_t j = 0; j < c->nsdefs; j++)
        if (c->sdefs[j].start == id || c->sdefs[j].end == id)
          defined = 1;
      if (defined || id < 1)
        continue;
      start = id < 500 ? id - ((id - 1) & 1) : id - (id & 1);
      if (start == last_start)
        continue;
      last_start = start;
      char name[32];
      snprintf (name, sizeof name, "state_%d_%d", start, start + 1);
      logfmt_state_def_t s = { start, start + 1, name, "gray", NULL, 0 };
      if ((rc = logfmt_writer_add_state (c->w, &s)))
        return wfail (c, rc, "state definition");
    }

  int32_t *ranks = malloc ((size_t) (c->nprocs ? c->nprocs : 1)
                           * sizeof *ranks);
  if (!ranks)
    return nomem (c);
  for (int32_t i = 0; i < c->nprocs; i++)
    ranks[i] = i;
  logfmt_comm_def_t cd = { 0, 1, "MPI_COMM_WORLD", (uint32_t) c->nprocs,
                           ranks };
  rc = logfmt_writer_add_comm (c->w, &cd);
  free (ranks);
  if (rc)
    return wfail (c, rc, "communicator definition");

  c->streams = calloc ((size_t) (c->nprocs ? c->nprocs : 1),
                       sizeof *c->streams);
  if (!c->streams)
    return nomem (c);
  for (int32_t i = 0; i < c->nprocs; i++)
    {
      logfmt_stream_def_t d = { i, 0, NULL };
      if (!(c->streams[i] = calloc (1, sizeof **c->streams)))
        return nomem (c);
      if ((rc = logfmt_writer_add_stream (c->w, &d,
                                          &c->streams[i]->wstream)))
        return wfail (c, rc, "stream definition");
    }
  return 0;
}

int
logfmt__import_clog1 (const uint8_t *data, size_t len, const char *name,
                      logfmt_writer_t *w, logfmt_progress_cb progress,
                      void *user, logfmt_error_t *err)
{
  v1_t c = { 0 };
  c.data = data;
  c.len = len;
  c.name = name ? name : "(CLOG data)";
  c.err = err;
  c.w = w;
  c.progress = progress;
  c.user = user;
  if (err)
    {
      err->code = 0;
      err->offset = UINT64_MAX;
      err->message[0] = '\0';
    }
  int rc;
  if (!data || !w)
    return fail (&c, LOGFMT_EINVAL, UINT64_MAX, "no data or no writer");
  c.prog_hi = 0.3;
  if ((rc = walk (&c, pass1)) || (rc = write_defs (&c)))
    goto out;
  c.prog_lo = 0.3;
  c.prog_hi = 1.0;
  if ((rc = walk (&c, pass2)))
    goto out;
  for (int32_t i = 0; i < c.nprocs; i++)
    if ((rc = flush_stream (&c, c.streams[i])))
      goto out;
  if (progress && progress (user, 1.0))
    rc = fail (&c, LOGFMT_ESTATE, UINT64_MAX, "import cancelled");
out:
  if (c.streams)
    for (int32_t i = 0; i < c.nprocs; i++)
      free (c.streams[i]);
  free (c.streams);
  free (c.sdefs);
  free (c.ids);
  return rc;
}

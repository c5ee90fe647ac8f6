/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CLOG2 writer: a reader's whole content as MPE2's merged log file
 * ("CLOG-02.44", big-endian; MPE-COMPAT.md section 5), for users' tools
 * built around CLOG2 (clog2_print, clog2TOslog2, Jumpshot).
 *
 * Layout written: the preamble; then, at time 0, one TIMESHIFT (0) and
 * the COMMEVTs of every process, the constant, state and event
 * definitions; then every stream's records merged by time (a heap over
 * the streams' iterators, so memory depends on the number of streams);
 * ENDLOG; the comm table.
 *
 * Communicators.  Table entry 0 is MPI_COMM_WORLD and 1 + r is world rank
 * r's MPI_COMM_SELF, as in MPE2's files.  Every other communicator of the
 * log gets entries after those:
 *   - an intracomm with a rank table: one entry; records name ranks in it;
 *   - an intercomm (a .clog lists both groups in one table): the split
 *     between the groups is taken from its messages, each of which goes
 *     from one group to the other; then three entries (inter, group A,
 *     group B) and each side logs on its own group's id with the other
 *     group's id in the MSGEVT, exactly as MPE2 does;
 *   - otherwise (no rank table, or no consistent split): one entry whose
 *     ranks are world ranks.
 * State and solo events are logged on MPI_COMM_WORLD.
 */
#include "config.h"
#include "logfmt-internal.h"
#include "clog2-layout-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BATCH 256

enum
{
  MAP_WORLD = 0,  /* MPI_COMM_WORLD (entry 0) */
  MAP_SELF,       /* MPI_COMM_SELF: the sender's own entry */
  MAP_INTRA,      /* entry; ranks in the comm */
  MAP_INTER,      /* entry (inter), entry + 1 (group A), entry + 2 (B) */
  MAP_WORLDNUM,   /* entry; ranks are world ranks */
  MAP_NONE        /* no ranks, no messages: not written */
};

typedef struct
{
  uint32_t       id;        /* the log's comm id */
  size_t         order;     /* its definition's index */
  int            map;
  int            inter;     /* the log says kind 0 */
  int32_t        entry;
  const int32_t *ranks;
  uint32_t       size, split;  /* MAP_INTER: ranks[0, split) is group A */
  uint64_t       nmsg;         /* messages on it */
  int32_t        lo_k, hi_k;   /* MAP_INTER: the splits messages allow */
  int            bad;          /* a message contradicts every split */
} cmap_t;

/* (comm index, world rank) -> position in its rank table. */
typedef struct
{
  uint64_t key;
  int32_t  pos;
  int      used;
} pslot_t;

typedef struct
{
  uint32_t        s;         /* stream */
  logfmt_iter_t  *it;
  logfmt_event_t *buf;
  long            n, pos;
} src_t;

typedef struct
{
  const logfmt_reader_t *r;
  const char     *path;
  logfmt_error_t *err;
  logfmt_clog2_report_t rep;
  FILE           *f;
  uint8_t        *blk;
  uint32_t        pos;
  uint64_t        nblocks;
  int32_t         world, threads;
  cmap_t         *cm;
  size_t          ncm;
  int32_t         nentries;
  int32_t        *kinds;       /* table kind per entry */
  const char    **host;        /* per world rank, or NULL */
  pslot_t        *pm;
  size_t          pcap;
  src_t          *src;
  size_t         *heap, nheap;
} ex_t;

/* --------------------------------------------------------------- */
/* Bytes                                                            */
/* --------------------------------------------------------------- */

static void
be32 (uint8_t *p, int32_t v)
{
  uint32_t u = (uint32_t) v;
  p[0] = (uint8_t) (u >> 24);
  p[1] = (uint8_t) (u >> 16);
  p[2] = (uint8_t) (u >> 8);
  p[3] = (uint8_t) u;
}

static void
bef64 (uint8_t *p, double v)
{
  uint64_t u;
  memcpy (&u, &v, 8);
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t) (u >> (56 - 8 * i));
}

/* A fixed-size string field, NUL-terminated in its last byte at most. */
static void
put_str (ex_t *x, uint8_t *dst, const char *s, size_t n)
{
  size_t l = s ? strlen (s) : 0;
  if (l > n - 1)
    {
      l = n - 1;
      x->rep.strings_cut++;
    }
  memcpy (dst, s ? s : "", l);
  memset (dst + l, 0, n - l);
}

static int
io_fail (ex_t *x, const char *what)
{
  int e = errno;
  return logfmt__err (x->err, e == ENOSPC ? LOGFMT_ENOSPC : LOGFMT_EIO,
                      x->path, UINT64_MAX, "%s: %s", what, strerror (e));
}

static int
flush_block (ex_t *x)
{
  if (fwrite (x->blk, 1, CLOG2_BLOCK_SIZE, x->f) != CLOG2_BLOCK_SIZE)
    return io_fail (x, "writing a block");
  memset (x->blk, 0, CLOG2_BLOCK_SIZE);
  x->pos = 0;
  x->nblocks++;
  return 0;
}

static void
header (uint8_t *h, double t, int32_t icomm, int32_t rank, int32_t thread,
        int32_t type)
{
  bef64 (h + CLOG2_HDR_TIME, t);
  be32 (h + CLOG2_HDR_ICOMM, icomm);
  be32 (h + CLOG2_HDR_RANK, rank);
  be32 (h + CLOG2_HDR_THREAD, thread);
  be32 (h + CLOG2_HDR_TYPE, type);
}

/* Appends a record whose header is filled in; a block always keeps room
 * for the ENDBLOCK (or ENDLOG) that closes it. */
static int
put (ex_t *x, const uint8_t *rec)
{
  int32_t type = (int32_t) ((uint32_t) rec[CLOG2_HDR_TYPE] << 24
                            | (uint32_t) rec[CLOG2_HDR_TYPE + 1] << 16
                            | (uint32_t) rec[CLOG2_HDR_TYPE + 2] << 8
                            | rec[CLOG2_HDR_TYPE + 3]);
  uint32_t n = clog2_rec_size[type];
  if (x->pos + n + CLOG2_HDR_SIZE > CLOG2_BLOCK_SIZE)
    {
      double t;
      uint64_t u = 0;
      for (int i = 0; i < 8; i++)
        u = u << 8 | rec[i];
      memcpy (&t, &u, 8);
      header (x->blk + x->pos, t, 0, 0, 0, CLOG2_REC_ENDBLOCK);
      int rc = flush_block (x);
      if (rc)
        return rc;
    }
  memcpy (x->blk + x->pos, rec, n);
  x->pos += n;
  x->rep.records++;
  return 0;
}

/* --------------------------------------------------------------- */
/* Communicators                                                    */
/* --------------------------------------------------------------- */

static uint64_t
pkey (size_t ci, int32_t wrank)
{
  return (uint64_t) ci << 32 | (uint32_t) wrank;
}

static size_t
phash (uint64_t k)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  return (size_t) (k ^ (k >> 33));
}

static int
pos_put (ex_t *x, size_t ci, int32_t wrank, int32_t pos)
{
  uint64_t k = pkey (ci, wrank);
  size_t i = phash (k) & (x->pcap - 1);
  while (x->pm[i].used)
    {
      if (x->pm[i].key == k)
        return 0;                    /* a rank listed twice: keep the first */
      i = (i + 1) & (x->pcap - 1);
    }
  x->pm[i] = (pslot_t) { k, pos, 1 };
  return 0;
}

/* Position of wrank in comm ci's rank table, or -1. */
static int32_t
pos_of (const ex_t *x, size_t ci, int32_t wrank)
{
  if (!x->pcap)
    return -1;
  uint64_t k = pkey (ci, wrank);
  size_t i = phash (k) & (x->pcap - 1);
  while (x->pm[i].used)
    {
      if (x->pm[i].key == k)
        return x->pm[i].pos;
      i = (i + 1) & (x->pcap - 1);
    }
  return -1;
}

static int
cmp_cmap (const void *a, const void *b)
{
  uint32_t x = ((const cmap_t *) a)->id, y = ((const cmap_t *) b)->id;
  return (x > y) - (x < y);
}

static int
cmp_cmap_order (const void *a, const void *b)
{
  const cmap_t *x = a, *y = b;
  if (x->id != y->id)
    return x->id < y->id ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

static const cmap_t *
find_comm (const ex_t *x, uint32_t id)
{
  cmap_t key = { .id = id };
  return bsearch (&key, x->cm, x->ncm, sizeof *x->cm, cmp_cmap);
}

static int
identity (const logfmt_comm_def_t *d, int32_t world)
{
  if (!d->ranks || d->size != (uint32_t) world)
    return 0;
  for (uint32_t i = 0; i < d->size; i++)
    if (d->ranks[i] != (int32_t) i)
      return 0;
  return 1;
}

/* One pass over the message table: which communicators carry messages,
 * and the intercomms' splits.  Every message goes from one group to the
 * other, so the split k (group A = ranks[0, k)) lies in (min, max] of
 * the two ends' positions. */
static int
scan_messages (ex_t *x)
{
  for (size_t i = 0; i < x->ncm; i++)
    {
      x->cm[i].lo_k = 1;
      x->cm[i].hi_k = (int32_t) x->cm[i].size - 1;
    }
  logfmt_msg_iter_t *mi;
  logfmt_message_t m;
  int rc = logfmt_msg_iter_new (x->r, 0, UINT64_MAX, &mi);
  if (rc)
    return logfmt__err (x->err, rc, x->path, UINT64_MAX,
                        "reading the message table: %s",
                        logfmt_strerror (rc));
  while ((rc = logfmt_msg_iter_next (mi, &m)) == 1)
    {
      cmap_t *c = (cmap_t *) find_comm (x, m.comm);
      if (!c)
        continue;
      c->nmsg++;
      if (c->map != MAP_INTER || c->bad)
        continue;
      size_t ci = (size_t) (c - x->cm);
      int32_t a = pos_of (x, ci, m.send_rank);
      int32_t b = pos_of (x, ci, m.recv_rank);
      if (a < 0 || b < 0 || a == b)
        {
          c->bad = 1;
          continue;
        }
      int32_t lo = a < b ? a : b, hi = a < b ? b : a;
      if (lo + 1 > c->lo_k)
        c->lo_k = lo + 1;
      if (hi < c->hi_k)
        c->hi_k = hi;
      c->bad = c->lo_k > c->hi_k;
    }
  if (rc < 0)
    {
      const logfmt_error_t *e = logfmt_msg_iter_error (mi);
      rc = logfmt__err (x->err, rc, x->path, UINT64_MAX,
                        "reading the message table: %s",
                        e && e->message[0] ? e->message
                                           : logfmt_strerror (rc));
    }
  logfmt_msg_iter_free (mi);
  if (rc < 0)
    return rc;
  for (size_t i = 0; i < x->ncm; i++)
    {
      cmap_t *c = &x->cm[i];
      if (c->map == MAP_INTER && (c->bad || c->nmsg == 0))
        c->map = MAP_WORLDNUM;          /* no split known */
      else if (c->map == MAP_INTER)
        c->split = (uint32_t) c->lo_k;
      if (c->map == MAP_WORLDNUM && c->size == 0 && c->nmsg == 0)
        c->map = MAP_NONE;              /* nothing to say about it */
    }
  return 0;
}

/* The log's communicators -> comm table entries. */
static int
map_comms (ex_t *x)
{
  const logfmt_reader_t *r = x->r;
  size_t n = logfmt_reader_n_comms (r);
  size_t nranks = 0;
  x->cm = calloc (n ? n : 1, sizeof *x->cm);
  if (!x->cm)
    return logfmt__err (x->err, LOGFMT_ENOMEM, x->path, UINT64_MAX,
                        "out of memory");
  for (size_t i = 0; i < n; i++)
    {
      const logfmt_comm_def_t *d = logfmt_reader_comm (r, i);
      cmap_t *c = &x->cm[x->ncm++];
      c->id = d->id;
      c->order = i;
      c->inter = d->kind == 0;
      c->ranks = d->ranks;
      c->size = d->ranks ? d->size : 0;
      const char *name = d->name ? d->name : "";
      if (strcmp (name, "MPI_COMM_WORLD") == 0
          || (d->id == 0 && !c->inter && (!d->ranks || identity (d, x->world))))
        c->map = MAP_WORLD;
      else if (strcmp (name, "MPI_COMM_SELF") == 0 && c->size == 1
               && d->ranks[0] >= 0 && d->ranks[0] < x->world)
        c->map = MAP_SELF;
      else if (c->size == 0)
        c->map = MAP_WORLDNUM;
      else if (c->inter && c->size >= 2)
        c->map = MAP_INTER;
      else if (c->inter)
        c->map = MAP_WORLDNUM;
      else
        c->map = MAP_INTRA;
    }
  /* Sorted by id for bsearch; an id defined twice keeps its first
   * definition. */
  qsort (x->cm, x->ncm, sizeof *x->cm, cmp_cmap_order);
  size_t k = 0;
  for (size_t i = 0; i < x->ncm; i++)
    if (k == 0 || x->cm[k - 1].id != x->cm[i].id)
      {
        x->cm[k++] = x->cm[i];
        nranks += x->cm[i].size;
      }
  x->ncm = k;

  x->pcap = 64;
  while (x->pcap < nranks * 2)
    x->pcap *= 2;
  x->pm = calloc (x->pcap, sizeof *x->pm);
  if (!x->pm)
    return logfmt__err (x->err, LOGFMT_ENOMEM, x->path, UINT64_MAX,
                        "out of memory");
  for (size_t i = 0; i < x->ncm; i++)
    for (uint32_t j = 0; j < x->cm[i].size; j++)
      pos_put (x, i, x->cm[i].ranks[j], (int32_t) j);

  int rc = scan_messages (x);
  if (rc)
    return rc;

  /* Entries: world, the selves, then each communicator in id order. */
  size_t ne = 1 + (size_t) x->world;
  for (size_t i = 0; i < x->ncm; i++)
    ne += x->cm[i].map == MAP_INTER ? 3
          : x->cm[i].map == MAP_INTRA || x->cm[i].map == MAP_WORLDNUM;
  if (ne > INT32_MAX)
    return logfmt__err (x->err, LOGFMT_ERANGE, x->path, UINT64_MAX,
                        "too many communicators for CLOG2");
  x->kinds = malloc (ne * sizeof *x->kinds);
  if (!x->kinds)
    return logfmt__err (x->err, LOGFMT_ENOMEM, x->path, UINT64_MAX,
                        "out of memory");
  int32_t e = 0;
  x->kinds[e++] = CLOG2_KIND_INTRA;
  for (int32_t w = 0; w < x->world; w++)
    x->kinds[e++] = CLOG2_KIND_INTRA;
  for (size_t i = 0; i < x->ncm; i++)
    {
      cmap_t *c = &x->cm[i];
      if (c->map == MAP_INTER)
        {
          c->entry = e;
          x->kinds[e++] = CLOG2_KIND_INTER;
          x->kinds[e++] = CLOG2_KIND_LOCAL;
          x->kinds[e++] = CLOG2_KIND_REMOTE;
        }
      else if (c->map == MAP_INTRA || c->map == MAP_WORLDNUM)
        {
          c->entry = e;
          x->kinds[e++] = c->inter ? CLOG2_KIND_INTER : CLOG2_KIND_INTRA;
          if (c->map == MAP_WORLDNUM)
            x->rep.comms_world_numbered++;
        }
    }
  x->nentries = e;
  return 0;
}

/* The UUID of table entry e: its own "random" number, and for a
 * MPI_COMM_SELF the host of its process (not necessarily NUL-terminated,
 * as in MPE2). */
static void
put_uuid (const ex_t *x, uint8_t *p, int32_t e)
{
  memset (p, 0, CLOG2_UUID_SIZE);
  be32 (p, e + 1);
  bef64 (p + CLOG2_UUID_TIME, 0.0);
  if (e >= 1 && e <= x->world && x->host[e - 1])
    {
      size_t l = strlen (x->host[e - 1]);
      memcpy (p + CLOG2_UUID_HOST, x->host[e - 1],
              l < CLOG2_HOST_LEN ? l : CLOG2_HOST_LEN);
    }
}

/* Each world rank's host: its first stream's. */
static int
find_hosts (ex_t *x)
{
  const logfmt_info_t *info = logfmt_reader_info (x->r);
  x->host = calloc ((size_t) x->world, sizeof *x->host);
  if (!x->host)
    return logfmt__err (x->err, LOGFMT_ENOMEM, x->path, UINT64_MAX,
                        "out of memory");
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (x->r, s);
      if (sd->rank >= 0 && sd->host && !x->host[sd->rank])
        {
          x->host[sd->rank] = sd->host;
          if (strlen (sd->host) > CLOG2_HOST_LEN)
            x->rep.strings_cut++;
        }
    }
  return 0;
}

static int
commevt (ex_t *x, int32_t etype, int32_t nc, int32_t rank, int32_t wrank)
{
  uint8_t rec[72];
  header (rec, 0.0, 0, wrank, 0, CLOG2_REC_COMMEVT);
  uint8_t *b = rec + CLOG2_HDR_SIZE;
  be32 (b + CLOG2_COMM_ETYPE, etype);
  be32 (b + CLOG2_COMM_ICOMM, nc);
  be32 (b + CLOG2_COMM_RANK, rank);
  be32 (b + CLOG2_COMM_WRANK, wrank);
  put_uuid (x, b + CLOG2_COMM_UUID, nc);
  return put (x, rec);
}

/* Each process: its clock record and who it is in every communicator. */
static int
write_comm_events (ex_t *x)
{
  int rc = 0;
  for (int32_t w = 0; w < x->world && rc == 0; w++)
    {
      uint8_t ts[32];
      header (ts, 0.0, 0, w, 0, CLOG2_REC_TIMESHIFT);
      bef64 (ts + CLOG2_HDR_SIZE + CLOG2_SHIFT_VALUE, 0.0);
      if ((rc = put (x, ts))
          || (rc = commevt (x, CLOG2_COMMEVT_WORLD, 0, w, w))
          || (rc = commevt (x, CLOG2_COMMEVT_SELF, 1 + w, 0, w)))
        return rc;
      for (size_t i = 0; i < x->ncm && rc == 0; i++)
        {
          const cmap_t *c = &x->cm[i];
          int32_t p = pos_of (x, i, w);
          if (c->map == MAP_INTRA && p >= 0)
            rc = commevt (x, CLOG2_COMMEVT_INTRA, c->entry, p, w);
          else if (c->map == MAP_WORLDNUM && (p >= 0 || c->size == 0))
            rc = commevt (x, CLOG2_COMMEVT_INTRA, c->entry, w, w);
          else if (c->map == MAP_INTER && p >= 0)
            {
              int a = (uint32_t) p < c->split;
              int32_t lrank = a ? p : p - (int32_t) c->split;
              int32_t local = c->entry + (a ? 1 : 2);
              int32_t remote = c->entry + (a ? 2 : 1);
              if (!(rc = commevt (x, CLOG2_COMMEVT_INTER, c->entry, lrank,
                                  w))
                  && !(rc = commevt (x, CLOG2_COMMEVT_LOCAL, local, lrank,
                                     w)))
                rc = commevt (x, CLOG2_COMMEVT_REMOTE, remote, lrank, w);
            }
        }
    }
  return rc;
}

/* --------------------------------------------------------------- */
/* Definitions                                                      */
/* --------------------------------------------------------------- */

/* MPE2 takes colour names as given, "colour:pattern" too (MPE2's own
 * programs use "green:light_gray"); a "#rrggbb" gets the nearest X11
 * name. */
static void
put_color (ex_t *x, uint8_t *dst, const char *color, uint32_t rgb)
{
  if (!color || !*color || color[0] == '#')
    {
      color = logfmt__color_nearest (rgb);
      x->rep.colors_named++;
    }
  put_str (x, dst, color, CLOG2_COLOR_LEN);
}

static int
write_defs (ex_t *x)
{
  const logfmt_reader_t *r = x->r;
  int rc = 0;
  for (size_t i = 0; i < logfmt_reader_n_consts (r) && rc == 0; i++)
    {
      const logfmt_const_def_t *k = logfmt_reader_const (r, i);
      uint8_t rec[64];
      int64_t v = k->value;
      if (v < INT32_MIN || v > INT32_MAX)
        {
          v = v < 0 ? INT32_MIN : INT32_MAX;
          x->rep.consts_clamped++;
        }
      header (rec, 0.0, 0, 0, 0, CLOG2_REC_CONSTDEF);
      uint8_t *b = rec + CLOG2_HDR_SIZE;
      be32 (b + CLOG2_CDEF_ETYPE, CLOG2_EVT_CONST);
      be32 (b + CLOG2_CDEF_VALUE, (int32_t) v);
      put_str (x, b + CLOG2_CDEF_NAME, k->name, CLOG2_NAME_LEN);
      rc = put (x, rec);
    }
  int32_t user_state = CLOG2_KNOWN_STATE_COUNT;
  for (size_t i = 0; i < logfmt_reader_n_states (r) && rc == 0; i++)
    {
      const logfmt_state_def_t *d = logfmt_reader_state (r, i);
      uint8_t rec[136] = { 0 };
      /* MPE2 numbers the MPI states by their start id, user ones after. */
      int32_t id = d->start_id >= CLOG2_KNOWN_EVENT_START
                   && d->start_id < CLOG2_USER_EVENT_START
                   ? d->start_id / 2 : user_state++;
      header (rec, 0.0, 0, 0, 0, CLOG2_REC_STATEDEF);
      uint8_t *b = rec + CLOG2_HDR_SIZE;
      be32 (b + CLOG2_SDEF_ID, id);
      be32 (b + CLOG2_SDEF_START, d->start_id);
      be32 (b + CLOG2_SDEF_END, d->end_id);
      put_color (x, b + CLOG2_SDEF_COLOR, d->color, d->rgb);
      put_str (x, b + CLOG2_SDEF_NAME, d->name, CLOG2_NAME_LEN);
      put_str (x, b + CLOG2_SDEF_FORMAT, d->format, CLOG2_FORMAT_LEN);
      rc = put (x, rec);
    }
  for (size_t i = 0; i < logfmt_reader_n_event_defs (r) && rc == 0; i++)
    {
      const logfmt_event_def_t *d = logfmt_reader_event_def (r, i);
      uint8_t rec[128] = { 0 };
      header (rec, 0.0, 0, 0, 0, CLOG2_REC_EVENTDEF);
      uint8_t *b = rec + CLOG2_HDR_SIZE;
      be32 (b + CLOG2_EDEF_ID, d->id);
      put_color (x, b + CLOG2_EDEF_COLOR, d->color, d->rgb);
      put_str (x, b + CLOG2_EDEF_NAME, d->name, CLOG2_NAME_LEN);
      put_str (x, b + CLOG2_EDEF_FORMAT, d->format, CLOG2_FORMAT_LEN);
      rc = put (x, rec);
    }
  return rc;
}

/* --------------------------------------------------------------- */
/* Events, merged by time over the streams                          */
/* --------------------------------------------------------------- */

static int
src_less (const ex_t *x, size_t a, size_t b)
{
  const src_t *p = &x->src[a], *q = &x->src[b];
  uint64_t ta = p->buf[p->pos].time, tb = q->buf[q->pos].time;
  return ta < tb || (ta == tb && p->s < q->s);
}

static void
sift_down (ex_t *x, size_t i)
{
  for (;;)
    {
      size_t l = 2 * i + 1, m = i;
      if (l < x->nheap && src_less (x, x->heap[l], x->heap[m]))
        m = l;
      if (l + 1 < x->nheap && src_less (x, x->heap[l + 1], x->heap[m]))
        m = l + 1;
      if (m == i)
        return;
      size_t t = x->heap[i];
      x->heap[i] = x->heap[m];
      x->heap[m] = t;
      i = m;
    }
}

/* Refills a source's batch; 1 if it has an event, 0 at its end. */
static int
refill (ex_t *x, src_t *s)
{
  if (s->pos < s->n)
    return 1;
  long n = logfmt_iter_next_batch (s->it, s->buf, BATCH);
  if (n < 0)
    {
      const logfmt_error_t *e = logfmt_iter_error (s->it);
      return logfmt__err (x->err, (int) n, x->path, UINT64_MAX,
                          "reading stream %u: %s", s->s,
                          e && e->message[0] ? e->message
                                             : logfmt_strerror ((int) n));
    }
  s->n = n;
  s->pos = 0;
  return n > 0;
}

static int
write_message (ex_t *x, const logfmt_stream_def_t *sd,
               const logfmt_event_t *ev, double t)
{
  int32_t me = sd->rank, p = ev->partner;
  int32_t hc = 0, hr = me, pc = 0, pr = p;
  const cmap_t *c = find_comm (x, ev->comm);
  if (c)
    {
      size_t ci = (size_t) (c - x->cm);
      int32_t a = pos_of (x, ci, me), b = pos_of (x, ci, p);
      switch (c->map)
        {
        case MAP_SELF:
          hc = pc = 1 + me, hr = pr = 0;
          break;
        case MAP_INTRA:
          if (a >= 0 && b >= 0)
            hc = pc = c->entry, hr = a, pr = b;
          break;
        case MAP_WORLDNUM:
          hc = pc = c->entry;
          break;
        case MAP_INTER:
          if (a >= 0 && b >= 0
              && ((uint32_t) a < c->split) != ((uint32_t) b < c->split))
            {
              int ina = (uint32_t) a < c->split;
              hc = c->entry + (ina ? 1 : 2);
              pc = c->entry + (ina ? 2 : 1);
              hr = ina ? a : a - (int32_t) c->split;
              pr = ina ? b - (int32_t) c->split : b;
            }
          break;
        default:
          break;
        }
      if (hc == 0 && c->map != MAP_WORLD)
        x->rep.ends_on_world++;
    }
  else if (ev->comm != 0)
    x->rep.ends_on_world++;

  uint8_t rec[48] = { 0 };
  header (rec, t, hc, hr, sd->thread, CLOG2_REC_MSGEVT);
  uint8_t *b = rec + CLOG2_HDR_SIZE;
  uint64_t size = ev->size;
  if (size > INT32_MAX)
    {
      size = INT32_MAX;
      x->rep.sizes_clamped++;
    }
  be32 (b + CLOG2_MSG_ETYPE, ev->type == LOGFMT_REC_SEND ? CLOG2_EVT_SEND
                                                         : CLOG2_EVT_RECV);
  be32 (b + CLOG2_MSG_ICOMM, pc);
  be32 (b + CLOG2_MSG_RANK, pr);
  be32 (b + CLOG2_MSG_TAG, ev->tag);
  be32 (b + CLOG2_MSG_SIZE, (int32_t) size);
  return put (x, rec);
}

static int
write_event (ex_t *x, const logfmt_stream_def_t *sd,
             const logfmt_event_t *ev)
{
  double t = (double) ev->time * 1e-9;
  if (ev->type == LOGFMT_REC_LOSS)
    {
      x->rep.losses_dropped++;
      return 0;
    }
  x->rep.events++;
  if (ev->type == LOGFMT_REC_SEND || ev->type == LOGFMT_REC_RECV)
    return write_message (x, sd, ev, t);
  uint8_t rec[64] = { 0 };
  int cargo = (ev->flags & LOGFMT_EVF_CARGO) != 0;
  header (rec, t, 0, sd->rank, sd->thread,
          cargo ? CLOG2_REC_CARGOEVT : CLOG2_REC_BAREEVT);
  be32 (rec + CLOG2_HDR_SIZE + CLOG2_EVT_ID, ev->id);
  if (cargo)
    memcpy (rec + CLOG2_HDR_SIZE + CLOG2_EVT_CARGO, ev->cargo,
            CLOG2_CARGO_LEN);
  return put (x, rec);
}

static int
write_events (ex_t *x, logfmt_progress_cb cb, void *user)
{
  const logfmt_info_t *info = logfmt_reader_info (x->r);
  size_t ns = info->nstreams;
  x->src = calloc (ns ? ns : 1, sizeof *x->src);
  x->heap = malloc ((ns ? ns : 1) * sizeof *x->heap);
  if (!x->src || !x->heap)
    return logfmt__err (x->err, LOGFMT_ENOMEM, x->path, UINT64_MAX,
                        "out of memory");
  int rc = 0;
  for (size_t i = 0; i < ns; i++)
    {
      src_t *s = &x->src[i];
      s->s = (uint32_t) i;
      s->buf = malloc (BATCH * sizeof *s->buf);
      if (!s->buf)
        return logfmt__err (x->err, LOGFMT_ENOMEM, x->path, UINT64_MAX,
                            "out of memory");
      if ((rc = logfmt_iter_new (x->r, (uint32_t) i, 0, UINT64_MAX, &s->it)))
        return logfmt__err (x->err, rc, x->path, UINT64_MAX,
                            "reading stream %zu: %s", i,
                            logfmt_strerror (rc));
      if ((rc = refill (x, s)) < 0)
        return rc;
      if (rc)
        x->heap[x->nheap++] = i;
    }
  for (size_t i = x->nheap; i-- > 0;)
    sift_down (x, i);

  uint64_t done = 0, total = info->nevents ? info->nevents : 1;
  while (x->nheap)
    {
      src_t *s = &x->src[x->heap[0]];
      const logfmt_stream_def_t *sd = logfmt_reader_stream (x->r, s->s);
      if ((rc = write_event (x, sd, &s->buf[s->pos++])))
        return rc;
      if ((rc = refill (x, s)) < 0)
        return rc;
      if (!rc)
        x->heap[0] = x->heap[--x->nheap];
      if (x->nheap)
        sift_down (x, 0);
      if ((++done & 0xffff) == 0 && cb
          && cb (user, (double) done / (double) total))
        return logfmt__err (x->err, LOGFMT_ESTATE, x->path, UINT64_MAX,
                            "export cancelled");
    }
  return 0;
}

/* --------------------------------------------------------------- */
/* Preamble, comm table, the whole file                             */
/* --------------------------------------------------------------- */

static int
write_tail (ex_t *x)
{
  /* ENDLOG always fits: put() keeps a header's room in every block. */
  header (x->blk + x->pos, CLOG2_MAXTIME, 0, 0, 0, CLOG2_REC_ENDLOG);
  x->rep.records++;
  int rc = flush_block (x);
  if (rc)
    return rc;
  uint8_t n[4];
  be32 (n, x->nentries);
  if (fwrite (n, 1, 4, x->f) != 4)
    return io_fail (x, "writing the comm table");
  for (int32_t e = 0; e < x->nentries; e++)
    {
      uint8_t ent[CLOG2_COMM_ENTRY];
      put_uuid (x, ent, e);
      be32 (ent + CLOG2_ENTRY_ID, e);
      be32 (ent + CLOG2_ENTRY_KIND, x->kinds[e]);
      if (fwrite (ent, 1, sizeof ent, x->f) != sizeof ent)
        return io_fail (x, "writing the comm table");
    }
  return 0;
}

static int
write_preamble (ex_t *x)
{
  const logfmt_reader_t *r = x->r;
  int32_t user_states = 0, known_solos = 0, user_solos = 0;
  for (size_t i = 0; i < logfmt_reader_n_states (r); i++)
    user_states += logfmt_reader_state (r, i)->start_id
                   >= CLOG2_USER_EVENT_START;
  for (size_t i = 0; i < logfmt_reader_n_event_defs (r); i++)
    {
      int32_t id = logfmt_reader_event_def (r, i)->id;
      known_solos += id >= CLOG2_KNOWN_SOLO_START && id < 0;
      user_solos += id >= CLOG2_USER_SOLO_START;
    }
  uint64_t ct = CLOG2_PREAMBLE_SIZE + x->nblocks * CLOG2_BLOCK_SIZE;
  char v[10][24];
  snprintf (v[0], sizeof v[0], "%d", CLOG2_BLOCK_SIZE);
  snprintf (v[1], sizeof v[1], "%d", x->world);
  snprintf (v[2], sizeof v[2], "%d", x->threads);
  snprintf (v[3], sizeof v[3], "%d", user_states);
  snprintf (v[4], sizeof v[4], "%d", known_solos);
  snprintf (v[5], sizeof v[5], "%d", user_solos);
  snprintf (v[6], sizeof v[6], "%llu",
            (unsigned long long) (ct / CLOG2_FPTR_UNIT));
  snprintf (v[7], sizeof v[7], "%d", CLOG2_FPTR_UNIT);
  snprintf (v[8], sizeof v[8], "%llu",
            (unsigned long long) (ct % CLOG2_FPTR_UNIT));
#define STR_(n) #n
#define STR(n) STR_ (n)
  const char *tok[] = {
    CLOG2_VERSION,
    CLOG2_KEY_BIG_ENDIAN, CLOG2_TRUE,
    CLOG2_KEY_FINALIZED, CLOG2_TRUE,
    CLOG2_KEY_BLOCK_SIZE, v[0],
    CLOG2_KEY_NUM_BLOCKS, "128",
    CLOG2_KEY_WORLD_SIZE, v[1],
    CLOG2_KEY_THREADS, v[2],
    CLOG2_KEY_KNOWN_EVT, STR (CLOG2_KNOWN_EVENT_START),
    CLOG2_KEY_USER_EVT, STR (CLOG2_USER_EVENT_START),
    CLOG2_KEY_KNOWN_SOLO, "-10",
    CLOG2_KEY_USER_SOLO, STR (CLOG2_USER_SOLO_START),
    CLOG2_KEY_KNOWN_STATES, STR (CLOG2_KNOWN_STATE_COUNT),
    CLOG2_KEY_USER_STATES, v[3],
    CLOG2_KEY_KNOWN_SOLOS, v[4],
    CLOG2_KEY_USER_SOLOS, v[5],
    CLOG2_KEY_COMMTABLE, v[6], v[7], v[8]
  };
#undef STR
#undef STR_
  char pre[CLOG2_PREAMBLE_SIZE] = { 0 };
  size_t len = 0;
  for (size_t i = 0; i < sizeof tok / sizeof tok[0]; i++)
    {
      size_t l = strlen (tok[i]) + 1;          /* with its NUL */
      memcpy (pre + len, tok[i], l);           /* < 400 bytes in all */
      len += l;
    }
  if (fseek (x->f, 0, SEEK_SET) || fwrite (pre, 1, sizeof pre, x->f)
                                     != sizeof pre)
    return io_fail (x, "writing the preamble");
  return 0;
}

LOGFMT_API int
logfmt_export_clog2 (const logfmt_reader_t *r, const char *out_path,
                     logfmt_progress_cb cb, void *user,
                     logfmt_clog2_report_t *report, logfmt_error_t *err)
{
  if (!r || !out_path)
    return logfmt__err (err, LOGFMT_EINVAL, out_path, UINT64_MAX,
                        "logfmt_export_clog2: NULL argument");
  ex_t x = { 0 };
  x.r = r;
  x.path = out_path;
  x.err = err;
  const logfmt_info_t *info = logfmt_reader_info (r);
  x.world = (int32_t) (info->world_size ? info->world_size : 1);
  x.threads = 1;
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      if (sd->rank >= x.world)
        x.world = sd->rank + 1;
      if (sd->thread >= x.threads)
        x.threads = sd->thread + 1;
    }

  int rc = 0;
  x.blk = calloc (1, CLOG2_BLOCK_SIZE);
  x.f = fopen (out_path, "wb");
  if (!x.f)
    rc = io_fail (&x, "cannot create the file");
  else if (!x.blk)
    rc = logfmt__err (err, LOGFMT_ENOMEM, out_path, UINT64_MAX,
                      "out of memory");
  else if (fwrite (x.blk, 1, CLOG2_PREAMBLE_SIZE, x.f)
           != CLOG2_PREAMBLE_SIZE)         /* rewritten at the end */
    rc = io_fail (&x, "writing the preamble");
  if (rc == 0)
    rc = find_hosts (&x);
  if (rc == 0)
    rc = map_comms (&x);
  if (rc == 0)
    rc = write_comm_events (&x);
  if (rc == 0)
    rc = write_defs (&x);
  if (rc == 0)
    rc = write_events (&x, cb, user);
  if (rc == 0)
    rc = write_tail (&x);
  if (rc == 0)
    rc = write_preamble (&x);
  struct stat st;
  int regular = x.f && fstat (fileno (x.f), &st) == 0 && S_ISREG (st.st_mode);
  if (x.f && fclose (x.f) && rc == 0)
    rc = io_fail (&x, "closing the file");
  if (rc && regular)
    unlink (out_path);                  /* never a device or a pipe */
  if (rc == 0 && cb)
    cb (user, 1.0);

  if (report && report->size >= sizeof *report)
    {
      x.rep.size = report->size;
      *report = x.rep;
    }
  for (size_t i = 0; x.src && i < info->nstreams; i++)
    {
      logfmt_iter_free (x.src[i].it);
      free (x.src[i].buf);
    }
  free (x.src);
  free (x.heap);
  free (x.cm);
  free (x.pm);
  free (x.kinds);
  free (x.host);
  free (x.blk);
  return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The merge at MPE_Finish_log.  Every rank:
 *   1. runs the final clock sync and numbers its streams (threads);
 *   2. scans its events (spilled blocks and memory) for message ends and
 *      its earliest corrected time; the global minimum becomes t = 0;
 *   3. routes each send to its receiver (Alltoallv), where sends and
 *      receives are matched FIFO per (sender, comm, tag); residual
 *      "arrives before sent" cases are removed by shifting receivers;
 *   4. re-encodes its streams with corrected times and builds their
 *      summaries.  Rank 0 hands its own blocks straight to the logfmt
 *      writer; the others stage theirs in a local file and send it to rank
 *      0 in pieces of at most 4 MiB, so no rank holds the whole log.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpe-internal.h"

extern MPI_Comm mpe__comm MPE_HIDDEN;

enum { TAG_PIECE = 811 };
enum { ITEM_BLOCK = 1, ITEM_SUMMARY = 2, ITEM_MESSAGES = 3, ITEM_END = 4 };
#define PIECE_MAX ((size_t) 4 << 20)
#define BATCH 4096

typedef struct
{
  int32_t  src, dst;
  uint32_t comm;
  int32_t  tag;
  int64_t  t;          /* corrected absolute ns */
  uint64_t size;
  uint32_t stream;     /* global stream */
  uint32_t seq;
} mrec_t;

typedef struct
{
  uint64_t off;
  uint32_t len;
} blockref_t;

typedef struct
{
  blockref_t *v;
  size_t      n, cap;
} blocklist_t;

/* ------------------------------------------------------------------ */
/* Time correction                                                     */
/* ------------------------------------------------------------------ */

/* The one clock correction (spill/spillfmt.h), shared with `clogtool
 * recover` so a recovered log has the finished log's times. */
static mpe_spill_clock_t corr_clock;  /* its segment cache persists */

static inline __attribute__ ((always_inline)) int64_t
corrected (uint64_t l)
{
  corr_clock.mono0 = mpe__g.mono0;
  corr_clock.l = mpe__g.sync_l;
  corr_clock.off = mpe__g.sync_off;
  corr_clock.n = mpe__g.nsync;
  return mpe_spill_clock_correct (&corr_clock, l);
}

/* ------------------------------------------------------------------ */
/* Reading one thread's events                                         */
/* ------------------------------------------------------------------ */

typedef int (*batch_cb) (void *user, logfmt_event_t *ev, size_t n);

static int
scan_spill (blocklist_t **lists, int nthreads)
{
  *lists = calloc ((size_t) nthreads, sizeof **lists);
  if (!*lists)
    return -1;
  if (mpe__g.spill_fd < 0)
    return 0;
  uint64_t end = atomic_load (&mpe__g.spill_off);
  uint64_t off = MPE_SPILL_HEADER_SIZE;
  while (off + sizeof (mpe_spill_frame_t) <= end)
    {
      mpe_spill_frame_t h;
      if (pread (mpe__g.spill_fd, &h, sizeof h, (off_t) off)
          != (ssize_t) sizeof h || h.magic != MPE_SPILL_FRAME_MAGIC)
        break;
      if (h.type == MPE_SPILL_PACKED && h.thread < nthreads)
        {
          blocklist_t *l = &(*lists)[h.thread];
          if (l->n == l->cap)
            {
              size_t nc = l->cap ? 2 * l->cap : 64;
              blockref_t *nv = realloc (l->v, nc * sizeof *nv);
              if (!nv)
                return -1;
              l->v = nv;
              l->cap = nc;
            }
          l->v[l->n].off = off + sizeof h;
          l->v[l->n].len = h.len;
          l->n++;
        }
      off += sizeof h + mpe_spill_pad8 (h.len);
    }
  return 0;
}

static int scan_fast_marker (void *user, logfmt_event_t *ev, size_t n);
static int scan_memory (void *user, const mpe_rec_t *p, const mpe_rec_t *end);

/* Calls cb with batches of the thread's events, times in local ns. */
static int
for_each_event (mpe_tbuf_t *b, const blocklist_t *spilled, batch_cb cb,
                void *user, logfmt_event_t *scratch)
{
  void *buf = NULL;
  size_t bufcap = 0;
  for (size_t i = 0; spilled && i < spilled->n; i++)
    {
      const blockref_t *r = &spilled->v[i];
      if (r->len > bufcap)
        {
          void *nb = realloc (buf, r->len);
          if (!nb)
            {
              free (buf);
              return -1;
            }
          buf = nb;
          bufcap = r->len;
        }
      if (pread (mpe__g.spill_fd, buf, r->len, (off_t) r->off)
          != (ssize_t) r->len)
        continue;
      mpe_spill_unpack_t u;
      if (mpe_spill_unpack_init (&u, buf, r->len) != 0)
        continue;
      size_t n;
      while ((n = mpe_spill_unpack (&u, mpe__g.tick0, mpe__g.mult_fp,
                                    scratch, BATCH)) > 0)
        {
          int rc = cb (user, scratch, n);
          if (rc)
            {
              free (buf);
              return rc;
            }
        }
      if (u.left)
        fprintf (stderr, "mpe: rank %d: %u spilled events unreadable\n",
                 mpe__g.rank, u.left);
    }
  free (buf);
  const mpe_rec_t *p = b->seg, *end = b->pos;
  if (cb == scan_fast_marker)
    return scan_memory (user, p, end);
  while (p < end)
    {
      size_t n = mpe_spill_recs_decode (&p, end, mpe__g.tick0,
                                        mpe__g.mult_fp, scratch, BATCH);
      int rc = cb (user, scratch, n);
      if (rc)
        return rc;
    }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Pass 1: messages and the earliest time                              */
/* ------------------------------------------------------------------ */

typedef struct
{
  uint32_t stream;
  int64_t  tmin;
  mrec_t  *sends, *recvs;
  size_t   nsends, nrecvs, capsends, caprecvs;
  uint32_t seq;
  uint64_t events;
} scan_t;

static int
push_mrec (mrec_t **v, size_t *n, size_t *cap, const mrec_t *m)
{
  if (*n == *cap)
    {
      size_t nc = *cap ? 2 * *cap : 1024;
      mrec_t *nv = realloc (*v, nc * sizeof *nv);
      if (!nv)
        return -1;
      *v = nv;
      *cap = nc;
    }
  (*v)[(*n)++] = *m;
  return 0;
}

static int
scan_cb (void *user, logfmt_event_t *ev, size_t n)
{
  scan_t *s = user;
  s->events += n;
  for (size_t i = 0; i < n; i++)
    {
      if (ev[i].type != LOGFMT_REC_SEND && ev[i].type != LOGFMT_REC_RECV)
        {
          if (i == 0 || i == n - 1)
            {
              int64_t c = corrected (ev[i].time);
              if (c < s->tmin)
                s->tmin = c;
            }
          continue;
        }
      mrec_t m;
      m.comm = ev[i].comm;
      m.tag = ev[i].tag;
      m.t = corrected (ev[i].time);
      m.size = ev[i].size;
      m.stream = s->stream;
      m.seq = s->seq++;
      if (m.t < s->tmin)
        s->tmin = m.t;
      if (ev[i].type == LOGFMT_REC_SEND)
        {
          m.src = mpe__g.rank;
          m.dst = ev[i].partner;
          if (push_mrec (&s->sends, &s->nsends, &s->capsends, &m))
            return -1;
        }
      else
        {
          m.src = ev[i].partner;
          m.dst = mpe__g.rank;
          if (push_mrec (&s->recvs, &s->nrecvs, &s->caprecvs, &m))
            return -1;
        }
    }
  return 0;
}

/* Pass 1 over memory records reads only what it needs. */
static int
scan_fast_marker (void *user, logfmt_event_t *ev, size_t n)
{
  return scan_cb (user, ev, n);
}

static int
scan_memory (void *user, const mpe_rec_t *p, const mpe_rec_t *end)
{
  scan_t *s = user;
  logfmt_event_t one;
  const mpe_rec_t *first = p;
  while (p < end)
    {
      unsigned kind = p->aux & 0xffu;
      const mpe_rec_t *next = p + 1 + mpe_spill_rec_ext (p->aux);
      if (next > end)
        break;
      s->events++;
      if (kind == MPE_REC_SEND || kind == MPE_REC_RECV || p == first
          || next == end)
        {
          const mpe_rec_t *q = p;
          s->events--;
          mpe_spill_recs_decode (&q, next, mpe__g.tick0, mpe__g.mult_fp,
                                 &one, 1);
          if (scan_cb (s, &one, 1))
            return -1;
        }
      p = next;
    }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Matching                                                            */
/* ------------------------------------------------------------------ */

static int
mrec_cmp (const void *a, const void *b)
{
  const mrec_t *x = a, *y = b;
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
  CMP (src); CMP (comm); CMP (tag); CMP (t); CMP (stream); CMP (seq);
#undef CMP
  return 0;
}

static int
same_key (const mrec_t *x, const mrec_t *y)
{
  return x->src == y->src && x->comm == y->comm && x->tag == y->tag;
}

typedef struct
{
  logfmt_message_t m;
  int64_t ts, tr;     /* corrected absolute times (for the shift rounds) */
} match_t;

/* Pairs sends (routed here) with local receives, FIFO per key. */
static match_t *
match_messages (mrec_t *s, size_t ns, mrec_t *r, size_t nr, size_t *nout)
{
  if (ns > 1)  /* qsort must not see NULL, even with a count of 0 */
    qsort (s, ns, sizeof *s, mrec_cmp);
  if (nr > 1)
    qsort (r, nr, sizeof *r, mrec_cmp);
  match_t *out = malloc ((ns + nr + 1) * sizeof *out);
  size_t n = 0, i = 0, j = 0;
  if (!out)
    return NULL;
  while (i < ns || j < nr)
    {
      match_t *o = &out[n++];
      memset (o, 0, sizeof *o);
      int c = i >= ns ? 1 : j >= nr ? -1 : same_key (&s[i], &r[j]) ? 0
              : mrec_cmp (&s[i], &r[j]);
      if (c == 0 || c < 0)
        {
          o->m.send_stream = s[i].stream;
          o->m.send_rank = s[i].src;
          o->m.recv_rank = s[i].dst;
          o->m.tag = s[i].tag;
          o->m.comm = s[i].comm;
          o->m.size = s[i].size;
          o->ts = s[i].t;
          o->m.recv_stream = LOGFMT_NO_STREAM;
        }
      else
        o->m.send_stream = LOGFMT_NO_STREAM;
      if (c == 0 || c > 0)
        {
          o->m.recv_stream = r[j].stream;
          o->m.send_rank = r[j].src;
          o->m.recv_rank = r[j].dst;
          o->m.tag = r[j].tag;
          o->m.comm = r[j].comm;
          if (c > 0)
            o->m.size = r[j].size;
          o->tr = r[j].t;
        }
      if (c <= 0)
        i++;
      if (c >= 0)
        j++;
    }
  *nout = n;
  return out;
}

/* ------------------------------------------------------------------ */
/* Definitions exchange                                                */
/* ------------------------------------------------------------------ */

static char *
serialize_defs (int *len)
{
  mpe_def_t *d;
  size_t n, cap = 256, used = 0;
  mpe__defs_snapshot (&d, &n);
  char *s = malloc (cap);
  for (size_t i = 0; s && i < n; i++)
    {
      size_t need = strlen (d[i].name) + strlen (d[i].color)
                    + strlen (d[i].format) + 64;
      if (used + need > cap)
        {
          while (used + need > cap)
            cap *= 2;
          char *ns = realloc (s, cap);
          if (!ns)
            {
              free (s);
              s = NULL;
              break;
            }
          s = ns;
        }
      /* Fields separated by \x1f, definitions by \x1e. */
      used += (size_t) sprintf (s + used, "%d\x1f%d\x1f%d\x1f%s\x1f%s\x1f%s\x1e",
                                d[i].is_state, d[i].a, d[i].b, d[i].name,
                                d[i].color, d[i].format);
    }
  mpe__defs_free (d, n);
  *len = s ? (int) used : 0;
  return s;
}

typedef struct
{
  logfmt_state_def_t *states;
  size_t              nstates;
  logfmt_event_def_t *events;
  size_t              nevents;
  char               *text;
} alldefs_t;

static void
parse_defs (char *text, size_t len, alldefs_t *out)
{
  /* Count, then fill; a later definition of the same ids replaces an
   * earlier one (the text is ordered so rank 0's come last). */
  size_t cnt = 0;
  for (size_t i = 0; i < len; i++)
    cnt += text[i] == '\x1e';
  out->states = calloc (cnt + 1, sizeof *out->states);
  out->events = calloc (cnt + 1, sizeof *out->events);
  out->nstates = out->nevents = 0;
  if (!out->states || !out->events)
    return;
  char *p = text, *end = text + len;
  while (p < end)
    {
      char *rec_end = memchr (p, '\x1e', (size_t) (end - p));
      if (!rec_end)
        break;
      *rec_end = '\0';
      char *f[6];
      int nf = 0;
      char *q = p;
      while (nf < 6)
        {
          f[nf++] = q;
          char *sep = strchr (q, '\x1f');
          if (!sep)
            break;
          *sep = '\0';
          q = sep + 1;
        }
      p = rec_end + 1;
      if (nf != 6)
        continue;
      int is_state = atoi (f[0]), a = atoi (f[1]), b = atoi (f[2]);
      const char *fmt = *f[5] ? f[5] : NULL;
      if (is_state)
        {
          size_t k;
          for (k = 0; k < out->nstates; k++)
            if (out->states[k].start_id == a && out->states[k].end_id == b)
              break;
          if (k == out->nstates)
            out->nstates++;
          logfmt_state_def_t *s = &out->states[k];
          s->start_id = a;
          s->end_id = b;
          s->name = f[3];
          s->color = f[4];
          s->format = fmt;
          if (logfmt_color_lookup (f[4], &s->rgb) != 0 && !*f[4])
            s->rgb = 0x808080;
        }
      else
        {
          size_t k;
          for (k = 0; k < out->nevents; k++)
            if (out->events[k].id == a)
              break;
          if (k == out->nevents)
            out->nevents++;
          logfmt_event_def_t *e = &out->events[k];
          e->id = a;
          e->name = f[3];
          e->color = f[4];
          e->format = fmt;
          logfmt_color_lookup (f[4], &e->rgb);
        }
    }
}

static int
exchange_defs (alldefs_t *out)
{
  int len = 0;
  char *mine = serialize_defs (&len);
  int *lens = malloc ((size_t) mpe__g.size * sizeof (int));
  int *displs = malloc ((size_t) mpe__g.size * sizeof (int));
  if (!lens || !displs)
    return -1;
  PMPI_Allgather (&len, 1, MPI_INT, lens, 1, MPI_INT, mpe__comm);
  size_t total = 0;
  for (int r = 0; r < mpe__g.size; r++)
    {
      displs[r] = (int) total;
      total += (size_t) lens[r];
    }
  char *all = malloc (total + 1);
  PMPI_Allgatherv (mine ? mine : "", len, MPI_CHAR, all, lens, displs,
                   MPI_CHAR, mpe__comm);
  /* Reorder: ranks n-1 .. 0, so rank 0's definitions win. */
  char *ord = malloc (total + 1);
  size_t o = 0;
  for (int r = mpe__g.size - 1; r >= 0; r--)
    {
      memcpy (ord + o, all + displs[r], (size_t) lens[r]);
      o += (size_t) lens[r];
    }
  free (all);
  free (mine);
  free (lens);
  free (displs);
  out->text = ord;
  parse_defs (ord, total, out);
  return 0;
}

/* ------------------------------------------------------------------ */
/* Output staging                                                      */
/* ------------------------------------------------------------------ */

typedef struct
{
  logfmt_writer_t *w;        /* rank 0 */
  int              fd;       /* other ranks: staging file */
  uint64_t         fsize;
  int              err;
  logfmt_summary_builder_t *sb;
  int64_t          shift;    /* -G + delta */
  uint64_t         events;
  uint64_t         lost;
  logfmt_encoder_t *enc;
  logfmt_event_t  *out;
} emit_t;

static int
stage_item (emit_t *e, uint32_t kind, uint32_t stream, const void *p,
            uint64_t len)
{
  unsigned char hdr[16];
  memcpy (hdr, &kind, 4);
  memcpy (hdr + 4, &stream, 4);
  memcpy (hdr + 8, &len, 8);
  static const char zeros[8];
  uint64_t pad = mpe_spill_pad8 (len) - len;
  if (write (e->fd, hdr, 16) != 16
      || (len && write (e->fd, p, len) != (ssize_t) len)
      || (pad && write (e->fd, zeros, pad) != (ssize_t) pad))
    {
      e->err = errno ? -errno : -EIO;
      return e->err;
    }
  e->fsize += 16 + len + pad;
  return 0;
}

static int
block_cb (void *user, const void *block, size_t len,
          const logfmt_block_info_t *info)
{
  emit_t *e = user;
  if (e->w)
    {
      int rc = logfmt_writer_put_block (e->w, info->stream, block, len);
      if (rc)
        e->err = rc;
      return 0;
    }
  stage_item (e, ITEM_BLOCK, info->stream, block, len);
  return 0;
}

static int
emit_cb (void *user, logfmt_event_t *ev, size_t n)
{
  emit_t *e = user;
  /* Ranks sharing rank 0's clock have all-zero offsets: no interpolation. */
  int constant = 1;
  for (int k = 1; k < mpe__g.nsync; k++)
    constant &= mpe__g.sync_off[k] == mpe__g.sync_off[0];
  int64_t base = mpe__g.mono0 + (mpe__g.nsync ? mpe__g.sync_off[0] : 0)
                 + e->shift;
  for (size_t i = 0; i < n; i++)
    {
      int64_t t = constant ? (int64_t) ev[i].time + base
                           : corrected (ev[i].time) + e->shift;
      ev[i].time = t < 0 ? 0 : (uint64_t) t;
      if (MPE_UNLIKELY (ev[i].type == LOGFMT_REC_LOSS))
        e->lost += ev[i].size;
    }
  e->events += n;
  if (logfmt_encoder_add (e->enc, ev, n) != 0)
    e->err = -EIO;
  if (e->sb)
    logfmt_summary_builder_add (e->sb, ev, n);
  return 0;
}

/* Rank 0: consume one received piece. */
static int
consume_piece (logfmt_writer_t *w, const unsigned char *p, size_t len,
               int *ended)
{
  size_t o = 0;
  int rc = 0;
  while (o + 16 <= len)
    {
      uint32_t kind, stream;
      uint64_t n;
      memcpy (&kind, p + o, 4);
      memcpy (&stream, p + o + 4, 4);
      memcpy (&n, p + o + 8, 8);
      o += 16;
      if (n > len - o)
        return -EPROTO;
      int r = 0;
      if (w)
        switch (kind)
          {
          case ITEM_BLOCK:
            r = logfmt_writer_put_block (w, stream, p + o, n);
            break;
          case ITEM_SUMMARY:
            r = logfmt_writer_put_summary (w, stream, p + o, n);
            break;
          case ITEM_MESSAGES:
            r = logfmt_writer_put_messages (w, (const logfmt_message_t *) (p + o),
                                            n / sizeof (logfmt_message_t));
            break;
          default:
            break;
          }
      if (kind == ITEM_END)
        (*ended)++;
      if (r && !rc)
        rc = r;
      o += mpe_spill_pad8 (n);
    }
  return rc;
}

/* Other ranks: send the staging file in pieces cut at item boundaries. */
static int
send_staged (int fd, uint64_t size)
{
  unsigned char *buf = NULL;
  size_t cap = 0;
  uint64_t off = 0;
  int rc = 0;
  while (off < size)
    {
      /* Gather whole items up to PIECE_MAX (one bigger item goes alone). */
      uint64_t piece = 0;
      while (off + piece < size)
        {
          unsigned char hdr[16];
          if (pread (fd, hdr, 16, (off_t) (off + piece)) != 16)
            {
              rc = -EIO;
              break;
            }
          uint64_t n;
          memcpy (&n, hdr + 8, 8);
          uint64_t item = 16 + mpe_spill_pad8 (n);
          if (piece && piece + item > PIECE_MAX)
            break;
          piece += item;
          if (piece >= PIECE_MAX)
            break;
        }
      if (rc || piece == 0)
        break;
      if (piece > cap)
        {
          unsigned char *nb = realloc (buf, piece);
          if (!nb)
            {
              rc = -ENOMEM;
              break;
            }
          buf = nb;
          cap = piece;
        }
      if (pread (fd, buf, piece, (off_t) off) != (ssize_t) piece)
        {
          rc = -EIO;
          break;
        }
      PMPI_Send (buf, (int) piece, MPI_BYTE, 0, TAG_PIECE, mpe__comm);
      off += piece;
    }
  if (rc || off < size)
    {
      /* Tell rank 0 we are done anyway, so it does not wait forever. */
      unsigned char end[16] = { 0 };
      uint32_t k = ITEM_END;
      memcpy (end, &k, 4);
      PMPI_Send (end, 16, MPI_BYTE, 0, TAG_PIECE, mpe__comm);
    }
  free (buf);
  return rc;
}

/* ------------------------------------------------------------------ */
/* The merge                                                           */
/* ------------------------------------------------------------------ */

static mpe_tbuf_t **
threads_by_index (int *n)
{
  pthread_mutex_lock (&mpe__g.lock);
  int nt = atomic_load (&mpe__g.nthreads);
  mpe_tbuf_t **v = calloc ((size_t) (nt ? nt : 1), sizeof *v);
  if (v)
    for (mpe_tbuf_t *b = mpe__g.tbufs; b; b = b->next)
      if (b->thread < nt)
        v[b->thread] = b;
  pthread_mutex_unlock (&mpe__g.lock);
  *n = nt;
  return v;
}

static char *
serialize_comms (int *len)
{
  mpe_commdef_t *c;
  size_t n, used = 0;
  mpe__comms_snapshot (&c, &n);
  size_t cap = 16;
  for (size_t i = 0; i < n; i++)
    cap += 16 + 4 * (size_t) c[i].size + (c[i].name ? strlen (c[i].name) : 0)
           + 1;
  char *s = malloc (cap);
  for (size_t i = 0; s && i < n; i++)
    {
      memcpy (s + used, &c[i].id, 4);
      memcpy (s + used + 4, &c[i].kind, 4);
      memcpy (s + used + 8, &c[i].size, 4);
      used += 12;
      memcpy (s + used, c[i].ranks, 4 * (size_t) c[i].size);
      used += 4 * (size_t) c[i].size;
      strcpy (s + used, c[i].name ? c[i].name : "");
      used += strlen (s + used) + 1;
    }
  for (size_t i = 0; i < n; i++)
    {
      free (c[i].ranks);
      free (c[i].name);
    }
  free (c);
  *len = s ? (int) used : 0;
  return s;
}

static void
writer_add_comms (logfmt_writer_t *w, const char *p, size_t len)
{
  uint32_t *seen = NULL;
  size_t nseen = 0, o = 0;
  while (o + 12 <= len)
    {
      logfmt_comm_def_t d;
      memcpy (&d.id, p + o, 4);
      memcpy (&d.kind, p + o + 4, 4);
      memcpy (&d.size, p + o + 8, 4);
      o += 12;
      if ((uint64_t) d.size * 4 > len - o)
        break;
      int32_t *ranks = malloc (4 * (size_t) d.size + 4);
      if (ranks)
        memcpy (ranks, p + o, 4 * (size_t) d.size);
      o += 4 * (size_t) d.size;
      d.ranks = ranks;
      d.name = p + o;
      o += strnlen (p + o, len - o) + 1;
      if (!*d.name)
        d.name = NULL;
      int dup = 0;
      for (size_t i = 0; i < nseen; i++)
        dup |= seen[i] == d.id;
      if (!dup)
        {
          uint32_t *ns = realloc (seen, (nseen + 1) * sizeof *ns);
          if (ns)
            {
              seen = ns;
              seen[nseen++] = d.id;
            }
          logfmt_writer_add_comm (w, &d);
        }
      free (ranks);
    }
  free (seen);
}

static int debug_timing;

static void
phase (const char *what, double t0)
{
  if (debug_timing && mpe__g.rank == 0)
    fprintf (stderr, "mpe: %8.4f s  %s\n", PMPI_Wtime () - t0, what);
}

/* If another rank dies while this one waits for it here, the launcher
 * kills this one too, with SIGKILL, which no handler sees.  So a rank that
 * has to wait (more than a moment: the last one to arrive never does)
 * first saves what memory holds to its local file, as the crash path
 * would, where `clogtool recover` finds it; the merge reads memory as
 * usual and the file is removed at the end.  MPE_SAVE_ON_WAIT. */
static void
arrival_guard (int size)
{
  MPI_Request rq;
  int done = 0;
  if (size < 2 || PMPI_Ibarrier (mpe__comm, &rq) != MPI_SUCCESS)
    return;
  double t0 = PMPI_Wtime ();
  while (!done && PMPI_Wtime () - t0 < 0.002)
    PMPI_Test (&rq, &done, MPI_STATUS_IGNORE);
  if (!done && mpe__g.save_on_wait)   /* a local choice: no collective */
    mpe__save_memory ();
  PMPI_Wait (&rq, MPI_STATUS_IGNORE);
}

int
mpe__merge (const char *prefix)
{
  double t_start = PMPI_Wtime ();
  debug_timing = mpe__env_bool ("MPE_DEBUG_TIMING", 0);
  int rank = mpe__g.rank, size = mpe__g.size;

  pthread_mutex_lock (&mpe__g.lock);
  atomic_store (&mpe__mode, 0);
  pthread_mutex_unlock (&mpe__g.lock);
  /* Spills in flight finish first: the file then holds everything but
   * [seg, pos) of each thread. */
  mpe__spill_drain ();
  arrival_guard (size);
  mpe__sync_run ();

  /* Output name: rank 0's prefix (or MPE_LOGFILE_PREFIX) wins. */
  char name[4096];
  if (rank == 0)
    {
      const char *env = getenv ("MPE_LOGFILE_PREFIX");
      snprintf (name, sizeof name, "%s.clog", env && *env ? env : prefix);
    }
  PMPI_Bcast (name, sizeof name, MPI_CHAR, 0, mpe__comm);
  snprintf (mpe__g.merged_name, sizeof mpe__g.merged_name, "%s", name);

  /* Streams: one per thread, numbered rank by rank. */
  int nt = 0;
  mpe_tbuf_t **tb = threads_by_index (&nt);
  int *nts = malloc ((size_t) size * sizeof (int));
  PMPI_Allgather (&nt, 1, MPI_INT, nts, 1, MPI_INT, mpe__comm);
  uint32_t first_stream = 0, nstreams = 0;
  for (int r = 0; r < size; r++)
    {
      if (r < rank)
        first_stream += (uint32_t) nts[r];
      nstreams += (uint32_t) nts[r];
    }

  phase ("sync+streams", t_start);
  blocklist_t *spilled = NULL;
  scan_spill (&spilled, nt);
  logfmt_event_t *scratch = malloc (BATCH * sizeof *scratch);

  /* Pass 1. */
  scan_t sc;
  memset (&sc, 0, sizeof sc);
  sc.tmin = INT64_MAX;
  for (int t = 0; t < nt; t++)
    if (tb[t])
      {
        sc.stream = first_stream + (uint32_t) t;
        sc.seq = 0;
        for_each_event (tb[t], &spilled[t], scan_fast_marker, &sc, scratch);
      }
  phase ("pass 1", t_start);
  int64_t G = 0;
  PMPI_Allreduce (&sc.tmin, &G, 1, MPI_INT64_T, MPI_MIN, mpe__comm);
  if (G == INT64_MAX)
    G = corrected (0);

  /* Route sends to their receivers. */
  int *scount = calloc ((size_t) size, sizeof (int));
  int *rcount = calloc ((size_t) size, sizeof (int));
  int *sdisp = calloc ((size_t) size, sizeof (int));
  int *rdisp = calloc ((size_t) size, sizeof (int));
  mrec_t *bad = NULL;
  size_t nbad = 0, capbad = 0;
  if (sc.nsends > 1)
    qsort (sc.sends, sc.nsends, sizeof (mrec_t), mrec_cmp);
  /* Group by destination (stable within a destination by key order). */
  mrec_t *sorted = malloc ((sc.nsends + 1) * sizeof (mrec_t));
  for (size_t i = 0; i < sc.nsends; i++)
    {
      if (sc.sends[i].dst >= 0 && sc.sends[i].dst < size)
        scount[sc.sends[i].dst] += (int) sizeof (mrec_t);
      else
        push_mrec (&bad, &nbad, &capbad, &sc.sends[i]);
    }
  for (int r = 1; r < size; r++)
    sdisp[r] = sdisp[r - 1] + scount[r - 1];
  {
    int *fill = calloc ((size_t) size, sizeof (int));
    for (size_t i = 0; i < sc.nsends; i++)
      {
        int d = sc.sends[i].dst;
        if (d >= 0 && d < size)
          {
            memcpy ((char *) sorted + sdisp[d] + fill[d], &sc.sends[i],
                    sizeof (mrec_t));
            fill[d] += (int) sizeof (mrec_t);
          }
      }
    free (fill);
  }
  PMPI_Alltoall (scount, 1, MPI_INT, rcount, 1, MPI_INT, mpe__comm);
  size_t rtotal = 0;
  for (int r = 0; r < size; r++)
    {
      rdisp[r] = (int) rtotal;
      rtotal += (size_t) rcount[r];
    }
  mrec_t *in = malloc (rtotal + sizeof (mrec_t));
  PMPI_Alltoallv (sorted, scount, sdisp, MPI_BYTE, in, rcount, rdisp,
                  MPI_BYTE, mpe__comm);
  free (sorted);
  free (sc.sends);
  size_t nin = rtotal / sizeof (mrec_t);
  /* Sends to impossible ranks stay unmatched on the sender. */
  if (nbad)
    {
      mrec_t *ni = realloc (in, (nin + nbad) * sizeof (mrec_t));
      if (ni)
        {
          in = ni;
          memcpy (in + nin, bad, nbad * sizeof (mrec_t));
          nin += nbad;
        }
    }
  free (bad);
  phase ("routing", t_start);
  size_t nmatch = 0;
  match_t *mt = match_messages (in, nin, sc.recvs, sc.nrecvs, &nmatch);
  free (in);
  free (sc.recvs);

  /* Residual causality violations: shift receivers forward. */
  int64_t *delta = calloc ((size_t) size, sizeof (int64_t));
  int rounds = 0;
  for (; rounds < 16; rounds++)
    {
      int64_t need = 0;
      for (size_t i = 0; mt && i < nmatch; i++)
        if (mt[i].m.send_stream != LOGFMT_NO_STREAM
            && mt[i].m.recv_stream != LOGFMT_NO_STREAM
            && mt[i].m.send_rank >= 0 && mt[i].m.send_rank < size)
          {
            int64_t v = mt[i].ts + delta[mt[i].m.send_rank]
                        - (mt[i].tr + delta[rank]);
            if (v > need)
              need = v;
          }
      int64_t mine = delta[rank] + need;
      PMPI_Allgather (&mine, 1, MPI_INT64_T, delta, 1, MPI_INT64_T, mpe__comm);
      int changed = need > 0, any = 0;
      PMPI_Allreduce (&changed, &any, 1, MPI_INT, MPI_MAX, mpe__comm);
      if (!any)
        break;
    }
  if (rank == 0)
    {
      int shifted = 0;
      int64_t maxd = 0;
      for (int r = 0; r < size; r++)
        if (delta[r] > 0)
          {
            shifted++;
            if (delta[r] > maxd)
              maxd = delta[r];
          }
      if (shifted)
        fprintf (stderr, "mpe: note: shifted %d rank(s) by up to %lld ns so "
                 "that no message arrives before it is sent\n", shifted,
                 (long long) maxd);
    }
  phase ("matching+shift", t_start);
  /* Final message times. */
  for (size_t i = 0; mt && i < nmatch; i++)
    {
      logfmt_message_t *m = &mt[i].m;
      if (m->send_stream != LOGFMT_NO_STREAM)
        {
          int64_t d = m->send_rank >= 0 && m->send_rank < size
                      ? delta[m->send_rank] : 0;
          int64_t t = mt[i].ts - G + d;
          m->send_time = t < 0 ? 0 : (uint64_t) t;
        }
      if (m->recv_stream != LOGFMT_NO_STREAM)
        {
          int64_t t = mt[i].tr - G + delta[rank];
          m->recv_time = t < 0 ? 0 : (uint64_t) t;
        }
      /* A residual the rounds could not remove: clamp the arrow only. */
      if (m->send_stream != LOGFMT_NO_STREAM
          && m->recv_stream != LOGFMT_NO_STREAM
          && m->recv_time < m->send_time)
        m->recv_time = m->send_time;
    }
  /* Compact to plain logfmt_message_t. */
  logfmt_message_t *msgs = (logfmt_message_t *) mt;
  for (size_t i = 0; mt && i < nmatch; i++)
    memmove (&msgs[i], &mt[i].m, sizeof (logfmt_message_t));

  /* Definitions, hosts, comms. */
  alldefs_t defs;
  memset (&defs, 0, sizeof defs);
  exchange_defs (&defs);
  char *hosts = rank == 0 ? malloc ((size_t) size * 256) : NULL;
  char myhost[256];
  snprintf (myhost, sizeof myhost, "%s", mpe__g.host);
  PMPI_Gather (myhost, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, mpe__comm);
  int clen = 0;
  char *cser = serialize_comms (&clen);
  int *clens = rank == 0 ? malloc ((size_t) size * sizeof (int)) : NULL;
  int *cdisp = rank == 0 ? malloc ((size_t) size * sizeof (int)) : NULL;
  PMPI_Gather (&clen, 1, MPI_INT, clens, 1, MPI_INT, 0, mpe__comm);
  char *call = NULL;
  size_t ctotal = 0;
  if (rank == 0)
    {
      for (int r = 0; r < size; r++)
        {
          cdisp[r] = (int) ctotal;
          ctotal += (size_t) clens[r];
        }
      call = malloc (ctotal + 1);
    }
  PMPI_Gatherv (cser ? cser : "", clen, MPI_CHAR, call, clens, cdisp,
                MPI_CHAR, 0, mpe__comm);
  free (cser);

  phase ("definitions", t_start);
  /* Rank 0 opens the writer. */
  emit_t em;
  memset (&em, 0, sizeof em);
  em.fd = -1;
  int open_ok = 1;
  char stage_path[4200] = "";
  logfmt_error_t err;
  memset (&err, 0, sizeof err);
  if (rank == 0)
    {
      char creator[256], lib[MPI_MAX_LIBRARY_VERSION_STRING];
      int ll = 0;
      PMPI_Get_library_version (lib, &ll);
      lib[strcspn (lib, "\n")] = '\0';
      snprintf (creator, sizeof creator, "mpe %s (%.200s)", PACKAGE_VERSION, lib);
      logfmt_writer_opts_t wo;
      memset (&wo, 0, sizeof wo);
      wo.size = sizeof wo;
      wo.creator = creator;
      wo.world_size = (uint32_t) size;
      wo.origin_unix_ns = (mpe__g.real0 - mpe__g.mono0) + G;
      if (logfmt_writer_open (name, &wo, &em.w, &err) != 0)
        {
          fprintf (stderr, "mpe: cannot write %s: %s\n", name, err.message);
          open_ok = 0;
          em.w = NULL;
        }
      else
        {
          for (size_t i = 0; i < defs.nstates; i++)
            logfmt_writer_add_state (em.w, &defs.states[i]);
          for (size_t i = 0; i < defs.nevents; i++)
            logfmt_writer_add_event_def (em.w, &defs.events[i]);
          uint32_t s = 0;
          for (int r = 0; r < size; r++)
            for (int t = 0; t < nts[r]; t++, s++)
              {
                logfmt_stream_def_t sd = { r, t, hosts + 256 * r };
                uint32_t got = 0;
                logfmt_writer_add_stream (em.w, &sd, &got);
                if (got != s)
                  fprintf (stderr, "mpe: stream numbering mismatch "
                           "(%u != %u)\n", got, s);
              }
          writer_add_comms (em.w, call, ctotal);
          logfmt_const_def_t cd[3] = { { "MPI_PROC_NULL", MPI_PROC_NULL },
                                       { "MPI_ANY_SOURCE", MPI_ANY_SOURCE },
                                       { "MPI_ANY_TAG", MPI_ANY_TAG } };
          for (int i = 0; i < 3; i++)
            logfmt_writer_add_const (em.w, &cd[i]);
        }
    }
  else
    {
      snprintf (stage_path, sizeof stage_path, "%s.merge", mpe__g.spill_path);
      em.fd = open (stage_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (em.fd >= 0)
        unlink (stage_path);
      else
        em.err = -errno;
    }
  free (hosts);
  free (call);
  free (clens);
  free (cdisp);

  phase ("writer open", t_start);
  /* Pass 2: encode and summarise each stream with corrected times. */
  em.shift = -G + delta[rank];
  for (int t = 0; t < nt; t++)
    {
      if (!tb[t])
        continue;
      uint32_t stream = first_stream + (uint32_t) t;
      logfmt_encoder_opts_t eo = { sizeof eo, stream, 0, 0 };
      if (logfmt_encoder_new (&eo, block_cb, &em, &em.enc) != 0)
        {
          em.err = -ENOMEM;
          break;
        }
      em.sb = NULL;
      logfmt_summary_builder_new (defs.states, defs.nstates, &em.sb);
      for_each_event (tb[t], &spilled[t], emit_cb, &em, scratch);
      logfmt_encoder_flush (em.enc);
      logfmt_encoder_free (em.enc);
      em.enc = NULL;
      if (em.sb)
        {
          void *bytes = NULL;
          size_t len = 0;
          if (logfmt_summary_builder_finish (em.sb, stream, &bytes, &len) == 0)
            {
              if (em.w)
                logfmt_writer_put_summary (em.w, stream, bytes, len);
              else if (em.fd >= 0)
                stage_item (&em, ITEM_SUMMARY, stream, bytes, len);
              free (bytes);
            }
          logfmt_summary_builder_free (em.sb);
          em.sb = NULL;
        }
    }
  if (em.w && nmatch)
    logfmt_writer_put_messages (em.w, msgs, nmatch);
  else if (em.fd >= 0)
    {
      /* Messages in items of at most PIECE_MAX bytes. */
      size_t per = PIECE_MAX / sizeof (logfmt_message_t) - 1;
      for (size_t i = 0; i < nmatch; i += per)
        {
          size_t k = nmatch - i < per ? nmatch - i : per;
          stage_item (&em, ITEM_MESSAGES, 0, msgs + i,
                      k * sizeof (logfmt_message_t));
        }
      stage_item (&em, ITEM_END, 0, NULL, 0);
    }
  free (mt);
  free (scratch);
  for (int t = 0; t < nt; t++)
    free (spilled ? spilled[t].v : NULL);
  free (spilled);

  phase ("pass 2", t_start);
  /* Assemble on rank 0. */
  int rc = MPE_LOG_OK;
  if (rank == 0)
    {
      int ended = 0;
      unsigned char *buf = NULL;
      size_t cap = 0;
      while (ended < size - 1)
        {
          MPI_Status st;
          int cnt = 0;
          PMPI_Probe (MPI_ANY_SOURCE, TAG_PIECE, mpe__comm, &st);
          PMPI_Get_count (&st, MPI_BYTE, &cnt);
          if ((size_t) cnt > cap)
            {
              unsigned char *nb = realloc (buf, (size_t) cnt);
              if (!nb)
                abort ();
              buf = nb;
              cap = (size_t) cnt;
            }
          PMPI_Recv (buf, cnt, MPI_BYTE, st.MPI_SOURCE, TAG_PIECE, mpe__comm,
                     MPI_STATUS_IGNORE);
          int r = consume_piece (em.w, buf, (size_t) cnt, &ended);
          if (r && !em.err)
            em.err = r;
        }
      free (buf);
    }
  else
    {
      if (em.fd >= 0)
        send_staged (em.fd, em.fsize);
      else
        {
          unsigned char end[16] = { 0 };
          uint32_t k = ITEM_END;
          memcpy (end, &k, 4);
          PMPI_Send (end, 16, MPI_BYTE, 0, TAG_PIECE, mpe__comm);
        }
      if (em.fd >= 0)
        close (em.fd);
    }

  phase ("assembly", t_start);
  uint64_t counts[2] = { em.events, em.lost }, totals[2] = { 0, 0 };
  uint64_t lost_here = 0;
  for (int t = 0; t < nt; t++)
    if (tb[t])
      lost_here += tb[t]->lost;
  counts[1] = lost_here;
  PMPI_Reduce (counts, totals, 2, MPI_UINT64_T, MPI_SUM, 0, mpe__comm);
  if (lost_here)
    fprintf (stderr, "mpe: rank %d lost %llu events (the spill file could "
             "not be written); LOSS records mark where\n", rank,
             (unsigned long long) lost_here);

  if (rank == 0)
    {
      if (em.w)
        {
          if (em.err)
            fprintf (stderr, "mpe: error while writing %s: %s\n", name,
                     logfmt_strerror (em.err));
          if (logfmt_writer_finish (em.w, &err) != 0)
            {
              fprintf (stderr, "mpe: cannot finish %s: %s\n", name,
                       err.message);
              open_ok = 0;
            }
          em.w = NULL;
        }
      if (open_ok)
        {
          struct stat sb;
          double mb = stat (name, &sb) == 0 ? sb.st_size / 1048576.0 : 0;
          fprintf (stderr, "mpe: wrote %s (%.1f MB, %llu events, %d ranks) "
                   "in %.2f s\n", name, mb, (unsigned long long) totals[0],
                   size, PMPI_Wtime () - t_start);
          if (totals[1])
            fprintf (stderr, "mpe: %llu events were lost in all\n",
                     (unsigned long long) totals[1]);
        }
    }
  phase ("finish", t_start);
  PMPI_Bcast (&open_ok, 1, MPI_INT, 0, mpe__comm);
  if (!open_ok)
    rc = MPE_LOG_FILE_PROB;

  /* Kept local files are complete: what memory holds goes in as RAW
   * frames, so `clogtool recover` rebuilds this very log from them. */
  if (!mpe__g.delete_local)
    {
      mpe__save_memory ();
      mpe__spill_frame (MPE_SPILL_END, 0, NULL, 0);
    }
  mpe__spill_close (mpe__g.delete_local);
  mpe__tbuf_reset_all ();
  free (tb);
  free (nts);
  free (scount);
  free (rcount);
  free (sdisp);
  free (rdisp);
  free (delta);
  free (defs.states);
  free (defs.events);
  free (defs.text);
  return rc;
}

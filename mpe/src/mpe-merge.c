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
 *      writer; the others stage their chunks in a local file and write
 *      them into their own region of the output (MPI-IO, offsets from a
 *      scan of the sizes), and send rank 0 only the chunks' index
 *      entries, summaries and tables, in pieces of at most 4 MiB: no
 *      rank holds the whole log, and its bulk passes through no one rank.
 * Each step is a phase (the table `phases` at the end), a function on the
 * merge context; after each one the ranks agree on failure.  Rank 0 writes
 * NAME.clog.part and renames it when it is complete.  A failed merge
 * removes nothing local: every rank keeps its spill and ring files for
 * `clogtool recover`, and rank 0 prints the command.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "mpe-internal.h"
#include "mpe-counters.h"
#include "mpe-monitor.h"
#include "mpe-resources.h"
#include "mpe-sample.h"
#include "mpe-sched.h"

enum { TAG_PIECE = 811, TAG_DONE = 812, TAG_DEFS_HDR = 813, TAG_DEFS = 814,
       TAG_REGION = 815 };
/* The bytes of the log's header a rank compares with rank 0's, to know
 * it opened the same file (its directory may not be shared). */
#define HEAD_CHECK 64
/* What the other ranks send rank 0: a chunk's index entry (its offset in
 * the rank's region of the output and its first bytes), a summary, the
 * resources, the call-path tables. */
enum { ITEM_CHUNKREF = 1, ITEM_SUMMARY = 2, ITEM_RESOURCE = 5,
       ITEM_CALLPATHS = 9 };
#define PIECE_MAX ((size_t) 4 << 20)
#define PLACE_BUF ((size_t) 8 << 20)
#define BATCH 256   /* events a batch: 18 KB, in the L1 cache */

typedef mpe_spill_mend_t mrec_t;  /* a message end (spillfmt.h) */

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
spill_pread (void *ctx, uint64_t off, void *buf, size_t len)
{
  return pread (*(int *) ctx, buf, len, (off_t) off) == (ssize_t) len ? 0 : -1;
}

/* Where each thread's spilled blocks are.  The frames are read as
 * `clogtool recover` reads them (libspillfmt's scanner): a damaged
 * stretch, such as a frame whose spill failed, is skipped to the next
 * good frame. */
static int
scan_spill (blocklist_t **lists, int nthreads)
{
  *lists = calloc ((size_t) (nthreads ? nthreads : 1), sizeof **lists);
  if (!*lists)
    return LOGFMT_ENOMEM;
  if (mpe__g.spill_fd < 0)
    return 0;
  int fd = mpe__g.spill_fd, rc;
  mpe_spill_scan_t s;
  /* Not the copy of memory a wait at the finish saved (arrival_guard):
   * its PACKED frames (write-behind's) are read from memory. */
  uint64_t size = mpe__g.memory_saved_at ? mpe__g.memory_saved_at
                                         : atomic_load (&mpe__g.spill_off);
  if (mpe_spill_scan_init (&s, spill_pread, &fd, size) != 0)
    return LOGFMT_EIO;
  mpe_spill_frame_t h;
  uint64_t at;
  while ((rc = mpe_spill_scan_next (&s, &h, &at)) == 1)
    if (h.type == MPE_SPILL_PACKED && h.thread < nthreads)
      {
        blocklist_t *l = &(*lists)[h.thread];
        if (l->n == l->cap)
          {
            size_t nc = l->cap ? 2 * l->cap : 64;
            blockref_t *nv = realloc (l->v, nc * sizeof *nv);
            if (!nv)
              {
                rc = -1;
                break;
              }
            l->v = nv;
            l->cap = nc;
          }
        l->v[l->n].off = at;
        l->v[l->n].len = h.len;
        l->n++;
      }
  mpe_spill_scan_free (&s);
  return rc < 0 ? LOGFMT_ENOMEM : 0;
}

static int scan_fast_marker (void *user, logfmt_event_t *ev, size_t n);
static int scan_memory (void *user, const mpe_rec_t *p, const mpe_rec_t *end);
static int scan_frame (void *user, const void *payload, size_t len,
                       logfmt_event_t *scratch);

/* cb with batches of a PACKED frame's events. */
static int
frame_events (const void *payload, size_t len, batch_cb cb, void *user,
              logfmt_event_t *scratch)
{
  if (cb == scan_fast_marker)
    return scan_frame (user, payload, len, scratch);
  mpe_spill_unpack_t u;
  if (mpe_spill_unpack_init (&u, payload, len) != 0)
    return 0;
  size_t n;
  while ((n = mpe_spill_unpack (&u, mpe__g.tick0, mpe__g.mult_fp, scratch,
                                BATCH)) > 0)
    {
      int rc = cb (user, scratch, n);
      if (rc)
        return rc;
    }
  if (u.left)
    fprintf (stderr, "mpe: rank %d: %u spilled events unreadable\n",
             mpe__g.rank, u.left);
  return 0;
}

/* Calls cb with batches of the thread's events, times in local ns: the
 * spilled frames, packed write-behind's frames still in memory, then the
 * records not packed.  Returns 0, cb's first non-zero return, or
 * LOGFMT_ENOMEM/LOGFMT_EIO. */
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
              return LOGFMT_ENOMEM;
            }
          buf = nb;
          bufcap = r->len;
        }
      /* A frame cut short was a failed spill, whose events are already
       * counted lost; a read error is an error. */
      ssize_t got = pread (mpe__g.spill_fd, buf, r->len, (off_t) r->off);
      if (got < 0)
        {
          free (buf);
          return LOGFMT_EIO;
        }
      if (got != (ssize_t) r->len)
        continue;
      int rc = frame_events (buf, r->len, cb, user, scratch);
      if (rc)
        {
          free (buf);
          return rc;
        }
    }
  free (buf);
  const mpe_rec_t *p = b->seg, *end = b->pos;
  if (b->packed_wb)
    {
      /* Sealed here by this process: no damage to look for. */
      for (size_t o = 0; o + sizeof (mpe_spill_frame_t) <= b->pk.len;)
        {
          mpe_spill_frame_t h;
          memcpy (&h, b->pk.buf + o, sizeof h);
          int rc = frame_events (b->pk.buf + o + sizeof h, h.len, cb, user,
                                 scratch);
          if (rc)
            return rc;
          o += sizeof h + mpe_spill_pad8 (h.len);
        }
      p = b->packed;
    }
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
            return LOGFMT_ENOMEM;
        }
      else
        {
          m.src = ev[i].partner;
          m.dst = mpe__g.rank;
          if (push_mrec (&s->recvs, &s->nrecvs, &s->caprecvs, &m))
            return LOGFMT_ENOMEM;
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
          int rc = scan_cb (s, &one, 1);
          if (rc)
            return rc;
        }
      p = next;
    }
  return 0;
}

/* Pass 1 over a PACKED frame: its messages, and its first and last
 * records' times; the rest is read without being written out. */
static int
scan_frame (void *user, const void *payload, size_t len,
            logfmt_event_t *scratch)
{
  scan_t *s = user;
  mpe_spill_unpack_t u;
  if (mpe_spill_unpack_init (&u, payload, len) != 0)
    return 0;
  uint64_t first = u.t, events = s->events;
  uint32_t left = u.left;
  size_t n;
  while ((n = mpe_spill_unpack_msgs (&u, mpe__g.tick0, mpe__g.mult_fp,
                                     scratch, BATCH)) > 0)
    {
      int rc = scan_cb (s, scratch, n);
      if (rc)
        return rc;
    }
  s->events = events + (left - u.left);
  if (u.left == left)
    return 0;
  uint64_t ends[2] = { first, u.t };
  for (int i = 0; i < 2; i++)
    {
      int64_t c = corrected (mpe_spill_tick_ns (ends[i], mpe__g.tick0,
                                                mpe__g.mult_fp));
      if (c < s->tmin)
        s->tmin = c;
    }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Matching                                                            */
/* ------------------------------------------------------------------ */

/* One matching rule with `clogtool recover`: mpe_spill_match
 * (spill/spill-match.c). */
typedef mpe_spill_match_t match_t;

/* ------------------------------------------------------------------ */
/* Definitions                                                         */
/* ------------------------------------------------------------------ */

static char *
serialize_defs (int *len)
{
  mpe_def_t *d;
  size_t n, cap = 256, used = 0;
  *len = 0;
  if (mpe__defs_snapshot (&d, &n) != 0)
    return NULL;
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

static int
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
    return LOGFMT_ENOMEM;
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
  return 0;
}

/* Parsed definitions back to text (in their order), for the next merge
 * up the tree. */
static char *
serialize_alldefs (const alldefs_t *d, int *len)
{
  size_t cap = 64;
  for (size_t i = 0; i < d->nstates; i++)
    cap += strlen (d->states[i].name) + strlen (d->states[i].color)
           + (d->states[i].format ? strlen (d->states[i].format) : 0) + 48;
  for (size_t i = 0; i < d->nevents; i++)
    cap += strlen (d->events[i].name) + strlen (d->events[i].color)
           + (d->events[i].format ? strlen (d->events[i].format) : 0) + 48;
  char *s = malloc (cap);
  size_t used = 0;
  for (size_t i = 0; s && i < d->nstates; i++)
    used += (size_t) sprintf (s + used, "1\x1f%d\x1f%d\x1f%s\x1f%s\x1f%s\x1e",
                              d->states[i].start_id, d->states[i].end_id,
                              d->states[i].name, d->states[i].color,
                              d->states[i].format ? d->states[i].format : "");
  for (size_t i = 0; s && i < d->nevents; i++)
    used += (size_t) sprintf (s + used, "0\x1f%d\x1f" "0\x1f%s\x1f%s\x1f%s\x1e",
                              d->events[i].id, d->events[i].name,
                              d->events[i].color,
                              d->events[i].format ? d->events[i].format : "");
  *len = s ? (int) used : 0;
  return s;
}


/* Whether this rank is the lowest world rank among c's members (members
 * outside the world, -1, do not count). */
static int
lowest_member (const mpe_commdef_t *c)
{
  int32_t lo = -1;
  for (uint32_t k = 0; k < c->size; k++)
    if (c->ranks[k] >= 0 && (lo < 0 || c->ranks[k] < lo))
      lo = c->ranks[k];
  return lo == mpe__g.rank;
}

/* LOW's definitions (a lower rank's, which win) merged over HIGH's, as
 * one text; NULL when out of memory. */
static char *
merge_def_texts (const char *high, int hlen, const char *low, int llen,
                 int *len)
{
  char *both = malloc ((size_t) hlen + (size_t) llen + 1);
  alldefs_t d;
  memset (&d, 0, sizeof d);
  char *out = NULL;
  if (both)
    {
      memcpy (both, high, (size_t) hlen);
      memcpy (both + hlen, low, (size_t) llen);
      if (parse_defs (both, (size_t) hlen + (size_t) llen, &d) == 0)
        out = serialize_alldefs (&d, len);
    }
  free (d.states);
  free (d.events);
  free (both);
  return out;
}

static char *
serialize_comms (int *len)
{
  mpe_commdef_t *c;
  size_t n, used = 0;
  *len = 0;
  if (mpe__comms_snapshot (&c, &n) != 0)
    return NULL;
  size_t cap = 16;
  for (size_t i = 0; i < n; i++)
    cap += 16 + 4 * (size_t) c[i].size + (c[i].name ? strlen (c[i].name) : 0)
           + 1;
  char *s = malloc (cap);
  for (size_t i = 0; s && i < n; i++)
    {
      if (c[i].eager && !lowest_member (&c[i]))
        continue;   /* every member has it: one copy is enough */
      memcpy (s + used, &c[i].id, 4);
      memcpy (s + used + 4, &c[i].kind, 4);
      memcpy (s + used + 8, &c[i].size, 4);
      used += 12;
      memcpy (s + used, c[i].ranks, 4 * (size_t) c[i].size);
      used += 4 * (size_t) c[i].size;
      strcpy (s + used, c[i].name ? c[i].name : "");
      used += strlen (s + used) + 1;
    }
  mpe__comms_free (c, n);
  *len = s ? (int) used : 0;
  return s;
}

static int
writer_add_comms (logfmt_writer_t *w, const char *p, size_t len)
{
  uint32_t *seen = NULL;
  size_t nseen = 0, o = 0;
  int rc = 0;
  while (o + 12 <= len && rc == 0)
    {
      logfmt_comm_def_t d;
      memcpy (&d.id, p + o, 4);
      memcpy (&d.kind, p + o + 4, 4);
      memcpy (&d.size, p + o + 8, 4);
      o += 12;
      if ((uint64_t) d.size * 4 > len - o)
        break;
      int dup = 0;
      for (size_t i = 0; i < nseen; i++)
        dup |= seen[i] == d.id;
      int32_t *ranks = dup ? NULL : malloc (4 * (size_t) d.size + 4);
      if (ranks)
        memcpy (ranks, p + o, 4 * (size_t) d.size);
      o += 4 * (size_t) d.size;
      d.ranks = ranks;
      d.name = p + o;
      o += strnlen (p + o, len - o) + 1;
      if (!*d.name)
        d.name = NULL;
      if (dup)
        continue;
      uint32_t *ns = realloc (seen, (nseen + 1) * sizeof *ns);
      if (ns)
        seen = ns;
      if (!ranks || !ns)
        rc = LOGFMT_ENOMEM;
      else
        {
          seen[nseen++] = d.id;
          rc = logfmt_writer_add_comm (w, &d);
        }
      free (ranks);
    }
  free (seen);
  return rc;
}

/* ------------------------------------------------------------------ */
/* Output staging                                                      */
/* ------------------------------------------------------------------ */

typedef struct
{
  logfmt_writer_t *w;        /* rank 0 */
  int              fd;       /* other ranks: items for rank 0 */
  uint64_t         fsize;
  int              bulk_fd;  /* other ranks: their region of the output */
  uint64_t         bulk_size;
  int              err;      /* first error: LOGFMT_E* */
  logfmt_summary_builder_t *sb;
  int64_t          shift;    /* -G + delta */
  uint64_t         events;
  uint64_t         lost;
  logfmt_encoder_t *enc;
  logfmt_track_encoder_t *te;     /* the stream's extension tracks */
  logfmt_track_rec_t *trecs;      /* a batch's track records */
  const mpe_ctr_rec_t *ctr;       /* the thread's counter readings */
  size_t           nctr, ictr;    /* ... and the next one to emit */
} emit_t;

static void
emit_fail (emit_t *e, int rc)
{
  if (rc && !e->err)
    e->err = rc;
}

/* Appends to a staging file; a LOGFMT_E* code on failure. */
static int
append (int fd, const void *p, size_t len)
{
  errno = 0;
  if (len && write (fd, p, len) != (ssize_t) len)
    /* A short write without errno: the file system is full. */
    return errno == 0 || errno == ENOSPC || errno == EDQUOT ? LOGFMT_ENOSPC
           : errno == ENOMEM ? LOGFMT_ENOMEM : LOGFMT_EIO;
  return 0;
}

/* An item for rank 0, in two parts (a head and a body). */
static int
stage_item2 (emit_t *e, uint32_t kind, uint32_t stream, const void *a,
             uint64_t alen, const void *b, uint64_t blen)
{
  if (e->err)
    return e->err;
  uint64_t len = alen + blen;
  unsigned char hdr[16];
  memcpy (hdr, &kind, 4);
  memcpy (hdr + 4, &stream, 4);
  memcpy (hdr + 8, &len, 8);
  static const char zeros[8];
  uint64_t pad = mpe_spill_pad8 (len) - len;
  int rc = append (e->fd, hdr, 16);
  if (!rc)
    rc = append (e->fd, a, alen);
  if (!rc)
    rc = append (e->fd, b, blen);
  if (!rc)
    rc = append (e->fd, zeros, pad);
  emit_fail (e, rc);
  if (!rc)
    e->fsize += 16 + len + pad;
  return e->err;
}

static int
stage_item (emit_t *e, uint32_t kind, uint32_t stream, const void *p,
            uint64_t len)
{
  return stage_item2 (e, kind, stream, p, len, NULL, 0);
}

/* A chunk for this rank's region of the output: its bytes to the bulk
 * file, its index entry (offset in the region, first bytes) for rank 0. */
static int
stage_chunk (emit_t *e, const void *chunk, size_t len)
{
  if (e->err)
    return e->err;
  uint64_t at = e->bulk_size;
  emit_fail (e, append (e->bulk_fd, chunk, len));
  if (e->err)
    return e->err;
  e->bulk_size += len;
  return stage_item2 (e, ITEM_CHUNKREF, 0, &at, 8, chunk,
                      len < LOGFMT_CHUNK_HEAD_MAX ? len
                                                  : LOGFMT_CHUNK_HEAD_MAX);
}

/* One encoded block: to the writer on rank 0, to the rank's region
 * elsewhere. */
static int
block_cb (void *user, const void *block, size_t len,
          const logfmt_block_info_t *info)
{
  emit_t *e = user;
  if (e->w)
    emit_fail (e, logfmt_writer_put_block (e->w, info->stream, block, len));
  else
    stage_chunk (e, block, len);
  return 0;
}

/* A local time corrected as emit_cb corrects events (rank 0's clock,
 * shifted to the log's origin). */
static int64_t
correct_time (const emit_t *e, uint64_t local)
{
  return corrected (local) + e->shift;
}

/* One sealed TRACK chunk: like a block. */
static int
track_cb (void *user, const void *chunk, size_t len)
{
  emit_t *e = user;
  uint32_t stream;
  memcpy (&stream, (const unsigned char *) chunk + 16, 4);
  if (e->w)
    emit_fail (e, logfmt_writer_put_track (e->w, stream, chunk, len));
  else
    stage_chunk (e, chunk, len);
  return 0;
}

/* The thread's counter readings (mpe-counters.c) up to corrected time
 * `until`, as metric samples: they join the metric track in time order
 * with the samples of the thread's buffer. */
static void
put_counters (emit_t *e, uint64_t until)
{
  logfmt_track_rec_t rec[64];
  size_t k = 0;
  for (; e->ictr < e->nctr && !e->err; e->ictr++)
    {
      const mpe_ctr_rec_t *c = &e->ctr[e->ictr];
      int64_t x = correct_time (e, mpe__ticks_to_local (c->t));
      uint64_t when = x < 0 ? 0 : (uint64_t) x;
      if (when > until)
        break;
      memset (&rec[k], 0, sizeof rec[k]);
      rec[k].time = when;
      rec[k].col[LOGFMT_METRIC_COL_ID] = c->id;
      rec[k].col[LOGFMT_METRIC_COL_OBJECT] = -1;
      rec[k].col[LOGFMT_METRIC_COL_VALUE] = c->v;
      if (++k == 64)
        {
          emit_fail (e, logfmt_track_encoder_add (e->te, LOGFMT_TRACK_METRIC,
                                                  rec, k));
          k = 0;
        }
    }
  if (k)
    emit_fail (e, logfmt_track_encoder_add (e->te, LOGFMT_TRACK_METRIC,
                                            rec, k));
}

/* Records of the kinds that go to extension tracks (metric samples)
 * leave the batch for the stream's track encoder; returns what is left
 * for the block encoder. */
static size_t
route_tracks (emit_t *e, logfmt_event_t *ev, size_t n)
{
  size_t k = 0, nt = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (MPE_UNLIKELY (ev[i].type == MPE_SPILL_EV_METRIC))
        {
          if (MPE_UNLIKELY (e->ictr < e->nctr))
            {
              /* Counter readings taken before this sample go first. */
              if (nt)
                emit_fail (e, logfmt_track_encoder_add
                                (e->te, LOGFMT_TRACK_METRIC, e->trecs, nt));
              nt = 0;
              put_counters (e, ev[i].time);
            }
          mpe_spill_ev_metric_rec (&ev[i], &e->trecs[nt++]);
          continue;
        }
      if (k != i)
        ev[k] = ev[i];
      k++;
    }
  if (nt)
    emit_fail (e, logfmt_track_encoder_add (e->te, LOGFMT_TRACK_METRIC,
                                            e->trecs, nt));
  return k;
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
  int metric = 0;
  for (size_t i = 0; i < n; i++)
    {
      int64_t t = constant ? (int64_t) ev[i].time + base
                           : corrected (ev[i].time) + e->shift;
      ev[i].time = t < 0 ? 0 : (uint64_t) t;
      if (MPE_UNLIKELY (ev[i].type == LOGFMT_REC_LOSS))
        e->lost += ev[i].size;
      metric |= ev[i].type == MPE_SPILL_EV_METRIC;
    }
  if (metric)
    n = route_tracks (e, ev, n);
  e->events += n;
  emit_fail (e, logfmt_encoder_add (e->enc, ev, n));
  if (e->sb)
    emit_fail (e, logfmt_summary_builder_add (e->sb, ev, n));
  /* Stop reading once the output is lost. */
  return e->err;
}

static int
add_resource (void *user, const logfmt_resource_def_t *d)
{
  return logfmt_writer_add_resource (user, d);
}

/* Rank 0: consume one piece received from a rank whose region of the
 * output starts at `start`. */
static int
consume_piece (logfmt_writer_t *w, uint64_t start, const unsigned char *p,
               size_t len)
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
        return LOGFMT_ECORRUPT;
      int r = 0;
      uint64_t at;
      switch (kind)
        {
        case ITEM_CHUNKREF:
          memcpy (&at, p + o, 8);
          r = n < 8 ? LOGFMT_ECORRUPT
              : logfmt_writer_note_chunk (w, start + at, p + o + 8, n - 8);
          break;
        case ITEM_SUMMARY:
          r = logfmt_writer_put_summary (w, stream, p + o, n);
          break;
        case ITEM_CALLPATHS:
          r = logfmt_writer_put_callpaths (w, p + o, n);
          break;
        case ITEM_RESOURCE:
          r = mpe__res_parse (p + o, n, add_resource, w) ? LOGFMT_ECORRUPT
              : 0;
          break;
        default:
          break;
        }
      if (r && !rc)
        rc = r;
      o += mpe_spill_pad8 (n);
    }
  return rc;
}

static void
send_piece (const void *p, size_t len, int tag)
{
  MPI_Request rq;
  PMPI_Isend (p, (int) len, MPI_BYTE, 0, tag, mpe__comm, &rq);
  mpe__mpi_wait (&rq);
}

/* Other ranks: send the staging file in pieces cut at item boundaries,
 * then TAG_DONE (always, so rank 0 never waits for a rank that failed). */
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
              rc = LOGFMT_EIO;
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
      if (rc || piece == 0 || piece > INT_MAX)
        {
          rc = rc ? rc : LOGFMT_EIO;
          break;
        }
      if (piece > cap)
        {
          unsigned char *nb = realloc (buf, piece);
          if (!nb)
            {
              rc = LOGFMT_ENOMEM;
              break;
            }
          buf = nb;
          cap = piece;
        }
      if (pread (fd, buf, piece, (off_t) off) != (ssize_t) piece)
        {
          rc = LOGFMT_EIO;
          break;
        }
      send_piece (buf, piece, TAG_PIECE);
      off += piece;
    }
  free (buf);
  send_piece (NULL, 0, TAG_DONE);
  return rc;
}

/* A rank that cannot write its region itself (the file it sees is not
 * rank 0's): the region to rank 0 in pieces, each with its offset in the
 * region. */
static int
send_region (int fd, uint64_t size)
{
  unsigned char *buf = malloc (PIECE_MAX);
  if (!buf)
    return LOGFMT_ENOMEM;
  int rc = 0;
  for (uint64_t off = 0; off < size && !rc;)
    {
      size_t n = size - off < PIECE_MAX - 8 ? (size_t) (size - off)
                                            : PIECE_MAX - 8;
      memcpy (buf, &off, 8);
      if (pread (fd, buf + 8, n, (off_t) off) != (ssize_t) n
          || mpe__g.region_fail_hook)
        rc = LOGFMT_EIO;
      else
        send_piece (buf, n + 8, TAG_REGION);
      off += n;
    }
  free (buf);
  return rc;
}

/* Rank 0 could not hold a piece: receive it into a small buffer (the
 * receive completes with a truncation error and the message is gone). */
static void
discard_piece (const MPI_Status *st)
{
  unsigned char small[16];
  MPI_Errhandler old;
  PMPI_Comm_get_errhandler (mpe__comm, &old);
  PMPI_Comm_set_errhandler (mpe__comm, MPI_ERRORS_RETURN);
  PMPI_Recv (small, (int) sizeof small, MPI_BYTE, st->MPI_SOURCE,
             st->MPI_TAG, mpe__comm, MPI_STATUS_IGNORE);
  PMPI_Comm_set_errhandler (mpe__comm, old);
  PMPI_Errhandler_free (&old);
}

/* ------------------------------------------------------------------ */
/* The merge, phase by phase                                           */
/* ------------------------------------------------------------------ */

/* What the merge knows so far.  Each phase starts with the collectives
 * that need the previous phases' results, then does local work that may
 * fail.  No rank may be left waiting in a collective the others skipped,
 * so the ranks agree on failure: a rank that failed keeps taking part in
 * the collectives (with empty contributions, doing no local work) and its
 * failure word travels in them (`mine` in the exchange of counts, the
 * minimum time, the shifts, the definitions' tree and the totals), which
 * makes it
 * known to all (`all`) at the same phase everywhere.  Only where a phase
 * must allocate what the next collective receives into, or at the very
 * end, is there a separate agreement (`agree` in the phase table).  A
 * collective costs little with a core per rank but tens of ms when ranks
 * share cores, so they are few. */
typedef struct
{
  int              rank, size;
  size_t           phase;         /* the phase running (phases[]) */
  int              mine;          /* this rank's failure word (0: none) */
  int              all;           /* the worst one, known to every rank */
  int             *pair_out, *pair_in;  /* per rank: a count and a word */
  int64_t         *pair64;        /* per rank: a shift and a word */
  double           t_start;
  int              debug_timing;
  char             name[4096];    /* the finished log */
  char             part[4200];    /* rank 0 writes here, renamed at the end */
  /* Streams: one per thread, numbered rank by rank. */
  int              nt;
  mpe_tbuf_t     **tb;
  int             *nts;           /* threads of every rank */
  uint32_t         first_stream;
  blocklist_t     *spilled;       /* per thread: its blocks in the spill */
  logfmt_event_t  *scratch;
  /* Pass 1 and message routing. */
  scan_t           sc;
  int64_t          G;             /* global earliest time: t = 0 */
  mrec_t          *sorted;        /* sends grouped by destination */
  mrec_t          *bad;           /* sends to ranks that do not exist */
  size_t           nbad;
  int             *scount, *rcount, *sdisp, *rdisp;
  mrec_t          *in;            /* sends routed here */
  size_t           nin;
  /* Matching. */
  match_t         *mt;
  size_t           nmatch;
  logfmt_message_t *msgs;         /* mt compacted */
  int64_t         *delta;         /* per rank: forward shift */
  /* Definitions, hosts, communicators. */
  char            *defs_mine;
  int              defs_len;
  char            *defs_all;      /* merged (sizes, definitions) */
  alldefs_t        defs;
  char            *hosts;         /* rank 0: 256 bytes per rank */
  char            *comms_mine;
  int              comms_len;
  int             *comms_lens, *comms_displs;  /* rank 0 */
  char            *comms_all;     /* rank 0 */
  size_t           comms_total;
  /* Output. */
  emit_t           em;
  int              part_made;     /* rank 0 created part */
  int              published;     /* rank 0 renamed it to name */
  dev_t            part_dev;      /* rank 0: the part file it made */
  ino_t            part_ino;
  char             moved[4200];   /* rank 0: where a previous log of the
                                     name went ("" if none) */
  unsigned char   *piece;         /* rank 0: receive buffer */
  size_t           piece_cap;
  uint64_t        *starts;        /* rank 0: each rank's region */
  int              region_fd;     /* rank 0: writes the regions of ranks
                                     that cannot see the file */
  int              via_rank0_region;  /* this rank's region goes through
                                         rank 0 */
  uint64_t         in_place;      /* bytes the ranks wrote themselves */
  uint64_t         via_rank0;     /* rank 0: bytes received from them */
  uint64_t         totals[2];     /* events, lost: all ranks (rank 0) */
} merge_t;

/* An MPE error code for a LOGFMT_E* code. */
static int
mpe_code (int rc)
{
  if (rc == 0)
    return MPE_LOG_OK;
  return rc == LOGFMT_ENOMEM ? MPE_LOG_NO_MEMORY : MPE_LOG_FILE_PROB;
}

static int
fail_nomem (merge_t *m, const char *what)
{
  fprintf (stderr, "mpe: rank %d: merge: out of memory (%s)\n", m->rank,
           what);
  return MPE_LOG_NO_MEMORY;
}

/* A failure as one int the collectives carry: the MPE code above the
 * phase it happened in, so the maximum over the ranks has the worst code
 * (MPE_LOG_FILE_PROB > MPE_LOG_NO_MEMORY).  0: no failure. */
static int
fail_word (int code, size_t phase)
{
  return code ? code << 8 | (int) (phase + 1) : 0;
}

static int
fail_code (int word)
{
  return word >> 8;
}

static size_t
fail_phase (int word)
{
  return (size_t) (word & 0xff) - 1;
}

/* Failure words received from other ranks (N of them, STRIDE apart). */
static void
learn_failures (merge_t *m, const int *words, int n, int stride)
{
  for (int r = 0; r < n; r++)
    if (words[(size_t) r * (size_t) stride] > m->all)
      m->all = words[(size_t) r * (size_t) stride];
}

/* Does this rank skip the local work of a phase? */
static int
failed (const merge_t *m)
{
  return m->mine || m->all;
}

/* A separate agreement, where no collective could carry it. */
static void
merge_agree (merge_t *m)
{
  int all = fail_word (MPE_LOG_FILE_PROB, 0);
  MPI_Request rq;
  PMPI_Iallreduce (&m->mine, &all, 1, MPI_INT, MPI_MAX, mpe__comm, &rq);
  mpe__mpi_wait (&rq);
  learn_failures (m, &all, 1, 1);
}

/* Test hooks, read once per merge: MPE_TEST_MERGE_KILL=RANK:PHASE sends
 * SIGKILL to that rank as the phase starts; MPE_TEST_MERGE_FAIL=RANK:PHASE
 * makes that rank's phase fail as an allocation would. */
static int
test_hook_is (const char *var, const merge_t *m, const char *phase)
{
  const char *v = getenv (var);
  char *colon;
  if (!v || !(colon = strchr (v, ':')))
    return 0;
  return atoi (v) == m->rank && !strcmp (colon + 1, phase);
}

/* MPE_TEST_MERGE_WAIT=RANK:PHASE:PATH: that rank waits for PATH to
 * exist as the phase starts (a test runs another job meanwhile). */
static void
test_hook_wait (const merge_t *m, const char *phase)
{
  const char *v = getenv ("MPE_TEST_MERGE_WAIT");
  const char *c1 = v ? strchr (v, ':') : NULL;
  const char *c2 = c1 ? strchr (c1 + 1, ':') : NULL;
  if (!c2 || atoi (v) != m->rank || strlen (phase) != (size_t) (c2 - c1 - 1)
      || strncmp (c1 + 1, phase, (size_t) (c2 - c1 - 1)))
    return;
  fprintf (stderr, "mpe: rank %d: waiting for %s before the %s phase of "
           "%s (MPE_TEST_MERGE_WAIT)\n", m->rank, c2 + 1, phase, m->part);
  while (access (c2 + 1, F_OK) != 0)
    usleep (10000);
}

static void
merge_timing (const merge_t *m, const char *what)
{
  if (m->debug_timing && m->rank == 0)
    fprintf (stderr, "mpe: %8.4f s  %s\n", PMPI_Wtime () - m->t_start, what);
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
  mpe__mpi_wait (&rq);
}

/* Stops logging, lets every rank arrive, syncs clocks, names the output.
 * Nothing here can fail. */
static void
merge_begin (merge_t *m, const char *prefix)
{
  pthread_mutex_lock (&mpe__g.lock);
  mpe__mode_store (0);
  pthread_mutex_unlock (&mpe__g.lock);
  /* Spills in flight finish first: the file then holds everything but
   * [seg, pos) of each thread. */
  mpe__spill_drain ();
  arrival_guard (m->size);
  mpe__sync_run ();
  /* Output name: rank 0's prefix (or MPE_LOGFILE_PREFIX) wins. */
  if (m->rank == 0)
    {
      const char *env = getenv ("MPE_LOGFILE_PREFIX");
      snprintf (m->name, sizeof m->name, "%s.clog", env && *env ? env : prefix);
    }
  MPI_Request rq;
  PMPI_Ibcast (m->name, sizeof m->name, MPI_CHAR, 0, mpe__comm, &rq);
  mpe__mpi_wait (&rq);
  /* The unfinished file's name is the run's own: two jobs writing the
   * same log at once never write into one file. */
  snprintf (m->part, sizeof m->part, "%s.%s.part", m->name, mpe__g.runid);
  snprintf (mpe__g.merged_name, sizeof mpe__g.merged_name, "%s", m->name);
}

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

/* Phase "streams": this rank's threads and where their spilled blocks are. */
static int
phase_streams (merge_t *m)
{
  size_t size = (size_t) m->size;
  m->tb = threads_by_index (&m->nt);
  m->scratch = malloc (BATCH * sizeof *m->scratch);
  if (!m->tb || !m->scratch)
    return fail_nomem (m, "thread table");
  /* Every table with an entry per rank, now, so that a later failure
   * never stops a rank from taking part in a collective. */
  m->nts = calloc (size, sizeof (int));
  m->pair_out = calloc (2 * size, sizeof (int));
  m->pair_in = calloc (2 * size, sizeof (int));
  m->pair64 = calloc (2 * size, sizeof (int64_t));
  m->scount = calloc (size, sizeof (int));
  m->rcount = calloc (size, sizeof (int));
  m->sdisp = calloc (size, sizeof (int));
  m->rdisp = calloc (size, sizeof (int));
  m->delta = calloc (size, sizeof (int64_t));
  if (!m->nts || !m->pair_out || !m->pair_in || !m->pair64 || !m->scount
      || !m->rcount || !m->sdisp || !m->rdisp || !m->delta)
    return fail_nomem (m, "rank tables");
  if (m->rank == 0)
    {
      m->hosts = calloc (size, 256);
      m->comms_lens = calloc (size, sizeof (int));
      m->comms_displs = calloc (size, sizeof (int));
      if (!m->hosts || !m->comms_lens || !m->comms_displs)
        return fail_nomem (m, "host and communicator tables");
    }
  int rc = scan_spill (&m->spilled, m->nt);
  if (rc == LOGFMT_ENOMEM)
    return fail_nomem (m, "spill index");
  if (rc)
    {
      fprintf (stderr, "mpe: rank %d: cannot read %s\n", m->rank,
               mpe__g.spill_path);
      return MPE_LOG_FILE_PROB;
    }
  return MPE_LOG_OK;
}

/* Phase "scan": stream numbers; pass 1 (message ends, earliest time). */
static int
phase_scan (merge_t *m)
{
  MPI_Request rq;
  PMPI_Iallgather (&m->nt, 1, MPI_INT, m->nts, 1, MPI_INT, mpe__comm, &rq);
  mpe__mpi_wait (&rq);
  for (int r = 0; r < m->rank; r++)
    m->first_stream += (uint32_t) m->nts[r];
  m->sc.tmin = INT64_MAX;
  for (int t = 0; t < m->nt; t++)
    if (m->tb[t])
      {
        m->sc.stream = m->first_stream + (uint32_t) t;
        m->sc.seq = 0;
        int rc = for_each_event (m->tb[t], &m->spilled[t], scan_fast_marker,
                                 &m->sc, m->scratch);
        if (rc == LOGFMT_ENOMEM)
          return fail_nomem (m, "message table");
        if (rc)
          {
            fprintf (stderr, "mpe: rank %d: cannot read %s: %s\n", m->rank,
                     mpe__g.spill_path, logfmt_strerror (rc));
            return MPE_LOG_FILE_PROB;
          }
      }
  return MPE_LOG_OK;
}

/* Phase "route": t = 0 (the minimum carries the scan's failures); the
 * sends grouped by their receiver. */
static int
phase_route (merge_t *m)
{
  int size = m->size;
  int64_t mine[2] = { m->sc.tmin, -(int64_t) m->mine }, all[2];
  MPI_Request rq;
  PMPI_Iallreduce (mine, all, 2, MPI_INT64_T, MPI_MIN, mpe__comm, &rq);
  mpe__mpi_wait (&rq);
  int word = (int) -all[1];
  learn_failures (m, &word, 1, 1);
  if (failed (m))
    return MPE_LOG_OK;
  m->G = all[0];
  if (m->G == INT64_MAX)
    m->G = corrected (0);
  int *fill = calloc ((size_t) size, sizeof (int));
  m->sorted = malloc ((m->sc.nsends + 1) * sizeof (mrec_t));
  if (!fill || !m->sorted)
    {
      free (fill);
      return fail_nomem (m, "routing");
    }
  mrec_t *s = m->sc.sends;
  size_t ns = m->sc.nsends, capbad = 0;
  /* Stable within a destination by key order. */
  if (ns > 1)
    qsort (s, ns, sizeof (mrec_t), mpe_spill_mend_cmp);
  int rc = MPE_LOG_OK;
  for (size_t i = 0; i < ns; i++)
    if (s[i].dst >= 0 && s[i].dst < size)
      m->scount[s[i].dst] += (int) sizeof (mrec_t);
    else if (push_mrec (&m->bad, &m->nbad, &capbad, &s[i]))
      rc = fail_nomem (m, "routing");
  for (int r = 1; r < size; r++)
    m->sdisp[r] = m->sdisp[r - 1] + m->scount[r - 1];
  for (size_t i = 0; i < ns; i++)
    {
      int d = s[i].dst;
      if (d >= 0 && d < size)
        {
          memcpy ((char *) m->sorted + m->sdisp[d] + fill[d], &s[i],
                  sizeof (mrec_t));
          fill[d] += (int) sizeof (mrec_t);
        }
    }
  free (fill);
  free (m->sc.sends);
  m->sc.sends = NULL;
  return rc;
}

/* Phase "exchange": how much each rank receives (with the routing's
 * failures). */
static int
phase_exchange (merge_t *m)
{
  for (int r = 0; r < m->size; r++)
    {
      m->pair_out[2 * r] = m->scount[r];
      m->pair_out[2 * r + 1] = m->mine;
    }
  MPI_Request rq;
  PMPI_Ialltoall (m->pair_out, 2, MPI_INT, m->pair_in, 2, MPI_INT, mpe__comm,
                  &rq);
  mpe__mpi_wait (&rq);
  learn_failures (m, m->pair_in + 1, m->size, 2);
  if (failed (m))
    return MPE_LOG_OK;
  for (int r = 0; r < m->size; r++)
    m->rcount[r] = m->pair_in[2 * r];
  size_t rtotal = 0;
  for (int r = 0; r < m->size; r++)
    {
      m->rdisp[r] = (int) rtotal;
      rtotal += (size_t) m->rcount[r];
    }
  m->nin = rtotal / sizeof (mrec_t);
  m->in = malloc ((m->nin + m->nbad + 1) * sizeof (mrec_t));
  if (!m->in)
    return fail_nomem (m, "received sends");
  return MPE_LOG_OK;
}

/* Phase "match": the sends arrive; FIFO matching per key. */
static int
phase_match (merge_t *m)
{
  MPI_Request rq;
  PMPI_Ialltoallv (m->sorted, m->scount, m->sdisp, MPI_BYTE, m->in,
                   m->rcount, m->rdisp, MPI_BYTE, mpe__comm, &rq);
  mpe__mpi_wait (&rq);
  free (m->sorted);
  m->sorted = NULL;
  /* Sends to impossible ranks stay unmatched on the sender. */
  if (m->nbad)
    memcpy (m->in + m->nin, m->bad, m->nbad * sizeof (mrec_t));
  m->nin += m->nbad;
  m->mt = mpe_spill_match (m->in, m->nin, m->sc.recvs, m->sc.nrecvs,
                         &m->nmatch);
  free (m->in);
  m->in = NULL;
  free (m->sc.recvs);
  m->sc.recvs = NULL;
  if (!m->mt)
    return fail_nomem (m, "matched messages");
  return MPE_LOG_OK;
}

/* Residual causality violations: shift receivers forward (collective
 * rounds; nothing in them can fail; the first carries the matching's
 * failures, and then ends the rounds everywhere). */
static void
shift_receivers (merge_t *m)
{
  int rank = m->rank, size = m->size;
  int64_t *delta = m->delta;
  for (int rounds = 0; rounds < 16; rounds++)
    {
      int64_t need = 0;
      for (size_t i = 0; !m->mine && i < m->nmatch; i++)
        {
          const match_t *x = &m->mt[i];
          if (x->m.send_stream != LOGFMT_NO_STREAM
              && x->m.recv_stream != LOGFMT_NO_STREAM
              && x->m.send_rank >= 0 && x->m.send_rank < size)
            {
              int64_t v = x->ts + delta[x->m.send_rank] - (x->tr + delta[rank]);
              if (v > need)
                need = v;
            }
        }
      int64_t mine[2] = { delta[rank] + need, m->mine };
      MPI_Request rq;
      PMPI_Iallgather (mine, 2, MPI_INT64_T, m->pair64, 2, MPI_INT64_T,
                       mpe__comm, &rq);
      mpe__mpi_wait (&rq);
      /* Every rank sees every shift: a round that moved none is the
       * last. */
      int any = 0;
      for (int r = 0; r < size; r++)
        {
          any |= m->pair64[2 * r] != delta[r];
          delta[r] = m->pair64[2 * r];
          int word = (int) m->pair64[2 * r + 1];
          learn_failures (m, &word, 1, 1);
        }
      if (!any || m->all)
        break;
    }
  if (m->all)
    return;
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
      if (shifted && mpe__g.sync_err_ns > 0)
        fprintf (stderr, "mpe: note: shifted %d rank(s) by up to %lld ns so "
                 "that no message arrives before it is sent (the clock "
                 "sync's error bound: %lld ns)\n", shifted, (long long) maxd,
                 (long long) mpe__g.sync_err_ns);
      else if (shifted)
        fprintf (stderr, "mpe: note: shifted %d rank(s) by up to %lld ns so "
                 "that no message arrives before it is sent\n", shifted,
                 (long long) maxd);
    }
}

/* Final message times, then compaction to plain logfmt_message_t. */
static void
finish_messages (merge_t *m)
{
  for (size_t i = 0; i < m->nmatch; i++)
    {
      logfmt_message_t *x = &m->mt[i].m;
      if (x->send_stream != LOGFMT_NO_STREAM)
        {
          int64_t d = x->send_rank >= 0 && x->send_rank < m->size
                      ? m->delta[x->send_rank] : 0;
          int64_t t = m->mt[i].ts - m->G + d;
          x->send_time = t < 0 ? 0 : (uint64_t) t;
        }
      if (x->recv_stream != LOGFMT_NO_STREAM)
        {
          int64_t t = m->mt[i].tr - m->G + m->delta[m->rank];
          x->recv_time = t < 0 ? 0 : (uint64_t) t;
        }
      /* A residual the rounds could not remove: clamp the arrow only. */
      if (x->send_stream != LOGFMT_NO_STREAM
          && x->recv_stream != LOGFMT_NO_STREAM
          && x->recv_time < x->send_time)
        x->recv_time = x->send_time;
    }
  m->msgs = (logfmt_message_t *) m->mt;
  for (size_t i = 0; i < m->nmatch; i++)
    memmove (&m->msgs[i], &m->mt[i].m, sizeof (logfmt_message_t));
}

/* Phase "shift": shift rounds and message times; this rank's definitions
 * and communicators, serialised for the exchange. */
static int
phase_shift (merge_t *m)
{
  shift_receivers (m);
  if (failed (m))
    return MPE_LOG_OK;
  finish_messages (m);
  m->defs_mine = serialize_defs (&m->defs_len);
  m->comms_mine = serialize_comms (&m->comms_len);
  if (!m->defs_mine || !m->comms_mine)
    {
      m->defs_len = m->comms_len = 0;
      return fail_nomem (m, "definitions");
    }
  return MPE_LOG_OK;
}

static void
send_wait (const void *p, int n, int to, int tag)
{
  MPI_Request rq;
  PMPI_Isend (p, n, MPI_BYTE, to, tag, mpe__comm, &rq);
  mpe__mpi_wait (&rq);
}

/* Every rank's definitions merged up a binomial tree to rank 0 (log2 P
 * rounds, each merging two deduplicated sets), not gathered to everyone:
 * the traffic no longer grows with P times the definitions.  A rank
 * merges its children's subtrees (all of higher ranks) under its own,
 * so the lowest rank's definition of an id wins and each keeps the place
 * of its first appearance from the highest rank down, as the gather over
 * ranks P-1 .. 0 gave.  Failure words travel up with the texts; rank 0
 * gets the merged text (*out) and the worst word (*word). */
static void
defs_tree (merge_t *m, char **out, int *outlen, int *word)
{
  char *cur = NULL;
  int clen = 0, w = m->mine;
  if (!w)
    {
      cur = malloc ((size_t) m->defs_len + 1);
      if (cur)
        {
          memcpy (cur, m->defs_mine, (size_t) m->defs_len);
          clen = m->defs_len;
        }
      else
        w = fail_word (fail_nomem (m, "definitions"), m->phase);
    }
  for (int mask = 1; mask < m->size; mask <<= 1)
    {
      if (m->rank & mask)
        {
          int hdr[2] = { w, w ? 0 : clen };
          send_wait (hdr, (int) sizeof hdr, m->rank - mask, TAG_DEFS_HDR);
          if (hdr[1])
            send_wait (cur, hdr[1], m->rank - mask, TAG_DEFS);
          free (cur);
          return;
        }
      if (m->rank + mask >= m->size)
        continue;
      int hdr[2];
      MPI_Request rq;
      PMPI_Irecv (hdr, (int) sizeof hdr, MPI_BYTE, m->rank + mask,
                  TAG_DEFS_HDR, mpe__comm, &rq);
      mpe__mpi_wait (&rq);
      if (hdr[0] > w)
        w = hdr[0];
      if (!hdr[1])
        continue;
      char *child = malloc ((size_t) hdr[1]);
      MPI_Status st;
      st.MPI_SOURCE = m->rank + mask;
      st.MPI_TAG = TAG_DEFS;
      if (!child)
        {
          discard_piece (&st);
          if (!w)
            w = fail_word (fail_nomem (m, "definitions"), m->phase);
          continue;
        }
      PMPI_Irecv (child, hdr[1], MPI_BYTE, m->rank + mask, TAG_DEFS,
                  mpe__comm, &rq);
      mpe__mpi_wait (&rq);
      if (!w)
        {
          int nlen = 0;
          char *merged = merge_def_texts (child, hdr[1], cur, clen, &nlen);
          if (merged)
            {
              free (cur);
              cur = merged;
              clen = nlen;
            }
          else
            w = fail_word (fail_nomem (m, "definitions"), m->phase);
        }
      free (child);
    }
  *out = cur;
  *outlen = clen;
  *word = w;
}

/* Phase "sizes": the definitions merged up the tree; the merged length
 * and every failure so far (the shift phase's and the tree's) go out
 * from rank 0; the communicators' lengths to rank 0. */
static int
phase_sizes (merge_t *m)
{
  MPI_Request rq[2];
  PMPI_Igather (&m->comms_len, 1, MPI_INT, m->comms_lens, 1, MPI_INT, 0,
                mpe__comm, &rq[1]);
  int hdr[2] = { 0, 0 };
  defs_tree (m, &m->defs_all, &hdr[1], &hdr[0]);
  PMPI_Ibcast (hdr, 2, MPI_INT, 0, mpe__comm, &rq[0]);
  mpe__mpi_wait (&rq[0]);
  mpe__mpi_wait (&rq[1]);
  learn_failures (m, &hdr[0], 1, 1);
  if (failed (m))
    return MPE_LOG_OK;
  m->defs_len = hdr[1];
  if (m->rank != 0)
    m->defs_all = malloc ((size_t) m->defs_len + 1);
  if (!m->defs_all)
    return fail_nomem (m, "definitions");
  if (m->rank == 0)
    {
      for (int r = 0; r < m->size; r++)
        {
          m->comms_displs[r] = (int) m->comms_total;
          m->comms_total += (size_t) m->comms_lens[r];
        }
      m->comms_all = malloc (m->comms_total + 1);
      if (!m->comms_all)
        return fail_nomem (m, "communicators");
    }
  return MPE_LOG_OK;
}

/* Phase "definitions": the merged definitions from rank 0 to all (rank
 * 0's win), hosts and communicators to rank 0. */
static int
phase_definitions (merge_t *m)
{
  MPI_Request rq[3];
  char myhost[256];
  snprintf (myhost, sizeof myhost, "%s", mpe__g.host);
  PMPI_Ibcast (m->defs_all, m->defs_len, MPI_CHAR, 0, mpe__comm, &rq[0]);
  PMPI_Igather (myhost, 256, MPI_CHAR, m->hosts, 256, MPI_CHAR, 0, mpe__comm,
                &rq[1]);
  PMPI_Igatherv (m->comms_mine, m->comms_len, MPI_CHAR, m->comms_all,
                 m->comms_lens, m->comms_displs, MPI_CHAR, 0, mpe__comm,
                 &rq[2]);
  for (int i = 0; i < 3; i++)
    mpe__mpi_wait (&rq[i]);
  /* The parsed table points into the text: it keeps it. */
  m->defs.text = m->defs_all;
  m->defs_all = NULL;
  if (parse_defs (m->defs.text, (size_t) m->defs_len, &m->defs) != 0)
    return fail_nomem (m, "definitions");
  return MPE_LOG_OK;
}

/* The phase result for logfmt status RC, reporting a failure to write
 * the output. */
static int
write_status (const merge_t *m, int rc)
{
  const logfmt_error_t *e = logfmt_writer_error (m->em.w);
  if (rc && e && e->code == rc)
    fprintf (stderr, "mpe: cannot write %s\n", e->message);
  else if (rc)
    fprintf (stderr, "mpe: cannot write %s: %s\n", m->name,
             logfmt_strerror (rc));
  return mpe_code (rc);
}

/* Rank 0: the writer on the .part file, with every definition. */
static int
open_writer (merge_t *m)
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
  wo.world_size = (uint32_t) m->size;
  wo.origin_unix_ns = (mpe__g.real0 - mpe__g.mono0) + m->G;
  logfmt_error_t err;
  memset (&err, 0, sizeof err);
  if (logfmt_writer_open (m->part, &wo, &m->em.w, &err) != 0)
    {
      fprintf (stderr, "mpe: cannot write %s: %s\n", m->name, err.message);
      m->em.w = NULL;
      return mpe_code (err.code);
    }
  m->part_made = 1;
  struct stat sb;
  if (stat (m->part, &sb) == 0)
    {
      m->part_dev = sb.st_dev;
      m->part_ino = sb.st_ino;
    }
  logfmt_writer_t *w = m->em.w;
  int rc = 0;
  for (size_t i = 0; i < m->defs.nstates && !rc; i++)
    rc = logfmt_writer_add_state (w, &m->defs.states[i]);
  for (size_t i = 0; i < m->defs.nevents && !rc; i++)
    rc = logfmt_writer_add_event_def (w, &m->defs.events[i]);
  uint32_t s = 0;
  for (int r = 0; r < m->size && !rc; r++)
    for (int t = 0; t < m->nts[r] && !rc; t++, s++)
      {
        logfmt_stream_def_t sd = { r, t, m->hosts + 256 * r };
        uint32_t got = 0;
        rc = logfmt_writer_add_stream (w, &sd, &got);
        if (!rc && got != s)
          {
            fprintf (stderr, "mpe: stream numbering mismatch (%u != %u)\n",
                     got, s);
            rc = LOGFMT_EINVAL;
          }
      }
  if (!rc)
    rc = writer_add_comms (w, m->comms_all, m->comms_total);
  logfmt_const_def_t cd[3] = { { "MPI_PROC_NULL", MPI_PROC_NULL },
                               { "MPI_ANY_SOURCE", MPI_ANY_SOURCE },
                               { "MPI_ANY_TAG", MPI_ANY_TAG } };
  for (int i = 0; i < 3 && !rc; i++)
    rc = logfmt_writer_add_const (w, &cd[i]);
  /* Metric definitions: rank 0's (every rank defines them alike). */
  logfmt_metric_def_t *md;
  size_t nmd = mpe__metric_defs (&md);
  for (size_t i = 0; i < nmd && !rc; i++)
    rc = logfmt_writer_add_metric (w, &md[i]);
  free (md);
  /* The live monitor's accounting, when it ran (mpe-monitor.c). */
  logfmt_const_def_t mon[9];
  size_t nmon = mpe__mon_consts (mon, 9);
  for (size_t i = 0; i < nmon && !rc; i++)
    rc = logfmt_writer_add_const (w, &mon[i]);
  /* Pieces from the other ranks land here (a bigger one grows it). */
  m->piece_cap = PIECE_MAX + 16;
  m->piece = rc ? NULL : malloc (m->piece_cap);
  m->starts = rc ? NULL : calloc ((size_t) m->size, sizeof *m->starts);
  if (!rc && (!m->piece || !m->starts))
    rc = LOGFMT_ENOMEM;
  return write_status (m, rc);
}

/* A staging file in DIR (removed at once: it lives while open), if DIR
 * has room for `need` bytes; -1 otherwise, errno saying why. */
static int
stage_in (const char *dir, const char *suffix, uint64_t need)
{
  struct statvfs sv;
  if (statvfs (dir, &sv) == 0 && (uint64_t) sv.f_bavail * sv.f_frsize < need)
    {
      errno = ENOSPC;
      return -1;
    }
  /* Unnamed where the file system makes such files: a kill leaves
   * nothing behind. */
  int fd = open (dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
    return fd;
  char stage[4200];
  snprintf (stage, sizeof stage, "%s/" MPE_SPILL_NAME_PREFIX "%s-%06d-%ld.%s",
            dir, mpe__g.runid, mpe__g.rank, (long) getpid (), suffix);
  fd = open (stage, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0)
    unlink (stage);
  return fd;
}

/* Phase "open": a staging file where there is room: the spill directory,
 * unless it is full (a disk that filled during the run must not fail the
 * merge too), else the log's own directory, else memory.  need: a
 * quarter of the spill file (encoded chunks are smaller than packed
 * records) and a margin. */
static int
open_stage (const merge_t *m, const char *suffix)
{
  uint64_t need = atomic_load (&mpe__g.spill_off) / 4 + ((uint64_t) 4 << 20);
  int fd = stage_in (mpe__g.tmp_dir, suffix, need);
  if (fd >= 0)
    return fd;
  int why = errno;
  char dir[4096];
  snprintf (dir, sizeof dir, "%s", m->name);
  char *slash = strrchr (dir, '/');
  if (slash)
    *slash = '\0';
  fd = stage_in (slash ? (dir[0] ? dir : "/") : ".", suffix, need);
  if (fd < 0)
    fd = memfd_create ("mpe-stage", MFD_CLOEXEC);
  if (fd < 0)
    fprintf (stderr, "mpe: rank %d: no place to stage its part of the log "
             "(%s: %s): %s\n", m->rank, mpe__g.tmp_dir, strerror (why),
             strerror (errno));
  return fd;
}

/* Phase "open": rank 0 opens the output, the others two staging files:
 * their chunks (the region of the output they will write) and the items
 * for rank 0. */
static int
phase_open (merge_t *m)
{
  m->em.fd = -1;
  m->em.bulk_fd = -1;
  if (failed (m))
    return MPE_LOG_OK;
  if (m->rank == 0)
    return open_writer (m);
  m->em.fd = open_stage (m, "merge");
  m->em.bulk_fd = m->em.fd < 0 ? -1 : open_stage (m, "chunks");
  return m->em.bulk_fd < 0 ? MPE_LOG_FILE_PROB : MPE_LOG_OK;
}

/* One stream's summary: to the writer or the staging file. */
static void
put_summary (emit_t *em, uint32_t stream)
{
  void *bytes = NULL;
  size_t len = 0;
  int rc = logfmt_summary_builder_finish (em->sb, stream, &bytes, &len);
  if (rc)
    emit_fail (em, rc);
  else if (em->w)
    emit_fail (em, logfmt_writer_put_summary (em->w, stream, bytes, len));
  else
    stage_item (em, ITEM_SUMMARY, stream, bytes, len);
  free (bytes);
}

/* One sealed TRACK chunk: to the writer or the staging file. */
typedef struct
{
  emit_t  *em;
  uint32_t stream;
} sample_out_t;

static int
sample_track_cb (void *user, const void *chunk, size_t len)
{
  sample_out_t *o = user;
  if (o->em->w)
    emit_fail (o->em, logfmt_writer_put_track (o->em->w, o->stream, chunk,
                                               len));
  else
    stage_chunk (o->em, chunk, len);
  return o->em->err;
}

/* Thread t's samples (track kind 2) and call sites (kind 3), with the
 * events' clock correction, pointing into the rank's tree. */
static void
put_sample_tracks (merge_t *m, int t, uint32_t stream)
{
  emit_t *em = &m->em;
  mpe_sthread_t *s = mpe__sample_threads ();
  while (s && (s->thread != t || !s->rankmap))
    s = s->next;
  if (!s || (!s->nsamples && !s->nsites))
    return;
  sample_out_t out = { em, stream };
  logfmt_track_encoder_t *te = NULL;
  emit_fail (em, logfmt_track_encoder_new (stream, sample_track_cb, &out,
                                           &te));
  logfmt_track_rec_t rec[256];
  size_t k = 0;
  for (size_t i = 0; i < s->nsamples && !em->err; i++)
    {
      const mpe_sample_t *x = &s->samples[i];
      memset (&rec[k], 0, sizeof rec[k]);
      int64_t when = corrected (mpe__ticks_to_local (x->t)) + em->shift;
      rec[k].time = when < 0 ? 0 : (uint64_t) when;
      rec[k].col[LOGFMT_SAMPLE_COL_NODE] = mpe__cp_sample_node (s, i);
      rec[k].col[LOGFMT_SAMPLE_COL_CPU] = x->cpu == 0xffff ? -1 : x->cpu;
      rec[k].col[LOGFMT_SAMPLE_COL_FLAGS] = x->flags;
      rec[k].col[LOGFMT_SAMPLE_COL_STATE] = x->state;
      rec[k].col[LOGFMT_SAMPLE_COL_WEIGHT] = x->weight;
      if (++k == 256 || i + 1 == s->nsamples)
        {
          emit_fail (em, logfmt_track_encoder_add (te, LOGFMT_TRACK_CALLPATH,
                                                   rec, k));
          k = 0;
        }
    }
  k = 0;
  for (size_t i = 0; i < s->nsites && !em->err; i++)
    {
      const mpe_callsite_t *c = &s->sites[i];
      memset (&rec[k], 0, sizeof rec[k]);
      int64_t t0 = corrected (mpe__ticks_to_local (c->t0)) + em->shift;
      int64_t t1 = corrected (mpe__ticks_to_local (c->t1)) + em->shift;
      rec[k].time = t0 < 0 ? 0 : (uint64_t) t0;
      rec[k].col[LOGFMT_CALLSITE_COL_NODE] = mpe__cp_site_node (s, i);
      rec[k].col[LOGFMT_CALLSITE_COL_STATE] = c->state;
      rec[k].col[LOGFMT_CALLSITE_COL_DUR] = t1 > t0 ? t1 - t0 : 0;
      rec[k].col[LOGFMT_CALLSITE_COL_BYTES] = (int64_t) c->bytes;
      if (++k == 256 || i + 1 == s->nsites)
        {
          emit_fail (em, logfmt_track_encoder_add (te, LOGFMT_TRACK_CALLSITE,
                                                   rec, k));
          k = 0;
        }
    }
  if (!em->err)
    emit_fail (em, logfmt_track_encoder_flush (te));
  logfmt_track_encoder_free (te);
}

/* The scheduling, memory and network layers' tracks of thread t
 * (mpe-resources.c), with times corrected as the events', into the
 * stream's track encoder. */
static void
encode_tracks (emit_t *em, int t)
{
  static const uint32_t kinds[] = { LOGFMT_TRACK_SWITCH,
                                    LOGFMT_TRACK_MEMORY,
                                    LOGFMT_TRACK_NETWORK };
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && !em->err; k++)
    {
      logfmt_track_rec_t *r;
      size_t n;
      if (mpe__res_track (kinds[k], t, &r, &n) != 0)
        {
          emit_fail (em, LOGFMT_ENOMEM);
          break;
        }
      for (size_t i = 0; i < n; i++)
        {
          int64_t x = correct_time (em, r[i].time);
          r[i].time = x < 0 ? 0 : (uint64_t) x;
        }
      if (n)
        emit_fail (em, logfmt_track_encoder_add (em->te, kinds[k], r, n));
      free (r);
    }
}

/* This rank's resource definitions: added on rank 0, staged elsewhere. */
static void
emit_resources (merge_t *m)
{
  emit_t *em = &m->em;
  void *p = NULL;
  size_t len = 0;
  if (mpe__res_defs (m->first_stream, mpe__sched_host_leader (), &p, &len))
    emit_fail (em, LOGFMT_ENOMEM);
  else if (len && em->w)
    emit_fail (em, mpe__res_parse (p, len, add_resource, em->w)
                   ? LOGFMT_ENOMEM : 0);
  else if (len)
    stage_item (em, ITEM_RESOURCE, 0, p, len);
  free (p);
}

/* Pass 2 over one thread: encode and summarise with corrected times. */
static void
encode_stream (merge_t *m, int t)
{
  emit_t *em = &m->em;
  uint32_t stream = m->first_stream + (uint32_t) t;
  logfmt_encoder_opts_t eo = { sizeof eo, stream, 0, 0 };
  em->enc = NULL;
  em->sb = NULL;
  em->te = NULL;
  emit_fail (em, logfmt_encoder_new (&eo, block_cb, em, &em->enc));
  if (!em->err)
    emit_fail (em, logfmt_track_encoder_new (stream, track_cb, em, &em->te));
  if (!em->err && !em->trecs)
    {
      em->trecs = malloc (BATCH * sizeof *em->trecs);
      if (!em->trecs)
        emit_fail (em, LOGFMT_ENOMEM);
    }
  if (!em->err)
    emit_fail (em, logfmt_summary_builder_new (m->defs.states,
                                               m->defs.nstates, &em->sb));
  em->ctr = mpe__counters_records (t, &em->nctr);
  em->ictr = 0;
  if (!em->err)
    {
      int rc = for_each_event (m->tb[t], &m->spilled[t], emit_cb, em,
                               m->scratch);
      if (rc)
        emit_fail (em, rc);
    }
  if (!em->err)
    put_counters (em, UINT64_MAX);
  em->ctr = NULL;
  em->nctr = 0;
  if (!em->err)
    emit_fail (em, logfmt_encoder_flush (em->enc));
  if (!em->err)
    encode_tracks (em, t);
  if (!em->err)
    emit_fail (em, logfmt_track_encoder_flush (em->te));
  if (!em->err)
    put_summary (em, stream);
  if (!em->err)
    put_sample_tracks (m, t, stream);
  logfmt_track_encoder_free (em->te);
  em->te = NULL;
  logfmt_encoder_free (em->enc);
  logfmt_summary_builder_free (em->sb);
  em->enc = NULL;
  em->sb = NULL;
}

/* The rank's call-path tables (mpe-sample-merge.c), when it sampled or
 * recorded call sites. */
static void
put_callpaths (merge_t *m)
{
  emit_t *em = &m->em;
  void *blob;
  size_t len;
  int rc = mpe__cp_build (m->rank, &blob, &len);
  if (rc)
    emit_fail (em, rc);
  else if (blob && em->w)
    emit_fail (em, logfmt_writer_put_callpaths (em->w, blob, len));
  else if (blob)
    stage_item (em, ITEM_CALLPATHS, 0, blob, len);
  free (blob);
  /* The rate turns samples into time (clogtool cct). */
  if (em->w && mpe__sample_hz () > 0)
    {
      logfmt_const_def_t hz = { "MPE_SAMPLE_HZ", mpe__sample_hz () };
      emit_fail (em, logfmt_writer_add_const (em->w, &hz));
    }
}

static int
msgs_chunk_cb (void *user, const void *chunk, size_t len)
{
  return stage_chunk (user, chunk, len);
}

/* Phase "encode": every stream, then this rank's matched messages. */
static int
phase_encode (merge_t *m)
{
  emit_t *em = &m->em;
  if (failed (m))
    return MPE_LOG_OK;
  em->shift = -m->G + m->delta[m->rank];
  put_callpaths (m);
  for (int t = 0; t < m->nt && !em->err; t++)
    if (m->tb[t])
      encode_stream (m, t);
  if (!em->err)
    emit_resources (m);
  if (em->w && m->nmatch && !em->err)
    emit_fail (em, logfmt_writer_put_messages (em->w, m->msgs, m->nmatch));
  else if (!em->w && !em->err)
    emit_fail (em, logfmt_messages_encode (m->msgs, m->nmatch,
                                           msgs_chunk_cb, em));
  if (em->err)
    fprintf (stderr, "mpe: rank %d: cannot %s: %s\n", m->rank,
             em->w ? "write the log" : "stage its part of the log",
             logfmt_strerror (em->err));
  return mpe_code (em->err);
}

/* {events, lost, failure word}: summed, summed, maximum. */
static void
totals_op (void *in, void *inout, int *len, MPI_Datatype *type)
{
  (void) type;
  const uint64_t *a = in;
  uint64_t *b = inout;
  for (int i = 0; i < *len; i++, a += 3, b += 3)
    {
      b[0] += a[0];
      b[1] += a[1];
      if (a[2] > b[2])
        b[2] = a[2];
    }
}

/* {events, lost, failure word} (or any such triple) over all ranks:
 * summed, summed, maximum. */
static void
allreduce_totals (const uint64_t in[3], uint64_t out[3])
{
  MPI_Datatype triple;
  MPI_Op op;
  MPI_Request rq;
  PMPI_Type_contiguous (3, MPI_UINT64_T, &triple);
  PMPI_Type_commit (&triple);
  PMPI_Op_create (totals_op, 1, &op);
  PMPI_Iallreduce (in, out, 1, triple, op, mpe__comm, &rq);
  mpe__mpi_wait (&rq);
  PMPI_Op_free (&op);
  PMPI_Type_free (&triple);
}

/* Copies this rank's chunks into its region of the output, at `at`. */
static int
write_region (merge_t *m, MPI_File fh, uint64_t at)
{
  unsigned char *buf = malloc (PLACE_BUF);
  if (!buf)
    return fail_nomem (m, "the chunks' copy");
  int rc = MPE_LOG_OK;
  for (uint64_t off = 0; off < m->em.bulk_size && !rc;)
    {
      size_t n = m->em.bulk_size - off < PLACE_BUF
                 ? (size_t) (m->em.bulk_size - off) : PLACE_BUF;
      MPI_Status st;
      int got = 0, e = MPI_SUCCESS;
      if (pread (m->em.bulk_fd, buf, n, (off_t) off) != (ssize_t) n)
        {
          fprintf (stderr, "mpe: rank %d: cannot read back its chunks: %s\n",
                   m->rank, strerror (errno));
          rc = MPE_LOG_FILE_PROB;
        }
      else if ((e = PMPI_File_write_at (fh, (MPI_Offset) (at + off), buf,
                                        (int) n, MPI_BYTE, &st))
               != MPI_SUCCESS
               || PMPI_Get_count (&st, MPI_BYTE, &got) != MPI_SUCCESS
               || got != (int) n)
        {
          char msg[MPI_MAX_ERROR_STRING] = "short write";
          int ml = 0;
          if (e != MPI_SUCCESS)
            PMPI_Error_string (e, msg, &ml);
          fprintf (stderr, "mpe: rank %d: cannot write its part of %s: %s\n",
                   m->rank, m->name, msg);
          rc = MPE_LOG_FILE_PROB;
        }
      off += n;
    }
  free (buf);
  return rc;
}

/* Opens the output for this rank's region, if what it sees under that
 * name is rank 0's file (its first bytes are `head`): on a directory that
 * is not shared it is not, and the region goes through rank 0.  Each rank
 * opens the file alone: a collective open and close would make the ranks
 * that finished wait (spinning) for the slowest. */
static int
open_shared (const merge_t *m, const unsigned char *head, MPI_File *fh)
{
  unsigned char mine[HEAD_CHECK];
  MPI_Status st;
  int got = 0;
  const char *why = "its first bytes are not rank 0's";
  if (PMPI_File_open (MPI_COMM_SELF, m->part, MPI_MODE_RDWR, MPI_INFO_NULL,
                      fh) != MPI_SUCCESS)
    why = "it cannot open it";
  else if (PMPI_File_read_at (*fh, 0, mine, HEAD_CHECK, MPI_BYTE, &st)
           == MPI_SUCCESS
           && PMPI_Get_count (&st, MPI_BYTE, &got) == MPI_SUCCESS
           && got == HEAD_CHECK && memcmp (mine, head, HEAD_CHECK) == 0)
    return 1;
  else
    PMPI_File_close (fh);
  fprintf (stderr, "mpe: rank %d: %s is not the file rank 0 writes (%s: "
           "is the directory not shared?); its part goes through rank 0\n",
           m->rank, m->part, why);
  return 0;
}

/* The chunks go into the output in parallel: an exclusive scan of their
 * sizes gives each rank its region, rank 0 sets the whole span aside in
 * its writer, and each rank writes its region with MPI-IO (a parallel
 * file system takes them side by side).  Rank 0 learns each region's
 * start for the index entries that follow.  Returns this rank's result. */
static int
place_chunks (merge_t *m)
{
  uint64_t size = failed (m) ? 0 : m->em.bulk_size, rel = 0;
  uint64_t mine[3] = { size, 0, (uint64_t) m->mine }, all[3];
  MPI_Request rq[2];
  PMPI_Iexscan (&size, &rel, 1, MPI_UINT64_T, MPI_SUM, mpe__comm, &rq[0]);
  allreduce_totals (mine, all);
  mpe__mpi_wait (&rq[0]);
  int word = (int) all[2];
  learn_failures (m, &word, 1, 1);
  if (m->rank == 0)
    rel = 0;   /* an exclusive scan leaves rank 0's undefined */
  m->in_place = all[0];
  if (m->all || all[0] == 0)
    return MPE_LOG_OK;
  /* Rank 0 reserves the span; its start, rank 0's result and the file's
   * first bytes go out. */
  struct
  {
    int64_t base, word;
    unsigned char head[HEAD_CHECK];
  } hdr;
  memset (&hdr, 0, sizeof hdr);
  if (m->rank == 0)
    {
      uint64_t base = 0;
      int rc = logfmt_writer_reserve (m->em.w, all[0], &base);
      m->region_fd = rc ? -1 : open (m->part, O_RDWR | O_CLOEXEC);
      if (!rc && (m->region_fd < 0
                  || pread (m->region_fd, hdr.head, HEAD_CHECK, 0)
                     != HEAD_CHECK))
        rc = LOGFMT_EIO;
      hdr.base = (int64_t) base;
      hdr.word = fail_word (write_status (m, rc), m->phase);
    }
  PMPI_Ibcast (&hdr, (int) sizeof hdr, MPI_BYTE, 0, mpe__comm, &rq[0]);
  PMPI_Igather (&rel, 1, MPI_UINT64_T, m->starts, 1, MPI_UINT64_T, 0,
                mpe__comm, &rq[1]);
  mpe__mpi_wait (&rq[0]);
  mpe__mpi_wait (&rq[1]);
  word = (int) hdr.word;
  learn_failures (m, &word, 1, 1);
  if (m->all)
    return MPE_LOG_OK;
  if (m->rank == 0)
    for (int r = 0; r < m->size; r++)
      m->starts[r] += (uint64_t) hdr.base;
  if (m->em.bulk_size == 0)
    return MPE_LOG_OK;
  MPI_File fh;
  if (!open_shared (m, hdr.head, &fh))
    {
      m->via_rank0_region = 1;
      return MPE_LOG_OK;
    }
  int rc = write_region (m, fh, (uint64_t) hdr.base + rel);
  if (PMPI_File_close (&fh) != MPI_SUCCESS && !rc)
    {
      fprintf (stderr, "mpe: rank %d: cannot close %s\n", m->rank, m->part);
      rc = MPE_LOG_FILE_PROB;
    }
  return rc;
}

/* Rank 0: a piece of the region of a rank that could not write it, at
 * its offset in that region (the region starts at `start`). */
static int
write_for (int fd, uint64_t start, const unsigned char *p, size_t len)
{
  uint64_t off;
  if (len < 8)
    return LOGFMT_ECORRUPT;
  memcpy (&off, p, 8);
  for (size_t o = 8; o < len;)
    {
      ssize_t w = pwrite (fd, p + o, len - o, (off_t) (start + off + o - 8));
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return w == 0 || errno == ENOSPC || errno == EDQUOT ? LOGFMT_ENOSPC
               : LOGFMT_EIO;
      o += (size_t) w;
    }
  return 0;
}

/* Phase "assemble": the chunks go into the output (place_chunks), then
 * the other ranks' index entries, summaries and tables reach rank 0's
 * writer: a few per cent of the log's bytes.  A rank that failed sends
 * none, only the end; rank 0 having failed receives them all and drops
 * them. */
static int
phase_assemble (merge_t *m)
{
  int placed = place_chunks (m);
  int rc = failed (m) || placed ? LOGFMT_EINVAL : 0;
  if (m->rank != 0)
    {
      if (!rc && m->via_rank0_region)
        rc = send_region (m->em.bulk_fd, m->em.bulk_size);
      /* A region that did not reach rank 0 fails the log: its index
       * entries are not sent, and the failure is not forgotten. */
      int sent = send_staged (m->em.fd, rc ? 0 : m->em.fsize);
      if (!rc)
        rc = sent;
      if (m->em.fd >= 0)
        close (m->em.fd);
      if (m->em.bulk_fd >= 0)
        close (m->em.bulk_fd);
      m->em.fd = m->em.bulk_fd = -1;
      if (placed || failed (m))
        return placed;
      if (rc)
        fprintf (stderr, "mpe: rank %d: cannot send its part of the log: "
                 "%s\n", m->rank, logfmt_strerror (rc));
      return mpe_code (rc);
    }
  for (int done = 0; done < m->size - 1;)
    {
      MPI_Status st;
      int cnt = 0;
      int arrived = 0;
      for (int spins = 0; !arrived; spins++)
        {
          PMPI_Iprobe (MPI_ANY_SOURCE, MPI_ANY_TAG, mpe__comm, &arrived, &st);
          if (!arrived && spins >= 64)
            sched_yield ();
        }
      PMPI_Get_count (&st, MPI_BYTE, &cnt);
      if (st.MPI_TAG != TAG_PIECE && st.MPI_TAG != TAG_REGION)
        {
          done += st.MPI_TAG == TAG_DONE;
          PMPI_Recv (NULL, 0, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, mpe__comm,
                     MPI_STATUS_IGNORE);
          continue;
        }
      if ((size_t) cnt > m->piece_cap)
        {
          unsigned char *nb = realloc (m->piece, (size_t) cnt);
          if (!nb)
            {
              discard_piece (&st);
              if (!rc)
                rc = LOGFMT_ENOMEM;
              continue;
            }
          m->piece = nb;
          m->piece_cap = (size_t) cnt;
        }
      MPI_Request rq;
      PMPI_Irecv (m->piece, cnt, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG,
                  mpe__comm, &rq);
      mpe__mpi_wait (&rq);
      m->via_rank0 += (uint64_t) cnt;
      int r = rc ? 0
              : st.MPI_TAG == TAG_REGION
              ? write_for (m->region_fd, m->starts[st.MPI_SOURCE], m->piece,
                           (size_t) cnt)
              : consume_piece (m->em.w, m->starts[st.MPI_SOURCE], m->piece,
                               (size_t) cnt);
      if (r && !rc)
        rc = r;
    }
  if (m->debug_timing)
    fprintf (stderr, "mpe: assemble: %" PRIu64 " bytes written in place by "
             "the ranks, %" PRIu64 " bytes of index entries and tables "
             "through rank 0\n", m->in_place, m->via_rank0);
  if (failed (m))
    return MPE_LOG_OK;   /* already reported */
  if (placed)
    return placed;
  return write_status (m, rc);
}

/* Phase "finish": totals (with every failure so far); rank 0 completes
 * the .part file. */
static int
phase_finish (merge_t *m)
{
  uint64_t counts[3] = { m->em.events, 0, (uint64_t) m->mine }, all[3];
  for (int t = 0; t < m->nt; t++)
    if (m->tb[t])
      counts[1] += m->tb[t]->lost;
  allreduce_totals (counts, all);
  m->totals[0] = all[0];
  m->totals[1] = all[1];
  int word = (int) all[2];
  learn_failures (m, &word, 1, 1);
  if (counts[1] && !m->all)
    fprintf (stderr, "mpe: rank %d lost %llu events (the spill file could "
             "not be written); LOSS records mark where\n", m->rank,
             (unsigned long long) counts[1]);
  if (m->rank != 0 || failed (m))
    return MPE_LOG_OK;
  logfmt_error_t err;
  memset (&err, 0, sizeof err);
  int rc = logfmt_writer_finish (m->em.w, &err);
  m->em.w = NULL;
  if (rc)
    {
      fprintf (stderr, "mpe: cannot finish %s: %s\n", m->name, err.message);
      return mpe_code (rc);
    }
  return MPE_LOG_OK;
}

/* Rank 0: the finished part file is the one it wrote, whole: the file
 * under that name is still the one it created, and a reader finds the
 * streams and events the ranks counted.  Returns 0 or says why not. */
static int
verify_part (const merge_t *m)
{
  struct stat sb;
  if (stat (m->part, &sb) != 0 || sb.st_dev != m->part_dev
      || sb.st_ino != m->part_ino)
    {
      fprintf (stderr, "mpe: %s is no longer the file this job wrote "
               "(another job or process replaced or removed it)\n", m->part);
      return -1;
    }
  logfmt_reader_t *r;
  logfmt_error_t err;
  memset (&err, 0, sizeof err);
  if (logfmt_reader_open (m->part, LOGFMT_OPEN_NOVERIFY, &r, &err) != 0)
    {
      fprintf (stderr, "mpe: %s does not read back: %s\n", m->part,
               err.message);
      return -1;
    }
  const logfmt_info_t *in = logfmt_reader_info (r);
  uint32_t nstreams = 0;
  for (int q = 0; q < m->size; q++)
    nstreams += (uint32_t) m->nts[q];
  int bad = in->world_size != (uint32_t) m->size || in->nstreams != nstreams
            || in->nevents < m->totals[0];
  if (bad)
    fprintf (stderr, "mpe: %s does not read back as written (%u ranks, %u "
             "streams, %llu events; wrote %d, %u, %llu)\n", m->part,
             in->world_size, in->nstreams, (unsigned long long) in->nevents,
             m->size, nstreams, (unsigned long long) m->totals[0]);
  logfmt_reader_close (r);
  return bad ? -1 : 0;
}

/* rename (from, to) unless `to` exists: 0, or -1 with errno (EEXIST). */
static int
rename_noreplace (const char *from, const char *to)
{
#ifdef RENAME_NOREPLACE
  if (renameat2 (AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
    return 0;
  if (errno != EINVAL && errno != ENOSYS)
    return -1;
#endif
  /* A file system without it: a hard link is created only where no file
   * is, then the old name goes. */
  if (link (from, to) != 0)
    return -1;
  unlink (from);
  return 0;
}

/* NAME ("dir/prog.clog") as "dir/prog.K.clog". */
static void
numbered (char *out, size_t n, const char *name, unsigned k)
{
  size_t len = strlen (name);
  size_t stem = len > 5 && !strcmp (name + len - 5, ".clog") ? len - 5 : len;
  snprintf (out, n, "%.*s.%u.clog", (int) stem, name, k);
}

/* The number after the highest "prog.K.clog" next to NAME. */
static unsigned
next_number (const char *name)
{
  char dir[4096], base[4096];
  snprintf (dir, sizeof dir, "%s", name);
  char *slash = strrchr (dir, '/');
  const char *b = slash ? slash + 1 : name;
  if (slash)
    *slash = '\0';
  snprintf (base, sizeof base, "%s", b);
  size_t bl = strlen (base);
  if (bl > 5 && !strcmp (base + bl - 5, ".clog"))
    base[bl -= 5] = '\0';
  DIR *d = opendir (slash ? (dir[0] ? dir : "/") : ".");
  unsigned hi = 0;
  struct dirent *de;
  while (d && (de = readdir (d)))
    {
      char *end;
      if (strncmp (de->d_name, base, bl) || de->d_name[bl] != '.')
        continue;
      unsigned long k = strtoul (de->d_name + bl + 1, &end, 10);
      if (end != de->d_name + bl + 1 && !strcmp (end, ".clog") && k > hi
          && k < 1000000)
        hi = (unsigned) k;
    }
  if (d)
    closedir (d);
  return hi + 1;
}

/* Phase "publish": the finished file takes its name.  A log already
 * there is never replaced silently: it moves to the next free
 * NAME.K.clog first (MPE_LOG_REPLACE=yes replaces it, as MPE2 did). */
static int
phase_publish (merge_t *m)
{
  if (m->rank != 0 || failed (m))
    return MPE_LOG_OK;
  if (verify_part (m) != 0)
    return MPE_LOG_FILE_PROB;
  int replace = mpe__env_bool ("MPE_LOG_REPLACE", 0);
  m->moved[0] = '\0';
  for (int tries = 0;; tries++)
    {
      if (replace ? rename (m->part, m->name) == 0
                  : rename_noreplace (m->part, m->name) == 0)
        break;
      if (errno != EEXIST || tries >= 100)
        {
          fprintf (stderr, "mpe: cannot rename %s to %s: %s\n", m->part,
                   m->name, strerror (errno));
          return MPE_LOG_FILE_PROB;
        }
      /* Whatever is under the name now (another job's log, perhaps just
       * written) moves aside, never over another file. */
      char old[sizeof m->moved];
      numbered (old, sizeof old, m->name, next_number (m->name));
      if (rename_noreplace (m->name, old) == 0)
        snprintf (m->moved, sizeof m->moved, "%s", old);
      else if (errno != EEXIST && errno != ENOENT)
        {
          fprintf (stderr, "mpe: %s exists and cannot be moved to %s: %s\n",
                   m->name, old, strerror (errno));
          return MPE_LOG_FILE_PROB;
        }
    }
  m->part_made = 0;
  m->published = 1;
  return MPE_LOG_OK;
}

static void
merge_report (const merge_t *m)
{
  if (m->rank != 0)
    return;
  struct stat sb;
  double mb = stat (m->name, &sb) == 0 ? sb.st_size / 1048576.0 : 0;
  fprintf (stderr, "mpe: wrote %s (%.1f MB, %llu events, %d ranks) in %.2f s\n",
           m->name, mb, (unsigned long long) m->totals[0], m->size,
           PMPI_Wtime () - m->t_start);
  if (m->moved[0])
    fprintf (stderr, "mpe: the previous %s is now %s\n", m->name, m->moved);
  if (m->totals[1])
    fprintf (stderr, "mpe: %llu events were lost in all\n",
             (unsigned long long) m->totals[1]);
}

/* The phases in order; `agree`: a separate agreement follows (the next
 * collective receives into what this phase allocates, or nothing
 * follows), otherwise the next collective carries this phase's failures
 * (a phase that failed on some rank is known to all at the latest at the
 * next agreement). */
static const struct
{
  const char *name;
  int (*run) (merge_t *);
  int agree;
} phases[] = {
  { "streams", phase_streams, 1 },
  { "scan", phase_scan, 0 },            /* -> route's minimum */
  { "route", phase_route, 0 },          /* -> exchange's counts */
  { "exchange", phase_exchange, 1 },
  { "match", phase_match, 0 },          /* -> shift's first round */
  { "shift", phase_shift, 0 },          /* -> sizes */
  { "sizes", phase_sizes, 1 },
  { "definitions", phase_definitions, 0 },  /* -> finish's totals */
  { "open", phase_open, 0 },
  { "encode", phase_encode, 0 },
  { "assemble", phase_assemble, 0 },
  { "finish", phase_finish, 0 },        /* carries them all */
  { "publish", phase_publish, 1 },
};

/* The directory part of a ring prefix (in a static buffer). */
static const char *
ring_dir_of (const char *prefix)
{
  static char dir[4096];
  snprintf (dir, sizeof dir, "%s", prefix);
  char *slash = strrchr (dir, '/');
  if (slash)
    *slash = '\0';
  return dir;
}

/* NAME if its directory takes a new file, else the same base name in
 * the first writable one of: the current directory, $HOME, the spill
 * directory (returns 1). */
static int
writable_place (const char *name, char *out, size_t n)
{
  char dir[4096];
  snprintf (dir, sizeof dir, "%s", name);
  char *slash = strrchr (dir, '/');
  const char *base = slash ? name + (slash - dir) + 1 : name;
  if (slash)
    *slash = '\0';
  snprintf (out, n, "%s", name);
  if (access (slash ? (dir[0] ? dir : "/") : ".", W_OK | X_OK) == 0)
    return 0;
  char cwd[4096];
  const char *cand[3] = { getcwd (cwd, sizeof cwd), getenv ("HOME"),
                          mpe__g.tmp_dir };
  for (int i = 0; i < 3; i++)
    if (cand[i] && *cand[i] && access (cand[i], W_OK | X_OK) == 0)
      {
        snprintf (out, n, "%s/%s", cand[i], base);
        return 1;
      }
  return 0;
}

/* The log could not be completed: nothing local is removed, what memory
 * holds joins the spill file, and rank 0 says how to rebuild the log. */
static void
merge_failed (merge_t *m, int rc, const char *phase)
{
  if (m->rank == 0)
    {
      if (m->em.w)
        logfmt_writer_abort (m->em.w);   /* removes the .part file */
      else if (m->part_made)
        unlink (m->part);
      else if (m->published)   /* complete, but the ranks said otherwise */
        unlink (m->name);
      m->em.w = NULL;
    }
  if (m->em.fd >= 0)
    close (m->em.fd);
  if (m->em.bulk_fd >= 0)
    close (m->em.bulk_fd);
  m->em.fd = m->em.bulk_fd = -1;
  mpe__crash_flush ();
  mpe__spill_keep ();
  /* Where the files are: rank 0's directory, and whether any rank has
   * them elsewhere (another node, another MPE_TMPDIR). */
  char where[4096 + 256];
  snprintf (where, sizeof where, "%s", mpe__g.spill_path);
  char *slash = strrchr (where, '/');
  if (slash)
    *slash = '\0';
  size_t dl = strlen (where);
  snprintf (where + dl + 1, sizeof where - dl - 1, "%s", mpe__g.host);
  char root[sizeof where];
  memcpy (root, where, sizeof root);
  MPI_Request rq;
  PMPI_Ibcast (root, (int) sizeof root, MPI_CHAR, 0, mpe__comm, &rq);
  mpe__mpi_wait (&rq);
  int elsewhere = strcmp (root, where) != 0
                  || strcmp (root + strlen (root) + 1,
                             where + strlen (where) + 1) != 0;
  /* A rank whose spill directory took no file has nothing to rebuild
   * from: say so rather than promise a rebuild. */
  int mine2[2] = { elsewhere, access (mpe__g.spill_path, F_OK) != 0 };
  int sums[2] = { 0, 0 };
  PMPI_Ireduce (mine2, sums, 2, MPI_INT, MPI_SUM, 0, mpe__comm, &rq);
  mpe__mpi_wait (&rq);
  int nelsewhere = sums[0];
  /* What is kept, and how big: the spill files and the ring files. */
  uint64_t kept[2] = { 0, 0 }, kept_all[2] = { 0, 0 };
  struct stat sb;
  if (stat (mpe__g.spill_path, &sb) == 0)
    kept[0] = (uint64_t) sb.st_blocks * 512;
  for (int t = 0; mpe__g.ring_prefix[0] && t < m->nt; t++)
    {
      char ring[4200];
      snprintf (ring, sizeof ring, "%s.t%d" MPE_RING_SUFFIX,
                mpe__g.ring_prefix, t);
      if (stat (ring, &sb) == 0)
        kept[1] += (uint64_t) sb.st_blocks * 512;
    }
  PMPI_Ireduce (kept, kept_all, 2, MPI_UINT64_T, MPI_SUM, 0, mpe__comm, &rq);
  mpe__mpi_wait (&rq);
  if (m->rank != 0)
    return;
  if (sums[1] == m->size)
    {
      fprintf (stderr, "mpe: %s was not written (%s, in the merge's %s "
               "phase), and no rank could keep a local file (no spill "
               "directory took one): the log cannot be rebuilt\n", m->name,
               rc == MPE_LOG_NO_MEMORY ? "out of memory" : "file problem",
               phase);
      return;
    }
  char out[4200];
  int moved = writable_place (m->name, out, sizeof out);
  fprintf (stderr,
           "mpe: %s was not written (%s, in the merge's %s phase).\n",
           m->name, rc == MPE_LOG_NO_MEMORY ? "out of memory" : "file problem",
           phase);
  if (moved)
    fprintf (stderr, "mpe: its directory is not writable here; %s is\n",
             out);
  if (sums[1])
    fprintf (stderr, "mpe: %d rank(s) could not keep a local file (no spill "
             "directory took one): their events cannot be rebuilt\n",
             sums[1]);
  fprintf (stderr,
           "mpe: %s kept %s local files (run %s); to rebuild the "
           "%s log, run\n"
           "    clogtool recover --run %s -o %s %s\n",
           sums[1] ? "the other ranks" : "every rank",
           sums[1] ? "their" : "its", mpe__g.runid,
           sums[1] ? "rest of the" : "whole", mpe__g.runid, out, where);
  fprintf (stderr, "mpe: kept: %.1f MiB of spill files, %.1f MiB of ring "
           "files%s%s; `clogtool recover --clean` removes them once the log "
           "is rebuilt\n", kept_all[0] / 1048576.0, kept_all[1] / 1048576.0,
           mpe__g.ring_prefix[0] ? " in " : "",
           mpe__g.ring_prefix[0] ? ring_dir_of (mpe__g.ring_prefix) : "");
  if (nelsewhere)
    fprintf (stderr, "mpe: %d rank(s) kept theirs in another directory or "
             "on another host: copy their mpe-%s-*.spill files into %s "
             "first\n", nelsewhere, mpe__g.runid, where);
}

static void
merge_free (merge_t *m)
{
  mpe__cp_free ();
  free (m->tb);
  free (m->nts);
  for (int t = 0; m->spilled && t < m->nt; t++)
    free (m->spilled[t].v);
  free (m->spilled);
  free (m->scratch);
  free (m->em.trecs);
  free (m->sc.sends);
  free (m->sc.recvs);
  free (m->sorted);
  free (m->bad);
  free (m->scount);
  free (m->rcount);
  free (m->sdisp);
  free (m->rdisp);
  free (m->in);
  free (m->mt);
  free (m->delta);
  free (m->defs_mine);
  free (m->defs_all);
  free (m->defs.states);
  free (m->defs.events);
  free (m->defs.text);
  free (m->hosts);
  free (m->comms_mine);
  free (m->comms_lens);
  free (m->comms_displs);
  free (m->comms_all);
  free (m->piece);
  free (m->starts);
  if (m->region_fd >= 0)
    close (m->region_fd);
  free (m->pair_out);
  free (m->pair_in);
  free (m->pair64);
}

int
mpe__merge (const char *prefix)
{
  merge_t m;
  memset (&m, 0, sizeof m);
  m.em.fd = m.em.bulk_fd = m.region_fd = -1;
  m.t_start = PMPI_Wtime ();
  m.debug_timing = mpe__env_bool ("MPE_DEBUG_TIMING", 0);
  m.rank = mpe__g.rank;
  m.size = mpe__g.size;
  merge_begin (&m, prefix);
  merge_timing (&m, "sync");
  for (size_t i = 0; i < sizeof phases / sizeof phases[0] && !m.all; i++)
    {
      m.phase = i;
      if (test_hook_is ("MPE_TEST_MERGE_KILL", &m, phases[i].name))
        raise (SIGKILL);
      test_hook_wait (&m, phases[i].name);
      int rc = phases[i].run (&m);
      if (test_hook_is ("MPE_TEST_MERGE_FAIL", &m, phases[i].name))
        rc = fail_nomem (&m, "MPE_TEST_MERGE_FAIL");
      if (rc && !m.mine)
        m.mine = fail_word (rc, i);
      if (phases[i].agree)
        merge_agree (&m);
      merge_timing (&m, phases[i].name);
    }
  int rc = fail_code (m.all);
  if (rc)
    merge_failed (&m, rc, phases[fail_phase (m.all)].name);
  else
    {
      merge_report (&m);
      /* Kept local files are complete: what memory holds goes in as RAW
       * frames, so `clogtool recover` rebuilds this very log from them. */
      if (!mpe__g.delete_local)
        {
          mpe__save_memory ();
          mpe__spill_frame (MPE_SPILL_END, 0, NULL, 0);
          /* Say what stays, and how big (delete_local is rank 0's). */
          struct stat sb;
          uint64_t mine = stat (mpe__g.spill_path, &sb) == 0
                          ? (uint64_t) sb.st_blocks * 512 : 0, all = 0;
          MPI_Request rq;
          PMPI_Ireduce (&mine, &all, 1, MPI_UINT64_T, MPI_SUM, 0, mpe__comm,
                        &rq);
          mpe__mpi_wait (&rq);
          if (m.rank == 0)
            fprintf (stderr, "mpe: MPE_DELETE_LOCALFILE=no: kept %.1f MiB "
                     "of spill files (run %s) in %s\n", all / 1048576.0,
                     mpe__g.runid, mpe__g.tmp_dir);
        }
      mpe__spill_close (mpe__g.delete_local);
      mpe__tbuf_reset_all ();
    }
  merge_free (&m);
  return rc;
}

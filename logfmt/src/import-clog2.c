/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CLOG2 importer: reads a whole "CLOG-02.44" file (MPE2's merged log, or a
 * per-process local temp file) held in memory and feeds a logfmt writer.
 *
 * Two passes over the mapped file keep memory bounded by the number of
 * timelines and definitions, never by the number of events:
 *   1. definitions, communicator events (who is who), timelines, the
 *      earliest time;
 *   2. the events themselves, batched per stream into the writer, which
 *      matches messages.
 * The file is time-merged across ranks, so each stream's events already
 * come in (nearly) time order; tiny backward steps at TIMESHIFT boundaries
 * are clamped and counted.
 */
#include "logfmt-import-internal.h"
#include "clog2-layout-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_STREAMS    (1u << 22)    /* sanity bound on rank x thread */
#define MAX_BATCH      256

/* A small open-addressing map from three int32s to an int32. */
typedef struct
{
  int32_t a, b, c, val;
  int     used;
} slot_t;

typedef struct
{
  slot_t *slots;
  size_t  cap, n;
} map_t;

static uint64_t
map_hash (int32_t a, int32_t b, int32_t c)
{
  uint64_t h = (uint32_t) a * 0x9E3779B97F4A7C15ull;
  h ^= ((uint64_t) (uint32_t) b << 32 | (uint32_t) c) + 0xBF58476D1CE4E5B9ull
       + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 29);
}

static slot_t *
map_find (const map_t *m, int32_t a, int32_t b, int32_t c)
{
  if (m->cap == 0)
    return NULL;
  size_t i = map_hash (a, b, c) & (m->cap - 1);
  while (m->slots[i].used)
    {
      slot_t *s = &m->slots[i];
      if (s->a == a && s->b == b && s->c == c)
        return s;
      i = (i + 1) & (m->cap - 1);
    }
  return NULL;
}

/* Inserts (a,b,c) if absent; *created tells which.  NULL if out of memory. */
static slot_t *
map_put (map_t *m, int32_t a, int32_t b, int32_t c, int *created)
{
  if ((m->n + 1) * 2 > m->cap)
    {
      size_t ncap = m->cap ? m->cap * 2 : 64;
      slot_t *ns = calloc (ncap, sizeof *ns);
      if (!ns)
        return NULL;
      for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].used)
          {
            slot_t *s = &m->slots[i];
            size_t j = map_hash (s->a, s->b, s->c) & (ncap - 1);
            while (ns[j].used)
              j = (j + 1) & (ncap - 1);
            ns[j] = *s;
          }
      free (m->slots);
      m->slots = ns;
      m->cap = ncap;
    }
  size_t i = map_hash (a, b, c) & (m->cap - 1);
  while (m->slots[i].used)
    {
      slot_t *s = &m->slots[i];
      if (s->a == a && s->b == b && s->c == c)
        {
          *created = 0;
          return s;
        }
      i = (i + 1) & (m->cap - 1);
    }
  slot_t *s = &m->slots[i];
  s->a = a; s->b = b; s->c = c; s->val = -1; s->used = 1;
  m->n++;
  *created = 1;
  return s;
}

typedef struct
{
  int32_t start, end;
  char    name[33], color[25], format[41];
} sdef_t;

typedef struct
{
  int32_t id;
  char    name[33], color[25], format[41];
} edef_t;

typedef struct
{
  char    name[33];
  int64_t value;
} cdef_t;

typedef struct
{
  int32_t         wrank, thread;
  uint32_t        wstream;       /* writer's stream index */
  uint64_t        last;          /* last time written, ns */
  size_t          nbuf;
  logfmt_event_t *buf;
} stream_t;

typedef struct
{
  const char *name;        /* "MPI_COMM_WORLD", ... or NULL */
  int32_t     kind;        /* table kind */
  char        host[21];    /* from a SELF_CREATE UUID */
} comm_t;

typedef struct
{
  double   time;
  int32_t  icomm, rank, thread, type;
  const uint8_t *body;
  uint64_t off;
} rec_t;

typedef struct clog2 clog2_t;
typedef int (*rec_fn) (clog2_t *c, const rec_t *r);

struct clog2
{
  const uint8_t *data;
  size_t         len;
  const char    *name;
  logfmt_error_t *err;
  logfmt_writer_t *w;
  logfmt_progress_cb progress;
  void          *user;

  int            be, finalized;
  uint32_t       block_size;
  uint64_t       nblocks, commtable_off;
  int32_t        world_size, max_threads;
  int32_t        known_event_start, user_event_start, user_solo_start;
  double         prog_lo, prog_hi;

  uint32_t       ncomms;
  comm_t        *comms;
  int32_t        world_comm;    /* table index of MPI_COMM_WORLD, or -1 */

  map_t          timelines;     /* (icomm, rank, thread) -> timeline index */
  map_t          ranks;         /* (icomm, rank, 0) -> world rank */
  map_t          ids;           /* (event id, 0, 0) -> seen */
  map_t          inters;        /* (group id, group id, 0) -> pair index */
  int32_t       *inter_key;     /* 2 group ids per intercomm pair */
  size_t         ninter, capinter;
  int32_t       *tl_key;        /* 3 ints per timeline */
  int32_t       *tl_stream;     /* timeline -> stream */
  size_t         ntl, captl;
  stream_t      *streams;
  size_t         nstreams;

  sdef_t        *sdefs;
  size_t         nsdefs, capsdefs;
  edef_t        *edefs;
  size_t         nedefs, capedefs;
  cdef_t        *cdefs;
  size_t         ncdefs, capcdefs;

  double         tmin;
  int            have_tmin;
  double         shift;          /* local files: offset to add */
  size_t         batch;         /* events buffered per stream */
  uint64_t       nevents, clamped, unmapped;
  int32_t        last_key[3], last_tl;
};

static int
fail (clog2_t *c, int code, uint64_t off, const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));

static int
fail (clog2_t *c, int code, uint64_t off, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  logfmt__verr (c->err, code, c->name, off, fmt, ap);
  va_end (ap);
  return code;
}

static int
nomem (clog2_t *c)
{
  return fail (c, LOGFMT_ENOMEM, UINT64_MAX, "out of memory");
}

/* A writer failure keeps the writer's code; the message says where. */
static int
wfail (clog2_t *c, int rc, const char *what)
{
  return fail (c, rc, UINT64_MAX, "writing %s: %s", what,
               logfmt_strerror (rc));
}

static int32_t
ld32 (const clog2_t *c, const uint8_t *p)
{
  uint32_t v;
  if (c->be)
    v = (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16
        | (uint32_t) p[2] << 8 | p[3];
  else
    v = (uint32_t) p[3] << 24 | (uint32_t) p[2] << 16
        | (uint32_t) p[1] << 8 | p[0];
  return (int32_t) v;
}

static double
ldf64 (const clog2_t *c, const uint8_t *p)
{
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v = v << 8 | p[c->be ? i : 7 - i];
  double d;
  memcpy (&d, &v, sizeof d);
  return d;
}

/* Copies a fixed-size, maybe unterminated string field. */
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
report (clog2_t *c, uint64_t off)
{
  if (!c->progress)
    return 0;
  double f = c->prog_lo + (c->prog_hi - c->prog_lo) * (double) off
             / (double) (c->len ? c->len : 1);
  if (c->progress (c->user, f))
    return fail (c, LOGFMT_ESTATE, UINT64_MAX, "import cancelled");
  return 0;
}

/* --------------------------------------------------------------- */
/* Preamble and comm table                                          */
/* --------------------------------------------------------------- */

static int
is_true (const char *s)
{
  return strncasecmp (s, "true", 4) == 0 || strncasecmp (s, "yes", 3) == 0;
}

static int
parse_long (const char *s, long long *out)
{
  char *end;
  errno = 0;
  long long v = strtoll (s, &end, 10);
  if (end == s || errno)
    return -1;
  while (*end == ' ')
    end++;
  if (*end)
    return -1;
  *out = v;
  return 0;
}

static int
parse_preamble (clog2_t *c)
{
  if (c->len < 8 || memcmp (c->data, "CLOG-02.", 8) != 0)
    return fail (c, LOGFMT_EBADMAGIC, 0, "not a CLOG2 file");
  if (c->len < CLOG2_PREAMBLE_SIZE)
    return fail (c, LOGFMT_ETRUNCATED, c->len,
                 "file ends inside the %d-byte CLOG2 preamble",
                 CLOG2_PREAMBLE_SIZE);

  /* Tokens: NUL-separated, trimmed. */
  const char *tok[64];
  char buf[CLOG2_PREAMBLE_SIZE + 1];
  memcpy (buf, c->data, CLOG2_PREAMBLE_SIZE);
  buf[CLOG2_PREAMBLE_SIZE] = '\0';
  int ntok = 0;
  for (size_t i = 0; i < CLOG2_PREAMBLE_SIZE && ntok < 64;)
    {
      if (buf[i] == '\0')
        {
          i++;
          continue;
        }
      char *s = buf + i;
      size_t n = strlen (s);
      i += n + 1;
      while (*s == ' ')
        s++, n--;
      while (n > 0 && s[n - 1] == ' ')
        s[--n] = '\0';
      if (n)
        tok[ntok++] = s;
    }
  if (strcmp (tok[0], CLOG2_VERSION) != 0)
    return fail (c, LOGFMT_EVERSION, 0,
                 "CLOG2 version \"%.16s\" is not supported (only CLOG-02.44)",
                 tok[0]);

  static const char *const keys[] = {
    CLOG2_KEY_BIG_ENDIAN, CLOG2_KEY_FINALIZED, CLOG2_KEY_BLOCK_SIZE,
    CLOG2_KEY_WORLD_SIZE, CLOG2_KEY_THREADS, CLOG2_KEY_KNOWN_EVT,
    CLOG2_KEY_USER_EVT, CLOG2_KEY_USER_SOLO, CLOG2_KEY_COMMTABLE
  };
  enum { K_BE, K_FIN, K_BS, K_WORLD, K_THR, K_KES, K_UES, K_USS, K_CT, K_N };
  const char *val[K_N] = { 0 };
  int ct_at = -1;
  for (int i = 1; i + 1 < ntok; i++)
    for (int k = 0; k < K_N; k++)
      if (strcmp (tok[i], keys[k]) == 0 && !val[k])
        {
          val[k] = tok[i + 1];
          if (k == K_CT)
            ct_at = i + 1;
        }
  for (int k = 0; k < K_N; k++)
    if (!val[k])
      return fail (c, LOGFMT_ECORRUPT, 0,
                   "CLOG2 preamble lacks the \"%s\" token", keys[k]);
  if (ct_at + 2 >= ntok)
    return fail (c, LOGFMT_ECORRUPT, 0,
                 "CLOG2 preamble: commtable_fptr needs three values");

  long long v[K_N], g, u, r;
  for (int k = K_BS; k < K_CT; k++)
    if (parse_long (val[k], &v[k]))
      return fail (c, LOGFMT_ECORRUPT, 0,
                   "CLOG2 preamble: bad value \"%.20s\" for %s", val[k],
                   keys[k]);
  if (parse_long (tok[ct_at], &g) || parse_long (tok[ct_at + 1], &u)
      || parse_long (tok[ct_at + 2], &r))
    return fail (c, LOGFMT_ECORRUPT, 0,
                 "CLOG2 preamble: bad commtable_fptr values");

  c->be = is_true (val[K_BE]);
  c->finalized = is_true (val[K_FIN]);
  if (v[K_BS] < 64 || v[K_BS] > (1ll << 30) || v[K_BS] % 8)
    return fail (c, LOGFMT_ECORRUPT, 0,
                 "CLOG2 preamble: implausible block_size %lld", v[K_BS]);
  if (v[K_WORLD] < 1 || v[K_WORLD] > (1 << 24))
    return fail (c, LOGFMT_ECORRUPT, 0,
                 "CLOG2 preamble: implausible max_comm_world_size %lld",
                 v[K_WORLD]);
  if (v[K_THR] < 1 || v[K_THR] > 4096
      || (uint64_t) v[K_WORLD] * (uint64_t) v[K_THR] > MAX_STREAMS)
    return fail (c, LOGFMT_ECORRUPT, 0,
                 "CLOG2 preamble: implausible max_thread_count %lld",
                 v[K_THR]);
  if (g < 0 || u < 0 || r < 0 || g > (1ll << 20) || u > (1ll << 32)
      || r > (1ll << 32))
    return fail (c, LOGFMT_ECORRUPT, 0,
                 "CLOG2 preamble: bad commtable_fptr %lld %lld %lld", g, u,
                 r);
  c->block_size = (uint32_t) v[K_BS];
  c->world_size = (int32_t) v[K_WORLD];
  c->max_threads = (int32_t) v[K_THR];
  c->known_event_start = (int32_t) v[K_KES];
  c->user_event_start = (int32_t) v[K_UES];
  c->user_solo_start = (int32_t) v[K_USS];
  c->commtable_off = (uint64_t) g * (uint64_t) u + (uint64_t) r;

  if (c->commtable_off < CLOG2_PREAMBLE_SIZE
      || (c->commtable_off - CLOG2_PREAMBLE_SIZE) % c->block_size)
    return fail (c, LOGFMT_ECORRUPT, 0,
                 "CLOG2 preamble: comm table offset %" PRIu64
                 " is not the end of a block", c->commtable_off);
  c->nblocks = (c->commtable_off - CLOG2_PREAMBLE_SIZE) / c->block_size;
  if (c->commtable_off + 4 > c->len)
    return fail (c, LOGFMT_ETRUNCATED, c->len,
                 "file is truncated: %" PRIu64 " blocks and a comm table "
                 "at offset %" PRIu64 " expected, but the file has %zu bytes",
                 c->nblocks, c->commtable_off, c->len);
  return 0;
}

static int
load_commtable (clog2_t *c)
{
  const uint8_t *p = c->data + c->commtable_off;
  int32_t n = ld32 (c, p);
  if (n < 0
      || (uint64_t) n > (c->len - c->commtable_off - 4) / CLOG2_COMM_ENTRY)
    {
      if (n >= 0 && n < (1 << 24))
        return fail (c, LOGFMT_ETRUNCATED, c->len,
                     "file is truncated: the comm table holds %d entries "
                     "but only %zu bytes follow it", n,
                     (size_t) (c->len - c->commtable_off - 4));
      return fail (c, LOGFMT_ECORRUPT, c->commtable_off,
                   "implausible comm table size %d", n);
    }
  c->ncomms = (uint32_t) n;
  c->comms = calloc (n ? (size_t) n : 1, sizeof *c->comms);
  if (!c->comms)
    return nomem (c);
  for (int32_t i = 0; i < n; i++)
    {
      const uint8_t *e = p + 4 + (size_t) i * CLOG2_COMM_ENTRY;
      c->comms[i].kind = ld32 (c, e + CLOG2_ENTRY_KIND);
    }
  c->world_comm = -1;
  return 0;
}

/* --------------------------------------------------------------- */
/* Walking the blocks                                               */
/* --------------------------------------------------------------- */

static int
walk (clog2_t *c, rec_fn fn)
{
  const uint32_t bs = c->block_size;
  for (uint64_t k = 0; k < c->nblocks; k++)
    {
      uint64_t base = CLOG2_PREAMBLE_SIZE + k * bs;
      const uint8_t *blk = c->data + base;
      uint32_t pos = 0;
      int rc;
      if ((k & 15) == 0 && (rc = report (c, base)))
        return rc;
      for (;;)
        {
          if (pos + CLOG2_HDR_SIZE > bs)
            return fail (c, LOGFMT_ECORRUPT, base + pos,
                         "block %" PRIu64 " has no ENDBLOCK record", k);
          rec_t r;
          r.off = base + pos;
          r.time = ldf64 (c, blk + pos + CLOG2_HDR_TIME);
          r.icomm = ld32 (c, blk + pos + CLOG2_HDR_ICOMM);
          r.rank = ld32 (c, blk + pos + CLOG2_HDR_RANK);
          r.thread = ld32 (c, blk + pos + CLOG2_HDR_THREAD);
          r.type = ld32 (c, blk + pos + CLOG2_HDR_TYPE);
          if (r.type < 0 || r.type >= CLOG2_REC_NTYPES)
            return fail (c, LOGFMT_ECORRUPT, r.off,
                         "unknown CLOG2 record type %d", r.type);
          uint32_t size = clog2_rec_size[r.type];
          if (pos + size > bs)
            return fail (c, LOGFMT_ECORRUPT, r.off,
                         "record of type %d (%u bytes) runs past the end "
                         "of block %" PRIu64, r.type, size, k);
          if (r.type == CLOG2_REC_ENDLOG)
            return 0;
          if (r.type == CLOG2_REC_ENDBLOCK)
            break;
          r.body = blk + pos + CLOG2_HDR_SIZE;
          if (!isfinite (r.time) || fabs (r.time) > 1e9)
            return fail (c, LOGFMT_ECORRUPT, r.off,
                         "implausible timestamp %g s", r.time);
          if ((rc = fn (c, &r)))
            return rc;
          pos += size;
        }
    }
  return fail (c, LOGFMT_ECORRUPT, c->commtable_off,
               "no ENDLOG record in %" PRIu64 " blocks", c->nblocks);
}

static int
check_comm (clog2_t *c, int32_t icomm, uint64_t off)
{
  if (icomm < 0 || (uint32_t) icomm >= c->ncomms)
    return fail (c, LOGFMT_ECORRUPT, off,
                 "communicator id %d is not in the comm table (%u entries)",
                 icomm, c->ncomms);
  return 0;
}

/* Finds or registers the timeline (icomm, rank, thread). */
static int
timeline (clog2_t *c, const rec_t *r, int32_t *out)
{
  if (r->icomm == c->last_key[0] && r->rank == c->last_key[1]
      && r->thread == c->last_key[2] && c->last_tl >= 0)
    {
      *out = c->last_tl;
      return 0;
    }
  int rc;
  if ((rc = check_comm (c, r->icomm, r->off)))
    return rc;
  if (r->rank < 0 || r->rank >= c->world_size)
    return fail (c, LOGFMT_ECORRUPT, r->off,
                 "rank %d out of range (world size %d)", r->rank,
                 c->world_size);
  if (r->thread < 0 || r->thread >= c->max_threads)
    return fail (c, LOGFMT_ECORRUPT, r->off,
                 "thread %d out of range (max_thread_count %d)", r->thread,
                 c->max_threads);
  int created;
  slot_t *s = map_put (&c->timelines, r->icomm, r->rank, r->thread,
                       &created);
  if (!s)
    return nomem (c);
  if (created)
    {
      if (c->ntl == c->captl)
        {
          size_t ncap = c->captl ? c->captl * 2 : 64;
          int32_t *nk = realloc (c->tl_key, ncap * 3 * sizeof *nk);
          if (!nk)
            return nomem (c);
          c->tl_key = nk;
          c->captl = ncap;
        }
      c->tl_key[c->ntl * 3] = r->icomm;
      c->tl_key[c->ntl * 3 + 1] = r->rank;
      c->tl_key[c->ntl * 3 + 2] = r->thread;
      s->val = (int32_t) c->ntl++;
    }
  c->last_key[0] = r->icomm;
  c->last_key[1] = r->rank;
  c->last_key[2] = r->thread;
  c->last_tl = s->val;
  *out = s->val;
  return 0;
}

static double
corrected (const clog2_t *c, double t)
{
  /* Merged files have every TIMESHIFT applied already. */
  return c->finalized ? t : t + c->shift;
}

/* --------------------------------------------------------------- */
/* Pass 1: definitions, communicators, timelines, earliest time    */
/* --------------------------------------------------------------- */

#define GROW(c, arr, n, cap)                                            \
  do {                                                                  \
    if ((n) == (cap))                                                   \
      {                                                                 \
        size_t ncap_ = (cap) ? (cap) * 2 : 16;                          \
        void *np_ = realloc ((arr), ncap_ * sizeof *(arr));             \
        if (!np_)                                                       \
          return nomem (c);                                             \
        (arr) = np_;                                                    \
        (cap) = ncap_;                                                  \
      }                                                                 \
  } while (0)

static int
map_rank (clog2_t *c, int32_t icomm, int32_t rank, int32_t wrank,
          uint64_t off)
{
  int rc, created;
  if ((rc = check_comm (c, icomm, off)))
    return rc;
  if (rank < 0 || rank >= c->world_size || wrank < 0
      || wrank >= c->world_size)
    return fail (c, LOGFMT_ECORRUPT, off,
                 "COMMEVT maps rank %d to world rank %d (world size %d)",
                 rank, wrank, c->world_size);
  slot_t *s = map_put (&c->ranks, icomm, rank, 0, &created);
  if (!s)
    return nomem (c);
  if (created)
    s->val = wrank;
  return 0;
}

/* Intercommunicator messages.  Each side logs the message on its own
 * group's comm id (header) with the partner's group id (MSGEVT icomm), so
 * the two ends name different comms: A's send says (A, B), B's receive
 * (B, A).  Both are keyed by the unordered pair, which gets a comm id of
 * its own after the table's, so the writer pairs them.  An intracomm
 * message names one comm twice. */
static int
msg_groups (const clog2_t *c, const rec_t *r, int32_t *lo, int32_t *hi)
{
  int32_t pc = ld32 (c, r->body + CLOG2_MSG_ICOMM);
  if (pc == CLOG2_NULL_COMM || pc == r->icomm || pc < 0
      || (uint32_t) pc >= c->ncomms)
    return 0;
  *lo = pc < r->icomm ? pc : r->icomm;
  *hi = pc < r->icomm ? r->icomm : pc;
  return 1;
}

static int
note_intercomm (clog2_t *c, const rec_t *r)
{
  int32_t lo, hi;
  int created;
  if (!msg_groups (c, r, &lo, &hi))
    return 0;
  slot_t *s = map_put (&c->inters, lo, hi, 0, &created);
  if (!s)
    return nomem (c);
  if (!created)
    return 0;
  if (c->ninter == c->capinter)
    {
      size_t ncap = c->capinter ? c->capinter * 2 : 8;
      int32_t *nk = realloc (c->inter_key, ncap * 2 * sizeof *nk);
      if (!nk)
        return nomem (c);
      c->inter_key = nk;
      c->capinter = ncap;
    }
  c->inter_key[c->ninter * 2] = lo;
  c->inter_key[c->ninter * 2 + 1] = hi;
  s->val = (int32_t) c->ninter++;
  return 0;
}

/* The writer's comm id for a message record. */
static uint32_t
msg_comm (const clog2_t *c, const rec_t *r)
{
  int32_t lo, hi;
  if (!msg_groups (c, r, &lo, &hi))
    return (uint32_t) r->icomm;
  const slot_t *s = map_find (&c->inters, lo, hi, 0);
  return s ? c->ncomms + (uint32_t) s->val : (uint32_t) r->icomm;
}

static int
pass1 (clog2_t *c, const rec_t *r)
{
  const uint8_t *b = r->body;
  int32_t tl;
  int rc, created;
  switch (r->type)
    {
    case CLOG2_REC_STATEDEF:
      {
        GROW (c, c->sdefs, c->nsdefs, c->capsdefs);
        sdef_t *d = &c->sdefs[c->nsdefs++];
        d->start = ld32 (c, b + CLOG2_SDEF_START);
        d->end = ld32 (c, b + CLOG2_SDEF_END);
        copy_field (d->color, b + CLOG2_SDEF_COLOR, CLOG2_COLOR_LEN);
        copy_field (d->name, b + CLOG2_SDEF_NAME, CLOG2_NAME_LEN);
        copy_field (d->format, b + CLOG2_SDEF_FORMAT, CLOG2_FORMAT_LEN);
        return 0;
      }
    case CLOG2_REC_EVENTDEF:
      {
        GROW (c, c->edefs, c->nedefs, c->capedefs);
        edef_t *d = &c->edefs[c->nedefs++];
        d->id = ld32 (c, b + CLOG2_EDEF_ID);
        copy_field (d->color, b + CLOG2_EDEF_COLOR, CLOG2_COLOR_LEN);
        copy_field (d->name, b + CLOG2_EDEF_NAME, CLOG2_NAME_LEN);
        copy_field (d->format, b + CLOG2_EDEF_FORMAT, CLOG2_FORMAT_LEN);
        return 0;
      }
    case CLOG2_REC_CONSTDEF:
      {
        GROW (c, c->cdefs, c->ncdefs, c->capcdefs);
        cdef_t *d = &c->cdefs[c->ncdefs++];
        d->value = ld32 (c, b + CLOG2_CDEF_VALUE);
        copy_field (d->name, b + CLOG2_CDEF_NAME, CLOG2_NAME_LEN);
        return 0;
      }
    case CLOG2_REC_BAREEVT:
    case CLOG2_REC_CARGOEVT:
      if (!map_put (&c->ids, ld32 (c, b + CLOG2_EVT_ID), 0, 0, &created))
        return nomem (c);
      /* fall through */
    case CLOG2_REC_MSGEVT:
      if (r->type == CLOG2_REC_MSGEVT)
        {
          int32_t et = ld32 (c, b + CLOG2_MSG_ETYPE);
          if (et != CLOG2_EVT_SEND && et != CLOG2_EVT_RECV)
            return fail (c, LOGFMT_ECORRUPT, r->off,
                         "message record with event type %d (not -101 "
                         "send or -102 receive)", et);
          if ((rc = note_intercomm (c, r)))
            return rc;
        }
      if ((rc = timeline (c, r, &tl)))
        return rc;
      {
        double t = corrected (c, r->time);
        if (!c->have_tmin || t < c->tmin)
          c->tmin = t, c->have_tmin = 1;
      }
      c->nevents++;
      return 0;
    case CLOG2_REC_COMMEVT:
      {
        int32_t et = ld32 (c, b + CLOG2_COMM_ETYPE);
        int32_t nc = ld32 (c, b + CLOG2_COMM_ICOMM);
        int32_t rank = ld32 (c, b + CLOG2_COMM_RANK);
        int32_t wrank = ld32 (c, b + CLOG2_COMM_WRANK);
        if (et == CLOG2_COMMEVT_FREE)
          return 0;
        if ((rc = check_comm (c, nc, r->off)))
          return rc;
        if (et == CLOG2_COMMEVT_WORLD || et == CLOG2_COMMEVT_SELF
            || et == CLOG2_COMMEVT_INTRA || et == CLOG2_COMMEVT_LOCAL)
          if ((rc = map_rank (c, nc, rank, wrank, r->off)))
            return rc;
        if (et == CLOG2_COMMEVT_WORLD)
          {
            c->comms[nc].name = "MPI_COMM_WORLD";
            if (c->world_comm < 0)
              c->world_comm = nc;
          }
        else if (et == CLOG2_COMMEVT_SELF)
          {
            c->comms[nc].name = "MPI_COMM_SELF";
            copy_field (c->comms[nc].host,
                        b + CLOG2_COMM_UUID + CLOG2_UUID_HOST,
                        CLOG2_HOST_LEN);
          }
        /* The record itself sits on the parent comm, logged by wrank. */
        if (wrank >= 0 && wrank < c->world_size && r->icomm >= 0
            && (uint32_t) r->icomm < c->ncomms && r->rank >= 0
            && r->rank < c->world_size)
          {
            slot_t *s = map_put (&c->ranks, r->icomm, r->rank, 0,
                                 &created);
            if (!s)
              return nomem (c);
            if (created)
              s->val = wrank;
          }
        return 0;
      }
    case CLOG2_REC_TIMESHIFT:
      if (!c->finalized)
        c->shift = ldf64 (c, b);
      return 0;
    default:                    /* COLLEVT, SRCLOC: nothing to keep */
      return 0;
    }
}

/* World rank of `rank` in comm `icomm`, or -1. */
static int32_t
world_rank (clog2_t *c, int32_t icomm, int32_t rank)
{
  slot_t *s = map_find (&c->ranks, icomm, rank, 0);
  if (s)
    return s->val;
  if (icomm == c->world_comm && rank >= 0 && rank < c->world_size)
    return rank;
  return -1;
}

static int
cmp_stream (const void *a, const void *b)
{
  const stream_t *x = a, *y = b;
  if (x->wrank != y->wrank)
    return x->wrank < y->wrank ? -1 : 1;
  return (x->thread > y->thread) - (x->thread < y->thread);
}

/* Timelines -> (world rank, thread) streams, registered with the writer. */
static int
make_streams (clog2_t *c)
{
  c->tl_stream = malloc ((c->ntl ? c->ntl : 1) * sizeof *c->tl_stream);
  c->streams = calloc (c->ntl ? c->ntl : 1, sizeof *c->streams);
  if (!c->tl_stream || !c->streams)
    return nomem (c);
  map_t seen = { 0 };
  int rc = 0, created;
  /* Resolve, dedupe, sort, then index. */
  for (size_t i = 0; i < c->ntl; i++)
    {
      int32_t icomm = c->tl_key[i * 3], rank = c->tl_key[i * 3 + 1];
      int32_t thread = c->tl_key[i * 3 + 2];
      int32_t wr = world_rank (c, icomm, rank);
      if (wr < 0)
        {
          /* No COMMEVT says who this is: assume a world rank. */
          wr = rank;
          c->unmapped++;
        }
      slot_t *s = map_put (&seen, wr, thread, 0, &created);
      if (!s)
        {
          rc = nomem (c);
          goto out;
        }
      if (created)
        {
          stream_t *st = &c->streams[c->nstreams++];
          st->wrank = wr;
          st->thread = thread;
        }
    }
  qsort (c->streams, c->nstreams, sizeof *c->streams, cmp_stream);
  for (size_t i = 0; i < c->nstreams; i++)
    map_find (&seen, c->streams[i].wrank, c->streams[i].thread, 0)->val
      = (int32_t) i;
  for (size_t i = 0; i < c->ntl; i++)
    {
      int32_t icomm = c->tl_key[i * 3], rank = c->tl_key[i * 3 + 1];
      int32_t wr = world_rank (c, icomm, rank);
      if (wr < 0)
        wr = rank;
      c->tl_stream[i] = map_find (&seen, wr, c->tl_key[i * 3 + 2], 0)->val;
    }

  /* Host names come from each process's MPI_COMM_SELF UUID. */
  const char **host = calloc ((size_t) c->world_size, sizeof *host);
  if (!host)
    {
      rc = nomem (c);
      goto out;
    }
  for (uint32_t i = 0; i < c->ncomms; i++)
    if (c->comms[i].host[0])
      {
        int32_t wr = world_rank (c, (int32_t) i, 0);
        if (wr >= 0)
          host[wr] = c->comms[i].host;
      }
  size_t batch = (4u << 20) / ((c->nstreams + 1) * sizeof (logfmt_event_t));
  batch = batch < 1 ? 1 : batch > MAX_BATCH ? MAX_BATCH : batch;
  c->batch = batch;
  for (size_t i = 0; i < c->nstreams && rc == 0; i++)
    {
      stream_t *st = &c->streams[i];
      logfmt_stream_def_t d = { st->wrank, st->thread, host[st->wrank] };
      if ((rc = logfmt_writer_add_stream (c->w, &d, &st->wstream)))
        rc = wfail (c, rc, "stream definition");
      else if (!(st->buf = malloc (batch * sizeof *st->buf)))
        rc = nomem (c);
    }
  free (host);
out:
  free (seen.slots);
  return rc;
}

/* Event ids seen in the file but covered by no definition get a made-up
 * state (known and user state ranges) so that they still show as states,
 * as MPE's own tools do. */

static int
cmp_i32 (const void *a, const void *b)
{
  int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;
  return (x > y) - (x < y);
}

static int
write_defs (clog2_t *c)
{
  int rc;
  for (size_t i = 0; i < c->nsdefs; i++)
    {
      sdef_t *d = &c->sdefs[i];
      logfmt_state_def_t s = { d->start, d->end, d->name, d->color,
                               d->format[0] ? d->format : NULL, 0 };
      if ((rc = logfmt_writer_add_state (c->w, &s)))
        return wfail (c, rc, "state definition");
    }
  for (size_t i = 0; i < c->nedefs; i++)
    {
      edef_t *d = &c->edefs[i];
      logfmt_event_def_t e = { d->id, d->name, d->color,
                               d->format[0] ? d->format : NULL, 0 };
      if ((rc = logfmt_writer_add_event_def (c->w, &e)))
        return wfail (c, rc, "event definition");
    }

  /* Undefined ids in the state ranges, in a stable order.  A set of the
   * defined ids keeps this linear even for hostile files. */
  map_t defined = { 0 };
  int created;
  for (size_t i = 0; i < c->nsdefs; i++)
    if (!map_put (&defined, c->sdefs[i].start, 0, 0, &created)
        || !map_put (&defined, c->sdefs[i].end, 0, 0, &created))
      {
        free (defined.slots);
        return nomem (c);
      }
  for (size_t i = 0; i < c->nedefs; i++)
    if (!map_put (&defined, c->edefs[i].id, 0, 0, &created))
      {
        free (defined.slots);
        return nomem (c);
      }
  int32_t *und = malloc ((c->ids.n + 1) * sizeof *und);
  size_t nund = 0;
  if (!und)
    {
      free (defined.slots);
      return nomem (c);
    }
  for (size_t i = 0; i < c->ids.cap; i++)
    {
      const slot_t *s = &c->ids.slots[i];
      if (s->used && s->a >= c->known_event_start
          && s->a < c->user_solo_start && !map_find (&defined, s->a, 0, 0))
        und[nund++] = s->a;
    }
  free (defined.slots);
  qsort (und, nund, sizeof *und, cmp_i32);
  rc = 0;
  for (size_t i = 0; i < nund && rc == 0; i++)
    {
      int32_t base = c->known_event_start
                     + ((und[i] - c->known_event_start) & ~1);
      if (i > 0 && base == c->known_event_start
                           + ((und[i - 1] - c->known_event_start) & ~1))
        continue;                       /* pair already made */
      char name[64];
      if (base < c->user_event_start)
        snprintf (name, sizeof name, "known_state_%d",
                  (base - c->known_event_start) / 2);
      else
        snprintf (name, sizeof name, "user_state_%d_%d", base, base + 1);
      logfmt_state_def_t s = { base, base + 1, name, "gray", NULL, 0 };
      if ((rc = logfmt_writer_add_state (c->w, &s)))
        rc = wfail (c, rc, "state definition");
    }
  free (und);
  if (rc)
    return rc;

  for (size_t i = 0; i < c->ncdefs; i++)
    {
      logfmt_const_def_t k = { c->cdefs[i].name, c->cdefs[i].value };
      if ((rc = logfmt_writer_add_const (c->w, &k)))
        return wfail (c, rc, "constant definition");
    }

  /* Communicators: local rank -> world rank tables from the COMMEVTs. */
  uint32_t *size = calloc (c->ncomms ? c->ncomms : 1, sizeof *size);
  if (!size)
    return nomem (c);
  for (size_t i = 0; i < c->ranks.cap; i++)
    {
      const slot_t *s = &c->ranks.slots[i];
      if (s->used && (uint32_t) s->b + 1 > size[s->a])
        size[s->a] = (uint32_t) s->b + 1;
    }
  if (c->world_comm >= 0)
    size[c->world_comm] = (uint32_t) c->world_size;
  /* An intercomm lists both groups. */
  int32_t *ranks = malloc ((size_t) c->world_size * 2 * sizeof *ranks);
  if (!ranks)
    {
      free (size);
      return nomem (c);
    }
  for (uint32_t i = 0; i < c->ncomms && rc == 0; i++)
    {
      char name[32];
      for (uint32_t j = 0; j < size[i]; j++)
        ranks[j] = world_rank (c, (int32_t) i, (int32_t) j);
      if (!c->comms[i].name)
        snprintf (name, sizeof name, "comm %u", i);
      logfmt_comm_def_t d = { i, c->comms[i].kind == 0 ? 0 : 1,
                              c->comms[i].name ? c->comms[i].name : name,
                              size[i], size[i] ? ranks : NULL };
      if ((rc = logfmt_writer_add_comm (c->w, &d)))
        rc = wfail (c, rc, "communicator definition");
    }
  for (size_t k = 0; k < c->ninter && rc == 0; k++)
    {
      uint32_t g[2] = { (uint32_t) c->inter_key[k * 2],
                        (uint32_t) c->inter_key[k * 2 + 1] }, n = 0;
      char name[48];
      for (int i = 0; i < 2; i++)
        for (uint32_t j = 0; j < size[g[i]]; j++)
          ranks[n++] = world_rank (c, (int32_t) g[i], (int32_t) j);
      snprintf (name, sizeof name, "intercomm (comm %u, comm %u)", g[0],
                g[1]);
      logfmt_comm_def_t d = { c->ncomms + (uint32_t) k, 0, name, n,
                              n ? ranks : NULL };
      if ((rc = logfmt_writer_add_comm (c->w, &d)))
        rc = wfail (c, rc, "communicator definition");
    }
  free (ranks);
  free (size);
  return rc;
}

/* --------------------------------------------------------------- */
/* Pass 2: events                                                   */
/* --------------------------------------------------------------- */

static int
flush_stream (clog2_t *c, stream_t *st)
{
  if (st->nbuf == 0)
    return 0;
  int rc = logfmt_writer_event (c->w, st->wstream, st->buf, st->nbuf);
  st->nbuf = 0;
  return rc ? wfail (c, rc, "events") : 0;
}

static int
pass2 (clog2_t *c, const rec_t *r)
{
  if (r->type == CLOG2_REC_TIMESHIFT)
    {
      if (!c->finalized)
        c->shift = ldf64 (c, r->body);
      return 0;
    }
  if (r->type != CLOG2_REC_BAREEVT && r->type != CLOG2_REC_CARGOEVT
      && r->type != CLOG2_REC_MSGEVT)
    return 0;

  int32_t tl;
  int rc;
  if ((rc = timeline (c, r, &tl)))
    return rc;
  stream_t *st = &c->streams[c->tl_stream[tl]];
  logfmt_event_t *ev = &st->buf[st->nbuf];
  memset (ev, 0, offsetof (logfmt_event_t, cargo));

  double dt = (corrected (c, r->time) - c->tmin) * 1e9;
  uint64_t t = dt <= 0 ? 0 : (uint64_t) llround (dt);
  if (t < st->last)
    {
      t = st->last;
      c->clamped++;
    }
  st->last = t;
  ev->time = t;
  ev->state = -1;
  const uint8_t *b = r->body;
  if (r->type == CLOG2_REC_MSGEVT)
    {
      int32_t et = ld32 (c, b + CLOG2_MSG_ETYPE);
      int32_t pc = ld32 (c, b + CLOG2_MSG_ICOMM);
      int32_t pr = ld32 (c, b + CLOG2_MSG_RANK);
      int32_t size = ld32 (c, b + CLOG2_MSG_SIZE);
      if (pc == CLOG2_NULL_COMM)          /* local file: not patched yet */
        pc = r->icomm;
      int32_t partner = -1;
      if (pc >= 0 && (uint32_t) pc < c->ncomms)
        partner = world_rank (c, pc, pr);
      if (partner < 0)
        {
          partner = pr;
          c->unmapped++;
        }
      ev->type = et == CLOG2_EVT_SEND ? LOGFMT_REC_SEND : LOGFMT_REC_RECV;
      ev->id = et;
      ev->partner = partner;
      ev->tag = ld32 (c, b + CLOG2_MSG_TAG);
      ev->comm = msg_comm (c, r);
      ev->size = size < 0 ? 0 : (uint64_t) size;
    }
  else
    {
      ev->type = LOGFMT_REC_EVENT;
      ev->id = ld32 (c, b + CLOG2_EVT_ID);
      if (r->type == CLOG2_REC_CARGOEVT)
        {
          ev->flags = LOGFMT_EVF_CARGO;
          memcpy (ev->cargo, b + CLOG2_EVT_CARGO, LOGFMT_CARGO_SIZE);
        }
    }
  if (++st->nbuf == c->batch)
    return flush_stream (c, st);
  return 0;
}

static void
clog2_free (clog2_t *c)
{
  free (c->comms);
  free (c->timelines.slots);
  free (c->ranks.slots);
  free (c->ids.slots);
  free (c->inters.slots);
  free (c->inter_key);
  free (c->tl_key);
  free (c->tl_stream);
  if (c->streams)
    for (size_t i = 0; i < c->nstreams; i++)
      free (c->streams[i].buf);
  free (c->streams);
  free (c->sdefs);
  free (c->edefs);
  free (c->cdefs);
}

int
logfmt__import_clog2 (const uint8_t *data, size_t len, const char *name,
                      logfmt_writer_t *w, logfmt_progress_cb progress,
                      void *user, logfmt_error_t *err)
{
  clog2_t c = { 0 };
  c.data = data;
  c.len = len;
  c.name = name ? name : "(CLOG2 data)";
  c.err = err;
  c.w = w;
  c.progress = progress;
  c.user = user;
  c.last_tl = -1;
  if (err)
    {
      err->code = 0;
      err->offset = UINT64_MAX;
      err->message[0] = '\0';
    }

  int rc;
  if (!data || !w)
    return fail (&c, LOGFMT_EINVAL, UINT64_MAX, "no data or no writer");
  if ((rc = parse_preamble (&c)) || (rc = load_commtable (&c)))
    goto out;

  c.prog_lo = 0.0;
  c.prog_hi = 0.25;
  if ((rc = walk (&c, pass1)))
    goto out;
  if ((rc = make_streams (&c)) || (rc = write_defs (&c)))
    goto out;

  c.prog_lo = 0.25;
  c.prog_hi = 1.0;
  c.shift = 0.0;
  if ((rc = walk (&c, pass2)))
    goto out;
  for (size_t i = 0; i < c.nstreams; i++)
    if ((rc = flush_stream (&c, &c.streams[i])))
      goto out;
  if (progress && progress (user, 1.0))
    rc = fail (&c, LOGFMT_ESTATE, UINT64_MAX, "import cancelled");
out:
  clog2_free (&c);
  return rc;
}

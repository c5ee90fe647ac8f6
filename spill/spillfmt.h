/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libspillfmt: the local files of one MPE process (spill file and ring
 * files), what the logger writes during the run and what `clogtool
 * recover` and the merge read back; and the clock correction both apply.
 * docs/SPILL-FORMAT.md is the byte layout.  No MPI: libc and liblogfmt's
 * event types only.  Not installed; linked into libmpe and clogtool.
 */
#ifndef SPILLFMT_H
#define SPILLFMT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <logfmt/logfmt.h>

#define MPE_SPILL_MAGIC        "MPESPIL1"
#define MPE_SPILL_VERSION      4u   /* 1: BLOCK frames; 2: PACKED frames;
                                       3: PACKED with runs of BARE records;
                                       4: and long alternating runs */
#define MPE_SPILL_HEADER_SIZE  16u
#define MPE_SPILL_FRAME_MAGIC  0x4650454du  /* "MEPF" little-endian */
#define MPE_SPILL_NAME_PREFIX  "mpe-"
#define MPE_SPILL_NAME_SUFFIX  ".spill"

/* Frame types. */
enum
{
  MPE_SPILL_META = 1, MPE_SPILL_STATE = 2, MPE_SPILL_EVENT = 3,
  MPE_SPILL_SYNC = 5, MPE_SPILL_COMM = 6, MPE_SPILL_BLOCK = 7,
  MPE_SPILL_RAW = 8, MPE_SPILL_END = 9, MPE_SPILL_PACKED = 10,
  MPE_SPILL_METRIC = 11, /* 12 reserved for metrics, 13-16 as FORMAT.md */
  MPE_SPILL_PAD = 17,    /* zeros: what aligns a direct write */
  MPE_SPILL_FAILED = 18, /* empty: MPE_Finish_log could not write the log */
  MPE_SPILL_SAVED = 19,  /* empty: what memory held is in the file */
  MPE_SPILL_COUNTERS = 20 /* thread's counter readings (mpe_spill_ctr_t) */
};

typedef struct
{
  uint32_t magic;
  uint16_t type;
  uint16_t thread;
  uint32_t len;     /* payload bytes (padded to 8 in the file) */
  uint32_t sum;     /* mpe_spill_sum of the payload */
} mpe_spill_frame_t;

/* A counter reading (MPE_COUNTERS), as libmpe keeps it in memory: a
 * COUNTERS frame holds a thread's readings in time order; they become
 * metric samples (id, object -1, value). */
typedef struct
{
  uint64_t t;      /* clock ticks */
  uint32_t id;     /* metric id */
  uint32_t pad;
  int64_t  v;
} mpe_spill_ctr_t;

/* In-memory record (ring slots, RAW frames).  aux: kind in bits 0-7, the
 * round's tag in bits 8-31.  Extension slots follow some kinds: CARGO 2
 * (32 bytes), SEND/RECV 1 (mpe_spill_msg_t), LOSS 1 (u64 lost, u64 0). */
typedef struct
{
  uint64_t t;      /* clock ticks */
  int32_t  id;     /* event id, or partner world rank of SEND/RECV */
  uint32_t aux;
} mpe_spill_rec_t;

typedef struct
{
  int32_t  tag;
  uint32_t comm;
  uint64_t size;
} mpe_spill_msg_t;

enum
{
  MPE_REC_BARE = 0, MPE_REC_CARGO = 1, MPE_REC_SEND = 2, MPE_REC_RECV = 3,
  MPE_REC_LOSS = 4,
  /* A metric sample: id = metric id, one slot of mpe_spill_metric_t.
   * Kinds 6-10 are reserved (6 SAMPLE, 7 CALLSITE, 8 SWITCH, 9 ALLOC,
   * 10 COUNTER). */
  MPE_REC_METRIC = 5
};

/* Extension slot of a METRIC record. */
typedef struct
{
  int64_t object;   /* -1, or the partner's world rank (channel metric) */
  int64_t value;
} mpe_spill_metric_t;

/* Decoded records of the kinds that go to extension tracks, not BLOCK
 * chunks, come out of the decoders as logfmt_event_t with a type of
 * MPE_SPILL_EV_* (no LOGFMT_REC_* has it): a METRIC record has id = the
 * metric id, partner = the object, size = the value (two's complement).
 * Consumers route them with mpe_spill_ev_metric_rec. */
#define MPE_SPILL_EV_METRIC 16

#define MPE_RING_MAGIC        "MPERING1"
#define MPE_RING_VERSION      2u  /* 1: no frame areas; still read */
#define MPE_RING_HEADER_SIZE  4096u
#define MPE_RING_SUFFIX       ".ring"

typedef struct
{
  char     magic[8];
  uint32_t version;
  uint32_t thread;
  uint64_t cap;        /* record slots after the header */
  uint64_t split;      /* first slot of part 1; cap when there is one part */
  uint32_t tag[2];     /* aux & ~0xff of each part's current round */
  uint32_t live[2];    /* 0: the part's records are in the spill file */
  char     spill[2048];  /* the spill file's path ("" if too long) */
  /* Version 2: packed write-behind keeps few record slots, packs them into
   * two frame areas of the file (PACKED frames as in the spill file) and
   * spills an area whole.  frames_off 0: no areas. */
  uint64_t frames_off;     /* file offset of area 0; area 1 follows */
  uint64_t frames_cap;     /* bytes of each area */
  uint64_t frames_len[2];  /* bytes of whole frames in each area */
  uint32_t frames_gen[2];  /* order of filling: the older area is lower */
  uint32_t frames_live[2]; /* 0: the area's frames are in the spill file */
} mpe_ring_header_t;

/* The layout is the file format: any change here is a new version. */
_Static_assert (sizeof (mpe_spill_frame_t) == 16, "spill frame header");
_Static_assert (sizeof (mpe_spill_rec_t) == 16, "record slot");
_Static_assert (sizeof (mpe_spill_msg_t) == 16, "message extension slot");
_Static_assert (sizeof (mpe_spill_metric_t) == 16, "metric extension slot");
_Static_assert (offsetof (mpe_spill_rec_t, aux) == 12, "record aux");
_Static_assert (offsetof (mpe_ring_header_t, cap) == 16, "ring cap");
_Static_assert (offsetof (mpe_ring_header_t, tag) == 32, "ring tags");
_Static_assert (offsetof (mpe_ring_header_t, spill) == 48, "ring spill path");
_Static_assert (offsetof (mpe_ring_header_t, frames_off) == 2096,
                "ring frame areas");
_Static_assert (sizeof (mpe_ring_header_t) == 2144
                && sizeof (mpe_ring_header_t) <= MPE_RING_HEADER_SIZE,
                "ring header");

/* ---- Codec (spill-codec.c); the per-record helpers are inline. ---- */

/* Extension slots after a record with this aux. */
static inline unsigned
mpe_spill_rec_ext (uint32_t aux)
{
  unsigned k = aux & 0xffu;
  return k == MPE_REC_CARGO ? 2 : k >= MPE_REC_SEND && k <= MPE_REC_METRIC;
}

/* The track record of a decoded METRIC event (time as given). */
static inline void
mpe_spill_ev_metric_rec (const logfmt_event_t *e, logfmt_track_rec_t *r)
{
  memset (r, 0, sizeof *r);
  r->time = e->time;
  r->col[LOGFMT_METRIC_COL_ID] = (uint32_t) e->id;
  r->col[LOGFMT_METRIC_COL_OBJECT] = e->partner;
  r->col[LOGFMT_METRIC_COL_VALUE] = (int64_t) e->size;
}

static inline uint64_t
mpe_spill_pad8 (uint64_t n)
{
  return (n + 7u) & ~(uint64_t) 7u;
}

/* (a * b) >> 32 of the full 128-bit product, truncated to 64 bits, in
 * portable C (no 128-bit integer type): with a = ah:al and b = bh:bl in
 * 32-bit halves, the product shifted by 32 is ah*b + al*bh + (al*bl >> 32)
 * exactly, and each term fits in 64 bits except ah*b, whose wrap-around is
 * the truncation wanted. */
static inline uint64_t
mpe_spill_mul_shr32 (uint64_t a, uint64_t b)
{
  uint64_t ah = a >> 32, al = a & 0xffffffffu;
  uint64_t bh = b >> 32, bl = b & 0xffffffffu;
  return ah * b + al * bh + ((al * bl) >> 32);
}

/* Ticks -> ns since the local origin (32.32 fixed-point ns per tick). */
static inline uint64_t
mpe_spill_tick_ns (uint64_t t, uint64_t tick0, uint64_t mult_fp)
{
  if (t <= tick0)
    return 0;
  return mpe_spill_mul_shr32 (t - tick0, mult_fp);
}

/* Frame checksum (async-signal-safe: the crash path writes frames). */
uint32_t mpe_spill_sum (const void *p, size_t n);

/* Packs whole records from *from (up to `to`) into out[0, cap) as one
 * PACKED payload; advances *from and returns the payload's length (0 when
 * there is nothing to pack).  cap must be at least 256. */
size_t mpe_spill_pack (const mpe_spill_rec_t **from, const mpe_spill_rec_t *to,
                       unsigned char *out, size_t cap);
/* Whether mpe_spill_pack tests eight records at a time with AVX2: 1 or
 * 0, or -1 (the start) to ask the CPU at the next pack; tests set 0 for
 * the path of CPUs without it (the bytes are the same), then -1. */
extern int mpe_spill__avx2;

/* Decodes records [*p, end) into at most max events (times in ns since
 * the local origin); advances *p.  A torn or unknown record is skipped. */
size_t mpe_spill_recs_decode (const mpe_spill_rec_t **p,
                              const mpe_spill_rec_t *end, uint64_t tick0,
                              uint64_t mult_fp, logfmt_event_t *out,
                              size_t max);

/* Reading a PACKED payload in batches. */
typedef struct
{
  const unsigned char *p, *end;
  uint64_t t;
  int32_t  id[2];  /* event id, message partner */
  uint32_t left;   /* records not yet read */
  uint32_t run;    /* BARE records left in the current run */
  int      alt;    /* ... an alternating run (else narrow) */
  int      lng;    /* ... a long one: its exceptions follow its bytes */
  uint32_t ri;     /* the long run's next record, its index */
  uint32_t xat;    /* the index of its loaded exception (UINT32_MAX: none) */
  uint32_t xleft;  /* its exceptions not yet loaded */
  const unsigned char *xp;  /* its next exception's bytes */
  int32_t  id2;    /* the event id before id[0] */
} mpe_spill_unpack_t;

/* 0, or -1 when the payload is too short to be one. */
int    mpe_spill_unpack_init (mpe_spill_unpack_t *u, const void *payload,
                              size_t len);
/* Up to max events; 0 at the end.  A damaged record ends the payload
 * (u->left says how many were not read). */
size_t mpe_spill_unpack (mpe_spill_unpack_t *u, uint64_t tick0,
                         uint64_t mult_fp, logfmt_event_t *out, size_t max);
/* The same, with only the SEND and RECV records written to out (the
 * merge's first pass): every record is still read and checked, so both
 * see the same records and u->t ends at the last one's tick; whole runs
 * of BARE records are summed, not read one by one, and their event ids
 * are not kept. */
size_t mpe_spill_unpack_msgs (mpe_spill_unpack_t *u, uint64_t tick0,
                              uint64_t mult_fp, logfmt_event_t *out,
                              size_t max);

/* ---- Clock correction (spill-clock.c), the one used by the merge and
 * by recovery: local ns -> rank 0's clock, interpolating linearly between
 * the sync points (l[i], off[i]) with exact integer arithmetic. ---- */
typedef struct
{
  int64_t        mono0;  /* absolute local ns of the local origin */
  const int64_t *l;      /* sync points: local ns, sorted */
  const int64_t *off;    /* ... and the offset to add there */
  int            n;
  int            seg;    /* last segment used (a cache) */
} mpe_spill_clock_t;

/* trunc (a * b / c) for c > 0, exact (a 128-bit intermediate); wraps
 * when the result does not fit (only hostile sync points get there). */
int64_t mpe_spill_muldiv (int64_t a, int64_t b, int64_t c);

/* Two's complement addition: damaged files must not make it undefined. */
static inline int64_t
mpe_spill_add (int64_t a, int64_t b)
{
  return (int64_t) ((uint64_t) a + (uint64_t) b);
}

static inline int64_t
mpe_spill_clock_offset (mpe_spill_clock_t *c, int64_t x)
{
  const int64_t *L = c->l, *O = c->off;
  int n = c->n;
  if (n == 0)
    return 0;
  if (n == 1 || x <= L[0])
    return O[0];
  if (x >= L[n - 1])
    return O[n - 1];
  int i = c->seg;
  if (i < 0 || i >= n - 1 || x < L[i] || x > L[i + 1])
    {
      int lo = 0, hi = n - 1;
      while (hi - lo > 1)
        {
          int mid = lo + (hi - lo) / 2;
          if (L[mid] <= x)
            lo = mid;
          else
            hi = mid;
        }
      i = c->seg = lo;
    }
  /* Sync points are bounded (MPE_SPILL_SYNC_MAX), so these differences
   * cannot overflow. */
  int64_t span = L[i + 1] - L[i];
  if (span <= 0)
    return O[i + 1];
  int64_t d = O[i + 1] - O[i], p;
  if (!__builtin_mul_overflow (d, x - L[i], &p))
    return O[i] + p / span;
  return mpe_spill_add (O[i], mpe_spill_muldiv (d, x - L[i], span));
}

/* Absolute ns on rank 0's clock of local ns `local` (since the origin). */
static inline int64_t
mpe_spill_clock_correct (mpe_spill_clock_t *c, uint64_t local)
{
  int64_t x = (int64_t) local;
  return mpe_spill_add (mpe_spill_add (c->mono0, x),
                        mpe_spill_clock_offset (c, x));
}

/* The directory spill files go to by default: MPE_TMPDIR, TMPDIR, TMP,
 * TEMP, else /tmp (spill-read.c; libmpe writes there, recover looks
 * there). */
const char *mpe_spill_default_dir (void);

/* ---- Reading the files back (spill-read.c): recovery, fuzz targets.
 * Bytes come through a callback, so a file and memory read alike. ---- */
typedef int (*mpe_spill_read_cb) (void *ctx, uint64_t off, void *buf,
                                  size_t len);  /* 0, or -1: short read */
int mpe_spill_read_file_cb (void *file /* FILE * */, uint64_t off, void *buf,
                            size_t len);
typedef struct { const void *p; size_t len; } mpe_spill_mem_t;
int mpe_spill_read_mem_cb (void *mem /* mpe_spill_mem_t * */, uint64_t off,
                           void *buf, size_t len);

/* Frames of a spill file in order; damaged stretches are skipped to the
 * next aligned frame whose checksum holds. */
typedef struct
{
  mpe_spill_read_cb read;
  void     *ctx;
  uint64_t  size, off;
  uint32_t  version;
  void     *payload;    /* the last frame's payload (8-aligned), len + 1
                           bytes: a NUL follows it */
  size_t    cap;
  uint64_t  bad;        /* damaged stretches skipped */
} mpe_spill_scan_t;

/* 0; -1 not a spill file; -2 a newer version than this reader. */
int  mpe_spill_scan_init (mpe_spill_scan_t *s, mpe_spill_read_cb read,
                          void *ctx, uint64_t size);
/* Frames with no file header before them: a ring file's frame area of
 * `size` bytes. */
void mpe_spill_scan_area (mpe_spill_scan_t *s, mpe_spill_read_cb read,
                          void *ctx, uint64_t size);
/* 1 and the next good frame (*h; payload in s->payload, at file offset
 * *at), 0 at the end, -1 out of memory. */
int  mpe_spill_scan_next (mpe_spill_scan_t *s, mpe_spill_frame_t *h,
                          uint64_t *at);
void mpe_spill_scan_free (mpe_spill_scan_t *s);

/* META: "key value" lines. */
typedef struct
{
  int      rank, size;
  long     pid;
  char     host[256];
  uint64_t tick0, mult_fp;
  int64_t  mono0, real0;
  char     ring[4096];  /* ring file prefix, "" when none */
  char     memonly[128]; /* record families on that live in memory until
                            the finish (comma list), "" when none */
} mpe_spill_meta_t;
void mpe_spill_meta_parse (mpe_spill_meta_t *m, const char *text, size_t len);

/* SYNC: 0 and the point, or -1 (short, or beyond +-MPE_SPILL_SYNC_MAX). */
#define MPE_SPILL_SYNC_MAX ((int64_t) 1 << 61)
int  mpe_spill_sync_parse (const void *payload, size_t len, int64_t *l,
                           int64_t *off);

/* STATE, EVENT, COMM and METRIC definitions.  text: the payload followed
 * by a NUL (as the scanner leaves it); it is modified, and d points into
 * it. */
typedef struct
{
  int type;  /* MPE_SPILL_STATE, _EVENT, _COMM or _METRIC */
  logfmt_state_def_t  state;
  logfmt_event_def_t  event;
  logfmt_comm_def_t   comm;
  logfmt_metric_def_t metric;
} mpe_spill_def_t;
int  mpe_spill_def_parse (int type, char *text, size_t len,
                          mpe_spill_def_t *d);  /* 0, or -1: malformed */

/* The events of one data frame (PACKED, RAW or BLOCK) in batches; times
 * in ns since the local origin. */
typedef struct
{
  int                    type;
  mpe_spill_unpack_t     u;
  const mpe_spill_rec_t *p, *end;
  logfmt_event_t        *block;
  size_t                 nblock, iblock;
  uint64_t               tick0, mult_fp;
} mpe_spill_events_t;

/* 0, -1 damaged (err says why), -2 out of memory. payload: 8-aligned. */
int    mpe_spill_events_init (mpe_spill_events_t *it, int type,
                              const void *payload, size_t len,
                              uint64_t tick0, uint64_t mult_fp,
                              logfmt_error_t *err);
size_t mpe_spill_events_next (mpe_spill_events_t *it, logfmt_event_t *out,
                              size_t max);
/* Events of a PACKED frame that could not be read (damage at the end). */
uint32_t mpe_spill_events_unread (const mpe_spill_events_t *it);
void   mpe_spill_events_free (mpe_spill_events_t *it);

/* A ring file: the frames of its live areas, older area first, then the
 * records of its live parts' current rounds, oldest part first. */
typedef struct
{
  mpe_ring_header_t h;
  unsigned char    *area[2];
  size_t            area_len[2];  /* bytes of whole frames in each */
  mpe_spill_rec_t  *part[2];
  size_t            len[2];   /* valid records (slots) of each */
} mpe_ring_t;

/* 0; -1 not a usable ring file; -2 out of memory. */
int  mpe_ring_load (mpe_ring_t *r, mpe_spill_read_cb read, void *ctx,
                    uint64_t size);
void mpe_ring_free (mpe_ring_t *r);

/* Message matching, the one rule of the merge and of `clogtool recover`:
 * a receive pairs with a send of the same (destination, source,
 * communicator, tag), FIFO in corrected time (MPI's non-overtaking
 * order), ties broken by stream, then by the order within the stream. */
typedef struct
{
  int32_t  src, dst;
  uint32_t comm;
  int32_t  tag;
  int64_t  t;          /* corrected absolute ns */
  uint64_t size;
  uint32_t stream;     /* global stream */
  uint32_t seq;        /* order within its stream */
} mpe_spill_mend_t;

typedef struct
{
  logfmt_message_t m;  /* its times not set */
  int64_t ts, tr;      /* the ends' corrected times */
} mpe_spill_match_t;

/* The order matching works in (a qsort comparison). */
int mpe_spill_mend_cmp (const void *a, const void *b);
/* Pairs the ns sends with the nr receives (both sorted here): an array
 * of *nout entries, matched pairs and lone ends (the other stream
 * LOGFMT_NO_STREAM), in key order; NULL when memory runs out. */
mpe_spill_match_t *mpe_spill_match (mpe_spill_mend_t *s, size_t ns,
                                    mpe_spill_mend_t *r, size_t nr,
                                    size_t *nout);

#endif

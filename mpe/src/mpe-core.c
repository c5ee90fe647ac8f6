/* SPDX-License-Identifier: BSD-3-Clause */
/* Clock, per-thread buffers, the spill file and the crash path. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpe-internal.h"

atomic_int mpe__mode;
__thread mpe_tbuf_t *mpe__tls __attribute__ ((tls_model ("initial-exec")));
int mpe__use_tsc;
mpe_global_t mpe__g = { .lock = PTHREAD_MUTEX_INITIALIZER, .spill_fd = -1 };

/* ------------------------------------------------------------------ */
/* Clock                                                               */
/* ------------------------------------------------------------------ */

int64_t
mpe__mono_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
mpe__real_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The TSC is usable only if it ticks at a constant rate through
 * frequency changes and sleep states. */
static int
tsc_invariant (void)
{
  FILE *f = fopen ("/proc/cpuinfo", "r");
  if (!f)
    return 0;
  char line[8192];
  int found = 0;
  while (fgets (line, sizeof line, f))
    if (strncmp (line, "flags", 5) == 0)
      {
        found = strstr (line, " constant_tsc") && strstr (line, " nonstop_tsc");
        break;
      }
  fclose (f);
  return found;
}

/* A (tsc, mono) pair read as close together as possible. */
static void
tsc_pair (uint64_t *tsc, int64_t *mono)
{
  int64_t best = INT64_MAX;
  *tsc = 0;
  *mono = 0;
  for (int i = 0; i < 7; i++)
    {
      int64_t a = mpe__mono_ns ();
      uint64_t t = __rdtsc ();
      int64_t b = mpe__mono_ns ();
      if (b - a < best)
        {
          best = b - a;
          *tsc = t;
          *mono = a + (b - a) / 2;
        }
    }
}

void
mpe__clock_init (void)
{
  const char *no = getenv ("MPE_NO_TSC");
  mpe__use_tsc = tsc_invariant () && !(no && *no && *no != '0');
  if (mpe__use_tsc)
    {
      uint64_t t0, t1;
      int64_t m0, m1;
      tsc_pair (&t0, &m0);
      /* 3 ms of calibration: a few ppm, and the clock sync's
       * interpolation absorbs the residual rate error between ranks. */
      do
        tsc_pair (&t1, &m1);
      while (m1 - m0 < 3000000);
      mpe__g.mult = (double) (m1 - m0) / (double) (t1 - t0);
      mpe__g.tick0 = t0;
      mpe__g.mono0 = m0;
    }
  else
    {
      mpe__g.mult = 1.0;
      mpe__g.tick0 = (uint64_t) mpe__mono_ns ();
      mpe__g.mono0 = (int64_t) mpe__g.tick0;
    }
  mpe__g.mult_fp = (uint64_t) (mpe__g.mult * 4294967296.0 + 0.5);
  int64_t now = mpe__mono_ns ();
  mpe__g.real0 = mpe__real_ns () - (now - mpe__g.mono0);
}

/* ------------------------------------------------------------------ */
/* Thread buffers                                                      */
/* ------------------------------------------------------------------ */

/* Part p of b (0, or 1 = the half from mid) starts a new round: its
 * records get a new tag, published in the ring header before any of them
 * is written. */
static void
part_new_round (mpe_tbuf_t *b, int p)
{
  b->next_tag = (b->next_tag + 1) & 0xffffffu;
  if (b->next_tag == 0)
    b->next_tag = 1;
  b->tag = b->next_tag << 8;
  if (b->ring)
    {
      __atomic_store_n (&b->ring->tag[p], b->tag, __ATOMIC_RELEASE);
      __atomic_store_n (&b->ring->live[p], 1, __ATOMIC_RELEASE);
    }
}

/* Part p's records are in the spill file (or counted lost). */
static void
part_spilled (mpe_tbuf_t *b, int p)
{
  if (b->ring)
    __atomic_store_n (&b->ring->live[p], 0, __ATOMIC_RELEASE);
}

/* Empty buffer, split in two halves when the background spill is on. */
static void
tbuf_layout (mpe_tbuf_t *b)
{
  b->mid = mpe__g.spill_async && b->cap >= 8192 ? b->base + b->cap / 2
           : NULL;
  b->seg = b->base;
  b->pos = b->base;
  /* Room for the largest record (3 slots) or a begin+message pair (3),
   * plus the flush's own records (560, LOSS, 561: 4 slots). */
  b->end = (b->mid ? b->mid : b->base + b->cap) - 8;
  if (b->ring)
    {
      b->ring->split = b->mid ? (uint64_t) (b->mid - b->base) : b->cap;
      part_spilled (b, 1);
    }
  part_new_round (b, 0);
}

/* Ring files (spill/spillfmt.h, docs/SPILL-FORMAT.md). */
static void
ring_path (char *out, size_t len, int thread)
{
  snprintf (out, len, "%s.t%d" MPE_RING_SUFFIX, mpe__g.ring_prefix, thread);
}

/* Creates thread's ring file for cap slots and maps it, at `at` (MAP_FIXED,
 * replacing the mapping there) or anywhere.  Returns the mapping or NULL;
 * *len gets its length. */
static void *
ring_map (int thread, size_t cap, void *at, size_t *len)
{
  if (mpe__g.ring_off || !mpe__g.ring_prefix[0])
    return NULL;
  char path[4200];
  ring_path (path, sizeof path, thread);
  size_t bytes = MPE_RING_HEADER_SIZE + cap * sizeof (mpe_rec_t);
  bytes = (bytes + 4095) & ~(size_t) 4095;
  int fd = open (path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return NULL;
  /* Reserve the pages now: a full tmpfs must fail here, not raise SIGBUS
   * on the event path. */
  void *m = MAP_FAILED;
  if (posix_fallocate (fd, 0, (off_t) bytes) == 0)
    m = mmap (at, bytes, PROT_READ | PROT_WRITE,
              MAP_SHARED | (at ? MAP_FIXED : 0), fd, 0);
  close (fd);
  if (m == MAP_FAILED)
    {
      unlink (path);
      return NULL;
    }
  mpe_ring_header_t *h = m;
  memset (h, 0, sizeof *h);
  memcpy (h->magic, MPE_RING_MAGIC, 8);
  h->version = MPE_RING_VERSION;
  h->thread = (uint32_t) thread;
  h->cap = cap;
  h->split = cap;
  if (strlen (mpe__g.spill_path) < sizeof h->spill)
    strcpy (h->spill, mpe__g.spill_path);
  *len = bytes;
  return m;
}

static int ring_warned;

static void
ring_warn (void)
{
  if (mpe__g.ring_off || !mpe__g.ring_prefix[0] || ring_warned)
    return;
  ring_warned = 1;
  fprintf (stderr, "mpe: rank %d: cannot create the ring file %s.t*%s; "
           "records not yet spilled are lost if this process is killed\n",
           mpe__g.rank, mpe__g.ring_prefix, MPE_RING_SUFFIX);
}

mpe_tbuf_t *
mpe__tbuf_create (int want_thread0)
{
  if (mpe__tls)
    return mpe__tls;
  mpe_tbuf_t *b = calloc (1, sizeof *b);
  if (!b)
    return NULL;
  /* Each new thread gets half of what is left of the budget, so the
   * total stays within it (plus a small floor per thread). */
  size_t left = mpe__g.budget > atomic_load (&mpe__g.allocated)
                ? mpe__g.budget - atomic_load (&mpe__g.allocated) : 0;
  size_t bytes = left / 2;
  if (atomic_load (&mpe__g.nthreads) == 0 || want_thread0)
    bytes = mpe__g.budget / 2;
  if (bytes < 256 * 1024)
    bytes = 256 * 1024;
  b->cap = bytes / sizeof (mpe_rec_t);
  b->thread = atomic_fetch_add (&mpe__g.nthreads, 1);
  /* A ring file where possible, else anonymous memory with huge pages.
   * Either way faulted in now: a page fault on the event path costs far
   * more than the event. */
  void *m = ring_map (b->thread, b->cap, NULL, &b->map_len);
  if (m)
    {
      b->ring = m;
      b->ring_linked = 1;
      b->base = (mpe_rec_t *) (void *) ((char *) m + MPE_RING_HEADER_SIZE);
    }
  else
    {
      ring_warn ();
      b->map_len = (b->cap * sizeof (mpe_rec_t) + (2u << 20) - 1)
                   & ~(size_t) ((2u << 20) - 1);
      m = mmap (NULL, b->map_len, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED)
        {
          free (b);
          return NULL;
        }
#ifdef MADV_HUGEPAGE
      madvise (m, b->map_len, MADV_HUGEPAGE);
#endif
      b->base = m;
    }
  for (size_t o = 0; o < b->map_len; o += 4096)
    ((volatile char *) m)[o] = ((volatile char *) m)[o];
  atomic_fetch_add (&mpe__g.allocated, b->cap * sizeof (mpe_rec_t));
  tbuf_layout (b);
  pthread_mutex_lock (&mpe__g.lock);
  b->next = mpe__g.tbufs;
  mpe__g.tbufs = b;
  pthread_mutex_unlock (&mpe__g.lock);
  mpe__tls = b;
  return b;
}

/* The log is finished: its ring files go (the mappings stay, as the
 * buffers' memory, until a new log gives them new files). */
void
mpe__ring_detach_all (void)
{
  pthread_mutex_lock (&mpe__g.lock);
  for (mpe_tbuf_t *b = mpe__g.tbufs; b; b = b->next)
    if (b->ring && b->ring_linked)
      {
        char path[4200];
        ring_path (path, sizeof path, b->thread);
        unlink (path);
        b->ring_linked = 0;
      }
  pthread_mutex_unlock (&mpe__g.lock);
}

/* A new log: buffers kept from the last one get ring files again. */
void
mpe__ring_attach_all (void)
{
  pthread_mutex_lock (&mpe__g.lock);
  for (mpe_tbuf_t *b = mpe__g.tbufs; b; b = b->next)
    if (b->ring && !b->ring_linked)
      {
        size_t len;
        if (ring_map (b->thread, b->cap, b->ring, &len))
          {
            b->ring_linked = 1;
            for (size_t o = 0; o < len; o += 4096)
              ((volatile char *) b->ring)[o] = ((volatile char *) b->ring)[o];
            tbuf_layout (b);
          }
        else
          ring_warn ();
      }
  pthread_mutex_unlock (&mpe__g.lock);
}

void
mpe__tbuf_reset_all (void)
{
  mpe__spill_drain ();
  pthread_mutex_lock (&mpe__g.lock);
  for (mpe_tbuf_t *b = mpe__g.tbufs; b; b = b->next)
    {
      tbuf_layout (b);
      b->spilled = b->lost = b->flushes = 0;
    }
  pthread_mutex_unlock (&mpe__g.lock);
}

typedef struct
{
  mpe_tbuf_t *b;
  uint64_t    lost;
  uint64_t    written;
  int         err;
  int         nblocks;
  int         first_failed;
  /* Burst mode (spill thread): frames gathered here, written at once. */
  int         burst;
  unsigned char *mem;
  size_t      memlen, memcap;
  uint64_t    pending;
} spill_ctx_t;

static int
burst_add (spill_ctx_t *c, const void *block, size_t len, uint64_t count)
{
  size_t need = sizeof (mpe_spill_frame_t) + mpe_spill_pad8 (len);
  if (c->memlen + need > c->memcap)
    {
      size_t nc = c->memcap ? c->memcap : 1u << 20;
      while (nc < c->memlen + need)
        nc *= 2;
      unsigned char *nm = realloc (c->mem, nc);
      if (!nm)
        return -ENOMEM;
      c->mem = nm;
      c->memcap = nc;
    }
  mpe_spill_frame_t h = { MPE_SPILL_FRAME_MAGIC, MPE_SPILL_PACKED,
                          (uint16_t) c->b->thread, (uint32_t) len,
                          mpe_spill_sum (block, len) };
  unsigned char *p = c->mem + c->memlen;
  memcpy (p, &h, sizeof h);
  memcpy (p + sizeof h, block, len);
  memset (p + sizeof h + len, 0, mpe_spill_pad8 (len) - len);
  c->memlen += need;
  c->pending += count;
  return 0;
}

/* Test hook: the process dies as the launcher would kill it, in the
 * middle of a spill, after a given number of frames reached the file. */
static void
test_kill_point (int nframes)
{
  static atomic_long written;
  if (mpe__g.kill_in_spill > 0
      && atomic_fetch_add (&written, nframes) + nframes
         >= mpe__g.kill_in_spill)
    kill (getpid (), SIGKILL);
}

/* One PACKED frame of `count` events: written, or gathered (burst). */
static void
spill_frame_out (spill_ctx_t *c, const void *payload, size_t len,
                 uint64_t count)
{
  if (c->burst && burst_add (c, payload, len, count) == 0)
    {
      c->nblocks++;
      return;
    }
  int rc = mpe__spill_frame (MPE_SPILL_PACKED, c->b->thread, payload, len);
  if (c->nblocks++ == 0)
    c->first_failed = rc != 0;
  if (rc != 0)
    {
      /* Go on: later frames may still fit; count what is lost. */
      c->lost += count;
      c->err = rc;
    }
  else
    {
      c->b->spilled += count;
      c->written += count;
      test_kill_point (1);
    }
}

static int spill_burst_write (spill_ctx_t *c);


/* Packs [from, to) of b into the spill file; returns events lost.  Packed
 * records, not logfmt blocks: a spill often runs on the program's critical
 * path (no spare core for the spill thread), and the merge encodes them
 * anyway.  burst (the spill thread): the frames are written with one pwrite
 * at the end, so that the crash path knows whether they are in the file. */
static uint64_t
spill_records (mpe_tbuf_t *b, const mpe_rec_t *from, const mpe_rec_t *to,
               int burst)
{
  enum { FRAME = 256 * 1024 };  /* packed bytes per frame */
  spill_ctx_t ctx = { .b = b, .burst = burst };
  unsigned char *buf = malloc (FRAME);
  uint64_t total = 0;
  const mpe_rec_t *p = from;
  if (!buf)
    {
      /* No memory to pack into: count every event in the range as lost. */
      while (p < to)
        {
          total++;
          p += 1 + mpe_spill_rec_ext (p->aux);
        }
      return total;
    }
  while (p < to)
    {
      size_t len = mpe_spill_pack (&p, to, buf, FRAME);
      if (len == 0)
        break;
      uint32_t n;
      memcpy (&n, buf + 8, 4);
      spill_frame_out (&ctx, buf, len, n);
    }
  free (buf);
  if (burst && spill_burst_write (&ctx) != 0)
    {
      /* Not written (full disk, or the crash path took the records). */
      ctx.lost += ctx.pending;
      if (ctx.nblocks)
        ctx.first_failed = 1;
    }
  free (ctx.mem);
  /* The previous flush's LOSS record sits in the first frame (after the
   * 560 event): if that frame is lost, carry its count forward instead of
   * counting the record itself, so the LOSS records that survive always
   * add up to the events lost. */
  if (ctx.lost && (ctx.first_failed || ctx.nblocks == 0))
    for (const mpe_rec_t *q = from; q < to && q < from + 4;
         q += 1 + mpe_spill_rec_ext (q->aux))
      if ((q->aux & 0xffu) == MPE_REC_LOSS)
        {
          uint64_t carried;
          memcpy (&carried, q + 1, 8);
          ctx.lost = ctx.lost - 1 + carried;
          b->lost -= carried;  /* already counted in b->lost */
          break;
        }
  return ctx.lost;
}

static int warned_spill;
static atomic_int crash_done;

/* ------------------------------------------------------------------ */
/* Background spill thread                                             */
/* ------------------------------------------------------------------ */

/* One thread per process encodes and writes full halves, in the order
 * they were queued, while the loggers go on in their other halves.  A
 * logger whose other half is still being spilled waits for it (bounded
 * memory, nothing dropped). */
static pthread_mutex_t sq_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sq_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t sq_done = PTHREAD_COND_INITIALIZER;
static mpe_tbuf_t *sq_head, *sq_tail;
static atomic_int sq_state;  /* 0 not started, 1 running, -1 failed */

static void *
spill_main (void *arg)
{
  (void) arg;
  pthread_mutex_lock (&sq_lock);
  for (;;)
    {
      while (sq_head == NULL)
        pthread_cond_wait (&sq_work, &sq_lock);
      mpe_tbuf_t *b = sq_head;
      sq_head = b->job_next;
      if (sq_head == NULL)
        sq_tail = NULL;
      pthread_mutex_unlock (&sq_lock);
      uint64_t lost = spill_records (b, b->job_from, b->job_to, 1);
      pthread_mutex_lock (&sq_lock);
      b->job_lost = lost;
      if (atomic_load (&b->job) != MPE_JOB_ABANDONED)
        {
          part_spilled (b, b->job_from != b->base);
          atomic_store (&b->job, MPE_JOB_DONE);
        }
      pthread_cond_broadcast (&sq_done);
    }
  return NULL;
}

/* The frames gathered by the spill thread, in one write.  Returns 0 when
 * they are in the file. */
static int
spill_burst_write (spill_ctx_t *c)
{
  /* Tell the crash path a write may be under way, then look whether it
   * has already taken these records (seq_cst: one of the two sees the
   * other). */
  atomic_store (&c->b->job, MPE_JOB_WRITING);
  if (atomic_load (&crash_done))
    {
      atomic_store (&c->b->job, MPE_JOB_ABANDONED);
      return -1;
    }
  if (c->memlen == 0)
    return 0;
  if (mpe__g.spill_fail_hook || mpe__g.spill_fd < 0)
    return -1;
  uint64_t off = atomic_fetch_add (&mpe__g.spill_off, c->memlen);
  const unsigned char *p = c->mem;
  size_t len = c->memlen;
  while (len)
    {
      ssize_t w = pwrite (mpe__g.spill_fd, p, len, (off_t) off);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return -1;  /* a frame scan stops at the torn frame */
      p += w;
      len -= (size_t) w;
      off += (uint64_t) w;
    }
  c->b->spilled += c->pending;
  c->written += c->pending;
  c->pending = 0;
  test_kill_point (c->nblocks);
  return 0;
}

static int
spill_thread_start (void)
{
  int st = atomic_load (&sq_state);
  if (st != 0)
    return st == 1 ? 0 : -1;
  pthread_mutex_lock (&sq_lock);
  if ((st = atomic_load (&sq_state)) != 0)
    {
      pthread_mutex_unlock (&sq_lock);
      return st == 1 ? 0 : -1;
    }
  pthread_t t;
  pthread_attr_t a;
  sigset_t all, old;
  /* The spill thread never takes a signal: the crash handler runs on a
   * logging thread, which can then wait for a write in progress. */
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &old);
  pthread_attr_init (&a);
  pthread_attr_setdetachstate (&a, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create (&t, &a, spill_main, NULL);
  pthread_attr_destroy (&a);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  atomic_store (&sq_state, rc == 0 ? 1 : -1);
  pthread_mutex_unlock (&sq_lock);
  return rc == 0 ? 0 : -1;
}

/* Waits for b's job, if any; returns the events it lost. */
static uint64_t
job_collect (mpe_tbuf_t *b)
{
  int st = atomic_load (&b->job);
  if (st == MPE_JOB_IDLE)
    return 0;
  pthread_mutex_lock (&sq_lock);
  while ((st = atomic_load (&b->job)) == MPE_JOB_QUEUED
         || st == MPE_JOB_WRITING)
    pthread_cond_wait (&sq_done, &sq_lock);
  uint64_t lost = b->job_lost;
  atomic_store (&b->job, MPE_JOB_IDLE);
  pthread_mutex_unlock (&sq_lock);
  return lost;
}

static void
job_queue (mpe_tbuf_t *b, const mpe_rec_t *from, const mpe_rec_t *to)
{
  pthread_mutex_lock (&sq_lock);
  b->job_from = from;
  b->job_to = to;
  b->job_lost = 0;
  b->job_next = NULL;
  atomic_store (&b->job, MPE_JOB_QUEUED);
  if (sq_tail)
    sq_tail->job_next = b;
  else
    sq_head = b;
  sq_tail = b;
  pthread_cond_signal (&sq_work);
  pthread_mutex_unlock (&sq_lock);
}

static void
note_loss (uint64_t lost)
{
  if (lost && !warned_spill)
    {
      warned_spill = 1;
      fprintf (stderr, "mpe: rank %d: cannot write the spill file %s; "
               "events are being lost\n", mpe__g.rank, mpe__g.spill_path);
    }
}

/* Every thread's spill in flight is written; a loss it reports goes into
 * a LOSS record at the thread's current position. */
void
mpe__spill_drain (void)
{
  pthread_mutex_lock (&mpe__g.lock);
  mpe_tbuf_t *list = mpe__g.tbufs;
  pthread_mutex_unlock (&mpe__g.lock);
  for (mpe_tbuf_t *b = list; b; b = b->next)
    {
      uint64_t lost = job_collect (b);
      if (lost == 0)
        continue;
      note_loss (lost);
      b->lost += lost;
      /* end leaves 8 slots: always room for these 2. */
      mpe_rec_t *r = b->pos;
      r->t = mpe__ticks ();
      r->id = 0;
      r->aux = MPE_REC_LOSS | b->tag;
      uint64_t ext[2] = { lost, 0 };
      memcpy (r + 1, ext, 16);
      b->pos = r + 2;
    }
}

/* The buffer (or half) is full: spill it, log the flush as state 280 and
 * any loss as a LOSS record where it happened.  Returns the new write
 * position. */
mpe_rec_t *
mpe__tbuf_full (mpe_tbuf_t *b)
{
  uint64_t t0 = mpe__ticks ();
  b->in_flush = 1;
  uint64_t lost = 0;
  if (b->mid && mpe__g.spill_fd >= 0 && spill_thread_start () == 0)
    {
      /* The other half must be on disk before it is reused. */
      lost = job_collect (b);
      job_queue (b, b->seg, b->pos);
      b->seg = b->seg == b->base ? b->mid : b->base;
      b->end = (b->seg == b->base ? b->mid : b->base + b->cap) - 8;
      part_new_round (b, b->seg != b->base);
    }
  else
    {
      if (mpe__g.spill_fd >= 0)
        lost = spill_records (b, b->seg, b->pos, 0);
      else
        for (const mpe_rec_t *p = b->seg; p < b->pos;
             p += 1 + mpe_spill_rec_ext (p->aux))
          lost++;
      part_new_round (b, 0);
    }
  note_loss (lost);
  b->lost += lost;
  b->flushes++;
  mpe_rec_t *r = b->seg;
  if (mpe__g.log_overhead)
    {
      r->t = t0;
      r->id = MPE_KNOWN_STATE_START (280);
      r->aux = MPE_REC_BARE | b->tag;
      r++;
      if (!atomic_exchange (&mpe__g.flush_defined, 1))
        mpe__add_def (1, MPE_KNOWN_STATE_START (280), MPE_KNOWN_STATE_END (280),
                      "CLOG_Buffer_write2disk", "maroon", NULL, 1);
    }
  if (lost)
    {
      r->t = t0;
      r->id = 0;
      r->aux = MPE_REC_LOSS | b->tag;
      uint64_t ext[2] = { lost, 0 };
      memcpy (r + 1, ext, 16);
      r += 2;
    }
  if (mpe__g.log_overhead)
    {
      r->t = mpe__ticks ();
      r->id = MPE_KNOWN_STATE_END (280);
      r->aux = MPE_REC_BARE | b->tag;
      r++;
    }
  b->pos = r;
  b->in_flush = 0;
  return r;
}

/* ------------------------------------------------------------------ */
/* Spill file                                                          */
/* ------------------------------------------------------------------ */

static const char *
tmp_dir (void)
{
  static const char *vars[] = { "MPE_TMPDIR", "TMPDIR", "TMP", "TEMP" };
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    {
      const char *v = getenv (vars[i]);
      if (v && *v)
        return v;
    }
  return "/tmp";
}

/* Ring files of processes that died and whose spill file is gone can
 * never be recovered: they would only hold memory in /dev/shm.  Removes
 * them (the header names the spill file; a ring we cannot read as one is
 * left alone). */
static void
ring_sweep (const char *ring_dir)
{
  DIR *d = opendir (ring_dir);
  if (!d)
    return;
  struct dirent *de;
  size_t pl = strlen (MPE_SPILL_NAME_PREFIX), sl = strlen (MPE_RING_SUFFIX);
  while ((de = readdir (d)))
    {
      /* mpe-<run>-<rank>-<pid>.t<thread>.ring */
      const char *n = de->d_name;
      size_t len = strlen (n);
      if (strncmp (n, MPE_SPILL_NAME_PREFIX, pl) != 0 || len <= pl + sl
          || strcmp (n + len - sl, MPE_RING_SUFFIX) != 0)
        continue;
      const char *dot = strstr (n, ".t");
      const char *dash = dot ? memrchr (n, '-', (size_t) (dot - n)) : NULL;
      if (!dash)
        continue;
      long pid = strtol (dash + 1, NULL, 10);
      if (pid <= 0 || kill ((pid_t) pid, 0) == 0 || errno != ESRCH)
        continue;
      char ring[8192];
      snprintf (ring, sizeof ring, "%s/%s", ring_dir, n);
      int fd = open (ring, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        continue;
      mpe_ring_header_t h;
      ssize_t got = pread (fd, &h, sizeof h, 0);
      close (fd);
      if (got != (ssize_t) sizeof h || memcmp (h.magic, MPE_RING_MAGIC, 8)
          || !h.spill[0] || memchr (h.spill, 0, sizeof h.spill) == NULL)
        continue;
      if (access (h.spill, F_OK) != 0 && errno == ENOENT)
        unlink (ring);
    }
  closedir (d);
}

/* MPE_RING_DIR: where the ring files go; "none" keeps the buffers in
 * anonymous memory.  Default /dev/shm (memory: nothing is written to a
 * disk during the run), else the spill directory. */
static void
ring_setup (void)
{
  const char *d = getenv ("MPE_RING_DIR");
  mpe__g.ring_off = d && (!strcmp (d, "none") || !strcmp (d, "no")
                          || !strcmp (d, "off"));
  if (!d || !*d)
    d = access ("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : tmp_dir ();
  if (mpe__g.ring_off)
    mpe__g.ring_prefix[0] = '\0';
  else
    {
      ring_sweep (d);
      snprintf (mpe__g.ring_prefix, sizeof mpe__g.ring_prefix,
              "%s/" MPE_SPILL_NAME_PREFIX "%s-%06d-%ld", d, mpe__g.runid,
              mpe__g.rank, (long) getpid ());
    }
}

int
mpe__spill_open (void)
{
  snprintf (mpe__g.spill_path, sizeof mpe__g.spill_path,
            "%s/" MPE_SPILL_NAME_PREFIX "%s-%06d-%ld" MPE_SPILL_NAME_SUFFIX,
            tmp_dir (), mpe__g.runid, mpe__g.rank, (long) getpid ());
  ring_setup ();
  int fd = open (mpe__g.spill_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
                 0600);
  if (fd < 0)
    {
      fprintf (stderr, "mpe: rank %d: cannot create %s: %s\n", mpe__g.rank,
               mpe__g.spill_path, strerror (errno));
      mpe__g.ring_prefix[0] = '\0';  /* nothing could tell where it is */
      return -1;
    }
  unsigned char hdr[MPE_SPILL_HEADER_SIZE] = { 0 };
  memcpy (hdr, MPE_SPILL_MAGIC, 8);
  uint32_t v = MPE_SPILL_VERSION, hs = MPE_SPILL_HEADER_SIZE;
  memcpy (hdr + 8, &v, 4);
  memcpy (hdr + 12, &hs, 4);
  if (pwrite (fd, hdr, sizeof hdr, 0) != (ssize_t) sizeof hdr)
    {
      close (fd);
      unlink (mpe__g.spill_path);
      mpe__g.ring_prefix[0] = '\0';
      return -1;
    }
  atomic_store (&mpe__g.spill_off, MPE_SPILL_HEADER_SIZE);
  mpe__g.spill_fd = fd;
  return 0;
}

void
mpe__spill_close (int remove_file)
{
  mpe__ring_detach_all ();
  if (mpe__g.spill_fd < 0)
    return;
  close (mpe__g.spill_fd);
  mpe__g.spill_fd = -1;
  if (remove_file)
    unlink (mpe__g.spill_path);
}

/* A failed finish: the spill file and the ring files stay where
 * `clogtool recover` finds them.  The buffers get fresh anonymous memory
 * in place of their ring files, so a later log cannot write into them. */
void
mpe__spill_keep (void)
{
  pthread_mutex_lock (&mpe__g.lock);
  for (mpe_tbuf_t *b = mpe__g.tbufs; b; b = b->next)
    if (b->ring && b->ring_linked
        && mmap (b->ring, b->map_len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
      b->ring_linked = 0;
  pthread_mutex_unlock (&mpe__g.lock);
  if (mpe__g.spill_fd < 0)
    return;
  fsync (mpe__g.spill_fd);
  close (mpe__g.spill_fd);
  mpe__g.spill_fd = -1;
}

static int
pwrite_all (int fd, const void *p, size_t len, uint64_t off)
{
  const char *c = p;
  while (len)
    {
      ssize_t w = pwrite (fd, c, len, (off_t) off);
      if (w < 0)
        {
          if (errno == EINTR)
            continue;
          return -errno;
        }
      if (w == 0)
        return -ENOSPC;
      c += w;
      len -= (size_t) w;
      off += (uint64_t) w;
    }
  return 0;
}

/* Async-signal-safe: an atomic offset reservation and pwrite. */
int
mpe__spill_frame (int type, int thread, const void *p, size_t len)
{
  int fd = mpe__g.spill_fd;
  if (fd < 0)
    return -EBADF;
  if (type == MPE_SPILL_PACKED && mpe__g.spill_fail_hook)
    return -ENOSPC;
  uint64_t padded = mpe_spill_pad8 (len);
  uint64_t off = atomic_fetch_add (&mpe__g.spill_off,
                                   sizeof (mpe_spill_frame_t) + padded);
  mpe_spill_frame_t h = { MPE_SPILL_FRAME_MAGIC, (uint16_t) type,
                          (uint16_t) thread, (uint32_t) len,
                          mpe_spill_sum (p, len) };
  int rc = pwrite_all (fd, &h, sizeof h, off);
  if (rc == 0)
    rc = pwrite_all (fd, p, len, off + sizeof h);
  if (rc == 0 && padded > len)
    {
      static const char zeros[8];
      rc = pwrite_all (fd, zeros, padded - len, off + sizeof h + len);
    }
  return rc;
}

void
mpe__spill_meta (void)
{
  char buf[2048];
  int n = snprintf (buf, sizeof buf,
                    "rank %d\nsize %d\npid %ld\nhost %s\nrunid %s\n"
                    "clock %s\ntick0 %llu\nmult %.17g\nmult_fp %llu\n"
                    "mono0 %lld\nreal0 %lld\nring %s\n"
                    "creator mpe " PACKAGE_VERSION "\n",
                    mpe__g.rank, mpe__g.size, (long) getpid (), mpe__g.host,
                    mpe__g.runid, mpe__use_tsc ? "tsc" : "mono",
                    (unsigned long long) mpe__g.tick0, mpe__g.mult,
                    (unsigned long long) mpe__g.mult_fp,
                    (long long) mpe__g.mono0, (long long) mpe__g.real0,
                    mpe__g.ring_prefix[0] ? mpe__g.ring_prefix : "none");
  if (n > 0)
    mpe__spill_frame (MPE_SPILL_META, 0, buf, (size_t) n);
}

/* ------------------------------------------------------------------ */
/* Crash path                                                          */
/* ------------------------------------------------------------------ */

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGABRT, SIGTERM,
                                     SIGINT, SIGFPE };
#define NCRASH ((int) (sizeof crash_signals / sizeof crash_signals[0]))
static struct sigaction old_actions[NCRASH];
static int crash_installed;

/* Writes what every thread holds in memory as RAW frames.  Only
 * async-signal-safe calls; runs at most once per log.  sync: fsync the
 * file too (the crash path; the page cache already outlives a killed
 * process, fsync only guards against the node going down). */
static void
save_memory (int sync)
{
  if (mpe__g.state != 1 || mpe__g.spill_fd < 0)
    return;
  if (atomic_exchange (&crash_done, 1))
    return;
  atomic_store (&mpe__mode, 0);
  for (mpe_tbuf_t *b = mpe__g.tbufs; b; b = b->next)
    {
      /* A half being spilled: wait (bounded) for a write under way, and
       * write the records as RAW if they did not reach the file. */
      int st = atomic_load (&b->job);
      for (int i = 0; st == MPE_JOB_WRITING && i < 2000; i++)
        {
          struct timespec ts = { 0, 1000000 };
          nanosleep (&ts, NULL);
          st = atomic_load (&b->job);
        }
      if (st == MPE_JOB_QUEUED || st == MPE_JOB_ABANDONED)
        {
          atomic_store (&b->job, MPE_JOB_ABANDONED);
          if (b->job_to > b->job_from)
            mpe__spill_frame (MPE_SPILL_RAW, b->thread, b->job_from,
                              (size_t) (b->job_to - b->job_from)
                              * sizeof (mpe_rec_t));
        }
      mpe_rec_t *end = b->pos;
      if (end > b->seg)
        mpe__spill_frame (MPE_SPILL_RAW, b->thread, b->seg,
                          (size_t) (end - b->seg) * sizeof (mpe_rec_t));
    }
  if (sync)
    fsync (mpe__g.spill_fd);
}

void
mpe__crash_flush (void)
{
  save_memory (1);
}

void
mpe__save_memory (void)
{
  save_memory (0);
}

static void
crash_handler (int sig)
{
  mpe__crash_flush ();
  for (int i = 0; i < NCRASH; i++)
    if (crash_signals[i] == sig)
      sigaction (sig, &old_actions[i], NULL);
  /* Blocked until we return; then the previous action runs (by default,
   * the process dies with this signal, as it would have). */
  raise (sig);
}

static void
at_exit_flush (void)
{
  /* exit() without MPE_Finish_log, e.g. from MPI_Abort. */
  mpe__crash_flush ();
}

void
mpe__crash_install (void)
{
  atomic_store (&crash_done, 0);
  if (crash_installed)
    return;
  crash_installed = 1;
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = crash_handler;
  sigemptyset (&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int i = 0; i < NCRASH; i++)
    sigaction (crash_signals[i], &sa, &old_actions[i]);
  atexit (at_exit_flush);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* A full buffer goes to the spill file: packed on the logging thread, or
 * by the background spill thread while the logger fills the other half. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpe-internal.h"

enum { FRAME = 256 * 1024 };  /* packed bytes per frame, at most */

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
  if (mpe__g.gather_frames > 0 && c->nblocks >= mpe__g.gather_frames)
    return -ENOMEM;
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
  unsigned char *p = c->mem + c->memlen;
  memcpy (p + sizeof (mpe_spill_frame_t), block, len);
  c->memlen += mpe__frame_seal (p, MPE_SPILL_PACKED, c->b->thread, len);
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

static void burst_flush (spill_ctx_t *c);

/* One PACKED frame of `count` events: written, or gathered (burst). */
static void
spill_frame_out (spill_ctx_t *c, const void *payload, size_t len,
                 uint64_t count)
{
  if (c->burst)
    {
      if (burst_add (c, payload, len, count) == 0)
        {
          c->nblocks++;
          return;
        }
      /* No memory to gather this frame: the gathered ones go first, so
       * the file keeps the thread's time order, then the rest one by
       * one (none once the crash path has taken the records). */
      burst_flush (c);
      c->burst = 0;
    }
  int rc = mpe__crash_taken () ? -ECANCELED
           : mpe__spill_frame (MPE_SPILL_PACKED, c->b->thread, payload, len);
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
      MPE_PUBLISH (c->b->spilled, c->b->spilled + count);
      c->written += count;
      test_kill_point (1);
    }
}

static int spill_burst_write (spill_ctx_t *c);

/* The events and frames wholly within the first `done` bytes of frames
 * built in memory (a torn write keeps those). */
static uint64_t
frames_events (const unsigned char *p, size_t done, int *nframes)
{
  uint64_t events = 0;
  size_t o = 0;
  *nframes = 0;
  while (o + sizeof (mpe_spill_frame_t) <= done)
    {
      mpe_spill_frame_t h;
      memcpy (&h, p + o, sizeof h);
      size_t whole = sizeof h + mpe_spill_pad8 (h.len);
      if (whole > done - o)
        break;
      uint32_t n;
      memcpy (&n, p + o + sizeof h + 8, 4);
      events += n;
      (*nframes)++;
      o += whole;
    }
  return events;
}

/* Frames built in memory (`events` in *nframes of them) to the file in
 * one write; direct I/O where cap (the memory's room, aligned) is not 0.
 * Returns the events that reached it, now published: all of them, or
 * after a failed or torn write those of the frames before the tear
 * (*nframes: how many). */
static uint64_t
frames_write (mpe_tbuf_t *b, unsigned char *frames, size_t len, size_t cap,
              uint64_t events, int *nframes)
{
  size_t done;
  uint64_t in = events;
  int rc = cap ? mpe__spill_frames_direct (frames, len, cap, &done)
               : mpe__spill_frames (frames, len, &done);
  if (rc != 0)
    in = frames_events (frames, done, nframes);
  MPE_PUBLISH (b->spilled, b->spilled + in);
  test_kill_point (*nframes);
  return in;
}

/* The previous flush's LOSS record sits in the first frame (after the
 * 560 event): if that frame is lost, carry its count forward instead of
 * counting the record itself, so the LOSS records that survive always
 * add up to the events lost. */
static uint64_t
carry_loss (mpe_tbuf_t *b, const mpe_rec_t *from, const mpe_rec_t *to,
            uint64_t lost)
{
  for (const mpe_rec_t *q = from; q < to && q < from + 4;
       q += 1 + mpe_spill_rec_ext (q->aux))
    if ((q->aux & 0xffu) == MPE_REC_LOSS)
      {
        uint64_t carried;
        memcpy (&carried, q + 1, 8);
        /* Already counted in b->lost, which the logging thread adds to
         * while this runs on the spill thread. */
        __atomic_fetch_sub (&b->lost, carried, __ATOMIC_RELAXED);
        return lost - 1 + carried;
      }
  return lost;
}

/* f's frames (records [from, to) of b) to the file in one write, direct
 * I/O with `direct`.  Returns the events lost: what did not reach the
 * file, the first frame's LOSS record carried if that one did not. */
static uint64_t
frames_out (mpe_tbuf_t *b, mpe_frames_t *f, int direct,
            const mpe_rec_t *from, const mpe_rec_t *to)
{
  int nframes = f->frames;
  uint64_t in = frames_write (b, f->buf, f->len, direct ? f->cap : 0,
                              f->events, &nframes);
  uint64_t lost = f->events - in;
  if (lost && nframes == 0 && f->area >= 0)
    {
      /* A packed area's LOSS records went with it: count what they
       * reported, not the records. */
      __atomic_fetch_sub (&b->lost, f->carried, __ATOMIC_RELAXED);
      lost = lost - f->loss + f->carried;
    }
  else if (lost && nframes == 0)
    lost = carry_loss (b, from, to, lost);
  return lost;
}


/* Packs [from, to) of b into the spill file; returns events lost.  Packed
 * records, not logfmt blocks: a spill often runs on the program's critical
 * path (no spare core for the spill thread), and the merge encodes them
 * anyway.  burst (the spill thread): the frames are written with one pwrite
 * at the end, so that the crash path knows whether they are in the file. */
static uint64_t
spill_records (mpe_tbuf_t *b, const mpe_rec_t *from, const mpe_rec_t *to,
               int burst)
{
  spill_ctx_t ctx = { .b = b, .burst = burst };
  /* The logger's own spill packs in pk's free end where there is room:
   * memory in use, no page faults (64 a spill from a fresh 256 KB). */
  unsigned char *scratch = !burst && b->pk.buf
                           && b->pk.cap - b->pk.len >= FRAME
                           ? b->pk.buf + b->pk.len : NULL;
  unsigned char *buf = scratch ? scratch : malloc (FRAME);
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
  if (buf != scratch)
    free (buf);
  if (ctx.burst)
    burst_flush (&ctx);
  free (ctx.mem);
  if (ctx.lost && (ctx.first_failed || ctx.nblocks == 0))
    ctx.lost = carry_loss (b, from, to, ctx.lost);
  return ctx.lost;
}

/* ------------------------------------------------------------------ */
/* Inline spilling, a window at a time                                 */
/* ------------------------------------------------------------------ */

/* Slots per window: 128 KB, an eighth of this machine's L2, so the
 * records are packed while still in the cache, not read back from
 * memory at the round's end (about half the cost of a spill).  Against
 * 512 KB: the packing 0.61 -> 0.56 ns a record (bench/spill-pack's
 * loop), 2 ranks with write-behind 1.143 -> 1.133x the floor paired
 * (10 rounds by turns; lower in 14 of 16). */
enum { PACK_WINDOW = 8192 };
/* pk holds a frame at least. */
enum { PK_MIN = FRAME + 4096 };

static mpe_rec_t *
window_end (const mpe_tbuf_t *b, const mpe_rec_t *from)
{
  return b->round_end - from > PACK_WINDOW ? (mpe_rec_t *) from + PACK_WINDOW
                                           : b->round_end;
}

/* The frames a round may keep: an eighth of the buffer, in whole blocks
 * for direct I/O. */
static size_t
pk_most (const mpe_tbuf_t *b)
{
  size_t most = mpe__dio_up (b->cap * sizeof (mpe_rec_t) / 8);
  return most < PK_MIN ? PK_MIN : most;
}

/* Frame memory of `bytes`, faulted in now, not on the event path.
 * Returns 0, or -1 (f unchanged) without memory. */
static int
frames_alloc (mpe_frames_t *f, size_t bytes)
{
  unsigned char *p = aligned_alloc (MPE_DIO_ALIGN, bytes);
  if (!p)
    return -1;
  for (size_t o = 0; o < bytes; o += 4096)
    p[o] = 0;
  f->buf = p;
  f->cap = bytes;
  return 0;
}

static void
frames_empty (mpe_frames_t *f)
{
  f->len = 0;
  f->events = 0;
  f->frames = 0;
  f->carried = 0;
  f->loss = 0;
}

/* The ring file's area that f's memory is: now empty and the newest
 * (open), or its frames in the spill file (closed). */
static void
area_open (mpe_tbuf_t *b, mpe_frames_t *f)
{
  frames_empty (f);
  if (!b->ring || f->area < 0)
    return;
  /* Empty before it is the newest: a crash meanwhile finds it dead. */
  __atomic_store_n (&b->ring->frames_live[f->area], 0, __ATOMIC_RELEASE);
  __atomic_store_n (&b->ring->frames_len[f->area], 0, __ATOMIC_RELEASE);
  __atomic_store_n (&b->ring->frames_gen[f->area], ++b->area_gen,
                    __ATOMIC_RELEASE);
  __atomic_store_n (&b->ring->frames_live[f->area], 1, __ATOMIC_RELEASE);
}

static void
area_close (mpe_tbuf_t *b, mpe_frames_t *f)
{
  if (b->ring && f->area >= 0)
    __atomic_store_n (&b->ring->frames_live[f->area], 0, __ATOMIC_RELEASE);
}

/* Packed write-behind: two windows of slots (what the logger writes stays
 * in its L2: against a 32 MB half, the loop ran 4% faster on 2 ranks),
 * the rest of the share in two frame areas. */
enum { WB_SLOTS = 2 * PACK_WINDOW + 8 };

void
mpe__wb_layout (size_t bytes, size_t *slots, size_t *area)
{
  size_t raw = WB_SLOTS * sizeof (mpe_rec_t);
  size_t a = bytes > raw ? (bytes - raw) / 2 : 0;
  a = mpe__dio_up (a);
  *slots = WB_SLOTS;
  *area = a < PK_MIN ? mpe__dio_up (PK_MIN) : a;
}

void
mpe__tbuf_windows (mpe_tbuf_t *b)
{
  if (b->packed_wb)
    {
      /* A new log: both areas empty, pk the newest. */
      frames_empty (&b->pk2);
      area_close (b, &b->pk2);
      area_open (b, &b->pk);
      b->pk_from = b->packed = b->seg;
      /* With a packer, a window is a part (round_end its end). */
      b->wend = b->pack_async ? b->round_end : window_end (b, b->pos);
      b->pack.from = b->pack.to = NULL;
      b->win_carried = b->pack_carried = 0;
      b->win_loss = b->pack_loss = 0;
      b->pack_handoffs = 0;
      return;
    }
  /* The logger packs its windows when it spills inline. */
  int windows = !b->mid;
  if (windows && !b->pk.buf)
    frames_alloc (&b->pk, pk_most (b));
  frames_empty (&b->pk);
  if (!windows)
    b->wend = b->round_end;
  else if (b->flushes == 0 && !b->mid)
    {
      /* The first round's windows begin halfway: a program whose records
       * fit in the buffer never spills and packs at most half of them
       * for nothing, one that spills packs only the first half from
       * memory at the round's end (about 5 TSC ticks a record, against
       * 2 in the cache: 6.3 ms for a 32 MB round here). */
      b->pk_from = b->packed = NULL;
      b->wend = b->seg + (b->round_end - b->seg) / 2;
    }
  else
    {
      b->pk_from = b->packed = b->seg;
      b->wend = window_end (b, b->pos);
    }
}

/* A frame's header and padding. */
enum { PK_OVER = sizeof (mpe_spill_frame_t) + 8 };

/* pk has no room for another frame. */
static int
pk_full (const mpe_tbuf_t *b)
{
  return b->pk.cap < b->pk.len + PK_OVER + 4096;
}

/* Packs [*from, to) into frames at the end of pk, moving *from on.
 * Returns -1 when pk cannot hold them (an eighth of the buffer, or an
 * area): the rest of the round is then packed at its end, as without
 * windows, or the area handed over. */
static int
pk_add (mpe_tbuf_t *b, const mpe_rec_t **from, const mpe_rec_t *to)
{
  while (*from < to)
    {
      /* Full; or pk could not be had at creation: try once more, at its
       * least. */
      if (pk_full (b) && (b->pk.cap || frames_alloc (&b->pk, PK_MIN) != 0))
        return -1;
      size_t room = b->pk.cap - b->pk.len - PK_OVER;
      unsigned char *p = b->pk.buf + b->pk.len;
      const mpe_rec_t *at = *from;
      size_t len = mpe_spill_pack (&at, to, p + sizeof (mpe_spill_frame_t),
                                   room < FRAME ? room : FRAME);
      if (len == 0)
        break;
      uint32_t n;
      memcpy (&n, p + sizeof (mpe_spill_frame_t) + 8, 4);
      b->pk.len += mpe__frame_seal (p, MPE_SPILL_PACKED, b->thread, len);
      b->pk.events += n;
      b->pk.frames++;
      /* Sealed, then counted in the ring file, then no longer the
       * records' to hold: a crash at any point loses none. */
      if (b->ring && b->pk.area >= 0)
        __atomic_store_n (&b->ring->frames_len[b->pk.area], b->pk.len,
                          __ATOMIC_RELEASE);
      *from = at;
    }
  return 0;
}

/* The round is full: its frames go out in one write (what pk could not
 * hold, frame by frame after them).  Returns the events lost. */
static uint64_t
spill_round (mpe_tbuf_t *b)
{
  uint64_t lost = 0;
  if (!b->packed)
    b->pk_from = b->packed = b->pos;
  /* The first round's records before its windows: first in the file. */
  if (b->pk_from > b->seg)
    lost = spill_records (b, b->seg, b->pk_from, 0);
  int rest = pk_add (b, &b->packed, b->pos);
  if (b->pk.len)
    lost += frames_out (b, &b->pk, 0, b->pk_from, b->pos);
  if (rest)
    lost += spill_records (b, b->packed, b->pos, 0);
  return lost;
}

static int warned_spill;

/* ------------------------------------------------------------------ */
/* Background spill thread                                             */
/* ------------------------------------------------------------------ */

/* One thread per process encodes and writes full halves (or writes full
 * frame areas), in the order they were queued, while the loggers go on
 * in their other halves.  A logger whose other half is still being
 * spilled waits for it (bounded memory, nothing dropped).  With a packer
 * (MPE_SPILL_THREAD=pack), a second thread packs the loggers' full
 * windows the same way and hands full areas on to the first. */
typedef struct
{
  pthread_mutex_t lock;
  pthread_cond_t  work;      /* a job was queued */
  pthread_cond_t  done;      /* a job was done */
  mpe_job_t      *head, *tail;
  atomic_int      state;     /* 0 not started, 1 running, -1 failed */
  uint64_t      (*run) (mpe_job_t *j);  /* does j; returns events lost */
} spill_queue_t;

static uint64_t write_run (mpe_job_t *j);
static uint64_t pack_run (mpe_job_t *j);

#define QUEUE_INIT(fn)                                                      \
  { .lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER,    \
    .done = PTHREAD_COND_INITIALIZER, .run = fn }
static spill_queue_t wq = QUEUE_INIT (write_run);   /* the spill thread */
static spill_queue_t pq = QUEUE_INIT (pack_run);    /* the packer */

static void *
queue_main (void *arg)
{
  spill_queue_t *q = arg;
  pthread_mutex_lock (&q->lock);
  for (;;)
    {
      while (q->head == NULL)
        pthread_cond_wait (&q->work, &q->lock);
      mpe_job_t *j = q->head;
      q->head = j->next;
      if (q->head == NULL)
        q->tail = NULL;
      pthread_mutex_unlock (&q->lock);
      uint64_t lost = q->run (j);
      pthread_mutex_lock (&q->lock);
      j->lost = lost;
      if (atomic_load (&j->state) != MPE_JOB_ABANDONED)
        atomic_store (&j->state, MPE_JOB_DONE);
      pthread_cond_broadcast (&q->done);
    }
  return NULL;
}

/* The spill thread's job: a half of records packed and written, or
 * (write-behind) a full area's frames, packed already, written with
 * direct I/O where the file system takes it. */
static uint64_t
write_run (mpe_job_t *j)
{
  mpe_tbuf_t *b = j->b;
  if (!b->packed_wb)
    {
      uint64_t lost = spill_records (b, j->from, j->to, 1);
      if (atomic_load (&j->state) != MPE_JOB_ABANDONED)
        mpe__part_spilled (b, j->from != b->base);
      return lost;
    }
  /* As spill_burst_write: the crash path may have taken the frames. */
  atomic_store (&j->state, MPE_JOB_WRITING);
  if (mpe__crash_taken ())
    {
      atomic_store (&j->state, MPE_JOB_ABANDONED);
      return 0;
    }
  uint64_t lost = frames_out (b, &b->pk2, 1, j->from, j->to);
  area_close (b, &b->pk2);
  return lost;
}

/* The frames gathered by the spill thread, in one write.  Returns 0 when
 * they are in the file. */
static int
spill_burst_write (spill_ctx_t *c)
{
  /* Tell the crash path a write may be under way, then look whether it
   * has already taken these records (seq_cst: one of the two sees the
   * other). */
  atomic_store (&c->b->job.state, MPE_JOB_WRITING);
  if (mpe__crash_taken ())
    {
      atomic_store (&c->b->job.state, MPE_JOB_ABANDONED);
      return -1;
    }
  if (c->memlen == 0)
    return 0;
  int nframes = c->nblocks;
  uint64_t in = frames_write (c->b, c->mem, c->memlen, 0, c->pending,
                              &nframes);
  c->written += in;
  c->pending -= in;
  return c->pending ? -1 : 0;
}

/* The gathered frames to the file; what did not reach it (full disk, or
 * the crash path took the records) is counted lost: the frames before a
 * torn one are in the file. */
static void
burst_flush (spill_ctx_t *c)
{
  if (spill_burst_write (c) != 0)
    {
      c->lost += c->pending;
      if (c->nblocks && c->written == 0)
        c->first_failed = 1;
    }
  c->pending = 0;
  c->memlen = 0;
}

/* q's thread, started on first use.  Returns 0 when it runs. */
static int
queue_start (spill_queue_t *q)
{
  int st = atomic_load (&q->state);
  if (st != 0)
    return st == 1 ? 0 : -1;
  pthread_mutex_lock (&q->lock);
  if ((st = atomic_load (&q->state)) != 0)
    {
      pthread_mutex_unlock (&q->lock);
      return st == 1 ? 0 : -1;
    }
  pthread_t t;
  pthread_attr_t a;
  sigset_t all, old;
  /* The thread never takes a signal: the crash handler runs on a
   * logging thread, which can then wait for a job under way. */
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &old);
  pthread_attr_init (&a);
  pthread_attr_setdetachstate (&a, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create (&t, &a, queue_main, q);
  pthread_attr_destroy (&a);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  atomic_store (&q->state, rc == 0 ? 1 : -1);
  pthread_mutex_unlock (&q->lock);
  return rc == 0 ? 0 : -1;
}

/* Waits for job j of q, if any; returns the events it lost. */
static uint64_t
job_collect (spill_queue_t *q, mpe_job_t *j)
{
  int st = atomic_load (&j->state);
  if (st == MPE_JOB_IDLE)
    return 0;
  pthread_mutex_lock (&q->lock);
  while ((st = atomic_load (&j->state)) == MPE_JOB_QUEUED
         || st == MPE_JOB_WRITING)
    pthread_cond_wait (&q->done, &q->lock);
  uint64_t lost = j->lost;
  /* Abandoned stays so: the crash path writes what the job held. */
  if (st != MPE_JOB_ABANDONED)
    atomic_store (&j->state, MPE_JOB_IDLE);
  pthread_mutex_unlock (&q->lock);
  return lost;
}

static void
job_queue (spill_queue_t *q, mpe_job_t *j, const mpe_rec_t *from,
           const mpe_rec_t *to)
{
  pthread_mutex_lock (&q->lock);
  j->from = from;
  j->to = to;
  j->lost = 0;
  j->next = NULL;
  atomic_store (&j->state, MPE_JOB_QUEUED);
  if (q->tail)
    q->tail->next = j;
  else
    q->head = j;
  q->tail = j;
  pthread_cond_signal (&q->work);
  pthread_mutex_unlock (&q->lock);
}

int
mpe__job_settle (mpe_job_t *j)
{
  int st = atomic_load (&j->state);
  for (int i = 0; i < 2000; i++)
    {
      if (st == MPE_JOB_QUEUED
          && atomic_compare_exchange_strong (&j->state, &st,
                                             MPE_JOB_ABANDONED))
        return MPE_JOB_ABANDONED;
      if (st != MPE_JOB_WRITING && st != MPE_JOB_QUEUED)
        return st;
      if (st == MPE_JOB_WRITING)
        {
          struct timespec ts = { 0, 1000000 };
          nanosleep (&ts, NULL);
          st = atomic_load (&j->state);
        }
    }
  return st;
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

/* A LOSS record of `lost` events at r, stamped t; returns the slot after
 * it.  In packed write-behind it will be in pk's frames, which keep its
 * count should they be lost themselves. */
static mpe_rec_t *
put_loss (mpe_tbuf_t *b, mpe_rec_t *r, uint64_t t, uint64_t lost)
{
  r->t = t;
  r->id = 0;
  r->aux = MPE_REC_LOSS | b->tag;
  uint64_t ext[2] = { lost, 0 };
  memcpy (r + 1, ext, 16);
  if (b->pack_async)
    {
      /* In the window the packer gets next. */
      b->win_carried += lost;
      b->win_loss++;
    }
  else if (b->packed_wb)
    {
      b->pk.carried += lost;
      b->pk.loss++;
    }
  return r + 2;
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
      /* The packer's job first: it may hand an area to the spill
       * thread. */
      uint64_t lost = job_collect (&pq, &b->pack);
      b->pack_handoffs = 0;
      lost += job_collect (&wq, &b->job);
      if (lost == 0)
        continue;
      note_loss (lost);
      __atomic_fetch_add (&b->lost, lost, __ATOMIC_RELAXED);
      /* end leaves 8 slots: always room for these 2. */
      MPE_PUBLISH (b->pos, put_loss (b, b->pos, mpe__ticks (), lost));
    }
}

/* The flush logged at r: state 280 around it (from t0 to now) and any
 * loss as a LOSS record (the 8 slots after end hold these 4).  Returns
 * the slot after them. */
static mpe_rec_t *
flush_marks (mpe_tbuf_t *b, mpe_rec_t *r, uint64_t t0, uint64_t lost)
{
  note_loss (lost);
  /* The spill thread may subtract a carried loss meanwhile. */
  __atomic_fetch_add (&b->lost, lost, __ATOMIC_RELAXED);
  b->flushes++;
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
    r = put_loss (b, r, t0, lost);
  if (mpe__g.log_overhead)
    {
      r->t = mpe__ticks ();
      r->id = MPE_KNOWN_STATE_END (280);
      r->aux = MPE_REC_BARE | b->tag;
      r++;
    }
  return r;
}

/* Packed write-behind: pk is full.  Its frames become the spill thread's
 * to write and the other area (written: the job before is collected)
 * takes its place.  Returns the events lost (the job before's). */
static uint64_t
wb_handoff (mpe_tbuf_t *b)
{
  uint64_t lost = job_collect (&wq, &b->job);
  /* The crash path writes both areas (a job it abandoned stays so). */
  if (mpe__crash_taken ())
    return lost;
  mpe_frames_t full = b->pk;
  b->pk = b->pk2;
  b->pk2 = full;
  area_open (b, &b->pk);
  if (mpe__g.spill_fd >= 0 && queue_start (&wq) == 0)
    {
      job_queue (&wq, &b->job, NULL, NULL);
      return lost;
    }
  /* No spill thread: written here; no spill file: lost. */
  lost += mpe__g.spill_fd >= 0 ? frames_out (b, &b->pk2, 1, NULL, NULL)
                               : b->pk2.events;
  area_close (b, &b->pk2);
  return lost;
}

/* Packed write-behind's window or round end: the records so far into pk's
 * frames (a full pk handed over), and at the round's end the slots start
 * over, with room in pk for the next round.  Returns the new write
 * position. */
static mpe_rec_t *
wb_full (mpe_tbuf_t *b)
{
  uint64_t t0 = mpe__ticks ();
  uint64_t lost = 0;
  int handoffs = 0;
  b->in_flush = 1;
  while (pk_add (b, &b->packed, b->pos) != 0 && handoffs < 2)
    lost += wb_handoff (b), handoffs++;
  if (b->pos >= b->round_end)
    {
      if (b->pk.cap - b->pk.len < WB_SLOTS * sizeof (mpe_rec_t))
        lost += wb_handoff (b), handoffs++;
      /* The tag first: a crash then finds no record of the round done. */
      MPE_PUBLISH (b->retired, b->retired + (uint64_t) (b->pos - b->seg));
      mpe__part_new_round (b, 0);
      MPE_PUBLISH (b->pos, b->seg);
      b->pk_from = b->packed = b->seg;
    }
  mpe_rec_t *r = b->pos;
  if (handoffs)
    {
      r = flush_marks (b, r, t0, lost);
      MPE_PUBLISH (b->pos, r);
    }
  b->wend = window_end (b, r);
  b->in_flush = 0;
  return r;
}

/* A full window of b's slots, [j->from, j->to), into pk's frames (a full
 * pk handed to the spill thread), as wb_full does on the logger: on the
 * packer, or on the logger when there is none.  Returns the events lost
 * (an earlier area's write); b->pack_handoffs gets the areas handed. */
static uint64_t
pack_window (mpe_tbuf_t *b, mpe_job_t *j)
{
  uint64_t lost = 0;
  int handoffs = 0;
  /* The window's LOSS records are in its first frame: counted with the
   * area that holds it. */
  if (pk_full (b))
    lost += wb_handoff (b), handoffs++;
  b->pk.carried += b->pack_carried;
  b->pk.loss += b->pack_loss;
  while (pk_add (b, &j->from, j->to) != 0 && handoffs < 2
         && !mpe__crash_taken ())
    lost += wb_handoff (b), handoffs++;
  b->pack_handoffs = handoffs;
  return lost;
}

/* The packer's job. */
static uint64_t
pack_run (mpe_job_t *j)
{
  if (mpe__g.pack_delay_ms > 0)
    {
      /* Test hook: a window still queued when the process dies. */
      struct timespec ts = { mpe__g.pack_delay_ms / 1000,
                             mpe__g.pack_delay_ms % 1000 * 1000000L };
      nanosleep (&ts, NULL);
    }
  /* Under way, then whether the crash path has taken the buffers
   * (seq_cst: one of the two sees the other, as spill_burst_write). */
  atomic_store (&j->state, MPE_JOB_WRITING);
  if (mpe__crash_taken ())
    {
      atomic_store (&j->state, MPE_JOB_ABANDONED);
      return 0;
    }
  return pack_window (j->b, j);
}

/* Packed write-behind with a packer: the logger's window, one part of
 * the ring, is full.  It goes to the packer, and the logger goes on in
 * the other part once the packer is done with that (long before, at
 * about 0.6 ns a record to pack against 10 to log).  A window's records
 * stay under their own tag in the ring until they are in an area, so a
 * crash meanwhile loses none.  Returns the new write position. */
static mpe_rec_t *
wb_switch (mpe_tbuf_t *b)
{
  uint64_t t0 = mpe__ticks ();
  b->in_flush = 1;
  uint64_t lost = job_collect (&pq, &b->pack);
  int handoffs = b->pack_handoffs;
  b->pack_handoffs = 0;
  b->pack_carried = b->win_carried;
  b->pack_loss = b->win_loss;
  b->win_carried = 0;
  b->win_loss = 0;
  if (queue_start (&pq) == 0)
    job_queue (&pq, &b->pack, b->seg, b->pos);
  else
    {
      /* No packer: packed here. */
      b->pack.from = b->seg;
      b->pack.to = b->pos;
      lost += pack_window (b, &b->pack);
      handoffs += b->pack_handoffs;
      b->pack_handoffs = 0;
    }
  MPE_PUBLISH (b->retired, b->retired + (uint64_t) (b->pos - b->seg));
  int p = b->seg == b->base;   /* the other part */
  b->seg = p ? b->mid : b->base;
  b->round_end = (p ? b->base + b->cap : b->mid) - 8;
  mpe__part_new_round (b, p);
  b->pk_from = b->packed = b->seg;
  mpe_rec_t *r = b->seg;
  MPE_PUBLISH (b->pos, r);
  if (handoffs || lost)
    {
      r = flush_marks (b, r, t0, lost);
      MPE_PUBLISH (b->pos, r);
    }
  b->wend = b->round_end;
  b->in_flush = 0;
  return r;
}

/* The buffer (or half) is full: spill it, log the flush as state 280 and
 * any loss as a LOSS record where it happened.  Returns the new write
 * position. */
static mpe_rec_t *
tbuf_full (mpe_tbuf_t *b)
{
  if (b->wend < b->round_end)
    {
      /* A window's end: pack it while it is in the cache. */
      if (!b->packed)
        b->pk_from = b->packed = b->pos;
      if (mpe__g.spill_fd < 0 || pk_add (b, &b->packed, b->pos) != 0)
        b->wend = b->round_end;
      else
        b->wend = window_end (b, b->pos);
      return b->pos;
    }
  uint64_t t0 = mpe__ticks ();
  b->in_flush = 1;
  uint64_t lost = 0;
  if (b->mid && mpe__g.spill_fd >= 0 && queue_start (&wq) == 0)
    {
      /* The other half must be on disk before it is reused. */
      lost = job_collect (&wq, &b->job);
      job_queue (&wq, &b->job, b->seg, b->pos);
      b->seg = b->seg == b->base ? b->mid : b->base;
      b->wend = (b->seg == b->base ? b->mid : b->base + b->cap) - 8;
      b->round_end = b->wend;
      mpe__part_new_round (b, b->seg != b->base);
    }
  else
    {
      if (mpe__g.spill_fd >= 0)
        lost = spill_round (b);
      else
        for (const mpe_rec_t *p = b->seg; p < b->pos;
             p += 1 + mpe_spill_rec_ext (p->aux))
          lost++;
      mpe__part_new_round (b, 0);
    }
  mpe_rec_t *r = flush_marks (b, b->seg, t0, lost);
  MPE_PUBLISH (b->pos, r);
  mpe__tbuf_windows (b);
  b->in_flush = 0;
  return r;
}

mpe_rec_t *
mpe__tbuf_full (mpe_tbuf_t *b)
{
  mpe_rec_t *r = !b->packed_wb ? tbuf_full (b)
                 : b->pack_async ? wb_switch (b) : wb_full (b);
  mpe__gate (b);
  return r;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* A full buffer goes to the spill file: packed on the logging thread, or
 * by the background spill thread while the logger fills the other half. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
      b->wend = window_end (b, b->pos);
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

/* Packs [b->packed, to) into frames at the end of pk.  Returns -1 when
 * pk cannot hold them (an eighth of the buffer): the rest of the round is
 * then packed at its end, as without windows. */
static int
pk_add (mpe_tbuf_t *b, const mpe_rec_t *to)
{
  const size_t over = sizeof (mpe_spill_frame_t) + 8;  /* header, padding */
  while (b->packed < to)
    {
      /* Full; or pk could not be had at creation: try once more, at its
       * least. */
      if (b->pk.cap < b->pk.len + over + 4096
          && (b->pk.cap || frames_alloc (&b->pk, PK_MIN) != 0))
        return -1;
      size_t room = b->pk.cap - b->pk.len - over;
      unsigned char *p = b->pk.buf + b->pk.len;
      const mpe_rec_t *at = b->packed;
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
      b->packed = at;
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
  int rest = pk_add (b, b->pos);
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

/* One thread per process encodes and writes full halves, in the order
 * they were queued, while the loggers go on in their other halves.  A
 * logger whose other half is still being spilled waits for it (bounded
 * memory, nothing dropped). */
static struct
{
  pthread_mutex_t lock;
  pthread_cond_t  work;      /* a job was queued */
  pthread_cond_t  done;      /* a job was written */
  mpe_tbuf_t     *head, *tail;  /* queued buffers, via job_next */
  atomic_int      state;     /* 0 not started, 1 running, -1 failed */
} sq = { .lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER,
         .done = PTHREAD_COND_INITIALIZER };

/* Write-behind: a full area's frames (pk2), packed by the logger, in one
 * write (direct I/O where the file system takes it).  Returns the events
 * lost. */
static uint64_t
wb_write (mpe_tbuf_t *b)
{
  /* As spill_burst_write: the crash path may have taken the records. */
  atomic_store (&b->job, MPE_JOB_WRITING);
  if (mpe__crash_taken ())
    {
      atomic_store (&b->job, MPE_JOB_ABANDONED);
      return 0;
    }
  return frames_out (b, &b->pk2, 1, b->job_from, b->job_to);
}

static void *
spill_main (void *arg)
{
  (void) arg;
  pthread_mutex_lock (&sq.lock);
  for (;;)
    {
      while (sq.head == NULL)
        pthread_cond_wait (&sq.work, &sq.lock);
      mpe_tbuf_t *b = sq.head;
      sq.head = b->job_next;
      if (sq.head == NULL)
        sq.tail = NULL;
      pthread_mutex_unlock (&sq.lock);
      uint64_t before = MPE_PEEK (b->spilled);
      uint64_t lost = b->packed_wb ? wb_write (b)
                                   : spill_records (b, b->job_from, b->job_to,
                                                    1);
      pthread_mutex_lock (&sq.lock);
      b->job_lost = lost;
      if (atomic_load (&b->job) != MPE_JOB_ABANDONED)
        {
          /* An area none of whose frames reached the file (a full disk)
           * stays live in the ring file until the logger takes the loss
           * into a LOSS record and reuses it: a kill meanwhile loses
           * neither its events nor their count. */
          if (b->packed_wb && (lost == 0 || MPE_PEEK (b->spilled) != before))
            area_close (b, &b->pk2);
          else
            mpe__part_spilled (b, b->job_from != b->base);
          atomic_store (&b->job, MPE_JOB_DONE);
        }
      pthread_cond_broadcast (&sq.done);
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
  if (mpe__crash_taken ())
    {
      atomic_store (&c->b->job, MPE_JOB_ABANDONED);
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

static int
spill_thread_start (void)
{
  int st = atomic_load (&sq.state);
  if (st != 0)
    return st == 1 ? 0 : -1;
  pthread_mutex_lock (&sq.lock);
  if ((st = atomic_load (&sq.state)) != 0)
    {
      pthread_mutex_unlock (&sq.lock);
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
  atomic_store (&sq.state, rc == 0 ? 1 : -1);
  pthread_mutex_unlock (&sq.lock);
  return rc == 0 ? 0 : -1;
}

/* Waits for b's job, if any; returns the events it lost. */
static uint64_t
job_collect (mpe_tbuf_t *b)
{
  int st = atomic_load (&b->job);
  if (st == MPE_JOB_IDLE)
    return 0;
  pthread_mutex_lock (&sq.lock);
  while ((st = atomic_load (&b->job)) == MPE_JOB_QUEUED
         || st == MPE_JOB_WRITING)
    pthread_cond_wait (&sq.done, &sq.lock);
  uint64_t lost = b->job_lost;
  atomic_store (&b->job, MPE_JOB_IDLE);
  pthread_mutex_unlock (&sq.lock);
  return lost;
}

static void
job_queue (mpe_tbuf_t *b, const mpe_rec_t *from, const mpe_rec_t *to)
{
  pthread_mutex_lock (&sq.lock);
  b->job_from = from;
  b->job_to = to;
  b->job_lost = 0;
  b->job_next = NULL;
  atomic_store (&b->job, MPE_JOB_QUEUED);
  if (sq.tail)
    sq.tail->job_next = b;
  else
    sq.head = b;
  sq.tail = b;
  pthread_cond_signal (&sq.work);
  pthread_mutex_unlock (&sq.lock);
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
  if (b->packed_wb)
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
      uint64_t lost = job_collect (b);
      if (lost == 0)
        continue;
      /* The LOSS record below counts an area left live (spill_main). */
      if (b->packed_wb)
        area_close (b, &b->pk2);
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
  uint64_t lost = job_collect (b);
  mpe_frames_t full = b->pk;
  b->pk = b->pk2;
  b->pk2 = full;
  area_open (b, &b->pk);
  if (mpe__g.spill_fd >= 0 && spill_thread_start () == 0)
    {
      job_queue (b, NULL, NULL);
      return lost;
    }
  /* No spill thread: written here; no spill file: lost, with the count
   * its LOSS records carried (as frames_out counts an area lost). */
  if (mpe__g.spill_fd >= 0)
    lost += frames_out (b, &b->pk2, 1, NULL, NULL);
  else
    {
      __atomic_fetch_sub (&b->lost, b->pk2.carried, __ATOMIC_RELAXED);
      lost += b->pk2.events - b->pk2.loss + b->pk2.carried;
    }
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
  while (pk_add (b, b->pos) != 0 && handoffs < 2)
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
      if (mpe__g.spill_fd < 0 || pk_add (b, b->pos) != 0)
        b->wend = b->round_end;
      else
        b->wend = window_end (b, b->pos);
      return b->pos;
    }
  uint64_t t0 = mpe__ticks ();
  b->in_flush = 1;
  uint64_t lost = 0;
  if (b->mid && mpe__g.spill_fd >= 0 && spill_thread_start () == 0)
    {
      /* The other half must be on disk before it is reused. */
      lost = job_collect (b);
      job_queue (b, b->seg, b->pos);
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
        {
          for (const mpe_rec_t *p = b->seg; p < b->pos;
               p += 1 + mpe_spill_rec_ext (p->aux))
            lost++;
          lost = carry_loss (b, b->seg, b->pos, lost);
        }
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
  mpe_rec_t *r = b->packed_wb ? wb_full (b) : tbuf_full (b);
  mpe__gate (b);
  return r;
}

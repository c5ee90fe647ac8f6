/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-thread record buffers and their ring files (the buffer is a shared
 * mapping of the file, so unspilled records outlive a killed process). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mpe-internal.h"
#include "mpe-sample.h"
#include "mpe-sched.h"
#include "mpe-counters.h"

/* Part p of b (0, or 1 = the half from mid) starts a new round: its
 * records get a new tag, published in the ring header before any of them
 * is written. */
void
mpe__part_new_round (mpe_tbuf_t *b, int p)
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
void
mpe__part_spilled (mpe_tbuf_t *b, int p)
{
  if (b->ring)
    __atomic_store_n (&b->ring->live[p], 0, __ATOMIC_RELEASE);
}

/* Empty buffer, split in two halves when the background spill is on. */
static void
tbuf_layout (mpe_tbuf_t *b)
{
  b->mid = mpe__g.spill_async && !b->packed_wb && b->cap >= 8192
           ? b->base + b->cap / 2
           : NULL;
  b->seg = b->base;
  /* Closed: the thread's next record opens it (mpe__gate). */
  __atomic_store_n (&b->end, b->base, __ATOMIC_RELAXED);
  MPE_PUBLISH (b->pos, b->base);
  /* Room for the largest record (3 slots) or a begin+message pair (3),
   * plus the flush's own records (560, LOSS, 561: 4 slots). */
  b->round_end = (b->mid ? b->mid : b->base + b->cap) - 8;
  if (b->ring)
    {
      b->ring->split = b->mid ? (uint64_t) (b->mid - b->base) : b->cap;
      mpe__part_spilled (b, 1);
    }
  mpe__part_new_round (b, 0);
  mpe__tbuf_windows (b);
}

/* Ring files (spill/spillfmt.h, docs/SPILL-FORMAT.md). */
static void
ring_path (char *out, size_t len, int thread)
{
  snprintf (out, len, "%s.t%d" MPE_RING_SUFFIX, mpe__g.ring_prefix, thread);
}

/* Where the frame areas begin after cap slots (a ring file's header
 * before them, or not). */
static size_t
areas_at (size_t cap, int header)
{
  return mpe__dio_up ((header ? MPE_RING_HEADER_SIZE : 0)
                      + cap * sizeof (mpe_rec_t));
}

/* Creates thread's ring file for cap slots (and two frame areas of `area`
 * bytes) and maps it, at `at` (MAP_FIXED, replacing the mapping there) or
 * anywhere.  Returns the mapping or NULL; *len gets its length. */
static void *
ring_map (int thread, size_t cap, size_t area, void *at, size_t *len)
{
  if (mpe__g.ring_off || !mpe__g.ring_prefix[0])
    return NULL;
  char path[4200];
  ring_path (path, sizeof path, thread);
  size_t bytes = areas_at (cap, 1) + 2 * area;
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
  if (area)
    {
      h->frames_off = areas_at (cap, 1);
      h->frames_cap = area;
    }
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

/* mpe_log.h writes a bare event through its own view of these. */
_Static_assert (offsetof (mpe_tbuf_t, pos)
                == offsetof (struct mpe__tbuf_head, pos), "pos");
_Static_assert (offsetof (mpe_tbuf_t, end)
                == offsetof (struct mpe__tbuf_head, end), "end");
_Static_assert (offsetof (mpe_tbuf_t, tag)
                == offsetof (struct mpe__tbuf_head, tag), "tag");
_Static_assert (sizeof (mpe_rec_t) == sizeof (struct mpe__rec)
                && offsetof (mpe_rec_t, aux) == offsetof (struct mpe__rec, aux)
                && MPE_REC_BARE == 0, "record");

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
  b->packed_wb = mpe__g.spill_wb;
  if (b->packed_wb)
    mpe__wb_layout (bytes, &b->cap, &b->area_cap);
  b->thread = atomic_fetch_add (&mpe__g.nthreads, 1);
  /* A ring file where possible, else anonymous memory with huge pages.
   * Either way faulted in now: a page fault on the event path costs far
   * more than the event. */
  void *m = ring_map (b->thread, b->cap, b->area_cap, NULL, &b->map_len);
  size_t areas = areas_at (b->cap, m != NULL);
  if (m)
    {
      b->ring = m;
      b->ring_linked = 1;
      b->base = (mpe_rec_t *) (void *) ((char *) m + MPE_RING_HEADER_SIZE);
    }
  else
    {
      ring_warn ();
      b->map_len = (areas + 2 * b->area_cap + (2u << 20) - 1)
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
  b->pk.area = b->pk2.area = -1;
  if (b->packed_wb)
    {
      b->pk.buf = (unsigned char *) m + areas;
      b->pk2.buf = b->pk.buf + b->area_cap;
      b->pk.cap = b->pk2.cap = b->area_cap;
      b->pk.area = 0;
      b->pk2.area = 1;
    }
  atomic_fetch_add (&mpe__g.allocated,
                    b->cap * sizeof (mpe_rec_t) + 2 * b->area_cap);
  tbuf_layout (b);
  pthread_mutex_lock (&mpe__g.lock);
  b->next = mpe__g.tbufs;
  /* Read without the lock by mpe__mode_store's closing of the gates. */
  __atomic_store_n (&mpe__g.tbufs, b, __ATOMIC_RELEASE);
  pthread_mutex_unlock (&mpe__g.lock);
  mpe__tls = b;
  mpe__sample_thread_start (b->thread);
  mpe__sched_thread (b->thread);
  mpe__counters_thread (b->thread);
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
        if (ring_map (b->thread, b->cap, b->area_cap, b->ring, &len))
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

/* Empties every buffer (after mpe__spill_drain: no spill in flight). */
void
mpe__tbuf_reset_all (void)
{
  pthread_mutex_lock (&mpe__g.lock);
  for (mpe_tbuf_t *b = mpe__g.tbufs; b; b = b->next)
    {
      b->lost = b->flushes = 0;
      tbuf_layout (b);
      MPE_PUBLISH (b->spilled, 0);
      MPE_PUBLISH (b->retired, 0);
      MPE_PUBLISH (b->metric_slots, 0);
    }
  pthread_mutex_unlock (&mpe__g.lock);
}

/* A failed finish: the ring files stay for `clogtool recover`.  The
 * buffers get fresh anonymous memory in their place, so a later log
 * cannot write into them. */
void
mpe__ring_keep_all (void)
{
  pthread_mutex_lock (&mpe__g.lock);
  for (mpe_tbuf_t *b = mpe__g.tbufs; b; b = b->next)
    if (b->ring && b->ring_linked
        && mmap (b->ring, b->map_len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
      b->ring_linked = 0;
  pthread_mutex_unlock (&mpe__g.lock);
}

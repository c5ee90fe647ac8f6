/* SPDX-License-Identifier: BSD-3-Clause */
/* The crash path: a signal, or exit without MPE_Finish_log, writes what
 * memory holds to the spill file. */
#include "config.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpe-internal.h"
#include "mpe-counters.h"

/* Set once the crash path took the buffers (the spill thread then
 * leaves them alone). */
static atomic_int crash_done;

int
mpe__crash_taken (void)
{
  return atomic_load (&crash_done);
}

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGABRT, SIGTERM,
                                     SIGINT, SIGFPE };
#define NCRASH ((int) (sizeof crash_signals / sizeof crash_signals[0]))
static struct sigaction old_actions[NCRASH];
static int crash_installed;

_Static_assert (sizeof (mpe_ctr_rec_t) == sizeof (mpe_spill_ctr_t)
                && offsetof (mpe_ctr_rec_t, id)
                   == offsetof (mpe_spill_ctr_t, id)
                && offsetof (mpe_ctr_rec_t, v)
                   == offsetof (mpe_spill_ctr_t, v),
                "counter readings are written as they are");

/* A thread's counter readings live in memory until the merge: the
 * sampler writes them now and then, the crash path the rest with the
 * rest of memory. */
void
mpe__counters_spill (int thread, const mpe_ctr_rec_t *r, size_t n)
{
  const size_t per = (UINT32_MAX / 2) / sizeof *r;
  for (size_t i = 0; i < n; i += per)
    mpe__spill_frame (MPE_SPILL_COUNTERS, thread, r + i,
                      (n - i < per ? n - i : per) * sizeof *r);
}

/* Writes what every thread holds in memory as RAW frames.  Only
 * async-signal-safe calls; runs at most once per log.  sync: fsync the
 * file too (the crash path; the page cache already outlives a killed
 * process, fsync only guards against the node going down). */
static int
save_memory (int sync)
{
  if (mpe__g.state != 1 || mpe__g.spill_fd < 0)
    return 0;
  if (atomic_exchange (&crash_done, 1))
    return 0;
  mpe__mode_store (0);
  mpe__g.memory_saved_at = atomic_load (&mpe__g.spill_off);
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
      size_t done;
      if (st == MPE_JOB_QUEUED || st == MPE_JOB_ABANDONED)
        {
          atomic_store (&b->job, MPE_JOB_ABANDONED);
          if (b->packed_wb)
            mpe__spill_frames (b->pk2.buf, b->pk2.len, &done);
          else if (b->job_to > b->job_from)
            mpe__spill_frame (MPE_SPILL_RAW, b->thread, b->job_from,
                              (size_t) (b->job_to - b->job_from)
                              * sizeof (mpe_rec_t));
        }
      /* Packed write-behind: the records before `packed` are only in
       * pk's frames. */
      const mpe_rec_t *from = b->seg, *end = b->pos;
      if (b->packed_wb)
        {
          mpe__spill_frames (b->pk.buf, b->pk.len, &done);
          from = b->packed;
        }
      if (end > from)
        mpe__spill_frame (MPE_SPILL_RAW, b->thread, from,
                          (size_t) (end - from) * sizeof (mpe_rec_t));
    }
  if (__atomic_load_n (&mpe__ctr_on, __ATOMIC_ACQUIRE))
    mpe__counters_each (mpe__counters_spill);
  /* Recovery knows then that nothing was only in memory (without ring
   * files, a process killed before this lost its unspilled records). */
  mpe__spill_frame (MPE_SPILL_SAVED, 0, NULL, 0);
  if (sync)
    fsync (mpe__g.spill_fd);
  return 1;
}

/* Async-signal-safe text building for the notice below. */
typedef struct
{
  char   b[10240];   /* two paths of up to 4096 bytes and the words */
  size_t n;
} msg_t;

static void
put_n (msg_t *m, const char *s, size_t n)
{
  while (n-- && *s && m->n < sizeof m->b)
    m->b[m->n++] = *s++;
}

static void
put_s (msg_t *m, const char *s)
{
  put_n (m, s, SIZE_MAX);
}

static void
put_u (msg_t *m, uint64_t v)
{
  char d[24];
  int k = 0;
  do
    d[k++] = (char) ('0' + v % 10);
  while ((v /= 10) && k < 24);
  while (k > 0 && m->n < sizeof m->b)
    m->b[m->n++] = d[--k];
}

/* Bytes as MB with one decimal. */
static void
put_mb (msg_t *m, uint64_t bytes)
{
  uint64_t t = (bytes * 10 + 524288) / 1048576;
  put_u (m, t / 10);
  put_s (m, ".");
  put_u (m, t % 10);
  put_s (m, " MB");
}

/* The log will not be written: says where what was recorded is, how big
 * it is (the ring files are memory, in /dev/shm by default) and how to
 * rebuild the log or remove them.  Only write(2). */
static void
tell_kept (void)
{
  msg_t m;
  m.n = 0;
  uint64_t ring_bytes = 0;
  unsigned rings = 0;
  for (mpe_tbuf_t *b = mpe__g.tbufs; b; b = b->next)
    if (b->ring && b->ring_linked)
      {
        rings++;
        ring_bytes += b->map_len;
      }
  const char *path = mpe__g.spill_path;
  const char *slash = strrchr (path, '/');
  size_t dl = slash ? (size_t) (slash - path) : 0;
  put_s (&m, "mpe: rank ");
  put_u (&m, (uint64_t) (mpe__g.rank < 0 ? 0 : mpe__g.rank));
  put_s (&m, ": the log was not written; what this process recorded is "
         "kept in ");
  put_s (&m, path);
  put_s (&m, " (");
  put_mb (&m, atomic_load (&mpe__g.spill_off));
  put_s (&m, ")");
  if (rings)
    {
      put_s (&m, " and ");
      put_u (&m, rings);
      put_s (&m, " ring file(s) ");
      put_s (&m, mpe__g.ring_prefix);
      put_s (&m, ".t*.ring (");
      put_mb (&m, ring_bytes);
      put_s (&m, " of memory)");
    }
  put_s (&m, ": `clogtool recover ");
  if (dl)
    put_n (&m, path, dl);
  else
    put_s (&m, slash ? "/" : ".");
  put_s (&m, "` rebuilds the log, with --clean it also removes them\n");
  ssize_t w = write (2, m.b, m.n);
  (void) w;
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

/* The calling thread's counters read once more, at the crash, as
 * MPE_Finish_log would: a recovered log is the finished one cut here. */
static void
last_reading (int in_signal)
{
  if (mpe__g.state != 1 || !__atomic_load_n (&mpe__ctr_on, __ATOMIC_ACQUIRE))
    return;
  if (in_signal)
    mpe__counters_sample (mpe__ticks ());   /* what a timer sample does */
  else
    mpe__counters_final ();
}

void
mpe__wrap_abort (void)
{
  last_reading (0);
  if (save_memory (1))
    tell_kept ();
}

static void
crash_handler (int sig)
{
  last_reading (1);
  if (save_memory (1))
    tell_kept ();
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
  last_reading (0);
  if (save_memory (1))
    tell_kept ();
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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memory layer of libmpe: when libmpe_memory (the allocator wrappers,
 * mpe/memory/) is loaded and MPE_MEMORY=1 made it record, the scheduling
 * layer's poller calls mpe__mem_sample, which keeps, for every
 * (thread : call site) cell whose live bytes or calls changed since the
 * last sample, one record (time, cell, live, calls) for the memory track
 * (kind 5), and one for the process's total (cell -1).
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe-internal.h"
#include "mpe-memory-abi.h"
#include "mpe-sched.h"

static struct
{
  const mpe_memory_api_t *api;
  int             on;
  pthread_mutex_t lock;
  mpe_mem_sample_t *recs;
  size_t          n, cap, max;
  uint64_t        dropped;
  int64_t        *last_live;
  uint64_t       *last_calls;
  size_t          nlast;
  int64_t         last_total;
  /* The cells when the log was finished (before the merge allocates). */
  mpe_mem_final_t *fin;
  size_t          nfin;
  int64_t         fin_live, fin_peak;
} M = { .lock = PTHREAD_MUTEX_INITIALIZER, .last_total = -1 };

int
mpe__mem_on (void)
{
  return __atomic_load_n (&M.on, __ATOMIC_ACQUIRE);
}

const mpe_memory_api_t *
mpe__mem_api (void)
{
  return mpe__mem_on () ? M.api : NULL;
}

void
mpe__mem_init (void)
{
  mpe__mem_reset ();
  const mpe_memory_api_t *a = dlsym (RTLD_DEFAULT, "mpe_memory_api");
  int want = mpe__env_bool ("MPE_MEMORY", 0);
  if (!a || a->abi != MPE_MEMORY_ABI || a->size < sizeof *a)
    {
      if (want && mpe__g.rank == 0)
        fprintf (stderr, "mpe: MPE_MEMORY=1 but the allocator wrappers are "
                 "not loaded (LD_PRELOAD=libmpe_memory.so, or link "
                 "-lmpe_memory); memory is not recorded\n");
      return;
    }
  if (!a->enabled ())
    return;
  M.api = a;
  M.max = (size_t) mpe__env_number ("MPE_MEMORY_MAX", 1 << 22, 1, 1u << 30,
                                     "records", MPE_ENV_INT | MPE_ENV_CLAMP);
  __atomic_store_n (&M.on, 1, __ATOMIC_RELEASE);
  if (mpe__tls)
    a->bind_thread (mpe__tls->thread);
  mpe__mem_sample ();
}

void
mpe__mem_thread (int thread)
{
  if (mpe__mem_on ())
    M.api->bind_thread (thread);
}

static void
push (uint64_t t, int64_t cell, int64_t live, uint64_t calls)
{
  if (M.n == M.cap)
    {
      if (M.n >= M.max)
        {
          M.dropped++;
          return;
        }
      size_t nc = M.cap ? M.cap * 2 : 4096;
      mpe_mem_sample_t *r = realloc (M.recs, nc * sizeof *r);
      if (!r)
        {
          M.dropped++;
          return;
        }
      M.recs = r;
      M.cap = nc;
    }
  M.recs[M.n++] = (mpe_mem_sample_t) { t, cell, live, calls };
}

void
mpe__mem_sample (void)
{
  if (!mpe__mem_on ())
    return;
  pthread_mutex_lock (&M.lock);
  const mpe_memory_api_t *a = M.api;
  uint64_t t = mpe__ticks_to_local (mpe__ticks ());
  size_t n = a->ncells ();
  const mpe_mem_cell_t *c = a->cells ();
  if (n > M.nlast)
    {
      int64_t *l = realloc (M.last_live, n * sizeof *l);
      if (l)
        M.last_live = l;
      uint64_t *k = l ? realloc (M.last_calls, n * sizeof *k) : NULL;
      if (k)
        {
          M.last_calls = k;
          for (size_t i = M.nlast; i < n; i++)
            {
              M.last_live[i] = 0;
              M.last_calls[i] = 0;
            }
          M.nlast = n;
        }
    }
  if (n > M.nlast)
    n = M.nlast;
  for (size_t i = 0; i < n; i++)
    {
      int64_t live = atomic_load_explicit (&c[i].live, memory_order_relaxed);
      uint64_t calls = atomic_load_explicit (&c[i].calls,
                                             memory_order_relaxed);
      if (live != M.last_live[i] || calls != M.last_calls[i])
        {
          push (t, (int64_t) i, live, calls);
          M.last_live[i] = live;
          M.last_calls[i] = calls;
        }
    }
  int64_t total = a->live ();
  if (total != M.last_total)
    {
      push (t, -1, total, 0);
      M.last_total = total;
    }
  pthread_mutex_unlock (&M.lock);
}

void
mpe__mem_freeze (void)
{
  if (!mpe__mem_on ())
    return;
  mpe__mem_sample ();
  pthread_mutex_lock (&M.lock);
  const mpe_memory_api_t *a = M.api;
  size_t n = a->ncells ();
  const mpe_mem_cell_t *c = a->cells ();
  free (M.fin);
  M.fin = malloc ((n ? n : 1) * sizeof *M.fin);
  M.nfin = M.fin ? n : 0;
  for (size_t i = 0; i < M.nfin; i++)
    M.fin[i] = (mpe_mem_final_t) {
      atomic_load (&c[i].live), atomic_load (&c[i].peak),
      atomic_load (&c[i].calls) };
  M.fin_live = a->live ();
  M.fin_peak = a->peak ();
  pthread_mutex_unlock (&M.lock);
}

size_t
mpe__mem_final (const mpe_mem_final_t **cells, int64_t *live, int64_t *peak)
{
  *cells = M.fin;
  *live = M.fin_live;
  *peak = M.fin_peak;
  return M.nfin;
}

int
mpe__mem_records (mpe_mem_sample_t **out, size_t *n, uint64_t *dropped)
{
  pthread_mutex_lock (&M.lock);
  *out = M.recs;
  *n = M.n;
  *dropped = M.dropped;
  pthread_mutex_unlock (&M.lock);
  return 0;
}

void
mpe__mem_reset (void)
{
  pthread_mutex_lock (&M.lock);
  free (M.recs);
  free (M.last_live);
  free (M.last_calls);
  free (M.fin);
  M.fin = NULL;
  M.nfin = 0;
  M.recs = NULL;
  M.last_live = NULL;
  M.last_calls = NULL;
  M.n = M.cap = M.nlast = 0;
  M.dropped = 0;
  M.last_total = -1;
  __atomic_store_n (&M.on, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock (&M.lock);
}

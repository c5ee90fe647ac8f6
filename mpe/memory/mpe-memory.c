/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libmpe_memory: malloc, calloc, realloc, free, posix_memalign,
 * aligned_alloc, memalign, valloc, pvalloc, malloc_usable_size and
 * anonymous mmap/munmap, wrapped (LD_PRELOAD, or linked before libc).
 * With MPE_MEMORY=1 every block gets a 16-byte header (its size and its
 * cell) and each (thread : call site) cell keeps its live bytes, peak and
 * calls (mpe/src/mpe-memory-abi.h); libmpe samples the cells into the
 * log.  Without MPE_MEMORY=1 each wrapper is one branch and a tail call.
 *
 * Recursion: the real allocator is glibc's __libc_* entry points, never
 * dlsym (which itself allocates); only mmap is looked up with dlsym, and
 * dlsym's own allocations come back through these wrappers, which never
 * call mmap.  The cell table and its index are mapped with the mmap
 * system call, so recording allocates nothing.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mpe-memory-abi.h"

#define API __attribute__ ((visibility ("default")))

extern void *__libc_malloc (size_t);
extern void *__libc_calloc (size_t, size_t);
extern void *__libc_realloc (void *, size_t);
extern void *__libc_memalign (size_t, size_t);
extern void  __libc_free (void *);

/* Block header, just below the pointer returned. */
typedef struct
{
  uint64_t size;
  uint32_t cell;
  uint32_t off;   /* MAGIC in the top byte; bytes from the real block's
                     start to the pointer returned in the others */
} hdr_t;
_Static_assert (sizeof (hdr_t) == 16, "block header");

/* glibc's own chunk header puts the high half of its size there, zero for
 * any block under 4 GiB, so a block we did not make never matches. */
#define MAGIC      0xa5000000u
#define OFF_MASK   0x00ffffffu
#define HDR        16u

#define MAX_CELLS  (1u << 18)
#define INDEX_SIZE (1u << 20)      /* open addressing, power of two */
#define MAX_SLOTS  (1u << 16)
#define CACHE_SIZE 512u            /* per-thread direct-mapped cache */

static atomic_int mode = -1;       /* -1 undecided, 0 off, 1 recording */
static mpe_mem_cell_t *cells;      /* MAX_CELLS, cell 0: table full */
static _Atomic uint32_t ncells;
static uint32_t *index_;           /* cell + 1, 0 empty */
static int32_t *slot_thread_;      /* MAX_SLOTS */
static _Atomic uint32_t nslots;
static atomic_flag index_lock = ATOMIC_FLAG_INIT;
static _Atomic int64_t live_total, peak_total;
static _Atomic uint64_t dropped_;

typedef struct
{
  uint64_t site;
  uint32_t cell;
} cache_t;
static __thread cache_t cache[CACHE_SIZE]
  __attribute__ ((tls_model ("initial-exec")));
static __thread uint32_t my_slot __attribute__ ((tls_model ("initial-exec")));

static void *
raw_map (size_t len)
{
  long r = syscall (SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return r == -1 ? NULL : (void *) r;
}

static int
decide (void)
{
  const char *v = getenv ("MPE_MEMORY");
  int on = v && (!strcmp (v, "1") || !strcmp (v, "yes")
                 || !strcmp (v, "true"));
  if (on)
    {
      cells = raw_map (MAX_CELLS * sizeof *cells);
      index_ = raw_map (INDEX_SIZE * sizeof *index_);
      slot_thread_ = raw_map (MAX_SLOTS * sizeof *slot_thread_);
      if (!cells || !index_ || !slot_thread_)
        on = 0;
      else
        {
          memset (slot_thread_, 0xff, MAX_SLOTS * sizeof *slot_thread_);
          atomic_store (&ncells, 1);  /* cell 0: the table was full */
        }
    }
  int expect = -1;
  atomic_compare_exchange_strong (&mode, &expect, on);
  return atomic_load_explicit (&mode, memory_order_relaxed);
}

static inline int
recording (void)
{
  int m = atomic_load_explicit (&mode, memory_order_relaxed);
  if (__builtin_expect (m < 0, 0))
    m = decide ();
  return m;
}

static uint32_t
slot (void)
{
  if (__builtin_expect (my_slot == 0, 0))
    {
      uint32_t s = atomic_fetch_add (&nslots, 1) + 1;
      my_slot = s < MAX_SLOTS ? s : MAX_SLOTS - 1;
    }
  return my_slot;
}

/* The cell of (this thread, site), made on first use. */
static __attribute__ ((noinline)) uint32_t
cell_slow (uint64_t site, uint32_t kind)
{
  uint32_t s = slot ();
  uint64_t key = site * 0x9e3779b97f4a7c15ull ^ ((uint64_t) s << 7) ^ kind;
  uint32_t h = (uint32_t) (key >> 40) & (INDEX_SIZE - 1);
  uint32_t c = 0;
  while (atomic_flag_test_and_set_explicit (&index_lock,
                                            memory_order_acquire))
    ;
  for (uint32_t probe = 0; probe < INDEX_SIZE; probe++)
    {
      uint32_t e = index_[h];
      if (e == 0)
        {
          uint32_t n = atomic_load (&ncells);
          if (n < MAX_CELLS && probe < 64)
            {
              mpe_mem_cell_t *x = &cells[n];
              x->site = site;
              x->slot = s;
              x->kind = kind;
              index_[h] = n + 1;
              atomic_store_explicit (&ncells, n + 1, memory_order_release);
              c = n;
            }
          else
            atomic_fetch_add (&dropped_, 1);
          break;
        }
      const mpe_mem_cell_t *x = &cells[e - 1];
      if (x->site == site && x->slot == s && x->kind == kind)
        {
          c = e - 1;
          break;
        }
      h = (h + 1) & (INDEX_SIZE - 1);
    }
  atomic_flag_clear_explicit (&index_lock, memory_order_release);
  if (kind == MPE_MEM_HEAP && c)
    {
      cache_t *k = &cache[(site >> 2) & (CACHE_SIZE - 1)];
      k->site = site;
      k->cell = c;
    }
  return c;
}

static inline uint32_t
cell_of (uint64_t site)
{
  cache_t *k = &cache[(site >> 2) & (CACHE_SIZE - 1)];
  if (__builtin_expect (k->site == site && k->cell, 1))
    return k->cell;
  return cell_slow (site, MPE_MEM_HEAP);
}

static inline void
gain (uint32_t c, int64_t n)
{
  mpe_mem_cell_t *x = &cells[c];
  int64_t v = atomic_fetch_add_explicit (&x->live, n, memory_order_relaxed)
              + n;
  /* calls and peak have one writer, the cell's thread: no lock prefix. */
  atomic_store_explicit (&x->calls, atomic_load_explicit
                         (&x->calls, memory_order_relaxed) + 1,
                         memory_order_relaxed);
  if (v > atomic_load_explicit (&x->peak, memory_order_relaxed))
    atomic_store_explicit (&x->peak, v, memory_order_relaxed);
  int64_t t = atomic_fetch_add_explicit (&live_total, n,
                                         memory_order_relaxed) + n;
  int64_t p = atomic_load_explicit (&peak_total, memory_order_relaxed);
  while (t > p && !atomic_compare_exchange_weak_explicit
           (&peak_total, &p, t, memory_order_relaxed, memory_order_relaxed))
    ;
}

static inline void
lose (uint32_t c, int64_t n)
{
  atomic_fetch_sub_explicit (&cells[c].live, n, memory_order_relaxed);
  atomic_fetch_sub_explicit (&live_total, n, memory_order_relaxed);
}

static inline void *
stamp (void *base, size_t off, size_t size, uint64_t site)
{
  if (!base)
    return NULL;
  char *p = (char *) base + off;
  hdr_t *h = (hdr_t *) (void *) (p - HDR);
  uint32_t c = cell_of (site);
  h->size = size;
  h->cell = c;
  h->off = MAGIC | (uint32_t) off;
  gain (c, (int64_t) size);
  return p;
}

static inline hdr_t *
header (void *p)
{
  hdr_t *h = (hdr_t *) (void *) ((char *) p - HDR);
  return (h->off & ~OFF_MASK) == MAGIC ? h : NULL;
}

/* Releases a block of ours (or passes a foreign one to glibc). */
static inline void
release (void *p)
{
  hdr_t *h = header (p);
  if (!h)
    {
      __libc_free (p);
      return;
    }
  uint32_t off = h->off & OFF_MASK;
  lose (h->cell, (int64_t) h->size);
  h->off = 0;  /* a second free is glibc's to report, on the real block */
  __libc_free ((char *) p - off);
}

/* ------------------------------------------------------------------ */
/* The wrappers                                                        */
/* ------------------------------------------------------------------ */

#define SITE ((uint64_t) (uintptr_t) __builtin_return_address (0))

API void *
malloc (size_t n)
{
  if (!recording ())
    return __libc_malloc (n);
  if (n > SIZE_MAX - HDR)
    {
      errno = ENOMEM;
      return NULL;
    }
  return stamp (__libc_malloc (n + HDR), HDR, n, SITE);
}

API void
free (void *p)
{
  if (!p)
    return;
  if (!recording ())
    __libc_free (p);
  else
    release (p);
}

API void *
calloc (size_t k, size_t n)
{
  if (!recording ())
    return __libc_calloc (k, n);
  size_t t;
  if (__builtin_mul_overflow (k, n, &t) || t > SIZE_MAX - HDR)
    {
      errno = ENOMEM;
      return NULL;
    }
  return stamp (__libc_calloc (1, t + HDR), HDR, t, SITE);
}

/* An aligned block: the header sits below the aligned pointer, `align`
 * bytes into the real block. */
static void *
aligned (size_t align, size_t n, uint64_t site)
{
  if (align <= HDR)
    return n > SIZE_MAX - HDR ? NULL : stamp (__libc_malloc (n + HDR), HDR,
                                              n, site);
  if (align > OFF_MASK || n > SIZE_MAX - align)
    return NULL;
  return stamp (__libc_memalign (align, n + align), align, n, site);
}

API void *
realloc (void *p, size_t n)
{
  if (!recording ())
    return __libc_realloc (p, n);
  uint64_t site = SITE;
  if (!p)
    return n > SIZE_MAX - HDR ? NULL : stamp (__libc_malloc (n + HDR), HDR,
                                              n, site);
  hdr_t *h = header (p);
  if (!h)
    return __libc_realloc (p, n);  /* not ours: stays unrecorded */
  if (n == 0)
    {
      release (p);
      return NULL;
    }
  uint32_t off = h->off & OFF_MASK;
  if (off != HDR)
    {
      void *q = aligned (off, n, site);
      if (q)
        {
          memcpy (q, p, h->size < n ? h->size : n);
          release (p);
        }
      return q;
    }
  if (n > SIZE_MAX - HDR)
    return NULL;
  uint32_t c = h->cell;
  int64_t old = (int64_t) h->size;
  void *base = __libc_realloc ((char *) p - HDR, n + HDR);
  if (!base)
    return NULL;
  lose (c, old);
  return stamp (base, HDR, n, site);
}

API int
posix_memalign (void **out, size_t align, size_t n)
{
  if (!recording ())
    {
      void *q = __libc_memalign (align, n);
      if (!q)
        return ENOMEM;
      *out = q;
      return 0;
    }
  if (align < sizeof (void *) || (align & (align - 1)))
    return EINVAL;
  void *q = aligned (align, n, SITE);
  if (!q)
    return ENOMEM;
  *out = q;
  return 0;
}

API void *
aligned_alloc (size_t align, size_t n)
{
  if (!recording ())
    return __libc_memalign (align, n);
  if (align == 0 || (align & (align - 1)))
    {
      errno = EINVAL;
      return NULL;
    }
  return aligned (align, n, SITE);
}

API void *
memalign (size_t align, size_t n)
{
  if (!recording ())
    return __libc_memalign (align, n);
  if (align & (align - 1))
    {
      errno = EINVAL;
      return NULL;
    }
  return aligned (align, n, SITE);
}

API void *
valloc (size_t n)
{
  size_t pg = (size_t) sysconf (_SC_PAGESIZE);
  if (!recording ())
    return __libc_memalign (pg, n);
  return aligned (pg, n, SITE);
}

API void *
pvalloc (size_t n)
{
  size_t pg = (size_t) sysconf (_SC_PAGESIZE);
  n = (n + pg - 1) & ~(pg - 1);
  if (!recording ())
    return __libc_memalign (pg, n);
  return aligned (pg, n, SITE);
}


API size_t
malloc_usable_size (void *p)
{
  if (!p)
    return 0;
  hdr_t *h = recording () ? header (p) : NULL;
  if (h)
    return h->size;
  static size_t (*real) (void *);
  if (!real)
    real = (size_t (*) (void *)) dlsym (RTLD_NEXT, "malloc_usable_size");
  return real ? real (p) : 0;
}

/* ------------------------------------------------------------------ */
/* Anonymous mappings: a small table of (address, length, cell).        */
/* ------------------------------------------------------------------ */

#define MAX_MAPS 4096u
typedef struct
{
  uintptr_t addr;
  size_t    len;
  uint32_t  cell;
} map_t;
static map_t *maps;
static atomic_flag maps_lock = ATOMIC_FLAG_INIT;

typedef void *(*mmap_fn) (void *, size_t, int, int, int, off_t);
typedef int (*munmap_fn) (void *, size_t);

static void *
real_mmap (void *a, size_t n, int prot, int fl, int fd, off_t off)
{
  static mmap_fn f;
  if (!f)
    f = (mmap_fn) dlsym (RTLD_NEXT, "mmap");
  if (!f)
    return (void *) syscall (SYS_mmap, a, n, prot, fl, fd, off);
  return f (a, n, prot, fl, fd, off);
}

static int
real_munmap (void *a, size_t n)
{
  static munmap_fn f;
  if (!f)
    f = (munmap_fn) dlsym (RTLD_NEXT, "munmap");
  if (!f)
    return (int) syscall (SYS_munmap, a, n);
  return f (a, n);
}

static void
maps_lock_take (void)
{
  while (atomic_flag_test_and_set_explicit (&maps_lock, memory_order_acquire))
    ;
}

static void
maps_lock_drop (void)
{
  atomic_flag_clear_explicit (&maps_lock, memory_order_release);
}

API void *
mmap (void *a, size_t n, int prot, int fl, int fd, off_t off)
{
  void *p = real_mmap (a, n, prot, fl, fd, off);
  if (p == MAP_FAILED || !(fl & MAP_ANONYMOUS) || !recording ())
    return p;
  uint32_t c = cell_slow (SITE, MPE_MEM_MMAP);
  maps_lock_take ();
  if (!maps)
    maps = raw_map (MAX_MAPS * sizeof *maps);
  int kept = 0;
  for (uint32_t i = 0; maps && i < MAX_MAPS; i++)
    if (maps[i].len == 0)
      {
        maps[i] = (map_t) { (uintptr_t) p, n, c };
        kept = 1;
        break;
      }
  maps_lock_drop ();
  if (kept)
    gain (c, (int64_t) n);
  return p;
}

API void *
mmap64 (void *a, size_t n, int prot, int fl, int fd, off_t off)
{
  return mmap (a, n, prot, fl, fd, off);
}

API int
munmap (void *a, size_t n)
{
  int rc = real_munmap (a, n);
  if (rc != 0 || atomic_load_explicit (&mode, memory_order_relaxed) != 1)
    return rc;
  uintptr_t lo = (uintptr_t) a, hi = lo + n;
  maps_lock_take ();
  for (uint32_t i = 0; maps && i < MAX_MAPS; i++)
    {
      map_t *m = &maps[i];
      if (m->len == 0 || hi <= m->addr || lo >= m->addr + m->len)
        continue;
      /* The overlap goes; a mapping cut in its middle keeps the rest as
       * one (its bytes stay right, its address range is approximate). */
      uintptr_t ol = lo > m->addr ? lo : m->addr;
      uintptr_t oh = hi < m->addr + m->len ? hi : m->addr + m->len;
      size_t gone = oh - ol;
      lose (m->cell, (int64_t) gone);
      if (ol == m->addr)
        m->addr = oh;
      m->len -= gone;
    }
  maps_lock_drop ();
  return rc;
}

/* UCX (MPICH's ch4:ucx) patches the processes' mmap calls to its own
 * hook, which calls libc's mmap past these wrappers: while recording, its
 * hook is off unless the user chose otherwise (UCX then keeps no
 * registration cache for memory it cannot see unmapped). */
__attribute__ ((constructor)) static void
memory_init (void)
{
  if (recording () == 1)
    setenv ("UCX_MEM_MMAP_HOOK_MODE", "none", 0);
}

/* ------------------------------------------------------------------ */
/* What libmpe reads (mpe-memory-abi.h)                                 */
/* ------------------------------------------------------------------ */

static int
api_enabled (void)
{
  return recording () == 1;
}

static void
api_bind_thread (int thread)
{
  if (recording () == 1)
    slot_thread_[slot ()] = thread;
}

static int
api_slot_thread (uint32_t s)
{
  return s < MAX_SLOTS && slot_thread_ ? slot_thread_[s] : -1;
}

static size_t
api_ncells (void)
{
  return cells ? atomic_load_explicit (&ncells, memory_order_acquire) : 0;
}

static const mpe_mem_cell_t *
api_cells (void)
{
  return cells;
}

static int64_t
api_live (void)
{
  return atomic_load (&live_total);
}

static int64_t
api_peak (void)
{
  return atomic_load (&peak_total);
}

static uint64_t
api_dropped (void)
{
  return atomic_load (&dropped_);
}

API const mpe_memory_api_t mpe_memory_api = {
  MPE_MEMORY_ABI, sizeof (mpe_memory_api_t), api_enabled, api_bind_thread,
  api_slot_thread, api_ncells, api_cells, api_live, api_peak, api_dropped
};

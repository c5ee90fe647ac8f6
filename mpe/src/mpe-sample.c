/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The timer sampler (MPE_SAMPLE_HZ) and each thread's call-path store.
 *
 * Every logged thread gets a CPU-time timer (timer_create on
 * CLOCK_THREAD_CPUTIME_ID, delivered to that thread by SIGEV_THREAD_ID:
 * no system call per sample, perf_event in docs/benchmarks/HISTORY.md,
 * "Sampling").  The
 * handler unwinds by libunwind's unw_backtrace (call-frame information;
 * never a unw_step loop: it makes system calls) where the build has it,
 * else (or where it fails) by frame pointers when the chain is valid
 * (each frame above the interrupted stack pointer, each return address
 * inside a loaded binary's code, the chain ending in a zero frame pointer
 * at one of the thread's outermost frames); MPE_SAMPLE_UNWIND=fp keeps
 * to frame pointers, =libunwind to libunwind.  It interns the path in
 * the thread's own tree and appends one sample.
 *
 * Async-signal safety: the handler only runs on the thread it samples and
 * touches only that thread's store, whose memory is reserved up front.  The
 * one other writer of the tree is the same thread's call-site capture
 * (mpe-plugin.c), which raises `busy` around its change: a sample landing
 * then does not touch the tree and is recorded as constructed (the MPI call
 * in progress and its call site).
 */
#include "config.h"

#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifdef HAVE_LIBUNWIND
# define UNW_LOCAL_ONLY
# include <libunwind.h>
#endif

#include "mpe-sample.h"
#include "mpe-plugin-internal.h"
#include "mpe-counters.h"

#define MAX_DEPTH 128

enum { UNWIND_AUTO, UNWIND_FP, UNWIND_LIB };

static struct
{
  int           hz;            /* 0: off */
  int           depth;
  int           unwind;        /* UNWIND_* */
  int           signo;
  size_t        max_samples, max_nodes, max_sites;
  int           handler_set;
  mpe_module_t *mods;          /* sorted by lo; immutable while sampling */
  size_t        nmods;
  pthread_mutex_t lock;        /* the list of stores */
  mpe_sthread_t *list;
} S = { .lock = PTHREAD_MUTEX_INITIALIZER };

static atomic_int sampling;    /* timers may fire */
static __thread mpe_sthread_t *sthr
  __attribute__ ((tls_model ("initial-exec")));

int
mpe__sample_active (void)
{
  return S.hz > 0;
}

int
mpe__sample_hz (void)
{
  return S.hz;
}

mpe_sthread_t *
mpe__sample_threads (void)
{
  return S.list;
}

const mpe_module_t *
mpe__sample_modules (size_t *n)
{
  *n = S.nmods;
  return S.mods;
}

/* ------------------------------------------------------------------ */
/* Loaded binaries                                                     */
/* ------------------------------------------------------------------ */

static void
build_id_of (const struct dl_phdr_info *info, char *hex)
{
  hex[0] = '\0';
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_NOTE)
        continue;
      const char *p = (const char *) (info->dlpi_addr + ph->p_vaddr);
      const char *end = p + ph->p_memsz;
      while (p + sizeof (ElfW (Nhdr)) <= end)
        {
          const ElfW (Nhdr) *nh = (const ElfW (Nhdr) *) (const void *) p;
          const char *name = p + sizeof *nh;
          const unsigned char *desc = (const unsigned char *) name
                                      + ((nh->n_namesz + 3) & ~3u);
          if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4
              && !memcmp (name, "GNU", 4) && nh->n_descsz <= 20)
            {
              for (unsigned k = 0; k < nh->n_descsz; k++)
                sprintf (hex + 2 * k, "%02x", desc[k]);
              return;
            }
          p = (const char *) desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
}

static int
add_module (struct dl_phdr_info *info, size_t size, void *user)
{
  (void) size;
  (void) user;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
        continue;
      uint64_t a = info->dlpi_addr + ph->p_vaddr;
      if (a < lo)
        lo = a;
      if (a + ph->p_memsz > hi)
        hi = a + ph->p_memsz;
    }
  if (lo >= hi)
    return 0;
  mpe_module_t *v = realloc (S.mods, (S.nmods + 1) * sizeof *v);
  if (!v)
    return 1;
  S.mods = v;
  mpe_module_t *m = &v[S.nmods];
  char exe[PATH_MAX];
  const char *name = info->dlpi_name;
  if (!name || !*name)
    {
      ssize_t k = readlink ("/proc/self/exe", exe, sizeof exe - 1);
      exe[k > 0 ? k : 0] = '\0';
      name = exe;
    }
  m->path = strdup (name);
  if (!m->path)
    return 1;
  build_id_of (info, m->build_id);
  m->base = info->dlpi_addr;
  m->lo = lo;
  m->hi = hi;
  S.nmods++;
  return 0;
}

static int
mod_cmp (const void *a, const void *b)
{
  const mpe_module_t *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void
modules_load (void)
{
  for (size_t i = 0; i < S.nmods; i++)
    free (S.mods[i].path);
  free (S.mods);
  S.mods = NULL;
  S.nmods = 0;
  dl_iterate_phdr (add_module, NULL);
  qsort (S.mods, S.nmods, sizeof *S.mods, mod_cmp);
}

/* Is a inside some binary's code?  Signal-safe: the table is fixed. */
static int
in_code (uint64_t a)
{
  size_t lo = 0, hi = S.nmods;
  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      if (a < S.mods[mid].lo)
        hi = mid;
      else if (a >= S.mods[mid].hi)
        lo = mid + 1;
      else
        return 1;
    }
  return 0;
}

/* ------------------------------------------------------------------ */
/* The call-path tree                                                  */
/* ------------------------------------------------------------------ */

static void *
reserve (size_t bytes)
{
  void *p = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* An array filled from its start (samples, call sites): in 2 MB pages
 * where the kernel has them, so that a million 32-byte records cost 16
 * page faults rather than 8,000 (a fault costs about 2 us here, 20 ns a
 * call site: docs/benchmarks/HISTORY.md).  Without THP it is reserve's. */
static void *
reserve_appended (size_t bytes)
{
  void *p = reserve (bytes);
#ifdef MADV_HUGEPAGE
  if (p)
    (void) madvise (p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

static inline uint32_t
cp_hash (uint32_t parent, uint64_t pc)
{
  uint64_t h = (pc ^ ((uint64_t) parent << 32)) * 0x9e3779b97f4a7c15ull;
  return (uint32_t) (h >> 32);
}

/* The child of parent at pc, made if new; 0 when the tree is full. */
static inline uint32_t
cp_child (mpe_sthread_t *s, uint32_t parent, uint64_t pc)
{
  uint32_t b = cp_hash (parent, pc) & (s->nbuckets - 1);
  for (uint32_t i = s->buckets[b]; i; i = s->nodes[i].next)
    if (s->nodes[i].pc == pc && s->nodes[i].parent == parent)
      return i;
  if (s->nnodes >= s->maxnodes)
    return 0;
  uint32_t i = s->nnodes;
  s->nodes[i].pc = pc;
  s->nodes[i].parent = parent;
  s->nodes[i].next = s->buckets[b];
  atomic_signal_fence (memory_order_seq_cst);
  s->buckets[b] = i;
  s->nnodes = i + 1;
  return i;
}

/* pcs[0] is the innermost frame.  Returns the leaf node (0: no room). */
uint32_t
mpe__cp_intern (mpe_sthread_t *s, const uint64_t *pcs, int n)
{
  uint32_t node = 0;
  for (int i = n - 1; i >= 0; i--)
    {
      uint32_t c = cp_child (s, node, pcs[i]);
      if (!c)
        return node;
      node = c;
    }
  return node;
}

static mpe_sthread_t *
sthread_new (int thread)
{
  mpe_sthread_t *s = calloc (1, sizeof *s);
  if (!s)
    return NULL;
  s->thread = thread;
  s->maxnodes = (uint32_t) S.max_nodes;
  s->nbuckets = 1;
  while (s->nbuckets < s->maxnodes)
    s->nbuckets <<= 1;
  s->maxsamples = S.max_samples;
  s->maxsites = S.max_sites;
  s->nodes = reserve (s->maxnodes * sizeof *s->nodes);
  s->buckets = reserve (s->nbuckets * sizeof *s->buckets);
  s->samples = reserve_appended (s->maxsamples * sizeof *s->samples);
  s->sites = reserve_appended (s->maxsites * sizeof *s->sites);
  if (!s->nodes || !s->buckets || !s->samples || !s->sites)
    {
      fprintf (stderr, "mpe: no address space for thread %d's samples\n",
               thread);
      s->maxsamples = s->maxsites = 0;
      s->maxnodes = 1;
    }
  s->nnodes = 1;       /* the root */
  s->cur_state = -1;
  pthread_mutex_lock (&S.lock);
  s->next = S.list;
  S.list = s;
  pthread_mutex_unlock (&S.lock);
  return s;
}

mpe_sthread_t *
mpe__sthread (void)
{
  return sthr;
}

/* The calling thread's store, made on first use (not in a handler). */
mpe_sthread_t *
mpe__sthread_get (void)
{
  if (MPE_UNLIKELY (!sthr))
    {
      mpe_tbuf_t *b = mpe__tls ? mpe__tls : mpe__tbuf_create (0);
      sthr = sthread_new (b ? b->thread : -1);
    }
  return sthr;
}

/* ------------------------------------------------------------------ */
/* Unwinding (in the handler)                                          */
/* ------------------------------------------------------------------ */

static int
outermost (const mpe_sthread_t *s, uintptr_t ret)
{
  if (s->nouter == 0)
    return 1;   /* no backtrace at the start: trust the zero as before */
  for (int i = 0; i < s->nouter; i++)
    if (s->outer_ret[i] == (uint64_t) ret)
      return 1;
  return 0;
}

/* Frame-pointer walk from the interrupted context; -1 when the chain is
 * not valid all the way (the code has no frame pointers there).  A zero
 * frame pointer ends a valid chain only at one of the thread's outermost
 * frames: code built without frame pointers often leaves rbp zero, and a
 * function with a frame called from it (the vDSO's clock_gettime, say)
 * would otherwise end a "valid" chain of two frames, its callers lost.
 * Where
 * the code has none, rbp is any value, and a value inside the stack makes
 * the walk read stack words that belong to no object, like an unwinder:
 * not instrumented under AddressSanitizer, whose redzones are such words
 * (a read there is not the program's bug, and the bounds are checked). */
#if defined __has_attribute
# if __has_attribute (no_sanitize_address)
__attribute__ ((no_sanitize_address))
# endif
#endif
static int
fp_walk (const mcontext_t *mc, const mpe_sthread_t *s, uint64_t *pcs,
         int max, int *truncated)
{
  uintptr_t stack_hi = s->stack_hi;
  uintptr_t sp = (uintptr_t) mc->gregs[REG_RSP];
  uintptr_t fp = (uintptr_t) mc->gregs[REG_RBP];
  int n = 0;
  pcs[n++] = (uint64_t) mc->gregs[REG_RIP];
  while (n < max)
    {
      if (fp < sp || fp + 16 > stack_hi || (fp & 7))
        return -1;
      uintptr_t next = ((const uintptr_t *) fp)[0];
      uintptr_t ret = ((const uintptr_t *) fp)[1];
      if (!in_code (ret))
        return -1;
      pcs[n++] = ret - 1;
      if (next == 0)
        return outermost (s, ret) ? n : -1;
      if (next <= fp)
        return -1;
      sp = fp + 16;
      fp = next;
    }
  *truncated = 1;
  return n;
}

#ifdef HAVE_LIBUNWIND
/* unw_backtrace from the handler: its result starts with the handler's
 * own frames; the interrupted pc marks where the program's begin. */
static int
lib_walk (const mcontext_t *mc, uint64_t *pcs, int max, int *truncated)
{
  void *buf[MAX_DEPTH + 16];
  int got = unw_backtrace (buf, max + 16 < MAX_DEPTH + 16 ? max + 16
                                                           : MAX_DEPTH + 16);
  uint64_t rip = (uint64_t) mc->gregs[REG_RIP];
  int k = 0;
  while (k < got && (uint64_t) (uintptr_t) buf[k] != rip)
    k++;
  if (k >= got)
    return -1;
  int n = 0;
  pcs[n++] = rip;
  for (k++; k < got && n < max; k++)
    {
      uint64_t a = (uint64_t) (uintptr_t) buf[k];
      if (a == 0)
        break;
      pcs[n++] = a - 1;
    }
  if (k < got)
    *truncated = 1;
  return n;
}
#endif

static void
on_sample (int sig, siginfo_t *si, void *ucv)
{
  (void) sig;
  int saved = errno;
  mpe_sthread_t *s = sthr;
  if (!s || !atomic_load_explicit (&sampling, memory_order_relaxed))
    goto out;
  if (s->nsamples >= s->maxsamples)
    {
      s->lost++;
      goto out;
    }
  const mcontext_t *mc = &((const ucontext_t *) ucv)->uc_mcontext;
  uint64_t pcs[MAX_DEPTH];
  int truncated = 0, n = -1;
  unsigned flags = 0;
  if (s->busy)
    s->nreentered++;
  else
    {
#ifdef HAVE_LIBUNWIND
      /* Call-frame information first: a frame-pointer chain cannot tell
       * a leaf that set up no frame (its caller's frame then looks like
       * its own, and the caller is lost). */
      if (S.unwind != UNWIND_FP)
        {
          n = lib_walk (mc, pcs, S.depth, &truncated);
          if (n > 0)
            flags = MPE_SAMPLE_UNWIND;
        }
#endif
      if (n <= 0 && S.unwind != UNWIND_LIB)
        {
          truncated = 0;
          n = fp_walk (mc, s, pcs, S.depth, &truncated);
          if (n > 0)
            flags = MPE_SAMPLE_FP;
        }
    }
  mpe_sample_t *o = &s->samples[s->nsamples];
  o->t = mpe__ticks ();
  int cpu = sched_getcpu ();
  o->cpu = cpu < 0 ? 0xffff : (uint16_t) cpu;
  o->state = s->cur_state;
  /* Periods shorter than the kernel's tick come as one signal with
   * overruns: the sample stands for all of them. */
  o->weight = 1u + (si && si->si_code == SI_TIMER && si->si_overrun > 0
                    ? (uint32_t) si->si_overrun : 0u);
  if (n > 0)
    {
      o->node = mpe__cp_intern (s, pcs, n);
      flags |= truncated ? MPE_SAMPLE_TRUNCATED : 0;
      if (flags & MPE_SAMPLE_FP)
        s->nfp++;
      else
        s->nunw++;
    }
  else
    {
      /* The context we know: the MPI call in progress at its call site. */
      o->node = s->cur_node;
      flags = MPE_SAMPLE_CONSTRUCTED;
      s->nconstructed++;
    }
  o->flags = (uint16_t) flags;
  atomic_signal_fence (memory_order_seq_cst);
  s->nsamples++;
  if (mpe__ctr_on)
    mpe__counters_sample (o->t);
  mpe__plugins_trigger (MPE_TRIGGER_TIMER, s->thread,
                        (const void *) (uintptr_t) mc->gregs[REG_RIP]);
out:
  errno = saved;
}

/* ------------------------------------------------------------------ */
/* Timers                                                              */
/* ------------------------------------------------------------------ */

/* NAME as a whole number in [lo, hi] (mpe-env.c says what it refuses;
 * above hi it takes hi). */
static long
env_long (const char *name, long dflt, long lo, long hi, const char *unit)
{
  return (long) mpe__env_number (name, (double) dflt, (double) lo,
                                 (double) hi, unit,
                                 MPE_ENV_INT | MPE_ENV_CLAMP);
}

void
mpe__sample_init (void)
{
  const char *hz = getenv ("MPE_SAMPLE_HZ");
  S.hz = 0;
  if (hz && *hz)
    {
      if (!strcmp (hz, "on") || !strcmp (hz, "yes") || !strcmp (hz, "true"))
        S.hz = 200;
      else if (strcmp (hz, "off") && strcmp (hz, "no")
               && strcmp (hz, "false"))
        S.hz = (int) env_long ("MPE_SAMPLE_HZ", 200, 0, 100000, "Hz");
    }
  if (S.hz > 100000)
    S.hz = 100000;
  S.depth = (int) env_long ("MPE_SAMPLE_DEPTH", 64, 1, MAX_DEPTH, "frames");
  if (S.depth < 1 || S.depth > MAX_DEPTH)
    S.depth = MAX_DEPTH;
  const char *u = getenv ("MPE_SAMPLE_UNWIND");
  S.unwind = UNWIND_AUTO;
  if (u && !strcmp (u, "fp"))
    S.unwind = UNWIND_FP;
  else if (u && !strcmp (u, "libunwind"))
    S.unwind = UNWIND_LIB;
  else if (u && *u && strcmp (u, "auto"))
    fprintf (stderr, "mpe: MPE_SAMPLE_UNWIND=%s: use auto, fp or "
             "libunwind\n", u);
  S.max_samples = (size_t) mpe__env_number ("MPE_SAMPLE_BUFFER", 1 << 20,
                                             1024, 1 << 30, "samples",
                                             MPE_ENV_INT | MPE_ENV_CLAMP
                                             | MPE_ENV_CLAMP_LOW);
  if (S.max_samples < 1024)
    S.max_samples = 1024;
  S.max_nodes = S.max_samples < (1u << 20) ? (1u << 20) : S.max_samples;
  if (S.max_nodes > (1u << 30))
    S.max_nodes = 1u << 30;
  S.max_sites = (size_t) env_long ("MPE_CALLSITE_BUFFER", 1L << 22, 0,
                                   1L << 30, "call sites");
  S.signo = SIGPROF;
  modules_load ();
  mpe__sample_reset ();
  if (S.hz <= 0 && !mpe__callsite_mode)
    return;
#ifdef HAVE_LIBUNWIND
  /* Warm libunwind up outside any handler: its first call looks the
   * binaries up (dl_iterate_phdr takes the loader's lock). */
  unw_set_caching_policy (unw_local_addr_space, UNW_CACHE_PER_THREAD);
  void *warm[4];
  unw_backtrace (warm, 4);
#endif
  if (S.hz > 0 && !S.handler_set)
    {
      struct sigaction sa;
      memset (&sa, 0, sizeof sa);
      sa.sa_sigaction = on_sample;
      sa.sa_flags = SA_SIGINFO | SA_RESTART;
      sigemptyset (&sa.sa_mask);
      if (sigaction (S.signo, &sa, NULL) != 0)
        {
          fprintf (stderr, "mpe: cannot install the sampling handler: %s; "
                   "sampling off\n", strerror (errno));
          S.hz = 0;
          return;
        }
      S.handler_set = 1;
    }
  atomic_store (&sampling, S.hz > 0);
}

int
mpe__backtrace (void **buf, int max)
{
#ifdef HAVE_LIBUNWIND
  return unw_backtrace (buf, max);
#else
  return backtrace (buf, max);
#endif
}

/* The calling thread's last return addresses (its outermost frames stay
 * the same while it lives); outside the handler, so unw_backtrace's slow
 * path and glibc's backtrace are both fine here. */
static void
outer_frames (mpe_sthread_t *s)
{
  void *buf[256];
  int got = mpe__backtrace (buf, 256);
  if (got <= 0 || got >= 256)
    return;   /* none, or the outermost frames were cut off */
  int k = got < 4 ? got : 4;
  for (int i = 0; i < k; i++)
    s->outer_ret[i] = (uint64_t) (uintptr_t) buf[got - 1 - i];
  s->nouter = k;
}

/* Starts sampling the calling thread (once per log). */
void
mpe__sample_thread_start (int thread)
{
  if (S.hz <= 0 && !mpe__callsite_mode)
    return;
  mpe_sthread_t *s = sthr;
  if (!s)
    s = sthr = sthread_new (thread);
  if (!s || s->timer_on || S.hz <= 0)
    return;
  pthread_attr_t a;
  void *lo;
  size_t sz;
  if (pthread_getattr_np (pthread_self (), &a) == 0)
    {
      if (pthread_attr_getstack (&a, &lo, &sz) == 0)
        {
          s->stack_lo = (uintptr_t) lo;
          s->stack_hi = (uintptr_t) lo + sz;
        }
      pthread_attr_destroy (&a);
    }
  outer_frames (s);
  struct sigevent ev;
  memset (&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = S.signo;
  ev._sigev_un._tid = (pid_t) syscall (SYS_gettid);
  if (timer_create (CLOCK_THREAD_CPUTIME_ID, &ev, &s->timer) != 0)
    {
      fprintf (stderr, "mpe: thread %d: no sampling timer: %s\n", thread,
               strerror (errno));
      return;
    }
  long ns = 1000000000L / S.hz;
  struct itimerspec its = { { ns / 1000000000L, ns % 1000000000L },
                            { ns / 1000000000L, ns % 1000000000L } };
  if (timer_settime (s->timer, 0, &its, NULL) != 0)
    {
      timer_delete (s->timer);
      return;
    }
  s->timer_on = 1;
}

/* Stops every thread's timer: the stores are the merge's from here. */
void
mpe__sample_stop (void)
{
  atomic_store (&sampling, 0);
  pthread_mutex_lock (&S.lock);
  for (mpe_sthread_t *s = S.list; s; s = s->next)
    if (s->timer_on)
      {
        timer_delete (s->timer);
        s->timer_on = 0;
      }
  pthread_mutex_unlock (&S.lock);
}

/* Empty stores for a new log (the trees too: addresses may change). */
void
mpe__sample_reset (void)
{
  pthread_mutex_lock (&S.lock);
  for (mpe_sthread_t *s = S.list; s; s = s->next)
    {
      s->busy = 1;
      atomic_signal_fence (memory_order_seq_cst);
      if (s->nnodes > 1)
        memset (s->buckets, 0, s->nbuckets * sizeof *s->buckets);
      s->nnodes = 1;
      s->nsamples = s->nsites = 0;
      s->lost = s->nfp = s->nunw = s->nconstructed = s->nreentered = 0;
      s->cur_state = -1;
      s->cur_node = 0;
      memset (s->site_cache, 0, sizeof s->site_cache);
      atomic_signal_fence (memory_order_seq_cst);
      s->busy = 0;
    }
  pthread_mutex_unlock (&S.lock);
}

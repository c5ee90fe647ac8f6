/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A known allocation pattern for the memory layer (tests/mpe/memory.sh),
 * run with MPE_MEMORY=1 and LD_PRELOAD=libmpe_memory.so; each site is a
 * function of its own:
 *   alloc_early   malloc (777) before MPI_Init, freed after MPE_Init_log
 *   alloc_many    10 x malloc (1000) alive together, then all freed
 *   alloc_leak    calloc (5, 200), never freed: the one leak (1000 B)
 *   alloc_aligned posix_memalign (64, 4096), freed
 *   alloc_grow    malloc (100) on one line, realloc to 5000 on the next,
 *                 freed (two sites of one function)
 *   alloc_map     mmap of 65536 anonymous bytes, munmap
 * Sleeps between phases let the sampler (10 ms) see each level.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "mpe.h"

/* noclone keeps gcc from specialising a site into a copy with another
   name; clang does not clone and does not know the attribute. */
#if defined __clang__
#define NOINLINE __attribute__ ((noinline))
#else
#define NOINLINE __attribute__ ((noinline, noclone))
#endif

static void *volatile keep;

/* Publishing a block makes it escape: clang otherwise removes a
   malloc/free pair whose memory nobody reads. */
#define ESCAPE(p) (keep = (p))

static void
pause_ms (int ms)
{
  struct timespec ts = { 0, ms * 1000000L };
  nanosleep (&ts, NULL);
}

static NOINLINE void *
alloc_early (void)
{
  void *p = malloc (777);  /* not a tail call: the site stays here */
  keep = p;
  return p;
}

static NOINLINE void
alloc_many (void)
{
  void *p[10];
  for (int i = 0; i < 10; i++)
    {
      p[i] = malloc (1000);
      ESCAPE (p[i]);
      memset (p[i], i, 1000);
    }
  pause_ms (40);
  for (int i = 0; i < 10; i++)
    free (p[i]);
}

static NOINLINE void
alloc_leak (void)
{
  keep = calloc (5, 200);
}

static NOINLINE void
alloc_aligned (void)
{
  void *p = NULL;
  if (posix_memalign (&p, 64, 4096) == 0)
    {
      memset (p, 1, 4096);
      pause_ms (20);
      free (p);
    }
}

static NOINLINE void
alloc_grow (void)
{
  char *p = malloc (100);
  ESCAPE (p);
  char *q = realloc (p, 5000);
  if (q)
    {
      ESCAPE (q);
      memset (q, 2, 5000);
      pause_ms (20);
      free (q);
    }
}

static NOINLINE void
alloc_map (void)
{
  void *p = mmap (NULL, 65536, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED)
    {
      memset (p, 3, 65536);
      pause_ms (20);
      munmap (p, 65536);
    }
}

int
main (int argc, char **argv)
{
  void *early = alloc_early ();
  MPI_Init (&argc, &argv);
  MPE_Init_log ();
  free (early);
  alloc_many ();
  alloc_leak ();
  alloc_aligned ();
  alloc_grow ();
  alloc_map ();
  pause_ms (20);
  MPE_Finish_log ("memory");
  MPI_Finalize ();
  return 0;
}

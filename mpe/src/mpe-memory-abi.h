/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What libmpe_memory (mpe/memory/, the allocator wrappers, by LD_PRELOAD
 * or link) shows libmpe: its table of (thread : call site) cells.  libmpe
 * finds it with dlsym ("mpe_memory_api") at MPE_Init_log, samples the
 * cells over time and writes them into the log; neither library links
 * the other.  Not installed.
 */
#ifndef MPE_MEMORY_ABI_H
#define MPE_MEMORY_ABI_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define MPE_MEMORY_ABI 1

/* One (thread : call site) cell.  live and the process totals change
 * atomically (a block may be freed by another thread); calls and peak
 * are written by the cell's own thread only. */
typedef struct
{
  uint64_t         site;    /* return address into the allocator's caller */
  uint32_t         slot;    /* the thread's slot in libmpe_memory */
  uint32_t         kind;    /* MPE_MEM_HEAP or MPE_MEM_MMAP */
  _Atomic int64_t  live;    /* bytes allocated here and not yet freed */
  _Atomic int64_t  peak;    /* the highest live */
  _Atomic uint64_t calls;   /* allocations (malloc, calloc, realloc, ...) */
} mpe_mem_cell_t;

enum { MPE_MEM_HEAP = 0, MPE_MEM_MMAP = 1 };

typedef struct mpe_memory_api
{
  uint32_t abi;             /* MPE_MEMORY_ABI */
  uint32_t size;            /* sizeof (mpe_memory_api_t) */
  /* 1 when MPE_MEMORY=1 made the wrappers record (decided at the first
   * allocation of the process, for its whole life). */
  int      (*enabled) (void);
  /* The calling thread is libmpe's thread `thread` (its buffer index). */
  void     (*bind_thread) (int thread);
  /* libmpe's thread index of a slot, or -1 (the thread never logged). */
  int      (*slot_thread) (uint32_t slot);
  /* Cells [0, n): the array only grows, so a snapshot of n is safe. */
  size_t   (*ncells) (void);
  const mpe_mem_cell_t *(*cells) (void);
  /* Process totals: bytes live now, the highest ever, cells dropped
   * (table full: their bytes are in the totals only). */
  int64_t  (*live) (void);
  int64_t  (*peak) (void);
  uint64_t (*dropped) (void);
} mpe_memory_api_t;

#endif

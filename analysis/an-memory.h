/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory profile of a log written with MPE_MEMORY=1 (resource
 * definitions LOGFMT_RES_MEMSITE and LOGFMT_RES_MEMTOTAL): per rank its
 * peak and the bytes live at the end, and per call site (the function
 * that called the allocator, symbolised with callpath/ from the module
 * and offset the log stores) its calls, peak and bytes still live at the
 * end (sites inside libmpe's own libraries, the logger's allocations,
 * left out).  Written once for clogtool memory and the viewer's memory
 * table; the caller names the sites (cp_symbols_site_name of callpath/, so the
 * analysis needs no symbols of its own). */
#ifndef MPE_AN_MEMORY_H
#define MPE_AN_MEMORY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <logfmt/logfmt.h>

/* A call site of one rank, over its (thread : site) cells: calls and
 * live_end their sums; peak the highest bytes live at once over its
 * threads, from the memory track's samples (at least any one thread's
 * own peak, never more than what was live together), and peak_threads
 * the sum of its threads' own peaks (reached at different times, it may
 * be more than ever was live). */
typedef struct
{
  int32_t     rank;
  int         kind;       /* LOGFMT_MEM_KIND: 0 heap, 1 mmap */
  const char *function;   /* strings from the namer */
  const char *file;       /* "" when unknown */
  int         line;       /* 0 when unknown */
  int64_t     calls, peak, live_end;
  int64_t     peak_threads;
} an_mem_site_t;

/* One (stream : site) cell of the log and the site it adds to. */
typedef struct
{
  uint32_t stream;
  int64_t  id;            /* the memory track's cell column */
  int32_t  rank, thread;
  size_t   site;          /* index into an_memory_t.sites */
  int64_t  calls, peak, live_end;   /* the cell's own: one thread's */
} an_mem_cell_t;

typedef struct
{
  int32_t rank;
  int64_t peak, live_end;
  size_t  first, nsites;  /* its sites: sites[first .. first + nsites) */
} an_mem_rank_t;

typedef struct
{
  an_mem_rank_t *ranks;   /* in the order the log defines their totals */
  size_t         nranks;  /* 0: the log has no memory records */
  an_mem_site_t *sites;   /* by rank, then decreasing peak, function,
                             line */
  size_t         nsites;
  an_mem_cell_t *cells;
  size_t         ncells;
} an_memory_t;

/* Names the code at `offset` from the load base of module file `module`
 * (an address inside the call instruction): *function, *file ("" when
 * unknown), *line (0); the strings must outlive the an_memory_t. */
typedef void (*an_mem_namer_fn) (void *user, const char *module,
                                 uint64_t offset, const char **function,
                                 const char **file, int *line);

/* Reads the memory definitions of r, naming the sites through name.  0,
 * or a negative logfmt code (and *err, which may be NULL, says why). */
int  an_memory_load (const logfmt_reader_t *r, an_mem_namer_fn name,
                     void *user, an_memory_t **out, logfmt_error_t *err);
void an_memory_free (an_memory_t *m);

/* Whether a memory site definition (LOGFMT_RES_MEMSITE) is inside the
 * toolkit's own libraries: those allocations are not the program's, and
 * every report leaves their sites out (the totals keep them). */
int  an_memory_own_site (const logfmt_resource_def_t *d);

/* The memory table as JSON, the one form `clogtool memory --json` and
 * `mpeview --export-tables` write: {per_rank: [{rank, peak_bytes,
 * live_bytes_at_end, sites: [{function, file, line, kind, calls,
 * peak_bytes, peak_bytes_threads, live_bytes_at_end, threads: [{thread,
 * calls, peak_bytes, live_bytes_at_end}]}]}]}.  put_string writes one
 * JSON string (with its quotes).  0, or -1 on a write error. */
int  an_memory_write_json (const an_memory_t *m, FILE *f,
                           void (*put_string) (FILE *f, const char *s));

#endif

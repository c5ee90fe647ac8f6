/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * grouped: the states' rows grouped by name in one pass (docs/SQL.md,
 * "GROUP BY name without a sort"), for the states cursor on SQLite's
 * thread or for its read-ahead worker (ivahead.h).  libc memory only.
 */
#ifndef CLOGSQL_GROUPED_H
#define CLOGSQL_GROUPED_H

#include <stdint.h>
#include <stdio.h>

#include <logfmt/logfmt.h>

/* SQLite groups rows (GROUP BY, DISTINCT) by sorting all of them: for
 * `SELECT name, count(*), sum(duration) FROM states GROUP BY name` that
 * sort is most of the cost.  When the planner says grouped rows are
 * enough (sqlite3_vtab_distinct) and the grouping is on name, the states
 * cursor claims the order and groups itself, in linear time: one pass
 * over the streams hands the instances of states without a name (the
 * NULL group, which comes first) to SQLite as they come and appends
 * every other instance, encoded with only the columns the query uses
 * (colUsed), to its name's bucket; the buckets are then replayed in
 * name order (byte order), so the rows come sorted: SQLite 3.40 takes
 * grouped rows as sorted when ORDER BY name goes with GROUP BY name.
 * Buckets are chunk lists; past GROUP_MEM bytes the full chunks go to
 * a temporary file. */

/* Fields an encoded row keeps (from the query's columns). */
#define G_STREAM 0x01u   /* rank, thread, stream */
#define G_START  0x02u   /* start, end */
#define G_INCL   0x04u   /* duration, end */
#define G_EXCL   0x08u   /* exclusive */
#define G_DEPTH  0x10u   /* depth */
#define G_FLAGS  0x20u   /* open, cargo, info */
#define G_CARGO  0x40u   /* cargo, info */
#define G_STATE  0x80u   /* state, info (a name may have several states) */

typedef struct gchunk
{
  struct gchunk *next;
  uint8_t *mem;          /* the bytes, or NULL once spilled */
  int64_t off;           /* where in the spill file */
  uint32_t len;
} gchunk_t;

typedef struct
{
  gchunk_t *head, *tail;
  uint64_t last_start;   /* starts are coded as differences */
  int32_t state;         /* a state of this name (-1: unknown states) */
  const char *name;      /* its name (NULL for unknown states) */
  int name_len;
} gbucket_t;

typedef struct grouped
{
  unsigned fields;
  size_t nstates;
  uint32_t ngroups;      /* group 0: states without a definition */
  uint32_t *group_of;    /* state index -> group */
  gbucket_t *b;
  size_t mem;            /* bytes of chunks in memory */
  size_t mem_max;
  FILE *spill;
  int64_t spill_end;
  /* While the pass runs, the NULL group's instances go to SQLite as
   * they come (it comes first) and only the others are kept. */
  int passing;
  /* replay */
  uint32_t g;            /* bucket being delivered */
  gchunk_t *ch;
  uint8_t *buf;          /* a spilled chunk read back */
  const uint8_t *p, *end;
  uint64_t last_start;
} grouped_t;

/* The groups of r's state names; NULL when out of memory. */
grouped_t *grouped_new (const logfmt_reader_t *r, unsigned fields);
void grouped_free (grouped_t *gp);

/* The group of an instance (0: a state without a definition).  Uses only
 * what grouped_new set, so another thread may call it during the pass
 * (SQLite's thread, for the name column, once per row). */
static inline uint32_t
grouped_group (const grouped_t *gp, const logfmt_interval_t *iv)
{
  return iv->state >= 0 && (size_t) iv->state < gp->nstates
         ? gp->group_of[iv->state] : 0;
}

/* The pass: 1 if *iv is to be delivered now (the NULL group's), 0 if it
 * was kept for later, or LOGFMT_ENOMEM / LOGFMT_EIO. */
int grouped_take (grouped_t *gp, const logfmt_interval_t *iv);

/* After the pass: the kept rows, group by group: 1 with *iv decoded (its
 * state: one of its group's), 0 at the end, or LOGFMT_ENOMEM /
 * LOGFMT_EIO. */
int grouped_next (grouped_t *gp, logfmt_interval_t *iv);

#endif

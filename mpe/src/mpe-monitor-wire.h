/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The monitor's request, as it travels the ring of service channels
 * (ANALYSIS-MODEL 000-15, 000-17).  The manager sends a header that names
 * what it wants and carries no values; each rank adds its contribution
 * and forwards it; the header comes back to the manager with one slot per
 * object of the level asked for.  Pure C, no MPI: the slot arithmetic is
 * tested on its own.  Not installed.
 */
#ifndef MPE_MONITOR_WIRE_H
#define MPE_MONITOR_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define MPE_MON_MAGIC   0x4e4f4d4du   /* "MMON" little-endian */
#define MPE_MON_VERSION 1u

enum { MPE_MON_OP_SAMPLE = 1, MPE_MON_OP_STOP = 2 };

/* How the service channels connect the ranks (mpe-monitor.c). */
enum { MPE_MON_SHAPE_RING = 0, MPE_MON_SHAPE_TREE = 1 };

/* Resource kinds and their hierarchy levels (000-8, 000-17). */
enum { MPE_MON_RES_PROCESS = 0, MPE_MON_RES_CHANNEL = 1 };
enum
{
  MPE_MON_LEVEL_THREAD = 0, MPE_MON_LEVEL_PROCESS = 1,
  MPE_MON_LEVEL_NODE = 2, MPE_MON_LEVEL_JOB = 3,
  MPE_MON_LEVEL_CHANNEL = 4   /* channel kind: the row of one sender */
};

typedef struct
{
  uint32_t magic;
  uint16_t version;
  uint16_t op;
  uint32_t seq;
  uint16_t resource;
  uint16_t level;
  int32_t  object;     /* -1: every object of the level */
  uint32_t code;       /* metric asked for */
  uint32_t nslots;     /* slots following the header */
  uint32_t visited;    /* ranks that added their part */
  int64_t  t_send;     /* manager's clock (ns) when sent: round trip */
} mpe_mon_req_t;

/* One object's value.  Aggregates up the hierarchy (000-9, 000-10): the
 * sum over the object's parts, their min and max, and who holds them. */
typedef struct
{
  int64_t  sum, min, max;
  int32_t  min_obj, max_obj;   /* world rank, or rank << 16 | thread */
  uint32_t n;                  /* parts added */
  int32_t  object;             /* the slot's object (rank, node, ...) */
} mpe_mon_slot_t;

_Static_assert (sizeof (mpe_mon_req_t) == 40, "request header layout");
_Static_assert (sizeof (mpe_mon_slot_t) == 40, "slot layout");

static inline void
mpe_mon_slot_init (mpe_mon_slot_t *s, int32_t object)
{
  s->sum = 0;
  s->min = INT64_MAX;
  s->max = INT64_MIN;
  s->min_obj = s->max_obj = -1;
  s->n = 0;
  s->object = object;
}

/* Adds one part (value v held by part `who`) to a slot. */
static inline void
mpe_mon_slot_add (mpe_mon_slot_t *s, int64_t v, int32_t who)
{
  s->sum = (int64_t) ((uint64_t) s->sum + (uint64_t) v);
  if (s->n == 0 || v < s->min)
    s->min = v, s->min_obj = who;
  if (s->n == 0 || v > s->max)
    s->max = v, s->max_obj = who;
  s->n++;
}

/* Folds slot src (the parts of the same object seen by another subtree)
 * into dst: the tree shape's parents aggregate on the way up. */
static inline void
mpe_mon_slot_merge (mpe_mon_slot_t *dst, const mpe_mon_slot_t *src)
{
  if (src->n == 0)
    return;
  dst->sum = (int64_t) ((uint64_t) dst->sum + (uint64_t) src->sum);
  if (dst->n == 0 || src->min < dst->min)
    dst->min = src->min, dst->min_obj = src->min_obj;
  if (dst->n == 0 || src->max > dst->max)
    dst->max = src->max, dst->max_obj = src->max_obj;
  dst->n += src->n;
}

/* Whether a request of this level grows by appended slots (one per rank
 * or thread) rather than carrying a fixed set aggregated in place. */
static inline int
mpe_mon_level_appends (int level, int32_t object)
{
  return level == MPE_MON_LEVEL_THREAD
         || (level == MPE_MON_LEVEL_PROCESS && object < 0);
}

/* The tree shape: rank `rel` (0 = the manager) of n in a tree of fan-out
 * k whose subtrees are contiguous ranges, [0, n) at the root; a node's
 * range minus itself is cut into k near-equal pieces whose first ranks
 * are its children.  Contiguous ranges keep a subtree on as few nodes as
 * possible (ranks are usually placed node by node) and make the depth
 * ceil(log_k) of the range.  Writes the parent (-1 at the root) and up
 * to k children; returns the number of children, -1 on bad input. */
static inline int
mpe_mon_tree_links (int rel, int n, int k, int *parent, int *children)
{
  if (n < 1 || k < 1 || rel < 0 || rel >= n)
    return -1;
  int lo = 0, hi = n;
  *parent = -1;
  while (rel != lo)
    {
      int m = hi - lo - 1, start = lo + 1;
      for (int c = 0; c < k; c++)
        {
          int len = m / k + (c < m % k);
          if (rel < start + len)
            {
              *parent = lo;
              lo = start, hi = start + len;
              break;
            }
          start += len;
        }
    }
  int m = hi - lo - 1, start = lo + 1, nc = 0;
  for (int c = 0; c < k; c++)
    {
      int len = m / k + (c < m % k);
      if (len > 0)
        children[nc++] = start;
      start += len;
    }
  return nc;
}

/* Bytes of a request with n slots, 0 when n is unreasonable. */
static inline size_t
mpe_mon_req_bytes (uint64_t nslots)
{
  if (nslots > (UINT32_MAX - sizeof (mpe_mon_req_t)) / sizeof (mpe_mon_slot_t))
    return 0;
  return sizeof (mpe_mon_req_t) + (size_t) nslots * sizeof (mpe_mon_slot_t);
}

/* Checks a received request of len bytes.  Returns 0 if it is usable. */
static inline int
mpe_mon_req_check (const void *buf, size_t len)
{
  const mpe_mon_req_t *q = (const mpe_mon_req_t *) buf;
  if (len < sizeof *q || q->magic != MPE_MON_MAGIC
      || q->version != MPE_MON_VERSION
      || (q->op != MPE_MON_OP_SAMPLE && q->op != MPE_MON_OP_STOP))
    return -1;
  return mpe_mon_req_bytes (q->nslots) == len ? 0 : -1;
}

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * At the finish: the threads' call-path trees become one tree per rank
 * (each path interned once, addresses made relative to their binary), the
 * table the merge writes (logfmt_callpaths_encode), and each thread's
 * samples and call sites become track records (kinds 2 and 3) that point
 * into it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mpe-sample.h"

typedef struct
{
  logfmt_cpnode_t *v;
  size_t n, cap;
  uint32_t *bucket;    /* open addressing, mask nb-1; 0 = empty */
  size_t nb;
} rtree_t;

static rtree_t R;

static uint64_t
rhash (uint32_t parent, uint32_t mod, uint64_t addr)
{
  uint64_t h = addr * 0x9e3779b97f4a7c15ull;
  h ^= ((uint64_t) parent << 20) ^ mod;
  return h * 0xff51afd7ed558ccdull;
}

static int
rgrow (void)
{
  size_t nb = R.nb ? R.nb * 2 : 4096;
  uint32_t *b = calloc (nb, sizeof *b);
  if (!b)
    return -1;
  for (size_t i = 1; i < R.n; i++)
    {
      size_t h = rhash (R.v[i].parent, R.v[i].module, R.v[i].addr) & (nb - 1);
      while (b[h])
        h = (h + 1) & (nb - 1);
      b[h] = (uint32_t) i;
    }
  free (R.bucket);
  R.bucket = b;
  R.nb = nb;
  return 0;
}

/* The rank's node for (parent, module, addr); UINT32_MAX: no memory. */
static uint32_t
rintern (uint32_t parent, uint32_t mod, uint64_t addr)
{
  if ((R.n + 1) * 2 > R.nb && rgrow ())
    return UINT32_MAX;
  size_t h = rhash (parent, mod, addr) & (R.nb - 1);
  for (; R.bucket[h]; h = (h + 1) & (R.nb - 1))
    {
      const logfmt_cpnode_t *x = &R.v[R.bucket[h]];
      if (x->parent == parent && x->module == mod && x->addr == addr)
        return R.bucket[h];
    }
  if (R.n == R.cap)
    {
      size_t c = R.cap * 2;
      logfmt_cpnode_t *v = realloc (R.v, c * sizeof *v);
      if (!v)
        return UINT32_MAX;
      R.v = v;
      R.cap = c;
    }
  R.v[R.n].parent = parent;
  R.v[R.n].module = mod;
  R.v[R.n].addr = addr;
  R.bucket[h] = (uint32_t) R.n;
  return (uint32_t) R.n++;
}

static uint32_t
module_of (const mpe_module_t *m, size_t n, uint64_t a)
{
  size_t lo = 0, hi = n;
  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      if (a < m[mid].lo)
        hi = mid;
      else if (a >= m[mid].hi)
        lo = mid + 1;
      else
        return (uint32_t) mid;
    }
  return LOGFMT_NO_MODULE;
}

void
mpe__cp_free (void)
{
  free (R.v);
  free (R.bucket);
  memset (&R, 0, sizeof R);
  for (mpe_sthread_t *s = mpe__sample_threads (); s; s = s->next)
    {
      free (s->rankmap);
      s->rankmap = NULL;
    }
}

/* Builds the rank's tree from every thread's and maps their nodes into
 * it; the encoded tables go to *blob.  0, or a LOGFMT_E* code. */
int
mpe__cp_build (int32_t rank, void **blob, size_t *len)
{
  *blob = NULL;
  *len = 0;
  mpe__cp_free ();
  size_t nmods;
  const mpe_module_t *mods = mpe__sample_modules (&nmods);
  R.cap = 4096;
  R.v = malloc (R.cap * sizeof *R.v);
  if (!R.v || rgrow ())
    return LOGFMT_ENOMEM;
  R.v[0].parent = 0;
  R.v[0].module = LOGFMT_NO_MODULE;
  R.v[0].addr = 0;
  R.n = 1;
  int any = 0;
  for (mpe_sthread_t *s = mpe__sample_threads (); s; s = s->next)
    {
      if (s->nnodes <= 1 && !s->nsamples && !s->nsites)
        continue;
      any = 1;
      s->rankmap = malloc (s->nnodes * sizeof *s->rankmap);
      if (!s->rankmap)
        return LOGFMT_ENOMEM;
      s->rankmap[0] = 0;
      /* Parents come before children in a thread's tree. */
      for (uint32_t i = 1; i < s->nnodes; i++)
        {
          uint64_t pc = s->nodes[i].pc;
          uint32_t mod = pc >= MPE_PSEUDO_BASE ? LOGFMT_NO_MODULE
                         : module_of (mods, nmods, pc);
          uint64_t addr = mod == LOGFMT_NO_MODULE ? pc : pc - mods[mod].base;
          uint32_t r = rintern (s->rankmap[s->nodes[i].parent], mod, addr);
          if (r == UINT32_MAX)
            return LOGFMT_ENOMEM;
          s->rankmap[i] = r;
        }
    }
  if (!any)
    return 0;
  logfmt_module_t *lm = calloc (nmods + 1, sizeof *lm);
  if (!lm)
    return LOGFMT_ENOMEM;
  for (size_t i = 0; i < nmods; i++)
    {
      lm[i].path = mods[i].path;
      lm[i].build_id = mods[i].build_id;
      lm[i].base = mods[i].base;
      lm[i].lo = mods[i].lo;
      lm[i].hi = mods[i].hi;
    }
  /* Pseudo frames of constructed samples are added on demand by
   * mpe__cp_sample_node, so reserve them before encoding. */
  for (mpe_sthread_t *s = mpe__sample_threads (); s; s = s->next)
    for (size_t i = 0; s->rankmap && i < s->nsamples; i++)
      if (s->samples[i].flags & MPE_SAMPLE_CONSTRUCTED)
        {
          uint32_t base = s->samples[i].node < s->nnodes
                          ? s->rankmap[s->samples[i].node] : 0;
          uint64_t pseudo = s->samples[i].state >= 0
                            ? MPE_PSEUDO_MPI (s->samples[i].state)
                            : MPE_PSEUDO_UNKNOWN;
          if (rintern (base, LOGFMT_NO_MODULE, pseudo) == UINT32_MAX)
            {
              free (lm);
              return LOGFMT_ENOMEM;
            }
        }
  int rc = logfmt_callpaths_encode (rank, lm, nmods, R.v, R.n, blob, len);
  free (lm);
  return rc;
}

/* The rank node of thread s's sample i (after mpe__cp_build). */
uint32_t
mpe__cp_sample_node (const mpe_sthread_t *s, size_t i)
{
  const mpe_sample_t *x = &s->samples[i];
  uint32_t base = x->node < s->nnodes ? s->rankmap[x->node] : 0;
  if (!(x->flags & MPE_SAMPLE_CONSTRUCTED))
    return base;
  uint64_t pseudo = x->state >= 0 ? MPE_PSEUDO_MPI (x->state)
                                  : MPE_PSEUDO_UNKNOWN;
  uint32_t r = rintern (base, LOGFMT_NO_MODULE, pseudo);
  return r == UINT32_MAX ? base : r;
}

uint32_t
mpe__cp_site_node (const mpe_sthread_t *s, size_t i)
{
  uint32_t n = s->sites[i].node;
  return n < s->nnodes ? s->rankmap[n] : 0;
}

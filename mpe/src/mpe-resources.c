/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the scheduling and memory layers give the merge: each thread's
 * records of track kinds 4 (context switches) and 5 (memory), and this
 * rank's resource definitions (CPU topology once per host, memory call
 * sites and totals), serialised as the merge's staged items.
 */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpe-internal.h"
#include "mpe-memory-abi.h"
#include "mpe-resources.h"
#include "mpe-sched.h"
#include "mpe-topo.h"

int
mpe__res_track (uint32_t kind, int thread, logfmt_track_rec_t **out,
                size_t *n)
{
  *out = NULL;
  *n = 0;
  if (kind == LOGFMT_TRACK_SWITCH)
    {
      mpe_sched_rec_t *r;
      size_t k;
      uint64_t lost;
      if (mpe__sched_records (thread, &r, &k, &lost) != 0)
        return -1;
      if (k == 0)
        return 0;
      logfmt_track_rec_t *v = calloc (k, sizeof *v);
      if (!v)
        {
          free (r);
          return -1;
        }
      for (size_t i = 0; i < k; i++)
        {
          v[i].time = r[i].t;
          v[i].col[MPE_SCHED_COL_CPU] = r[i].cpu;
          v[i].col[MPE_SCHED_COL_WHAT] = r[i].what;
        }
      free (r);
      *out = v;
      *n = k;
      return 0;
    }
  if (kind == LOGFMT_TRACK_MEMORY)
    {
      const mpe_memory_api_t *a = mpe__mem_api ();
      mpe_mem_sample_t *s;
      size_t k;
      uint64_t dropped;
      if (!a || mpe__mem_records (&s, &k, &dropped) != 0 || k == 0)
        return 0;
      const mpe_mem_cell_t *c = a->cells ();
      size_t nc = a->ncells ();
      logfmt_track_rec_t *v = calloc (k, sizeof *v);
      if (!v)
        return -1;
      size_t m = 0;
      for (size_t i = 0; i < k; i++)
        {
          int owner = 0;
          if (s[i].cell >= 0 && (size_t) s[i].cell < nc)
            {
              owner = a->slot_thread (c[s[i].cell].slot);
              if (owner < 0)
                owner = 0;  /* a thread that never logged: the process's */
            }
          if (owner != thread)
            continue;
          v[m].time = s[i].t;
          v[m].col[MPE_MEM_COL_CELL] = s[i].cell;
          v[m].col[MPE_MEM_COL_LIVE] = s[i].live;
          v[m].col[MPE_MEM_COL_CALLS] = (int64_t) s[i].calls;
          m++;
        }
      if (m == 0)
        free (v);
      else
        {
          *out = v;
          *n = m;
        }
      return 0;
    }
  if (kind == LOGFMT_TRACK_NETWORK)
    {
      const mpe_net_sample_t *s;
      size_t k = thread == 0 ? mpe__net_records (&s) : 0;
      if (k == 0)
        return 0;
      logfmt_track_rec_t *v = calloc (k, sizeof *v);
      if (!v)
        return -1;
      for (size_t i = 0; i < k; i++)
        {
          v[i].time = s[i].t;
          v[i].col[0] = s[i].nic;
          for (int c = 0; c < 4; c++)
            v[i].col[1 + c] = s[i].v[c];
        }
      *out = v;
      *n = k;
      return 0;
    }
  return 0;
}

/* ---- Resource definitions ------------------------------------------ */

typedef struct
{
  unsigned char *p;
  size_t len, cap;
  int oom;
} buf_t;

static void
put (buf_t *b, const void *x, size_t n)
{
  if (b->oom)
    return;
  if (b->len + n > b->cap)
    {
      size_t nc = b->cap ? b->cap * 2 : 4096;
      while (nc < b->len + n)
        nc *= 2;
      unsigned char *q = realloc (b->p, nc);
      if (!q)
        {
          b->oom = 1;
          return;
        }
      b->p = q;
      b->cap = nc;
    }
  memcpy (b->p + b->len, x, n);
  b->len += n;
}

static void
put_def (buf_t *b, const logfmt_resource_def_t *d)
{
  uint32_t h[4] = { d->kind, d->stream, d->nv, d->ns };
  size_t at = b->len;
  uint32_t len = 0;
  put (b, &len, 4);
  put (b, h, sizeof h);
  put (b, d->v, d->nv * sizeof d->v[0]);
  for (uint32_t i = 0; i < d->ns; i++)
    {
      uint32_t n = d->s[i] ? (uint32_t) strlen (d->s[i]) : UINT32_MAX;
      put (b, &n, 4);
      if (d->s[i])
        put (b, d->s[i], n);
    }
  if (!b->oom)
    {
      len = (uint32_t) (b->len - at - 4);
      memcpy (b->p + at, &len, 4);
    }
}

int
mpe__res_parse (const void *p, size_t len, mpe_res_cb cb, void *user)
{
  const unsigned char *q = p, *end = q + len;
  while (end - q >= 4)
    {
      uint32_t n;
      memcpy (&n, q, 4);
      q += 4;
      if (n > (size_t) (end - q) || n < 16)
        return -1;
      const unsigned char *r = q, *re = q + n;
      q += n;
      uint32_t h[4];
      memcpy (h, r, 16);
      r += 16;
      logfmt_resource_def_t d;
      memset (&d, 0, sizeof d);
      d.kind = h[0];
      d.stream = h[1];
      d.nv = h[2];
      d.ns = h[3];
      if (d.nv > LOGFMT_RES_MAX_V || d.ns > LOGFMT_RES_MAX_S
          || (size_t) (re - r) < d.nv * 8u)
        return -1;
      memcpy (d.v, r, d.nv * 8u);
      r += d.nv * 8u;
      char *s[LOGFMT_RES_MAX_S] = { NULL, NULL };
      int bad = 0;
      for (uint32_t i = 0; i < d.ns && !bad; i++)
        {
          uint32_t sl;
          if (re - r < 4)
            {
              bad = 1;
              break;
            }
          memcpy (&sl, r, 4);
          r += 4;
          if (sl == UINT32_MAX)
            continue;
          if (sl > (size_t) (re - r) || !(s[i] = strndup ((const char *) r,
                                                          sl)))
            bad = 1;
          r += bad ? 0 : sl;
          d.s[i] = s[i];
        }
      int rc = bad ? -1 : cb (user, &d);
      for (int i = 0; i < LOGFMT_RES_MAX_S; i++)
        free (s[i]);
      if (rc)
        return rc;
    }
  return q == end ? 0 : -1;
}

/* The module holding addr and addr's offset in it. */
static void
module_of (uint64_t addr, char *path, size_t len, uint64_t *off)
{
  Dl_info di;
  path[0] = '\0';
  *off = addr;
  if (!dladdr ((void *) (uintptr_t) addr, &di) || !di.dli_fbase)
    return;
  *off = addr - (uint64_t) (uintptr_t) di.dli_fbase;
  const char *f = di.dli_fname;
  extern char *program_invocation_name;
  if (!f || !*f || strcmp (f, program_invocation_name) == 0)
    {
      ssize_t k = readlink ("/proc/self/exe", path, len - 1);
      if (k > 0)
        {
          path[k] = '\0';
          return;
        }
    }
  char real[PATH_MAX];
  snprintf (path, len, "%s", f && realpath (f, real) ? real : f ? f : "");
}

int
mpe__res_defs (uint32_t first_stream, int host_leader, void **out,
               size_t *len)
{
  buf_t b = { 0 };
  if (mpe__sched_on () && host_leader)
    {
      mpe_topo_cpu_t *v;
      size_t n;
      if (mpe__topo_read (&v, &n, NULL) == 0)
        {
          for (size_t i = 0; i < n; i++)
            {
              logfmt_resource_def_t d = { LOGFMT_RES_CPU, LOGFMT_NO_STREAM,
                                          5, 1, { 0 }, { mpe__g.host } };
              d.v[LOGFMT_CPU_ID] = v[i].cpu;
              d.v[LOGFMT_CPU_CORE] = v[i].core;
              d.v[LOGFMT_CPU_SOCKET] = v[i].socket;
              d.v[LOGFMT_CPU_NUMA] = v[i].numa;
              d.v[LOGFMT_CPU_SMT] = v[i].smt;
              put_def (&b, &d);
            }
          free (v);
        }
    }
  const char (*nics)[64];
  size_t nn = mpe__net_nics (&nics);
  for (size_t i = 0; i < nn; i++)
    {
      logfmt_resource_def_t d = { LOGFMT_RES_NIC, LOGFMT_NO_STREAM, 1, 2,
                                  { (int64_t) i }, { mpe__g.host,
                                                     nics[i] } };
      put_def (&b, &d);
    }
  const mpe_memory_api_t *a = mpe__mem_api ();
  if (a)
    {
      const mpe_mem_cell_t *c = a->cells ();
      const mpe_mem_final_t *fin;
      int64_t live, peak;
      size_t nc = mpe__mem_final (&fin, &live, &peak);
      char path[PATH_MAX];
      for (size_t i = 0; i < nc; i++)
        {
          uint64_t off;
          int th = i ? a->slot_thread (c[i].slot) : 0;
          if (c[i].site)
            module_of (c[i].site, path, sizeof path, &off);
          else
            {
              path[0] = '\0';
              off = 0;
            }
          logfmt_resource_def_t d = { LOGFMT_RES_MEMSITE,
                                      first_stream + (uint32_t) (th < 0 ? 0
                                                                 : th),
                                      7, 1, { 0 }, { path } };
          d.v[LOGFMT_MEM_ID] = (int64_t) i;
          d.v[LOGFMT_MEM_KIND] = c[i].kind;
          d.v[LOGFMT_MEM_OFFSET] = (int64_t) off;
          d.v[LOGFMT_MEM_ADDRESS] = (int64_t) c[i].site;
          d.v[LOGFMT_MEM_PEAK] = fin[i].peak;
          d.v[LOGFMT_MEM_LIVE_END] = fin[i].live;
          d.v[LOGFMT_MEM_CALLS] = (int64_t) fin[i].calls;
          if (fin[i].calls || i == 0)
            put_def (&b, &d);
        }
      logfmt_resource_def_t t = { LOGFMT_RES_MEMTOTAL, first_stream, 3, 0,
                                  { 0 }, { NULL } };
      t.v[LOGFMT_MEMT_PEAK] = peak;
      t.v[LOGFMT_MEMT_LIVE_END] = live;
      t.v[LOGFMT_MEMT_DROPPED] = (int64_t) a->dropped ();
      put_def (&b, &t);
    }
  if (b.oom)
    {
      free (b.p);
      return -1;
    }
  *out = b.p;
  *len = b.len;
  return 0;
}

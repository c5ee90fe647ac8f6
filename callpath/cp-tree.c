/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The calling-context tree: every rank's call-path nodes resolved to
 * frames (function, or function + line) and merged by name under their
 * parent, so the same context on every rank is one node.  Samples (track
 * kind 2) count on the leaf of their path; each wrapped MPI call (track
 * kind 3) becomes a child "MPI_Xxx" of its call site's context with its
 * time, count and bytes, the node the samples taken in the wrapper land
 * on too.  Totals are the sums over a node's subtree.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "callpath.h"

typedef struct
{
  cp_tree_t *t;
  const logfmt_reader_t *r;
  size_t cap;
  uint32_t *hash;          /* open addressing over nodes, by parent+key */
  size_t nhash;
  int by_line;
} build_t;

static uint64_t
str_hash (const char *s, uint64_t h)
{
  for (; s && *s; s++)
    h = (h ^ (unsigned char) *s) * 0x100000001b3ull;
  return h;
}

static uint64_t
key_hash (const build_t *b, uint32_t parent, const cp_frame_t *f)
{
  uint64_t h = 0xcbf29ce484222325ull ^ parent;
  h = str_hash (f->func, h);
  h = str_hash (f->module, h * 31);
  if (b->by_line)
    h = (str_hash (f->file, h) ^ (uint64_t) f->line) * 0x9e3779b97f4a7c15ull;
  return h;
}

static int
same (const build_t *b, const cp_node_t *x, uint32_t parent,
      const cp_frame_t *f)
{
  if (x->parent != parent || strcmp (x->frame.func, f->func)
      || strcmp (x->frame.module ? x->frame.module : "",
                 f->module ? f->module : ""))
    return 0;
  if (!b->by_line)
    return 1;
  return x->frame.line == f->line
         && !strcmp (x->frame.file ? x->frame.file : "",
                     f->file ? f->file : "");
}

static int
rehash (build_t *b)
{
  size_t nh = b->nhash ? b->nhash * 2 : 1024;
  uint32_t *h = calloc (nh, sizeof *h);
  if (!h)
    return -1;
  for (size_t i = 1; i < b->t->n; i++)
    {
      size_t k = key_hash (b, b->t->nodes[i].parent, &b->t->nodes[i].frame)
                 & (nh - 1);
      while (h[k])
        k = (k + 1) & (nh - 1);
      h[k] = (uint32_t) i;
    }
  free (b->hash);
  b->hash = h;
  b->nhash = nh;
  return 0;
}

/* The child of parent for frame f, made if new; 0 when out of memory. */
static uint32_t
child (build_t *b, uint32_t parent, const cp_frame_t *f)
{
  cp_tree_t *t = b->t;
  if ((t->n + 1) * 2 > b->nhash && rehash (b))
    return 0;
  size_t k = key_hash (b, parent, f) & (b->nhash - 1);
  for (; b->hash[k]; k = (k + 1) & (b->nhash - 1))
    if (same (b, &t->nodes[b->hash[k]], parent, f))
      return b->hash[k];
  if (t->n == b->cap)
    {
      size_t c = b->cap * 2;
      cp_node_t *v = realloc (t->nodes, c * sizeof *v);
      if (!v)
        return 0;
      t->nodes = v;
      b->cap = c;
    }
  uint32_t i = (uint32_t) t->n++;
  cp_node_t *x = &t->nodes[i];
  memset (x, 0, sizeof *x);
  x->parent = parent;
  x->frame = *f;
  x->next_sibling = t->nodes[parent].first_child;
  t->nodes[parent].first_child = i;
  b->hash[k] = i;
  return i;
}

/* A frame of libmpe's PMPI wrappers (liblmpe, libtmpe, libampe, or
 * their generated sources linked in statically): shown as the MPI call
 * it wraps, the very node its call sites' data hang on (module
 * "[MPI]"), so samples in a call and the call's count, time and bytes
 * are one node, and no internal file is named. */
static int
wrapper_frame (const cp_frame_t *f)
{
  static const char *const libs[] = { "liblmpe.", "libtmpe.", "libampe." };
  static const char *const srcs[] = { "lmpe-gen.c", "tmpe-gen.c" };
  if (!f->resolved || !f->func || strncmp (f->func, "MPI_", 4))
    return 0;
  for (size_t i = 0; f->module && i < sizeof libs / sizeof *libs; i++)
    if (!strncmp (f->module, libs[i], strlen (libs[i])))
      return 1;
  const char *base = f->file ? strrchr (f->file, '/') : NULL;
  base = base ? base + 1 : f->file;
  for (size_t i = 0; base && i < sizeof srcs / sizeof *srcs; i++)
    if (!strcmp (base, srcs[i]))
      return 1;
  return 0;
}

/* CCT node of rank node i (memoised in map; 0 = not yet). */
static uint32_t
map_node (build_t *b, const logfmt_callpaths_t *cp, uint32_t *map,
          uint32_t i)
{
  if (i == 0 || i >= cp->nnodes)
    return 0;
  if (map[i])
    return map[i];
  /* The chain up to the first mapped ancestor, then down again. */
  uint32_t chain[512];
  int n = 0;
  uint32_t a = i;
  while (a && !map[a] && n < 512)
    {
      chain[n++] = a;
      a = cp->nodes[a].parent;
    }
  uint32_t at = a ? map[a] : 0;
  for (int k = n - 1; k >= 0; k--)
    {
      cp_frame_t f;
      cp_symbols_frame (b->t->sym, cp, chain[k], &f);
      uint64_t pc = cp->nodes[chain[k]].addr;
      const char *mpi = (pc & ~0xffffull) == LOGFMT_PSEUDO_MPI (0)
                        ? cp_state_name (b->r, (int32_t) (pc & 0xffff))
                        : NULL;
      if (wrapper_frame (&f))
        f = (cp_frame_t) { f.func, NULL, 0, "[MPI]", 0, 1 };
      /* A sample no walk could unwind, in an MPI call: the call's node
       * under its call site. */
      else if (mpi)
        f = (cp_frame_t) { mpi, NULL, 0, "[MPI]", 0, 1 };
      uint32_t c = child (b, at, &f);
      if (!c)
        return at;
      map[chain[k]] = c;
      at = c;
    }
  return at;
}

const char *
cp_state_name (const logfmt_reader_t *r, int32_t state)
{
  size_t n = logfmt_reader_n_states (r);
  for (size_t i = 0; i < n; i++)
    {
      const logfmt_state_def_t *d = logfmt_reader_state (r, i);
      if (d->start_id == 2 * state)
        return d->name;
    }
  return NULL;
}

static struct cp_mpi *
mpi_entry (cp_node_t *x, int32_t state)
{
  for (size_t i = 0; i < x->nmpi; i++)
    if (x->mpi[i].state == state)
      return &x->mpi[i];
  struct cp_mpi *v = realloc (x->mpi, (x->nmpi + 1) * sizeof *v);
  if (!v)
    return NULL;
  x->mpi = v;
  memset (&v[x->nmpi], 0, sizeof v[0]);
  v[x->nmpi].state = state;
  return &v[x->nmpi++];
}

/* One rank's samples and call sites. */
static int
add_rank (build_t *b, const logfmt_reader_t *r, const cp_tree_opts_t *o,
          int32_t rank, logfmt_error_t *err)
{
  logfmt_callpaths_t *cp;
  int rc = logfmt_reader_callpaths (r, rank, &cp, err);
  if (rc)
    return rc;
  uint32_t *map = calloc (cp->nnodes, sizeof *map);
  if (!map)
    {
      logfmt_callpaths_free (cp);
      return LOGFMT_ENOMEM;
    }
  cp_tree_t *t = b->t;
  t->ranks++;
  uint32_t nstreams = logfmt_reader_info (r)->nstreams;
  uint64_t t1 = o->t1 ? o->t1 : UINT64_MAX;
  for (uint32_t s = 0; s < nstreams && !rc; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      if (!sd || sd->rank != rank)
        continue;
      for (int kind = LOGFMT_TRACK_CALLPATH; kind <= LOGFMT_TRACK_CALLSITE;
           kind++)
        {
          logfmt_track_iter_t *it;
          rc = logfmt_track_iter_new (r, s, (uint32_t) kind, o->t0, t1, &it);
          if (rc)
            break;
          logfmt_track_rec_t rec;
          int got;
          while ((got = logfmt_track_iter_next (it, &rec)) == 1)
            {
              int64_t nd = rec.col[0];
              uint32_t node = nd > 0 && (uint64_t) nd < cp->nnodes
                              ? map_node (b, cp, map, (uint32_t) nd) : 0;
              if (kind == LOGFMT_TRACK_CALLPATH)
                {
                  int64_t w = rec.col[LOGFMT_SAMPLE_COL_WEIGHT];
                  if (w < 1)
                    w = 1;
                  t->nodes[node].self_samples += (uint64_t) w;
                  t->samples += (uint64_t) w;
                  if (o->on_sample)
                    o->on_sample (o->user, s, rec.time, (uint64_t) w, node);
                  int64_t fl = rec.col[LOGFMT_SAMPLE_COL_FLAGS];
                  t->constructed += (fl & LOGFMT_SAMPLE_CONSTRUCTED) != 0;
                  t->truncated += (fl & LOGFMT_SAMPLE_TRUNCATED) != 0;
                  continue;
                }
              int32_t st = (int32_t) rec.col[LOGFMT_CALLSITE_COL_STATE];
              const char *name = cp_state_name (r, st);
              cp_frame_t f = { name ? name : "MPI call", NULL, 0, "[MPI]",
                               (uint64_t) st, 1 };
              uint32_t c = child (b, node, &f);
              double dur = (double) rec.col[LOGFMT_CALLSITE_COL_DUR] * 1e-9;
              uint64_t bytes = (uint64_t) rec.col[LOGFMT_CALLSITE_COL_BYTES];
              if (c)
                {
                  t->nodes[c].self_comm += dur;
                  t->nodes[c].self_calls++;
                  t->nodes[c].self_bytes += bytes;
                }
              struct cp_mpi *m = mpi_entry (&t->nodes[node], st);
              if (m)
                {
                  m->calls++;
                  m->time += dur;
                  m->bytes += bytes;
                }
            }
          if (got < 0)
            {
              const logfmt_error_t *e = logfmt_track_iter_error (it);
              if (err && e)
                *err = *e;
              rc = got;
            }
          logfmt_track_iter_free (it);
          if (rc)
            break;
        }
    }
  free (map);
  logfmt_callpaths_free (cp);
  return rc;
}

static int
in_set (const cp_tree_opts_t *o, int32_t rank)
{
  if (o->nranks == 0)
    return 1;
  for (size_t i = 0; i < o->nranks; i++)
    if (o->ranks[i] == rank)
      return 1;
  return 0;
}

int
cp_tree_build (const logfmt_reader_t *r, const cp_tree_opts_t *o,
               cp_tree_t **out, logfmt_error_t *err)
{
  *out = NULL;
  cp_tree_t *t = calloc (1, sizeof *t);
  build_t b = { t, r, 1024, NULL, 0, o->by_line };
  if (!t || !(t->nodes = calloc (b.cap, sizeof *t->nodes))
      || !(t->sym = cp_symbols_new ()))
    {
      cp_tree_free (t);
      return LOGFMT_ENOMEM;
    }
  t->n = 1;
  t->nodes[0].frame.func = "[program]";
  t->nodes[0].frame.module = "";
  t->period = 1.0 / 200;
  size_t nc = logfmt_reader_n_consts (r);
  for (size_t i = 0; i < nc; i++)
    {
      const logfmt_const_def_t *c = logfmt_reader_const (r, i);
      if (c->name && !strcmp (c->name, "MPE_SAMPLE_HZ") && c->value > 0)
        t->period = 1.0 / (double) c->value;
    }
  size_t nr = logfmt_reader_callpath_ranks (r, NULL, 0);
  int32_t *ranks = malloc ((nr + 1) * sizeof *ranks);
  if (!ranks)
    {
      cp_tree_free (t);
      return LOGFMT_ENOMEM;
    }
  logfmt_reader_callpath_ranks (r, ranks, nr);
  int rc = 0;
  for (size_t i = 0; i < nr && !rc; i++)
    if ((o->rank < 0 || ranks[i] == o->rank) && in_set (o, ranks[i]))
      rc = add_rank (&b, r, o, ranks[i], err);
  free (ranks);
  free (b.hash);
  if (rc)
    {
      cp_tree_free (t);
      return rc;
    }
  /* Totals: children always come after their parent. */
  for (size_t i = 0; i < t->n; i++)
    {
      cp_node_t *x = &t->nodes[i];
      x->self_time = (double) x->self_samples * t->period;
      x->total_samples = x->self_samples;
      x->total_time = x->self_time;
      x->total_comm = x->self_comm;
      x->total_calls = x->self_calls;
      x->total_bytes = x->self_bytes;
    }
  for (size_t i = t->n - 1; i > 0; i--)
    {
      cp_node_t *x = &t->nodes[i], *p = &t->nodes[x->parent];
      p->total_samples += x->total_samples;
      p->total_time += x->total_time;
      p->total_comm += x->total_comm;
      p->total_calls += x->total_calls;
      p->total_bytes += x->total_bytes;
    }
  *out = t;
  return 0;
}

void
cp_tree_free (cp_tree_t *t)
{
  if (!t)
    return;
  for (size_t i = 0; i < t->n; i++)
    free (t->nodes[i].mpi);
  free (t->nodes);
  cp_symbols_free (t->sym);
  free (t);
}

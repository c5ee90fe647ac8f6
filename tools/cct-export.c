/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clogtool cct's exports for the tools people already use:
 *  - gmon.out (gprof): a pc histogram of the samples whose innermost
 *    frame is in one binary (the program unless --binary says), plus
 *    call arcs from their stacks (counts are samples through the arc,
 *    not calls: gprof prints them in its "calls" column);
 *  - collapsed stacks ("main;f;g N"), for flamegraph.pl and speedscope;
 *  - pprof's profile.proto, written by hand (varints and length-delimited
 *    fields) and gzipped with zlib when the build has it: a sample per
 *    (context, thread) labelled rank and thread, a mapping per binary
 *    with its build id, the window's start and duration.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_ZLIB
# include <zlib.h>
#endif

#include "clogtool-internal.h"
#include "cct-export.h"

/* "-" is standard output, as for every file name clogtool takes. */
static int
write_file (const char *path, const void *p, size_t n)
{
  if (strcmp (path, "-") == 0)
    {
      if (n && fwrite (p, 1, n, stdout) != n)
        {
          clogtool__error ("cannot write to standard output: %s",
                           strerror (errno));
          return -1;
        }
      return clogtool__flush_stdout ();
    }
  FILE *f = fopen (path, "wb");
  int bad = !f;
  if (f)
    {
      bad = n && fwrite (p, 1, n, f) != n;
      if (fclose (f) != 0)   /* always closed, even after a short write */
        bad = 1;
    }
  if (bad)
    {
      clogtool__error ("cannot write %s: %s", path, strerror (errno));
      return -1;
    }
  return 0;
}

/* ---- growable byte buffer ------------------------------------------- */

typedef struct
{
  uint8_t *p;
  size_t n, cap;
  int oom;
} bytes_t;

static void
put (bytes_t *b, const void *p, size_t n)
{
  if (b->oom)
    return;
  if (b->n + n > b->cap)
    {
      size_t c = b->cap ? b->cap * 2 : 4096;
      while (c < b->n + n)
        c *= 2;
      uint8_t *q = realloc (b->p, c);
      if (!q)
        {
          b->oom = 1;
          return;
        }
      b->p = q;
      b->cap = c;
    }
  memcpy (b->p + b->n, p, n);
  b->n += n;
}

/* ---- gmon.out -------------------------------------------------------- */

typedef struct
{
  uint64_t from, self, count;
} arc_t;

typedef struct
{
  uint64_t *pcs;      /* leaf addresses in the binary, one per sample */
  size_t npcs, cpcs;
  arc_t *arcs;
  size_t narcs, carcs;
} gmon_t;

static void
add_arc (gmon_t *g, uint64_t from, uint64_t self)
{
  for (size_t i = g->narcs; i > 0 && i + 64 > g->narcs; i--)
    if (g->arcs[i - 1].from == from && g->arcs[i - 1].self == self)
      {
        g->arcs[i - 1].count++;
        return;
      }
  for (size_t i = 0; i < g->narcs; i++)
    if (g->arcs[i].from == from && g->arcs[i].self == self)
      {
        g->arcs[i].count++;
        return;
      }
  if (g->narcs == g->carcs)
    {
      size_t c = g->carcs ? g->carcs * 2 : 256;
      arc_t *v = realloc (g->arcs, c * sizeof *v);
      if (!v)
        return;
      g->arcs = v;
      g->carcs = c;
    }
  g->arcs[g->narcs++] = (arc_t) { from, self, 1 };
}

static const char *
base_name (const char *p)
{
  const char *s = strrchr (p, '/');
  return s ? s + 1 : p;
}

/* The binary gmon.out describes: WANT (a path as the log lists it, or
 * its base name), else the program itself, which the loader lists first.
 * Prints the error and returns NULL if there is none. */
static const char *
pick_binary (const logfmt_reader_t *r, const cp_tree_opts_t *o,
             const int32_t *ranks, size_t nr, const char *want)
{
  static char best[4096];
  best[0] = '\0';
  for (size_t i = 0; i < nr && !best[0]; i++)
    {
      if (o->rank >= 0 && ranks[i] != o->rank)
        continue;
      logfmt_callpaths_t *cp;
      if (logfmt_reader_callpaths (r, ranks[i], &cp, NULL))
        continue;
      for (size_t k = 0; k < cp->nmodules && !best[0]; k++)
        {
          const char *m = cp->modules[k].path;
          if (!m || !m[0])
            continue;
          if (!want
              || !strcmp (m, want)
              || (!strchr (want, '/') && !strcmp (base_name (m), want)))
            snprintf (best, sizeof best, "%s", m);
        }
      logfmt_callpaths_free (cp);
    }
  if (!best[0])
    {
      if (want)
        clogtool__error ("--gmon: no binary '%s' in the log (see the "
                         "[binary] names in clogtool cct's output)", want);
      else
        clogtool__error ("--gmon: the log lists no binary");
      return NULL;
    }
  return best;
}

int
cct_export_gmon (const logfmt_reader_t *r, const cp_tree_opts_t *o,
                 const char *binary, const char *out)
{
  size_t nr = logfmt_reader_callpath_ranks (r, NULL, 0);
  int32_t *ranks = malloc ((nr + 1) * sizeof *ranks);
  if (!ranks)
    return -1;
  logfmt_reader_callpath_ranks (r, ranks, nr);
  const char *bin = pick_binary (r, o, ranks, nr, binary);
  if (!bin)
    {
      free (ranks);
      return -1;
    }
  gmon_t g = { 0 };
  uint64_t outside = 0;
  uint32_t ns = logfmt_reader_info (r)->nstreams;
  for (size_t i = 0; i < nr; i++)
    {
      if (o->rank >= 0 && ranks[i] != o->rank)
        continue;
      logfmt_callpaths_t *cp;
      if (logfmt_reader_callpaths (r, ranks[i], &cp, NULL))
        continue;
      uint32_t mod = LOGFMT_NO_MODULE;
      for (size_t k = 0; k < cp->nmodules; k++)
        if (!strcmp (cp->modules[k].path, bin))
          mod = (uint32_t) k;
      for (uint32_t s = 0; s < ns; s++)
        {
          const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
          logfmt_track_iter_t *it;
          if (!sd || sd->rank != ranks[i]
              || logfmt_track_iter_new (r, s, LOGFMT_TRACK_CALLPATH, o->t0,
                                        o->t1, &it))
            continue;
          logfmt_track_rec_t rec;
          while (logfmt_track_iter_next (it, &rec) == 1)
            {
              int64_t nd = rec.col[0];
              if (nd <= 0 || (uint64_t) nd >= cp->nnodes
                  || cp->nodes[nd].module != mod)
                {
                  outside++;
                  continue;
                }
              int64_t w = rec.col[LOGFMT_SAMPLE_COL_WEIGHT];
              for (int64_t k = 0; k < (w < 1 ? 1 : w); k++)
                {
                  if (g.npcs == g.cpcs)
                    {
                      size_t c = g.cpcs ? g.cpcs * 2 : 1024;
                      uint64_t *v = realloc (g.pcs, c * sizeof *v);
                      if (!v)
                        break;
                      g.pcs = v;
                      g.cpcs = c;
                    }
                  g.pcs[g.npcs++] = cp->nodes[nd].addr;
                }
              /* Arcs between consecutive frames inside the binary. */
              uint32_t self = (uint32_t) nd;
              uint32_t from = cp->nodes[self].parent;
              while (from && cp->nodes[from].module == mod)
                {
                  add_arc (&g, cp->nodes[from].addr, cp->nodes[self].addr);
                  self = from;
                  from = cp->nodes[from].parent;
                }
            }
          logfmt_track_iter_free (it);
        }
      logfmt_callpaths_free (cp);
    }
  free (ranks);
  int hz = 200;
  size_t nc = logfmt_reader_n_consts (r);
  for (size_t i = 0; i < nc; i++)
    {
      const logfmt_const_def_t *c = logfmt_reader_const (r, i);
      if (c->name && !strcmp (c->name, "MPE_SAMPLE_HZ") && c->value > 0)
        hz = (int) c->value;
    }
  if (!g.npcs)
    {
      clogtool__error ("--gmon: no sample ran in %s%s", bin,
                       binary ? "" : "; choose a binary with --binary");
      free (g.pcs);
      free (g.arcs);
      return -1;
    }
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t i = 0; i < g.npcs; i++)
    {
      lo = g.pcs[i] < lo ? g.pcs[i] : lo;
      hi = g.pcs[i] > hi ? g.pcs[i] : hi;
    }
  lo &= ~(uint64_t) 3;
  hi = (hi | 3) + 1;
  /* One bin per 4 bytes of code (gprof's granularity is the function). */
  uint32_t nbins = (uint32_t) ((hi - lo) / 4);
  uint16_t *bins = calloc (nbins, sizeof *bins);
  if (!bins)
    return -1;
  for (size_t i = 0; i < g.npcs; i++)
    {
      uint32_t b = (uint32_t) ((g.pcs[i] - lo) / 4);
      if (bins[b] < UINT16_MAX)
        bins[b]++;
    }
  /* gmon.out, version 1, native byte order (as glibc writes it). */
  bytes_t f = { 0 };
  static const char hdr[20] = "gmon\1\0\0\0";
  put (&f, hdr, 20);
  uint8_t tag = 0;  /* GMON_TAG_TIME_HIST */
  put (&f, &tag, 1);
  uint64_t lpc = lo, hpc = hi;
  int32_t hsize = (int32_t) nbins, rate = hz;
  char dimen[15] = "seconds";
  char abbrev = 's';
  put (&f, &lpc, 8);
  put (&f, &hpc, 8);
  put (&f, &hsize, 4);
  put (&f, &rate, 4);
  put (&f, dimen, 15);
  put (&f, &abbrev, 1);
  put (&f, bins, (size_t) nbins * 2);
  for (size_t i = 0; i < g.narcs; i++)
    {
      tag = 1;  /* GMON_TAG_CG_ARC */
      int32_t cnt = g.arcs[i].count > INT32_MAX ? INT32_MAX
                    : (int32_t) g.arcs[i].count;
      put (&f, &tag, 1);
      put (&f, &g.arcs[i].from, 8);
      put (&f, &g.arcs[i].self, 8);
      put (&f, &cnt, 4);
    }
  free (bins);
  free (g.pcs);
  free (g.arcs);
  int rc = f.oom ? -1 : write_file (out, f.p, f.n);
  free (f.p);
  int piped = strcmp (out, "-") == 0;
  if (!rc)
    fprintf (stderr, "clogtool cct: wrote %s for %s (%zu samples; %" PRIu64
             " elsewhere); read it with: gprof %s %s\n",
             piped ? "gmon.out data to standard output" : out, bin, g.npcs,
             outside, bin, piped ? "FILE" : out);
  return rc;
}

/* ---- collapsed stacks ------------------------------------------------ */

static void
path_of (const cp_tree_t *t, uint32_t i, bytes_t *b)
{
  uint32_t chain[1024];
  int n = 0;
  for (uint32_t a = i; a && n < 1024; a = t->nodes[a].parent)
    chain[n++] = a;
  for (int k = n - 1; k >= 0; k--)
    {
      const char *s = t->nodes[chain[k]].frame.func;
      /* ';' separates frames and ' ' ends the stack: keep them out. */
      for (; *s; s++)
        {
          char c = *s == ';' || *s == ' ' || *s == '\n' ? '_' : *s;
          put (b, &c, 1);
        }
      if (k)
        put (b, ";", 1);
    }
}

int
cct_export_collapsed (const cp_tree_t *t, const char *out)
{
  bytes_t b = { 0 };
  for (size_t i = 1; i < t->n; i++)
    if (t->nodes[i].self_samples)
      {
        path_of (t, (uint32_t) i, &b);
        char num[32];
        int k = snprintf (num, sizeof num, " %" PRIu64 "\n",
                          t->nodes[i].self_samples);
        put (&b, num, (size_t) k);
      }
  int rc = b.oom ? -1 : write_file (out, b.p, b.n);
  free (b.p);
  return rc;
}

/* ---- pprof profile.proto --------------------------------------------- */

static void
pb_varint (bytes_t *b, uint64_t v)
{
  uint8_t tmp[10];
  int n = 0;
  while (v >= 0x80)
    {
      tmp[n++] = (uint8_t) (v | 0x80);
      v >>= 7;
    }
  tmp[n++] = (uint8_t) v;
  put (b, tmp, (size_t) n);
}

static void
pb_key (bytes_t *b, int field, int wire)
{
  pb_varint (b, (uint64_t) field << 3 | (uint64_t) wire);
}

static void
pb_uint (bytes_t *b, int field, uint64_t v)
{
  pb_key (b, field, 0);
  pb_varint (b, v);
}

static void
pb_bytes (bytes_t *b, int field, const void *p, size_t n)
{
  pb_key (b, field, 2);
  pb_varint (b, n);
  put (b, p, n);
}

typedef struct
{
  const char **v;
  size_t n, cap;
} strtab_t;

/* Index of s in the string table (linear: the tables are small). */
static uint64_t
str_id (strtab_t *st, const char *s)
{
  if (!s)
    s = "";
  for (size_t i = 0; i < st->n; i++)
    if (!strcmp (st->v[i], s))
      return i;
  if (st->n == st->cap)
    {
      size_t c = st->cap ? st->cap * 2 : 64;
      const char **v = realloc (st->v, c * sizeof *v);
      if (!v)
        return 0;
      st->v = v;
      st->cap = c;
    }
  st->v[st->n] = s;
  return st->n++;
}

/* Samples per (tree node, stream), for the rank and thread labels:
 * open addressing on node << 32 | stream. */
typedef struct
{
  uint64_t *key, *weight;
  size_t n, cap;
  int oom;
} cell_map_t;

static void
on_sample (void *user, uint32_t stream, uint64_t time, uint64_t weight,
           uint32_t node)
{
  cell_map_t *m = user;
  (void) time;
  if (m->oom)
    return;
  if (2 * (m->n + 1) > m->cap)
    {
      size_t nc = m->cap ? 2 * m->cap : 1024;
      uint64_t *k = malloc (nc * sizeof *k), *w = calloc (nc, sizeof *w);
      if (!k || !w)
        {
          free (k);
          free (w);
          m->oom = 1;
          return;
        }
      memset (k, 0xff, nc * sizeof *k);
      for (size_t i = 0; i < m->cap; i++)
        if (m->key[i] != UINT64_MAX)
          {
            size_t h = (size_t) (m->key[i] * 0x9e3779b97f4a7c15ull) & (nc - 1);
            while (k[h] != UINT64_MAX)
              h = (h + 1) & (nc - 1);
            k[h] = m->key[i];
            w[h] = m->weight[i];
          }
      free (m->key);
      free (m->weight);
      m->key = k;
      m->weight = w;
      m->cap = nc;
    }
  uint64_t key = (uint64_t) node << 32 | stream;
  size_t h = (size_t) (key * 0x9e3779b97f4a7c15ull) & (m->cap - 1);
  while (m->key[h] != UINT64_MAX && m->key[h] != key)
    h = (h + 1) & (m->cap - 1);
  if (m->key[h] == UINT64_MAX)
    {
      m->key[h] = key;
      m->n++;
    }
  m->weight[h] += weight;
}

/* The binaries of the log's call paths, each once (path, build id): the
 * first rank's first module (the program, as the loader lists it) is
 * the first mapping, which pprof takes for the main binary. */
typedef struct
{
  char *path, *build_id;
  uint64_t lo, hi;
} map_t;

static size_t
collect_maps (const logfmt_reader_t *r, map_t **out)
{
  size_t nr = logfmt_reader_callpath_ranks (r, NULL, 0), n = 0, cap = 0;
  int32_t *ranks = calloc (nr + 1, sizeof *ranks);
  map_t *v = NULL;
  *out = NULL;
  if (!ranks)
    return 0;
  nr = logfmt_reader_callpath_ranks (r, ranks, nr);
  for (size_t i = 0; i < nr; i++)
    {
      logfmt_callpaths_t *cp = NULL;
      logfmt_error_t err = { 0 };
      if (logfmt_reader_callpaths (r, ranks[i], &cp, &err) != 0)
        continue;
      for (size_t k = 0; k < cp->nmodules; k++)
        {
          const logfmt_module_t *md = &cp->modules[k];
          const char *bid = md->build_id ? md->build_id : "";
          size_t j = 0;
          while (j < n && !(strcmp (v[j].path, md->path ? md->path : "") == 0
                            && strcmp (v[j].build_id, bid) == 0))
            j++;
          if (j < n)
            continue;
          if (n == cap)
            {
              cap = cap ? 2 * cap : 16;
              map_t *nv = realloc (v, cap * sizeof *nv);
              if (!nv)
                break;
              v = nv;
            }
          v[n].path = strdup (md->path ? md->path : "");
          v[n].build_id = strdup (bid);
          /* Module-relative addresses (the ELF virtual addresses). */
          v[n].lo = md->lo - md->base;
          v[n].hi = md->hi - md->base;
          if (!v[n].path || !v[n].build_id)
            {
              free (v[n].path);
              free (v[n].build_id);
              break;
            }
          n++;
        }
      logfmt_callpaths_free (cp);
    }
  free (ranks);
  *out = v;
  return n;
}

int
cct_export_pprof (const logfmt_reader_t *r, const cp_tree_opts_t *o,
                  const cp_tree_t *t, const char *out)
{
  bytes_t pb = { 0 }, m = { 0 };
  strtab_t st = { 0 };
  const logfmt_info_t *info = logfmt_reader_info (r);
  /* The samples again, per stream, for the labels. */
  cell_map_t cells = { 0 };
  cp_tree_opts_t o2 = *o;
  o2.on_sample = on_sample;
  o2.user = &cells;
  cp_tree_t *t2 = NULL;
  logfmt_error_t err = { 0 };
  int brc = cp_tree_build (r, &o2, &t2, &err);
  if (brc || cells.oom)
    {
      if (brc)
        clogtool__lib_error ("--pprof", brc, &err);
      else
        clogtool__error ("--pprof: out of memory");
      cp_tree_free (t2);
      free (cells.key);
      free (cells.weight);
      return -1;
    }
  cp_tree_free (t2);
  map_t *maps = NULL;
  size_t nmaps = collect_maps (r, &maps);

  str_id (&st, "");
  uint64_t s_samples = str_id (&st, "samples");
  uint64_t s_count = str_id (&st, "count");
  uint64_t s_cpu = str_id (&st, "cpu");
  uint64_t s_ns = str_id (&st, "nanoseconds");
  uint64_t s_rank = str_id (&st, "rank");
  uint64_t s_thread = str_id (&st, "thread");
  /* sample_type (1): samples/count, cpu/nanoseconds. */
  pb_uint (&m, 1, s_samples);
  pb_uint (&m, 2, s_count);
  pb_bytes (&pb, 1, m.p, m.n);
  m.n = 0;
  pb_uint (&m, 1, s_cpu);
  pb_uint (&m, 2, s_ns);
  pb_bytes (&pb, 1, m.p, m.n);
  /* sample (2): leaf first, one location per tree node, one sample per
   * (node, thread) with labels rank and thread (numbers). */
  for (size_t c = 0; c < cells.cap; c++)
    {
      if (cells.key[c] == UINT64_MAX)
        continue;
      uint32_t i = (uint32_t) (cells.key[c] >> 32);
      uint32_t stream = (uint32_t) cells.key[c];
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, stream);
      if (i == 0 || i >= t->n || !sd)
        continue;
      bytes_t ids = { 0 };
      for (uint32_t a = i; a; a = t->nodes[a].parent)
        pb_varint (&ids, a);
      m.n = 0;
      pb_bytes (&m, 1, ids.p, ids.n);
      bytes_t vals = { 0 };
      pb_varint (&vals, cells.weight[c]);
      pb_varint (&vals, (uint64_t) ((double) cells.weight[c] * t->period
                                    * 1e9 + 0.5));
      pb_bytes (&m, 2, vals.p, vals.n);
      for (int l = 0; l < 2; l++)
        {
          bytes_t lab = { 0 };
          pb_uint (&lab, 1, l ? s_thread : s_rank);
          pb_uint (&lab, 3, (uint64_t) (l ? sd->thread : sd->rank));
          pb_bytes (&m, 3, lab.p, lab.n);
          free (lab.p);
        }
      pb_bytes (&pb, 2, m.p, m.n);
      free (ids.p);
      free (vals.p);
    }
  free (cells.key);
  free (cells.weight);
  /* mapping (3): one per binary, with its build id; the tree's
   * functions are resolved already (has_functions and so on). */
  for (size_t k = 0; k < nmaps; k++)
    {
      m.n = 0;
      pb_uint (&m, 1, k + 1);
      pb_uint (&m, 2, maps[k].lo);
      pb_uint (&m, 3, maps[k].hi);
      pb_uint (&m, 4, 0);
      pb_uint (&m, 5, str_id (&st, maps[k].path));
      pb_uint (&m, 6, str_id (&st, maps[k].build_id));
      pb_uint (&m, 7, 1);
      pb_uint (&m, 8, 1);
      pb_uint (&m, 9, 1);
      pb_bytes (&pb, 3, m.p, m.n);
    }
  /* location (4) per node, in its binary's mapping; function (5) per
   * node (id = node). */
  for (size_t i = 1; i < t->n; i++)
    {
      const cp_frame_t *f = &t->nodes[i].frame;
      uint64_t mid = 0;
      for (size_t k = 0; f->module && f->module[0] && k < nmaps && !mid; k++)
        if (strcmp (base_name (maps[k].path), f->module) == 0)
          mid = k + 1;
      bytes_t line = { 0 };
      pb_uint (&line, 1, i);
      pb_uint (&line, 2, (uint64_t) (f->line > 0 ? f->line : 0));
      m.n = 0;
      pb_uint (&m, 1, i);
      if (mid)
        pb_uint (&m, 2, mid);
      pb_uint (&m, 3, f->offset);
      pb_bytes (&m, 4, line.p, line.n);
      pb_bytes (&pb, 4, m.p, m.n);
      free (line.p);
      m.n = 0;
      pb_uint (&m, 1, i);
      pb_uint (&m, 2, str_id (&st, f->func));
      pb_uint (&m, 3, str_id (&st, f->func));
      pb_uint (&m, 4, str_id (&st, f->file));
      pb_bytes (&pb, 5, m.p, m.n);
    }
  /* time_nanos (9) and duration_nanos (10): the window profiled. */
  {
    uint64_t t0 = o->t0 > info->t_first ? o->t0 : info->t_first;
    uint64_t t1 = o->t1 < info->t_last ? o->t1 : info->t_last;
    if (info->origin_unix_ns > 0)
      pb_uint (&pb, 9, (uint64_t) info->origin_unix_ns + t0);
    pb_uint (&pb, 10, t1 > t0 ? t1 - t0 : 0);
  }
  /* string_table (6), then period_type (11) and period (12). */
  for (size_t i = 0; i < st.n; i++)
    pb_bytes (&pb, 6, st.v[i], strlen (st.v[i]));
  m.n = 0;
  pb_uint (&m, 1, s_cpu);
  pb_uint (&m, 2, s_ns);
  pb_bytes (&pb, 11, m.p, m.n);
  pb_uint (&pb, 12, (uint64_t) (t->period * 1e9));
  free (m.p);
  free (st.v);
  for (size_t k = 0; k < nmaps; k++)
    {
      free (maps[k].path);
      free (maps[k].build_id);
    }
  free (maps);
  if (pb.oom || m.oom)
    {
      free (pb.p);
      clogtool__error ("--pprof: out of memory");
      return -1;
    }
  int rc;
#ifdef HAVE_ZLIB
  gzFile gz;
  if (strcmp (out, "-") == 0)
    {
      int fd = dup (STDOUT_FILENO);   /* gzclose closes its descriptor */
      fflush (stdout);
      gz = fd < 0 ? NULL : gzdopen (fd, "wb");
      if (!gz && fd >= 0)
        close (fd);
    }
  else
    gz = gzopen (out, "wb");
  rc = gz && gzwrite (gz, pb.p, (unsigned) pb.n) == (int) pb.n ? 0 : -1;
  if (gz && gzclose (gz) != Z_OK)
    rc = -1;
  if (rc)
    clogtool__error ("cannot write %s", out);
#else
  /* pprof also reads an uncompressed profile. */
  rc = write_file (out, pb.p, pb.n);
#endif
  free (pb.p);
  return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clogtool cct's exports for the tools people already use:
 *  - gmon.out (gprof): a pc histogram of the samples whose innermost
 *    frame is in the main binary, plus call arcs from their stacks
 *    (counts are samples through the arc, not calls);
 *  - collapsed stacks ("main;f;g N"), for flamegraph.pl and speedscope;
 *  - pprof's profile.proto, written by hand (varints and length-delimited
 *    fields) and gzipped with zlib when the build has it.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ZLIB
# include <zlib.h>
#endif

#include "clogtool-internal.h"
#include "cct-export.h"

static int
write_file (const char *path, const void *p, size_t n)
{
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

/* The binary most samples ran in, shared objects last. */
static const char *
pick_binary (const logfmt_reader_t *r, const cp_tree_opts_t *o,
             const int32_t *ranks, size_t nr)
{
  static char best[4096];
  uint64_t best_n = 0;
  int best_so = 1;
  best[0] = '\0';
  for (size_t i = 0; i < nr; i++)
    {
      if (o->rank >= 0 && ranks[i] != o->rank)
        continue;
      logfmt_callpaths_t *cp;
      if (logfmt_reader_callpaths (r, ranks[i], &cp, NULL))
        continue;
      uint64_t *cnt = calloc (cp->nmodules + 1, sizeof *cnt);
      uint32_t ns = logfmt_reader_info (r)->nstreams;
      for (uint32_t s = 0; cnt && s < ns; s++)
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
              if (nd > 0 && (uint64_t) nd < cp->nnodes
                  && cp->nodes[nd].module < cp->nmodules)
                cnt[cp->nodes[nd].module]++;
            }
          logfmt_track_iter_free (it);
        }
      for (size_t k = 0; cnt && k < cp->nmodules; k++)
        {
          int so = strstr (base_name (cp->modules[k].path), ".so") != NULL;
          if (cnt[k] && ((so < best_so) || (so == best_so
                                            && cnt[k] > best_n)))
            {
              best_so = so;
              best_n = cnt[k];
              snprintf (best, sizeof best, "%s", cp->modules[k].path);
            }
        }
      free (cnt);
      logfmt_callpaths_free (cp);
    }
  return best[0] ? best : NULL;
}

int
cct_export_gmon (const logfmt_reader_t *r, const cp_tree_opts_t *o,
                 const char *out)
{
  size_t nr = logfmt_reader_callpath_ranks (r, NULL, 0);
  int32_t *ranks = malloc ((nr + 1) * sizeof *ranks);
  if (!ranks)
    return -1;
  logfmt_reader_callpath_ranks (r, ranks, nr);
  const char *bin = pick_binary (r, o, ranks, nr);
  if (!bin)
    {
      clogtool__error ("--gmon: no sample ran in a binary of the log");
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
      clogtool__error ("--gmon: no sample in %s", bin);
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
  if (!rc)
    fprintf (stderr, "clogtool cct: wrote %s for %s (%zu samples; %" PRIu64
             " elsewhere); read it with: gprof %s %s\n", out, bin, g.npcs,
             outside, bin, out);
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

int
cct_export_pprof (const cp_tree_t *t, const char *out)
{
  bytes_t pb = { 0 }, m = { 0 };
  strtab_t st = { 0 };
  str_id (&st, "");
  uint64_t s_samples = str_id (&st, "samples");
  uint64_t s_count = str_id (&st, "count");
  uint64_t s_cpu = str_id (&st, "cpu");
  uint64_t s_ns = str_id (&st, "nanoseconds");
  /* sample_type (1): samples/count, cpu/nanoseconds. */
  pb_uint (&m, 1, s_samples);
  pb_uint (&m, 2, s_count);
  pb_bytes (&pb, 1, m.p, m.n);
  m.n = 0;
  pb_uint (&m, 1, s_cpu);
  pb_uint (&m, 2, s_ns);
  pb_bytes (&pb, 1, m.p, m.n);
  /* sample (2): leaf first, one location per tree node. */
  for (size_t i = 1; i < t->n; i++)
    {
      if (!t->nodes[i].self_samples)
        continue;
      bytes_t ids = { 0 };
      for (uint32_t a = (uint32_t) i; a; a = t->nodes[a].parent)
        pb_varint (&ids, a);
      m.n = 0;
      pb_bytes (&m, 1, ids.p, ids.n);
      bytes_t vals = { 0 };
      pb_varint (&vals, t->nodes[i].self_samples);
      pb_varint (&vals, (uint64_t) (t->nodes[i].self_time * 1e9));
      pb_bytes (&m, 2, vals.p, vals.n);
      pb_bytes (&pb, 2, m.p, m.n);
      free (ids.p);
      free (vals.p);
    }
  /* location (4) per node, function (5) per node (id = node). */
  for (size_t i = 1; i < t->n; i++)
    {
      const cp_frame_t *f = &t->nodes[i].frame;
      bytes_t line = { 0 };
      pb_uint (&line, 1, i);
      pb_uint (&line, 2, (uint64_t) (f->line > 0 ? f->line : 0));
      m.n = 0;
      pb_uint (&m, 1, i);
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
  if (pb.oom || m.oom)
    {
      free (pb.p);
      clogtool__error ("--pprof: out of memory");
      return -1;
    }
  int rc;
#ifdef HAVE_ZLIB
  gzFile gz = gzopen (out, "wb");
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

/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory profile: cells summed into call sites, per rank. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "an-internal.h"
#include "an-memory.h"

static int
site_cmp (const void *a, const void *b)
{
  const an_mem_site_t *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  if (x->peak != y->peak)
    return x->peak > y->peak ? -1 : 1;
  int c = strcmp (x->function, y->function);
  return c ? c : x->line - y->line;
}

static int
same_site (const an_mem_site_t *s, int32_t rank, int kind,
           const char *function, const char *file, int line)
{
  return s->rank == rank && s->kind == kind
         && strcmp (s->function, function) == 0
         && strcmp (s->file, file) == 0 && s->line == line;
}

/* The site of one cell (a return address: the call is the byte
 * before). */
static void
name_site (const logfmt_resource_def_t *d, an_mem_namer_fn name,
           void *user, an_mem_site_t *s)
{
  s->file = "";
  s->line = 0;
  if (d->v[LOGFMT_MEM_ADDRESS] == 0)
    {
      s->function = "(sites beyond the table)";
      return;
    }
  name (user, d->s[0], (uint64_t) d->v[LOGFMT_MEM_OFFSET] - 1, &s->function,
        &s->file, &s->line);
  if (!s->function)
    s->function = "?";
  if (!s->file)
    s->file = "";
}

/* A site inside libmpe's own libraries: the logger's allocations (its
 * buffers for the tracks, perf's rings), not the program's. */
int
an_memory_own_site (const logfmt_resource_def_t *d)
{
  static const char *const libs[] = { "libmpe.so", "libmpe_nompi.so",
                                      "liblmpe.so", "libtmpe.so",
                                      "libampe.so", "libmpe_collchk.so" };
  const char *path = d->s[0];
  if (!path)
    return 0;
  const char *base = strrchr (path, '/');
  base = base ? base + 1 : path;
  for (size_t i = 0; i < sizeof libs / sizeof *libs; i++)
    if (!strncmp (base, libs[i], strlen (libs[i])))
      return 1;
  return 0;
}

typedef struct
{
  uint64_t t;
  uint32_t cell;          /* index into m->cells */
  int64_t  live;
} mem_sample_t;

static int
sample_cmp (const void *a, const void *b)
{
  const mem_sample_t *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t;
}

/* Each site's highest bytes live at once over its threads: the memory
 * track's samples of every cell in time order, each site's sum of its
 * cells' latest values.  Cells are not yet tied to their sites (that
 * comes after the sort): key[i] names cell i's site. */
static int
concurrent_peaks (const logfmt_reader_t *r, an_memory_t *m,
                  const an_mem_site_t *key)
{
  size_t *site_of = malloc ((m->ncells + 1) * sizeof *site_of);
  int64_t *cur = calloc (m->ncells + 1, sizeof *cur);
  int64_t *sum = calloc (m->nsites + 1, sizeof *sum);
  mem_sample_t *v = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  if (!site_of || !cur || !sum)
    rc = LOGFMT_ENOMEM;
  for (size_t i = 0; !rc && i < m->ncells; i++)
    for (size_t s = 0; s < m->nsites; s++)
      if (same_site (&m->sites[s], key[i].rank, key[i].kind,
                     key[i].function, key[i].file, key[i].line))
        {
          site_of[i] = s;
          break;
        }
  /* Every stream holding cells, once. */
  for (size_t i = 0; !rc && i < m->ncells; i++)
    {
      uint32_t stream = m->cells[i].stream;
      size_t j = 0;
      while (j < i && m->cells[j].stream != stream)
        j++;
      if (j < i)
        continue;
      logfmt_track_iter_t *it;
      if (logfmt_track_iter_new (r, stream, LOGFMT_TRACK_MEMORY, 0,
                                 UINT64_MAX, &it) < 0)
        continue;   /* no track: the definitions' peaks stand */
      logfmt_track_rec_t rec;
      while (!rc && logfmt_track_iter_next (it, &rec) == 1)
        {
          int64_t id = rec.col[LOGFMT_MEMORY_COL_CELL];
          size_t c = i;
          while (c < m->ncells && (m->cells[c].stream != stream
                                   || m->cells[c].id != id))
            c++;
          if (c == m->ncells)
            continue;
          if (n == cap)
            {
              size_t nc = cap ? 2 * cap : 1024;
              mem_sample_t *nv = realloc (v, nc * sizeof *nv);
              if (!nv)
                {
                  rc = LOGFMT_ENOMEM;
                  break;
                }
              v = nv;
              cap = nc;
            }
          v[n++] = (mem_sample_t) { rec.time, (uint32_t) c,
                                    rec.col[LOGFMT_MEMORY_COL_LIVE] };
        }
      logfmt_track_iter_free (it);
    }
  if (!rc)
    {
      /* A poll samples every cell at one time: its changes count
       * together (one thread's drop and another's rise are not both
       * live at once), so the sites are looked at once it is whole. */
      qsort (v, n, sizeof *v, sample_cmp);
      for (size_t k = 0, k0 = 0; k < n; k++)
        {
          size_t s = site_of[v[k].cell];
          sum[s] += v[k].live - cur[v[k].cell];
          cur[v[k].cell] = v[k].live;
          if (k + 1 < n && v[k + 1].t == v[k].t)
            continue;
          for (; k0 <= k; k0++)
            {
              size_t q = site_of[v[k0].cell];
              if (sum[q] > m->sites[q].peak)
                m->sites[q].peak = sum[q];
            }
        }
    }
  free (v);
  free (site_of);
  free (cur);
  free (sum);
  return rc;
}

int
an_memory_load (const logfmt_reader_t *r, an_mem_namer_fn name,
                void *user, an_memory_t **out, logfmt_error_t *err)
{
  *out = NULL;
  size_t nres = logfmt_reader_n_resources (r);
  an_memory_t *m = calloc (1, sizeof *m);
  if (m)
    {
      m->ranks = calloc (nres + 1, sizeof *m->ranks);
      m->sites = calloc (nres + 1, sizeof *m->sites);
      m->cells = calloc (nres + 1, sizeof *m->cells);
    }
  if (!m || !m->ranks || !m->sites || !m->cells)
    {
      an_memory_free (m);
      an__error (err, LOGFMT_ENOMEM, "out of memory");
      return LOGFMT_ENOMEM;
    }
  /* Each cell's (rank, kind, function, file, line) before sorting. */
  an_mem_site_t *key = calloc (nres + 1, sizeof *key);
  if (!key)
    {
      an_memory_free (m);
      an__error (err, LOGFMT_ENOMEM, "out of memory");
      return LOGFMT_ENOMEM;
    }
  for (size_t i = 0; i < nres; i++)
    {
      const logfmt_resource_def_t *d = logfmt_reader_resource (r, i);
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, d->stream);
      if (!sd)
        continue;
      if (d->kind == LOGFMT_RES_MEMTOTAL)
        m->ranks[m->nranks++] = (an_mem_rank_t) {
          sd->rank, d->v[LOGFMT_MEMT_PEAK], d->v[LOGFMT_MEMT_LIVE_END], 0, 0
        };
      if (d->kind != LOGFMT_RES_MEMSITE || an_memory_own_site (d))
        continue;
      an_mem_site_t *k = &key[m->ncells];
      k->rank = sd->rank;
      k->kind = (int) d->v[LOGFMT_MEM_KIND];
      k->calls = d->v[LOGFMT_MEM_CALLS];
      k->peak = d->v[LOGFMT_MEM_PEAK];
      k->live_end = d->v[LOGFMT_MEM_LIVE_END];
      name_site (d, name, user, k);
      m->cells[m->ncells++] = (an_mem_cell_t) { d->stream,
                                                d->v[LOGFMT_MEM_ID],
                                                sd->rank, sd->thread, 0,
                                                k->calls, k->peak,
                                                k->live_end };
      size_t s;
      for (s = 0; s < m->nsites; s++)
        if (same_site (&m->sites[s], k->rank, k->kind, k->function,
                       k->file, k->line))
          break;
      if (s == m->nsites)
        {
          k->peak_threads = k->peak;
          m->sites[m->nsites++] = *k;
          continue;
        }
      m->sites[s].calls += k->calls;
      if (k->peak > m->sites[s].peak)
        m->sites[s].peak = k->peak;
      m->sites[s].peak_threads += k->peak;
      m->sites[s].live_end += k->live_end;
    }
  if (concurrent_peaks (r, m, key) < 0)
    {
      free (key);
      an_memory_free (m);
      an__error (err, LOGFMT_ENOMEM, "memory track");
      return LOGFMT_ENOMEM;
    }
  qsort (m->sites, m->nsites, sizeof *m->sites, site_cmp);
  for (size_t i = 0; i < m->ncells; i++)
    for (size_t s = 0; s < m->nsites; s++)
      if (same_site (&m->sites[s], key[i].rank, key[i].kind,
                     key[i].function, key[i].file, key[i].line))
        {
          m->cells[i].site = s;
          break;
        }
  free (key);
  for (size_t t = 0; t < m->nranks; t++)
    {
      an_mem_rank_t *rk = &m->ranks[t];
      size_t s = 0;
      while (s < m->nsites && m->sites[s].rank != rk->rank)
        s++;
      rk->first = s;
      while (s < m->nsites && m->sites[s].rank == rk->rank)
        s++;
      rk->nsites = s - rk->first;
    }
  *out = m;
  return 0;
}

void
an_memory_free (an_memory_t *m)
{
  if (!m)
    return;
  free (m->ranks);
  free (m->sites);
  free (m->cells);
  free (m);
}

int
an_memory_write_json (const an_memory_t *m, FILE *f,
                      void (*put_string) (FILE *f, const char *s))
{
  fprintf (f, "{\"per_rank\": [");
  for (size_t t = 0; t < m->nranks; t++)
    {
      const an_mem_rank_t *rk = &m->ranks[t];
      fprintf (f, "%s\n  {\"rank\": %d, \"peak_bytes\": %" PRId64 ", "
               "\"live_bytes_at_end\": %" PRId64 ", \"sites\": [",
               t ? "," : "", rk->rank, rk->peak, rk->live_end);
      for (size_t k = 0; k < rk->nsites; k++)
        {
          const an_mem_site_t *s = &m->sites[rk->first + k];
          fprintf (f, "%s\n    {\"function\": ", k ? "," : "");
          put_string (f, s->function);
          fprintf (f, ", \"file\": ");
          put_string (f, s->file);
          fprintf (f, ", \"line\": %d, \"kind\": \"%s\", \"calls\": %" PRId64
                   ", \"peak_bytes\": %" PRId64 ", \"peak_bytes_threads\": %"
                   PRId64 ", \"live_bytes_at_end\": %" PRId64
                   ", \"threads\": [", s->line, s->kind ? "mmap" : "heap",
                   s->calls, s->peak, s->peak_threads, s->live_end);
          /* The split by thread (the identity the data are recorded
           * by): a cell each. */
          int first = 1;
          for (size_t ci = 0; ci < m->ncells; ci++)
            {
              const an_mem_cell_t *x = &m->cells[ci];
              if (x->site != rk->first + k)
                continue;
              fprintf (f, "%s{\"thread\": %d, \"calls\": %" PRId64
                       ", \"peak_bytes\": %" PRId64
                       ", \"live_bytes_at_end\": %" PRId64 "}",
                       first ? "" : ", ", x->thread, x->calls, x->peak,
                       x->live_end);
              first = 0;
            }
          fprintf (f, "]}");
        }
      fprintf (f, "]}");
    }
  fprintf (f, "\n]}\n");
  return ferror (f) ? -1 : 0;
}

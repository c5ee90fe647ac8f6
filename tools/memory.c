/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool memory: the memory profile of a log written with MPE_MEMORY=1
 * and libmpe_memory: per rank the peak, and per call site (the function
 * that called the allocator, symbolised now from the module and offset
 * the log stores) its calls, peak and the bytes still live at the end
 * (leaks), from analysis/an-memory.c (the viewer's memory table uses it
 * too); exports the live bytes over time, or the bytes a host's NICs
 * carried (MPE_NETWORK=1), as massif output (ms_print,
 * massif-visualizer) or as a heap profile for hp2ps. */
#include "config.h"

#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "clogtool.h"
#include "clogtool-internal.h"
#include "analysis/an-memory.h"
#include "callpath/callpath.h"

static void
memory_help (void)
{
  fputs (
    "Usage: clogtool memory [--json|--csv] [--massif OUT | --hp OUT] [--rank R]\n"
    "                       [--network] FILE\n"
    "\n"
    "Prints the memory profile of a log written with MPE_MEMORY=1 and the\n"
    "allocator wrappers (LD_PRELOAD=libmpe_memory.so, or -lmpe_memory):\n"
    "per rank its peak of live bytes and the bytes still live at the end;\n"
    "per call site (the function that called malloc, calloc, realloc,\n"
    "posix_memalign, ... or mmap, with its source file and line) the\n"
    "allocations, the peak of its live bytes and the bytes it still held\n"
    "at the end (a leak when not zero).  A site used by several threads\n"
    "has the most bytes live there at once over them (from the samples,\n"
    "at least any one thread's own peak); JSON's peak_bytes_threads is\n"
    "the sum of the threads' own peaks.\n"
    "\n"
    "Options:\n"
    "  -j, --json        one JSON object instead of the tables\n"
    "      --csv         the site tables as CSV: rank, function, file,\n"
    "                    line, kind, calls, peak_bytes, live_bytes_at_end\n"
    "  -m, --massif OUT  write rank R's live bytes over time as massif\n"
    "                    output (read by ms_print, massif-visualizer)\n"
    "  -p, --hp OUT      the same as a heap profile (.hp) for hp2ps\n"
    "                    (OUT - is standard output)\n"
    "  -r, --rank R      the rank exported (default 0)\n"
    "  -n, --network     export instead the bytes rank R's host's network\n"
    "                    interfaces received and sent since the first\n"
    "                    sample (MPE_NETWORK=1; the lowest rank of each\n"
    "                    host records them), one band per NIC direction\n"
    "  -h, --help        show this help\n"
    "\n"
    "JSON: {per_rank: [{rank, peak_bytes, live_bytes_at_end, sites:\n"
    "[{function, file, line, kind (heap or mmap), calls, peak_bytes,\n"
    "peak_bytes_threads, live_bytes_at_end, threads [{thread, calls,\n"
    "peak_bytes, live_bytes_at_end}]}]}]}, sites by decreasing peak.\n"
    "\n"
    "Exit status: 0 success, 1 error or no memory records, 2 bad usage.\n",
    stdout);
}

/* A series exported: values of cells over time, each cell adding to
 * one band (a call site; a NIC's direction). */
typedef struct
{
  uint64_t t;
  uint32_t cell;
  int64_t  live;   /* the cell's value from t on */
} sample_t;

typedef struct
{
  sample_t *sm;       /* in time order */
  size_t    n, cap;
  size_t    ncells;
  size_t   *band;     /* per cell */
  char    **label;    /* per band */
  size_t    nbands;
  /* Cell ncells is the process's total, whose excess over the cells'
   * sum is the last band: the reports' figures, libmpe's own
   * allocations included. */
  int       has_total;
} series_t;

static void
series_free (series_t *s)
{
  free (s->sm);
  free (s->band);
  for (size_t i = 0; i < s->nbands; i++)
    free (s->label[i]);
  free (s->label);
}

static int
series_put (series_t *s, uint64_t t, size_t cell, int64_t v)
{
  if (s->n == s->cap)
    {
      size_t cap = s->cap ? s->cap * 2 : 1024;
      sample_t *x = realloc (s->sm, cap * sizeof *x);
      if (!x)
        return LOGFMT_ENOMEM;
      s->sm = x;
      s->cap = cap;
    }
  s->sm[s->n++] = (sample_t) { t, (uint32_t) cell, v };
  return 0;
}

static int
sample_cmp (const void *a, const void *b)
{
  const sample_t *x = a, *y = b;
  return (x->t > y->t) - (x->t < y->t);
}

static const char *
site_label (const an_mem_site_t *s, char *buf, size_t len)
{
  if (s->file[0])
    snprintf (buf, len, "%s (%s:%d)", s->function, s->file, s->line);
  else
    snprintf (buf, len, "%s", s->function);
  return buf;
}

/* Calls fn for every record of track `kind` of rank `rank`'s streams. */
typedef int (*track_fn) (void *user, uint32_t stream,
                         const logfmt_track_rec_t *rec);
static int
rank_tracks (const logfmt_reader_t *r, int32_t rank, uint32_t kind,
             track_fn fn, void *user)
{
  const logfmt_info_t *info = logfmt_reader_info (r);
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      logfmt_track_info_t ti;
      if (!sd || sd->rank != rank
          || logfmt_reader_track_info (r, s, kind, &ti) != 0)
        continue;
      logfmt_track_iter_t *it;
      int rc = logfmt_track_iter_new (r, s, kind, 0, UINT64_MAX, &it);
      if (rc)
        {
          clogtool__lib_error ("cannot read a track", rc, NULL);
          return rc;
        }
      logfmt_track_rec_t rec;
      while ((rc = logfmt_track_iter_next (it, &rec)) == 1)
        if ((rc = fn (user, s, &rec)) != 0)
          break;
      if (rc < 0)
        clogtool__lib_error ("cannot read a track", rc,
                             logfmt_track_iter_error (it));
      logfmt_track_iter_free (it);
      if (rc < 0)
        return rc;
    }
  return 0;
}

typedef struct
{
  const an_memory_t *m;
  series_t *s;
} mem_ctx_t;

static int
memory_rec (void *user, uint32_t stream, const logfmt_track_rec_t *rec)
{
  mem_ctx_t *c = user;
  int64_t cell = rec->col[LOGFMT_MEMORY_COL_CELL];
  if (cell == -1)
    return series_put (c->s, rec->time, c->m->ncells,
                       rec->col[LOGFMT_MEMORY_COL_LIVE]);
  for (size_t k = 0; k < c->m->ncells; k++)
    if (c->m->cells[k].stream == stream && c->m->cells[k].id == cell)
      return series_put (c->s, rec->time, k,
                         rec->col[LOGFMT_MEMORY_COL_LIVE]);
  return 0;  /* a cell without a site (libmpe's own) */
}

/* Rank `rank`'s live bytes per call site. */
static int
memory_series (const logfmt_reader_t *r, int32_t rank, const an_memory_t *m,
               series_t *s)
{
  s->ncells = m->ncells;
  s->nbands = m->nsites + 1;
  s->has_total = 1;
  s->band = calloc (m->ncells + 1, sizeof *s->band);
  s->label = calloc (m->nsites + 1, sizeof *s->label);
  if (!s->band || !s->label)
    return LOGFMT_ENOMEM;
  for (size_t k = 0; k < m->ncells; k++)
    s->band[k] = m->cells[k].site;
  char buf[1024];
  for (size_t k = 0; k < m->nsites; k++)
    if (!(s->label[k] = strdup (site_label (&m->sites[k], buf, sizeof buf))))
      return LOGFMT_ENOMEM;
  if (!(s->label[m->nsites] = strdup ("libmpe's own and untracked "
                                      "allocations")))
    return LOGFMT_ENOMEM;
  mem_ctx_t c = { m, s };
  int rc = rank_tracks (r, rank, LOGFMT_TRACK_MEMORY, memory_rec, &c);
  /* The last sample comes before libmpe's own last allocations (its
   * final tables): a closing snapshot, just after it, holds what the
   * reports call the end, the sites' and the process's. */
  uint64_t t = 0;
  for (size_t i = 0; i < s->n; i++)
    t = s->sm[i].t > t ? s->sm[i].t : t;
  for (size_t k = 0; rc == 0 && s->n && k < m->ncells; k++)
    if (m->cells[k].rank == rank)
      rc = series_put (s, t + 1, k, m->cells[k].live_end);
  for (size_t i = 0; rc == 0 && s->n && i < m->nranks; i++)
    if (m->ranks[i].rank == rank)
      rc = series_put (s, t + 1, m->ncells, m->ranks[i].live_end);
  return rc;
}

/* The NICs of the network series: one cell per (stream, NIC, direction)
 * met, its counter's first value subtracted (bytes since the start). */
typedef struct
{
  const logfmt_reader_t *r;
  series_t *s;
  struct nic_cell { uint32_t stream; int64_t id; int dir; int64_t first; }
    *cells;
} net_ctx_t;

static const char *
nic_name (const logfmt_reader_t *r, uint32_t stream, int64_t id)
{
  const logfmt_stream_def_t *sd = logfmt_reader_stream (r, stream);
  for (size_t i = 0; i < logfmt_reader_n_resources (r); i++)
    {
      const logfmt_resource_def_t *d = logfmt_reader_resource (r, i);
      if (d->kind == LOGFMT_RES_NIC && d->v[LOGFMT_NIC_ID] == id && d->s[1]
          && (!sd || !sd->host || !d->s[0] || !strcmp (d->s[0], sd->host)))
        return d->s[1];
    }
  return "?";
}

static int
network_rec (void *user, uint32_t stream, const logfmt_track_rec_t *rec)
{
  net_ctx_t *c = user;
  series_t *s = c->s;
  int64_t id = rec->col[LOGFMT_NETWORK_COL_NIC];
  for (int dir = 0; dir < 2; dir++)
    {
      int64_t v = rec->col[dir ? LOGFMT_NETWORK_COL_TXB
                               : LOGFMT_NETWORK_COL_RXB];
      size_t k;
      for (k = 0; k < s->ncells; k++)
        if (c->cells[k].stream == stream && c->cells[k].id == id
            && c->cells[k].dir == dir)
          break;
      if (k == s->ncells)
        {
          struct nic_cell *x = realloc (c->cells, (k + 1) * sizeof *x);
          size_t *b = realloc (s->band, (k + 1) * sizeof *b);
          char **l = realloc (s->label, (k + 1) * sizeof *l);
          if (x)
            c->cells = x;
          if (b)
            s->band = b;
          if (l)
            s->label = l;
          if (!x || !b || !l)
            return LOGFMT_ENOMEM;
          char buf[300];
          snprintf (buf, sizeof buf, "%s %s bytes",
                    nic_name (c->r, stream, id), dir ? "sent" : "received");
          if (!(s->label[k] = strdup (buf)))
            return LOGFMT_ENOMEM;
          c->cells[k] = (struct nic_cell) { stream, id, dir, v };
          s->band[k] = k;
          s->ncells = s->nbands = k + 1;
        }
      int rc = series_put (s, rec->time, k, v - c->cells[k].first);
      if (rc)
        return rc;
    }
  return 0;
}

/* The bytes rank `rank`'s host's NICs carried since the first sample. */
static int
network_series (const logfmt_reader_t *r, int32_t rank, series_t *s)
{
  net_ctx_t c = { r, s, NULL };
  int rc = rank_tracks (r, rank, LOGFMT_TRACK_NETWORK, network_rec, &c);
  free (c.cells);
  return rc;
}

/* The snapshots exported: at most MAX_SNAPSHOTS distinct times, evenly
 * spread, always with the peak. */
#define MAX_SNAPSHOTS 100

/* The total shown at a time: with the process's total, that (at least
 * the sites' sum, so that no band exceeds it); else the cells' sum.
 * sum is the sum over every cell, the total's included. */
static int64_t
shown_total (const series_t *s, const int64_t *live, int64_t sum)
{
  if (!s->has_total)
    return sum;
  int64_t sites = sum - live[s->ncells];
  return live[s->ncells] > sites ? live[s->ncells] : sites;
}

/* Writes s as massif output or a heap profile; what names the series in
 * the header. */
static int
export (series_t *s, const char *path, int massif, const char *what,
        const char *file)
{
  qsort (s->sm, s->n, sizeof *s->sm, sample_cmp);
  const sample_t *sm = s->sm;
  size_t n = s->n, ncells = s->ncells, nsites = s->nbands;
  int64_t *live = calloc (ncells + 1, sizeof *live);
  int64_t *per_site = calloc (nsites + 1, sizeof *per_site);
  /* Pass 1: the distinct times and the total at each. */
  size_t nt = 0, peak_i = 0;
  int64_t total = 0, peak = -1;
  for (size_t i = 0; live && i < n; i++)
    {
      total += sm[i].live - live[sm[i].cell];
      live[sm[i].cell] = sm[i].live;
      if (i + 1 == n || sm[i + 1].t != sm[i].t)
        {
          int64_t v = shown_total (s, live, total);
          if (v > peak)
            {
              peak = v;
              peak_i = nt;
            }
          nt++;
        }
    }
  /* "-" is standard output, as for every file name clogtool takes. */
  int to_stdout = strcmp (path, "-") == 0;
  FILE *f = !live || !per_site ? NULL : to_stdout ? stdout
            : fopen (path, "w");
  if (!f)
    {
      free (live);
      free (per_site);
      clogtool__error ("cannot write %s", path);
      return LOGFMT_EIO;
    }
  if (massif)
    fprintf (f, "desc: clogtool memory --massif (%s)\ncmd: %s\n"
             "time_unit: ms\n", what, file);
  else
    fprintf (f, "JOB \"%s (%s)\"\nDATE \"\"\nSAMPLE_UNIT \"seconds\"\n"
             "VALUE_UNIT \"bytes\"\nBEGIN_SAMPLE 0.00\nEND_SAMPLE 0.00\n",
             file, what);
  memset (live, 0, (ncells + 1) * sizeof *live);
  size_t step = nt > MAX_SNAPSHOTS ? (nt + MAX_SNAPSHOTS - 2)
                                     / (MAX_SNAPSHOTS - 1) : 1;
  size_t ti = 0, snap = 0;
  total = 0;
  char label[1024];
  for (size_t i = 0; i < n; i++)
    {
      total += sm[i].live - live[sm[i].cell];
      live[sm[i].cell] = sm[i].live;
      if (i + 1 < n && sm[i + 1].t == sm[i].t)
        continue;
      int want = ti % step == 0 || ti == peak_i || ti + 1 == nt;
      if (want)
        {
          int64_t shown = shown_total (s, live, total);
          memset (per_site, 0, (nsites + 1) * sizeof *per_site);
          for (size_t k = 0; k < ncells; k++)
            if (live[k] > 0)
              per_site[s->band[k]] += live[k];
          if (s->has_total)
            per_site[nsites - 1] = shown - (total - live[ncells]);
          size_t nz = 0;
          for (size_t k = 0; k < nsites; k++)
            nz += per_site[k] > 0;
          if (massif)
            {
              fprintf (f, "#-----------\nsnapshot=%zu\n#-----------\n"
                       "time=%" PRIu64 "\nmem_heap_B=%" PRId64 "\n"
                       "mem_heap_extra_B=0\nmem_stacks_B=0\n", snap,
                       sm[i].t / 1000000, shown);
              fprintf (f, "heap_tree=%s\n", ti == peak_i ? "peak"
                                                           : "detailed");
              fprintf (f, "n%zu: %" PRId64 " (heap allocation functions) "
                       "malloc/new/new[], --alloc-fns, etc.\n", nz, shown);
              /* Children by decreasing size, as massif writes them. */
              for (size_t done = 0; done < nz; done++)
                {
                  size_t best = nsites;
                  for (size_t k = 0; k < nsites; k++)
                    if (per_site[k] > 0
                        && (best == nsites || per_site[k] > per_site[best]))
                      best = k;
                  fprintf (f, " n0: %" PRId64 " 0x0: %s\n", per_site[best],
                           s->label[best]);
                  per_site[best] = -per_site[best];
                }
            }
          else
            {
              fprintf (f, "BEGIN_SAMPLE %.6f\n", sm[i].t / 1e9);
              for (size_t k = 0; k < nsites; k++)
                if (per_site[k] > 0)
                  {
                    /* hp2ps: one "name<TAB>bytes" line per band; its
                     * lexer ends a name at any white space. */
                    snprintf (label, sizeof label, "%s", s->label[k]);
                    for (char *c = label; *c; c++)
                      if (isspace ((unsigned char) *c))
                        *c = '_';
                    fprintf (f, "%s\t%" PRId64 "\n", label, per_site[k]);
                  }
              fprintf (f, "END_SAMPLE %.6f\n", sm[i].t / 1e9);
            }
          snap++;
        }
      ti++;
    }
  int bad = ferror (f);
  bad |= to_stdout ? fflush (f) != 0 : fclose (f) != 0;
  free (live);
  free (per_site);
  if (bad)
    {
      clogtool__error ("cannot write %s", path);
      return LOGFMT_EIO;
    }
  return 0;
}

int
clogtool_memory_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "json", no_argument, NULL, 'j' },
    { "csv", no_argument, NULL, 'C' },
    { "massif", required_argument, NULL, 'm' },
    { "hp", required_argument, NULL, 'p' },
    { "rank", required_argument, NULL, 'r' },
    { "network", no_argument, NULL, 'n' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int json = 0, csv = 0, network = 0, c;
  const char *massif = NULL, *hp = NULL;
  long long rank = 0;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":jm:p:r:nh", longopts, NULL)) != -1)
    switch (c)
      {
      case 'j':
        json = 1;
        break;
      case 'C':
        csv = 1;
        break;
      case 'm':
        massif = optarg;
        break;
      case 'p':
        hp = optarg;
        break;
      case 'r':
        if (clogtool__parse_int (optarg, 0, INT32_MAX, &rank) != 0)
          return clogtool__usage_error ("memory", "bad rank '%s'", optarg);
        break;
      case 'n':
        network = 1;
        break;
      case 'h':
        memory_help ();
        return clogtool__exit_after_output ();
      default:
        return clogtool__bad_option ("memory", c, argv);
      }
  if (massif && hp)
    return clogtool__usage_error ("memory", "--massif and --hp exclude "
                                  "each other");
  if (json && csv)
    return clogtool__usage_error ("memory", "--json and --csv exclude "
                                  "each other");
  if (network && !massif && !hp)
    return clogtool__usage_error ("memory", "--network goes with --massif "
                                  "or --hp");
  if (clogtool__one_file ("memory", argc) != 0)
    return CLOGTOOL_EXIT_USAGE;
  const char *file = argv[optind];
  logfmt_reader_t *r = clogtool__open (file);
  if (!r)
    return CLOGTOOL_EXIT_PROBLEM;
  cp_symbols_t *syms = NULL;
  an_memory_t *m = NULL;
  int status = CLOGTOOL_EXIT_OK;
  char what[192];
  if (network)
    {
      series_t s = { 0 };
      int rc = network_series (r, (int32_t) rank, &s);
      snprintf (what, sizeof what, "rank %lld's host's NICs", rank);
      if (rc == 0 && s.n == 0)
        clogtool__error ("%s: rank %lld has no NIC counters (log with "
                         "MPE_NETWORK=1; the lowest rank of each host "
                         "records them)", file, rank);
      if (rc != 0 || s.n == 0
          || export (&s, massif ? massif : hp, massif != NULL, what,
                     file) != 0)
        status = CLOGTOOL_EXIT_PROBLEM;
      series_free (&s);
      goto out;
    }
  syms = cp_symbols_new ();
  logfmt_error_t err = { 0 };
  int rc = syms ? an_memory_load (r, cp_symbols_site_name, syms, &m, &err)
                : LOGFMT_ENOMEM;
  if (rc)
    {
      clogtool__lib_error ("cannot read the memory profile", rc, &err);
      status = CLOGTOOL_EXIT_PROBLEM;
      goto out;
    }
  if (m->nranks == 0)
    {
      clogtool__error ("%s has no memory records (log with MPE_MEMORY=1 "
                       "and LD_PRELOAD=libmpe_memory.so)", file);
      status = CLOGTOOL_EXIT_PROBLEM;
      goto out;
    }
  /* System libraries are often stripped: one line, not one per binary
   * (clogtool cct lists them). */
  const char *const *notes;
  size_t nnotes = cp_symbols_notes (syms, &notes);
  if (nnotes == 1)
    fprintf (stderr, "clogtool memory: %s: note: %s\n", file, notes[0]);
  else if (nnotes > 1)
    fprintf (stderr, "clogtool memory: %s: note: %s (and %zu more binaries "
             "with notes)\n", file, notes[0], nnotes - 1);
  if (massif || hp)
    {
      /* An empty profile is no profile: ms_print rejects one. */
      int found = 0;
      int32_t lo = INT32_MAX, hi = INT32_MIN;
      for (size_t t = 0; t < m->nranks; t++)
        {
          found |= m->ranks[t].rank == rank;
          lo = m->ranks[t].rank < lo ? m->ranks[t].rank : lo;
          hi = m->ranks[t].rank > hi ? m->ranks[t].rank : hi;
        }
      if (!found)
        {
          clogtool__error ("%s: rank %lld has no memory records (the log "
                           "has %zu rank%s from %d to %d)", file, rank,
                           m->nranks, m->nranks == 1 ? "" : "s", lo, hi);
          status = CLOGTOOL_EXIT_PROBLEM;
          goto out;
        }
      series_t s = { 0 };
      /* The sampled peak is the highest total the poller saw; the
       * allocator's own high-water mark, which the reports give, may
       * fall between two samples: named here. */
      for (size_t t = 0; t < m->nranks; t++)
        if (m->ranks[t].rank == rank)
          snprintf (what, sizeof what, "rank %lld; peak %" PRId64 " bytes, "
                    "%" PRId64 " live at the end", rank, m->ranks[t].peak,
                    m->ranks[t].live_end);
      rc = memory_series (r, (int32_t) rank, m, &s);
      if (rc == LOGFMT_ENOMEM)
        clogtool__error ("out of memory");
      if (rc != 0 || export (&s, massif ? massif : hp, massif != NULL, what,
                             file) != 0)
        status = CLOGTOOL_EXIT_PROBLEM;
      series_free (&s);
      goto out;
    }
  if (json)
    {
      /* The one form mpeview --export-tables writes too. */
      if (an_memory_write_json (m, stdout, clogtool__json_string) != 0)
        status = CLOGTOOL_EXIT_PROBLEM;
      goto out;
    }
  if (csv)
    puts ("rank,function,file,line,kind,calls,peak_bytes,"
          "live_bytes_at_end");
  for (size_t t = 0; t < m->nranks; t++)
    {
      const an_mem_rank_t *rk = &m->ranks[t];
      if (csv)
        {
          for (size_t k = 0; k < rk->nsites; k++)
            {
              const an_mem_site_t *s = &m->sites[rk->first + k];
              printf ("%d,", rk->rank);
              clogtool__csv_string (stdout, s->function);
              putchar (',');
              clogtool__csv_string (stdout, s->file);
              printf (",%d,%s,%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
                      s->line, s->kind ? "mmap" : "heap", s->calls, s->peak,
                      s->live_end);
            }
          continue;
        }
      printf ("rank %d: peak %" PRId64 " bytes, %" PRId64 " bytes live at "
              "the end\n%14s %14s %14s %8s  %s\n", rk->rank, rk->peak,
              rk->live_end, "peak B", "live at end B", "calls", "kind",
              "site");
      for (size_t k = 0; k < rk->nsites; k++)
        {
          const an_mem_site_t *s = &m->sites[rk->first + k];
          char label[1024];
          printf ("%14" PRId64 " %14" PRId64 " %14" PRId64 " %8s  ",
                  s->peak, s->live_end, s->calls, s->kind ? "mmap" : "heap");
          clogtool__put_text (stdout, site_label (s, label, sizeof label), 0);
          printf ("%s\n", s->live_end > 0 ? "  LEAK" : "");
        }
      printf ("\n");
    }
out:
  an_memory_free (m);
  cp_symbols_free (syms);
  logfmt_reader_close (r);
  if (status != CLOGTOOL_EXIT_OK)
    return status;
  return clogtool__exit_after_output ();
}

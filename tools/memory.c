/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool memory: the memory profile of a log written with MPE_MEMORY=1
 * and libmpe_memory: per rank the peak, and per call site (the function
 * that called the allocator, symbolised now from the module and offset
 * the log stores) its calls, peak and the bytes still live at the end
 * (leaks), from analysis/an-memory.c (the viewer's memory table uses it
 * too); exports the live bytes over time as massif output (ms_print,
 * massif-visualizer) or as a heap profile for hp2ps. */
#include "config.h"

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
    "Usage: clogtool memory [--json] [--massif OUT | --hp OUT] [--rank R]\n"
    "                       FILE\n"
    "\n"
    "Prints the memory profile of a log written with MPE_MEMORY=1 and the\n"
    "allocator wrappers (LD_PRELOAD=libmpe_memory.so, or -lmpe_memory):\n"
    "per rank its peak of live bytes and the bytes still live at the end;\n"
    "per call site (the function that called malloc, calloc, realloc,\n"
    "posix_memalign, ... or mmap, with its source file and line) the\n"
    "allocations, the peak of its live bytes and the bytes it still held\n"
    "at the end (a leak when not zero).  A site used by several threads\n"
    "sums their peaks.\n"
    "\n"
    "Options:\n"
    "  -j, --json        one JSON object instead of the tables\n"
    "  -m, --massif OUT  write rank R's live bytes over time as massif\n"
    "                    output (read by ms_print, massif-visualizer)\n"
    "  -p, --hp OUT      the same as a heap profile (.hp) for hp2ps\n"
    "  -r, --rank R      the rank exported (default 0)\n"
    "  -h, --help        show this help\n"
    "\n"
    "JSON: {per_rank: [{rank, peak_bytes, live_bytes_at_end, sites:\n"
    "[{function, file, line, kind (heap or mmap), calls, peak_bytes,\n"
    "live_bytes_at_end}]}]}, sites by decreasing peak.\n"
    "\n"
    "Exit status: 0 success, 1 error or no memory records, 2 bad usage.\n",
    stdout);
}

typedef struct
{
  uint64_t t;
  uint32_t cell;   /* index into the cells array */
  int64_t  live;
} sample_t;

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

/* Rank `rank`'s samples (all its streams' memory tracks) in time order;
 * *n 0 when none. */
static int
load_samples (const logfmt_reader_t *r, int32_t rank,
              const an_mem_cell_t *cells, size_t ncells, sample_t **out,
              size_t *n)
{
  *out = NULL;
  *n = 0;
  size_t cap = 0;
  const logfmt_info_t *info = logfmt_reader_info (r);
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      if (!sd || sd->rank != rank)
        continue;
      logfmt_track_iter_t *it;
      int rc = logfmt_track_iter_new (r, s, LOGFMT_TRACK_MEMORY, 0,
                                      UINT64_MAX, &it);
      if (rc)
        return rc;
      logfmt_track_rec_t rec;
      while ((rc = logfmt_track_iter_next (it, &rec)) == 1)
        {
          int64_t cell = rec.col[LOGFMT_MEMORY_COL_CELL];
          size_t k;
          for (k = 0; k < ncells; k++)
            if (cells[k].stream == s && cells[k].id == cell)
              break;
          if (k == ncells)
            continue;  /* the process total, or a cell without a site */
          if (*n == cap)
            {
              cap = cap ? cap * 2 : 1024;
              sample_t *v = realloc (*out, cap * sizeof *v);
              if (!v)
                {
                  logfmt_track_iter_free (it);
                  return LOGFMT_ENOMEM;
                }
              *out = v;
            }
          (*out)[(*n)++] = (sample_t) { rec.time, (uint32_t) k,
                                        rec.col[LOGFMT_MEMORY_COL_LIVE] };
        }
      if (rc < 0)
        clogtool__lib_error ("cannot read the memory track", rc,
                             logfmt_track_iter_error (it));
      logfmt_track_iter_free (it);
      if (rc < 0)
        return rc;
    }
  qsort (*out, *n, sizeof **out, sample_cmp);
  return 0;
}

/* The snapshots exported: at most MAX_SNAPSHOTS distinct times, evenly
 * spread, always with the peak. */
#define MAX_SNAPSHOTS 100

static int
export (const logfmt_reader_t *r, int32_t rank, const an_memory_t *m,
        const char *path, int massif, const char *file)
{
  const an_mem_cell_t *cells = m->cells;
  const an_mem_site_t *sites = m->sites;
  size_t ncells = m->ncells, nsites = m->nsites;
  sample_t *sm;
  size_t n;
  int rc = load_samples (r, rank, cells, ncells, &sm, &n);
  if (rc)
    return rc;
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
          if (total > peak)
            {
              peak = total;
              peak_i = nt;
            }
          nt++;
        }
    }
  FILE *f = live && per_site ? fopen (path, "w") : NULL;
  if (!f)
    {
      free (sm);
      free (live);
      free (per_site);
      clogtool__error ("cannot write %s", path);
      return LOGFMT_EIO;
    }
  if (massif)
    fprintf (f, "desc: clogtool memory --massif (rank %d)\ncmd: %s\n"
             "time_unit: ms\n", rank, file);
  else
    fprintf (f, "JOB \"%s (rank %d)\"\nDATE \"\"\nSAMPLE_UNIT \"seconds\"\n"
             "VALUE_UNIT \"bytes\"\nBEGIN_SAMPLE 0.00\nEND_SAMPLE 0.00\n",
             file, rank);
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
          memset (per_site, 0, (nsites + 1) * sizeof *per_site);
          for (size_t k = 0; k < ncells; k++)
            if (cells[k].rank == rank && live[k] > 0)
              per_site[cells[k].site] += live[k];
          size_t nz = 0;
          for (size_t k = 0; k < nsites; k++)
            nz += per_site[k] > 0;
          if (massif)
            {
              fprintf (f, "#-----------\nsnapshot=%zu\n#-----------\n"
                       "time=%" PRIu64 "\nmem_heap_B=%" PRId64 "\n"
                       "mem_heap_extra_B=0\nmem_stacks_B=0\n", snap,
                       sm[i].t / 1000000, total);
              fprintf (f, "heap_tree=%s\n", ti == peak_i ? "peak"
                                                           : "detailed");
              fprintf (f, "n%zu: %" PRId64 " (heap allocation functions) "
                       "malloc/new/new[], --alloc-fns, etc.\n", nz, total);
              /* Children by decreasing size, as massif writes them. */
              for (size_t done = 0; done < nz; done++)
                {
                  size_t best = nsites;
                  for (size_t k = 0; k < nsites; k++)
                    if (per_site[k] > 0
                        && (best == nsites || per_site[k] > per_site[best]))
                      best = k;
                  fprintf (f, " n0: %" PRId64 " 0x0: %s\n", per_site[best],
                           site_label (&sites[best], label, sizeof label));
                  per_site[best] = -per_site[best];
                }
            }
          else
            {
              fprintf (f, "BEGIN_SAMPLE %.6f\n", sm[i].t / 1e9);
              for (size_t k = 0; k < nsites; k++)
                if (per_site[k] > 0)
                  {
                    /* hp2ps: one "name<TAB>bytes" line per band; names
                     * without tabs or newlines. */
                    site_label (&sites[k], label, sizeof label);
                    for (char *c = label; *c; c++)
                      if (*c == '\t' || *c == '\n')
                        *c = ' ';
                    fprintf (f, "%s\t%" PRId64 "\n", label, per_site[k]);
                  }
              fprintf (f, "END_SAMPLE %.6f\n", sm[i].t / 1e9);
            }
          snap++;
        }
      ti++;
    }
  int bad = ferror (f);
  bad |= fclose (f) != 0;
  free (sm);
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
    { "massif", required_argument, NULL, 'm' },
    { "hp", required_argument, NULL, 'p' },
    { "rank", required_argument, NULL, 'r' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int json = 0, c;
  const char *massif = NULL, *hp = NULL;
  long long rank = 0;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":jm:p:r:h", longopts, NULL)) != -1)
    switch (c)
      {
      case 'j':
        json = 1;
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
      case 'h':
        memory_help ();
        return clogtool__exit_after_output ();
      default:
        return clogtool__bad_option ("memory", c, argv);
      }
  if (massif && hp)
    return clogtool__usage_error ("memory", "--massif and --hp exclude "
                                  "each other");
  if (clogtool__one_file ("memory", argc) != 0)
    return CLOGTOOL_EXIT_USAGE;
  const char *file = argv[optind];
  logfmt_reader_t *r = clogtool__open (file);
  if (!r)
    return CLOGTOOL_EXIT_PROBLEM;
  cp_symbols_t *syms = cp_symbols_new ();
  an_memory_t *m = NULL;
  int status = CLOGTOOL_EXIT_OK;
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
  const char *const *notes;
  size_t nnotes = cp_symbols_notes (syms, &notes);
  for (size_t i = 0; i < nnotes; i++)
    fprintf (stderr, "clogtool memory: %s: note: %s\n", file, notes[i]);
  if (massif || hp)
    {
      if (export (r, (int32_t) rank, m, massif ? massif : hp,
                  massif != NULL, file) != 0)
        status = CLOGTOOL_EXIT_PROBLEM;
      goto out;
    }
  if (json)
    printf ("{\"per_rank\": [");
  for (size_t t = 0; t < m->nranks; t++)
    {
      const an_mem_rank_t *rk = &m->ranks[t];
      if (json)
        printf ("%s\n  {\"rank\": %d, \"peak_bytes\": %" PRId64 ", "
                "\"live_bytes_at_end\": %" PRId64 ", \"sites\": [",
                t ? "," : "", rk->rank, rk->peak, rk->live_end);
      else
        printf ("rank %d: peak %" PRId64 " bytes, %" PRId64 " bytes live at "
                "the end\n%14s %14s %14s %8s  %s\n", rk->rank, rk->peak,
                rk->live_end, "peak B", "live at end B", "calls", "kind",
                "site");
      for (size_t k = 0; k < rk->nsites; k++)
        {
          const an_mem_site_t *s = &m->sites[rk->first + k];
          if (json)
            {
              printf ("%s\n    {\"function\": ", k ? "," : "");
              clogtool__json_string (stdout, s->function);
              printf (", \"file\": ");
              clogtool__json_string (stdout, s->file);
              printf (", \"line\": %d, \"kind\": \"%s\", \"calls\": %" PRId64
                      ", \"peak_bytes\": %" PRId64 ", \"live_bytes_at_end\": %"
                      PRId64 "}", s->line, s->kind ? "mmap" : "heap",
                      s->calls, s->peak, s->live_end);
            }
          else
            {
              char label[1024];
              printf ("%14" PRId64 " %14" PRId64 " %14" PRId64 " %8s  ",
                      s->peak, s->live_end, s->calls,
                      s->kind ? "mmap" : "heap");
              clogtool__put_text (stdout, site_label (s, label,
                                                      sizeof label), 0);
              printf ("%s\n", s->live_end > 0 ? "  LEAK" : "");
            }
        }
      printf (json ? "]}" : "\n");
    }
  if (json)
    printf ("\n]}\n");
out:
  an_memory_free (m);
  cp_symbols_free (syms);
  logfmt_reader_close (r);
  if (status != CLOGTOOL_EXIT_OK)
    return status;
  return clogtool__exit_after_output ();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool cct: the calling-context tree of a sampled log
 * (callpath/cp-tree.c) as text or JSON, a node-by-node comparison of two
 * logs, and the exports (tools/cct-export.c). */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "callpath/callpath.h"
#include "clogtool.h"
#include "clogtool-internal.h"
#include "cct-export.h"

enum { M_SAMPLES, M_TIME, M_COMM, M_BYTES, M_COUNTER };
static const char *metric_names[] = { "samples", "time", "comm_time",
                                      "bytes", "counter" };

/* --metric COUNTER: per node of ctr_tree, the counter's increase from
 * each sample's predecessor on its thread to the sample, summed (self)
 * and with the descendants' (total). */
static const cp_tree_t *ctr_tree;
static double *ctr_self, *ctr_total;
static const char *ctr_name;

static void
cct_help (void)
{
  fputs (
    "Usage: clogtool cct [--json] [--rank R] [--from T0] [--to T1]\n"
    "                    [--metric samples|time|comm_time|bytes|COUNTER]\n"
    "                    [--lines]\n"
    "                    [--min PCT] [--gmon OUT] [--collapsed OUT]\n"
    "                    [--pprof OUT] [--binary B] FILE\n"
    "       clogtool cct --diff [--metric M] [--min PCT] A.clog B.clog\n"
    "\n"
    "The calling-context tree of a log recorded with MPE_SAMPLE_HZ (and\n"
    "call sites, MPE_CALLSITE): timer samples of every thread and the\n"
    "wrapped MPI calls at their call sites, merged over the ranks by\n"
    "function.  Each node: inclusive and exclusive samples and time\n"
    "(samples / rate), time in MPI calls made below it, their count and\n"
    "bytes; an MPI call is a child node named after its function.\n"
    "Symbols are resolved now, from the binaries the log names (libdw);\n"
    "a binary that is missing, stripped or rebuilt since the run shows\n"
    "module+offset, with a note on stderr.\n"
    "\n"
    "Options:\n"
    "  -j, --json          nested {\"name\", \"file\", \"line\", \"module\",\n"
    "                      \"self\", \"total\" (samples), \"time_s\",\n"
    "                      \"self_time_s\", \"comm_time_s\", \"calls\",\n"
    "                      \"bytes\", \"mpi\": [{\"name\", \"calls\",\n"
    "                      \"time_s\", \"bytes\"}], \"children\": [...]}\n"
    "  -r, --rank R        only world rank R\n"
    "  -f, --from T0       only samples and calls from T0 on\n"
    "  -T, --to T1         ... and before T1 (1.5s, 20ms, 300us, 100ns)\n"
    "  -m, --metric M      what orders the children and --min applies to\n"
    "                      (default samples); or a counter of the log\n"
    "                      (MPE_COUNTERS: task-clock, PAPI_TOT_CYC, ...):\n"
    "                      each sample gets the counter's increase since\n"
    "                      its thread's previous sample (linear between\n"
    "                      readings), shown as the \"count\" column (JSON:\n"
    "                      \"counter\": {\"name\", \"self\", \"total\"})\n"
    "  -l, --lines         nodes are source lines, not functions\n"
    "      --min PCT       text: hide nodes under PCT %% of the whole\n"
    "                      (default 0.5)\n"
    "      --gmon OUT      write gmon.out for gprof: the samples whose\n"
    "                      innermost frame is in one binary, arcs from the\n"
    "                      stacks; read it with 'gprof BINARY OUT'.  gprof's\n"
    "                      \"calls\" column then holds sample counts\n"
    "      --binary B      the binary for --gmon (a path or base name as\n"
    "                      the [binary] column shows it; default the\n"
    "                      program)\n"
    "      --collapsed OUT write collapsed stacks (\"main;f;g 42\" per\n"
    "                      line) for flamegraph.pl, speedscope, inferno\n"
    "      --pprof OUT     write a pprof profile (profile.proto, gzip)\n"
    "                      OUT \"-\" is standard output\n"
    "  -d, --diff          compare A and B node by node: each context's\n"
    "                      metric in both, as a share of each log's whole,\n"
    "                      largest change first\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 success, 1 error (or no samples), 2 bad usage.\n",
    stdout);
}

static double
metric (const cp_node_t *x, int m, int total)
{
  switch (m)
    {
    case M_TIME:
      return total ? x->total_time + x->total_comm
                   : x->self_time + x->self_comm;
    case M_COMM:
      return total ? x->total_comm : x->self_comm;
    case M_BYTES:
      return (double) (total ? x->total_bytes : x->self_bytes);
    case M_COUNTER:
      {
        size_t i = (size_t) (x - ctr_tree->nodes);
        return total ? ctr_total[i] : ctr_self[i];
      }
    default:
      return (double) (total ? x->total_samples : x->self_samples);
    }
}

/* Children of i ordered by the metric, largest first. */
typedef struct
{
  const cp_tree_t *t;
  int m;
} sort_ctx_t;
static sort_ctx_t sctx;

static int
by_metric (const void *a, const void *b)
{
  double x = metric (&sctx.t->nodes[*(const uint32_t *) a], sctx.m, 1);
  double y = metric (&sctx.t->nodes[*(const uint32_t *) b], sctx.m, 1);
  if (x != y)
    return x > y ? -1 : 1;
  return strcmp (sctx.t->nodes[*(const uint32_t *) a].frame.func,
                 sctx.t->nodes[*(const uint32_t *) b].frame.func);
}

static size_t
children (const cp_tree_t *t, uint32_t i, int m, uint32_t **out)
{
  size_t n = 0;
  for (uint32_t c = t->nodes[i].first_child; c; c = t->nodes[c].next_sibling)
    n++;
  uint32_t *v = malloc ((n + 1) * sizeof *v);
  if (!v)
    {
      *out = NULL;
      return 0;
    }
  n = 0;
  for (uint32_t c = t->nodes[i].first_child; c; c = t->nodes[c].next_sibling)
    v[n++] = c;
  sctx.t = t;
  sctx.m = m;
  qsort (v, n, sizeof *v, by_metric);
  *out = v;
  return n;
}

static void
put_frame (const cp_frame_t *f)
{
  clogtool__put_text (stdout, f->func, 0);
  if (f->file)
    {
      const char *b = strrchr (f->file, '/');
      printf (" (%s:%d)", b ? b + 1 : f->file, f->line);
    }
  if (f->module && *f->module && strcmp (f->module, "[MPI]"))
    {
      fputs (" [", stdout);
      clogtool__put_text (stdout, f->module, 0);
      fputs ("]", stdout);
    }
}

static void
print_text (const cp_tree_t *t, uint32_t i, int depth, int m, double whole,
            double min)
{
  const cp_node_t *x = &t->nodes[i];
  if (i)
    {
      char tb[32];
      printf ("%6.2f%% %6.2f%% %8" PRIu64 " %12s %8" PRIu64 " %12" PRIu64
              "  ",
              whole > 0 ? 100 * metric (x, m, 1) / whole : 0.0,
              whole > 0 ? 100 * metric (x, m, 0) / whole : 0.0,
              x->total_samples,
              clogtool__fmt_time ((uint64_t) llround (x->total_comm * 1e9),
                                  tb),
              x->total_calls, x->total_bytes);
      if (m == M_COUNTER)
        printf ("%14.0f  ", metric (x, m, 1));
      for (int d = 1; d < depth; d++)
        fputs ("  ", stdout);
      put_frame (&x->frame);
      putchar ('\n');
    }
  uint32_t *c;
  size_t n = children (t, i, m, &c);
  for (size_t k = 0; k < n; k++)
    if (whole <= 0 || metric (&t->nodes[c[k]], m, 1) >= min * whole / 100)
      print_text (t, c[k], depth + 1, m, whole, min);
  free (c);
}

static void
print_json (const logfmt_reader_t *r, const cp_tree_t *t, uint32_t i, int m,
            int depth)
{
  const cp_node_t *x = &t->nodes[i];
  char tb[32];
  printf ("%*s{\"name\": ", depth, "");
  clogtool__json_string (stdout, x->frame.func);
  fputs (", \"file\": ", stdout);
  if (x->frame.file)
    clogtool__json_string (stdout, x->frame.file);
  else
    fputs ("null", stdout);
  printf (", \"line\": %d, \"module\": ", x->frame.line);
  clogtool__json_string (stdout, x->frame.module ? x->frame.module : "");
  printf (", \"self\": %" PRIu64 ", \"total\": %" PRIu64, x->self_samples,
          x->total_samples);
  printf (", \"time_s\": %.9f, \"self_time_s\": %.9f", x->total_time,
          x->self_time);
  printf (", \"comm_time_s\": %s, \"calls\": %" PRIu64 ", \"bytes\": %"
          PRIu64, clogtool__fmt_time ((uint64_t) llround (x->total_comm
                                                           * 1e9), tb),
          x->total_calls, x->total_bytes);
  if (m == M_COUNTER)
    {
      fputs (", \"counter\": {\"name\": ", stdout);
      clogtool__json_string (stdout, ctr_name);
      printf (", \"self\": %.0f, \"total\": %.0f}", metric (x, m, 0),
              metric (x, m, 1));
    }
  fputs (", \"mpi\": [", stdout);
  for (size_t k = 0; k < x->nmpi; k++)
    {
      const char *name = cp_state_name (r, x->mpi[k].state);
      printf ("%s{\"name\": ", k ? ", " : "");
      clogtool__json_string (stdout, name ? name : "?");
      printf (", \"calls\": %" PRIu64 ", \"time_s\": %.9f, \"bytes\": %"
              PRIu64 "}", x->mpi[k].calls, x->mpi[k].time, x->mpi[k].bytes);
    }
  fputs ("], \"children\": [", stdout);
  uint32_t *c;
  size_t n = children (t, i, m, &c);
  for (size_t k = 0; k < n; k++)
    {
      fputs (k ? ",\n" : "\n", stdout);
      print_json (r, t, c[k], m, depth + 1);
    }
  free (c);
  fputs (n ? "]}" : "]}", stdout);
}

static void
print_notes (const char *path, const cp_tree_t *t)
{
  const char *const *notes;
  size_t n = cp_symbols_notes (t->sym, &notes);
  for (size_t i = 0; i < n; i++)
    fprintf (stderr, "clogtool cct: %s: note: %s\n", path, notes[i]);
}

static int
load (const char *path, const cp_tree_opts_t *o, logfmt_reader_t **r,
      cp_tree_t **t)
{
  *t = NULL;
  *r = clogtool__open (path);
  if (!*r)
    return -1;
  logfmt_error_t err = { 0 };
  int rc = cp_tree_build (*r, o, t, &err);
  if (rc < 0)
    {
      clogtool__lib_error (path, rc, &err);
      logfmt_reader_close (*r);
      *r = NULL;
      return -1;
    }
  print_notes (path, *t);
  if ((*t)->ranks == 0)
    {
      clogtool__error ("%s: no call paths (record with MPE_SAMPLE_HZ or "
                       "MPE_CALLSITE)", path);
      return -1;
    }
  return 0;
}

/* ---- --metric COUNTER ------------------------------------------------ */

typedef struct
{
  uint32_t stream, node;
  uint64_t time;
} csample_t;

typedef struct
{
  csample_t *v;
  size_t n, cap;
  int failed;
} csamples_t;

static void
collect_sample (void *user, uint32_t stream, uint64_t time, uint64_t weight,
                uint32_t node)
{
  (void) weight;
  csamples_t *cs = user;
  if (cs->n == cs->cap)
    {
      size_t c = cs->cap ? 2 * cs->cap : 4096;
      csample_t *v = realloc (cs->v, c * sizeof *v);
      if (!v)
        {
          cs->failed = 1;
          return;
        }
      cs->v = v;
      cs->cap = c;
    }
  cs->v[cs->n++] = (csample_t) { stream, node, time };
}

/* The samples come stream by stream, each in time order.  0, -1 (an
 * error said), or -2 (no such counter: a usage error, said). */
static int
counter_totals (const char *path, const logfmt_reader_t *r,
                const cp_tree_t *t, const csamples_t *cs, uint64_t t0)
{
  an_counter_t *list;
  size_t nc = an_counters_list (r, &list);
  int k = an_counter_find (list, nc, ctr_name);
  if (k < 0)
    {
      clogtool__usage_error ("cct", "bad metric '%s': not samples, time, "
                             "comm_time, bytes or a counter of %s (%s)",
                             ctr_name, path,
                             nc ? "see clogtool profile --json's "
                             "\"counters\"" : "it has none: record with "
                             "MPE_COUNTERS");
      free (list);
      return -2;
    }
  ctr_tree = t;
  ctr_self = calloc (t->n ? t->n : 1, sizeof *ctr_self);
  ctr_total = calloc (t->n ? t->n : 1, sizeof *ctr_total);
  if (!ctr_self || !ctr_total || cs->failed)
    {
      clogtool__error ("%s: out of memory", path);
      free (list);
      return -1;
    }
  an_series_t s = { 0 };
  uint32_t cur = UINT32_MAX;
  uint64_t prev = 0, unread = 0;
  int rc = 0;
  for (size_t i = 0; i < cs->n && rc == 0; i++)
    {
      const csample_t *x = &cs->v[i];
      if (x->stream != cur)
        {
          logfmt_error_t err = { 0 };
          rc = an_counters_load (r, x->stream, &list[k], 1, &s, &err);
          if (rc < 0)
            {
              clogtool__lib_error (path, rc, &err);
              break;
            }
          cur = x->stream;
          prev = s.n && s.t[0] > t0 ? s.t[0] : t0;
        }
      /* Outside its thread's readings a sample's count is not known
       * (not 0): left out, and said. */
      if (s.n < 2 || x->time < s.t[0] || x->time > s.t[s.n - 1])
        unread++;
      else if (x->time > prev)
        ctr_self[x->node] += an_series_at (&s, x->time)
                             - an_series_at (&s, prev);
      prev = x->time;
    }
  an_series_free (&s, 1);
  free (list);
  if (rc < 0)
    return -1;
  if (unread)
    fprintf (stderr, "clogtool cct: %s: note: %" PRIu64 " of %zu samples "
             "are outside their thread's readings of %s: no data, left "
             "out\n", path, unread, cs->n, ctr_name);
  for (size_t i = 0; i < t->n; i++)
    ctr_total[i] = ctr_self[i];
  for (size_t i = t->n; i-- > 1;)
    ctr_total[t->nodes[i].parent] += ctr_total[i];
  return 0;
}

/* ---- --diff ---------------------------------------------------------- */

static uint32_t
match_child (const cp_tree_t *t, uint32_t parent, const cp_frame_t *f)
{
  for (uint32_t c = t->nodes[parent].first_child; c;
       c = t->nodes[c].next_sibling)
    if (!strcmp (t->nodes[c].frame.func, f->func))
      return c;
  return 0;
}

typedef struct
{
  char *path;
  double a, b;
} diffrow_t;

typedef struct
{
  diffrow_t *v;
  size_t n, cap;
} diffs_t;

#define NONE UINT32_MAX

static int
add_row (diffs_t *out, char *path, double a, double b)
{
  if (out->n == out->cap)
    {
      size_t cap = out->cap ? out->cap * 2 : 256;
      diffrow_t *v = realloc (out->v, cap * sizeof *v);
      if (!v)
        return -1;
      out->v = v;
      out->cap = cap;
    }
  out->v[out->n].path = path;
  out->v[out->n].a = a;
  out->v[out->n++].b = b;
  return 0;
}

static char *
join (const char *prefix, const char *name)
{
  size_t pl = strlen (prefix) + strlen (name) + 2;
  char *p = malloc (pl);
  if (p)
    snprintf (p, pl, "%s%s%s", prefix, *prefix ? ";" : "", name);
  return p;
}

/* Contexts under A's node ia and B's node ib (either may be NONE),
 * matched by function name, as shares of each log's whole. */
static void
diff_walk (const cp_tree_t *ta, uint32_t ia, const cp_tree_t *tb,
           uint32_t ib, const char *prefix, int m, double wa, double wb,
           diffs_t *out)
{
  if (ia != NONE)
    for (uint32_t c = ta->nodes[ia].first_child; c;
         c = ta->nodes[c].next_sibling)
      {
        uint32_t o = ib != NONE ? match_child (tb, ib, &ta->nodes[c].frame)
                                : 0;
        char *p = join (prefix, ta->nodes[c].frame.func);
        if (!p || add_row (out, p, metric (&ta->nodes[c], m, 1) / wa,
                           o ? metric (&tb->nodes[o], m, 1) / wb : 0))
          {
            free (p);
            return;
          }
        diff_walk (ta, c, tb, o ? o : NONE, p, m, wa, wb, out);
      }
  if (ib != NONE)
    for (uint32_t c = tb->nodes[ib].first_child; c;
         c = tb->nodes[c].next_sibling)
      {
        if (ia != NONE && match_child (ta, ia, &tb->nodes[c].frame))
          continue;
        char *p = join (prefix, tb->nodes[c].frame.func);
        if (!p || add_row (out, p, 0, metric (&tb->nodes[c], m, 1) / wb))
          {
            free (p);
            return;
          }
        diff_walk (ta, NONE, tb, c, p, m, wa, wb, out);
      }
}

static int
by_change (const void *a, const void *b)
{
  const diffrow_t *x = a, *y = b;
  double dx = fabs (x->b - x->a), dy = fabs (y->b - y->a);
  if (dx != dy)
    return dx > dy ? -1 : 1;
  return strcmp (x->path, y->path);
}

static int
run_diff (const char *pa, const char *pb, const cp_tree_opts_t *o, int m,
          double min)
{
  logfmt_reader_t *ra, *rb;
  cp_tree_t *ta, *tb;
  if (load (pa, o, &ra, &ta) < 0)
    return CLOGTOOL_EXIT_PROBLEM;
  if (load (pb, o, &rb, &tb) < 0)
    {
      cp_tree_free (ta);
      logfmt_reader_close (ra);
      return CLOGTOOL_EXIT_PROBLEM;
    }
  double wa = metric (&ta->nodes[0], m, 1), wb = metric (&tb->nodes[0], m, 1);
  if (wa <= 0)
    wa = 1;
  if (wb <= 0)
    wb = 1;
  diffs_t d = { 0 };
  diff_walk (ta, 0, tb, 0, "", m, wa, wb, &d);
  qsort (d.v, d.n, sizeof *d.v, by_change);
  printf ("# %s share of the whole in A (%s, %d ranks) and B (%s, %d "
          "ranks)\n", metric_names[m], pa, ta->ranks, pb, tb->ranks);
  printf ("%8s %8s %8s  context\n", "A %", "B %", "B-A");
  for (size_t i = 0; i < d.n; i++)
    {
      if (100 * fabs (d.v[i].b - d.v[i].a) >= min
          || 100 * d.v[i].a >= min || 100 * d.v[i].b >= min)
        {
          printf ("%8.2f %8.2f %+8.2f  ", 100 * d.v[i].a, 100 * d.v[i].b,
                  100 * (d.v[i].b - d.v[i].a));
          clogtool__put_text (stdout, d.v[i].path, 0);
          putchar ('\n');
        }
      free (d.v[i].path);
    }
  free (d.v);
  cp_tree_free (ta);
  cp_tree_free (tb);
  logfmt_reader_close (ra);
  logfmt_reader_close (rb);
  return clogtool__exit_after_output ();
}

int
clogtool_cct_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "json", no_argument, NULL, 'j' },
    { "rank", required_argument, NULL, 'r' },
    { "from", required_argument, NULL, 'f' },
    { "to", required_argument, NULL, 'T' },
    { "metric", required_argument, NULL, 'm' },
    { "lines", no_argument, NULL, 'l' },
    { "min", required_argument, NULL, 'M' },
    { "gmon", required_argument, NULL, 'G' },
    { "collapsed", required_argument, NULL, 'C' },
    { "pprof", required_argument, NULL, 'P' },
    { "binary", required_argument, NULL, 'B' },
    { "diff", no_argument, NULL, 'd' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int json = 0, diff = 0, m = M_SAMPLES, c;
  double min = 0.5;
  const char *gmon = NULL, *collapsed = NULL, *pprof = NULL, *binary = NULL;
  long long v;
  cp_tree_opts_t o = { -1, 0, UINT64_MAX, 0 };
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":jr:f:T:m:ldh", longopts, NULL))
         != -1)
    {
      switch (c)
        {
        case 'j':
          json = 1;
          break;
        case 'd':
          diff = 1;
          break;
        case 'l':
          o.by_line = 1;
          break;
        case 'r':
          if (clogtool__parse_int (optarg, 0, INT32_MAX, &v) < 0)
            return clogtool__usage_error ("cct", "bad rank '%s'", optarg);
          o.rank = (int32_t) v;
          break;
        case 'f':
        case 'T':
          if (clogtool__parse_time (optarg, c == 'f' ? &o.t0 : &o.t1) < 0)
            return clogtool__usage_error ("cct", "bad time '%s'", optarg);
          break;
        case 'm':
          for (m = 0; m < 4 && strcmp (optarg, metric_names[m]); m++)
            ;
          if (m == 4)
            {
              /* A counter's name, checked against the log. */
              if (!*optarg)
                return clogtool__usage_error ("cct", "empty metric");
              m = M_COUNTER;
              ctr_name = optarg;
            }
          break;
        case 'M':
          {
            char *end;
            min = strtod (optarg, &end);
            if (*end || !(min >= 0 && min <= 100))
              return clogtool__usage_error ("cct", "bad --min '%s'",
                                            optarg);
            break;
          }
        case 'G':
          gmon = optarg;
          break;
        case 'C':
          collapsed = optarg;
          break;
        case 'P':
          pprof = optarg;
          break;
        case 'B':
          binary = optarg;
          break;
        case 'h':
          cct_help ();
          return clogtool__exit_after_output ();
        default:
          return clogtool__bad_option ("cct", c, argv);
        }
    }
  if (o.t0 >= o.t1)
    return clogtool__usage_error ("cct", "--from is not before --to");
  if (diff)
    {
      if (argc - optind != 2)
        return clogtool__usage_error ("cct", "--diff takes two files");
      if (json || gmon || collapsed || pprof)
        return clogtool__usage_error ("cct", "--diff prints text only");
      if (m == M_COUNTER)
        return clogtool__usage_error ("cct", "--diff compares samples, "
                                      "time, comm_time or bytes");
      return run_diff (argv[optind], argv[optind + 1], &o, m, min);
    }
  if (clogtool__one_file ("cct", argc) != 0)
    return CLOGTOOL_EXIT_USAGE;
  if (binary && !gmon)
    return clogtool__usage_error ("cct", "--binary is for --gmon");
  /* One thing at most on standard output. */
  if (json + (gmon && !strcmp (gmon, "-"))
      + (collapsed && !strcmp (collapsed, "-"))
      + (pprof && !strcmp (pprof, "-")) > 1)
    return clogtool__usage_error ("cct", "only one output can be "
                                  "standard output");
  const char *path = argv[optind];
  logfmt_reader_t *r;
  cp_tree_t *t;
  csamples_t cs = { 0 };
  if (m == M_COUNTER)
    {
      o.on_sample = collect_sample;
      o.user = &cs;
    }
  int crc = 0;
  if (load (path, &o, &r, &t) < 0
      || (m == M_COUNTER && (crc = counter_totals (path, r, t, &cs,
                                                   o.t0)) < 0))
    {
      free (cs.v);
      free (ctr_self);
      free (ctr_total);
      cp_tree_free (t);
      if (r)
        logfmt_reader_close (r);
      return crc == -2 ? CLOGTOOL_EXIT_USAGE : CLOGTOOL_EXIT_PROBLEM;
    }
  free (cs.v);
  int status = CLOGTOOL_EXIT_OK;
  if (gmon && cct_export_gmon (r, &o, binary, gmon) < 0)
    status = CLOGTOOL_EXIT_PROBLEM;
  if (collapsed && cct_export_collapsed (t, collapsed) < 0)
    status = CLOGTOOL_EXIT_PROBLEM;
  if (pprof && cct_export_pprof (r, &o, t, pprof) < 0)
    status = CLOGTOOL_EXIT_PROBLEM;
  if (json)
    {
      print_json (r, t, 0, m, 0);
      putchar ('\n');
    }
  else if (!gmon && !collapsed && !pprof)
    {
      printf ("# %s: %" PRIu64 " samples (%.3g ms each), %d ranks, %" PRIu64
              " constructed, %" PRIu64 " cut at the depth limit\n", path,
              t->samples, t->period * 1e3, t->ranks, t->constructed,
              t->truncated);
      printf ("# %-6s %7s %8s %12s %8s %12s  %s%scontext (by %s, nodes >= "
              "%.2g%%)\n", "total", "self", "samples", "comm_s", "calls",
              "bytes", m == M_COUNTER ? "         count" : "",
              m == M_COUNTER ? "  " : "", m == M_COUNTER ? ctr_name
              : metric_names[m], min);
      print_text (t, 0, 0, m, metric (&t->nodes[0], m, 1), min);
    }
  free (ctr_self);
  free (ctr_total);
  cp_tree_free (t);
  logfmt_reader_close (r);
  if (status != CLOGTOOL_EXIT_OK)
    return status;
  return clogtool__exit_after_output ();
}

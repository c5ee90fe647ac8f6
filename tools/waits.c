/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool waits: where MPI calls waited, of which kind, and whose extra
 * time made them wait (analysis/an-waits.c), ranked. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "clogtool.h"
#include "clogtool-internal.h"

static void
waits_help (void)
{
  fputs (
    "Usage: clogtool waits [--by state|rank|comm] [--json|--csv] FILE\n"
    "\n"
    "Finds the time MPI calls spent waiting for another rank, in one\n"
    "pass over the records of every thread merged in time order:\n"
    "  late sender      a receive (MPI_Recv, or the MPI_Wait* completing\n"
    "                   an MPI_Irecv) entered before the send began\n"
    "  late sender, wrong order\n"
    "                   the same while a message sent earlier to this rank\n"
    "                   was still not received\n"
    "  late receiver    an MPI_Send or MPI_Ssend still blocked when its\n"
    "                   blocking receive was entered\n"
    "  wait at N x N    MPI_Allreduce, Allgather(v), Alltoall(v,w),\n"
    "                   Reduce_scatter(_block): until the last rank entered\n"
    "  wait at barrier  MPI_Barrier: until the last rank entered\n"
    "  late broadcast   MPI_Bcast, Scatter(v): a non-root waiting for the\n"
    "                   root to enter\n"
    "  early reduce     MPI_Reduce, Gather(v): the root waiting for the\n"
    "                   first other rank to enter\n"
    "and the direct cause of each wait: the states in which the rank\n"
    "waited for spent more time than the waiting rank since each one's\n"
    "previous MPI call (docs/ANALYSIS.md).  Losses are ranked, largest\n"
    "first, grouped by kind, MPI function and communicator (--by state,\n"
    "the default), by waiting rank or by communicator.\n"
    "\n"
    "Options:\n"
    "  -b, --by KEY    state (default), rank or comm\n"
    "  -j, --json      one JSON object\n"
    "      --csv       one line per group: kind,function,comm,ranks,\n"
    "                  calls,wait_s,max_s,causes (State@rank=s;...)\n"
    "  -h, --help      show this help\n"
    "\n"
    "JSON keys: by, total_ns, total_s, messages, unmatched_receives,\n"
    "collectives, incomplete_collectives, peak_pending, groups [{kind,\n"
    "function, comm, comm_name, rank, ranks [], calls, wait_ns, wait_s,\n"
    "max_s, causes [{rank, state, ns, s}]}] (kind, function, comm and\n"
    "rank null where the group mixes several).\n"
    "\n"
    "Exit status: 0 success, 1 error, 2 bad usage.\n",
    stdout);
}

enum { BY_STATE, BY_RANK, BY_COMM };

typedef struct
{
  int32_t rank, state;   /* state -1: outside states */
  uint64_t ns;
} cause_t;

typedef struct
{
  int kind;              /* -1: mixed */
  int32_t state, rank;   /* -1 (state, rank: -2): mixed */
  int64_t comm;          /* -1: mixed */
  int32_t *ranks;
  size_t nranks;
  uint64_t calls, ns, max_ns;
  cause_t *causes;
  size_t ncauses;
} group_t;

static int by = BY_STATE;

static int
same_group (const group_t *g, int kind, int32_t state, int32_t rank,
            uint32_t comm)
{
  switch (by)
    {
    case BY_RANK:
      return g->rank == rank;
    case BY_COMM:
      return g->comm == comm;
    default:
      return g->kind == kind && g->state == state && g->comm == comm;
    }
}

static group_t *
find_group (group_t *g, size_t n, int kind, int32_t state, int32_t rank,
            uint32_t comm)
{
  for (size_t i = 0; i < n; i++)
    if (same_group (&g[i], kind, state, rank, comm))
      return &g[i];
  return NULL;
}

static int
add_rank (group_t *g, int32_t r)
{
  for (size_t i = 0; i < g->nranks; i++)
    if (g->ranks[i] == r)
      return 0;
  int32_t *nv = realloc (g->ranks, (g->nranks + 1) * sizeof *nv);
  if (nv == NULL)
    return -1;
  g->ranks = nv;
  g->ranks[g->nranks++] = r;
  return 0;
}

static int
add_cause (group_t *g, int32_t rank, int32_t state, uint64_t ns)
{
  for (size_t i = 0; i < g->ncauses; i++)
    if (g->causes[i].rank == rank && g->causes[i].state == state)
      {
        g->causes[i].ns += ns;
        return 0;
      }
  cause_t *nv = realloc (g->causes, (g->ncauses + 1) * sizeof *nv);
  if (nv == NULL)
    return -1;
  g->causes = nv;
  g->causes[g->ncauses++] = (cause_t) { rank, state, ns };
  return 0;
}

static int
cmp_i32 (const void *a, const void *b)
{
  int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;
  return (x > y) - (x < y);
}

static int
cmp_cause (const void *a, const void *b)
{
  const cause_t *x = a, *y = b;
  if (x->ns != y->ns)
    return x->ns < y->ns ? 1 : -1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

static int
cmp_group (const void *a, const void *b)
{
  const group_t *x = a, *y = b;
  if (x->ns != y->ns)
    return x->ns < y->ns ? 1 : -1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Groups the rows and their causes under --by; *out sorted. */
static int
make_groups (const an_waits_t *w, group_t **out, size_t *nout)
{
  group_t *g = calloc (w->nrows ? w->nrows : 1, sizeof *g);
  size_t n = 0;
  if (g == NULL)
    return -1;
  for (size_t i = 0; i < w->nrows; i++)
    {
      const an_wait_row_t *r = &w->rows[i];
      group_t *x = find_group (g, n, r->kind, r->state, r->rank, r->comm);
      if (x == NULL)
        {
          x = &g[n++];
          x->kind = by == BY_STATE ? (int) r->kind : -1;
          x->state = by == BY_STATE ? r->state : -1;
          x->rank = by == BY_RANK ? r->rank : -2;
          x->comm = by == BY_RANK ? -1 : (int64_t) r->comm;
        }
      if (add_rank (x, r->rank) < 0)
        goto fail;
      x->calls += r->calls;
      x->ns += r->wait_ns;
      if (r->max_ns > x->max_ns)
        x->max_ns = r->max_ns;
    }
  for (size_t i = 0; i < w->ncauses; i++)
    {
      const an_wait_cause_t *c = &w->causes[i];
      group_t *x = find_group (g, n, c->kind, c->state, c->rank, c->comm);
      if (x && add_cause (x, c->cause_rank, c->cause_state, c->ns) < 0)
        goto fail;
    }
  for (size_t i = 0; i < n; i++)
    {
      qsort (g[i].ranks, g[i].nranks, sizeof *g[i].ranks, cmp_i32);
      if (g[i].ncauses)
        qsort (g[i].causes, g[i].ncauses, sizeof *g[i].causes, cmp_cause);
    }
  if (n)
    qsort (g, n, sizeof *g, cmp_group);
  *out = g;
  *nout = n;
  return 0;
fail:
  for (size_t i = 0; i < n; i++)
    {
      free (g[i].ranks);
      free (g[i].causes);
    }
  free (g);
  return -1;
}

static const char *
state_name (const logfmt_reader_t *r, int32_t s)
{
  if (s < 0)
    return "(outside states)";
  const logfmt_state_def_t *d = logfmt_reader_state (r, (size_t) s);
  return d && d->name ? d->name : "?";
}

static const char *
comm_name (const logfmt_reader_t *r, int64_t comm, char *buf)
{
  if (comm < 0)
    return "(several)";
  for (size_t i = 0; i < logfmt_reader_n_comms (r); i++)
    {
      const logfmt_comm_def_t *d = logfmt_reader_comm (r, i);
      if (d->id == (uint32_t) comm)
        {
          if (d->name && *d->name)
            return d->name;
          break;
        }
    }
  snprintf (buf, 32, "0x%08" PRIx32, (uint32_t) comm);
  return buf;
}

/* "0-2,5" */
static void
put_ranks (FILE *f, const group_t *g)
{
  for (size_t i = 0; i < g->nranks;)
    {
      size_t e = i;
      while (e + 1 < g->nranks && g->ranks[e + 1] == g->ranks[e] + 1)
        e++;
      fprintf (f, "%s%" PRId32, i ? "," : "", g->ranks[i]);
      if (e > i)
        fprintf (f, "-%" PRId32, g->ranks[e]);
      i = e + 1;
    }
}

static void
print_table (const logfmt_reader_t *r, const an_waits_t *w,
             const group_t *g, size_t n)
{
  char cb[32];
  printf ("Waiting in MPI: %.6f s in all (%" PRIu64 " messages, %" PRIu64
          " collectives matched)\n", (double) w->total_ns / 1e9,
          w->messages, w->collectives);
  if (n == 0)
    fputs ("No wait states found.\n", stdout);
  for (size_t i = 0; i < n; i++)
    {
      const group_t *x = &g[i];
      fputs ("\n", stdout);
      if (by == BY_RANK)
        printf ("rank %" PRId32 " waits", x->rank);
      else if (by == BY_COMM)
        printf ("%s waits", comm_name (r, x->comm, cb));
      else
        {
          printf ("%s: ", an_wait_kind_name ((an_wait_kind_t) x->kind));
          clogtool__put_text (stdout, state_name (r, x->state), 0);
          printf (" on %s waits", comm_name (r, x->comm, cb));
        }
      printf (" %.6f s (%.1f%%) in %" PRIu64 " calls",
              (double) x->ns / 1e9,
              w->total_ns ? 100.0 * (double) x->ns / (double) w->total_ns
                          : 0.0, x->calls);
      if (by != BY_RANK)
        {
          printf (" on rank%s ", x->nranks > 1 ? "s" : "");
          put_ranks (stdout, x);
        }
      printf (", at most %.6f s at once\n", (double) x->max_ns / 1e9);
      if (x->ncauses == 0)
        fputs ("  cause: no extra time of the rank waited for since its "
               "previous MPI call\n", stdout);
      for (size_t k = 0; k < x->ncauses && k < 5; k++)
        {
          fputs ("  caused by ", stdout);
          clogtool__put_text (stdout, state_name (r, x->causes[k].state), 0);
          printf (" on rank %" PRId32 ": %.6f s\n", x->causes[k].rank,
                  (double) x->causes[k].ns / 1e9);
        }
      if (x->ncauses > 5)
        printf ("  ... and %zu more causes\n", x->ncauses - 5);
    }
}

static void
print_csv (const logfmt_reader_t *r, const group_t *g, size_t n)
{
  char cb[32];
  fputs ("kind,function,comm,ranks,calls,wait_s,max_s,causes\n", stdout);
  for (size_t i = 0; i < n; i++)
    {
      const group_t *x = &g[i];
      clogtool__csv_string (stdout, x->kind < 0 ? ""
                            : an_wait_kind_name ((an_wait_kind_t) x->kind));
      putchar (',');
      clogtool__csv_string (stdout, x->state < 0 ? ""
                                    : state_name (r, x->state));
      putchar (',');
      clogtool__csv_string (stdout, x->comm < 0 ? ""
                                    : comm_name (r, x->comm, cb));
      fputs (",\"", stdout);
      put_ranks (stdout, x);
      printf ("\",%" PRIu64 ",%.9f,%.9f,\"", x->calls, (double) x->ns / 1e9,
              (double) x->max_ns / 1e9);
      for (size_t k = 0; k < x->ncauses; k++)
        {
          const char *s = state_name (r, x->causes[k].state);
          printf ("%s", k ? ";" : "");
          for (; *s; s++)
            if (*s == '"')
              fputs ("\"\"", stdout);
            else
              putchar (*s);
          printf ("@%" PRId32 "=%.9f", x->causes[k].rank,
                  (double) x->causes[k].ns / 1e9);
        }
      fputs ("\"\n", stdout);
    }
}

static void
print_json (const logfmt_reader_t *r, const an_waits_t *w, const group_t *g,
            size_t n)
{
  char cb[32];
  static const char *const bys[] = { "state", "rank", "comm" };
  printf ("{\"by\": \"%s\", \"total_ns\": %" PRIu64 ", \"total_s\": %.9f",
          bys[by], w->total_ns, (double) w->total_ns / 1e9);
  printf (", \"messages\": %" PRIu64 ", \"unmatched_receives\": %" PRIu64
          ", \"collectives\": %" PRIu64 ", \"incomplete_collectives\": %"
          PRIu64 ", \"peak_pending\": %" PRIu64 ",\n \"groups\": [",
          w->messages, w->unmatched, w->collectives, w->incomplete,
          w->peak_pending);
  for (size_t i = 0; i < n; i++)
    {
      const group_t *x = &g[i];
      printf ("%s\n  {\"kind\": ", i ? "," : "");
      if (x->kind < 0)
        fputs ("null", stdout);
      else
        clogtool__json_string (stdout,
                               an_wait_kind_name ((an_wait_kind_t) x->kind));
      fputs (", \"function\": ", stdout);
      if (x->state < 0)
        fputs ("null", stdout);
      else
        clogtool__json_string (stdout, state_name (r, x->state));
      if (x->comm < 0)
        fputs (", \"comm\": null, \"comm_name\": null", stdout);
      else
        {
          printf (", \"comm\": %" PRId64 ", \"comm_name\": ", x->comm);
          clogtool__json_string (stdout, comm_name (r, x->comm, cb));
        }
      if (x->rank < 0)
        fputs (", \"rank\": null", stdout);
      else
        printf (", \"rank\": %" PRId32, x->rank);
      fputs (", \"ranks\": [", stdout);
      for (size_t k = 0; k < x->nranks; k++)
        printf ("%s%" PRId32, k ? ", " : "", x->ranks[k]);
      printf ("], \"calls\": %" PRIu64 ", \"wait_ns\": %" PRIu64
              ", \"wait_s\": %.9f, \"max_s\": %.9f,\n   \"causes\": [",
              x->calls, x->ns, (double) x->ns / 1e9,
              (double) x->max_ns / 1e9);
      for (size_t k = 0; k < x->ncauses; k++)
        {
          printf ("%s{\"rank\": %" PRId32 ", \"state\": ", k ? ", " : "",
                  x->causes[k].rank);
          clogtool__json_string (stdout, state_name (r, x->causes[k].state));
          printf (", \"ns\": %" PRIu64 ", \"s\": %.9f}", x->causes[k].ns,
                  (double) x->causes[k].ns / 1e9);
        }
      fputs ("]}", stdout);
    }
  fputs ("]}\n", stdout);
}

int
clogtool_waits_main (int argc, char **argv)
{
  static const struct option opts[] = {
    { "by", required_argument, NULL, 'b' },
    { "json", no_argument, NULL, 'j' },
    { "csv", no_argument, NULL, 'c' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int json = 0, csv = 0, c;

  by = BY_STATE;
  optind = 1;
  while ((c = getopt_long (argc, argv, ":b:jh", opts, NULL)) != -1)
    {
      switch (c)
        {
        case 'b':
          if (strcmp (optarg, "state") == 0)
            by = BY_STATE;
          else if (strcmp (optarg, "rank") == 0)
            by = BY_RANK;
          else if (strcmp (optarg, "comm") == 0)
            by = BY_COMM;
          else
            return clogtool__usage_error ("waits", "--by takes state, rank "
                                          "or comm, not '%s'", optarg);
          break;
        case 'j':
          json = 1;
          break;
        case 'c':
          csv = 1;
          break;
        case 'h':
          waits_help ();
          return clogtool__exit_after_output ();
        default:
          return clogtool__bad_option ("waits", c, argv);
        }
    }
  if (json && csv)
    return clogtool__usage_error ("waits", "--json and --csv exclude each "
                                  "other");
  if (clogtool__one_file ("waits", argc) != 0)
    return CLOGTOOL_EXIT_USAGE;

  const char *path = argv[optind];
  logfmt_reader_t *r = clogtool__open (path);
  if (r == NULL)
    return CLOGTOOL_EXIT_PROBLEM;
  an_waits_t *w = NULL;
  logfmt_error_t err = { 0 };
  int rc = an_waits_compute (r, NULL, &w, &err);
  if (rc < 0)
    {
      clogtool__lib_error (path, rc, &err);
      logfmt_reader_close (r);
      return CLOGTOOL_EXIT_PROBLEM;
    }
  group_t *g = NULL;
  size_t n = 0;
  int status = CLOGTOOL_EXIT_OK;
  if (make_groups (w, &g, &n) < 0)
    {
      clogtool__error ("out of memory");
      status = CLOGTOOL_EXIT_PROBLEM;
    }
  else
    {
      if (json)
        print_json (r, w, g, n);
      else if (csv)
        print_csv (r, g, n);
      else
        print_table (r, w, g, n);
      if (clogtool__flush_stdout () < 0)
        status = CLOGTOOL_EXIT_PROBLEM;
    }
  for (size_t i = 0; i < n; i++)
    {
      free (g[i].ranks);
      free (g[i].causes);
    }
  free (g);
  an_waits_free (w);
  logfmt_reader_close (r);
  return status;
}

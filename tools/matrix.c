/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool matrix: who sent how much to whom (analysis/an-matrix.c),
 * as a table, CSV or JSON. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "clogtool.h"
#include "clogtool-internal.h"

static void
matrix_help (void)
{
  fputs (
    "Usage: clogtool matrix [--json|--csv] [--from T0] [--to T1]\n"
    "                       [--comm ID [--local]] [--by count|bytes|time]\n"
    "                       FILE\n"
    "\n"
    "Prints the communication matrix of the point-to-point messages:\n"
    "one row per sending world rank, one column per receiving world\n"
    "rank, each cell the number of messages (or bytes, or time) from\n"
    "the row's rank to the column's.  A message counts in the window\n"
    "if its send was logged in it (or its receive, when the send was\n"
    "not logged).  Ranks 0 up to the highest rank present (a thread's\n"
    "or a message end's) are shown, however large the stated world.  Then the collectives, per communicator and MPI\n"
    "function: calls (summed over the ranks), bytes sent and received\n"
    "as the ranks' arguments describe them, and time inside the calls\n"
    "(summed over the ranks); and the communicators the log defines.\n"
    "\n"
    "Options:\n"
    "  -j, --json          one JSON object (every quantity)\n"
    "      --csv           the matrix as CSV: from,to,count,bytes,time_s\n"
    "                      (non-empty cells only)\n"
    "  -f, --from T0       only messages and calls from T0 on\n"
    "  -T, --to T1         only up to T1\n"
    "  -c, --comm ID       only messages on communicator ID (decimal,\n"
    "                      0x hex, or 'world'; IDs are listed at the end\n"
    "                      of the table and under \"communicators\")\n"
    "  -l, --local         with --comm: rows and columns are the ranks\n"
    "                      within the communicator, not world ranks\n"
    "  -b, --by WHAT       what the table shows: count (default), bytes,\n"
    "                      time (seconds from send to receive, summed)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Times take a unit (1.5s, 20ms, 300us, 100ns; plain = seconds).\n"
    "\n"
    "The communication topology of a sub-communicator (who talks to\n"
    "whom on it, with volumes) is 'clogtool matrix --comm ID --local\n"
    "FILE': ID from the communicator list, rows and columns its ranks.\n"
    "\n"
    "JSON keys: ranks (rows = columns), from, to (window, s), comm\n"
    "(or null), local, members (world rank of each row, with --comm),\n"
    "count, bytes, time_s (ranks x ranks arrays, [sender][receiver]),\n"
    "messages, total_bytes, unmatched_sends, unmatched_recvs,\n"
    "collectives [{comm, name, size, calls, bytes_sent, bytes_recv,\n"
    "time_s, functions [{name, calls, bytes_sent, bytes_recv,\n"
    "time_s}]}], collectives_without_cargo, communicators [{id, name,\n"
    "kind, size, ranks}].\n"
    "\n"
    "Exit status: 0 success, 1 error, 2 bad usage.\n", stdout);
}

enum { BY_COUNT, BY_BYTES, BY_TIME };

/* The rows shown: world ranks, or one communicator's members. */
typedef struct
{
  uint32_t n;
  const int32_t *members;   /* local -> world rank; NULL: identity */
  an_cell_t *cells;         /* renumbered and sorted, when local */
  size_t ncells;
} view_t;

static int
cmp_cell (const void *a, const void *b)
{
  const an_cell_t *x = a, *y = b;
  if (x->from != y->from)
    return (x->from > y->from) - (x->from < y->from);
  return (x->to > y->to) - (x->to < y->to);
}

static int32_t
local_rank (const logfmt_comm_def_t *d, int32_t world)
{
  for (uint32_t i = 0; i < d->size; i++)
    if (d->ranks[i] == world)
      return (int32_t) i;
  return -1;
}

/* The matrix renumbered by the communicator's ranks. */
static int
make_local (const an_matrix_t *m, const logfmt_comm_def_t *d, view_t *v)
{
  v->n = d->size;
  v->members = d->ranks;
  v->cells = malloc ((m->ncells ? m->ncells : 1) * sizeof *v->cells);
  v->ncells = 0;
  if (v->cells == NULL)
    return -1;
  for (size_t i = 0; i < m->ncells; i++)
    {
      an_cell_t c = m->cells[i];
      c.from = local_rank (d, c.from);
      c.to = local_rank (d, c.to);
      if (c.from >= 0 && c.to >= 0)
        v->cells[v->ncells++] = c;
    }
  qsort (v->cells, v->ncells, sizeof *v->cells, cmp_cell);
  return 0;
}

static void
put_value (const an_cell_t *c, int by)
{
  char tb[32];
  if (by == BY_COUNT)
    printf ("%" PRIu64, c ? c->count : 0);
  else if (by == BY_BYTES)
    printf ("%" PRIu64, c ? c->bytes : 0);
  else
    fputs (clogtool__fmt_time (c ? c->time_ns : 0, tb), stdout);
}

/* One JSON array of arrays, walking the sorted sparse cells. */
static void
json_dense (const view_t *v, int by)
{
  size_t k = 0;
  fputs ("[", stdout);
  for (uint32_t i = 0; i < v->n; i++)
    {
      fputs (i ? ",\n  [" : "\n  [", stdout);
      for (uint32_t j = 0; j < v->n; j++)
        {
          const an_cell_t *c = NULL;
          if (k < v->ncells && v->cells[k].from == (int32_t) i
              && v->cells[k].to == (int32_t) j)
            c = &v->cells[k++];
          if (j)
            putchar (',');
          put_value (c, by);
        }
      putchar (']');
    }
  fputs ("]", stdout);
}

static const char *
comm_name (const logfmt_comm_def_t *d)
{
  if (d == NULL)
    return NULL;
  if (d->name)
    return d->name;
  return d->id == 0 ? "MPI_COMM_WORLD" : NULL;
}

static void
print_json (const logfmt_reader_t *r, const an_matrix_t *m, const view_t *v,
            const an_matrix_opts_t *o)
{
  char tb[32];
  printf ("{\"ranks\": %" PRIu32 ",\n\"from\": %s", v->n,
          clogtool__fmt_time (o->t0, tb));
  if (o->t1 == UINT64_MAX)
    fputs (", \"to\": null", stdout);
  else
    printf (", \"to\": %s", clogtool__fmt_time (o->t1, tb));
  if (o->by_comm)
    printf (",\n\"comm\": %" PRIu32, o->comm);
  else
    fputs (",\n\"comm\": null", stdout);
  printf (", \"local\": %s", v->members ? "true" : "false");
  if (v->members)
    {
      fputs (", \"members\": [", stdout);
      for (uint32_t i = 0; i < v->n; i++)
        printf ("%s%" PRId32, i ? "," : "", v->members[i]);
      putchar (']');
    }
  fputs (",\n\"count\": ", stdout);
  json_dense (v, BY_COUNT);
  fputs (",\n\"bytes\": ", stdout);
  json_dense (v, BY_BYTES);
  fputs (",\n\"time_s\": ", stdout);
  json_dense (v, BY_TIME);
  printf (",\n\"messages\": %" PRIu64 ", \"total_bytes\": %" PRIu64
          ", \"unmatched_sends\": %" PRIu64 ", \"unmatched_recvs\": %"
          PRIu64 ",\n\"collectives\": [", m->messages, m->bytes,
          m->unmatched_sends, m->unmatched_recvs);
  for (size_t i = 0; i < m->ncomms; i++)
    {
      const an_coll_comm_t *c = &m->comms[i];
      printf ("%s\n  {\"comm\": %" PRIu32 ", \"name\": ", i ? "," : "",
              c->id);
      if (comm_name (c->def))
        clogtool__json_string (stdout, comm_name (c->def));
      else
        fputs ("null", stdout);
      if (c->def)
        printf (", \"size\": %" PRIu32, c->def->size);
      else
        fputs (", \"size\": null", stdout);
      printf (", \"calls\": %" PRIu64 ", \"bytes_sent\": %" PRIu64
              ", \"bytes_recv\": %" PRIu64 ", \"time_s\": %s,\n"
              "   \"functions\": [", c->calls, c->bytes_sent, c->bytes_recv,
              clogtool__fmt_time (c->time_ns, tb));
      for (size_t k = 0; k < c->nfuncs; k++)
        {
          const an_coll_func_t *f = &c->funcs[k];
          printf ("%s{\"name\": ", k ? ", " : "");
          clogtool__json_string (stdout, f->name);
          printf (", \"calls\": %" PRIu64 ", \"bytes_sent\": %" PRIu64
                  ", \"bytes_recv\": %" PRIu64 ", \"time_s\": %s}",
                  f->calls, f->bytes_sent, f->bytes_recv,
                  clogtool__fmt_time (f->time_ns, tb));
        }
      fputs ("]}", stdout);
    }
  printf ("],\n\"collectives_without_cargo\": %" PRIu64
          ",\n\"communicators\": [", m->coll_no_cargo);
  size_t nc = logfmt_reader_n_comms (r);
  for (size_t i = 0; i < nc; i++)
    {
      const logfmt_comm_def_t *d = logfmt_reader_comm (r, i);
      printf ("%s\n  {\"id\": %" PRIu32 ", \"name\": ", i ? "," : "", d->id);
      if (comm_name (d))
        clogtool__json_string (stdout, comm_name (d));
      else
        fputs ("null", stdout);
      printf (", \"kind\": \"%s\", \"size\": %" PRIu32 ", \"ranks\": ",
              d->kind == 0 ? "inter" : "intra", d->size);
      if (d->ranks)
        {
          putchar ('[');
          for (uint32_t k = 0; k < d->size; k++)
            printf ("%s%" PRId32, k ? "," : "", d->ranks[k]);
          putchar (']');
        }
      else
        fputs ("null", stdout);
      putchar ('}');
    }
  fputs ("]}\n", stdout);
}

static void
print_csv (const view_t *v)
{
  char tb[32];
  puts ("from,to,count,bytes,time_s");
  for (size_t i = 0; i < v->ncells; i++)
    printf ("%" PRId32 ",%" PRId32 ",%" PRIu64 ",%" PRIu64 ",%s\n",
            v->cells[i].from, v->cells[i].to, v->cells[i].count,
            v->cells[i].bytes, clogtool__fmt_time (v->cells[i].time_ns, tb));
}

static void
print_table (const logfmt_reader_t *r, const an_matrix_t *m, const view_t *v,
             int by)
{
  static const char *const what[] = { "messages", "bytes",
                                      "seconds from send to receive" };
  char tb[32];
  printf ("%" PRIu64 " messages, %" PRIu64 " bytes; unmatched: %" PRIu64
          " sends, %" PRIu64 " receives\n", m->messages, m->bytes,
          m->unmatched_sends, m->unmatched_recvs);
  printf ("cells: %s from the row's %s rank to the column's\n\n", what[by],
          v->members ? "local" : "world");
  int width = by == BY_TIME ? 13 : 10;
  printf ("%8s", "from\\to");
  for (uint32_t j = 0; j < v->n; j++)
    printf (" %*" PRIu32, width, j);
  putchar ('\n');
  size_t k = 0;
  for (uint32_t i = 0; i < v->n; i++)
    {
      printf ("%8" PRIu32, i);
      for (uint32_t j = 0; j < v->n; j++)
        {
          const an_cell_t *c = NULL;
          if (k < v->ncells && v->cells[k].from == (int32_t) i
              && v->cells[k].to == (int32_t) j)
            c = &v->cells[k++];
          if (by == BY_TIME)
            printf (" %*s", width, clogtool__fmt_time (c ? c->time_ns : 0,
                                                       tb));
          else
            printf (" %*" PRIu64, width,
                    c ? (by == BY_COUNT ? c->count : c->bytes) : 0);
        }
      putchar ('\n');
    }
  if (m->ncomms)
    {
      printf ("\n%-10s %-24s %6s %-20s %10s %14s %14s %14s\n", "comm",
              "name", "size", "function", "calls", "bytes_sent",
              "bytes_recv", "time_s");
      for (size_t i = 0; i < m->ncomms; i++)
        {
          const an_coll_comm_t *c = &m->comms[i];
          for (size_t fi = 0; fi <= c->nfuncs; fi++)
            {
              /* The functions, then the communicator's total. */
              int total = fi == c->nfuncs;
              const an_coll_func_t *f = total ? NULL : &c->funcs[fi];
              char id[16], sz[16];
              snprintf (id, sizeof id, "0x%08" PRIx32, c->id);
              if (c->def)
                snprintf (sz, sizeof sz, "%" PRIu32, c->def->size);
              else
                strcpy (sz, "?");
              printf ("%-10s ", id);
              clogtool__put_text (stdout, comm_name (c->def)
                                  ? comm_name (c->def) : "-", 24);
              printf (" %6s ", sz);
              clogtool__put_text (stdout, total ? "(all)" : f->name, 20);
              printf (" %10" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14s\n",
                      total ? c->calls : f->calls,
                      total ? c->bytes_sent : f->bytes_sent,
                      total ? c->bytes_recv : f->bytes_recv,
                      clogtool__fmt_time (total ? c->time_ns : f->time_ns,
                                          tb));
            }
        }
    }
  if (m->coll_no_cargo)
    printf ("(%" PRIu64 " collective calls without the wrappers' cargo: "
            "communicator and bytes unknown)\n", m->coll_no_cargo);
  size_t nc = logfmt_reader_n_comms (r);
  if (nc)
    {
      printf ("\n%-10s %-5s %6s %-24s %s\n", "comm", "kind", "size", "name",
              "world ranks");
      for (size_t i = 0; i < nc; i++)
        {
          const logfmt_comm_def_t *d = logfmt_reader_comm (r, i);
          printf ("0x%08" PRIx32 " %-5s %6" PRIu32 " ", d->id,
                  d->kind == 0 ? "inter" : "intra", d->size);
          clogtool__put_text (stdout, comm_name (d) ? comm_name (d) : "-",
                              24);
          if (d->ranks == NULL)
            fputs (" (all)", stdout);
          for (uint32_t j = 0; d->ranks && j < d->size && j < 32; j++)
            printf (" %" PRId32, d->ranks[j]);
          if (d->ranks && d->size > 32)
            fputs (" ...", stdout);
          putchar ('\n');
        }
    }
}

static int
parse_comm (const char *s, uint32_t *id)
{
  if (strcmp (s, "world") == 0 || strcmp (s, "MPI_COMM_WORLD") == 0)
    {
      *id = 0;
      return 0;
    }
  char *end = NULL;
  if (*s == '-' || *s == '\0')
    return -1;
  unsigned long long v = strtoull (s, &end, 0);
  if (*end != '\0' || v > UINT32_MAX)
    return -1;
  *id = (uint32_t) v;
  return 0;
}

int
clogtool_matrix_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "json", no_argument, NULL, 'j' },
    { "csv", no_argument, NULL, 'C' },
    { "from", required_argument, NULL, 'f' },
    { "to", required_argument, NULL, 'T' },
    { "comm", required_argument, NULL, 'c' },
    { "local", no_argument, NULL, 'l' },
    { "by", required_argument, NULL, 'b' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int json = 0, csv = 0, local = 0, by = BY_COUNT, c;
  an_matrix_opts_t o;

  an_matrix_opts_init (&o);
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":jf:T:c:lb:h", longopts, NULL))
         != -1)
    {
      switch (c)
        {
        case 'j':
          json = 1;
          break;
        case 'C':
          csv = 1;
          break;
        case 'f':
        case 'T':
          if (clogtool__parse_time (optarg, c == 'f' ? &o.t0 : &o.t1) < 0)
            return clogtool__usage_error ("matrix", "bad time '%s'", optarg);
          break;
        case 'c':
          if (parse_comm (optarg, &o.comm) < 0)
            return clogtool__usage_error ("matrix", "bad communicator id "
                                          "'%s'", optarg);
          o.by_comm = 1;
          break;
        case 'l':
          local = 1;
          break;
        case 'b':
          if (strcmp (optarg, "count") == 0)
            by = BY_COUNT;
          else if (strcmp (optarg, "bytes") == 0)
            by = BY_BYTES;
          else if (strcmp (optarg, "time") == 0)
            by = BY_TIME;
          else
            return clogtool__usage_error ("matrix", "--by takes count, "
                                          "bytes or time, not '%s'", optarg);
          break;
        case 'h':
          matrix_help ();
          return clogtool__exit_after_output ();
        default:
          return clogtool__bad_option ("matrix", c, argv);
        }
    }
  if (json && csv)
    return clogtool__usage_error ("matrix", "--json and --csv exclude each "
                                  "other");
  if (local && !o.by_comm)
    return clogtool__usage_error ("matrix", "--local needs --comm");
  if (o.t0 > o.t1)
    return clogtool__usage_error ("matrix", "--from is after --to");
  if (clogtool__one_file ("matrix", argc) != 0)
    return CLOGTOOL_EXIT_USAGE;

  const char *path = argv[optind];
  logfmt_reader_t *r = clogtool__open (path);
  if (r == NULL)
    return CLOGTOOL_EXIT_PROBLEM;
  int status = CLOGTOOL_EXIT_OK;
  const logfmt_comm_def_t *def = NULL;
  if (o.by_comm)
    {
      for (size_t i = 0; i < logfmt_reader_n_comms (r); i++)
        if (logfmt_reader_comm (r, i)->id == o.comm)
          def = logfmt_reader_comm (r, i);
      if (def == NULL && o.comm != 0)
        {
          clogtool__error ("%s: no communicator 0x%08" PRIx32
                           " (see the list at the end of 'clogtool matrix "
                           "FILE')", path, o.comm);
          logfmt_reader_close (r);
          return CLOGTOOL_EXIT_PROBLEM;
        }
    }
  an_matrix_t *m = NULL;
  logfmt_error_t err = { 0 };
  o.collectives = !csv;
  int rc = an_matrix_compute (r, &o, &m, &err);
  if (rc < 0)
    {
      clogtool__lib_error (path, rc, &err);
      logfmt_reader_close (r);
      return CLOGTOOL_EXIT_PROBLEM;
    }
  /* Rows and columns for the ranks present (a stream's or a message
   * end's), not for a stated world that may be far larger. */
  uint32_t n = clogtool__ranks_present (r);
  for (size_t i = 0; i < m->ncells; i++)
    {
      if (m->cells[i].from >= 0 && (uint32_t) m->cells[i].from >= n)
        n = (uint32_t) m->cells[i].from + 1;
      if (m->cells[i].to >= 0 && (uint32_t) m->cells[i].to >= n)
        n = (uint32_t) m->cells[i].to + 1;
    }
  view_t v = { .n = n < m->nranks ? n : m->nranks, .cells = m->cells,
               .ncells = m->ncells };
  if (local && def && def->ranks)
    {
      if (make_local (m, def, &v) < 0)
        {
          clogtool__error ("out of memory");
          status = CLOGTOOL_EXIT_PROBLEM;
          goto out;
        }
    }
  if (json)
    print_json (r, m, &v, &o);
  else if (csv)
    print_csv (&v);
  else
    print_table (r, m, &v, by);
  if (clogtool__flush_stdout () < 0)
    status = CLOGTOOL_EXIT_PROBLEM;
out:
  if (v.cells != m->cells)
    free (v.cells);
  an_matrix_free (m);
  logfmt_reader_close (r);
  return status;
}

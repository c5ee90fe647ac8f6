/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool critical-path: the chain of work and waits that decided the
 * run's end (analysis/an-critpath.c), by rank and state. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "clogtool.h"
#include "clogtool-internal.h"

static void
critpath_help (void)
{
  fputs (
    "Usage: clogtool critical-path [--json] FILE\n"
    "\n"
    "Follows the run backwards from the end of the rank that finished\n"
    "last: along that rank's own time until it waited in MPI (a wait of\n"
    "clogtool waits), then on the rank it waited for from the moment\n"
    "the wait ended, and so on to the start.  Prints the time on that\n"
    "path by rank and innermost state, largest first, then per rank\n"
    "and per state: what shortening would shorten the run.\n"
    "\n"
    "Options:\n"
    "  -j, --json   one JSON object: length_ns, t_end, rank_end,\n"
    "               segments, waits, items [{rank, state, ns, share}],\n"
    "               ranks [{rank, ns}], states [{state, ns}]\n"
    "  -h, --help   show this help\n"
    "\n"
    "Exit status: 0 success, 1 error, 2 bad usage.\n",
    stdout);
}

static const char *
state_name (const logfmt_reader_t *r, int32_t s)
{
  if (s < 0)
    return "(outside states)";
  const logfmt_state_def_t *d = logfmt_reader_state (r, (size_t) s);
  return d && d->name ? d->name : "?";
}

typedef struct
{
  int32_t key;
  uint64_t ns;
} tot_t;

static int
cmp_tot (const void *a, const void *b)
{
  const tot_t *x = a, *y = b;
  if (x->ns != y->ns)
    return x->ns < y->ns ? 1 : -1;
  return (x->key > y->key) - (x->key < y->key);
}

/* Totals of the items by rank (by_rank) or by state; *n entries. */
static tot_t *
totals (const an_critpath_t *p, int by_rank, size_t *n)
{
  tot_t *t = calloc (p->nitems ? p->nitems : 1, sizeof *t);
  *n = 0;
  if (t == NULL)
    return NULL;
  for (size_t i = 0; i < p->nitems; i++)
    {
      int32_t k = by_rank ? p->items[i].rank : p->items[i].state;
      size_t j = 0;
      while (j < *n && t[j].key != k)
        j++;
      if (j == *n)
        t[(*n)++] = (tot_t) { k, 0 };
      t[j].ns += p->items[i].ns;
    }
  if (*n)
    qsort (t, *n, sizeof *t, cmp_tot);
  return t;
}

static double
share (uint64_t a, uint64_t b)
{
  return b ? (double) a / (double) b : 0.0;
}

int
clogtool_critpath_main (int argc, char **argv)
{
  static const struct option opts[] = {
    { "json", no_argument, NULL, 'j' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int json = 0, c;

  optind = 1;
  while ((c = getopt_long (argc, argv, ":jh", opts, NULL)) != -1)
    {
      switch (c)
        {
        case 'j':
          json = 1;
          break;
        case 'h':
          critpath_help ();
          return clogtool__exit_after_output ();
        default:
          return clogtool__bad_option ("critical-path", c, argv);
        }
    }
  if (clogtool__one_file ("critical-path", argc) != 0)
    return CLOGTOOL_EXIT_USAGE;
  const char *path = argv[optind];
  logfmt_reader_t *r = clogtool__open (path);
  if (r == NULL)
    return CLOGTOOL_EXIT_PROBLEM;
  an_critpath_t *p = NULL;
  logfmt_error_t err = { 0 };
  int rc = an_critpath_compute (r, &p, &err);
  if (rc < 0)
    {
      clogtool__lib_error (path, rc, &err);
      logfmt_reader_close (r);
      return CLOGTOOL_EXIT_PROBLEM;
    }
  size_t nr = 0, ns = 0;
  tot_t *byr = totals (p, 1, &nr), *bys = totals (p, 0, &ns);
  int status = CLOGTOOL_EXIT_OK;
  if (byr == NULL || bys == NULL)
    {
      clogtool__error ("out of memory");
      status = CLOGTOOL_EXIT_PROBLEM;
    }
  else if (json)
    {
      printf ("{\"length_ns\": %" PRIu64 ", \"t_end\": %" PRIu64
              ", \"rank_end\": %" PRId32 ", \"segments\": %zu, \"waits\": %"
              PRIu64 ",\n \"items\": [", p->length_ns, p->t_end,
              p->rank_end, p->segments, p->waits);
      for (size_t i = 0; i < p->nitems; i++)
        {
          printf ("%s\n  {\"rank\": %" PRId32 ", \"state\": ", i ? "," : "",
                  p->items[i].rank);
          clogtool__json_string (stdout, state_name (r, p->items[i].state));
          printf (", \"ns\": %" PRIu64 ", \"share\": %.6f}", p->items[i].ns,
                  share (p->items[i].ns, p->length_ns));
        }
      fputs ("],\n \"ranks\": [", stdout);
      for (size_t i = 0; i < nr; i++)
        printf ("%s{\"rank\": %" PRId32 ", \"ns\": %" PRIu64 "}",
                i ? ", " : "", byr[i].key, byr[i].ns);
      fputs ("],\n \"states\": [", stdout);
      for (size_t i = 0; i < ns; i++)
        {
          fputs (i ? ", {\"state\": " : "{\"state\": ", stdout);
          clogtool__json_string (stdout, state_name (r, bys[i].key));
          printf (", \"ns\": %" PRIu64 "}", bys[i].ns);
        }
      fputs ("]}\n", stdout);
    }
  else
    {
      printf ("Critical path: %.6f s, ending on rank %" PRId32 " at %.6f s, "
              "%zu stretches (%" PRIu64 " waits read)\n\n",
              (double) p->length_ns / 1e9, p->rank_end,
              (double) p->t_end / 1e9, p->segments, p->waits);
      printf ("%14s %7s %6s  %s\n", "time_s", "share", "rank", "state");
      for (size_t i = 0; i < p->nitems && i < 20; i++)
        {
          printf ("%14.6f %6.1f%% %6" PRId32 "  ",
                  (double) p->items[i].ns / 1e9,
                  100 * share (p->items[i].ns, p->length_ns),
                  p->items[i].rank);
          clogtool__put_text (stdout, state_name (r, p->items[i].state), 0);
          putchar ('\n');
        }
      if (p->nitems > 20)
        printf ("... and %zu more\n", p->nitems - 20);
      printf ("\nPer rank\n%14s %7s %6s\n", "time_s", "share", "rank");
      for (size_t i = 0; i < nr; i++)
        printf ("%14.6f %6.1f%% %6" PRId32 "\n", (double) byr[i].ns / 1e9,
                100 * share (byr[i].ns, p->length_ns), byr[i].key);
      printf ("\nPer state\n%14s %7s  %s\n", "time_s", "share", "state");
      for (size_t i = 0; i < ns; i++)
        {
          printf ("%14.6f %6.1f%%  ", (double) bys[i].ns / 1e9,
                  100 * share (bys[i].ns, p->length_ns));
          clogtool__put_text (stdout, state_name (r, bys[i].key), 0);
          putchar ('\n');
        }
    }
  if (status == CLOGTOOL_EXIT_OK && clogtool__flush_stdout () < 0)
    status = CLOGTOOL_EXIT_PROBLEM;
  free (byr);
  free (bys);
  an_critpath_free (p);
  logfmt_reader_close (r);
  return status;
}

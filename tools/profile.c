/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool profile: an mpiP-style report (analysis/an-profile.c) for the
 * whole application or one process, as a table, CSV or JSON. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "clogtool.h"
#include "clogtool-internal.h"

static void
profile_help (void)
{
  fputs (
    "Usage: clogtool profile [--json|--csv] [--rank R] [--from T0]\n"
    "                        [--to T1] FILE\n"
    "\n"
    "Prints where the time went, like mpiP: per MPI function (the states\n"
    "named MPI_*, as the automatic wrappers log them) and per user state\n"
    "(every other state): calls, total, mean, minimum and maximum time\n"
    "of one call, share of the application time (each rank's first to\n"
    "last record, summed over the ranks), bytes, and the imbalance\n"
    "across ranks: the least, mean and most time one rank spent in it,\n"
    "with the ranks that hold the least and the most.  Then the message\n"
    "sizes of each function, and each rank's application and MPI time.\n"
    "Times are inclusive (a call's end minus its start), summed over the\n"
    "ranks and threads; states pair as FORMAT.md section 13 says.\n"
    "\n"
    "Bytes: a send or receive record counts for the innermost MPI\n"
    "function open around it (and the innermost user state); a\n"
    "collective logged by the wrappers counts the bytes its arguments\n"
    "describe, sent and received by each rank, and so do one-sided data\n"
    "calls (put: sent, get: received) and MPI-IO reads and writes.\n"
    "Message sizes are histogrammed in powers of two: one sample per\n"
    "message record and one per collective, one-sided or MPI-IO call\n"
    "(sent + received).\n"
    "\n"
    "Options:\n"
    "  -j, --json      one JSON object\n"
    "      --csv       one line per function or state and rank:\n"
    "                  kind,name,rank,calls,time_s,exclusive_s,\n"
    "                  bytes_sent,bytes_recv (rank 'all': the total)\n"
    "  -r, --rank R    only world rank R: MPE's per-process report\n"
    "  -f, --from T0   only calls starting at or after T0\n"
    "  -T, --to T1     only calls starting at or before T1\n"
    "  -w, --waits     add each MPI function's time waiting for other\n"
    "                  ranks (clogtool waits; a second pass, whole run)\n"
    "  -h, --help      show this help\n"
    "\n"
    "Times take a unit (1.5s, 20ms, 300us, 100ns; plain = seconds).\n"
    "\n"
    "JSON keys: ranks (number), rank (with --rank, else null), app_s,\n"
    "mpi_s, mpi_share, t_first, t_last, functions and states (each\n"
    "[{name, calls, time_s, exclusive_s, mean_s, min_s, max_s, share,\n"
    "bytes, bytes_sent, bytes_recv, imbalance {min_s, min_rank, mean_s,\n"
    "max_s, max_rank}, histogram [{lo, hi, count}] (non-empty bins,\n"
    "bytes in [lo, hi)), counters {NAME: increase, null: no data},\n"
    "per_rank [{rank,\n"
    "calls, time_s, bytes}]}]),\n"
    "per_rank [{rank, app_s, mpi_s, mpi_share}], left_open (calls cut\n"
    "at the end of their thread, not counted), messages_outside_mpi,\n"
    "counters [{name, unit}].\n"
    "\n"
    "Counters: a log recorded with MPE_COUNTERS (mpe(3)) holds each\n"
    "thread's OS and hardware counters, read at samples and chosen\n"
    "points; each function and state gets each counter's increase over\n"
    "its instances (the value at the end minus the value at the start,\n"
    "linear between the two readings around each; instances paired by\n"
    "the same interval rule as the times), summed over the instances\n"
    "that readings enclose (each thread is read when it starts and\n"
    "ends); \"no data\" where none does (per call: over those).\n"
    "\n"
    "Exit status: 0 success, 1 error (or no such rank), 2 bad usage.\n",
    stdout);
}

/* With --waits: per state index, the time its calls waited for other
 * ranks (clogtool waits), or NULL. */
static uint64_t *waiting;

static double
share (uint64_t part, uint64_t whole)
{
  return whole ? (double) part / (double) whole : 0.0;
}

static void
json_entries (const an_profile_t *p, int user)
{
  char tb[32];
  int first = 1;
  for (size_t i = 0; i < p->nentries; i++)
    {
      const an_prof_entry_t *e = &p->entries[i];
      if ((e->cls == AN_STATE_USER) != user)
        continue;
      printf ("%s\n  {\"name\": ", first ? "" : ",");
      first = 0;
      clogtool__json_string (stdout, e->name);
      printf (", \"calls\": %" PRIu64 ", \"time_s\": %s", e->calls,
              clogtool__fmt_time (e->time_ns, tb));
      printf (", \"exclusive_s\": %s", clogtool__fmt_time (e->excl_ns, tb));
      printf (", \"mean_s\": %.9f",
              e->calls ? (double) e->time_ns / (double) e->calls / 1e9 : 0.0);
      printf (", \"min_s\": %s", clogtool__fmt_time (e->min_ns, tb));
      printf (", \"max_s\": %s", clogtool__fmt_time (e->max_ns, tb));
      printf (", \"share\": %.6f", share (e->time_ns, p->app_total_ns));
      if (waiting && !user)
        printf (", \"wait_s\": %s",
                clogtool__fmt_time (waiting[e->state], tb));
      printf (",\n   \"bytes\": %" PRIu64 ", \"bytes_sent\": %" PRIu64
              ", \"bytes_recv\": %" PRIu64, e->bytes_sent + e->bytes_recv,
              e->bytes_sent, e->bytes_recv);
      printf (",\n   \"imbalance\": {\"min_s\": %s, \"min_rank\": %" PRId32,
              clogtool__fmt_time (e->rank_min_ns, tb), e->rank_min);
      printf (", \"mean_s\": %.9f", e->rank_mean_ns / 1e9);
      printf (", \"max_s\": %s, \"max_rank\": %" PRId32 "}",
              clogtool__fmt_time (e->rank_max_ns, tb), e->rank_max);
      fputs (",\n   \"histogram\": [", stdout);
      int hf = 1;
      for (int b = 0; b < AN_HIST_BINS; b++)
        if (e->hist[b])
          {
            printf ("%s{\"lo\": %" PRIu64 ", \"hi\": ", hf ? "" : ", ",
                    an_hist_lo (b));
            if (an_hist_hi (b) == UINT64_MAX)
              fputs ("null", stdout);
            else
              printf ("%" PRIu64, an_hist_hi (b));
            printf (", \"count\": %" PRIu64 "}", e->hist[b]);
            hf = 0;
          }
      fputs ("],\n   \"counters\": {", stdout);
      for (size_t c = 0; c < p->ncounters; c++)
        {
          printf ("%s", c ? ", " : "");
          clogtool__json_string (stdout, p->counters[c].name);
          if (e->counter_known[c])
            printf (": %.0f", e->counter[c]);
          else
            fputs (": null", stdout);
        }
      fputs ("},\n   \"per_rank\": [", stdout);
      for (size_t k = 0; k < p->nranks; k++)
        {
          const an_rank_use_t *u = &e->per_rank[k];
          printf ("%s{\"rank\": %" PRId32 ", \"calls\": %" PRIu64
                  ", \"time_s\": %s, \"bytes\": %" PRIu64 "}",
                  k ? ", " : "", p->ranks[k], u->calls,
                  clogtool__fmt_time (u->time_ns, tb),
                  u->bytes_sent + u->bytes_recv);
        }
      fputs ("]}", stdout);
    }
}

static void
print_json (const an_profile_t *p, int32_t rank)
{
  char tb[32];
  printf ("{\"ranks\": %zu, \"rank\": ", p->nranks);
  if (rank >= 0)
    printf ("%" PRId32, rank);
  else
    fputs ("null", stdout);
  printf (", \"app_s\": %s", clogtool__fmt_time (p->app_total_ns, tb));
  printf (", \"mpi_s\": %s", clogtool__fmt_time (p->mpi_total_ns, tb));
  printf (", \"mpi_share\": %.6f",
          share (p->mpi_total_ns, p->app_total_ns));
  printf (", \"t_first\": %s", clogtool__fmt_time (p->t_first, tb));
  printf (", \"t_last\": %s,\n\"functions\": [",
          clogtool__fmt_time (p->t_last, tb));
  json_entries (p, 0);
  fputs ("],\n\"states\": [", stdout);
  json_entries (p, 1);
  fputs ("],\n\"per_rank\": [", stdout);
  for (size_t k = 0; k < p->nranks; k++)
    {
      printf ("%s\n  {\"rank\": %" PRId32, k ? "," : "", p->ranks[k]);
      printf (", \"app_s\": %s", clogtool__fmt_time (p->app_ns[k], tb));
      printf (", \"mpi_s\": %s", clogtool__fmt_time (p->mpi_ns[k], tb));
      printf (", \"mpi_share\": %.6f}", share (p->mpi_ns[k], p->app_ns[k]));
    }
  printf ("],\n\"left_open\": %" PRIu64 ", \"messages_outside_mpi\": %"
          PRIu64 ",\n\"counters\": [", p->left_open, p->msg_outside);
  for (size_t c = 0; c < p->ncounters; c++)
    {
      fputs (c ? ", {\"name\": " : "{\"name\": ", stdout);
      clogtool__json_string (stdout, p->counters[c].name);
      fputs (", \"unit\": ", stdout);
      clogtool__json_string (stdout, p->counters[c].unit);
      putchar ('}');
    }
  puts ("]}");
}

static void
print_csv (const an_profile_t *p)
{
  char tb[32], tb2[32];
  puts ("kind,name,rank,calls,time_s,exclusive_s,bytes_sent,bytes_recv");
  for (size_t i = 0; i < p->nentries; i++)
    {
      const an_prof_entry_t *e = &p->entries[i];
      const char *kind = e->cls == AN_STATE_USER ? "state" : "function";
      printf ("%s,", kind);
      clogtool__csv_string (stdout, e->name);
      printf (",all,%" PRIu64 ",%s,%s,%" PRIu64 ",%" PRIu64 "\n", e->calls,
              clogtool__fmt_time (e->time_ns, tb),
              clogtool__fmt_time (e->excl_ns, tb2), e->bytes_sent,
              e->bytes_recv);
      for (size_t k = 0; k < p->nranks; k++)
        {
          const an_rank_use_t *u = &e->per_rank[k];
          if (u->calls == 0 && u->bytes_sent == 0 && u->bytes_recv == 0)
            continue;
          printf ("%s,", kind);
          clogtool__csv_string (stdout, e->name);
          printf (",%" PRId32 ",%" PRIu64 ",%s,%s,%" PRIu64 ",%" PRIu64 "\n",
                  p->ranks[k], u->calls, clogtool__fmt_time (u->time_ns, tb),
                  clogtool__fmt_time (u->excl_ns, tb2), u->bytes_sent,
                  u->bytes_recv);
        }
    }
}

static void
table_entries (const an_profile_t *p, int user)
{
  int any = 0;
  for (size_t i = 0; i < p->nentries; i++)
    {
      const an_prof_entry_t *e = &p->entries[i];
      if ((e->cls == AN_STATE_USER) != user)
        continue;
      if (!any)
        printf ("\n%s\n%-24s %10s %14s %11s %11s %11s %7s %14s%s\n",
                user ? "User states (inclusive time)"
                : "MPI functions",
                "name", "calls", "time_s", "mean_us", "min_us", "max_us",
                "app%", "bytes", waiting && !user ? "         wait_s" : "");
      any = 1;
      char tb[32];
      clogtool__put_text (stdout, e->name, 24);
      printf (" %10" PRIu64 " %14s %11.3f %11.3f %11.3f %7.2f %14" PRIu64,
              e->calls, clogtool__fmt_time (e->time_ns, tb),
              e->calls ? (double) e->time_ns / (double) e->calls / 1e3 : 0.0,
              (double) e->min_ns / 1e3, (double) e->max_ns / 1e3,
              100.0 * share (e->time_ns, p->app_total_ns),
              e->bytes_sent + e->bytes_recv);
      if (waiting && !user)
        printf (" %14s", clogtool__fmt_time (waiting[e->state], tb));
      putchar ('\n');
    }
  if (!any)
    return;
  printf ("\n%s\n%-24s %14s %8s %14s %14s %8s %9s\n",
          user ? "User states: time per rank" : "MPI functions: time per rank",
          "name", "min_s", "rank", "mean_s", "max_s", "rank", "max/mean");
  for (size_t i = 0; i < p->nentries; i++)
    {
      const an_prof_entry_t *e = &p->entries[i];
      if ((e->cls == AN_STATE_USER) != user)
        continue;
      char t1[32], t2[32];
      clogtool__put_text (stdout, e->name, 24);
      printf (" %14s %8" PRId32 " %14.9f %14s %8" PRId32 " %9.3f\n",
              clogtool__fmt_time (e->rank_min_ns, t1), e->rank_min,
              e->rank_mean_ns / 1e9, clogtool__fmt_time (e->rank_max_ns, t2),
              e->rank_max, e->rank_mean_ns > 0
              ? (double) e->rank_max_ns / e->rank_mean_ns : 0.0);
    }
}

/* OS and hardware counters (MPE_COUNTERS): each one's increase over the
 * instances of each function and state. */
static void
table_counters (const an_profile_t *p)
{
  if (p->ncounters == 0 || p->nentries == 0)
    return;
  printf ("\nCounters (increase over each call, summed; per call)\n%-24s",
          "name");
  for (size_t c = 0; c < p->ncounters; c++)
    {
      char h[64];
      snprintf (h, sizeof h, "%s/%s", p->counters[c].name,
                p->counters[c].unit);
      printf (" %16.16s %12s", h, "per call");
    }
  putchar ('\n');
  for (size_t i = 0; i < p->nentries; i++)
    {
      const an_prof_entry_t *e = &p->entries[i];
      clogtool__put_text (stdout, e->name, 24);
      for (size_t c = 0; c < p->ncounters; c++)
        if (e->counter_known[c])
          printf (" %16.0f %12.1f", e->counter[c],
                  e->counter[c] / (double) e->counter_known[c]);
        else
          printf (" %16s %12s", "no data", "");
      putchar ('\n');
    }
}

static void
table_histograms (const an_profile_t *p)
{
  int any = 0;
  for (size_t i = 0; i < p->nentries; i++)
    {
      const an_prof_entry_t *e = &p->entries[i];
      for (int b = 0; b < AN_HIST_BINS; b++)
        {
          if (e->hist[b] == 0)
            continue;
          if (!any)
            printf ("\nMessage sizes (bytes, [lo, hi))\n%-24s %22s %12s\n",
                    "name", "size", "count");
          any = 1;
          char range[48];
          if (b == 0)
            snprintf (range, sizeof range, "0");
          else if (an_hist_hi (b) == UINT64_MAX)
            snprintf (range, sizeof range, "%" PRIu64 " +", an_hist_lo (b));
          else
            snprintf (range, sizeof range, "%" PRIu64 " .. %" PRIu64,
                      an_hist_lo (b), an_hist_hi (b));
          clogtool__put_text (stdout, e->name, 24);
          printf (" %22s %12" PRIu64 "\n", range, e->hist[b]);
        }
    }
}

static void
print_table (const char *path, const an_profile_t *p, int32_t rank)
{
  char t1[32], t2[32], t3[32], t4[32];
  printf ("%s: ", path);
  if (rank >= 0)
    printf ("rank %" PRId32, rank);
  else
    printf ("%zu ranks", p->nranks);
  printf (", records %s .. %s s\napplication time %s s (summed over the "
          "ranks), in MPI %s s (%.2f%%)\n",
          clogtool__fmt_time (p->t_first, t1),
          clogtool__fmt_time (p->t_last, t2),
          clogtool__fmt_time (p->app_total_ns, t3),
          clogtool__fmt_time (p->mpi_total_ns, t4),
          100.0 * share (p->mpi_total_ns, p->app_total_ns));
  table_entries (p, 0);
  table_entries (p, 1);
  table_counters (p);
  table_histograms (p);
  printf ("\nPer rank\n%8s %14s %14s %8s\n", "rank", "app_s", "mpi_s",
          "mpi%");
  for (size_t k = 0; k < p->nranks; k++)
    printf ("%8" PRId32 " %14s %14s %8.2f\n", p->ranks[k],
            clogtool__fmt_time (p->app_ns[k], t1),
            clogtool__fmt_time (p->mpi_ns[k], t2),
            100.0 * share (p->mpi_ns[k], p->app_ns[k]));
  if (p->left_open)
    printf ("\n%" PRIu64 " calls cut at the end of their thread (no end "
            "logged) are not counted\n", p->left_open);
}

int
clogtool_profile_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "json", no_argument, NULL, 'j' },
    { "csv", no_argument, NULL, 'C' },
    { "rank", required_argument, NULL, 'r' },
    { "from", required_argument, NULL, 'f' },
    { "to", required_argument, NULL, 'T' },
    { "waits", no_argument, NULL, 'w' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int json = 0, csv = 0, waits = 0, c;
  long long v;
  an_profile_opts_t o;

  an_profile_opts_init (&o);
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":jr:f:T:wh", longopts, NULL)) != -1)
    {
      switch (c)
        {
        case 'j':
          json = 1;
          break;
        case 'C':
          csv = 1;
          break;
        case 'r':
          if (clogtool__parse_int (optarg, 0, INT32_MAX, &v) < 0)
            return clogtool__usage_error ("profile", "bad rank '%s'",
                                          optarg);
          o.rank = (int32_t) v;
          break;
        case 'f':
        case 'T':
          if (clogtool__parse_time (optarg, c == 'f' ? &o.t0 : &o.t1) < 0)
            return clogtool__usage_error ("profile", "bad time '%s'",
                                          optarg);
          break;
        case 'w':
          waits = 1;
          break;
        case 'h':
          profile_help ();
          return clogtool__exit_after_output ();
        default:
          return clogtool__bad_option ("profile", c, argv);
        }
    }
  if (json && csv)
    return clogtool__usage_error ("profile", "--json and --csv exclude "
                                  "each other");
  if (o.t0 > o.t1)
    return clogtool__usage_error ("profile", "--from is after --to");
  if (waits && (o.t0 > 0 || o.t1 < UINT64_MAX))
    return clogtool__usage_error ("profile", "--waits is for the whole run "
                                  "(no --from or --to)");
  if (clogtool__one_file ("profile", argc) != 0)
    return CLOGTOOL_EXIT_USAGE;

  const char *path = argv[optind];
  logfmt_reader_t *r = clogtool__open (path);
  if (r == NULL)
    return CLOGTOOL_EXIT_PROBLEM;
  an_profile_t *p = NULL;
  logfmt_error_t err = { 0 };
  int status = CLOGTOOL_EXIT_OK;
  int rc = an_profile_compute (r, &o, &p, &err);
  if (rc < 0)
    {
      clogtool__lib_error (path, rc, &err);
      logfmt_reader_close (r);
      return CLOGTOOL_EXIT_PROBLEM;
    }
  waiting = NULL;
  if (waits && rc == 0)
    {
      /* The waits of the ranks profiled, per MPI function. */
      an_waits_t *w = NULL;
      waiting = calloc (logfmt_reader_n_states (r) + 1, sizeof *waiting);
      if (waiting == NULL
          || (rc = an_waits_compute (r, NULL, &w, &err)) < 0)
        {
          clogtool__lib_error (path, rc < 0 ? rc : LOGFMT_ENOMEM, &err);
          free (waiting);
          waiting = NULL;
          an_profile_free (p);
          logfmt_reader_close (r);
          return CLOGTOOL_EXIT_PROBLEM;
        }
      for (size_t i = 0; i < w->nrows; i++)
        if (o.rank < 0 || w->rows[i].rank == o.rank)
          waiting[w->rows[i].state] += w->rows[i].wait_ns;
      an_waits_free (w);
    }
  if (o.rank >= 0 && p->nranks == 0)
    {
      clogtool__error ("%s: no rank %" PRId32 " in the log", path, o.rank);
      status = CLOGTOOL_EXIT_PROBLEM;
    }
  else
    {
      if (json)
        print_json (p, o.rank);
      else if (csv)
        print_csv (p);
      else
        print_table (path, p, o.rank);
      if (clogtool__flush_stdout () < 0)
        status = CLOGTOOL_EXIT_PROBLEM;
    }
  free (waiting);
  waiting = NULL;
  an_profile_free (p);
  logfmt_reader_close (r);
  return status;
}

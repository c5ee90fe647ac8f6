/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool cpus: per host and CPU (its core, socket, NUMA node and SMT
 * rank from the topology the log stores), which threads ran on it and for
 * how long, and the cores that more than one thread used; --runs lists
 * every run (which thread ran when). */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "clogtool.h"
#include "clogtool-internal.h"
#include "analysis/an-sched.h"

static void
cpus_help (void)
{
  fputs (
    "Usage: clogtool cpus [--json [--runs] | --csv] FILE\n"
    "\n"
    "Prints, for a log written with MPE_SCHED=1, each host's CPUs with\n"
    "their place in the topology (core, socket, NUMA node, SMT rank), the\n"
    "time the log's threads ran on each and which threads those were; then\n"
    "the cores used by more than one thread (a shared core's time is the\n"
    "sum of its users').\n"
    "\n"
    "Options:\n"
    "  -j, --json   one JSON object instead of the tables\n"
    "      --csv    the CPU table as CSV, a row per host, CPU and thread\n"
    "               that ran there: host, cpu, core, socket, numa, smt,\n"
    "               cpu_on_s, rank, thread, on_s, runs (the last five\n"
    "               empty for a CPU no thread used)\n"
    "  -r, --runs   also every run: CPU, start, end (s), rank, thread\n"
    "  -h, --help   show this help\n"
    "\n"
    "JSON: {hosts: [{host, cpus: [{cpu, core, socket, numa, smt, on_s,\n"
    "threads: [{rank, thread, on_s, runs}]}], shared_cores: [{core, cpus,\n"
    "threads: [{rank, thread}]}], nics: [{name, rx_bytes, tx_bytes,\n"
    "rx_packets, tx_packets}]}], runs: [{cpu, t0, t1, rank, thread}]\n"
    "(with --runs)}.  NICs: with MPE_NETWORK=1, what each interface\n"
    "carried between the first and the last sample.\n"
    "\n"
    "Exit status: 0 success, 1 error or no switch records, 2 bad usage.\n",
    stdout);
}

static void
print_user (const logfmt_reader_t *r, uint32_t stream, int json)
{
  const logfmt_stream_def_t *sd = logfmt_reader_stream (r, stream);
  if (json)
    printf ("{\"rank\": %d, \"thread\": %d", sd ? sd->rank : -1,
            sd ? sd->thread : -1);
  else
    printf ("%d:%d", sd ? sd->rank : -1, sd ? sd->thread : -1);
}

static void
print_host_csv (const logfmt_reader_t *r, const an_host_t *h)
{
  for (size_t i = 0; i < h->ncpus; i++)
    {
      const an_cpu_t *c = &h->cpus[i];
      for (size_t u = 0; u < (c->nusers ? c->nusers : 1); u++)
        {
          clogtool__csv_string (stdout, h->name);
          printf (",%d,%d,%d,%d,%d,%.9f,", c->cpu, c->core, c->socket,
                  c->numa, c->smt, c->on / 1e9);
          if (c->nusers == 0)
            {
              printf (",,,\n");
              continue;
            }
          const logfmt_stream_def_t *sd
            = logfmt_reader_stream (r, c->users[u].stream);
          printf ("%d,%d,%.9f,%" PRIu64 "\n", sd ? sd->rank : -1,
                  sd ? sd->thread : -1, c->users[u].on / 1e9,
                  c->users[u].runs);
        }
    }
}

static void
print_host (const logfmt_reader_t *r, const an_host_t *h, int json,
            int first)
{
  if (json)
    {
      printf ("%s\n  {\"host\": ", first ? "" : ",");
      clogtool__json_string (stdout, h->name);
      printf (", \"cpus\": [");
    }
  else
    printf ("host %s\n%5s %5s %6s %5s %4s %12s  %s\n", h->name, "CPU",
            "core", "socket", "numa", "smt", "on-CPU s",
            "threads (rank:thread on-CPU s)");
  for (size_t i = 0; i < h->ncpus; i++)
    {
      const an_cpu_t *c = &h->cpus[i];
      if (json)
        printf ("%s\n    {\"cpu\": %d, \"core\": %d, \"socket\": %d, "
                "\"numa\": %d, \"smt\": %d, \"on_s\": %.9f, \"threads\": [",
                i ? "," : "", c->cpu, c->core, c->socket, c->numa, c->smt,
                c->on / 1e9);
      else
        printf ("%5d %5d %6d %5d %4d %12.6f ", c->cpu, c->core, c->socket,
                c->numa, c->smt, c->on / 1e9);
      for (size_t u = 0; u < c->nusers; u++)
        {
          if (json)
            {
              printf ("%s", u ? ", " : "");
              print_user (r, c->users[u].stream, 1);
              printf (", \"on_s\": %.9f, \"runs\": %" PRIu64 "}",
                      c->users[u].on / 1e9, c->users[u].runs);
            }
          else
            {
              printf (" ");
              print_user (r, c->users[u].stream, 0);
              printf (" %.6f", c->users[u].on / 1e9);
            }
        }
      printf (json ? "]}" : "\n");
    }
  /* Cores with more than one user. */
  if (json)
    printf ("], \"shared_cores\": [");
  int n = 0;
  for (size_t i = 0; i < h->ncpus; i++)
    {
      int32_t core = h->cpus[i].core;
      size_t j = 0;
      while (j < i && h->cpus[j].core != core)
        j++;
      if (j < i)
        continue;  /* core listed already */
      uint32_t us[64];
      size_t nu = an_cpus_core_users (h, core, us, 64);
      if (nu < 2)
        continue;
      if (json)
        printf ("%s\n    {\"core\": %d, \"cpus\": [", n ? "," : "", core);
      else
        printf ("%sshared core %d (CPUs", n ? "" : "", core);
      int k = 0;
      for (size_t x = 0; x < h->ncpus; x++)
        if (h->cpus[x].core == core)
          printf (json ? "%s%d" : "%s%d", json ? (k++ ? ", " : "")
                                               : (k++ ? "," : " "),
                  h->cpus[x].cpu);
      printf (json ? "], \"threads\": [" : "):");
      for (size_t u = 0; u < nu; u++)
        {
          printf ("%s", json ? (u ? ", " : "") : " ");
          print_user (r, us[u], json);
          if (json)
            printf ("}");
        }
      printf (json ? "]}" : "\n");
      n++;
    }
  if (json)
    printf ("], \"nics\": [");
  else if (h->nnics)
    printf ("%-16s %16s %16s %14s %14s  (over the log)\n", "interface",
            "received B", "sent B", "received pkts", "sent pkts");
  for (size_t i = 0; i < h->nnics; i++)
    {
      const an_nic_t *x = &h->nics[i];
      int64_t d[4];
      for (int k = 0; k < 4; k++)
        d[k] = x->seen ? x->last[k] - x->first[k] : 0;
      if (json)
        {
          printf ("%s\n    {\"name\": ", i ? "," : "");
          clogtool__json_string (stdout, x->name);
          printf (", \"rx_bytes\": %" PRId64 ", \"tx_bytes\": %" PRId64
                  ", \"rx_packets\": %" PRId64 ", \"tx_packets\": %" PRId64
                  "}", d[0], d[1], d[2], d[3]);
        }
      else
        {
          clogtool__put_text (stdout, x->name, 16);
          printf (" %16" PRId64 " %16" PRId64 " %14" PRId64 " %14" PRId64
                  "\n", d[0], d[1], d[2], d[3]);
        }
    }
  if (json)
    printf ("]}");
  else
    printf ("\n");
}

typedef struct
{
  const logfmt_reader_t *r;
  int json, n;
} runs_out_t;

/* --runs: each run as the analysis meets it. */
static void
print_run (void *user, uint32_t stream, const an_sched_run_t *x)
{
  runs_out_t *o = user;
  const logfmt_stream_def_t *sd = logfmt_reader_stream (o->r, stream);
  if (o->json)
    printf ("%s\n  {\"cpu\": %d, \"t0\": %.9f, \"t1\": %.9f, "
            "\"rank\": %d, \"thread\": %d}", o->n ? "," : "\"runs\": [",
            x->cpu, x->t0 / 1e9, x->t1 / 1e9, sd ? sd->rank : -1,
            sd ? sd->thread : -1);
  else
    printf ("run cpu %d %.9f %.9f rank %d thread %d\n", x->cpu,
            x->t0 / 1e9, x->t1 / 1e9, sd ? sd->rank : -1,
            sd ? sd->thread : -1);
  o->n++;
}

int
clogtool_cpus_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "json", no_argument, NULL, 'j' },
    { "csv", no_argument, NULL, 'C' },
    { "runs", no_argument, NULL, 'r' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int json = 0, csv = 0, runs = 0, c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":jrh", longopts, NULL)) != -1)
    switch (c)
      {
      case 'j':
        json = 1;
        break;
      case 'C':
        csv = 1;
        break;
      case 'r':
        runs = 1;
        break;
      case 'h':
        cpus_help ();
        return clogtool__exit_after_output ();
      default:
        return clogtool__bad_option ("cpus", c, argv);
      }
  if (csv && (json || runs))
    return clogtool__usage_error ("cpus", "--csv goes without --json and "
                                  "--runs");
  if (clogtool__one_file ("cpus", argc) != 0)
    return CLOGTOOL_EXIT_USAGE;
  logfmt_reader_t *r = clogtool__open_sched (argv[optind]);
  if (!r)
    return CLOGTOOL_EXIT_PROBLEM;
  int status = CLOGTOOL_EXIT_OK;
  if (json)
    printf ("{");
  runs_out_t ro = { r, json, 0 };
  an_cpus_t *cp;
  logfmt_error_t err = { 0 };
  int rc = an_cpus_load (r, runs ? print_run : NULL, &ro, &cp, &err);
  if (rc)
    {
      clogtool__lib_error ("cannot read the CPUs", rc, &err);
      logfmt_reader_close (r);
      return CLOGTOOL_EXIT_PROBLEM;
    }
  if (json)
    printf ("%s\"hosts\": [", ro.n ? "\n], " : "");
  if (csv)
    puts ("host,cpu,core,socket,numa,smt,cpu_on_s,rank,thread,on_s,runs");
  for (size_t i = 0; i < cp->nhosts; i++)
    if (csv)
      print_host_csv (r, &cp->hosts[i]);
    else
      print_host (r, &cp->hosts[i], json, i == 0);
  if (json)
    printf ("\n]}\n");
  an_cpus_free (cp);
  logfmt_reader_close (r);
  if (status != CLOGTOOL_EXIT_OK)
    return status;
  return clogtool__exit_after_output ();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool threads: per thread, time on and off CPUs (blocked or
 * preempted), context switches, migrations and CPUs used, from the
 * context-switch tracks (MPE_SCHED=1); per state, how much of its time
 * the thread spent on a CPU (spinning) and off it (blocked). */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "clogtool.h"
#include "clogtool-internal.h"
#include "analysis/an-sched.h"

/* Shared with `clogtool cpus`. */
logfmt_reader_t *
clogtool__open_sched (const char *path)
{
  logfmt_reader_t *r = clogtool__open (path);
  if (r && !an_sched_file_has_switches (r))
    {
      clogtool__error ("%s has no context-switch records (log with "
                       "MPE_SCHED=1)", path);
      logfmt_reader_close (r);
      return NULL;
    }
  return r;
}

static void
threads_help (void)
{
  fputs (
    "Usage: clogtool threads [--json|--csv] FILE\n"
    "\n"
    "Prints, for every thread of a log written with MPE_SCHED=1, its time\n"
    "on a CPU and off it (split into blocked: it waited for something,\n"
    "and preempted: it was runnable but another thread had the CPU), its\n"
    "context switches (switch-outs), migrations (switch-ins on another\n"
    "CPU than the last) and the CPUs it ran on, over the thread's window\n"
    "(its first to its last record); then per state of each thread the\n"
    "instances' time on a CPU (busy waiting, computing) and off it, and\n"
    "the switch-outs inside them.\n"
    "\n"
    "Options:\n"
    "  -j, --json   a JSON list instead of the tables\n"
    "      --csv    the per-thread table as CSV: rank, thread, window_s,\n"
    "               cpu_s, offcpu_s, blocked_s, preempted_s, switches,\n"
    "               migrations, cpus (the CPUs separated by ';')\n"
    "  -h, --help   show this help\n"
    "\n"
    "JSON: a list of {rank, thread, window_s, cpu_s, offcpu_s, blocked_s,\n"
    "preempted_s, switches, migrations, cpus [...], states [{name, count,\n"
    "time_s, cpu_s, blocked_s, preempted_s, blocks, preemptions,\n"
    "migrations, cpus [...]}]}.\n"
    "\n"
    "Exit status: 0 success, 1 error or no switch records, 2 bad usage.\n",
    stdout);
}

/* Per state of one thread (printing its error). */
static int
per_state (const logfmt_reader_t *r, const an_sched_thread_t *th,
           an_sched_state_t *acc, size_t nstates)
{
  logfmt_error_t err = { 0 };
  int rc = an_sched_states (r, th, acc, nstates, &err);
  if (rc)
    clogtool__lib_error ("cannot read states", rc, &err);
  return rc;
}

static void
print_thread_json (const logfmt_reader_t *r, const an_sched_thread_t *th,
                   const an_sched_state_t *acc, size_t nstates, int first)
{
  const logfmt_stream_def_t *sd = logfmt_reader_stream (r, th->stream);
  printf ("%s\n  {\"rank\": %d, \"thread\": %d, \"window_s\": %.9f, "
          "\"cpu_s\": %.9f, \"offcpu_s\": %.9f, \"blocked_s\": %.9f, "
          "\"preempted_s\": %.9f, \"switches\": %" PRIu64 ", "
          "\"migrations\": %" PRIu64 ", \"cpus\": [",
          first ? "" : ",", sd ? sd->rank : -1, sd ? sd->thread : -1,
          (th->t1 - th->t0) / 1e9, th->on_ns / 1e9,
          (th->blocked_ns + th->preempted_ns) / 1e9, th->blocked_ns / 1e9,
          th->preempted_ns / 1e9, th->switches, th->migrations);
  for (size_t i = 0; i < th->ncpus; i++)
    printf ("%s%d", i ? ", " : "", th->cpus[i]);
  printf ("], \"states\": [");
  int n = 0;
  for (size_t s = 0; s < nstates; s++)
    {
      const an_sched_state_t *a = &acc[s];
      if (!a->count)
        continue;
      const logfmt_state_def_t *d = logfmt_reader_state (r, s);
      printf ("%s\n    {\"name\": ", n++ ? "," : "");
      clogtool__json_string (stdout, d ? d->name : "?");
      printf (", \"count\": %" PRIu64 ", \"time_s\": %.9f, \"cpu_s\": %.9f, "
              "\"blocked_s\": %.9f, \"preempted_s\": %.9f, \"blocks\": %"
              PRIu64 ", \"preemptions\": %" PRIu64, a->count,
              a->time / 1e9, a->sp.on / 1e9, a->sp.blocked / 1e9,
              a->sp.preempted / 1e9, a->sp.blocks, a->sp.preemptions);
      printf (", \"migrations\": %" PRIu64 ", \"cpus\": [",
              a->sp.migrations);
      int k = 0;
      for (int c = 0; c < AN_SCHED_MAX_CPUS; c++)
        if (a->sp.cpus[c / 64] >> (c % 64) & 1)
          printf ("%s%d", k++ ? ", " : "", c);
      printf ("]}");
    }
  printf ("]}");
}

static void
print_thread_text (const logfmt_reader_t *r, const an_sched_thread_t *th)
{
  const logfmt_stream_def_t *sd = logfmt_reader_stream (r, th->stream);
  printf ("%5d %6d %12.6f %12.6f %12.6f %12.6f %9" PRIu64 " %10" PRIu64 "  ",
          sd ? sd->rank : -1, sd ? sd->thread : -1, th->on_ns / 1e9,
          (th->blocked_ns + th->preempted_ns) / 1e9, th->blocked_ns / 1e9,
          th->preempted_ns / 1e9, th->switches, th->migrations);
  for (size_t i = 0; i < th->ncpus; i++)
    printf ("%s%d", i ? "," : "", th->cpus[i]);
  printf ("\n");
}

static void
print_thread_csv (const logfmt_reader_t *r, const an_sched_thread_t *th)
{
  const logfmt_stream_def_t *sd = logfmt_reader_stream (r, th->stream);
  printf ("%d,%d,%.9f,%.9f,%.9f,%.9f,%.9f,%" PRIu64 ",%" PRIu64 ",",
          sd ? sd->rank : -1, sd ? sd->thread : -1,
          (th->t1 - th->t0) / 1e9, th->on_ns / 1e9,
          (th->blocked_ns + th->preempted_ns) / 1e9, th->blocked_ns / 1e9,
          th->preempted_ns / 1e9, th->switches, th->migrations);
  for (size_t i = 0; i < th->ncpus; i++)
    printf ("%s%d", i ? ";" : "", th->cpus[i]);
  printf ("\n");
}

static void
print_states_text (const logfmt_reader_t *r, const an_sched_thread_t *th,
                   const an_sched_state_t *acc, size_t nstates)
{
  const logfmt_stream_def_t *sd = logfmt_reader_stream (r, th->stream);
  for (size_t s = 0; s < nstates; s++)
    {
      const an_sched_state_t *a = &acc[s];
      if (!a->count)
        continue;
      const logfmt_state_def_t *d = logfmt_reader_state (r, s);
      printf ("%5d %6d  ", sd ? sd->rank : -1, sd ? sd->thread : -1);
      clogtool__put_text (stdout, d ? d->name : "?", 20);
      printf (" %8" PRIu64 " %12.6f %12.6f %12.6f %12.6f %7" PRIu64 " %7"
              PRIu64 "\n", a->count, a->time / 1e9, a->sp.on / 1e9,
              a->sp.blocked / 1e9, a->sp.preempted / 1e9, a->sp.blocks,
              a->sp.preemptions);
    }
}

int
clogtool_threads_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "json", no_argument, NULL, 'j' },
    { "csv", no_argument, NULL, 'C' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int json = 0, csv = 0, c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":jh", longopts, NULL)) != -1)
    switch (c)
      {
      case 'j':
        json = 1;
        break;
      case 'C':
        csv = 1;
        break;
      case 'h':
        threads_help ();
        return clogtool__exit_after_output ();
      default:
        return clogtool__bad_option ("threads", c, argv);
      }
  if (json && csv)
    return clogtool__usage_error ("threads", "--json and --csv exclude "
                                  "each other");
  if (clogtool__one_file ("threads", argc) != 0)
    return CLOGTOOL_EXIT_USAGE;
  logfmt_reader_t *r = clogtool__open_sched (argv[optind]);
  if (!r)
    return CLOGTOOL_EXIT_PROBLEM;
  const logfmt_info_t *info = logfmt_reader_info (r);
  size_t nstates = logfmt_reader_n_states (r);
  an_sched_state_t *acc = calloc (nstates ? nstates : 1, sizeof *acc);
  an_sched_thread_t *ths = calloc (info->nstreams ? info->nstreams : 1,
                                sizeof *ths);
  int status = CLOGTOOL_EXIT_OK;
  logfmt_error_t err = { 0 };
  if (!acc || !ths)
    {
      clogtool__error ("out of memory");
      status = CLOGTOOL_EXIT_PROBLEM;
      goto out;
    }
  for (uint32_t s = 0; s < info->nstreams; s++)
    if (an_sched_thread_load (r, s, &ths[s], &err) != 0)
      {
        clogtool__lib_error ("cannot read the switch track", -1, &err);
        status = CLOGTOOL_EXIT_PROBLEM;
        goto out;
      }
  if (json)
    printf ("[");
  else if (csv)
    printf ("rank,thread,window_s,cpu_s,offcpu_s,blocked_s,preempted_s,"
            "switches,migrations,cpus\n");
  else
    printf ("%5s %6s %12s %12s %12s %12s %9s %10s  %s\n", "rank", "thread",
            "on-CPU s", "off-CPU s", "blocked s", "preempted s", "switches",
            "migrations", "CPUs");
  int first = 1;
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      if (!ths[s].has)
        continue;
      if (json)
        {
          if (per_state (r, &ths[s], acc, nstates) != 0)
            {
              status = CLOGTOOL_EXIT_PROBLEM;
              break;
            }
          print_thread_json (r, &ths[s], acc, nstates, first);
          first = 0;
        }
      else if (csv)
        print_thread_csv (r, &ths[s]);
      else
        print_thread_text (r, &ths[s]);
    }
  if (json)
    printf ("\n]\n");
  else if (!csv && status == CLOGTOOL_EXIT_OK)
    {
      printf ("\nPer state (instances' time on a CPU: busy waiting or "
              "computing; off it: blocked or preempted):\n");
      printf ("%5s %6s  %-20s %8s %12s %12s %12s %12s %7s %7s\n", "rank",
              "thread", "state", "count", "time s", "on-CPU s", "blocked s",
              "preempted s", "blocks", "preempt");
      for (uint32_t s = 0; s < info->nstreams; s++)
        if (ths[s].has)
          {
            if (per_state (r, &ths[s], acc, nstates) != 0)
              {
                status = CLOGTOOL_EXIT_PROBLEM;
                break;
              }
            print_states_text (r, &ths[s], acc, nstates);
          }
    }
out:
  if (ths)
    for (uint32_t s = 0; s < info->nstreams; s++)
      an_sched_thread_free (&ths[s]);
  free (ths);
  free (acc);
  logfmt_reader_close (r);
  if (status != CLOGTOOL_EXIT_OK)
    return status;
  return clogtool__exit_after_output ();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool: command-line access to .clog files (and MPE2 logs). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "clogtool.h"
#include "clogtool-internal.h"

typedef struct
{
  const char *name;
  int (*main) (int argc, char **argv);
  const char *summary;
} subcommand_t;

static const subcommand_t subcommands[] = {
  { "print", clogtool_print_main, "print events in time order, filtered" },
  { "stats", clogtool_stats_main, "summary statistics (table or --json)" },
  { "verify", clogtool_verify_main, "check every block, index and summary" },
  { "repair", clogtool_repair_main, "rebuild a damaged or unfinished file" },
  { "convert", clogtool_convert_main,
    "convert MPE2 logs to .clog, .clog to CLOG2, OTF2 or Chrome JSON" },
  { "recover", clogtool_recover_main,
    "build a log from a crashed run's local files" },
  { "matrix", clogtool_matrix_main,
    "communication matrix: who sent how much to whom" },
  { "profile", clogtool_profile_main,
    "time, calls and bytes per MPI function and state, per rank" },
  { "waits", clogtool_waits_main,
    "wait states in MPI calls and the states that caused them" },
  { "critical-path", clogtool_critpath_main,
    "the work and waits that decided the run's end" },
  { "cct", clogtool_cct_main,
    "calling-context tree of samples and MPI call sites; exports" },
  { "threads", clogtool_threads_main,
    "per thread: time on and off CPUs, switches, migrations" },
  { "cpus", clogtool_cpus_main,
    "per CPU: which threads ran there, shared cores" },
  { "memory", clogtool_memory_main,
    "memory profile: peak, call sites, leaks; massif/hp export" },
  { "metrics", clogtool_metrics_main,
    "metric cells per thread, process, node or job" },
  { "gen", clogtool_gen_main, "write a synthetic log (tests, benchmarks)" },
  { "query", clogtool_query_main, "SQL over a log (CSV or --json; shell)" },
};

static void
usage (FILE *f)
{
  fputs ("Usage: clogtool COMMAND [ARGS...]\n"
         "       clogtool COMMAND --help\n"
         "\n"
         "Reads and writes .clog event logs; MPE2 logs (.clog2, CLOG v1)\n"
         "are read too.\n"
         "\n"
         "Commands:\n", f);
  for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
    fprintf (f, strlen (subcommands[i].name) > 8 ? "  %s\n           %s\n"
                                                 : "  %-8s %s\n",
             subcommands[i].name, subcommands[i].summary);
  fputs ("\n"
         "Options:\n"
         "  -h, --help     show this help\n"
         "  -V, --version  show the version\n"
         "\n"
         "Exit status: 0 success, 1 error or problem found, 2 bad usage.\n",
         f);
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      usage (stderr);
      return CLOGTOOL_EXIT_USAGE;
    }
  const char *cmd = argv[1];
  if (strcmp (cmd, "-h") == 0 || strcmp (cmd, "--help") == 0
      || strcmp (cmd, "help") == 0)
    {
      /* "clogtool help print" is the same as "clogtool print --help". */
      if (strcmp (cmd, "help") == 0 && argc > 2)
        {
          for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0];
               i++)
            if (strcmp (argv[2], subcommands[i].name) == 0)
              {
                char *av[] = { argv[2], (char *) "--help", NULL };
                return subcommands[i].main (2, av);
              }
          fprintf (stderr, "clogtool: unknown command '%s'\n", argv[2]);
          return CLOGTOOL_EXIT_USAGE;
        }
      usage (stdout);
      return clogtool__exit_after_output ();
    }
  if (strcmp (cmd, "-V") == 0 || strcmp (cmd, "--version") == 0)
    {
      printf ("clogtool (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
      return clogtool__exit_after_output ();
    }
  for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
    if (strcmp (cmd, subcommands[i].name) == 0)
      return subcommands[i].main (argc - 1, argv + 1);

  fprintf (stderr, "clogtool: unknown command '%s'\n"
           "Try 'clogtool --help'.\n", cmd);
  return CLOGTOOL_EXIT_USAGE;
}

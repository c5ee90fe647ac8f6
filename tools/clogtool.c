/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool: command-line access to .clog files (and MPE2 logs). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clogtool.h"
#include "clogtool-internal.h"

/* How a subcommand takes -o FILE. */
enum
{
  OUT_STDOUT = 0,   /* a report on stdout: -o sends it to FILE */
  OUT_OWN,          /* writes a file itself and parses -o */
  OUT_OPERAND       /* convert: -o FILE is its OUT operand */
};

typedef struct
{
  const char *name;
  int (*main) (int argc, char **argv);
  const char *summary;
  int out;
  int no_progress;  /* OUT_STDOUT, but does not open logs by clogtool__open */
} subcommand_t;

static const subcommand_t subcommands[] = {
  { "print", clogtool_print_main, "print events in time order, filtered" },
  { "stats", clogtool_stats_main, "summary statistics (table or --json)" },
  { "verify", clogtool_verify_main, "check every block, index and summary",
    OUT_STDOUT, 1 },
  { "repair", clogtool_repair_main, "rebuild a damaged or unfinished file",
    OUT_OWN },
  { "convert", clogtool_convert_main,
    "convert MPE2 logs to .clog, .clog to CLOG2, OTF2 or Chrome JSON",
    OUT_OPERAND },
  { "recover", clogtool_recover_main,
    "build a log from a crashed run's local files", OUT_OWN },
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
  { "gen", clogtool_gen_main, "write a synthetic log (tests, benchmarks)",
    OUT_OWN },
  { "query", clogtool_query_main, "SQL over a log (CSV or --json; shell)",
    OUT_STDOUT, 1 },
};

/* Takes -o FILE, -oFILE, --output FILE and --output=FILE (the last one
 * given) out of argv, up to a "--", and with progress non-NULL
 * --progress; *argc shrinks.  Returns 0, or the usage error's status. */
static int
take_output (const char *sub, int *argc, char **argv, const char **out,
             int *progress)
{
  int j = 1;
  for (int i = 1; i < *argc; i++)
    {
      const char *a = argv[i];
      if (strcmp (a, "--") == 0)
        {
          while (i < *argc)
            argv[j++] = argv[i++];
          break;
        }
      if (strcmp (a, "-o") == 0 || strcmp (a, "--output") == 0)
        {
          if (i + 1 >= *argc)
            return clogtool__usage_error (sub, "option '%s' needs a value",
                                          a);
          *out = argv[++i];
        }
      else if (strncmp (a, "--output=", 9) == 0)
        *out = a + 9;
      else if (progress != NULL && strcmp (a, "--progress") == 0)
        *progress = 1;
      else if (strncmp (a, "-o", 2) == 0)
        *out = a + 2;
      else
        argv[j++] = argv[i];
    }
  argv[j] = NULL;
  *argc = j;
  if (*out != NULL && (*out)[0] == '\0')
    return clogtool__usage_error (sub, "empty output file name");
  return 0;
}

/* Runs a subcommand with its -o handled as sc->out says. */
static int
run (const subcommand_t *sc, int argc, char **argv)
{
  if (sc->out == OUT_OWN)
    return sc->main (argc, argv);
  const char *out = NULL;
  int progress = 0;
  /* convert parses its own --progress; verify and query have none. */
  int rc = take_output (sc->name, &argc, argv, &out,
                        sc->out == OUT_STDOUT && !sc->no_progress
                        ? &progress : NULL);
  if (rc != 0)
    return rc;
  clogtool__want_progress (progress);
  if (out == NULL)
    return sc->main (argc, argv);
  if (sc->out == OUT_OPERAND)
    {
      /* argv has room: -o and its value were taken out of it. */
      argv[argc++] = (char *) out;
      argv[argc] = NULL;
      return sc->main (argc, argv);
    }
  if (strcmp (out, "-") == 0)
    return sc->main (argc, argv);
  int existed = access (out, F_OK) == 0;
  if (freopen (out, "w", stdout) == NULL)
    {
      clogtool__error ("%s: cannot write '%s': %s", sc->name, out,
                       strerror (errno));
      return CLOGTOOL_EXIT_PROBLEM;
    }
  rc = sc->main (argc, argv);
  /* A bad command line or a failure before any output leaves no new
   * file behind. */
  struct stat st;
  fflush (stdout);
  if (rc != CLOGTOOL_EXIT_OK && !existed
      && (rc == CLOGTOOL_EXIT_USAGE
          || (fstat (STDOUT_FILENO, &st) == 0 && st.st_size == 0)))
    unlink (out);
  return rc;
}

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
         "Every command takes -o FILE (--output FILE): where its output\n"
         "goes; '-' is standard output.  --progress shows on a terminal\n"
         "how far gen's writing, convert's conversion, or the reading of\n"
         "an OTF2 archive or MPE2 log by the reports (print, stats,\n"
         "matrix, profile, cct, threads, cpus, memory, metrics) is.\n"
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
      return run (&subcommands[i], argc - 1, argv + 1);

  fprintf (stderr, "clogtool: unknown command '%s'\n"
           "Try 'clogtool --help'.\n", cmd);
  return CLOGTOOL_EXIT_USAGE;
}

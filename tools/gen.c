/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool gen: a synthetic but realistic log, written by the generator
 * the tests and benchmarks use (synth/logfmt-synth.c). */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "clogtool.h"
#include "clogtool-internal.h"

#include "synth/logfmt-synth.h"

static void
gen_help (void)
{
  fputs (
    "Usage: clogtool gen [-o] FILE [-p PROCS] [-t THREADS] [-n EVENTS]\n"
    "                    [--seed S] [--progress]\n"
    "\n"
    "Writes a synthetic log like one an MPI program would produce: PROCS\n"
    "processes with THREADS threads each, EVENTS records per thread, with\n"
    "nested states, solo events, about 2% messages between processes and\n"
    "gaps of 50 ns to a few microseconds between events.  The same options\n"
    "and seed always give the same events.\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE    the file to write (or FILE as the operand);\n"
    "                       '-' writes the log to standard output\n"
    "  -p, --procs PROCS    processes (default 4)\n"
    "  -t, --threads T      threads per process (default 1)\n"
    "  -n, --events N       events per thread (default 10000)\n"
    "  -s, --seed S         random seed (default 1)\n"
    "      --progress       show progress on stderr (on a terminal)\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: 0 written, 1 error, 2 bad usage.\n", stdout);
}

int
clogtool_gen_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "output", required_argument, NULL, 'o' },
    { "procs", required_argument, NULL, 'p' },
    { "threads", required_argument, NULL, 't' },
    { "events", required_argument, NULL, 'n' },
    { "seed", required_argument, NULL, 's' },
    { "progress", no_argument, NULL, 'P' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  const char *out = NULL;
  long long procs = 4, threads = 1, events = 10000, seed = 1;
  int c, progress = 0;

  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":o:p:t:n:s:h", longopts, NULL))
         != -1)
    {
      long long *dst = NULL, min = 0, max = 0;
      const char *what = NULL;
      switch (c)
        {
        case 'o':
          out = optarg;
          continue;
        case 'p':
          dst = &procs, min = 1, max = 1 << 20, what = "--procs";
          break;
        case 't':
          dst = &threads, min = 1, max = 1 << 12, what = "--threads";
          break;
        case 'n':
          dst = &events, min = 0, max = INT64_MAX, what = "--events";
          break;
        case 's':
          dst = &seed, min = 0, max = INT64_MAX, what = "--seed";
          break;
        case 'P':
          progress = 1;
          continue;
        case 'h':
          gen_help ();
          return clogtool__exit_after_output ();
        default:
          return clogtool__bad_option ("gen", c, argv);
        }
      if (clogtool__parse_int (optarg, min, max, dst) < 0)
        return clogtool__usage_error ("gen", "bad %s '%s' (%lld..%lld)",
                                      what, optarg, min, max);
    }
  /* The file may also be given as the operand, as the readers take it. */
  if (out == NULL && optind < argc)
    out = argv[optind++];
  if (optind != argc)
    return clogtool__usage_error ("gen", "unexpected argument '%s'",
                                  argv[optind]);
  if (out == NULL)
    return clogtool__usage_error ("gen", "no output given (-o FILE)");
  if (procs * threads > (1 << 20))
    return clogtool__usage_error ("gen", "too many streams (%lld)",
                                  procs * threads);

  logfmt_synth_opts_t opts;
  logfmt_synth_opts_init (&opts);
  opts.nprocs = (uint32_t) procs;
  opts.threads_per_proc = (uint32_t) threads;
  opts.events_per_stream = (uint64_t) events;
  opts.seed = (uint64_t) seed;
  clogtool_progress_t prog;
  clogtool__progress_init (&prog, progress, "writing");
  opts.progress = clogtool__progress;
  opts.progress_user = &prog;
  char tmp[PATH_MAX];
  const char *path = clogtool__out_begin (out, tmp);
  if (path == NULL)
    return CLOGTOOL_EXIT_PROBLEM;
  logfmt_error_t err;
  memset (&err, 0, sizeof err);
  int rc = logfmt_synth_write (path, &opts, &err);
  clogtool__progress_done (&prog);
  if (rc < 0)
    clogtool__lib_error (out, rc, &err);
  if (clogtool__out_end (out, path, rc == 0) < 0 || rc < 0)
    return CLOGTOOL_EXIT_PROBLEM;
  return CLOGTOOL_EXIT_OK;
}

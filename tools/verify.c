/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool verify: a full check through logfmt_verify. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "clogtool.h"
#include "clogtool-internal.h"

static void
verify_help (void)
{
  fputs (
    "Usage: clogtool verify [-q] FILE\n"
    "\n"
    "Checks every block (checksum, decoding, time range, count), every\n"
    "index entry, every summary and the message table.  Prints each\n"
    "problem found on its own line, as \"FILE: offset N: what\", then a\n"
    "closing line \"FILE: OK\" or \"FILE: N problem(s)\".\n"
    "\n"
    "Options:\n"
    "  -q, --quiet  print nothing; only the exit status tells\n"
    "  -h, --help   show this help\n"
    "\n"
    "Exit status: 0 the file is sound, 1 a problem was found (or the file\n"
    "cannot be read), 2 bad usage.\n", stdout);
}

typedef struct
{
  uint64_t problems;
  int quiet;
  logfmt_error_t last;   /* the previous report, to drop repeats */
} verify_ctx_t;

static void
report_cb (void *user, const logfmt_error_t *problem)
{
  verify_ctx_t *v = user;
  /* Several checks can trip over the same damaged chunk (framing, then
   * decoding); one line per distinct problem. */
  if (v->problems > 0 && v->last.code == problem->code
      && v->last.offset == problem->offset
      && strcmp (v->last.message, problem->message) == 0)
    return;
  v->last = *problem;
  v->problems++;
  if (v->quiet)
    return;
  if (problem->code == LOGFMT_EIO || problem->code == LOGFMT_ENOMEM)
    {
      /* Not a finding about the contents: the file could not be read. */
      fflush (stdout);
      clogtool__lib_error (NULL, problem->code, problem);
      return;
    }
  if (problem->message[0] != '\0')
    printf ("%s\n", problem->message);
  else if (problem->offset != UINT64_MAX)
    printf ("offset %" PRIu64 ": %s\n", problem->offset,
            logfmt_strerror (problem->code));
  else
    printf ("%s\n", logfmt_strerror (problem->code));
}

int
clogtool_verify_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  verify_ctx_t v;

  memset (&v, 0, sizeof v);
  int c;

  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":qh", longopts, NULL)) != -1)
    {
      switch (c)
        {
        case 'q':
          v.quiet = 1;
          break;
        case 'h':
          verify_help ();
          return clogtool__exit_after_output ();
        default:
          return clogtool__bad_option ("verify", c, argv);
        }
    }
  if (clogtool__one_file ("verify", argc) != 0)
    return CLOGTOOL_EXIT_USAGE;

  const char *path = argv[optind];
  int rc = logfmt_verify (path, report_cb, &v);
  if (rc < 0 && v.problems == 0)
    {
      /* Failed before any check could report (e.g. no such file). */
      if (!v.quiet)
        clogtool__error ("%s: %s", path, logfmt_strerror (rc));
      return CLOGTOOL_EXIT_PROBLEM;
    }
  if (!v.quiet)
    {
      if (rc == 0 && v.problems == 0)
        printf ("%s: OK\n", path);
      else
        printf ("%s: %" PRIu64 " problem%s\n", path, v.problems,
                v.problems == 1 ? "" : "s");
    }
  if (clogtool__flush_stdout () < 0)
    return CLOGTOOL_EXIT_PROBLEM;
  return rc == 0 && v.problems == 0 ? CLOGTOOL_EXIT_OK
                                    : CLOGTOOL_EXIT_PROBLEM;
}

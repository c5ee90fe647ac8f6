/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool repair: rebuild a finished file from a damaged or partial one
 * through logfmt_repair. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "clogtool.h"
#include "clogtool-internal.h"

static void
repair_help (void)
{
  fputs (
    "Usage: clogtool repair IN -o OUT\n"
    "\n"
    "Rebuilds a complete log from a damaged or unfinished one (e.g. a run\n"
    "that was killed while writing): scans IN chunk by chunk, keeps every\n"
    "event block whose checksum holds and writes OUT with a new index,\n"
    "summaries, message table and trailer.  Prints the number of blocks\n"
    "kept and lost (damaged), whether IN was partial (cut or unfinished:\n"
    "what followed its last whole chunk cannot be counted), and whether\n"
    "the message table was kept or rebuilt from the sends and receives\n"
    "(it is rebuilt unless it pairs exactly the ones kept).  IN is never\n"
    "modified.\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT  the file to write (required, not IN); \"-\" is\n"
    "                    standard output (the report then goes to stderr)\n"
    "  -h, --help        show this help\n"
    "\n"
    "Exit status: 0 OUT was written (even if blocks were lost), 1 error,\n"
    "2 bad usage.\n", stdout);
}

int
clogtool_repair_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  const char *out = NULL;
  int c;

  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":o:h", longopts, NULL)) != -1)
    {
      switch (c)
        {
        case 'o':
          out = optarg;
          break;
        case 'h':
          repair_help ();
          return clogtool__exit_after_output ();
        default:
          return clogtool__bad_option ("repair", c, argv);
        }
    }
  if (optind != argc - 1)
    return clogtool__usage_error ("repair", optind == argc
                                  ? "no input FILE given"
                                  : "too many input FILEs");
  if (out == NULL)
    return clogtool__usage_error ("repair", "no output given (-o OUT)");

  const char *in = argv[optind];
  struct stat si, so;
  if (stat (in, &si) == 0 && stat (out, &so) == 0
      && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
    return clogtool__usage_error ("repair", "OUT must differ from IN");

  logfmt_repair_report_t rep;
  logfmt_error_t err;
  memset (&err, 0, sizeof err);
  /* The writer seeks: "-" goes through a temporary file. */
  char tmp[PATH_MAX];
  const char *path = clogtool__out_begin (out, tmp);
  if (!path)
    return CLOGTOOL_EXIT_PROBLEM;
  int rc = logfmt_repair_report (in, path, &rep, &err);
  if (rc < 0)
    clogtool__lib_error (in, rc, &err);
  if (clogtool__out_end (out, path, rc >= 0) < 0 || rc < 0)
    return CLOGTOOL_EXIT_PROBLEM;
  FILE *f = path == out ? stdout : stderr;
  fprintf (f, "%s: kept %" PRIu64 " block%s, lost %" PRIu64
           " damaged block%s\n", out, rep.blocks_kept,
           rep.blocks_kept == 1 ? "" : "s", rep.blocks_lost,
           rep.blocks_lost == 1 ? "" : "s");
  if (rep.partial)
    fprintf (f, "%s: the input is partial (no valid trailer): what "
             "followed its last whole chunk is lost and not counted "
             "above\n", out);
  if (rep.rematched)
    fprintf (f, "%s: message table rebuilt from the sends and receives "
             "kept\n", out);
  else
    fprintf (f, "%s: message table kept (%" PRIu64 " entries)\n", out,
             rep.messages);
  return clogtool__exit_after_output ();
}

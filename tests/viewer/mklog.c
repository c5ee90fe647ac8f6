/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes the viewer's hand-built test log (see mv-testlog.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mv-testlog.h"

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--msgs") == 0)
    return mv_testlog_write_msgs (argv[2]) == 0 ? 0 : 1;
  if (argc == 3 && strcmp (argv[1], "--metric") == 0)
    return mv_testlog_write_metric (argv[2]) == 0 ? 0 : 1;
  if (argc == 3 && strcmp (argv[1], "--nodes") == 0)
    return mv_testlog_write_nodes (argv[2]) == 0 ? 0 : 1;
  if (argc == 3 && strcmp (argv[1], "--info") == 0)
    return mv_testlog_write_info (argv[2]) == 0 ? 0 : 1;
  if (argc == 3 && strcmp (argv[1], "--samples") == 0)
    return mv_testlog_write_samples (argv[2]) == 0 ? 0 : 1;
  if (argc < 2 || argc > 4)
    {
      fprintf (stderr, "usage: mklog OUT.clog [SCALE [RANKS]]\n"
               "       mklog --msgs OUT.clog\n"
               "       mklog --metric OUT.clog\n"
               "       mklog --nodes OUT.clog\n"
               "       mklog --samples OUT.clog\n"
               "       mklog --info OUT.clog\n");
      return 2;
    }
  unsigned long long scale = argc >= 3 ? strtoull (argv[2], NULL, 10) : 1;
  int nranks = argc == 4 ? atoi (argv[3]) : 2;
  return mv_testlog_write_n (argv[1], scale, nranks) == 0 ? 0 : 1;
}

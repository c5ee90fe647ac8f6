/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes the viewer's hand-built test log (see mv-testlog.h). */
#include <stdio.h>
#include <stdlib.h>

#include "mv-testlog.h"

int
main (int argc, char **argv)
{
  if (argc != 2 && argc != 3)
    {
      fprintf (stderr, "usage: mklog OUT.clog [SCALE]\n");
      return 2;
    }
  return mv_testlog_write (argv[1], argc == 3 ? strtoull (argv[2], NULL, 10)
                                              : 1) == 0 ? 0 : 1;
}

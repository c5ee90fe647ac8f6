/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include "clogtool.h"

int
clogtool_convert_main (int argc, char **argv)
{
  (void) argc; (void) argv;
  fprintf (stderr, "clogtool convert: not implemented yet\n");
  return 2;
}

/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include "clogtool.h"

int
clogtool_recover_main (int argc, char **argv)
{
  (void) argc; (void) argv;
  fprintf (stderr, "clogtool recover: not implemented yet\n");
  return 2;
}

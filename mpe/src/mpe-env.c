/* SPDX-License-Identifier: BSD-3-Clause */
/* Environment variables read by the logger. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe-internal.h"

int
mpe__env_bool (const char *name, int dflt)
{
  const char *v = getenv (name);
  if (!v)
    return dflt;
  if (!strcmp (v, "true") || !strcmp (v, "TRUE") || !strcmp (v, "yes")
      || !strcmp (v, "YES") || !strcmp (v, "1"))
    return 1;
  if (!strcmp (v, "false") || !strcmp (v, "FALSE") || !strcmp (v, "no")
      || !strcmp (v, "NO") || !strcmp (v, "0"))
    return 0;
  fprintf (stderr, "mpe: %s=%s is not a boolean (true/false/yes/no); "
           "keeping the default\n", name, v);
  return dflt;
}

/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include <glib/gstdio.h>

#include "mv-test-log.h"

gboolean
mv_test_log_on (void)
{
  const char *path = g_getenv ("MPEVIEW_TEST_LOG");
  return path && *path;
}

void
mv_test_log (const char *fmt, ...)
{
  static FILE *fp;
  static gboolean tried;
  if (!tried)
    {
      tried = TRUE;
      fp = mv_test_log_on () ? g_fopen (g_getenv ("MPEVIEW_TEST_LOG"), "a")
                             : NULL;
    }
  if (fp == NULL)
    return;
  va_list ap;
  va_start (ap, fmt);
  vfprintf (fp, fmt, ap);
  va_end (ap);
  fputc ('\n', fp);
  fflush (fp);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Replays the committed CLOG2 corpus through the fuzz target (TAP). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/tap.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
main (int argc, char **argv)
{
  const char *src = getenv ("top_srcdir");
  char dir[4096];
  snprintf (dir, sizeof dir, "%s/tests/interop/corpus",
            argc > 1 ? "." : src ? src : ".");
  if (argc > 1)
    snprintf (dir, sizeof dir, "%s", argv[1]);
  DIR *d = opendir (dir);
  if (!ok (d != NULL, "corpus %s opens", dir))
    return exit_status ();
  struct dirent *e;
  int n = 0;
  while ((e = readdir (d)))
    {
      char p[8192];
      if (e->d_name[0] == '.')
        continue;
      snprintf (p, sizeof p, "%s/%s", dir, e->d_name);
      FILE *f = fopen (p, "rb");
      if (!f)
        continue;
      fseek (f, 0, SEEK_END);
      long len = ftell (f);
      fseek (f, 0, SEEK_SET);
      uint8_t *buf = malloc (len > 0 ? (size_t) len : 1);
      size_t got = fread (buf, 1, (size_t) len, f);
      fclose (f);
      LLVMFuzzerTestOneInput (buf, got);
      free (buf);
      ok (1, "%s replays", e->d_name);
      n++;
    }
  closedir (d);
  ok (n >= 8, "corpus has %d inputs", n);
  return exit_status ();
}

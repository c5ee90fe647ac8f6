/* SPDX-License-Identifier: BSD-3-Clause */
/* Replays files (or every file of directories) through the fuzz target,
 * so the corpus runs under `make check` with any compiler. */
#include "tests/common/tap.h"

#include <dirent.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int
replay (const char *path)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return 0;
  uint8_t *buf = malloc (1 << 22);
  size_t n = fread (buf, 1, 1 << 22, f);
  fclose (f);
  LLVMFuzzerTestOneInput (buf, n);
  free (buf);
  return 1;
}

int
main (int argc, char **argv)
{
  int files = 0;
  for (int i = 1; i < argc; i++)
    {
      struct stat st;
      if (stat (argv[i], &st) != 0)
        continue;
      if (!S_ISDIR (st.st_mode))
        {
          files += replay (argv[i]);
          continue;
        }
      DIR *d = opendir (argv[i]);
      struct dirent *de;
      while (d && (de = readdir (d)))
        {
          if (de->d_name[0] == '.')
            continue;
          char p[4096];
          snprintf (p, sizeof p, "%s/%s", argv[i], de->d_name);
          files += replay (p);
        }
      if (d)
        closedir (d);
    }
  ok (files >= 20, "replayed %d corpus files without a crash", files);
  return exit_status ();
}

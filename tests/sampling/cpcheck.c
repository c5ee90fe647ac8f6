/* SPDX-License-Identifier: BSD-3-Clause */
/* Prints a .clog's call-path tables, one line per rank:
 *   rank R modules M nodes N exe BASENAME build-id yes|no pseudo P
 * then, with -v, every node as "node I parent P module M addr 0xA".
 * Checks the tree's shape on the way (parent before child). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logfmt/logfmt.h"

int
main (int argc, char **argv)
{
  int verbose = argc > 2 && !strcmp (argv[1], "-v");
  const char *path = argv[argc - 1];
  if (argc < 2)
    return 2;
  logfmt_reader_t *r;
  logfmt_error_t err;
  if (logfmt_reader_open (path, 0, &r, &err))
    {
      fprintf (stderr, "cpcheck: %s\n", err.message);
      return 1;
    }
  int32_t ranks[4096];
  size_t n = logfmt_reader_callpath_ranks (r, ranks, 4096);
  printf ("ranks %zu\n", n);
  int bad = 0;
  for (size_t i = 0; i < n && i < 4096; i++)
    {
      logfmt_callpaths_t *cp;
      if (logfmt_reader_callpaths (r, ranks[i], &cp, &err))
        {
          fprintf (stderr, "cpcheck: %s\n", err.message);
          bad = 1;
          continue;
        }
      const char *exe = cp->nmodules ? cp->modules[0].path : "";
      int has_id = 0;
      size_t pseudo = 0;
      for (size_t k = 0; k < cp->nmodules; k++)
        if (strstr (cp->modules[k].path, "/hot"))
          {
            exe = cp->modules[k].path;
            has_id = cp->modules[k].build_id[0] != '\0';
          }
      for (size_t k = 1; k < cp->nnodes; k++)
        {
          bad |= cp->nodes[k].parent >= k;
          pseudo += cp->nodes[k].module == LOGFMT_NO_MODULE
                    && cp->nodes[k].addr >= LOGFMT_PSEUDO_BASE;
          if (verbose)
            printf ("node %zu parent %u module %u addr 0x%llx\n", k,
                    cp->nodes[k].parent, cp->nodes[k].module,
                    (unsigned long long) cp->nodes[k].addr);
        }
      const char *base = strrchr (exe, '/');
      printf ("rank %d modules %zu nodes %zu exe %s build-id %s pseudo %zu\n",
              (int) cp->rank, cp->nmodules, cp->nnodes, base ? base + 1 : exe,
              has_id ? "yes" : "no", pseudo);
      logfmt_callpaths_free (cp);
    }
  logfmt_reader_close (r);
  return bad;
}

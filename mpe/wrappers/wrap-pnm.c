/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPE_LOG_RANK2PROCNAME (as MPE2's liblmpe): when rank 0's value is true,
 * MPI_Finalize writes <log name>.pnm next to the log, one line per rank,
 * "Rank <r> : <processor name>".  Collective over MPI_COMM_WORLD.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe/wrappers/wrap-internal.h"
#include "mpe_log.h"

/* MPE2's booleans: 1 true, 0 false, -1 unset or not one of them. */
static int
env_bool (const char *name)
{
  const char *v = getenv (name);
  if (!v)
    return -1;
  if (!strcmp (v, "true") || !strcmp (v, "TRUE") || !strcmp (v, "yes")
      || !strcmp (v, "YES"))
    return 1;
  if (!strcmp (v, "false") || !strcmp (v, "FALSE") || !strcmp (v, "no")
      || !strcmp (v, "NO"))
    return 0;
  fprintf (stderr, "MPE: %s=%s is not true/yes/false/no; ignored\n", name,
           v);
  return -1;
}

void
mpe__wrap_rank2procname (void)
{
  int rank, size, on = 0;
  PMPI_Comm_rank (MPI_COMM_WORLD, &rank);
  PMPI_Comm_size (MPI_COMM_WORLD, &size);
  if (rank == 0)
    on = env_bool ("MPE_LOG_RANK2PROCNAME") == 1;
  PMPI_Bcast (&on, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!on)
    return;
  char name[MPI_MAX_PROCESSOR_NAME] = "", *all = NULL;
  int len = 0;
  PMPI_Get_processor_name (name, &len);
  if (rank == 0)
    all = calloc ((size_t) size, MPI_MAX_PROCESSOR_NAME);
  PMPI_Gather (name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all,
               MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank != 0)
    return;
  const char *log = MPE_Log_merged_logfilename ();
  FILE *f = NULL;
  char *path = NULL;
  if (log && *log && all && (path = malloc (strlen (log) + 5)))
    {
      sprintf (path, "%s.pnm", log);
      f = fopen (path, "w");
    }
  if (!f)
    fprintf (stderr, "MPE: MPE_LOG_RANK2PROCNAME: cannot write %s.pnm\n",
             log ? log : "(no log)");
  else
    {
      for (int r = 0; r < size; r++)
        fprintf (f, "Rank %d : %.*s\n", r, MPI_MAX_PROCESSOR_NAME,
                 all + (size_t) r * MPI_MAX_PROCESSOR_NAME);
      if (fclose (f) != 0)
        fprintf (stderr, "MPE: MPE_LOG_RANK2PROCNAME: cannot write %s\n",
                 path);
    }
  free (path);
  free (all);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* libtmpe by hand: MPI_Init*, MPI_Finalize and the line printer. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "mpe/wrappers/tmpe-internal.h"

_Atomic int mpe__trace_on;
__thread int mpe__trace_nest __attribute__ ((tls_model ("initial-exec")));
static int trace_rank = -1;

void
mpe__trace_line (const char *fmt, ...)
{
  va_list ap;
  char buf[512];
  va_start (ap, fmt);
  vsnprintf (buf, sizeof buf, fmt, ap);
  va_end (ap);
  /* One fprintf per line, so lines from threads never interleave. */
  fprintf (stdout, "[%d] %s\n", trace_rank, buf);
  fflush (stdout);
}

static void
trace_started (void)
{
  PMPI_Comm_rank (MPI_COMM_WORLD, &trace_rank);
  atomic_store (&mpe__trace_on, 1);
  mpe__trace_line ("Ending MPI_Init");
}

/* The rank is not known yet, so the first line has no prefix (MPE2). */
int
MPI_Init (int *argc, char ***argv)
{
  int rc;
  fputs ("Starting MPI_Init...\n", stdout);
  fflush (stdout);
  rc = PMPI_Init (argc, argv);
  if (rc == MPI_SUCCESS)
    trace_started ();
  return rc;
}

int
MPI_Init_thread (int *argc, char ***argv, int required, int *provided)
{
  int rc;
  fputs ("Starting MPI_Init_thread...\n", stdout);
  fflush (stdout);
  rc = PMPI_Init_thread (argc, argv, required, provided);
  if (rc == MPI_SUCCESS)
    trace_started ();
  return rc;
}

int
MPI_Finalize (void)
{
  int rc, on = atomic_load (&mpe__trace_on);
  if (on)
    mpe__trace_line ("Starting MPI_Finalize...");
  atomic_store (&mpe__trace_on, 0);
  rc = PMPI_Finalize ();
  if (on)
    mpe__trace_line ("Ending MPI_Finalize");
  return rc;
}

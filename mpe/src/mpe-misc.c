/* SPDX-License-Identifier: BSD-3-Clause */
/* MPE2's miscellaneous helpers (mpe_misc.h). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpe_misc.h"

#define MISC __attribute__ ((visibility ("default")))

enum { SEQ_TAG = 28000 };

/* Ranks run one after another (in groups of ng) between begin and end. */
MISC void
MPE_Seq_begin (MPI_Comm comm, int ng)
{
  int rank, np, flag = 0;
  if (ng < 1)
    ng = 1;
  PMPI_Comm_rank (comm, &rank);
  PMPI_Comm_size (comm, &np);
  (void) flag;
  if (rank >= ng && rank % ng == 0)
    PMPI_Recv (NULL, 0, MPI_INT, rank - ng, SEQ_TAG, comm, MPI_STATUS_IGNORE);
  else if (rank % ng != 0)
    PMPI_Recv (NULL, 0, MPI_INT, rank - 1, SEQ_TAG, comm, MPI_STATUS_IGNORE);
}

MISC void
MPE_Seq_end (MPI_Comm comm, int ng)
{
  int rank, np;
  if (ng < 1)
    ng = 1;
  PMPI_Comm_rank (comm, &rank);
  PMPI_Comm_size (comm, &np);
  int next = (rank % ng == ng - 1 || rank == np - 1)
             ? (rank / ng + 1) * ng : rank + 1;
  if (rank % ng != ng - 1 && rank + 1 < np)
    PMPI_Send (NULL, 0, MPI_INT, rank + 1, SEQ_TAG, comm);
  else if ((rank / ng) * ng + ng < np)
    PMPI_Send (NULL, 0, MPI_INT, (rank / ng) * ng + ng, SEQ_TAG, comm);
  (void) next;
  PMPI_Barrier (comm);
}

/* Tags: this implementation hands out tags from a private duplicate. */
static int tag_next = 1 << 20;

MISC int
MPE_DelTag (MPI_Comm comm, int keyval, void *attr_val, void *extra_state)
{
  (void) comm; (void) keyval; (void) extra_state;
  free (attr_val);
  return MPI_SUCCESS;
}

MISC int
MPE_GetTags (MPI_Comm comm_in, int ntags, MPI_Comm *comm_out, int *first_tag)
{
  PMPI_Comm_dup (comm_in, comm_out);
  *first_tag = tag_next;
  tag_next += ntags > 0 ? ntags : 0;
  return MPI_SUCCESS;
}

MISC int
MPE_ReturnTags (MPI_Comm comm, int first_tag, int ntags)
{
  (void) comm; (void) first_tag; (void) ntags;
  return 0;
}

MISC int
MPE_TagsEnd (void)
{
  return 0;
}

MISC void
MPE_IO_Stdout_to_file (char *name, int mode)
{
  int fd = open (name, O_WRONLY | O_CREAT | O_TRUNC, mode ? mode : 0644);
  if (fd >= 0)
    {
      fflush (stdout);
      dup2 (fd, 1);
      close (fd);
    }
}

MISC void
MPE_GetHostName (char *name, int len)
{
  if (len <= 0)
    return;
  if (gethostname (name, (size_t) len) != 0)
    snprintf (name, (size_t) len, "unknown");
  name[len - 1] = '\0';
}

MISC void
MPE_Start_debugger (void)
{
  fprintf (stderr, "MPE_Start_debugger: attach a debugger to pid %ld\n",
           (long) getpid ());
}

MISC void
MPE_Errors_call_debugger (char *pgm, char *dbg, char **args)
{
  (void) pgm; (void) dbg; (void) args;
  MPE_Start_debugger ();
}

MISC void
MPE_Errors_call_xdbx (char *pgm, char *dbg)
{
  MPE_Errors_call_debugger (pgm, dbg, NULL);
}

MISC void
MPE_Errors_call_dbx_in_xterm (char *pgm, char *dbg)
{
  MPE_Errors_call_debugger (pgm, dbg, NULL);
}

MISC void
MPE_Signals_call_debugger (void)
{
}

MISC int
MPE_Decomp1d (int n, int size, int rank, int *s, int *e)
{
  int nlocal = n / size, deficit = n % size;
  *s = rank * nlocal + 1 + (rank < deficit ? rank : deficit);
  if (rank < deficit)
    nlocal++;
  *e = *s + nlocal - 1;
  if (*e > n || rank == size - 1)
    *e = n;
  return MPI_SUCCESS;
}

MISC void
MPE_Comm_global_rank (MPI_Comm comm, int rank, int *world_rank)
{
  MPI_Group g, w;
  PMPI_Comm_group (comm, &g);
  PMPI_Comm_group (MPI_COMM_WORLD, &w);
  PMPI_Group_translate_ranks (g, 1, &rank, w, world_rank);
  PMPI_Group_free (&g);
  PMPI_Group_free (&w);
}

MISC void
MPE_Errors_to_dbx (MPI_Comm *comm, int *code, ...)
{
  (void) comm; (void) code;
  MPE_Start_debugger ();
}

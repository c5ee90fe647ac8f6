/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Init without argv, as a Fortran program's is, under the logging
 * wrappers: the log takes the executable's name. */
#include <stddef.h>

#include <mpi.h>

int
main (void)
{
  MPI_Init (NULL, NULL);
  MPI_Barrier (MPI_COMM_WORLD);
  MPI_Finalize ();
  return 0;
}

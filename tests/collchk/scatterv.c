/* SPDX-License-Identifier: BSD-3-Clause */
/* Like MPE2's collchk tests "scatterv" and "wrong_scatterv": the root
   scatters blocks of an nx*ny-per-process matrix held in Fortran order,
   each block a strided vector of doubles whose extent is cut down to
   one column (with MPI_UB, as MPE2's test does, or with
   MPI_Type_create_resized: the argument "resized"), so that the blocks
   overlap; every rank receives nx*ny doubles.  Built with
   -DSCATTERV_WRONG, the last rank receives nx*ny MPI_2INT instead: the
   one mistake, which only that rank must report. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 10, NY = 8 };

int
main (int argc, char **argv)
{
  int rank, size, dims[2] = { 0, 0 }, periods[2] = { 0, 0 }, coords[2];
  MPI_Comm grid;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  int resized = argc > 1 && strcmp (argv[1], "resized") == 0;
  MPI_Dims_create (size, 2, dims);
  MPI_Cart_create (MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  MPI_Comm_rank (grid, &rank);
  MPI_Cart_coords (grid, rank, 2, coords);

  /* The whole matrix: dims[0] blocks of NX rows by dims[1] blocks of NY
     columns, column-major. */
  int rows = NX * dims[0];
  double *matrix = NULL, *mine = malloc (NX * NY * sizeof *mine);
  if (rank == 0)
    {
      matrix = malloc ((size_t) rows * NY * dims[1] * sizeof *matrix);
      for (int c = 0; c < NY * dims[1]; c++)
        for (int r = 0; r < rows; r++)
          matrix[r + (size_t) c * rows] = 1000.0 * c + r;
    }
  for (int i = 0; i < NX * NY; i++)
    mine[i] = -1;

  MPI_Datatype col, block;
  MPI_Type_vector (NY, NX, rows, MPI_DOUBLE, &col);
  if (resized)
    MPI_Type_create_resized (col, 0, NX * sizeof (double), &block);
  else
    {
#ifdef MPI_UB
      int bl[2] = { 1, 1 };
      MPI_Aint d[2] = { 0, NX * sizeof (double) };
      MPI_Datatype ts[2] = { col, MPI_UB };
      MPI_Type_create_struct (2, bl, d, ts, &block);
#else
      MPI_Type_create_resized (col, 0, NX * sizeof (double), &block);
#endif
    }
  MPI_Type_commit (&block);
  MPI_Type_free (&col);

  /* Block (i, j) starts at row i*NX, column j*NY: in units of the
     block's extent (NX doubles), i + j * dims[0] * NY. */
  int *counts = malloc (size * sizeof *counts);
  int *displs = malloc (size * sizeof *displs);
  for (int p = 0; p < size; p++)
    {
      int pc[2];
      MPI_Cart_coords (grid, p, 2, pc);
      counts[p] = 1;
      displs[p] = pc[0] + pc[1] * dims[0] * NY;
    }
  MPI_Datatype rtype = MPI_DOUBLE;
#ifdef SCATTERV_WRONG
  if (rank == size - 1)
    rtype = MPI_2INT;
#endif
  MPI_Scatterv (matrix, counts, displs, block, mine, NX * NY, rtype, 0,
                grid);

  int errs = 0;
  for (int c = 0; c < NY; c++)
    for (int r = 0; r < NX; r++)
      errs += mine[r + c * NX]
              != 1000.0 * (coords[1] * NY + c) + coords[0] * NX + r;
  int total = 0;
  MPI_Allreduce (&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf (total ? "%d errors in MPI_Scatterv\n" : " No Errors\n", total);
  MPI_Type_free (&block);
  MPI_Comm_free (&grid);
  free (matrix);
  free (mine);
  free (counts);
  free (displs);
  MPI_Finalize ();
  return total != 0;
}

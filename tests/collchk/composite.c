/* SPDX-License-Identifier: BSD-3-Clause */
/* Like MPE2's collchk test "composite": ranks describe the same data
   with different but matching datatypes (a predefined pair type against
   an equivalent struct, MPI_2INT against two MPI_INTs), which is correct
   and must run clean under the checker.  With the argument "wrong" the
   last rank's struct is {int, float} (MPE2's "wrong_composite"): one
   mismatch, reported by that rank. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
  int rank, size;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  int wrong = argc > 1 && strcmp (argv[1], "wrong") == 0;

  struct float_int { float f; int i; } fi = { 0.0f, 0 };
  if (rank == 0)
    fi.f = 2.5f, fi.i = 7;
  if (rank != size - 1)
    MPI_Bcast (&fi, 1, MPI_FLOAT_INT, 0, MPI_COMM_WORLD);
  else
    {
      MPI_Datatype t, m[2] = { MPI_FLOAT, MPI_INT };
      int bl[2] = { 1, 1 };
      MPI_Aint d[2] = { offsetof (struct float_int, f),
                        offsetof (struct float_int, i) };
      if (wrong)
        m[0] = MPI_INT, m[1] = MPI_FLOAT;
      MPI_Type_create_struct (2, bl, d, m, &t);
      MPI_Type_commit (&t);
      MPI_Bcast (&fi, 1, t, 0, MPI_COMM_WORLD);
      MPI_Type_free (&t);
    }

  /* Each rank's (value, rank) pair gathered as MPI_2INT at the root,
     sent as two ints. */
  int mine[2] = { 10 * rank, rank }, *all = NULL, errs = 0;
  int all_buf[2 * 64];
  if (size <= 64)
    all = all_buf;
  if (all)
    {
      MPI_Gather (mine, 2, MPI_INT, all, 1, MPI_2INT, 0, MPI_COMM_WORLD);
      for (int r = 0; rank == 0 && r < size; r++)
        errs += all[2 * r] != 10 * r || all[2 * r + 1] != r;
    }

  /* MAXLOC over MPI_DOUBLE_INT: every rank passes the pair type. */
  struct { double v; int r; } in = { (double) (rank % 3), rank }, out;
  MPI_Allreduce (&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);

  errs += fi.f != 2.5f || fi.i != 7;
  printf ("rank %d: %s (float-int %.1f %d, maxloc %.0f at %d)\n", rank,
          errs ? "errors" : "No Errors", fi.f, fi.i, out.v, out.r);
  MPI_Finalize ();
  return errs != 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * In the style of MPE2's graphics examples (cpi with graphics, the
 * Monte-Carlo pi of its tutorials): built unchanged with
 * `mpecc -graphics gpi.c`, only "mpi.h" and "mpe.h" included (mpe.h
 * brings mpe_graphics.h in when MPE_GRAPHICS is defined, as in MPE2).
 * Every process throws darts at the unit square and draws each one, in
 * its own colour inside the circle, black outside.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi.h"
#include "mpe.h"

#define WINDOW_SIZE 400
#define DARTS       20000

int
main (int argc, char *argv[])
{
  int myid, numprocs, i, in = 0, total_in, total;
  double x, y, pi;
  MPE_XGraph graph;
  MPE_Color my_color;
  unsigned int seed;

  MPI_Init (&argc, &argv);
  MPI_Comm_size (MPI_COMM_WORLD, &numprocs);
  MPI_Comm_rank (MPI_COMM_WORLD, &myid);
  if (MPE_Open_graphics (&graph, MPI_COMM_WORLD, (char *) 0, -1, -1,
                         WINDOW_SIZE, WINDOW_SIZE, 0) != MPE_SUCCESS)
    {
      fprintf (stderr, "%d: could not open the graphics\n", myid);
      MPI_Abort (MPI_COMM_WORLD, 1);
    }
  my_color = (MPE_Color) (myid % 14 + 2);
  if (myid == 0)
    {
      MPE_Fill_rectangle (graph, 0, 0, WINDOW_SIZE, WINDOW_SIZE, MPE_WHITE);
      MPE_Draw_circle (graph, WINDOW_SIZE / 2, WINDOW_SIZE / 2,
                       WINDOW_SIZE / 2, MPE_BLACK);
    }
  MPE_Update (graph);
  seed = 17u * (unsigned) myid + 1u;
  for (i = 0; i < DARTS; i++)
    {
      x = 2.0 * rand_r (&seed) / RAND_MAX - 1.0;
      y = 2.0 * rand_r (&seed) / RAND_MAX - 1.0;
      if (x * x + y * y <= 1.0)
        {
          in++;
          MPE_Draw_point (graph, (int) ((x + 1) * WINDOW_SIZE / 2),
                          (int) ((y + 1) * WINDOW_SIZE / 2), my_color);
        }
      else
        MPE_Draw_point (graph, (int) ((x + 1) * WINDOW_SIZE / 2),
                        (int) ((y + 1) * WINDOW_SIZE / 2), MPE_BLACK);
      if (i % 1000 == 999)
        MPE_Update (graph);
    }
  MPI_Reduce (&in, &total_in, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  total = DARTS * numprocs;
  if (myid == 0)
    {
      pi = 4.0 * total_in / total;
      printf ("pi is approximately %.4f, Error is %.4f\n", pi,
              fabs (pi - 3.141592653589793238462643));
    }
  MPE_Close_graphics (&graph);
  MPI_Finalize ();
  return 0;
}

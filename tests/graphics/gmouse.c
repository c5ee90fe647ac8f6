/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gmouse READY-FILE: run with a display (Xvfb).  Opens a 300 x 200
 * window on 2 ranks; rank 1 checks that nothing is pressed yet, then
 * touches READY-FILE and takes two mouse presses (printed "press X Y
 * BUTTON"); rank 0 then takes a rectangle drag with button 1 and a
 * fixed-ratio drag (printed "drag X1 Y1 X2 Y2").  The test script
 * injects the presses and drags with xdotool.
 */
#include <stdio.h>

#include <mpi.h>

#include "mpe_graphics.h"

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, x, y, b, p, x2, y2, rc;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPE_XGraph g = NULL;
  if (argc < 2 || MPE_Open_graphics (&g, MPI_COMM_WORLD, NULL, 0, 0, 300,
                                     200, 0) != MPE_SUCCESS)
    MPI_Abort (MPI_COMM_WORLD, 1);
  MPE_Fill_rectangle (g, 0, 0, 300, 200, MPE_WHITE);
  MPE_Update (g);
  if (rank == 1)
    {
      rc = MPE_Iget_mouse_press (g, &x, &y, &b, &p);
      printf ("iget %d %d\n", rc, p);
      fflush (stdout);
      FILE *f = fopen (argv[1], "w");
      if (f)
        fclose (f);
      for (int i = 0; i < 2; i++)
        {
          rc = MPE_Get_mouse_press (g, &x, &y, &b);
          printf ("press %d %d %d rc %d\n", x, y, b, rc);
          fflush (stdout);
        }
    }
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    {
      rc = MPE_Get_drag_region (g, MPE_BUTTON1, MPE_DRAG_RECT, &x, &y, &x2,
                                &y2);
      printf ("drag %d %d %d %d rc %d\n", x, y, x2, y2, rc);
      fflush (stdout);
      rc = MPE_Get_drag_region_fixratio (g, MPE_BUTTON1, 0.5, &x, &y, &x2,
                                         &y2);
      printf ("drag %d %d %d %d rc %d\n", x, y, x2, y2, rc);
      fflush (stdout);
    }
  MPE_Close_graphics (&g);
  MPI_Finalize ();
  return 0;
}

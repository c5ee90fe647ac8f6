/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gmany PREFIX: all ranks draw at once, many small batches each: rank r
 * covers its 40 x 100 stripe point by point over 20 updates (colour
 * 2 + r % 14) while XORing a rectangle over it twice per batch.  Rank 0
 * captures the frame after everybody's last MPE_Update; every pixel of
 * every stripe must have its rank's colour (PREFIX.expect.RANK).
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "mpe_graphics.h"

static const unsigned rgb[16] = {
  0xffffff, 0x000000, 0xff0000, 0xffff00, 0x00ff00, 0x00ffff, 0x0000ff,
  0xff00ff, 0x7fffd4, 0x228b22, 0xffa500, 0xb03060, 0xa52a2a, 0xffc0cb,
  0xff7f50, 0xbebebe
};

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size, bad = 0;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  MPE_XGraph g;
  if (argc < 2 || MPE_Open_graphics (&g, MPI_COMM_WORLD, NULL, -1, -1,
                                     40 * size, 100, 0) != MPE_SUCCESS)
    MPI_Abort (MPI_COMM_WORLD, 1);
  MPE_Color c = (MPE_Color) (2 + rank % 14);
  int x0 = 40 * rank;
  MPE_Point pts[200];
  for (int batch = 0; batch < 20; batch++)
    {
      for (int i = 0; i < 200; i++)
        {
          int k = batch * 200 + i;      /* 0 .. 3999: every pixel once */
          pts[i].x = x0 + k % 40;
          pts[i].y = k / 40;
          pts[i].c = c;
        }
      bad += MPE_Draw_points (g, pts, 200) != MPE_SUCCESS;
      MPE_Draw_logic (g, MPE_LOGIC_XOR);
      for (int twice = 0; twice < 2; twice++)
        bad += MPE_Fill_rectangle (g, x0 + 5, 5 * batch, 30, 7, MPE_BLUE)
               != MPE_SUCCESS;
      MPE_Draw_logic (g, MPE_LOGIC_COPY);
      bad += MPE_Update (g) != MPE_SUCCESS;
    }
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    {
      bad += MPE_CaptureFile (g, argv[1], 1) != MPE_SUCCESS;
      bad += MPE_Update (g) != MPE_SUCCESS;
    }
  MPI_Barrier (MPI_COMM_WORLD);
  bad += MPE_Close_graphics (&g) != MPE_SUCCESS;
  char name[4096];
  snprintf (name, sizeof name, "%s.expect.%d", argv[1], rank);
  FILE *ex = fopen (name, "w");
  if (ex)
    {
      fprintf (ex, "px %d 0 %06x\npx %d 99 %06x\n", x0, rgb[c], x0 + 39,
               rgb[c]);
      fprintf (ex, "none %d 0 %d 99 ffffff\n", x0, x0 + 39);
      fprintf (ex, "none %d 0 %d 99 %06x\n", x0, x0 + 39, rgb[c] ^ 0x0000ff);
      fclose (ex);
    }
  printf ("rank %d bad %d\n", rank, bad);
  MPI_Finalize ();
  return bad != 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided and MPI-IO data calls with known sizes (tests/mpe/rma-io.sh),
 * every MPI call logged (liblmpe): each rank puts 10 doubles into the
 * next rank's window, gets 4 ints from it, accumulates 3 doubles into
 * it (one fence epoch each), then writes 1000 bytes at its own offset of
 * a shared file and reads them back.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  double win_buf[16] = { 0 }, d[10] = { 1, 2, 3 };
  int iv[4] = { 0 };
  MPI_Win win;
  MPI_Win_create (win_buf, sizeof win_buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                  &win);
  int to = (rank + 1) % size;
  MPI_Win_fence (0, win);
  MPI_Put (d, 10, MPI_DOUBLE, to, 0, 10, MPI_DOUBLE, win);
  MPI_Win_fence (0, win);
  MPI_Get (iv, 4, MPI_INT, to, 0, 4, MPI_INT, win);
  MPI_Win_fence (0, win);
  MPI_Accumulate (d, 3, MPI_DOUBLE, to, 0, 3, MPI_DOUBLE, MPI_SUM, win);
  MPI_Win_fence (0, win);
  MPI_Win_free (&win);

  char block[1000];
  memset (block, 'a' + rank, sizeof block);
  MPI_File fh;
  const char *path = argc > 1 ? argv[1] : "rma-io.dat";
  if (MPI_File_open (MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                     MPI_INFO_NULL, &fh) == MPI_SUCCESS)
    {
      MPI_File_write_at (fh, (MPI_Offset) rank * 1000, block, 1000, MPI_CHAR,
                         MPI_STATUS_IGNORE);
      MPI_File_read_at (fh, (MPI_Offset) rank * 1000, block, 250, MPI_INT,
                        MPI_STATUS_IGNORE);
      MPI_File_close (&fh);
    }
  MPI_Finalize ();
  return 0;
}

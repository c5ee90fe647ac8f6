/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI programs with known communication patterns, logged by liblmpe, for
 * the exact checks of clogtool matrix and profile (patterns.sh).
 * Usage: patterns ring|alltoall|master|subcomm (4 ranks or more). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static char buf[1 << 16];

/* Three rounds: rank r sends 100 * (r + 1) bytes to its right
 * neighbour with MPI_Send and receives from its left with MPI_Recv. */
static void
ring (void)
{
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int round = 0; round < 3; round++)
    {
      if (rank % 2 == 0)
        {
          MPI_Send (buf, 100 * (rank + 1), MPI_BYTE, right, round,
                    MPI_COMM_WORLD);
          MPI_Recv (buf, sizeof buf, MPI_BYTE, left, round, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
        }
      else
        {
          MPI_Recv (buf, sizeof buf, MPI_BYTE, left, round, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
          MPI_Send (buf, 100 * (rank + 1), MPI_BYTE, right, round,
                    MPI_COMM_WORLD);
        }
    }
}

/* Every rank s sends (s * size + r + 1) * 8 bytes to every other rank r
 * (MPI_Isend, MPI_Recv, MPI_Waitall), then one MPI_Alltoall of 4 ints
 * per peer. */
static void
alltoall (void)
{
  MPI_Request *req = calloc ((size_t) size, sizeof *req);
  MPI_Status *st = calloc ((size_t) size, sizeof *st);
  int n = 0;
  static char out[1 << 16];
  for (int r = 0; r < size; r++)
    if (r != rank)
      MPI_Isend (out, (rank * size + r + 1) * 8, MPI_BYTE, r, 7,
                 MPI_COMM_WORLD, &req[n++]);
  for (int s = 0; s < size; s++)
    if (s != rank)
      MPI_Recv (buf, sizeof buf, MPI_BYTE, s, 7, MPI_COMM_WORLD,
                MPI_STATUS_IGNORE);
  MPI_Waitall (n, req, st);
  int *a = calloc ((size_t) size * 4, sizeof *a);
  int *b = calloc ((size_t) size * 4, sizeof *b);
  MPI_Alltoall (a, 4, MPI_INT, b, 4, MPI_INT, MPI_COMM_WORLD);
  free (a);
  free (b);
  free (req);
  free (st);
}

/* Rank 0 deals 10 tasks (one int each) round robin to the workers and
 * collects each result (one double) from any source; then a stop
 * message of 0 bytes to each worker. */
static void
master (void)
{
  const int tasks = 10;
  if (rank == 0)
    {
      for (int t = 0; t < tasks; t++)
        MPI_Send (&t, 1, MPI_INT, 1 + t % (size - 1), 1, MPI_COMM_WORLD);
      for (int t = 0; t < tasks; t++)
        {
          double d;
          MPI_Recv (&d, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
        }
      for (int w = 1; w < size; w++)
        MPI_Send (NULL, 0, MPI_INT, w, 3, MPI_COMM_WORLD);
    }
  else
    for (;;)
      {
        int t;
        MPI_Status st;
        MPI_Recv (&t, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == 3)
          break;
        double d = t * 2.0;
        MPI_Send (&d, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
      }
}

/* MPI_Comm_split by rank parity: in each half, local rank 0 sends two
 * messages of 64 bytes to local rank 1, which answers with 32 bytes;
 * then an MPI_Allreduce of 2 doubles on the half. */
static void
subcomm (void)
{
  MPI_Comm half;
  int lr;
  MPI_Comm_split (MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Comm_rank (half, &lr);
  if (lr == 0)
    {
      MPI_Send (buf, 64, MPI_BYTE, 1, 0, half);
      MPI_Send (buf, 64, MPI_BYTE, 1, 0, half);
      MPI_Recv (buf, sizeof buf, MPI_BYTE, 1, 1, half, MPI_STATUS_IGNORE);
    }
  else if (lr == 1)
    {
      MPI_Recv (buf, sizeof buf, MPI_BYTE, 0, 0, half, MPI_STATUS_IGNORE);
      MPI_Recv (buf, sizeof buf, MPI_BYTE, 0, 0, half, MPI_STATUS_IGNORE);
      MPI_Send (buf, 32, MPI_BYTE, 0, 1, half);
    }
  double in[2] = { rank, 1 }, out[2];
  MPI_Allreduce (in, out, 2, MPI_DOUBLE, MPI_SUM, half);
  MPI_Comm_free (&half);
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "";
  if (size < 4)
    {
      if (rank == 0)
        fprintf (stderr, "patterns: needs 4 ranks or more\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  if (strcmp (mode, "ring") == 0)
    ring ();
  else if (strcmp (mode, "alltoall") == 0)
    alltoall ();
  else if (strcmp (mode, "master") == 0)
    master ();
  else if (strcmp (mode, "subcomm") == 0)
    subcomm ();
  else
    {
      if (rank == 0)
        fprintf (stderr, "patterns: unknown mode '%s'\n", mode);
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  MPI_Finalize ();
  return 0;
}

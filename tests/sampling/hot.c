/* SPDX-License-Identifier: BSD-3-Clause */
/* A program with a known profile for the sampling tests: hot_loop gets
 * 4/5 of the compute (always called through via_helper), warm_loop 1/5;
 * between rounds every rank calls MPI_Barrier (ROUNDS times).
 * Usage: hot [UNITS_PER_ROUND [ROUNDS]]. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* The same work per unit in both loops, so the shares are the units'. */
#define WORK(n, acc)                                                    \
  for (long i_ = 0; i_ < (n) * 200000L; i_++)                           \
    acc = acc * 1.0000001 + (double) (i_ & 7)

__attribute__ ((noinline)) static double
hot_loop (long units)
{
  double acc = 1.0;
  WORK (units, acc);          /* hot line */
  return acc;
}

__attribute__ ((noinline)) static double
via_helper (long units)
{
  double r = hot_loop (units);
  __asm__ volatile ("" : : : "memory");
  return r;
}

__attribute__ ((noinline)) static double
warm_loop (long units)
{
  double acc = 2.0;
  WORK (units, acc);
  return acc;
}

int
main (int argc, char **argv)
{
  long units = argc > 1 ? atol (argv[1]) : 20;
  int rounds = argc > 2 ? atoi (argv[2]) : 20;
  MPI_Init (&argc, &argv);
  double sink = 0;
  for (int r = 0; r < rounds; r++)
    {
      sink += via_helper (4 * units);
      sink += warm_loop (units);
      MPI_Barrier (MPI_COMM_WORLD);
    }
  if (sink == 42.0)
    printf ("unlikely\n");
  MPI_Finalize ();
  return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cpilog: computes pi by integration, logging each phase as an MPE state
 * (with a value in the cargo of the "Compute" state), a solo event, and
 * message arrows for the broadcast and the reduction.
 *
 *   mpiexec -n 4 ./cpilog [prefix] [intervals] [rounds]   -> prefix.clog
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include "mpe.h"

int
main (int argc, char **argv)
{
  int rank, size;
  const char *prefix = argc > 1 ? argv[1] : "cpilog";
  int n = argc > 2 ? atoi (argv[2]) : 100000;
  int rounds = argc > 3 ? atoi (argv[3]) : 5;
  const double PI25DT = 3.141592653589793238462643;

  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  MPE_Init_log ();

  int bcast_a, bcast_b, comp_a, comp_b, red_a, red_b, done_ev;
  MPE_Log_get_state_eventIDs (&bcast_a, &bcast_b);
  MPE_Log_get_state_eventIDs (&comp_a, &comp_b);
  MPE_Log_get_state_eventIDs (&red_a, &red_b);
  MPE_Log_get_solo_eventID (&done_ev);
  if (rank == 0)
    {
      MPE_Describe_state (bcast_a, bcast_b, "Broadcast", "red");
      MPE_Describe_info_state (comp_a, comp_b, "Compute", "blue",
                               "intervals=%d sum=%E");
      MPE_Describe_state (red_a, red_b, "Reduce", "green");
      MPE_Describe_info_event (done_ev, "Round done", "yellow", "round %d");
    }

  double pi = 0;
  for (int r = 0; r < rounds; r++)
    {
      MPE_Log_event (bcast_a, 0, NULL);
      if (rank == 0)
        for (int d = 1; d < size; d++)
          MPE_Log_send (d, 1, (int) sizeof n);
      MPI_Bcast (&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (rank != 0)
        MPE_Log_receive (0, 1, (int) sizeof n);
      MPE_Log_event (bcast_b, 0, NULL);

      MPE_Log_event (comp_a, 0, NULL);
      double h = 1.0 / (double) n, sum = 0.0;
      for (int i = rank + 1; i <= n; i += size)
        {
          double x = h * ((double) i - 0.5);
          sum += 4.0 / (1.0 + x * x);
        }
      double mypi = h * sum;
      MPE_LOG_BYTES cargo;
      int pos = 0;
      MPE_Log_pack (cargo, &pos, 'd', 1, &n);
      MPE_Log_pack (cargo, &pos, 'E', 1, &mypi);
      MPE_Log_event (comp_b, 0, cargo);

      MPE_Log_event (red_a, 0, NULL);
      if (rank != 0)
        MPE_Log_send (0, 2, (int) sizeof mypi);
      MPI_Reduce (&mypi, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank == 0)
        for (int s = 1; s < size; s++)
          MPE_Log_receive (s, 2, (int) sizeof mypi);
      MPE_Log_event (red_b, 0, NULL);

      pos = 0;
      MPE_Log_pack (cargo, &pos, 'd', 1, &r);
      MPE_Log_event (done_ev, 0, cargo);
    }
  if (rank == 0)
    printf ("pi is approximately %.16f, error is %.16f\n", pi,
            fabs (pi - PI25DT));
  MPE_Finish_log (prefix);
  MPI_Finalize ();
  return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* One collective mistake, chosen by argv[1]; the last rank makes it.
   Under libmpe_collchk each must be reported and the job aborted. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
  int me, np, a[64] = { 0 }, b[64] = { 0 }, cnt[16], dsp[16];
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp (what, "noinit"))
    MPI_Barrier (MPI_COMM_WORLD);   /* before MPI_Init: MPI fails it */
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  MPI_Comm_size (MPI_COMM_WORLD, &np);
  int odd = me == np - 1;   /* the rank that gets it wrong */
  MPI_Barrier (MPI_COMM_WORLD);
  if (!strcmp (what, "root"))
    MPI_Bcast (a, 1, MPI_INT, odd ? 1 : 0, MPI_COMM_WORLD);
  else if (!strcmp (what, "op"))
    MPI_Reduce (a, b, 1, MPI_INT, odd ? MPI_MAX : MPI_SUM, 0,
                MPI_COMM_WORLD);
  else if (!strcmp (what, "inplace"))
    {
      if (odd)
        MPI_Allreduce (MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      else
        MPI_Allreduce (a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
  else if (!strcmp (what, "type"))
    MPI_Bcast (a, 1, odd ? MPI_FLOAT : MPI_INT, 0, MPI_COMM_WORLD);
  else if (!strcmp (what, "scatterv"))
    {
      /* The root sends i+1 ints to rank i; the last rank expects one
         more. */
      for (int i = 0; i < np && i < 16; i++)
        {
          cnt[i] = i + 1;
          dsp[i] = i * (i + 1) / 2;
        }
      MPI_Scatterv (a, cnt, dsp, MPI_INT, b, me + 1 + odd, MPI_INT, 0,
                    MPI_COMM_WORLD);
    }
  else if (!strcmp (what, "call"))
    {
      if (odd)
        MPI_Reduce (a, b, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
      else
        MPI_Bcast (a, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
  else if (!strcmp (what, "bytes"))
    {
      /* MPI_INT sent, 4 x MPI_BYTE received: same size, not the same
         signature. */
      if (me == 0)
        MPI_Gather (a, 1, MPI_INT, b, 4, MPI_BYTE, 0, MPI_COMM_WORLD);
      else
        MPI_Gather (a, 1, MPI_INT, NULL, 0, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
  /* Nonblocking: the mistake is reported when the request completes. */
  MPI_Request rq = MPI_REQUEST_NULL;
  if (!strcmp (what, "nb-root"))
    MPI_Ibcast (a, 1, MPI_INT, odd ? 1 : 0, MPI_COMM_WORLD, &rq);
  else if (!strcmp (what, "nb-op"))
    MPI_Iallreduce (a, b, 1, MPI_INT, odd ? MPI_MAX : MPI_SUM,
                    MPI_COMM_WORLD, &rq);
  else if (!strcmp (what, "nb-type"))
    MPI_Ireduce (a, b, 1, odd ? MPI_FLOAT : MPI_INT, MPI_SUM, 0,
                 MPI_COMM_WORLD, &rq);
  else if (!strcmp (what, "nb-inplace"))
    MPI_Iallreduce (odd ? MPI_IN_PLACE : a, b, 1, MPI_INT, MPI_SUM,
                    MPI_COMM_WORLD, &rq);
  else if (!strcmp (what, "nb-scatterv"))
    {
      for (int i = 0; i < np && i < 16; i++)
        {
          cnt[i] = i + 1;
          dsp[i] = i * (i + 1) / 2;
        }
      MPI_Iscatterv (a, cnt, dsp, MPI_INT, b, me + 1 + odd, MPI_INT, 0,
                     MPI_COMM_WORLD, &rq);
    }
  if (rq != MPI_REQUEST_NULL)
    MPI_Wait (&rq, MPI_STATUS_IGNORE);

  /* Intercommunicator between the even and the odd ranks (3 ranks:
     {0, 2} and {1}); rank 0 is the root of the even group. */
  if (!strncmp (what, "inter-", 6) && np > 1)
    {
      MPI_Comm half, ic;
      int even = me % 2 == 0, lr;
      MPI_Comm_split (MPI_COMM_WORLD, even, me, &half);
      MPI_Intercomm_create (half, 0, MPI_COMM_WORLD, even ? 1 : 0, 9, &ic);
      MPI_Comm_rank (ic, &lr);
      int root = even ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
      MPI_Barrier (ic);
      if (!strcmp (what, "inter-root"))   /* rank 2 names the root */
        MPI_Bcast (a, 1, MPI_INT, odd ? 0 : root, ic);
      else if (!strcmp (what, "inter-op"))
        MPI_Allreduce (a, b, 1, MPI_INT, odd ? MPI_MAX : MPI_SUM, ic);
      else if (!strcmp (what, "inter-type"))   /* rank 1 receives floats */
        MPI_Bcast (a, 1, me == 1 ? MPI_FLOAT : MPI_INT, root, ic);
      else if (!strcmp (what, "inter-inplace"))
        MPI_Allreduce (odd ? MPI_IN_PLACE : a, b, 1, MPI_INT, MPI_SUM, ic);
      else if (!strcmp (what, "inter-nb-root"))   /* rank 1 names 1 */
        {
          MPI_Ibcast (a, 1, MPI_INT, me == 1 ? 1 : root, ic, &rq);
          MPI_Wait (&rq, MPI_STATUS_IGNORE);
        }
      MPI_Comm_free (&ic);
      MPI_Comm_free (&half);
    }
  if (me == 0)
    printf ("not caught: %s\n", what);
  MPI_Finalize ();
  return 0;
}

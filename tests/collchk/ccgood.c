/* SPDX-License-Identifier: BSD-3-Clause */
/* Every checked collective used correctly (in place, derived types that
   match basic ones, v-variants with uneven counts, topologies, a file and
   a window): built with and without libmpe_collchk, the two must print
   the same results and exit 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long sum;   /* checksum of every result */

static void
add (const int *v, int n)
{
  for (int i = 0; i < n; i++)
    sum = sum * 31 + v[i];
}

int
main (int argc, char **argv)
{
  int me, np;
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &me);
  MPI_Comm_size (MPI_COMM_WORLD, &np);
  MPI_Comm w = MPI_COMM_WORLD;
  int *a = calloc (4 * np * np + 16, sizeof (int));
  int *b = calloc (4 * np * np + 16, sizeof (int));
  int *cnt = calloc (np, sizeof (int)), *dsp = calloc (np, sizeof (int));
  int *cnt2 = calloc (np, sizeof (int)), *dsp2 = calloc (np, sizeof (int));
  MPI_Datatype two_ints;
  MPI_Type_contiguous (2, MPI_INT, &two_ints);
  MPI_Type_commit (&two_ints);

  MPI_Barrier (w);
  a[0] = 7 + me; a[1] = 8;
  /* The root sends 2 x MPI_INT, the others receive 1 x (2 ints). */
  if (me == 0)
    MPI_Bcast (a, 2, MPI_INT, 0, w);
  else
    MPI_Bcast (a, 1, two_ints, 0, w);
  add (a, 2);
  a[0] = me + 1;
  MPI_Reduce (a, b, 1, MPI_INT, MPI_SUM, np - 1, w);
  if (me == np - 1)
    add (b, 1);
  MPI_Allreduce (a, b, 1, MPI_INT, MPI_MAX, w);
  add (b, 1);
  b[0] = me;
  MPI_Allreduce (MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, w);
  add (b, 1);
  MPI_Scan (a, b, 1, MPI_INT, MPI_SUM, w);
  add (b, 1);
  MPI_Exscan (a, b, 1, MPI_INT, MPI_SUM, w);
  if (me > 0)
    add (b, 1);
  for (int i = 0; i < np; i++)
    {
      cnt[i] = i + 1;
      a[i * 2] = me;
      a[i * 2 + 1] = i;
    }
  for (int i = 0; i < np * (np + 1) / 2; i++)
    a[i] = me * 100 + i;
  MPI_Reduce_scatter (a, b, cnt, MPI_INT, MPI_SUM, w);
  add (b, me + 1);
  MPI_Reduce_scatter_block (a, b, 1, MPI_INT, MPI_SUM, w);
  add (b, 1);

  a[0] = me * 3; a[1] = me * 3 + 1;
  MPI_Gather (a, 2, MPI_INT, b, 1, two_ints, 0, w);
  if (me == 0)
    add (b, 2 * np);
  if (me == 1 % np)
    MPI_Gather (a, 2, MPI_INT, b, 2, MPI_INT, 1 % np, w);
  else
    MPI_Gather (a, 2, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 1 % np, w);
  for (int i = 0; i < np; i++)
    {
      cnt[i] = i + 1;
      dsp[i] = i * (i + 1) / 2;
      b[i] = 0;
    }
  for (int i = 0; i <= me; i++)
    a[i] = me;
  MPI_Gatherv (a, me + 1, MPI_INT, b, cnt, dsp, MPI_INT, 0, w);
  if (me == 0)
    add (b, np * (np + 1) / 2);
  for (int i = 0; i < 2 * np; i++)
    a[i] = i * 11;
  MPI_Scatter (a, 2, MPI_INT, b, 1, two_ints, 0, w);
  add (b, 2);
  if (me == 0)
    MPI_Scatter (a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, w);
  else
    MPI_Scatter (NULL, 0, MPI_DATATYPE_NULL, b, 1, MPI_INT, 0, w);
  add (b, 1);
  MPI_Scatterv (a, cnt, dsp, MPI_INT, b, me + 1, MPI_INT, 0, w);
  add (b, me + 1);

  a[0] = me;
  MPI_Allgather (a, 1, MPI_INT, b, 1, MPI_INT, w);
  add (b, np);
  b[me] = me * 5;
  MPI_Allgather (MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 1, MPI_INT, w);
  add (b, np);
  for (int i = 0; i <= me; i++)
    a[i] = me + i;
  MPI_Allgatherv (a, me + 1, MPI_INT, b, cnt, dsp, MPI_INT, w);
  add (b, np * (np + 1) / 2);
  for (int i = 0; i < np; i++)
    a[i] = me * np + i;
  MPI_Alltoall (a, 1, MPI_INT, b, 1, MPI_INT, w);
  add (b, np);
  /* Rank i sends i+1 ints to everyone; receives j+1 from rank j. */
  for (int i = 0; i < np; i++)
    {
      cnt2[i] = me + 1;
      dsp2[i] = i * (me + 1);
    }
  for (int i = 0; i < np * (me + 1); i++)
    a[i] = me;
  MPI_Alltoallv (a, cnt2, dsp2, MPI_INT, b, cnt, dsp, MPI_INT, w);
  add (b, np * (np + 1) / 2);
  {
    MPI_Datatype *st = malloc (np * sizeof *st), *rt = malloc (np * sizeof *rt);
    int *sd = malloc (np * sizeof (int)), *rd = malloc (np * sizeof (int));
    int *sc = malloc (np * sizeof (int)), *rc = malloc (np * sizeof (int));
    for (int i = 0; i < np; i++)
      {
        st[i] = MPI_INT; sc[i] = 2; sd[i] = i * 8;
        rt[i] = two_ints; rc[i] = 1; rd[i] = i * 8;
        a[2 * i] = me; a[2 * i + 1] = i;
      }
    MPI_Alltoallw (a, sc, sd, st, b, rc, rd, rt, w);
    add (b, 2 * np);
    free (st); free (rt); free (sd); free (rd); free (sc); free (rc);
  }

  /* Communicators and topologies. */
  MPI_Comm d, s, cart;
  MPI_Comm_dup (w, &d);
  MPI_Comm_split (d, me % 2, me, &s);
  a[0] = me;
  MPI_Allreduce (a, b, 1, MPI_INT, MPI_SUM, s);
  add (b, 1);
  int dims[1] = { np }, periods[1] = { 1 };
  MPI_Cart_create (w, 1, dims, periods, 0, &cart);
  MPI_Barrier (cart);
  MPI_Comm_free (&cart);
  /* split_type may be MPI_UNDEFINED on some ranks. */
  MPI_Comm st;
  MPI_Comm_split_type (w, me == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                       MPI_INFO_NULL, &st);
  if (st != MPI_COMM_NULL)
    MPI_Comm_free (&st);
  MPI_Group wg;
  MPI_Comm cr, gr;
  MPI_Comm_group (w, &wg);
  MPI_Comm_create (w, wg, &cr);
  MPI_Barrier (cr);
  MPI_Comm_free (&cr);
  MPI_Group_free (&wg);
  for (int i = 0; i < np; i++)
    {
      cnt[i] = i + 1;              /* graph index: one edge per node */
      cnt2[i] = (i + 1) % np;      /* to the next node */
    }
  MPI_Graph_create (w, np, cnt, cnt2, 0, &gr);
  MPI_Barrier (gr);
  MPI_Comm_free (&gr);
  if (np > 1)
    {
      /* Intercommunicator between the parity halves: created checked,
         its own collectives pass through. */
      MPI_Comm ic;
      MPI_Intercomm_create (s, 0, w, me % 2 ? 0 : 1, 7, &ic);
      a[0] = me;
      MPI_Allreduce (a, b, 1, MPI_INT, MPI_SUM, ic);
      add (b, 1);
      /* Rooted intercommunicator collectives: rank 0 of the even group
         is the root (MPI_ROOT), the other evens pass MPI_PROC_NULL, the
         odds name it. */
      int even = me % 2 == 0, lr, rsize;
      MPI_Comm_rank (ic, &lr);
      MPI_Comm_remote_size (ic, &rsize);
      int iroot = even ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
      a[0] = 40 + me;
      MPI_Bcast (a, 1, MPI_INT, iroot, ic);
      add (a, 1);
      MPI_Reduce (a, b, 1, MPI_INT, MPI_SUM, iroot, ic);
      if (iroot == MPI_ROOT)
        add (b, 1);
      a[0] = me;
      MPI_Gather (a, 1, MPI_INT, b, 1, MPI_INT, iroot, ic);
      if (iroot == MPI_ROOT)
        add (b, rsize);
      for (int i = 0; i < rsize; i++)
        a[i] = 3 * i + me;
      MPI_Scatter (a, 1, MPI_INT, b, 1, MPI_INT, iroot, ic);
      if (!even)
        add (b, 1);
      a[0] = me;
      MPI_Allgather (a, 1, MPI_INT, b, 1, MPI_INT, ic);
      add (b, rsize);
      MPI_Barrier (ic);
      MPI_Request ir;
      a[0] = 50 + me;
      MPI_Ibcast (a, 1, MPI_INT, iroot, ic, &ir);
      MPI_Wait (&ir, MPI_STATUS_IGNORE);
      add (a, 1);
      a[0] = me;
      MPI_Iallreduce (a, b, 1, MPI_INT, MPI_MAX, ic, &ir);
      MPI_Wait (&ir, MPI_STATUS_IGNORE);
      add (b, 1);
      MPI_Comm_free (&ic);
    }
  MPI_Comm_free (&s);
  MPI_Comm_free (&d);

  /* A window and a file. */
  MPI_Win win;
  int *wbuf = calloc (np, sizeof (int));
  MPI_Win_create (wbuf, np * sizeof (int), sizeof (int), MPI_INFO_NULL, w,
                  &win);
  MPI_Win_fence (0, win);
  a[0] = me + 1;
  MPI_Put (a, 1, MPI_INT, (me + 1) % np, me, 1, MPI_INT, win);
  MPI_Win_fence (0, win);
  add (wbuf, np);
  MPI_Win_free (&win);
  free (wbuf);
  if (argc > 1)
    {
      MPI_File fh;
      if (MPI_File_open (w, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR,
                         MPI_INFO_NULL, &fh) == MPI_SUCCESS)
        {
          MPI_File_set_view (fh, 0, MPI_INT, MPI_INT, "native",
                             MPI_INFO_NULL);
          a[0] = me;
          MPI_File_write_at_all (fh, me, a, 1, MPI_INT, MPI_STATUS_IGNORE);
          MPI_File_read_at_all (fh, (me + 1) % np, b, 1, MPI_INT,
                                MPI_STATUS_IGNORE);
          add (b, 1);
          MPI_File_close (&fh);
        }
    }

  /* Nonblocking collectives, completed by each kind of wait and test. */
  MPI_Request rq[8];
  MPI_Status sts[8];
  int done = 0, idx, nout, outs[8];
  MPI_Ibarrier (w, &rq[0]);
  MPI_Wait (&rq[0], MPI_STATUS_IGNORE);
  a[0] = 60 + me;
  if (me == 0)
    MPI_Ibcast (a, 2, MPI_INT, 0, w, &rq[0]);
  else
    MPI_Ibcast (a, 1, two_ints, 0, w, &rq[0]);
  while (!done)
    MPI_Test (&rq[0], &done, MPI_STATUS_IGNORE);
  add (a, 1);
  a[0] = me + 1;
  MPI_Ireduce (a, b, 1, MPI_INT, MPI_SUM, np - 1, w, &rq[0]);
  MPI_Iallreduce (a, b + 1, 1, MPI_INT, MPI_MAX, w, &rq[1]);
  MPI_Iscan (a, b + 2, 1, MPI_INT, MPI_SUM, w, &rq[2]);
  MPI_Iexscan (a, b + 3, 1, MPI_INT, MPI_SUM, w, &rq[3]);
  MPI_Waitall (4, rq, sts);
  add (b + 1, 2);
  if (me == np - 1)
    add (b, 1);
  b[8] = me;
  MPI_Iallreduce (MPI_IN_PLACE, b + 8, 1, MPI_INT, MPI_SUM, w, &rq[0]);
  MPI_Waitany (1, rq, &idx, MPI_STATUS_IGNORE);
  add (b + 8, 1);
  for (int i = 0; i < np; i++)
    {
      a[i] = me * 10 + i;
      cnt[i] = 1;
      dsp[i] = i;
      cnt2[i] = i + 1;
      dsp2[i] = i * (i + 1) / 2;
    }
  MPI_Ireduce_scatter_block (a, b, 1, MPI_INT, MPI_SUM, w, &rq[0]);
  MPI_Ireduce_scatter (a, b + 1, cnt, MPI_INT, MPI_SUM, w, &rq[1]);
  MPI_Igather (a, 1, MPI_INT, b + 2, 1, MPI_INT, 0, w, &rq[2]);
  MPI_Iscatter (a, 1, MPI_INT, b + 2 + np, 1, MPI_INT, 0, w, &rq[3]);
  MPI_Iallgather (a, 1, MPI_INT, b + 3 + np, 1, MPI_INT, w, &rq[4]);
  MPI_Ialltoall (a, 1, MPI_INT, b + 3 + 2 * np, 1, MPI_INT, w, &rq[5]);
  nout = 0;
  for (int left = 6; left > 0; left -= nout)
    MPI_Waitsome (6, rq, &nout, outs, sts);
  add (b, 3 + 3 * np);
  int *big = calloc (np * (np + 1) / 2 + 8, sizeof (int));
  MPI_Igatherv (a, me + 1, MPI_INT, big, cnt2, dsp2, MPI_INT, 0, w, &rq[0]);
  MPI_Wait (&rq[0], MPI_STATUS_IGNORE);
  if (me == 0)
    add (big, np * (np + 1) / 2);
  MPI_Iscatterv (a, cnt2, dsp2, MPI_INT, b, me + 1, MPI_INT, 0, w, &rq[0]);
  MPI_Iallgatherv (a, me + 1, MPI_INT, big, cnt2, dsp2, MPI_INT, w, &rq[1]);
  MPI_Ialltoallv (a, cnt, dsp, MPI_INT, b + np + 1, cnt, dsp, MPI_INT, w,
                  &rq[2]);
  MPI_Datatype *ts = malloc (np * sizeof *ts);
  int *bd = malloc (np * sizeof (int));
  for (int i = 0; i < np; i++)
    {
      ts[i] = MPI_INT;
      bd[i] = i * (int) sizeof (int);
    }
  MPI_Ialltoallw (a, cnt, bd, ts, b + 2 * np + 2, cnt, bd, ts, w, &rq[3]);
  done = 0;
  while (!done)
    MPI_Testall (4, rq, &done, sts);
  add (b, me + 1);
  add (big, np * (np + 1) / 2);
  add (b + np + 1, np);
  add (b + 2 * np + 2, np);
  free (ts);
  free (bd);
  free (big);

  long *sums = malloc (np * sizeof (long));
  MPI_Gather (&sum, 1, MPI_LONG, sums, 1, MPI_LONG, 0, w);
  if (me == 0)
    for (int i = 0; i < np; i++)
      printf ("rank %d checksum %ld\n", i, sums[i]);
  MPI_Type_free (&two_ints);
  MPI_Finalize ();
  return 0;
}

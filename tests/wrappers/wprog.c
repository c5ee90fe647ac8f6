/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI scenarios for the wrapper tests; the .sh tests state what the log
 * of each must hold.  usage: wprog MODE   (built with and without liblmpe)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GCC takes MPI_STATUSES_IGNORE for a zero-sized array. */
#if defined(__GNUC__) && !defined(__clang__)
# pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

static int rank, size;

/* Present in wprog-log only (libmpe is linked there). */
extern int MPE_Finish_log (const char *) __attribute__ ((weak));

#define CHECK(x)                                                        \
  do {                                                                  \
    if ((x) != MPI_SUCCESS)                                             \
      {                                                                 \
        fprintf (stderr, "wprog: %s failed (line %d)\n", #x, __LINE__); \
        MPI_Abort (MPI_COMM_WORLD, 1);                                  \
      }                                                                 \
  } while (0)

/* 3 rounds of 10 ints around the ring (tags 0..2), then Sendrecv and
 * Sendrecv_replace (tags 50, 51), then on ranks 0/1 Ssend (100), Bsend
 * (101), Rsend (102) and PROC_NULL traffic that draws nothing. */
static void
mode_ring (void)
{
  int buf[10] = { 0 }, rbuf[10];
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status st;

  (void) MPI_Wtime ();   /* libtmpe must not print it */
  for (int it = 0; it < 3; it++)
    {
      if (rank % 2 == 0)
        {
          CHECK (MPI_Send (buf, 10, MPI_INT, right, it, MPI_COMM_WORLD));
          CHECK (MPI_Recv (rbuf, 10, MPI_INT, left, it, MPI_COMM_WORLD, &st));
        }
      else
        {
          CHECK (MPI_Recv (rbuf, 10, MPI_INT, left, it, MPI_COMM_WORLD, &st));
          CHECK (MPI_Send (buf, 10, MPI_INT, right, it, MPI_COMM_WORLD));
        }
    }
  CHECK (MPI_Sendrecv (buf, 2, MPI_DOUBLE, right, 50, rbuf, 4, MPI_INT, left,
                       50, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK (MPI_Sendrecv_replace (buf, 3, MPI_INT, right, 51, left, 51,
                               MPI_COMM_WORLD, &st));
  if (rank < 2)
    {
      char bsend[256 + MPI_BSEND_OVERHEAD];
      void *b;
      int bs;
      MPI_Request rq;
      if (rank == 0)
        {
          CHECK (MPI_Ssend (buf, 2, MPI_INT, 1, 100, MPI_COMM_WORLD));
          CHECK (MPI_Buffer_attach (bsend, sizeof bsend));
          CHECK (MPI_Bsend (buf, 3, MPI_INT, 1, 101, MPI_COMM_WORLD));
          CHECK (MPI_Buffer_detach (&b, &bs));
          CHECK (MPI_Barrier (MPI_COMM_WORLD));
          CHECK (MPI_Rsend (buf, 4, MPI_INT, 1, 102, MPI_COMM_WORLD));
        }
      else
        {
          CHECK (MPI_Recv (rbuf, 2, MPI_INT, 0, 100, MPI_COMM_WORLD, &st));
          CHECK (MPI_Recv (rbuf, 3, MPI_INT, 0, 101, MPI_COMM_WORLD, &st));
          CHECK (MPI_Irecv (rbuf, 4, MPI_INT, 0, 102, MPI_COMM_WORLD, &rq));
          CHECK (MPI_Barrier (MPI_COMM_WORLD));
          CHECK (MPI_Wait (&rq, &st));
        }
    }
  else
    CHECK (MPI_Barrier (MPI_COMM_WORLD));
  CHECK (MPI_Send (buf, 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD));
  CHECK (MPI_Recv (rbuf, 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &st));
}

/* Nonblocking ring: tags 0..2 with Waitall, tag 3 with Wait on each,
 * tag 4 completed by Testall polling, tag 5 by Waitsome; 8 doubles. */
static void
mode_iring (void)
{
  double sb[8] = { 0 }, rb[8];
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request rq[2];
  MPI_Status st[2];

  for (int it = 0; it < 6; it++)
    {
      CHECK (MPI_Irecv (rb, 8, MPI_DOUBLE, left, it, MPI_COMM_WORLD, &rq[0]));
      CHECK (MPI_Isend (sb, 8, MPI_DOUBLE, right, it, MPI_COMM_WORLD, &rq[1]));
      if (it < 3)
        CHECK (MPI_Waitall (2, rq, MPI_STATUSES_IGNORE));
      else if (it == 3)
        {
          CHECK (MPI_Wait (&rq[0], MPI_STATUS_IGNORE));
          CHECK (MPI_Wait (&rq[1], &st[1]));
        }
      else if (it == 4)
        {
          int flag = 0;
          while (!flag)
            CHECK (MPI_Testall (2, rq, &flag, st));
        }
      else
        {
          int left_n = 2, out, idx[2];
          while (left_n > 0)
            {
              CHECK (MPI_Waitsome (2, rq, &out, idx, st));
              left_n -= out;
            }
        }
    }
}

/* Persistent: Send_init/Recv_init, 4 rounds of Startall + Waitall, then
 * one Waitall on the now inactive requests (no more arrows). */
static void
mode_persist (void)
{
  int sb[5] = { 0 }, rb[5];
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request rq[2];

  CHECK (MPI_Recv_init (rb, 5, MPI_INT, left, 9, MPI_COMM_WORLD, &rq[0]));
  CHECK (MPI_Send_init (sb, 5, MPI_INT, right, 9, MPI_COMM_WORLD, &rq[1]));
  for (int it = 0; it < 4; it++)
    {
      CHECK (MPI_Startall (2, rq));
      CHECK (MPI_Waitall (2, rq, MPI_STATUSES_IGNORE));
    }
  CHECK (MPI_Waitall (2, rq, MPI_STATUSES_IGNORE));
  CHECK (MPI_Request_free (&rq[0]));
  CHECK (MPI_Request_free (&rq[1]));
}

/* Wildcards: rank r > 0 sends r doubles with tag 10 + r to rank 0 four
 * times; rank 0 receives them with ANY_SOURCE/ANY_TAG through Recv,
 * Irecv + Wait (status ignored), Mprobe + Mrecv, Improbe + Imrecv. */
static void
mode_wild (void)
{
  double b[8] = { 0 };
  if (rank == 0)
    {
      for (int round = 0; round < 4; round++)
        for (int k = 1; k < size; k++)
          {
            MPI_Status st;
            MPI_Request rq;
            MPI_Message msg;
            int flag = 0;
            switch (round)
              {
              case 0:
                CHECK (MPI_Recv (b, 8, MPI_DOUBLE, MPI_ANY_SOURCE,
                                 MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                break;
              case 1:
                CHECK (MPI_Irecv (b, 8, MPI_DOUBLE, MPI_ANY_SOURCE,
                                  MPI_ANY_TAG, MPI_COMM_WORLD, &rq));
                CHECK (MPI_Wait (&rq, MPI_STATUS_IGNORE));
                break;
              case 2:
                CHECK (MPI_Mprobe (MPI_ANY_SOURCE, MPI_ANY_TAG,
                                   MPI_COMM_WORLD, &msg, &st));
                CHECK (MPI_Mrecv (b, 8, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE));
                break;
              default:
                while (!flag)
                  CHECK (MPI_Improbe (MPI_ANY_SOURCE, MPI_ANY_TAG,
                                      MPI_COMM_WORLD, &flag, &msg, &st));
                CHECK (MPI_Imrecv (b, 8, MPI_DOUBLE, &msg, &rq));
                CHECK (MPI_Wait (&rq, &st));
                break;
              }
          }
    }
  else
    for (int round = 0; round < 4; round++)
      CHECK (MPI_Send (b, rank, MPI_DOUBLE, 0, 10 + rank, MPI_COMM_WORLD));
}

/* Ranks 0 and 1: one real receive (tag 5, 4 ints) among a null request
 * and an inactive persistent one; later completion calls find nothing
 * and return MPI_UNDEFINED. */
static void
mode_waitany (void)
{
  int b[4] = { 0 }, r2[4];
  MPI_Request rq[3];
  MPI_Status st, sts[3];
  int idx = -5, flag = 0, out = -5, ind[3];

  if (rank == 1)
    CHECK (MPI_Send (b, 4, MPI_INT, 0, 5, MPI_COMM_WORLD));
  if (rank != 0)
    return;
  rq[0] = MPI_REQUEST_NULL;
  CHECK (MPI_Irecv (b, 4, MPI_INT, 1, 5, MPI_COMM_WORLD, &rq[1]));
  CHECK (MPI_Recv_init (r2, 4, MPI_INT, 1, 6, MPI_COMM_WORLD, &rq[2]));
  CHECK (MPI_Waitany (3, rq, &idx, &st));
  if (idx != 1)
    fprintf (stderr, "wprog: Waitany index %d\n", idx);
  CHECK (MPI_Waitany (3, rq, &idx, &st));
  if (idx != MPI_UNDEFINED)
    fprintf (stderr, "wprog: Waitany index %d, not MPI_UNDEFINED\n", idx);
  CHECK (MPI_Testany (3, rq, &idx, &flag, &st));
  if (!flag || idx != MPI_UNDEFINED)
    fprintf (stderr, "wprog: Testany flag %d index %d\n", flag, idx);
  CHECK (MPI_Waitsome (3, rq, &out, ind, sts));
  if (out != MPI_UNDEFINED)
    fprintf (stderr, "wprog: Waitsome outcount %d\n", out);
  CHECK (MPI_Testsome (3, rq, &out, ind, sts));
  if (out != MPI_UNDEFINED)
    fprintf (stderr, "wprog: Testsome outcount %d\n", out);
  CHECK (MPI_Request_free (&rq[2]));
}

static void
ring_once (int tag)
{
  int b[2] = { 0 };
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request rq;
  CHECK (MPI_Irecv (b, 2, MPI_INT, left, tag, MPI_COMM_WORLD, &rq));
  CHECK (MPI_Send (b, 2, MPI_INT, right, tag, MPI_COMM_WORLD));
  CHECK (MPI_Wait (&rq, MPI_STATUS_IGNORE));
  CHECK (MPI_Barrier (MPI_COMM_WORLD));
}

/* Tag 1 logged, tag 2 inside Pcontrol(0), tag 3 logged again; the
 * receive of tag 4 is posted while off and completed while on. */
static void
mode_pcontrol (void)
{
  int b[2] = { 0 };
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request rq;
  ring_once (1);
  MPI_Pcontrol (0);
  ring_once (2);
  CHECK (MPI_Irecv (b, 2, MPI_INT, left, 4, MPI_COMM_WORLD, &rq));
  CHECK (MPI_Send (b, 2, MPI_INT, right, 4, MPI_COMM_WORLD));
  MPI_Pcontrol (1);
  CHECK (MPI_Wait (&rq, MPI_STATUS_IGNORE));
  ring_once (3);
}

/* Communicators made while logging is off, then used: parity halves
 * (Comm_split) and the node (Comm_split_type); sends on them must land
 * between the right world ranks. */
static void
mode_splittype (void)
{
  MPI_Comm half, node, dup;
  int hr, nr, ns, v = 0;
  MPI_Pcontrol (0);
  CHECK (MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                              MPI_INFO_NULL, &node));
  CHECK (MPI_Comm_split (MPI_COMM_WORLD, rank % 2, size - rank, &half));
  MPI_Pcontrol (1);
  CHECK (MPI_Comm_dup (half, &dup));
  MPI_Comm_rank (half, &hr);
  MPI_Comm_rank (node, &nr);
  MPI_Comm_size (node, &ns);
  /* half is ordered by descending world rank: local 0 is the highest. */
  if (hr == 1)
    CHECK (MPI_Send (&v, 1, MPI_INT, 0, 7, half));
  else if (hr == 0)
    CHECK (MPI_Recv (&v, 1, MPI_INT, 1, 7, half, MPI_STATUS_IGNORE));
  /* On the node comm: local 1 -> local 0 with tag 8 (one int64). */
  long long w = 0;
  if (nr == 1)
    CHECK (MPI_Send (&w, 1, MPI_LONG_LONG, 0, 8, node));
  else if (nr == 0 && ns > 1)
    CHECK (MPI_Recv (&w, 1, MPI_LONG_LONG, MPI_ANY_SOURCE, 8, node,
                     MPI_STATUS_IGNORE));
  /* And on the dup made while on: ring inside the half, tag 9. */
  int hs;
  MPI_Comm_size (dup, &hs);
  CHECK (MPI_Sendrecv_replace (&v, 1, MPI_INT, (hr + 1) % hs, 9,
                               (hr + hs - 1) % hs, 9, dup,
                               MPI_STATUS_IGNORE));
  CHECK (MPI_Comm_free (&dup));
  CHECK (MPI_Comm_free (&half));
  CHECK (MPI_Comm_free (&node));
}

/* Collectives on the parity halves (2 ranks each with 4 ranks). */
static void
mode_subcoll (void)
{
  MPI_Comm half;
  int v[4] = { 1, 2, 3, 4 }, g[8];
  double d[2] = { 1, 2 }, dr[2];
  CHECK (MPI_Comm_split (MPI_COMM_WORLD, rank % 2, rank, &half));
  CHECK (MPI_Bcast (v, 4, MPI_INT, 1, half));
  CHECK (MPI_Allreduce (d, dr, 2, MPI_DOUBLE, MPI_SUM, half));
  CHECK (MPI_Gather (v, 3, MPI_INT, g, 3, MPI_INT, 0, half));
  CHECK (MPI_Alltoall (v, 2, MPI_INT, g, 2, MPI_INT, half));
  CHECK (MPI_Barrier (half));
  CHECK (MPI_Comm_free (&half));
  CHECK (MPI_Allgather (v, 1, MPI_SHORT, g, 1, MPI_SHORT, MPI_COMM_WORLD));
}

/* Communicators made and freed (4 ranks): a split, a dup, an
 * intercommunicator between the halves and its merge are logged (one
 * MPE_Comm_init per member, one MPE_Comm_finalize per member at the
 * free); a dup made and freed while MPI_Pcontrol(0) is not. */
static void
mode_comms (void)
{
  MPI_Comm half, dup, inter, merged, quiet;
  CHECK (MPI_Comm_split (MPI_COMM_WORLD, rank % 2, rank, &half));
  CHECK (MPI_Comm_dup (MPI_COMM_WORLD, &dup));
  /* Leaders: local 0 of each half, i.e. world ranks 0 and 1. */
  CHECK (MPI_Intercomm_create (half, 0, MPI_COMM_WORLD, 1 - rank % 2, 5,
                               &inter));
  CHECK (MPI_Intercomm_merge (inter, rank % 2, &merged));
  CHECK (MPI_Barrier (merged));
  MPI_Pcontrol (0);
  CHECK (MPI_Comm_dup (MPI_COMM_WORLD, &quiet));
  CHECK (MPI_Comm_free (&quiet));
  MPI_Pcontrol (1);
  CHECK (MPI_Comm_free (&merged));
  CHECK (MPI_Comm_free (&inter));
  CHECK (MPI_Comm_free (&dup));
  CHECK (MPI_Comm_free (&half));
}

/* 4 threads per rank on 2 ranks; thread t exchanges 50 messages of 16
 * bytes with tag t with its twin on the other rank. */
#define NTHREADS 4
#define NMSG 50
static void *
thread_main (void *arg)
{
  int t = (int) (long) arg, other = 1 - rank;
  char sb[16] = { 0 }, rb[16];
  for (int i = 0; i < NMSG; i++)
    {
      MPI_Request rq;
      CHECK (MPI_Isend (sb, 16, MPI_BYTE, other, t, MPI_COMM_WORLD, &rq));
      CHECK (MPI_Recv (rb, 16, MPI_BYTE, other, t, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
      CHECK (MPI_Wait (&rq, MPI_STATUS_IGNORE));
    }
  return NULL;
}

static void
mode_threads (void)
{
  pthread_t th[NTHREADS];
  for (long t = 0; t < NTHREADS; t++)
    pthread_create (&th[t], NULL, thread_main, (void *) t);
  for (int t = 0; t < NTHREADS; t++)
    pthread_join (th[t], NULL);
}

/* As cpilog does: the user writes the log before MPI_Finalize, so the
 * MPI states must be defined by then.  The calls after it are not
 * logged, and MPI_Finalize must neither fail nor write a second log. */
static void
mode_userfinish (void)
{
  int v = rank;
  CHECK (MPI_Bcast (&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK (MPI_Allreduce (MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM,
                        MPI_COMM_WORLD));
  if (MPE_Finish_log && MPE_Finish_log ("log") != 0)
    MPI_Abort (MPI_COMM_WORLD, 3);
  CHECK (MPI_Barrier (MPI_COMM_WORLD));
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "ring";
  if (strcmp (mode, "threads") == 0)
    {
      int prov = 0;
      MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
      if (prov != MPI_THREAD_MULTIPLE)
        {
          fprintf (stderr, "wprog: no MPI_THREAD_MULTIPLE\n");
          MPI_Abort (MPI_COMM_WORLD, 1);
        }
    }
  else
    MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (strcmp (mode, "ring") == 0)
    mode_ring ();
  else if (strcmp (mode, "iring") == 0)
    mode_iring ();
  else if (strcmp (mode, "persist") == 0)
    mode_persist ();
  else if (strcmp (mode, "wild") == 0)
    mode_wild ();
  else if (strcmp (mode, "waitany") == 0)
    mode_waitany ();
  else if (strcmp (mode, "pcontrol") == 0)
    mode_pcontrol ();
  else if (strcmp (mode, "splittype") == 0)
    mode_splittype ();
  else if (strcmp (mode, "subcoll") == 0)
    mode_subcoll ();
  else if (strcmp (mode, "threads") == 0)
    mode_threads ();
  else if (strcmp (mode, "comms") == 0)
    mode_comms ();
  else if (strcmp (mode, "userfinish") == 0)
    mode_userfinish ();
  else
    {
      fprintf (stderr, "wprog: unknown mode %s\n", mode);
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  MPI_Finalize ();
  return 0;
}

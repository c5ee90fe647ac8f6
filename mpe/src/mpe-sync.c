/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Clock synchronisation against rank 0, with MPE2's three algorithms
 * (MPE_SYNC_ALGORITHM): SEQ, rank 0 measures every peer in turn; BITREE,
 * pairs (r, r + 2^k) for r a multiple of 2^(k+1) in rounds k = 0, 1, ...,
 * offsets composed along the binomial tree; ALTNGBR, neighbours (r, r+1)
 * in two rounds (even r, then odd r), offsets composed along the chain.
 * A measurement is at least MPE_SYNC_FREQUENCY ping-pongs from parent to
 * child, keeping the one with the smallest round trip; offset = midpoint
 * of the parent's send and receive times minus the child's reading.  The
 * error is at most half that round trip, so on a loaded node, where a
 * descheduled peer makes every round trip milliseconds long, the parent
 * goes on pinging (within a small budget) until one is short.  Each call
 * adds a sync point (local time, offset to rank 0's clock); the merge
 * interpolates linearly between them.  PMPI only, on a private
 * communicator so user traffic with the same tags cannot interfere.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe-internal.h"


enum { TAG_PING = 801, TAG_PONG = 802, TAG_RESULT = 803 };

/* Rank 0 keeps the largest error bound it was told of (a note at the
 * merge puts the shifts it makes beside it). */
static void
note_error (int64_t err)
{
  if (err > mpe__g.sync_err_ns)
    mpe__g.sync_err_ns = err;
}

/* A round trip this short bounds the error well below any state's
 * duration; past the budget a pair keeps the best it found. */
enum { SYNC_GOOD_RTT_NS = 50000, SYNC_EXTRA_PINGS = 200 };
static const int64_t SYNC_BUDGET_NS = 100000000;

static int64_t
local_now (void)
{
  return (int64_t) mpe__ticks_to_local (mpe__ticks ());
}

static void
add_point (int64_t l, int64_t off)
{
  int64_t *a = realloc (mpe__g.sync_l, (size_t) (mpe__g.nsync + 1) * 8);
  int64_t *b = realloc (mpe__g.sync_off, (size_t) (mpe__g.nsync + 1) * 8);
  if (a)
    mpe__g.sync_l = a;
  if (b)
    mpe__g.sync_off = b;
  if (!a || !b)
    return;
  /* Keep points sorted by local time (calls are in order anyway). */
  if (mpe__g.nsync > 0 && l < mpe__g.sync_l[mpe__g.nsync - 1])
    l = mpe__g.sync_l[mpe__g.nsync - 1];
  mpe__g.sync_l[mpe__g.nsync] = l;
  mpe__g.sync_off[mpe__g.nsync] = off;
  mpe__g.nsync++;
  int64_t frame[2] = { l, off };
  mpe__spill_frame (MPE_SPILL_SYNC, 0, frame, sizeof frame);
}

int
mpe__sync_algorithm (const char *env, int size)
{
  if (env && *env)
    {
      if (!strcasecmp (env, "SEQ"))
        return MPE_SYNC_SEQ;
      if (!strcasecmp (env, "BITREE"))
        return MPE_SYNC_BITREE;
      if (!strcasecmp (env, "ALTNGBR"))
        return MPE_SYNC_ALTNGBR;
      if (strcasecmp (env, "DEFAULT"))
        fprintf (stderr, "mpe: MPE_SYNC_ALGORITHM=%s is not DEFAULT, SEQ, "
                 "BITREE or ALTNGBR; using DEFAULT\n", env);
    }
  return size <= 16 ? MPE_SYNC_SEQ : MPE_SYNC_BITREE;
}

/* The measuring side of one pair: ping-pongs child, sends it the
 * offset from its clock to ours, its reading and the offset's error
 * bound, and returns that bound. */
static int64_t
measure_child (int child, int freq)
{
  int64_t best_rtt = INT64_MAX, res[3] = { 0, 0, 0 };
  int64_t t0 = local_now ();
  for (int f = 0;; f++)
    {
      if (f >= freq
          && (best_rtt <= SYNC_GOOD_RTT_NS || f >= freq + SYNC_EXTRA_PINGS
              || local_now () - t0 >= SYNC_BUDGET_NS))
        break;
      int64_t tr = 0;
      int64_t ta = mpe__g.mono0 + local_now ();
      PMPI_Send (NULL, 0, MPI_BYTE, child, TAG_PING, mpe__comm);
      PMPI_Recv (&tr, 1, MPI_INT64_T, child, TAG_PONG, mpe__comm,
                 MPI_STATUS_IGNORE);
      int64_t tb = mpe__g.mono0 + local_now ();
      if (tb - ta < best_rtt)
        {
          best_rtt = tb - ta;
          res[0] = ta + (tb - ta) / 2 - tr;  /* offset to add */
          res[1] = tr;                         /* child's reading */
          res[2] = best_rtt / 2 + 1;           /* the offset's error bound */
        }
    }
  PMPI_Send (res, 3, MPI_INT64_T, child, TAG_RESULT, mpe__comm);
  return res[2];
}

/* The measured side: res = { offset to the parent's clock, reading,
 * error bound }.  It answers pings until the result comes (the parent
 * decides how many). */
static void
measured_by (int parent, int64_t res[3])
{
  for (;;)
    {
      int64_t in[3];
      MPI_Status st;
      PMPI_Recv (in, 3, MPI_INT64_T, parent, MPI_ANY_TAG, mpe__comm, &st);
      if (st.MPI_TAG == TAG_RESULT)
        {
          res[0] = in[0];
          res[1] = in[1];
          res[2] = in[2];
          return;
        }
      int64_t tr = mpe__g.mono0 + local_now ();
      PMPI_Send (&tr, 1, MPI_INT64_T, parent, TAG_PONG, mpe__comm);
    }
}

/* Parent of r in the BITREE / ALTNGBR spanning tree (always < r). */
static int
tree_parent (int algo, int r)
{
  return algo == MPE_SYNC_BITREE ? r - (r & -r) : r - 1;
}

/* BITREE and ALTNGBR: every pair measured in its round, then rank 0
 * composes the offsets from the root down and hands each rank its own. */
static void
tree_sync (int algo, int freq)
{
  int rank = mpe__g.rank, size = mpe__g.size;
  const int *peer = mpe__g.sync_peer;
  int64_t mine[3] = { 0, mpe__g.mono0 + local_now (), 0 };
  int rounds = 0;
  if (algo == MPE_SYNC_BITREE)
    while ((1 << rounds) < size)
      rounds++;
  else
    rounds = 2;
  for (int k = 0; k < rounds; k++)
    {
      int parent, child;
      if (algo == MPE_SYNC_BITREE)
        {
          int step = 1 << k;
          parent = rank % (2 * step) == 0 ? rank : rank - step;
          child = parent + step;
          if (rank % step)
            continue;               /* joined a subtree in an earlier round */
        }
      else
        {
          parent = (rank % 2 == k) ? rank : rank - 1;
          child = parent + 1;
        }
      if (parent < 0 || child >= size)
        continue;
      /* Two ranks on rank 0's host read the same clock: nothing to do. */
      if (!peer[parent] && !peer[child])
        continue;
      if (rank == parent)
        measure_child (child, freq);
      else
        measured_by (parent, mine);
    }
  int64_t *all = rank == 0 ? malloc ((size_t) size * 3 * sizeof *all) : NULL;
  int ok = rank != 0 || all != NULL;
  MPI_Request rq;
  PMPI_Ibcast (&ok, 1, MPI_INT, 0, mpe__comm, &rq);
  mpe__mpi_wait (&rq);
  if (!ok)
    {
      add_point (local_now (), 0);
      return;
    }
  PMPI_Igather (mine, 3, MPI_INT64_T, all, 3, MPI_INT64_T, 0, mpe__comm, &rq);
  mpe__mpi_wait (&rq);
  if (rank == 0)
    {
      all[0] = all[2] = 0;
      for (int r = 1; r < size; r++)     /* parents come first */
        {
          int p = tree_parent (algo, r);
          all[3 * r] += all[3 * p];
          all[3 * r + 2] += all[3 * p + 2];
          note_error (all[3 * r + 2]);
        }
    }
  PMPI_Iscatter (all, 3, MPI_INT64_T, mine, 3, MPI_INT64_T, 0, mpe__comm,
                 &rq);
  mpe__mpi_wait (&rq);
  free (all);
  if (rank == 0 || !mpe__g.sync_self)
    add_point (local_now (), 0);
  else
    add_point (mine[1] - mpe__g.mono0, mine[0]);
}

int
mpe__sync_run (void)
{
  if (!mpe__g.sync_enabled || mpe__g.size == 1 || !mpe__g.sync_peer)
    {
      add_point (local_now (), 0);
      return 0;
    }
  /* Every rank knows which need measuring (the table is everyone's):
   * when none does, as on one node, there is nothing to exchange. */
  int any = 0;
  for (int r = 0; r < mpe__g.size && !any; r++)
    any = mpe__g.sync_peer[r];
  if (!any)
    {
      add_point (local_now (), 0);
      return 0;
    }
  int freq = mpe__g.sync_freq > 0 ? mpe__g.sync_freq : 3;
  if (mpe__g.sync_algo != MPE_SYNC_SEQ)
    {
      tree_sync (mpe__g.sync_algo, freq);
      return 0;
    }
  if (mpe__g.rank == 0)
    {
      for (int r = 1; r < mpe__g.size; r++)
        if (mpe__g.sync_peer[r])
          note_error (measure_child (r, freq));
      add_point (local_now (), 0);
    }
  else if (!mpe__g.sync_self)
    add_point (local_now (), 0);
  else
    {
      int64_t res[3];
      measured_by (0, res);
      add_point (res[1] - mpe__g.mono0, res[0]);
    }
  return 0;
}

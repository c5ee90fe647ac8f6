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
 *
 * One clock per host: every process of a host converts its counter
 * with its host leader's conversion (mpe__clock_share), so the ranks of
 * a host agree by construction, and only one rank per host, its leader,
 * is measured; the other ranks of the host take its points.
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

/* The measuring side of one pair: ping-pongs child, sends it res = {
 * the offset from its clock to ours, its reading, the offset's error
 * bound }, and returns that bound. */
static int64_t
measure_child (int child, int freq, int64_t res[3])
{
  int64_t best_rtt = INT64_MAX;
  res[0] = res[1] = res[2] = 0;
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

/* Whether rank r shares rank 0's clock (its offset is 0). */
static int
on_host0 (int r)
{
  return mpe__g.host_leader[r] == mpe__g.host_leader[0];
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
      /* Two ranks not measured (on rank 0's host, or taking their host
       * leader's point) need nothing. */
      if (!peer[parent] && !peer[child])
        continue;
      int64_t res[3];
      if (rank == parent)
        measure_child (child, freq, res);
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
      const int *lead = mpe__g.host_leader;
      all[0] = all[2] = 0;
      for (int r = 1; r < size; r++)     /* parents and leaders come first */
        {
          if (lead[r] != r)
            {
              /* Its host's clock: its leader's point (rank 0's host: 0). */
              memcpy (&all[3 * r], &all[3 * lead[r]], 3 * sizeof *all);
              continue;
            }
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
  if (on_host0 (rank))
    add_point (local_now (), 0);
  else
    add_point (mine[1] - mpe__g.mono0, mine[0]);
}

int
mpe__sync_run (void)
{
  if (!mpe__g.sync_enabled || mpe__g.size == 1 || !mpe__g.sync_peer
      || !mpe__g.host_leader)
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
      /* Each host's leader measured, the others of its host told its
       * point (or measured themselves, out of memory). */
      const int *lead = mpe__g.host_leader;
      int64_t *got = malloc ((size_t) mpe__g.size * 3 * sizeof *got);
      for (int r = 1; r < mpe__g.size; r++)
        {
          int64_t res[3];
          if (on_host0 (r))
            continue;
          if (mpe__g.sync_peer[r] || !got)
            note_error (measure_child (r, freq, res));
          else
            {
              memcpy (res, &got[3 * lead[r]], sizeof res);
              PMPI_Send (res, 3, MPI_INT64_T, r, TAG_RESULT, mpe__comm);
            }
          if (got)
            memcpy (&got[3 * r], res, sizeof res);
        }
      free (got);
      add_point (local_now (), 0);
    }
  else if (on_host0 (mpe__g.rank))
    add_point (local_now (), 0);
  else
    {
      int64_t res[3];
      measured_by (0, res);
      add_point (res[1] - mpe__g.mono0, res[0]);
    }
  return 0;
}

/* This process's conversion and rank, as one host shares them. */
static void
conversion (int64_t c[5])
{
  c[0] = (int64_t) mpe__g.tick0;
  c[1] = mpe__g.mono0;
  memcpy (&c[2], &mpe__g.mult, sizeof mpe__g.mult);
  c[3] = (int64_t) mpe__g.mult_fp;
  c[4] = mpe__g.rank;
}

/* Takes the host leader's conversion; returns its rank. */
static int
adopt (const int64_t c[5])
{
  mpe__g.real0 += c[1] - mpe__g.mono0;
  mpe__g.tick0 = (uint64_t) c[0];
  mpe__g.mono0 = c[1];
  memcpy (&mpe__g.mult, &c[2], sizeof mpe__g.mult);
  mpe__g.mult_fp = (uint64_t) c[3];
  return (int) c[4];
}

/* One conversion per host.  A process calibrates its counter's rate over
 * 3 ms (mpe__clock_init): a few ppm off, differently in each process, so
 * ranks of one host, whose offset is 0 by construction (one invariant
 * TSC, or CLOCK_MONOTONIC), drifted apart by microseconds a second.
 * With the host leader's (tick0, mono0, mult) every process of the host
 * turns a tick into the same time, whatever its own calibration; the
 * error left is the host's rate, seen only between hosts, where the
 * sync's offsets at the start and the finish take it out (offset and
 * drift, interpolated).  A host is a shared-memory node of MPI
 * (MPI_COMM_TYPE_SHARED); its leader, its lowest rank. */
void
mpe__clock_share (int own)
{
  int rank = mpe__g.rank, size = mpe__g.size, leader = rank;
  int64_t c[5];
  conversion (c);
  /* Test hook: hosts of N consecutive ranks (with the skew hook, each
   * host skewed as its leader). */
  const char *th = getenv ("MPE_TEST_CLOCK_HOSTS");
  /* The choice is collective: any rank asking for its own host (or the
   * hook) decides for all, whatever each one's environment says. */
  int want[2] = { own, th ? atoi (th) : 0 }, got[2] = { 0, 0 };
  PMPI_Allreduce (want, got, 2, MPI_INT, MPI_MAX, mpe__comm);
  own = got[0];
  int hosts = got[1];
  if (hosts > 0 && size > 1)
    {
      int64_t *all = malloc ((size_t) size * sizeof c);
      if (!all)
        abort ();  /* a test hook */
      PMPI_Allgather (c, 5, MPI_INT64_T, all, 5, MPI_INT64_T, mpe__comm);
      leader = adopt (&all[5 * (rank / hosts * hosts)]);
      free (all);
    }
  else if (!own && size > 1)
    {
      MPI_Comm node = MPI_COMM_NULL;
      PMPI_Comm_split_type (mpe__comm, MPI_COMM_TYPE_SHARED, rank,
                            MPI_INFO_NULL, &node);
      if (node != MPI_COMM_NULL)
        {
          /* Only processes stamping with the same clock (MPE_NO_TSC can
           * differ) can share a conversion. */
          int use[2] = { mpe__use_counter, !mpe__use_counter }, all[2];
          PMPI_Allreduce (use, all, 2, MPI_INT, MPI_MIN, node);
          if (all[0] || all[1])
            {
              PMPI_Bcast (c, 5, MPI_INT64_T, 0, node);
              leader = adopt (c);
            }
          PMPI_Comm_free (&node);
        }
    }
  /* Everyone's leader, hence who is measured: each host's leader, but
   * rank 0's host's (rank 0 itself). */
  free (mpe__g.host_leader);
  free (mpe__g.sync_peer);
  mpe__g.host_leader = malloc ((size_t) size * sizeof (int));
  mpe__g.sync_peer = malloc ((size_t) size * sizeof (int));
  int ok = mpe__g.host_leader && mpe__g.sync_peer, all_ok = 0;
  PMPI_Allreduce (&ok, &all_ok, 1, MPI_INT, MPI_MIN, mpe__comm);
  if (all_ok)
    PMPI_Allgather (&leader, 1, MPI_INT, mpe__g.host_leader, 1, MPI_INT,
                    mpe__comm);
  else
    {
      free (mpe__g.host_leader);
      free (mpe__g.sync_peer);
      mpe__g.host_leader = mpe__g.sync_peer = NULL;
      mpe__g.sync_self = 0;
      return;
    }
  for (int r = 0; r < size; r++)
    mpe__g.sync_peer[r] = mpe__g.host_leader[r] == r
                          && r != mpe__g.host_leader[0];
  mpe__g.sync_self = mpe__g.sync_peer[rank];
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Clock synchronisation against rank 0: for each peer, rank 0 does
 * MPE_SYNC_FREQUENCY ping-pongs and keeps the one with the smallest round
 * trip; offset = midpoint of rank 0's send and receive times minus the
 * peer's reading.  Each call adds a sync point (local time, offset); the
 * merge interpolates linearly between them.  PMPI only, on a private
 * communicator so user traffic with the same tags cannot interfere.
 */
#include "config.h"

#include <stdlib.h>

#include "mpe-internal.h"


enum { TAG_PING = 801, TAG_PONG = 802, TAG_RESULT = 803 };

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
mpe__sync_run (void)
{
  if (!mpe__g.sync_enabled || mpe__g.size == 1 || !mpe__g.sync_peer)
    {
      add_point (local_now (), 0);
      return 0;
    }
  int freq = mpe__g.sync_freq > 0 ? mpe__g.sync_freq : 3;
  if (mpe__g.rank == 0)
    {
      for (int r = 1; r < mpe__g.size; r++)
        {
          if (!mpe__g.sync_peer[r])
            continue;
          int64_t best_rtt = INT64_MAX, res[2] = { 0, 0 };
          for (int f = 0; f < freq; f++)
            {
              int64_t tr = 0;
              int64_t ta = mpe__g.mono0 + local_now ();
              PMPI_Send (NULL, 0, MPI_BYTE, r, TAG_PING, mpe__comm);
              PMPI_Recv (&tr, 1, MPI_INT64_T, r, TAG_PONG, mpe__comm,
                         MPI_STATUS_IGNORE);
              int64_t tb = mpe__g.mono0 + local_now ();
              if (tb - ta < best_rtt)
                {
                  best_rtt = tb - ta;
                  res[0] = ta + (tb - ta) / 2 - tr;  /* offset to add */
                  res[1] = tr;                         /* peer's reading */
                }
            }
          PMPI_Send (res, 2, MPI_INT64_T, r, TAG_RESULT, mpe__comm);
        }
      add_point (local_now (), 0);
    }
  else if (!mpe__g.sync_self)
    add_point (local_now (), 0);
  else
    {
      for (int f = 0; f < freq; f++)
        {
          PMPI_Recv (NULL, 0, MPI_BYTE, 0, TAG_PING, mpe__comm,
                     MPI_STATUS_IGNORE);
          int64_t tr = mpe__g.mono0 + local_now ();
          PMPI_Send (&tr, 1, MPI_INT64_T, 0, TAG_PONG, mpe__comm);
        }
      int64_t res[2];
      PMPI_Recv (res, 2, MPI_INT64_T, 0, TAG_RESULT, mpe__comm,
                 MPI_STATUS_IGNORE);
      add_point (res[1] - mpe__g.mono0, res[0]);
    }
  return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* A program with known communication for the metric tests
 * (tests/wrappers/metrics.sh), linked with liblmpe:
 *   - a ring of 10 MPI_Sendrecv of 1000 bytes to the right neighbour;
 *   - foo(): 3 MPI_Send of 64 bytes to the right inside a user state
 *     "foo", and 2 more outside it, each inside a user timer guarded by
 *     the flag cell foo raises (the worked example of mpe_metrics.h);
 *     the standard cells MPI_Send.calls and MPI_Send.time are guarded by
 *     the same flag;
 *   - 2 MPI_Alltoall of 25 ints per rank pair;
 *   - a user counter and a level on every thread.
 * Each rank prints "rank R ok" when its cells read back as expected. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe_log.h"
#include "mpe_metrics.h"

static int flag, foo_send, work, depth;

static void
send_right (int right, char *buf)
{
  MPE_Metric_timer_start (foo_send);
  MPI_Send (buf, 64, MPI_BYTE, right, 7, MPI_COMM_WORLD);
  MPE_Metric_timer_stop (foo_send);
}

static void
foo (int right, char *buf, int foo_begin, int foo_end)
{
  MPE_Log_event (foo_begin, 0, NULL);
  MPE_Metric_add (flag, 1);
  for (int i = 0; i < 3; i++)
    send_right (right, buf);
  MPE_Metric_sub (flag, 1);
  MPE_Log_event (foo_end, 0, NULL);
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int bad = 0;

  if (MPE_Metric_define ("in_foo", "1", &flag)
      || MPE_Metric_define ("foo_send_time", "ns", &foo_send)
      || MPE_Metric_define ("work", "1", &work)
      || MPE_Metric_define ("depth", "1", &depth))
    bad++;
  MPE_Metric_guard (foo_send, flag);
  int send_calls = -1, send_time = -1;
  if (MPE_Metric_find ("MPI_Send.calls", &send_calls)
      || MPE_Metric_find ("MPI_Send.time", &send_time))
    bad++;
  MPE_Metric_guard (send_calls, flag);
  MPE_Metric_guard (send_time, flag);
  int foo_begin, foo_end;
  MPE_Log_get_state_eventIDs (&foo_begin, &foo_end);
  if (rank == 0)
    MPE_Describe_state (foo_begin, foo_end, "foo", "red");
  MPE_Metric_sample_on (foo_end);

  char out[1000], in[1000];
  memset (out, rank, sizeof out);
  for (int i = 0; i < 10; i++)
    {
      MPI_Sendrecv (out, 1000, MPI_BYTE, right, 1, in, 1000, MPI_BYTE, left,
                    1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPE_Metric_add (work, rank + 1);
    }
  foo (right, out, foo_begin, foo_end);
  send_right (right, out);
  send_right (right, out);
  for (int i = 0; i < 5; i++)
    MPI_Recv (in, 64, MPI_BYTE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int *a = calloc ((size_t) size * 25, sizeof *a);
  int *b = calloc ((size_t) size * 25, sizeof *b);
  for (int i = 0; i < 2; i++)
    MPI_Alltoall (a, 25, MPI_INT, b, 25, MPI_INT, MPI_COMM_WORLD);
  MPE_Metric_set (depth, 5);
  MPE_Metric_set (depth, 3 + rank);
  MPE_Metric_sample ();

  /* What the calling thread's cells say. */
  int c;
  if (MPE_Metric_read (send_calls) != 3)
    fprintf (stderr, "MPI_Send.calls %lld\n", MPE_Metric_read (send_calls)),
      bad++;
  if (MPE_Metric_read (flag) != 0 || MPE_Metric_read (work) != 10 * (rank + 1)
      || MPE_Metric_read (depth) != 3 + rank)
    bad++;
  if (MPE_Metric_read (foo_send) < MPE_Metric_read (send_time))
    bad++;
  if (MPE_Metric_find ("msgs.sent", &c) || MPE_Metric_read (c) != 15)
    fprintf (stderr, "msgs.sent %lld\n", MPE_Metric_read (c)), bad++;
  if (MPE_Metric_find ("chan.bytes.sent", &c)
      || (size > 1 && MPE_Metric_read_channel (c, right) != 10320))
    bad++;
  if (MPE_Metric_set (9999, 1) != MPE_LOG_PACK_FAIL
      || MPE_Metric_guard (foo_send, 9999) != MPE_LOG_PACK_FAIL)
    bad++;
  free (a);
  free (b);
  /* One line per rank (no collective here: the collective cells are
   * checked exactly). */
  printf ("rank %d %s\n", rank, bad ? "cells wrong" : "ok");
  MPI_Finalize ();
  return 0;
}

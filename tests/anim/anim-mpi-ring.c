/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A message ring linked with libampe (automatic logging + live
 * animation).  argv: N messages per rank, optional microseconds of
 * "compute" between them.  After MPI_Finalize, rank 0 reads the merged
 * log ($MPE_LOGFILE_PREFIX.clog) and prints what it holds, so tests can
 * compare the window's counters and the log with what was sent.
 */
#include "config.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <logfmt/logfmt.h>

static int
check_log (const char *path)
{
  logfmt_reader_t *r;
  logfmt_error_t err;
  if (logfmt_reader_open (path, 0, &r, &err) < 0)
    {
      printf ("log_error=%s\n", err.message);
      return 1;
    }
  const logfmt_info_t *info = logfmt_reader_info (r);
  uint64_t sends = 0, recvs = 0;
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      logfmt_iter_t *it;
      logfmt_event_t ev;
      if (logfmt_iter_new (r, s, 0, UINT64_MAX, &it) < 0)
        continue;
      while (logfmt_iter_next (it, &ev) == 1)
        {
          sends += ev.kind == LOGFMT_KIND_SEND;
          recvs += ev.kind == LOGFMT_KIND_RECV;
        }
      logfmt_iter_free (it);
    }
  printf ("log_sends=%llu\nlog_recvs=%llu\nlog_messages=%llu\n",
          (unsigned long long) sends, (unsigned long long) recvs,
          (unsigned long long) info->nmessages);
  logfmt_reader_close (r);
  return 0;
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 100;
  int us = argc > 2 ? atoi (argv[2]) : 0;
  int rank, size, buf[256] = { 0 };
  MPI_Init (&argc, &argv);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  double t0 = MPI_Wtime ();
  for (int i = 0; i < n; i++)
    {
      int len = 1 + i % 256;
      if (rank % 2 == 0)
        {
          MPI_Send (buf, len, MPI_INT, next, i, MPI_COMM_WORLD);
          MPI_Recv (buf, 256, MPI_INT, prev, i, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
        }
      else
        {
          MPI_Recv (buf, 256, MPI_INT, prev, i, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
          MPI_Send (buf, len, MPI_INT, next, i, MPI_COMM_WORLD);
        }
      if (us)
        usleep ((useconds_t) us);
    }
  double loop = MPI_Wtime () - t0;
  MPI_Finalize ();
  if (rank == 0)
    {
      printf ("loop_s=%.6f\n", loop);
      const char *p = getenv ("MPE_LOGFILE_PREFIX");
      char path[4096];
      snprintf (path, sizeof path, "%s.clog", p ? p : "anim-mpi-ring");
      printf ("sent=%d\n", n * size);
      return check_log (path);
    }
  return 0;
}

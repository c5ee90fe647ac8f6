/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scheduling layer's test program (tests/mpe/sched.sh), MPE_SCHED=1.
 *   sched-prog threads N: per rank a sleeper thread (N states "Sleep",
 *       each one nanosleep of 3 ms) and a spinner thread (one state
 *       "Spin" of 40 ms busy looping: it never blocks);
 *   sched-prog pin CPU: every rank pins itself to CPU and logs states
 *       "Work" of 20 ms busy looping (the ranks share that CPU);
 *   sched-prog move A B: rank 0's thread spins on CPU A ("OnA", 30 ms),
 *       moves itself with sched_setaffinity inside state "Move", then
 *       spins on CPU B ("OnB", 30 ms);
 *   sched-prog net: rank 0 sends itself 100 UDP datagrams of 1000 bytes
 *       through the loopback interface, 2 ms apart (MPE_NETWORK=1);
 *   sched-prog wait: rank 1 sleeps 300 ms (state "Sleep": blocked) then
 *       sends rank 0 one integer, which rank 0 waits for in MPI_Recv
 *       (state "Wait": MPICH polls, so it spins).
 */
#define _GNU_SOURCE 1
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpe.h"

static int s_sleep[2], s_spin[2], s_work[2], s_a[2], s_move[2], s_b[2],
  s_wait[2];

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
spin (double s)
{
  double end = now () + s;
  while (now () < end)
    ;
}

static int nsleeps;

static void *
sleeper (void *arg)
{
  (void) arg;
  for (int i = 0; i < nsleeps; i++)
    {
      MPE_Log_event (s_sleep[0], 0, NULL);
      struct timespec ts = { 0, 3000000 };
      nanosleep (&ts, NULL);
      MPE_Log_event (s_sleep[1], 0, NULL);
    }
  return NULL;
}

static void *
spinner (void *arg)
{
  (void) arg;
  MPE_Log_event (s_spin[0], 0, NULL);
  spin (0.04);
  MPE_Log_event (s_spin[1], 0, NULL);
  return NULL;
}

static int
pin (int cpu)
{
  cpu_set_t s;
  CPU_ZERO (&s);
  CPU_SET (cpu, &s);
  return sched_setaffinity (0, sizeof s, &s);
}

static void
define (int *ids, const char *name, const char *color, int rank)
{
  MPE_Log_get_state_eventIDs (&ids[0], &ids[1]);
  if (rank == 0)
    MPE_Describe_state (ids[0], ids[1], name, color);
}

int
main (int argc, char **argv)
{
  int provided, rank;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPE_Init_log ();
  define (s_sleep, "Sleep", "blue", rank);
  define (s_spin, "Spin", "red", rank);
  define (s_work, "Work", "green", rank);
  define (s_a, "OnA", "yellow", rank);
  define (s_move, "Move", "orange", rank);
  define (s_b, "OnB", "purple", rank);
  define (s_wait, "Wait", "gray", rank);
  const char *mode = argc > 1 ? argv[1] : "threads";
  int rc = 0;
  if (strcmp (mode, "threads") == 0)
    {
      nsleeps = argc > 2 ? atoi (argv[2]) : 10;
      pthread_t a, b;
      pthread_create (&a, NULL, sleeper, NULL);
      pthread_create (&b, NULL, spinner, NULL);
      pthread_join (a, NULL);
      pthread_join (b, NULL);
    }
  else if (strcmp (mode, "pin") == 0 && argc > 2)
    {
      rc = pin (atoi (argv[2]));
      MPI_Barrier (MPI_COMM_WORLD);
      for (int i = 0; i < 5; i++)
        {
          MPE_Log_event (s_work[0], 0, NULL);
          spin (0.02);
          MPE_Log_event (s_work[1], 0, NULL);
        }
    }
  else if (strcmp (mode, "move") == 0 && argc > 3)
    {
      if (rank == 0)
        {
          rc = pin (atoi (argv[2]));
          MPE_Log_event (s_a[0], 0, NULL);
          spin (0.03);
          MPE_Log_event (s_a[1], 0, NULL);
          MPE_Log_event (s_move[0], 0, NULL);
          rc |= pin (atoi (argv[3]));
          MPE_Log_event (s_move[1], 0, NULL);
          MPE_Log_event (s_b[0], 0, NULL);
          spin (0.03);
          MPE_Log_event (s_b[1], 0, NULL);
        }
    }
  else if (strcmp (mode, "net") == 0)
    {
      if (rank == 0)
        {
          int fd = socket (AF_INET, SOCK_DGRAM, 0);
          struct sockaddr_in a;
          socklen_t al = sizeof a;
          memset (&a, 0, sizeof a);
          a.sin_family = AF_INET;
          a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
          rc = fd < 0 || bind (fd, (struct sockaddr *) &a, sizeof a) != 0
               || getsockname (fd, (struct sockaddr *) &a, &al) != 0;
          static char buf[1000];
          for (int i = 0; i < 100 && !rc; i++)
            {
              rc = sendto (fd, buf, sizeof buf, 0, (struct sockaddr *) &a,
                           sizeof a) != (ssize_t) sizeof buf
                   || recv (fd, buf, sizeof buf, 0) != (ssize_t) sizeof buf;
              struct timespec ts = { 0, 2000000 };
              nanosleep (&ts, NULL);
            }
          if (fd >= 0)
            close (fd);
        }
    }
  else if (strcmp (mode, "wait") == 0)
    {
      int v = 0;
      MPI_Barrier (MPI_COMM_WORLD);
      if (rank == 1)
        {
          MPE_Log_event (s_sleep[0], 0, NULL);
          struct timespec ts = { 0, 300000000 };
          nanosleep (&ts, NULL);
          MPE_Log_event (s_sleep[1], 0, NULL);
          MPI_Send (&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
      else if (rank == 0)
        {
          MPE_Log_event (s_wait[0], 0, NULL);
          MPI_Recv (&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPE_Log_event (s_wait[1], 0, NULL);
        }
    }
  else
    rc = 2;
  if (rc)
    fprintf (stderr, "sched-prog: bad mode or sched_setaffinity failed\n");
  MPE_Finish_log ("sched");
  MPI_Finalize ();
  return rc;
}

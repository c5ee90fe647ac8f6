/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fake ranks for mpeanim tests and benchmarks: forks P processes that
 * each run the real anim client (libanimclient) behind a stand-in for the
 * logging core (its anim_client_core_t), and emit messages on a ring at a
 * given rate.
 *
 *   anim-feed [--ranks P] [--msgs N] [--rate R] [--threads T]
 *             [--hold-ms H [--hold-file F]] [--addr A] [--no-client]
 *             [--quiet]
 *
 * Each message is four records: state begin, send to rank+1, receive from
 * rank-1, state end.  Times are CLOCK_MONOTONIC (so mpeanim --latency
 * works).  Prints one line per run: records, seconds, ns per record.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "anim/client/anim-client.h"

/* ---- stand-in for the logging core -------------------------------- */

/* Called through a pointer, as the core calls its tap. */
typedef void (*feed_tap_fn) (const anim_client_record_t *rec);
static _Atomic (feed_tap_fn) tap_fn;
static _Atomic int late_defs;
static int solo;  /* --solo: a named solo event before the hold */

static void
feed_set_tap (int on)
{
  atomic_store (&tap_fn, on ? anim_client_record : NULL);
}

static void
feed_foreach_state_def (anim_client_state_def_cb cb, void *user)
{
  cb (user, 100, 101, "Compute", "red");
  cb (user, 102, 103, "Wait", "blue");
  if (atomic_load (&late_defs))
    cb (user, 104, 105, "Late", "green");
  if (solo)
    cb (user, 5000, 5000, "Checkpoint", "white");  /* a solo event */
}

static const anim_client_core_t feed_core = {
  .set_tap = feed_set_tap,
  .foreach_state_def = feed_foreach_state_def,
};

/* ---- the fake rank ------------------------------------------------ */

static int ranks = 4, msgs = 1000, threads = 1, hold_ms = 0, no_client;
static const char *hold_file;  /* ends the hold early once it exists */
static int quiet, garbage;
static double rate = 0;
static const char *addr;
static int my_rank;

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static inline void
emit (int thread, int type, int id, int partner, int tag, uint64_t bytes)
{
  /* The record is made either way, as the logging core does; only the
   * tap call differs between --no-client and a client. */
  anim_client_record_t r = { .time_ns = now_ns (), .thread = thread,
                             .type = type, .event_id = id,
                             .partner = partner, .tag = tag,
                             .bytes = bytes };
  feed_tap_fn tap = atomic_load_explicit (&tap_fn, memory_order_acquire);
  if (tap)
    tap (&r);
}

static void *
worker (void *arg)
{
  int th = (int) (intptr_t) arg;
  int n = msgs / threads + (th < msgs % threads);
  uint64_t t0 = now_ns ();
  double per = rate > 0 ? 1e9 * threads / rate : 0;
  int next = (my_rank + 1) % ranks, prev = (my_rank + ranks - 1) % ranks;
  for (int i = 0; i < n; i++)
    {
      if (per > 0)
        {
          uint64_t due = t0 + (uint64_t) (i * per);
          uint64_t t = now_ns ();
          if (due > t + 200000)
            {
              struct timespec ts = { 0, (long) (due - t) };
              nanosleep (&ts, NULL);
            }
        }
      int late = th == 0 && i >= n / 2;
      if (late)
        atomic_store (&late_defs, 1);
      int st = late ? 104 : 100;
      emit (th, 1, st, 0, 0, 0);
      emit (th, 2, 0, next, th, 64u << (i % 12));
      emit (th, 3, 0, prev, th, 64u << (i % 12));
      emit (th, 1, st + 1, 0, 0, 0);
    }
  if (hold_ms && th == 0)
    {
      /* Sit in Wait for a while so a screenshot can see the state; a
         test that saw it says so with the hold file. */
      if (solo)
        emit (th, 1, 5000, 0, 0, 0);
      emit (th, 1, 102, 0, 0, 0);
      for (int ms = 0; ms < hold_ms; ms += 50)
        {
          if (hold_file && access (hold_file, F_OK) == 0)
            break;
          usleep (50 * 1000);
        }
      emit (th, 1, 103, 0, 0, 0);
    }
  return NULL;
}

static int
run_rank (int rank)
{
  my_rank = rank;
  if (!no_client)
    {
      int rc = anim_client_start (&feed_core, addr, rank, ranks);
      if (rc < 0)
        return 3;
    }
  pthread_t tids[64];
  uint64_t t0 = now_ns ();
  for (int t = 0; t < threads; t++)
    pthread_create (&tids[t], NULL, worker, (void *) (intptr_t) t);
  for (int t = 0; t < threads; t++)
    pthread_join (tids[t], NULL);
  uint64_t t1 = now_ns ();
  if (!no_client)
    anim_client_stop ();
  if (!quiet)
    printf ("rank %d: %d records in %.6f s, %.1f ns/record\n", rank,
            msgs * 4, (t1 - t0) / 1e9, (double) (t1 - t0) / (msgs * 4.0));
  return 0;
}

/* --garbage: connects to the TCP address of the list and sends random
 * bytes, as a hostile client would. */
static int
send_garbage (void)
{
  const char *t = addr ? strstr (addr, "tcp://") : NULL;
  char host[256];
  int port;
  if (!t || sscanf (t + 6, "%255[^:]:%d", host, &port) != 2)
    return 2;
  struct sockaddr_in sa = { .sin_family = AF_INET,
                            .sin_port = htons ((uint16_t) port) };
  if (inet_pton (AF_INET, host, &sa.sin_addr) != 1)
    return 2;
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || connect (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    return 1;
  unsigned char buf[4096];
  unsigned seed = 12345;
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (unsigned char) (rand_r (&seed) >> 7);
  /* Looks like a frame header at first, then lies about its length. */
  buf[0] = 60;
  buf[1] = 0;
  buf[2] = 1;
  buf[3] = 0;
  ssize_t w = send (fd, buf, sizeof buf, MSG_NOSIGNAL);
  char c;
  (void) recv (fd, &c, 1, 0);  /* the window closes it */
  close (fd);
  return w > 0 ? 0 : 1;
}

int
main (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (!strcmp (a, "--no-client"))
        no_client = 1;
      else if (!strcmp (a, "--garbage"))
        garbage = 1;
      else if (!strcmp (a, "--quiet"))
        quiet = 1;
      else if (!strcmp (a, "--solo"))
        solo = 1;
      else if (!v)
        goto usage;
      else if (!strcmp (a, "--ranks"))
        ranks = atoi (v), i++;
      else if (!strcmp (a, "--msgs"))
        msgs = atoi (v), i++;
      else if (!strcmp (a, "--rate"))
        rate = atof (v), i++;
      else if (!strcmp (a, "--threads"))
        threads = atoi (v), i++;
      else if (!strcmp (a, "--hold-ms"))
        hold_ms = atoi (v), i++;
      else if (!strcmp (a, "--hold-file"))
        hold_file = v, i++;
      else if (!strcmp (a, "--addr"))
        addr = v, i++;
      else
        goto usage;
    }
  if (ranks < 1 || ranks > 4096 || msgs < 1 || threads < 1 || threads > 64)
    goto usage;
  if (garbage)
    return send_garbage ();
  setvbuf (stdout, NULL, _IOLBF, 0);
  pid_t *pids = calloc ((size_t) ranks, sizeof *pids);
  for (int r = 0; r < ranks; r++)
    {
      pids[r] = fork ();
      if (pids[r] == 0)
        _exit (run_rank (r));
    }
  int bad = 0;
  for (int r = 0; r < ranks; r++)
    {
      int st;
      if (waitpid (pids[r], &st, 0) < 0 || !WIFEXITED (st)
          || WEXITSTATUS (st) != 0)
        bad++;
    }
  free (pids);
  if (bad)
    fprintf (stderr, "anim-feed: %d rank(s) failed\n", bad);
  return bad ? 1 : 0;
usage:
  fprintf (stderr, "usage: anim-feed [--ranks P] [--msgs N] [--rate R] "
           "[--threads T] [--hold-ms H [--hold-file F]] [--addr A] "
           "[--no-client] [--solo] "
           "[--quiet] [--garbage]\n");
  return 2;
}

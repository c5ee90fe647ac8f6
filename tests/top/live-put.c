/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The job's side of the monitor connection (mpe/src/mpe-monitor-live.c)
 * against a window that stops reading, with send() interposed so the
 * socket's state is the test's choice: a line the socket takes only in
 * part, then a socket that stays full.  live_put never waits in a
 * blocking send, the job's end takes a bounded time and says how many
 * lines were dropped; and when the window reads again the stream it
 * gets is whole lines (the partly sent one completed first).  TAP.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "mpe-internal.h"
#include "mpe-monitor.h"

static int tap_n, tap_failed;

static void
ok (int cond, const char *what)
{
  printf ("%sok %d - %s\n", cond ? "" : "not ", ++tap_n, what);
  fflush (stdout);
  if (!cond)
    tap_failed++;
}

/* The monitor's hooks into the rest of libmpe: none needed here. */
void mpe__mon_want (const mpe_mon_want_t *w, double hz)
{
  (void) w;
  (void) hz;
}
size_t mpe__metric_ndefs (void) { return 0; }
size_t mpe__metric_defs (logfmt_metric_def_t **out)
{
  *out = NULL;
  return 0;
}

/* send(): the window's reading as the test wants it.  Calls from 1 on
 * are counted; call `partial_at` sends half its bytes, the `stall`
 * calls after it send nothing (EAGAIN, or, in blocking mode, counted
 * as a wait that would never end). */
static int calls, partial_at = -1, stall, blocking_waits;

ssize_t
send (int fd, const void *buf, size_t n, int flags)
{
  calls++;
  int nonblock = (flags & MSG_DONTWAIT)
                 || (fcntl (fd, F_GETFL) & O_NONBLOCK);
  if (partial_at > 0 && calls == partial_at && n > 1)
    return sendto (fd, buf, n / 2, flags | MSG_DONTWAIT, NULL, 0);
  if (partial_at > 0 && calls > partial_at && stall > 0)
    {
      stall--;
      if (!nonblock)
        {
          blocking_waits++;       /* a stalled window: for ever */
          errno = EPIPE;
          return -1;
        }
      errno = EAGAIN;
      return -1;
    }
  return sendto (fd, buf, n, flags, NULL, 0);
}

/* A window on a UNIX socket; MPE_MONITOR_ADDR points at it. */
static int
window (const char *dir, int k)
{
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  snprintf (a.sun_path, sizeof a.sun_path, "%s/w%d", dir, k);
  int l = socket (AF_UNIX, SOCK_STREAM, 0);
  if (l < 0 || bind (l, (struct sockaddr *) &a, sizeof a) != 0
      || listen (l, 4) != 0)
    return -1;
  char addr[200];
  snprintf (addr, sizeof addr, "unix:%s#0123456789abcdef0123456789abcdef",
            a.sun_path);
  setenv ("MPE_MONITOR_ADDR", addr, 1);
  return l;
}

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
main (void)
{
  char dir[] = "/tmp/live-put-XXXXXX";
  if (!mkdtemp (dir))
    return 1;
  enum { RANKS = 200 };
  static int node_of[RANKS];
  mpe_mon_stats_t st = { 0 };
  char errpath[64];
  snprintf (errpath, sizeof errpath, "%s/err", dir);

  /* 1: the window stops reading after part of the fourth line. */
  int l = window (dir, 1);
  calls = 0;
  partial_at = 4;
  stall = 1 << 30;
  int saved = dup (2);
  int ef = open (errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  dup2 (ef, 2);
  double t0 = now ();
  mpe__mon_live_open (RANKS, 1, node_of, NULL, 0, 10);
  mpe__mon_live_poll ();
  mpe__mon_live_close (&st);
  double took = now () - t0;
  fflush (stderr);
  dup2 (saved, 2);
  close (ef);
  ok (blocking_waits == 0, "no send waits in blocking mode");
  printf ("# open, poll and close took %.2f s (at most about 1 s of "
          "it waiting for the window)\n", took);
  char msg[400] = "";
  FILE *f = fopen (errpath, "r");
  if (f)
    {
      if (!fgets (msg, sizeof msg, f))
        msg[0] = '\0';
      fclose (f);
    }
  msg[strcspn (msg, "\n")] = '\0';
  printf ("# stderr: %s\n", msg);
  unsigned long lost = 0;
  const char *p = strstr (msg, "slowly: ");
  ok (p && sscanf (p, "slowly: %lu lines", &lost) == 1 && lost >= RANKS,
      "the dropped lines are reported");
  close (l);

  /* 2: part of the fourth line, two full-socket calls, then the window
   * reads again: it gets whole lines only, ending with the accounting. */
  l = window (dir, 2);
  calls = 0;
  partial_at = 4;
  stall = 2;
  mpe__mon_live_open (4, 1, node_of, NULL, 0, 10);
  int w = accept (l, NULL, NULL);
  mpe__mon_live_poll ();
  mpe__mon_live_close (&st);
  static char in[1 << 16];
  size_t n = 0;
  ssize_t r;
  while (w >= 0 && n < sizeof in - 1
         && (r = read (w, in + n, sizeof in - 1 - n)) > 0)
    n += (size_t) r;
  in[n] = '\0';
  int whole = n > 0 && in[n - 1] == '\n', lines = 0;
  for (char *s = in, *e; whole && (e = strchr (s, '\n')); s = e + 1, lines++)
    {
      static const char *const words[] = { "hello ", "metric ", "node ",
                                           "stats ", "bye" };
      int known = 0;
      for (int i = 0; i < 5; i++)
        known |= strncmp (s, words[i], strlen (words[i])) == 0;
      whole &= known;
    }
  printf ("# %d lines received\n", lines);
  ok (whole, "the window reads whole lines only");
  ok (strstr (in, "\nstats ") && strstr (in, "\nbye\n"),
      "the accounting arrives after the stall");
  close (w);
  close (l);
  char cmd[100];
  snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
  if (system (cmd) != 0)
    printf ("# cannot remove %s\n", dir);
  printf ("1..%d\n", tap_n);
  return tap_failed != 0;
}

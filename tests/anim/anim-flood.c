/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpeanim's listener (anim-server.c, without a window) against a flood
 * of connections that never say HELLO: 1100 silent connections held
 * open, more than the window ever allowed in all, then four ranks say
 * HELLO and all four get in; a rank that says HELLO just before 1100
 * more silent connections gets in too; the oldest silent connections
 * are the ones closed.  TAP output.
 */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib.h>

#include "anim/client/anim-proto.h"
#include "anim/src/anim-live.h"
#include "anim/src/anim-server.h"

static int tap_n, tap_failed;

static void
ok (int cond, const char *what)
{
  printf ("%sok %d - %s\n", cond ? "" : "not ", ++tap_n, what);
  if (!cond)
    tap_failed++;
}

static int
connect_port (int port)
{
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = { .sin_family = AF_INET,
                           .sin_port = htons ((uint16_t) port),
                           .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  if (fd >= 0 && connect (fd, (struct sockaddr *) &a, sizeof a) != 0)
    {
      close (fd);
      fd = -1;
    }
  return fd;
}

static int
hello (int port, const char *token, int rank, int size)
{
  int fd = connect_port (port);
  uint8_t f[ANIM_HELLO_LEN] = { 0 };
  anim_put_hdr (f, ANIM_HELLO_LEN, ANIM_F_HELLO);
  memcpy (f + 4, ANIM_PROTO_MAGIC, 8);
  memcpy (f + 12, token, ANIM_TOKEN_LEN);
  anim_put32 (f + 44, (uint32_t) rank);
  anim_put32 (f + 48, (uint32_t) size);
  anim_put32 (f + 52, (uint32_t) getpid ());
  if (fd >= 0 && write (fd, f, sizeof f) != (ssize_t) sizeof f)
    {
      close (fd);
      fd = -1;
    }
  return fd;
}

/* Waits (a bound, not a measure) until the server counted n HELLOs. */
static guint
wait_hellos (AnimServer *srv, guint n)
{
  for (int i = 0; i < 6000 && anim_server_n_hello (srv) < n; i++)
    g_usleep (10000);
  return anim_server_n_hello (srv);
}

int
main (void)
{
  enum { FLOOD = 1100, RANKS = 4 };
  /* Both ends of the flood live here: 2 x 2 x FLOOD descriptors. */
  struct rlimit rl;
  getrlimit (RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit (RLIMIT_NOFILE, &rl);
  if (rl.rlim_cur < 4 * FLOOD + 200)
    {
      printf ("1..0 # SKIP needs %d descriptors, the limit is %llu\n",
              4 * FLOOD + 200, (unsigned long long) rl.rlim_cur);
      return 0;
    }
  GError *err = NULL;
  AnimLive *lv = anim_live_new ();
  AnimServer *srv = anim_server_new (lv, NULL, &err);
  if (!srv)
    {
      printf ("Bail out! %s\n", err->message);
      return 1;
    }
  const char *addr = anim_server_address (srv);
  const char *tcp = strstr (addr, "tcp://");
  const char *slash = tcp ? strrchr (tcp, '/') : NULL;
  const char *colon = tcp ? strrchr (tcp, ':') : NULL;
  if (!slash || !colon || strlen (slash + 1) != ANIM_TOKEN_LEN)
    {
      printf ("Bail out! address %s\n", addr);
      return 1;
    }
  int port = atoi (colon + 1);
  const char *token = slash + 1;

  static int flood[2 * FLOOD];
  int nflood = 0;
  for (int i = 0; i < FLOOD; i++)
    if ((flood[nflood] = connect_port (port)) >= 0)
      nflood++;
  ok (nflood == FLOOD, "1100 silent connections made");
  int ranks[RANKS + 1];
  for (int r = 0; r < RANKS; r++)
    ranks[r] = hello (port, token, r, RANKS);
  guint n = wait_hellos (srv, RANKS);
  printf ("# HELLOs counted: %u, connections open: %u\n", n,
          anim_server_n_open (srv));
  ok (n == RANKS, "every rank gets in past the silent connections");
  ok (anim_server_n_open (srv) <= ANIM_MAX_PENDING + RANKS,
      "silent connections beyond the cap are closed");
  /* The oldest silent connection is one of those closed. */
  struct pollfd p = { flood[0], POLLIN, 0 };
  char b;
  ok (poll (&p, 1, 60000) == 1 && read (flood[0], &b, 1) == 0,
      "the oldest silent connection was closed");

  /* A HELLO sent just before a second flood. */
  ranks[RANKS] = hello (port, token, 0, RANKS);
  for (int i = 0; i < FLOOD; i++)
    if ((flood[nflood] = connect_port (port)) >= 0)
      nflood++;
  n = wait_hellos (srv, RANKS + 1);
  ok (n == RANKS + 1, "a rank whose HELLO precedes a flood gets in");

  for (int i = 0; i < nflood; i++)
    close (flood[i]);
  for (int r = 0; r <= RANKS; r++)
    if (ranks[r] >= 0)
      close (ranks[r]);
  anim_server_free (srv);
  anim_live_free (lv);
  printf ("1..%d\n", tap_n);
  return tap_failed != 0;
}

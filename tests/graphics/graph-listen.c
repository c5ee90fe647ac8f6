/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpegraph's listener and captures (graph-server.c, without a window):
 * ranks get in past 1100 silent connections held open; the oldest
 * silent one is closed; and MPE_CaptureFile's frames are written only
 * beneath the capture directory: a path elsewhere, one with "..", one
 * through a symbolic link leading out, and an existing link as the
 * frame file itself are refused (UPDATED says MPE_ERR_BAD_ARGS) and
 * nothing is written outside.  TAP output.
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
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "anim/client/graph-proto.h"
#include "anim/src/graph-server.h"

static int tap_n, tap_failed;

static void
ok (int cond, const char *what)
{
  printf ("%sok %d - %s\n", cond ? "" : "not ", ++tap_n, what);
  fflush (stdout);
  if (!cond)
    tap_failed++;
}

enum { FLOOD = 1100, RANKS = 4 };

static int port;
static char token[ANIM_TOKEN_LEN + 1];
static char *dir, *capdir, *outdir;
static gint done;

static int
connect_port (void)
{
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = { .sin_family = AF_INET,
                           .sin_port = htons ((uint16_t) port),
                           .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  if (fd >= 0 && connect (fd, (struct sockaddr *) &a, sizeof a) != 0)
    {
      close (fd);
      return -1;
    }
  struct timeval tv = { 60, 0 };      /* a bound on a lost answer */
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

static int
send_all (int fd, const void *b, size_t n)
{
  return write (fd, b, n) == (ssize_t) n ? 0 : -1;
}

static int
rank_hello (int rank)
{
  int fd = connect_port ();
  uint8_t f[GRAPH_HELLO_LEN] = { 0 };
  anim_put_hdr (f, GRAPH_HELLO_LEN, GRAPH_F_HELLO);
  memcpy (f + 4, GRAPH_PROTO_MAGIC, 8);
  memcpy (f + 12, token, ANIM_TOKEN_LEN);
  anim_put32 (f + 44, (uint32_t) rank);
  anim_put32 (f + 48, RANKS);
  anim_put32 (f + 52, 64);
  anim_put32 (f + 56, 64);
  if (fd >= 0 && send_all (fd, f, sizeof f) != 0)
    {
      close (fd);
      fd = -1;
    }
  return fd;
}

/* UPDATE, and the status of its UPDATED answer (-1: none came). */
static int
update (int fd, uint32_t seq)
{
  uint8_t f[GRAPH_UPDATE_LEN], r[GRAPH_UPDATED_LEN];
  anim_put_hdr (f, GRAPH_UPDATE_LEN, GRAPH_F_UPDATE);
  anim_put32 (f + 4, seq);
  if (send_all (fd, f, sizeof f) != 0)
    return -1;
  size_t got = 0;
  while (got < sizeof r)
    {
      ssize_t k = read (fd, r + got, sizeof r - got);
      if (k <= 0)
        return -1;
      got += (size_t) k;
    }
  if (r[2] != GRAPH_F_UPDATED || anim_get32 (r + 4) != seq)
    return -1;
  return (int) anim_get32 (r + 8);
}

/* CAPTURE path every update, then one UPDATE: its status. */
static int
capture (int fd, const char *path)
{
  uint8_t f[GRAPH_CAPTURE_MIN + GRAPH_PATH_MAX];
  size_t n = strlen (path);
  anim_put_hdr (f, (uint16_t) (GRAPH_CAPTURE_MIN + n), GRAPH_F_CAPTURE);
  anim_put32 (f + 4, 1);
  memcpy (f + GRAPH_CAPTURE_MIN, path, n);
  if (send_all (fd, f, GRAPH_CAPTURE_MIN + n) != 0)
    return -1;
  static uint32_t seq;
  return update (fd, ++seq);
}

static int
exists (const char *a, const char *b)
{
  char *p = g_build_filename (a, b, NULL);
  struct stat st;
  int r = lstat (p, &st) == 0;
  g_free (p);
  return r;
}

static int
dir_empty (const char *d)
{
  GDir *g = g_dir_open (d, 0, NULL);
  int empty = g && !g_dir_read_name (g);
  if (g)
    g_dir_close (g);
  return empty;
}

static gpointer
client (gpointer data)
{
  (void) data;
  static int flood[FLOOD];
  int nflood = 0;
  for (int i = 0; i < FLOOD; i++)
    if ((flood[nflood] = connect_port ()) >= 0)
      nflood++;
  ok (nflood == FLOOD, "1100 silent connections made");
  int ranks[RANKS], in = 0;
  for (int r = 0; r < RANKS; r++)
    ranks[r] = rank_hello (r);
  for (int r = 0; r < RANKS; r++)
    in += ranks[r] >= 0 && update (ranks[r], 1000 + (uint32_t) r) == 0;
  printf ("# ranks answered: %d of %d\n", in, RANKS);
  ok (in == RANKS, "every rank gets in past the silent connections");
  struct pollfd p = { flood[0], POLLIN, 0 };
  char b;
  ok (poll (&p, 1, 60000) == 1 && read (flood[0], &b, 1) == 0,
      "the oldest silent connection was closed");
  for (int i = 0; i < nflood; i++)
    close (flood[i]);

  int fd = ranks[0];
  char *path = g_strdup_printf ("%s/sub/frame", capdir);
  ok (capture (fd, path) == GRAPH_OK && exists (capdir, "sub/frame000.png"),
      "a capture beneath the directory is written");
  g_free (path);
  path = g_strdup_printf ("%s/x", outdir);
  ok (capture (fd, path) == GRAPH_ERR_ARGS, "a path elsewhere is refused");
  g_free (path);
  path = g_strdup_printf ("%s/../out/y", capdir);
  ok (capture (fd, path) == GRAPH_ERR_ARGS, "a path with .. is refused");
  g_free (path);
  path = g_strdup_printf ("%s/link/z", capdir);
  ok (capture (fd, path) == GRAPH_ERR_ARGS,
      "a path through a link leading out is refused");
  g_free (path);
  path = g_strdup_printf ("%s/victim", capdir);
  ok (capture (fd, path) == GRAPH_ERR_ARGS,
      "an existing link as the frame file is refused");
  g_free (path);
  ok (dir_empty (outdir), "nothing was written outside the directory");
  ok (capture (fd, "rel") == GRAPH_OK && exists (capdir, "rel000.png"),
      "a relative capture name is written in the directory");
  for (int r = 0; r < RANKS; r++)
    if (ranks[r] >= 0)
      close (ranks[r]);
  g_atomic_int_set (&done, 1);
  g_main_context_wakeup (NULL);
  return NULL;
}

int
main (void)
{
  /* Both ends of the flood live here. */
  struct rlimit rl;
  getrlimit (RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit (RLIMIT_NOFILE, &rl);
  if (rl.rlim_cur < 2 * FLOOD + 200)
    {
      printf ("1..0 # SKIP needs %d descriptors, the limit is %llu\n",
              2 * FLOOD + 200, (unsigned long long) rl.rlim_cur);
      return 0;
    }
  dir = g_dir_make_tmp ("graph-listen-XXXXXX", NULL);
  capdir = g_build_filename (dir, "cap", NULL);
  outdir = g_build_filename (dir, "out", NULL);
  char *sub = g_build_filename (capdir, "sub", NULL);
  char *link = g_build_filename (capdir, "link", NULL);
  char *victim = g_build_filename (capdir, "victim000.png", NULL);
  char *target = g_build_filename (outdir, "victim", NULL);
  if (!dir || g_mkdir_with_parents (sub, 0700) != 0
      || g_mkdir_with_parents (outdir, 0700) != 0
      || symlink (outdir, link) != 0 || symlink (target, victim) != 0)
    {
      printf ("Bail out! cannot make the directories\n");
      return 1;
    }
  GError *err = NULL;
  GraphServerHooks hooks = { NULL, NULL };
  GraphServer *srv = graph_server_new (NULL, 64, 64, &hooks, NULL, &err);
  if (!srv || !graph_server_capture_dir (srv, capdir, &err))
    {
      printf ("Bail out! %s\n", err->message);
      return 1;
    }
  graph_server_set_headless (srv, TRUE);
  const char *addr = graph_server_address (srv);
  const char *tcp = strstr (addr, "tcp://");
  const char *slash = tcp ? strrchr (tcp, '/') : NULL;
  const char *colon = tcp ? strrchr (tcp, ':') : NULL;
  if (!slash || !colon || strlen (slash + 1) != ANIM_TOKEN_LEN)
    {
      printf ("Bail out! address %s\n", addr);
      return 1;
    }
  port = atoi (colon + 1);
  memcpy (token, slash + 1, ANIM_TOKEN_LEN);
  GThread *t = g_thread_new ("client", client, NULL);
  while (!g_atomic_int_get (&done))
    g_main_context_iteration (NULL, TRUE);
  g_thread_join (t);
  graph_server_free (srv);
  unlink (victim);
  unlink (link);
  char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
  if (system (cmd) != 0)
    printf ("# cannot remove %s\n", dir);
  printf ("1..%d\n", tap_n);
  return tap_failed != 0;
}

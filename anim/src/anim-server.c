/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib-unix.h>
#include <glib/gstdio.h>

#include "anim/client/anim-proto.h"
#include "anim-server.h"
#include "anim-wire.h"

#define CONN_BUF      65536
#define HELLO_TIMEOUT 5

typedef struct Conn Conn;

struct AnimServer
{
  AnimLive *live;
  int       tcp_fd, unix_fd;
  guint     tcp_src, unix_src;
  char     *dir, *sock_path;
  char      token[ANIM_TOKEN_LEN + 1];
  char     *address;
  GList    *conns;
  guint     nopen, nhello;
};

struct Conn
{
  AnimServer *srv;
  int      fd;
  guint    src, timer;
  AnimWire wire;           /* the protocol state (anim-wire.c) */
  guint8   buf[CONN_BUF];
  size_t   len;
};

static void
conn_close (Conn *c)
{
  AnimServer *srv = c->srv;
  if (c->src)
    g_source_remove (c->src);
  if (c->timer)
    g_source_remove (c->timer);
  close (c->fd);
  srv->conns = g_list_remove (srv->conns, c);
  srv->nopen--;
  g_free (c);
}

static void
conn_reject (Conn *c, const char *why)
{
  g_message ("mpeanim: closing connection%s: %s",
             c->wire.hello ? "" : " (before HELLO)", why);
  anim_live_rejected (c->srv->live);
  conn_close (c);
}

/* The wire parser's records go to the live model. */
static void
on_hello (void *user, int rank, int size)
{
  Conn *c = user;
  if (c->srv->nhello++ == 0)
    g_printerr ("mpeanim: a job of %d processes is connecting\n", size);
  if (c->timer)
    {
      g_source_remove (c->timer);
      c->timer = 0;
    }
  anim_live_hello (c->srv->live, rank, size);
}

static void
on_state_def (void *user, int32_t start, int32_t end, const char *name,
              const char *color)
{
  Conn *c = user;
  anim_live_state_def (c->srv->live, start, end, name, color);
}

static void
on_event (void *user, int rank, uint64_t t, int thread, int32_t id)
{
  Conn *c = user;
  anim_live_event (c->srv->live, rank, t, thread, id);
}

static void
on_msg (void *user, int rank, int is_send, uint64_t t, int thread,
        int32_t partner, int32_t tag, uint64_t bytes)
{
  Conn *c = user;
  anim_live_msg (c->srv->live, rank, is_send, t, thread, partner, tag, bytes);
}

static void
on_drops (void *user, int rank, uint64_t total)
{
  Conn *c = user;
  anim_live_drops (c->srv->live, rank, total);
}

static void
on_end (void *user, int rank, uint64_t sent, uint64_t dropped,
        uint64_t received)
{
  Conn *c = user;
  anim_live_end (c->srv->live, rank, sent, dropped, received);
}

static const AnimWireSink live_sink = {
  on_hello, on_state_def, on_event, on_msg, on_drops, on_end
};

static gboolean
conn_readable (gint fd, GIOCondition cond, gpointer data)
{
  Conn *c = data;
  gboolean eof = FALSE;
  /* Read what fits; a full buffer always holds whole frames to consume,
   * since frames are at most ANIM_FRAME_MAX bytes. */
  for (int rounds = 0; rounds < 16 && c->len < CONN_BUF; rounds++)
    {
      ssize_t r = read (fd, c->buf + c->len, CONN_BUF - c->len);
      if (r > 0)
        {
          c->len += (size_t) r;
          continue;
        }
      if (r == 0)
        eof = TRUE;
      else if (errno == EINTR)
        continue;
      else if (errno != EAGAIN && errno != EWOULDBLOCK)
        eof = TRUE;
      break;
    }
  const char *err;
  size_t off = anim_wire_feed (&c->wire, c->buf, c->len, &err);
  if (err)
    {
      c->src = 0;
      conn_reject (c, err);
      return G_SOURCE_REMOVE;
    }
  memmove (c->buf, c->buf + off, c->len - off);
  c->len -= off;
  if (eof || (cond & (G_IO_HUP | G_IO_ERR) && !(cond & G_IO_IN)))
    {
      c->src = 0;
      if (!c->wire.hello && !c->wire.ended)
        anim_live_rejected (c->srv->live);
      conn_close (c);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
conn_hello_timeout (gpointer data)
{
  Conn *c = data;
  c->timer = 0;
  conn_reject (c, "no HELLO within 5 seconds");
  return G_SOURCE_REMOVE;
}

static gboolean
accept_cb (gint lfd, GIOCondition cond, gpointer data)
{
  AnimServer *srv = data;
  for (;;)
    {
      int fd = accept4 (lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0)
        break;
      if (srv->nopen >= ANIM_MAX_CLIENTS)
        {
          close (fd);
          anim_live_rejected (srv->live);
          continue;
        }
      Conn *c = g_new0 (Conn, 1);
      c->srv = srv;
      c->fd = fd;
      anim_wire_init (&c->wire, &live_sink, c, srv->token, ANIM_MAX_PROCS);
      /* Below GTK's redraw priority: a flood of records must not starve
       * the frames (the ranks drop what the window cannot take). */
      c->src = g_unix_fd_add_full (G_PRIORITY_DEFAULT_IDLE, fd,
                                   G_IO_IN | G_IO_HUP | G_IO_ERR,
                                   conn_readable, c, NULL);
      c->timer = g_timeout_add_seconds (HELLO_TIMEOUT, conn_hello_timeout, c);
      srv->conns = g_list_prepend (srv->conns, c);
      srv->nopen++;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
make_token (char *out, GError **error)
{
  guint8 raw[ANIM_TOKEN_LEN / 2];
  size_t got = 0;
  while (got < sizeof raw)
    {
      ssize_t r = getrandom (raw + got, sizeof raw - got, 0);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        {
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                       "getrandom: %s", g_strerror (errno));
          return FALSE;
        }
      got += (size_t) r;
    }
  for (size_t i = 0; i < sizeof raw; i++)
    snprintf (out + 2 * i, 3, "%02x", raw[i]);
  return TRUE;
}

static int
listen_tcp (const char *spec, char **shown, GError **error)
{
  g_autofree char *host = NULL;
  const char *port = "0";
  g_autofree char *copy = g_strdup (spec ? spec : "127.0.0.1");
  if (copy[0] == '[')
    {
      char *rb = strchr (copy, ']');
      if (!rb)
        goto bad;
      *rb = '\0';
      host = g_strdup (copy + 1);
      if (rb[1] == ':')
        port = spec + (rb + 2 - copy);
      else if (rb[1])
        goto bad;
    }
  else
    {
      char *colon = strrchr (copy, ':');
      if (colon && strchr (copy, ':') == colon)
        {
          *colon = '\0';
          port = spec + (colon + 1 - copy);
        }
      host = g_strdup (copy);
    }
  struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
                            .ai_flags = AI_PASSIVE }, *res;
  int gai = getaddrinfo (*host ? host : NULL, port, &hints, &res);
  if (gai)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "--listen %s: %s", spec, gai_strerror (gai));
      return -1;
    }
  int fd = -1;
  for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next)
    {
      fd = socket (ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                   0);
      if (fd < 0)
        continue;
      int one = 1;
      setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (bind (fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen (fd, 128) < 0)
        {
          close (fd);
          fd = -1;
        }
    }
  freeaddrinfo (res);
  if (fd < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "cannot listen on %s: %s", spec ? spec : "127.0.0.1",
                   g_strerror (errno));
      return -1;
    }
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  getsockname (fd, (struct sockaddr *) &ss, &sl);
  char hbuf[NI_MAXHOST], pbuf[NI_MAXSERV];
  getnameinfo ((struct sockaddr *) &ss, sl, hbuf, sizeof hbuf, pbuf,
               sizeof pbuf, NI_NUMERICHOST | NI_NUMERICSERV);
  /* A wildcard address is no use to clients: show the host name. */
  const char *h = hbuf;
  if (strcmp (hbuf, "0.0.0.0") == 0 || strcmp (hbuf, "::") == 0)
    h = g_get_host_name ();
  if (strchr (h, ':'))
    *shown = g_strdup_printf ("tcp://[%s]:%s", h, pbuf);
  else
    *shown = g_strdup_printf ("tcp://%s:%s", h, pbuf);
  return fd;
bad:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               "--listen %s: expected HOST, HOST:PORT or [V6]:PORT", spec);
  return -1;
}

AnimServer *
anim_server_new (AnimLive *live, const char *listen_spec, GError **error)
{
  g_autofree char *tcp = NULL;
  AnimServer *srv = g_new0 (AnimServer, 1);
  srv->live = live;
  srv->tcp_fd = srv->unix_fd = -1;
  if (!make_token (srv->token, error))
    goto fail;
  srv->tcp_fd = listen_tcp (listen_spec, &tcp, error);
  if (srv->tcp_fd < 0)
    goto fail;
  srv->dir = g_dir_make_tmp ("mpeanim-XXXXXX", error);
  if (!srv->dir)
    goto fail;
  srv->sock_path = g_build_filename (srv->dir, "sock", NULL);
  struct sockaddr_un un = { .sun_family = AF_UNIX };
  if (strlen (srv->sock_path) < sizeof un.sun_path)
    {
      strcpy (un.sun_path, srv->sock_path);
      srv->unix_fd = socket (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK
                             | SOCK_CLOEXEC, 0);
      if (srv->unix_fd >= 0
          && (bind (srv->unix_fd, (struct sockaddr *) &un, sizeof un) < 0
              || listen (srv->unix_fd, 128) < 0))
        {
          close (srv->unix_fd);
          srv->unix_fd = -1;
        }
    }
  srv->tcp_src = g_unix_fd_add (srv->tcp_fd, G_IO_IN, accept_cb, srv);
  if (srv->unix_fd >= 0)
    {
      srv->unix_src = g_unix_fd_add (srv->unix_fd, G_IO_IN, accept_cb, srv);
      srv->address = g_strdup_printf ("unix:%s#%s,%s/%s", srv->sock_path,
                                      srv->token, tcp, srv->token);
    }
  else
    srv->address = g_strdup_printf ("%s/%s", tcp, srv->token);
  return srv;
fail:
  anim_server_free (srv);
  return NULL;
}

void
anim_server_free (AnimServer *srv)
{
  if (!srv)
    return;
  while (srv->conns)
    conn_close (srv->conns->data);
  if (srv->tcp_src)
    g_source_remove (srv->tcp_src);
  if (srv->unix_src)
    g_source_remove (srv->unix_src);
  if (srv->tcp_fd >= 0)
    close (srv->tcp_fd);
  if (srv->unix_fd >= 0)
    close (srv->unix_fd);
  if (srv->sock_path)
    g_unlink (srv->sock_path);
  if (srv->dir)
    g_rmdir (srv->dir);
  g_free (srv->sock_path);
  g_free (srv->dir);
  g_free (srv->address);
  g_free (srv);
}

const char *
anim_server_address (const AnimServer *srv)
{
  return srv->address;
}

guint
anim_server_n_open (const AnimServer *srv)
{
  return srv->nopen;
}

guint
anim_server_n_hello (const AnimServer *srv)
{
  return srv->nhello;
}

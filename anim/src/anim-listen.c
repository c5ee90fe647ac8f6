/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "anim-listen.h"

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

/* Socket directories NAME-XXXXXX of this user that a killed mpeanim or
 * mpegraph left in the temporary directory: a socket nobody listens on
 * (or none), at least a minute old (one just made is about to be bound)
 * goes, with its directory. */
static void
sweep_stale_dirs (const char *name)
{
  const char *tmp = g_get_tmp_dir ();
  GDir *d = g_dir_open (tmp, 0, NULL);
  if (!d)
    return;
  size_t nl = strlen (name);
  const char *e;
  while ((e = g_dir_read_name (d)))
    {
      if (strncmp (e, name, nl) || e[nl] != '-' || strlen (e + nl + 1) != 6)
        continue;
      g_autofree char *dir = g_build_filename (tmp, e, NULL);
      g_autofree char *sock = g_build_filename (dir, "sock", NULL);
      GStatBuf sb;
      if (g_lstat (dir, &sb) != 0 || !S_ISDIR (sb.st_mode)
          || sb.st_uid != getuid () || time (NULL) - sb.st_mtime < 60)
        continue;
      struct sockaddr_un un = { .sun_family = AF_UNIX };
      if (strlen (sock) < sizeof un.sun_path && g_lstat (sock, &sb) == 0)
        {
          strcpy (un.sun_path, sock);
          int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
          int live = fd < 0
                     || connect (fd, (struct sockaddr *) &un, sizeof un) == 0
                     || errno != ECONNREFUSED;
          if (fd >= 0)
            close (fd);
          if (live)
            continue;
          g_unlink (sock);
        }
      g_rmdir (dir);   /* fails, harmlessly, if anything else is in it */
    }
  g_dir_close (d);
}

gboolean
anim_listen_open (AnimListen *l, const char *name, const char *listen_spec,
                  GError **error)
{
  sweep_stale_dirs (name);
  g_autofree char *tcp = NULL;
  g_autofree char *tmpl = g_strdup_printf ("%s-XXXXXX", name);
  memset (l, 0, sizeof *l);
  l->tcp_fd = l->unix_fd = -1;
  if (!make_token (l->token, error))
    goto fail;
  l->tcp_fd = listen_tcp (listen_spec, &tcp, error);
  if (l->tcp_fd < 0)
    goto fail;
  l->dir = g_dir_make_tmp (tmpl, error);
  if (!l->dir)
    goto fail;
  l->sock_path = g_build_filename (l->dir, "sock", NULL);
  struct sockaddr_un un = { .sun_family = AF_UNIX };
  if (strlen (l->sock_path) < sizeof un.sun_path)
    {
      strcpy (un.sun_path, l->sock_path);
      l->unix_fd = socket (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK
                           | SOCK_CLOEXEC, 0);
      if (l->unix_fd >= 0
          && (bind (l->unix_fd, (struct sockaddr *) &un, sizeof un) < 0
              || listen (l->unix_fd, 128) < 0))
        {
          close (l->unix_fd);
          l->unix_fd = -1;
        }
    }
  if (l->unix_fd >= 0)
    l->address = g_strdup_printf ("unix:%s#%s,%s/%s", l->sock_path,
                                  l->token, tcp, l->token);
  else
    l->address = g_strdup_printf ("%s/%s", tcp, l->token);
  return TRUE;
fail:
  anim_listen_close (l);
  return FALSE;
}

static GSource *
watch_fd (GMainContext *ctx, int fd, GUnixFDSourceFunc cb, gpointer data)
{
  GSource *src = g_unix_fd_source_new (fd, G_IO_IN);
  g_source_set_callback (src, G_SOURCE_FUNC (cb), data, NULL);
  g_source_attach (src, ctx);
  return src;
}

void
anim_listen_watch (AnimListen *l, GMainContext *ctx,
                   GUnixFDSourceFunc accept_cb, gpointer data)
{
  l->tcp_src = watch_fd (ctx, l->tcp_fd, accept_cb, data);
  if (l->unix_fd >= 0)
    l->unix_src = watch_fd (ctx, l->unix_fd, accept_cb, data);
}

void
anim_source_drop (GSource **src)
{
  if (!*src)
    return;
  g_source_destroy (*src);
  g_source_unref (*src);
  *src = NULL;
}

gboolean
anim_conn_fill (int fd, guint8 *buf, size_t *len, size_t cap)
{
  for (int rounds = 0; rounds < 16 && *len < cap; rounds++)
    {
      ssize_t r = read (fd, buf + *len, cap - *len);
      if (r > 0)
        {
          *len += (size_t) r;
          continue;
        }
      if (r == 0)
        return TRUE;
      if (errno == EINTR)
        continue;
      return errno != EAGAIN && errno != EWOULDBLOCK;
    }
  return FALSE;
}

void
anim_listen_close (AnimListen *l)
{
  anim_source_drop (&l->tcp_src);
  anim_source_drop (&l->unix_src);
  if (l->tcp_fd >= 0)
    close (l->tcp_fd);
  if (l->unix_fd >= 0)
    close (l->unix_fd);
  l->tcp_fd = l->unix_fd = -1;
  if (l->sock_path)
    g_unlink (l->sock_path);
  if (l->dir)
    g_rmdir (l->dir);
  g_clear_pointer (&l->sock_path, g_free);
  g_clear_pointer (&l->dir, g_free);
  g_clear_pointer (&l->address, g_free);
}

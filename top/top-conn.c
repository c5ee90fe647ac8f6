/* SPDX-License-Identifier: BSD-3-Clause */
/* mpetop's connection to the job's manager rank. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "top-conn.h"

static int
random_token (char *out)
{
  unsigned char b[TOP_TOKEN_LEN / 2];
  int fd = open ("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || read (fd, b, sizeof b) != (ssize_t) sizeof b)
    {
      if (fd >= 0)
        close (fd);
      return -1;
    }
  close (fd);
  for (size_t i = 0; i < sizeof b; i++)
    sprintf (out + 2 * i, "%02x", b[i]);
  return 0;
}

int
top_conn_listen (top_conn_t *c, const char *spec, char *addr, size_t cap)
{
  char host[256] = "127.0.0.1", port[16] = "0";
  c->lfd = c->fd = -1;
  c->nin = 0;
  if (random_token (c->token) != 0)
    {
      fprintf (stderr, "mpetop: cannot read /dev/urandom for a token\n");
      return -1;
    }
  if (spec)
    {
      const char *colon = strrchr (spec, ':');
      if (!colon || (size_t) (colon - spec) >= sizeof host
          || strlen (colon + 1) >= sizeof port || colon == spec)
        {
          fprintf (stderr, "mpetop: --listen %s: give HOST:PORT\n", spec);
          return -1;
        }
      memcpy (host, spec, (size_t) (colon - spec));
      host[colon - spec] = '\0';
      strcpy (port, colon + 1);
    }
  struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
                            .ai_flags = AI_PASSIVE };
  struct addrinfo *res;
  int fd = -1, one = 1;
  if (getaddrinfo (host, port, &hints, &res) == 0)
    {
      fd = socket (res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd >= 0)
        setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (fd >= 0 && (bind (fd, res->ai_addr, res->ai_addrlen) != 0
                      || listen (fd, 4) != 0))
        {
          close (fd);
          fd = -1;
        }
      freeaddrinfo (res);
    }
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  char h[256], p[16];
  if (fd < 0 || getsockname (fd, (struct sockaddr *) &ss, &sl) != 0
      || getnameinfo ((struct sockaddr *) &ss, sl, h, sizeof h, p, sizeof p,
                      NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    {
      fprintf (stderr, "mpetop: cannot listen on %s:%s: %s\n", host, port,
               strerror (errno));
      if (fd >= 0)
        close (fd);
      return -1;
    }
  c->lfd = fd;
  snprintf (addr, cap, strchr (h, ':') ? "tcp://[%s]:%s/%s"
                                       : "tcp://%s:%s/%s", h, p, c->token);
  return 0;
}

int
top_conn_accept (top_conn_t *c)
{
  int fd = accept4 (c->lfd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0)
    return -1;
  if (c->fd >= 0)
    close (c->fd);
  c->fd = fd;
  c->nin = 0;
  return 0;
}

void
top_conn_send (top_conn_t *c, const char *line)
{
  if (c->fd >= 0)
    (void) !send (c->fd, line, strlen (line), MSG_NOSIGNAL | MSG_DONTWAIT);
}

void
top_conn_close (top_conn_t *c)
{
  if (c->fd >= 0)
    close (c->fd);
  c->fd = -1;
  c->nin = 0;
}

/* Feeds the complete lines read so far to the model.  -1: hang up. */
static int
feed (top_conn_t *c, top_model_t *m)
{
  char *nl;
  while ((nl = memchr (c->in, '\n', c->nin)))
    {
      size_t n = (size_t) (nl - c->in);
      if (c->record)
        fprintf (c->record, "%.*s\n", (int) n, c->in);
      int rc = top_model_line (m, c->in, n, c->token);
      if (rc == -2 || (!m->hello && rc < 0))
        {
          fprintf (stderr, "mpetop: a peer did not introduce itself with "
                   "the right token; hung up\n");
          return -1;
        }
      c->nin -= n + 1;
      memmove (c->in, nl + 1, c->nin);
    }
  if (c->nin == sizeof c->in)
    {
      fprintf (stderr, "mpetop: a line longer than %zu bytes; hung up\n",
               sizeof c->in);
      return -1;
    }
  return 0;
}

int
top_conn_read (top_conn_t *c, top_model_t *m)
{
  if (c->fd < 0)
    return -1;
  ssize_t r = recv (c->fd, c->in + c->nin, sizeof c->in - c->nin,
                    MSG_DONTWAIT);
  if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    return 0;
  if (r <= 0)
    {
      if (m->hello)
        m->ended = 1;
      top_conn_close (c);
      return -1;
    }
  c->nin += (size_t) r;
  if (feed (c, m) < 0)
    {
      top_conn_close (c);
      return -1;
    }
  if (c->record)
    fflush (c->record);
  return 0;
}

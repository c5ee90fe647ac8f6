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
#include <time.h>
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
  c->npending = 0;
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
      fd = socket (res->ai_family, SOCK_STREAM | SOCK_NONBLOCK
                   | SOCK_CLOEXEC, 0);
      if (fd >= 0)
        setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (fd >= 0 && (bind (fd, res->ai_addr, res->ai_addrlen) != 0
                      || listen (fd, 64) != 0))
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

static int
conn_read (top_conn_t *c, top_model_t *m)
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

static int64_t
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
pending_drop (top_conn_t *c, int i, const char *why)
{
  if (why)
    fprintf (stderr, "mpetop: a peer %s; hung up\n", why);
  close (c->pending[i].fd);
  c->pending[i] = c->pending[--c->npending];
}

/* Accepts waiting peers, a few at a time (the caller reads them before
 * it accepts more, so a burst of newer ones cannot push out a job whose
 * hello is on its way); when the pending slots are full the oldest
 * goes, so a flood of silent peers cannot keep a job out. */
static void
accept_all (top_conn_t *c)
{
  for (int batch = 0; batch < TOP_PENDING_MAX / 4; batch++)
    {
      int fd = accept4 (c->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0)
        {
          if (errno == EINTR || errno == ECONNABORTED)
            continue;
          /* EMFILE and the like: a silent peer's slot makes room. */
          if ((errno == EMFILE || errno == ENFILE) && c->npending)
            {
              pending_drop (c, 0, "made room (too many open files)");
              continue;
            }
          return;
        }
      if (c->npending == TOP_PENDING_MAX)
        {
          int oldest = 0;
          for (int i = 1; i < c->npending; i++)
            if (c->pending[i].since_ms < c->pending[oldest].since_ms)
              oldest = i;
          pending_drop (c, oldest, "gave way to a newer one before its "
                        "hello");
        }
      c->pending[c->npending++] = (top_pending_t) { .fd = fd,
                                                    .since_ms = now_ms () };
    }
}

/* The first line of a pending peer: "hello 1 TOKEN ..." with our token
 * (the model checks the rest). */
static int
hello_has_token (const char *line, size_t n, const char *token)
{
  static const char pre[] = "hello 1 ";
  size_t tl = strlen (token);
  return n > sizeof pre - 1 + tl
         && memcmp (line, pre, sizeof pre - 1) == 0
         && memcmp (line + sizeof pre - 1, token, tl) == 0
         && line[sizeof pre - 1 + tl] == ' ';
}

/* Reads pending peer i; 1 when it said a right hello (still open). */
static int
pending_read (top_conn_t *c, int i)
{
  top_pending_t *p = &c->pending[i];
  ssize_t r = recv (p->fd, p->in + p->nin, sizeof p->in - p->nin,
                    MSG_DONTWAIT);
  if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK
                 && errno != EINTR))
    {
      pending_drop (c, i, NULL);
      return -1;
    }
  if (r > 0)
    p->nin += (size_t) r;
  char *nl = memchr (p->in, '\n', p->nin);
  if (nl)
    {
      if (hello_has_token (p->in, (size_t) (nl - p->in), c->token))
        return 1;
      pending_drop (c, i, "did not introduce itself with the right token");
      return -1;
    }
  if (p->nin == sizeof p->in)
    {
      pending_drop (c, i, "did not introduce itself with the right token");
      return -1;
    }
  if (now_ms () - p->since_ms >= TOP_HELLO_TIMEOUT_S * 1000)
    {
      char why[64];
      snprintf (why, sizeof why, "said no hello within %d s",
                TOP_HELLO_TIMEOUT_S);
      pending_drop (c, i, why);
      return -1;
    }
  return 0;
}

int
top_conn_serve (top_conn_t *c, top_model_t *m)
{
  int ev = 0;
  accept_all (c);
  for (int i = 0; i < c->npending;)
    {
      int n = c->npending;
      int rc = pending_read (c, i);
      if (rc == 1 && c->fd >= 0)
        {
          pending_drop (c, i, "introduced another job while one is "
                        "watched");
          continue;
        }
      if (rc == 1)
        {
          /* The job: its buffered lines go through the model. */
          top_pending_t p = c->pending[i];
          c->pending[i] = c->pending[--c->npending];
          if (m->hello || m->ended)
            {
              top_model_free (m);
              top_model_init (m);
            }
          c->fd = p.fd;
          memcpy (c->in, p.in, p.nin);
          c->nin = p.nin;
          if (feed (c, m) < 0)
            {
              top_conn_close (c);
              top_model_free (m);
              top_model_init (m);
              continue;
            }
          if (m->hello)
            ev |= TOP_EV_HELLO;
          continue;
        }
      if (c->npending == n)
        i++;
    }
  if (c->fd >= 0 && conn_read (c, m) < 0)
    ev |= TOP_EV_GONE;
  return ev;
}

int
top_conn_pollfds (const top_conn_t *c, struct pollfd *p, int cap)
{
  int n = 0;
  if (n < cap)
    p[n++] = (struct pollfd) { c->lfd, POLLIN, 0 };
  if (c->fd >= 0 && n < cap)
    p[n++] = (struct pollfd) { c->fd, POLLIN, 0 };
  for (int i = 0; i < c->npending && n < cap; i++)
    p[n++] = (struct pollfd) { c->pending[i].fd, POLLIN, 0 };
  return n;
}

/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "anim/client/anim-addr.h"

/* Internal linkage outside the libraries' public API (libmpe builds with
 * -fvisibility=hidden; this keeps liblmpe's copy private as well). */
#define HIDDEN __attribute__ ((visibility ("hidden")))

static int
is_token (const char *t, size_t n)
{
  if (n != ANIM_TOKEN_LEN)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f')))
      return 0;
  return 1;
}

/* One element; all elements of a list must carry one token. */
static int
parse_one (const char *s, size_t n, anim_addr_t *a, char *token)
{
  const char *end = s + n, *tok;
  memset (a, 0, sizeof *a);
  if (n > 5 && strncmp (s, "unix:", 5) == 0)
    {
      const char *hash = memchr (s, '#', n);
      if (!hash)
        return -1;
      size_t plen = (size_t) (hash - (s + 5));
      if (plen == 0 || plen >= sizeof a->path || s[5] != '/')
        return -1;
      memcpy (a->path, s + 5, plen);
      a->kind = 2;
      tok = hash + 1;
    }
  else if (n > 6 && strncmp (s, "tcp://", 6) == 0)
    {
      const char *h = s + 6, *he, *colon;
      const char *slash = memchr (h, '/', (size_t) (end - h));
      if (!slash)
        return -1;
      if (*h == '[')
        {
          he = memchr (h, ']', (size_t) (slash - h));
          if (!he || he + 1 >= slash || he[1] != ':')
            return -1;
          colon = he + 1;
          h++;
        }
      else
        {
          colon = NULL;
          for (const char *p = slash - 1; p >= h; p--)
            if (*p == ':')
              {
                colon = p;
                break;
              }
          if (!colon)
            return -1;
          he = colon;
        }
      size_t hl = (size_t) (he - h), pl = (size_t) (slash - colon - 1);
      if (hl == 0 || hl >= sizeof a->host || pl == 0 || pl >= sizeof a->port)
        return -1;
      memcpy (a->host, h, hl);
      memcpy (a->port, colon + 1, pl);
      for (size_t i = 0; i < pl; i++)
        if (a->port[i] < '0' || a->port[i] > '9')
          return -1;
      a->kind = 1;
      tok = slash + 1;
    }
  else
    return -1;
  if (!is_token (tok, (size_t) (end - tok)))
    return -1;
  if (token[0] && memcmp (token, tok, ANIM_TOKEN_LEN) != 0)
    return -1;
  memcpy (token, tok, ANIM_TOKEN_LEN);
  token[ANIM_TOKEN_LEN] = '\0';
  return 0;
}

HIDDEN int
anim_addr_parse (const char *list, anim_addr_list_t *l)
{
  const char *p = list;
  l->naddrs = 0;
  l->token[0] = '\0';
  while (*p)
    {
      const char *comma = strchr (p, ',');
      size_t n = comma ? (size_t) (comma - p) : strlen (p);
      if (l->naddrs == ANIM_ADDR_MAX
          || parse_one (p, n, &l->addrs[l->naddrs], l->token) < 0)
        return -1;
      l->naddrs++;
      if (!comma)
        break;
      p = comma + 1;
    }
  return l->naddrs > 0 ? 0 : -1;
}

static int
connect_nb (int family, const struct sockaddr *sa, socklen_t len, int ms)
{
  int fd = socket (family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  if (connect (fd, sa, len) < 0)
    {
      int err = 0, r;
      socklen_t el = sizeof err;
      struct pollfd pfd = { .fd = fd, .events = POLLOUT };
      if (errno == EINPROGRESS)
        do
          r = poll (&pfd, 1, ms);
        while (r < 0 && errno == EINTR);
      else
        r = -1;
      if (r <= 0 || getsockopt (fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0
          || err)
        {
          close (fd);
          return -1;
        }
    }
  if (family != AF_UNIX)
    {
      int one = 1;
      setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
  return fd;
}

HIDDEN int
anim_addr_connect (const anim_addr_list_t *l, int timeout_ms)
{
  for (int i = 0; i < l->naddrs; i++)
    {
      const anim_addr_t *a = &l->addrs[i];
      if (a->kind == 2)
        {
          struct sockaddr_un un = { .sun_family = AF_UNIX };
          memcpy (un.sun_path, a->path, strlen (a->path) + 1);
          int fd = connect_nb (AF_UNIX, (struct sockaddr *) &un, sizeof un,
                               timeout_ms);
          if (fd >= 0)
            return fd;
          continue;
        }
      struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
      if (getaddrinfo (a->host, a->port, &hints, &res) != 0)
        continue;
      for (ai = res; ai; ai = ai->ai_next)
        {
          int fd = connect_nb (ai->ai_family, ai->ai_addr, ai->ai_addrlen,
                               timeout_ms);
          if (fd >= 0)
            {
              freeaddrinfo (res);
              return fd;
            }
        }
      freeaddrinfo (res);
    }
  return -1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpetop: watches a running MPI job through the MPE live monitor.  It
 * listens, prints the address to export as MPE_MONITOR_ADDR, accepts the
 * job's manager rank, and shows the samples as one refreshed table (text
 * mode, works over SSH) or in a window.  See mpetop(1).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "top-model.h"
#include "top-text.h"

typedef struct
{
  int    lfd, fd;
  char   token[TOP_TOKEN_LEN + 1];
  char   in[1 << 16];
  size_t nin;
  char  *big;          /* a line longer than `in` */
  size_t nbig, capbig;
  FILE  *record;
} conn_t;

static volatile sig_atomic_t stop_flag;

static void
on_signal (int s)
{
  (void) s;
  stop_flag = 1;
}

static void
usage (FILE *f)
{
  fprintf (f,
    "usage: mpetop [--text] [--listen HOST:PORT] [--level LEVEL] "
    "[--metric CODE]\n"
    "              [--hz HZ] [--batch N] [--record FILE] [--addr-file FILE]\n"
    "Watches a running MPI job through the MPE live monitor: start it, then\n"
    "run the job with MPE_MONITOR_ADDR set to the address it prints.\n"
    "  --text            one refreshed table (default without a display)\n"
    "  --listen H:P      where to listen (default 127.0.0.1:0)\n"
    "  --level L         thread|process|node|job|channel (default process)\n"
    "  --object N        one object of the level (channel: the sender rank)\n"
    "  --metric CODE     metric code to ask for (see the table's header)\n"
    "  --hz HZ           sampling rate to ask for\n"
    "  --batch N         print N tables, no screen control, then exit\n"
    "  --record FILE     append every line the job sends to FILE\n"
    "  --addr-file FILE  also write the address to FILE\n");
}

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

static int
listen_on (const char *spec, char *addr, size_t cap)
{
  char host[256] = "127.0.0.1", port[16] = "0";
  if (spec)
    {
      const char *c = strrchr (spec, ':');
      if (!c || (size_t) (c - spec) >= sizeof host || strlen (c + 1) >= sizeof port)
        return -1;
      memcpy (host, spec, (size_t) (c - spec));
      host[c - spec] = '\0';
      strcpy (port, c + 1);
    }
  struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
  struct addrinfo *res;
  if (getaddrinfo (host, port, &hints, &res) != 0)
    return -1;
  int fd = socket (res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  if (fd >= 0)
    setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd < 0 || bind (fd, res->ai_addr, res->ai_addrlen) != 0
      || listen (fd, 4) != 0)
    {
      if (fd >= 0)
        close (fd);
      freeaddrinfo (res);
      return -1;
    }
  freeaddrinfo (res);
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  char h[256], p[16];
  if (getsockname (fd, (struct sockaddr *) &ss, &sl) != 0
      || getnameinfo ((struct sockaddr *) &ss, sl, h, sizeof h, p, sizeof p,
                      NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    {
      close (fd);
      return -1;
    }
  snprintf (addr, cap, strchr (h, ':') ? "tcp://[%s]:%s" : "tcp://%s:%s",
            h, p);
  return fd;
}

static void
send_line (conn_t *c, const char *line)
{
  if (c->fd >= 0)
    (void) !send (c->fd, line, strlen (line), MSG_NOSIGNAL);
}

static void
ask (conn_t *c, const top_text_opts_t *o)
{
  char line[96];
  if (o->level >= 0)
    {
      snprintf (line, sizeof line, "want %d %d %u\n", o->level, o->object,
                o->code);
      send_line (c, line);
    }
  if (o->hz > 0)
    {
      snprintf (line, sizeof line, "hz %g\n", o->hz);
      send_line (c, line);
    }
}

/* Feeds the bytes read to the model line by line.  Returns -1 to hang up. */
static int
feed (conn_t *c, top_model_t *m, const top_text_opts_t *o)
{
  char *nl;
  while ((nl = memchr (c->in, '\n', c->nin)))
    {
      size_t n = (size_t) (nl - c->in);
      if (c->record)
        fprintf (c->record, "%.*s\n", (int) n, c->in);
      int had = m->hello;
      int rc = top_model_line (m, c->in, n, c->token);
      if (rc == -2 || (!m->hello && rc < 0))
        {
          fprintf (stderr, "mpetop: the peer did not introduce itself with "
                   "the right token; hanging up\n");
          return -1;
        }
      if (!had && m->hello)
        ask (c, o);
      c->nin -= n + 1;
      memmove (c->in, nl + 1, c->nin);
    }
  if (c->nin == sizeof c->in)
    {
      fprintf (stderr, "mpetop: a line longer than %zu bytes; hanging up\n",
               sizeof c->in);
      return -1;
    }
  return 0;
}

static int
run (conn_t *c, top_text_opts_t *o)
{
  top_model_t m;
  top_model_init (&m);
  struct termios saved;
  int raw = !o->batch && isatty (0) && tcgetattr (0, &saved) == 0;
  if (raw)
    {
      struct termios t = saved;
      t.c_lflag &= (tcflag_t) ~(ICANON | ECHO);
      tcsetattr (0, TCSANOW, &t);
    }
  int shown = 0, rc = 0;
  uint64_t last_drawn = 0;
  while (!stop_flag)
    {
      struct pollfd p[2] = { { c->fd >= 0 ? c->fd : c->lfd, POLLIN, 0 },
                             { raw ? 0 : -1, POLLIN, 0 } };
      int n = poll (p, 2, 500);
      if (n < 0 && errno != EINTR)
        break;
      if (c->fd < 0 && (p[0].revents & POLLIN))
        {
          c->fd = accept4 (c->lfd, NULL, NULL, SOCK_CLOEXEC);
          continue;
        }
      if (c->fd >= 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR)))
        {
          ssize_t r = recv (c->fd, c->in + c->nin, sizeof c->in - c->nin, 0);
          if (r > 0)
            {
              c->nin += (size_t) r;
              if (feed (c, &m, o) < 0)
                {
                  close (c->fd);
                  c->fd = -1;
                  c->nin = 0;
                  top_model_free (&m);
                  top_model_init (&m);
                  continue;
                }
            }
          else if (r == 0 || (errno != EINTR && errno != EAGAIN))
            {
              close (c->fd);
              c->fd = -1;
              m.ended = 1;
            }
        }
      if (raw && (p[1].revents & POLLIN))
        {
          char k;
          if (read (0, &k, 1) == 1 && top_text_key (o, &m, k))
            {
              if (k == 'q')
                break;
              ask (c, o);
            }
        }
      if (m.samples != last_drawn || m.ended)
        {
          last_drawn = m.samples;
          top_text_draw (stdout, &m, o);
          shown++;
          if ((o->batch && shown >= o->batch) || m.ended)
            break;
        }
    }
  if (raw)
    tcsetattr (0, TCSANOW, &saved);
  if (!m.hello && o->batch)
    rc = 1;
  top_model_free (&m);
  return rc;
}

int
main (int argc, char **argv)
{
  static const struct option longs[] = {
    { "text", no_argument, NULL, 't' },
    { "listen", required_argument, NULL, 'L' },
    { "level", required_argument, NULL, 'l' },
    { "object", required_argument, NULL, 'o' },
    { "metric", required_argument, NULL, 'm' },
    { "hz", required_argument, NULL, 'z' },
    { "batch", required_argument, NULL, 'b' },
    { "record", required_argument, NULL, 'r' },
    { "addr-file", required_argument, NULL, 'a' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  top_text_opts_t o = { .level = -1, .object = -1, .code = 0xffff0000u };
  const char *listen_spec = NULL, *record = NULL, *addr_file = NULL;
  int ch;
  char *end;
  while ((ch = getopt_long (argc, argv, "h", longs, NULL)) != -1)
    switch (ch)
      {
      case 't':
        break;     /* the only mode without GTK */
      case 'L': listen_spec = optarg; break;
      case 'l':
        o.level = top_level_parse (optarg);
        if (o.level < 0)
          {
            fprintf (stderr, "mpetop: --level %s: use thread, process, "
                     "node, job or channel\n", optarg);
            return 2;
          }
        break;
      case 'o':
        o.object = (int) strtol (optarg, &end, 10);
        if (*end || o.object < -1)
          {
            fprintf (stderr, "mpetop: --object %s is not a number >= 0\n",
                     optarg);
            return 2;
          }
        break;
      case 'm':
        o.code = (uint32_t) strtoul (optarg, &end, 0);
        if (*end || !*optarg)
          {
            fprintf (stderr, "mpetop: --metric %s is not a code\n", optarg);
            return 2;
          }
        if (o.level < 0)
          o.level = TOP_LEVEL_PROCESS;
        break;
      case 'z':
        o.hz = strtod (optarg, &end);
        if (*end || !(o.hz > 0 && o.hz <= 10000))
          {
            fprintf (stderr, "mpetop: --hz %s: give a rate in (0, 10000]\n",
                     optarg);
            return 2;
          }
        break;
      case 'b':
        o.batch = (int) strtol (optarg, &end, 10);
        if (*end || o.batch <= 0)
          {
            fprintf (stderr, "mpetop: --batch %s is not a count > 0\n",
                     optarg);
            return 2;
          }
        break;
      case 'r': record = optarg; break;
      case 'a': addr_file = optarg; break;
      case 'h': usage (stdout); return 0;
      default: usage (stderr); return 2;
      }
  if (optind != argc)
    {
      usage (stderr);
      return 2;
    }
  if (o.level == TOP_LEVEL_CHANNEL && o.object < 0)
    {
      fprintf (stderr, "mpetop: --level channel needs --object RANK "
               "(the sender whose row to show)\n");
      return 2;
    }
  conn_t c = { .lfd = -1, .fd = -1 };
  char addr[320];
  if (random_token (c.token) != 0)
    {
      fprintf (stderr, "mpetop: cannot read /dev/urandom for a token\n");
      return 1;
    }
  c.lfd = listen_on (listen_spec, addr, sizeof addr);
  if (c.lfd < 0)
    {
      fprintf (stderr, "mpetop: cannot listen on %s\n",
               listen_spec ? listen_spec : "127.0.0.1:0");
      return 1;
    }
  printf ("MPE_MONITOR_ADDR=%s/%s\n", addr, c.token);
  fflush (stdout);
  if (addr_file)
    {
      FILE *f = fopen (addr_file, "w");
      if (!f || fprintf (f, "%s/%s\n", addr, c.token) < 0 || fclose (f) != 0)
        {
          fprintf (stderr, "mpetop: cannot write %s\n", addr_file);
          return 1;
        }
    }
  if (record && !(c.record = fopen (record, "a")))
    {
      fprintf (stderr, "mpetop: cannot open %s\n", record);
      return 1;
    }
  signal (SIGINT, on_signal);
  signal (SIGTERM, on_signal);
  signal (SIGPIPE, SIG_IGN);
  int rc = run (&c, &o);
  if (c.record)
    fclose (c.record);
  return rc;
}

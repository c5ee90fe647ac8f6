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

#include "top-conn.h"
#include "top-model.h"
#include "top-text.h"
#ifdef MPETOP_GTK
# include <gtk/gtk.h>
# include "top-window.h"
#endif

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
    "              [--exit-after-job]\n"
    "Watches a running MPI job through the MPE live monitor: start it, then\n"
    "run the job with MPE_MONITOR_ADDR set to the address it prints.\n"
    "  --text            one refreshed table (always without a display)\n"
    "  --listen H:P      where to listen (default 127.0.0.1:0)\n"
    "  --level L         thread|process|node|job|channel (default process)\n"
    "  --object N        one object of the level (channel: the sender rank)\n"
    "  --metric CODE     metric code to ask for (see the table's header)\n"
    "  --hz HZ           sampling rate to ask for\n"
    "  --batch N         print N tables, no screen control, then exit\n"
    "  --record FILE     append every line the job sends to FILE\n"
    "  --addr-file FILE  also write the address to FILE\n"
    "  --exit-after-job  the window closes when the job has ended\n");
}

/* Writes "TEXT\n" to path readable by its owner only from the start (the
 * token in it is the job's key): a 0600 file beside it, renamed over. */
static int
write_private (const char *path, const char *text)
{
  size_t pl = strlen (path);
  char *tmp = malloc (pl + 8);
  if (!tmp)
    return -1;
  memcpy (tmp, path, pl);
  memcpy (tmp + pl, ".XXXXXX", 8);
  int fd = mkostemp (tmp, O_CLOEXEC);      /* mode 0600 */
  if (fd < 0)
    {
      free (tmp);
      return -1;
    }
  size_t n = strlen (text), off = 0;
  int rc = 0;
  while (rc == 0 && off <= n)
    {
      /* The text, then its newline. */
      const char *p = off < n ? text + off : "\n";
      size_t k = off < n ? n - off : 1;
      ssize_t w = write (fd, p, k);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        rc = -1;
      else
        off += (size_t) w;
    }
  if (close (fd) != 0)
    rc = -1;
  if (rc == 0 && rename (tmp, path) != 0)
    rc = -1;
  if (rc != 0)
    unlink (tmp);
  free (tmp);
  return rc;
}

static void
ask (top_conn_t *c, const top_text_opts_t *o)
{
  char line[96];
  if (o->level >= 0)
    {
      snprintf (line, sizeof line, "want %d %d %u\n", o->level, o->object,
                o->code);
      top_conn_send (c, line);
    }
  if (o->hz > 0)
    {
      snprintf (line, sizeof line, "hz %g\n", o->hz);
      top_conn_send (c, line);
    }
}

/* Text mode: poll the socket, the keyboard and a clock. */
static int
run_text (top_conn_t *c, top_text_opts_t *o)
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
  if (!o->batch)
    top_text_draw (stdout, &m, o);
  while (!stop_flag)
    {
      /* The keyboard, the listener, the job and the pending peers. */
      struct pollfd p[2 + 2 + TOP_PENDING_MAX];
      p[0] = (struct pollfd) { raw ? 0 : -1, POLLIN, 0 };
      int np = 1 + top_conn_pollfds (c, p + 1, (int) (sizeof p / sizeof *p)
                                     - 1);
      /* A wake-up at least every half second: pending peers time out. */
      int n = poll (p, (nfds_t) np, 500);
      if (n < 0 && errno != EINTR)
        break;
      int ev = top_conn_serve (c, &m);
      if ((ev & TOP_EV_GONE) && !m.ended)
        {
          top_model_free (&m);     /* refused: wait for the next */
          top_model_init (&m);
        }
      if (ev & TOP_EV_HELLO)
        {
          ask (c, o);
          top_conn_send (c, "ready\n");   /* the job may sample now */
        }
      if (raw && (p[0].revents & POLLIN))
        {
          char k;
          if (read (0, &k, 1) == 1 && top_text_key (o, &m, k))
            {
              if (k == 'q')
                break;
              ask (c, o);
            }
        }
      if (m.samples != last_drawn || (m.ended && c->fd < 0))
        {
          last_drawn = m.samples;
          top_text_draw (stdout, &m, o);
          shown++;
          if ((o->batch && shown >= o->batch) || (m.ended && c->fd < 0))
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
    { "exit-after-job", no_argument, NULL, 'x' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  top_text_opts_t o = { .level = -1, .object = -1, .code = 0xffff0000u };
  const char *listen_spec = NULL, *record = NULL, *addr_file = NULL;
  int ch, text = 0, exit_after_job = 0;
  char *end;
  while ((ch = getopt_long (argc, argv, "h", longs, NULL)) != -1)
    switch (ch)
      {
      case 't': text = 1; break;
      case 'x': exit_after_job = 1; break;
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
  static top_conn_t c;
  char addr[320];
  if (top_conn_listen (&c, listen_spec, addr, sizeof addr) != 0)
    return 1;
  printf ("MPE_MONITOR_ADDR=%s\n", addr);
  fflush (stdout);
  if (addr_file)
    {
      if (write_private (addr_file, addr) != 0)
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
  int rc;
#ifndef MPETOP_GTK
  (void) text;              /* without GTK there is only the text mode */
  (void) exit_after_job;
#endif
#ifdef MPETOP_GTK
  /* The window unless asked for text, for a batch, or without display. */
  if (!text && !o.batch && gtk_init_check (&argc, &argv))
    rc = top_window_run (&c, &o, exit_after_job);
  else
#endif
    rc = run_text (&c, &o);
  if (c.record)
    fclose (c.record);
  return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The manager's connection to a live window (mpetop): samples out, the
 * window's choices (metric, level, rate) in.  One text line per message,
 * so the protocol can be read with `nc` (docs/man/mpetop.1 lists it):
 *
 *   job -> window   hello 1 TOKEN RANKS NODES HZ
 *                   node RANK NODE HOST           (one per rank)
 *                   sample SEQ T_NS RTT_NS LEVEL OBJECT CODE VISITED N
 *                          then N x " OBJ:SUM:MIN:MAX:MINOBJ:MAXOBJ:PARTS"
 *                   stats SENT RETURNED LATE SKIPPED
 *   window -> job   want LEVEL OBJECT CODE | hz HZ | ready
 *
 * The window answers the hello with its choices, then "ready": the
 * manager issues no request before that (or before LIVE_READY_WAIT_NS),
 * so every sample the window sees is of the level it asked for, not of
 * the default one still travelling when its "want" arrives.
 *
 * Sockets are non-blocking: a slow window loses samples (the log keeps
 * them all), never slows the job.  A line the socket took only part of
 * keeps its rest aside, sent before anything else when the window reads
 * again; lines that come meanwhile are dropped, and a window that never
 * reads again costs the job at most LIVE_CLOSE_WAIT_MS at its end.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "anim/client/anim-addr.h"
#include "mpe-internal.h"
#include "mpe-monitor.h"

/* How long the manager holds its first request for a window that has
 * not said "ready" (a client that never answers), from its first tick.
 * Generous: the cost is paid only with such a client. */
#define LIVE_READY_WAIT_NS 20000000000ull
/* At the end, how long the accounting may wait for a window that stopped
 * reading. */
#define LIVE_CLOSE_WAIT_MS 1000

static struct
{
  int    fd;
  char   token[ANIM_TOKEN_LEN + 1];
  char   in[512];
  size_t nin;
  unsigned long dropped;    /* lines not sent: the window read too slowly */
  char  *rest;               /* the unsent end of a line partly sent */
  size_t nrest, rest_off;
  size_t metrics_sent;     /* definitions announced so far */
  int    ready;            /* the window said "ready" (or gave up) */
  uint64_t ready_by;       /* local ns: sample anyway from then on */
} L = { .fd = -1 };

/* An mpetop address ("tcp://HOST:PORT/TOKEN", the animation window's
 * form, anim/client/anim-addr.h).  Returns a connected socket. */
static int
live_connect (const char *addr)
{
  anim_addr_list_t l;
  if (anim_addr_parse (addr, &l) != 0)
    return -1;
  memcpy (L.token, l.token, sizeof L.token);
  int fd = anim_addr_connect (&l, 2000);
  if (fd >= 0)
    fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

static void
live_drop_conn (void)
{
  close (L.fd);
  L.fd = -1;
  free (L.rest);
  L.rest = NULL;
  L.nrest = L.rest_off = 0;
}

/* Sends what is left of a partly sent line, never waiting.  1 when
 * nothing is left (or the connection is gone), 0 when some still is. */
static int
live_flush_rest (void)
{
  while (L.fd >= 0 && L.rest_off < L.nrest)
    {
      ssize_t w = send (L.fd, L.rest + L.rest_off, L.nrest - L.rest_off,
                        MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
      if (w <= 0)
        {
          live_drop_conn ();
          return 1;
        }
      L.rest_off += (size_t) w;
    }
  free (L.rest);
  L.rest = NULL;
  L.nrest = L.rest_off = 0;
  return 1;
}

/* Writes a whole line or nothing (a full socket drops it), never
 * blocking: the window is a guest of the job. */
static void
live_put (const char *s, size_t n)
{
  if (L.fd < 0)
    return;
  if (!live_flush_rest ())
    {
      L.dropped++;
      return;
    }
  if (L.fd < 0)
    return;
  ssize_t w;
  do
    w = send (L.fd, s, n, MSG_NOSIGNAL | MSG_DONTWAIT);
  while (w < 0 && errno == EINTR);
  if (w == (ssize_t) n)
    return;
  if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    {
      L.dropped++;
      return;
    }
  if (w < 0)
    {
      live_drop_conn ();
      return;
    }
  /* Part of the line went out: the rest goes first next time, so the
     stream stays parseable. */
  L.nrest = n - (size_t) w;
  L.rest = malloc (L.nrest);
  if (!L.rest)
    {
      live_drop_conn ();      /* half a line would confuse the window */
      return;
    }
  memcpy (L.rest, s + w, L.nrest);
  L.rest_off = 0;
}

void
mpe__mon_live_sample (const mpe_mon_req_t *q, double rtt)
{
  if (L.fd < 0)
    return;
  const mpe_mon_slot_t *s = (const mpe_mon_slot_t *) (q + 1);
  size_t cap = 128 + (size_t) q->nslots * 120, n;
  char *buf = malloc (cap);
  if (!buf)
    return;
  n = (size_t) snprintf (buf, cap, "sample %u %lld %lld %u %d %u %u %u",
                         q->seq, (long long) q->t_send,
                         (long long) (rtt * 1e9), q->level, q->object,
                         q->code, q->visited, q->nslots);
  for (uint32_t i = 0; i < q->nslots && n < cap; i++)
    n += (size_t) snprintf (buf + n, cap - n, " %d:%lld:%lld:%lld:%d:%d:%u",
                            s[i].object, (long long) s[i].sum,
                            (long long) (s[i].n ? s[i].min : 0),
                            (long long) (s[i].n ? s[i].max : 0),
                            s[i].min_obj, s[i].max_obj, s[i].n);
  if (n < cap)
    {
      buf[n++] = '\n';
      live_put (buf, n);
    }
  free (buf);
}

/* A command from the window; unknown or malformed lines are ignored. */
static void
live_command (const char *line)
{
  int level, object;
  unsigned code;
  double hz;
  char extra;
  if (sscanf (line, "want %d %d %u %c", &level, &object, &code, &extra) == 3
      && level >= MPE_MON_LEVEL_THREAD && level <= MPE_MON_LEVEL_CHANNEL
      && object >= -1)
    {
      mpe_mon_want_t w = { level == MPE_MON_LEVEL_CHANNEL
                           ? MPE_MON_RES_CHANNEL : MPE_MON_RES_PROCESS,
                           level, object, code };
      if (level == MPE_MON_LEVEL_CHANNEL && object < 0)
        return;
      mpe__mon_want (&w, 0);
    }
  else if (sscanf (line, "hz %lf %c", &hz, &extra) == 1 && hz > 0
           && hz <= 10000)
    mpe__mon_want (NULL, hz);
  else if (!strcmp (line, "ready"))
    L.ready = 1;
}

/* Announces the metric definitions (the wrappers' and the program's,
 * which may come after the start) whenever their number changed. */
static void
announce_metrics (void)
{
  size_t n = mpe__metric_ndefs ();
  if (n == L.metrics_sent)
    return;
  logfmt_metric_def_t *d;
  n = mpe__metric_defs (&d);
  for (size_t i = 0; d && i < n; i++)
    {
      char line[400], name[200];
      /* Names are words on the wire. */
      snprintf (name, sizeof name, "%s", d[i].name ? d[i].name : "?");
      for (char *p = name; *p; p++)
        if (*p <= ' ' || *p == 127)
          *p = '_';
      int k = snprintf (line, sizeof line, "metric %u %s %s\n", d[i].id,
                        name, d[i].unit && *d[i].unit ? d[i].unit : "1");
      if (k > 0 && (size_t) k < sizeof line)
        live_put (line, (size_t) k);
    }
  free (d);
  L.metrics_sent = n;
}

void
mpe__mon_live_poll (void)
{
  if (L.fd < 0)
    return;
  live_flush_rest ();
  if (L.fd < 0)
    return;
  announce_metrics ();
  for (;;)
    {
      ssize_t r = recv (L.fd, L.in + L.nin, sizeof L.in - 1 - L.nin,
                        MSG_DONTWAIT);
      if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK
                     && errno != EINTR))
        {
          live_drop_conn ();
          return;
        }
      if (r < 0)
        return;
      L.nin += (size_t) r;
      L.in[L.nin] = '\0';
      char *nl;
      while ((nl = memchr (L.in, '\n', L.nin)))
        {
          *nl = '\0';
          live_command (L.in);
          L.nin -= (size_t) (nl + 1 - L.in);
          memmove (L.in, nl + 1, L.nin);
        }
      if (L.nin == sizeof L.in - 1)
        L.nin = 0;     /* an endless line: drop it */
    }
}

int
mpe__mon_live_ready (uint64_t now)
{
  if (L.fd < 0 || L.ready)
    return 1;
  /* The wait counts from the manager's first chance to sample, not
     from the hello: on a loaded node the ranks can take longer than
     the wait itself between the hello and their first tick. */
  if (!L.ready_by)
    L.ready_by = now + LIVE_READY_WAIT_NS;
  if (now >= L.ready_by)
    L.ready = 1;
  return L.ready;
}

int
mpe__mon_live_wanted (void)
{
  const char *addr = getenv ("MPE_MONITOR_ADDR");
  return addr && *addr;
}

void
mpe__mon_live_open (int size, int nnodes, const int *node_of,
                    const char *hosts, size_t host_len, double hz)
{
  L.ready = 0;
  L.ready_by = 0;     /* set at the first tick (mpe__mon_live_ready) */
  const char *addr = getenv ("MPE_MONITOR_ADDR");
  if (!addr || !*addr)
    return;
  L.fd = live_connect (addr);
  if (L.fd < 0)
    {
      fprintf (stderr, "MPE: cannot reach the monitor window at %s "
               "(MPE_MONITOR_ADDR); sampling goes on without it\n", addr);
      return;
    }
  char line[128];
  int n = snprintf (line, sizeof line, "hello 1 %s %d %d %g\n", L.token,
                    size, nnodes, hz);
  live_put (line, (size_t) n);
  n = snprintf (line, sizeof line, "metric %u events records\n",
                MPE_MON_CODE_EVENTS);
  live_put (line, (size_t) n);
  for (int r = 0; r < size; r++)
    {
      char host[64] = "?";
      if (hosts)
        for (size_t i = 0; i + 1 < sizeof host && i < host_len; i++)
          {
            char c = hosts[(size_t) r * host_len + i];
            host[i] = c > ' ' && c < 127 ? c : '\0';
            host[i + 1] = '\0';
            if (!c)
              break;
          }
      char hl[sizeof host + 64];
      n = snprintf (hl, sizeof hl, "node %d %d %s\n", r, node_of[r],
                    host[0] ? host : "?");
      live_put (hl, (size_t) n);
    }
}

void
mpe__mon_live_close (const mpe_mon_stats_t *st)
{
  if (L.fd < 0)
    return;
  char line[160];
  int n = snprintf (line, sizeof line, "stats %llu %llu %llu %llu\nbye\n",
                    (unsigned long long) st->sent,
                    (unsigned long long) st->returned,
                    (unsigned long long) st->late,
                    (unsigned long long) st->skipped);
  /* A window that reads slowly still gets the accounting; one that
     stopped reading costs at most LIVE_CLOSE_WAIT_MS in all. */
  struct pollfd p = { L.fd, POLLOUT, 0 };
  int sent = 0;
  for (int waited = 0; L.fd >= 0; waited += 50)
    {
      if (live_flush_rest () && L.fd >= 0 && !sent)
        {
          unsigned long before = L.dropped;
          live_put (line, (size_t) n);
          sent = L.dropped == before;
          L.dropped = before;
        }
      if (L.fd < 0 || (sent && L.nrest == 0) || waited >= LIVE_CLOSE_WAIT_MS)
        break;
      poll (&p, 1, 50);
    }
  if (!sent)
    L.dropped++;
  if (L.nrest)
    L.dropped++;               /* a line cut short: the window sees EOF */
  if (L.dropped)
    fprintf (stderr, "MPE monitor: the window (MPE_MONITOR_ADDR) read too "
             "slowly: %lu lines were not sent to it (the log has every "
             "sample)\n", L.dropped);
  if (L.fd >= 0)
    live_drop_conn ();
  L.dropped = 0;
}

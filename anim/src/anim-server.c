/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib-unix.h>

#include "anim/client/anim-proto.h"
#include "anim-listen.h"
#include "anim-server.h"
#include "anim-wire.h"

#define CONN_BUF      65536

typedef struct Conn Conn;

/* The server reads on a thread of its own, at the process's ordinary
 * priority: the window's drawing thread may run as a background task
 * (anim-window.c), and the ranks' records must not wait for it. */
struct AnimServer
{
  AnimLive *live;
  AnimListen l;
  GList    *conns;
  GQueue    pending;               /* Conn * before HELLO, oldest first */
  guint     nauth;                 /* open connections past HELLO */
  guint     evicted;               /* waiting ones pushed out */
  guint     nopen, nhello;         /* atomic: the window reads them */
  GMainContext *ctx;
  GThread  *thread;
  gint      quit;                  /* atomic */
};

struct Conn
{
  AnimServer *srv;
  int      fd;
  GSource *src, *timer;
  AnimWire wire;           /* the protocol state (anim-wire.c) */
  gboolean too_many;       /* a HELLO past ANIM_MAX_CLIENTS ranks */
  guint8   buf[CONN_BUF];
  size_t   len;
};

static void
conn_close (Conn *c)
{
  AnimServer *srv = c->srv;
  anim_source_drop (&c->src);
  anim_source_drop (&c->timer);
  close (c->fd);
  if (c->wire.hello)
    srv->nauth--;
  else
    g_queue_remove (&srv->pending, c);
  srv->conns = g_list_remove (srv->conns, c);
  g_atomic_int_dec_and_test (&srv->nopen);
  g_free (c);
}

static void
conn_reject (Conn *c, const char *why)
{
  g_message ("mpeanim: closing connection%s: %s",
             c->wire.hello ? "" : " (before HELLO)", why);
  anim_live_lock (c->srv->live);
  anim_live_rejected (c->srv->live);
  anim_live_unlock (c->srv->live);
  conn_close (c);
}

/* The wire parser's records go to the live model. */
static void
on_hello (void *user, int rank, int size)
{
  Conn *c = user;
  g_queue_remove (&c->srv->pending, c);
  c->srv->nauth++;
  anim_source_drop (&c->timer);
  if (c->srv->nauth > ANIM_MAX_CLIENTS)
    {
      c->too_many = TRUE;      /* closed once the parser returns */
      return;
    }
  if (g_atomic_int_add (&c->srv->nhello, 1) == 0)
    g_printerr ("mpeanim: a job of %d processes is connecting\n", size);
  anim_live_hello (c->srv->live, rank, size);
}

static void
on_state_def (void *user, int32_t start, int32_t end, const char *name,
              const char *color)
{
  Conn *c = user;
  if (c->too_many)
    return;
  anim_live_state_def (c->srv->live, start, end, name, color);
}

static void
on_event (void *user, int rank, uint64_t t, int thread, int32_t id)
{
  Conn *c = user;
  if (c->too_many)
    return;
  anim_live_event (c->srv->live, rank, t, thread, id);
}

static void
on_msg (void *user, int rank, int is_send, uint64_t t, int thread,
        int32_t partner, int32_t tag, uint64_t bytes)
{
  Conn *c = user;
  if (c->too_many)
    return;
  anim_live_msg (c->srv->live, rank, is_send, t, thread, partner, tag, bytes);
}

static void
on_drops (void *user, int rank, uint64_t total)
{
  Conn *c = user;
  if (c->too_many)
    return;
  anim_live_drops (c->srv->live, rank, total);
}

static void
on_end (void *user, int rank, uint64_t sent, uint64_t dropped,
        uint64_t received)
{
  Conn *c = user;
  if (c->too_many)
    return;
  anim_live_end (c->srv->live, rank, sent, dropped, received);
}

static const AnimWireSink live_sink = {
  on_hello, on_state_def, on_event, on_msg, on_drops, on_end
};

static gboolean
conn_readable (gint fd, GIOCondition cond, gpointer data)
{
  Conn *c = data;
  /* Read what fits; a full buffer always holds whole frames to consume,
   * since frames are at most ANIM_FRAME_MAX bytes. */
  gboolean eof = anim_conn_fill (fd, c->buf, &c->len, CONN_BUF);
  const char *err;
  anim_live_lock (c->srv->live);
  size_t off = anim_wire_feed (&c->wire, c->buf, c->len, &err);
  anim_live_unlock (c->srv->live);
  if (c->too_many)
    err = "too many ranks connected (" G_STRINGIFY (ANIM_MAX_CLIENTS) ")";
  if (err)
    {
      conn_reject (c, err);
      return G_SOURCE_REMOVE;
    }
  memmove (c->buf, c->buf + off, c->len - off);
  c->len -= off;
  if (eof || (cond & (G_IO_HUP | G_IO_ERR) && !(cond & G_IO_IN)))
    {
      if (!c->wire.hello && !c->wire.ended)
        {
          anim_live_lock (c->srv->live);
          anim_live_rejected (c->srv->live);
          anim_live_unlock (c->srv->live);
        }
      conn_close (c);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
conn_hello_timeout (gpointer data)
{
  Conn *c = data;
  conn_reject (c, "no HELLO within " G_STRINGIFY (ANIM_HELLO_TIMEOUT)
               " seconds");
  return G_SOURCE_REMOVE;
}

/* Makes room for one more connection waiting for its HELLO: the oldest
 * waiting one goes.  FALSE when none waits. */
static gboolean
drop_oldest_pending (AnimServer *srv, const char *why)
{
  Conn *old = g_queue_peek_head (&srv->pending);
  if (!old)
    return FALSE;
  /* One line per hundred: a flood would fill the terminal. */
  if (srv->evicted++ % 100 == 0)
    g_message ("mpeanim: closing connection (before HELLO): %s (%u so "
               "far)", why, srv->evicted);
  anim_live_lock (srv->live);
  anim_live_rejected (srv->live);
  anim_live_unlock (srv->live);
  conn_close (old);
  return TRUE;
}

static gboolean
accept_cb (gint lfd, GIOCondition cond, gpointer data)
{
  AnimServer *srv = data;
  (void) cond;
  /* A few at a time, then back to the loop: connections accepted
   * earlier get their HELLO read before a burst of newer ones could push
   * them out (the listener stays readable, so this runs again). */
  for (int batch = 0; batch < ANIM_MAX_PENDING / 4; batch++)
    {
      int fd = accept4 (lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0)
        {
          if (errno == EINTR || errno == ECONNABORTED)
            continue;
          if ((errno == EMFILE || errno == ENFILE)
              && drop_oldest_pending (srv, "out of descriptors, made room"))
            continue;
          break;
        }
      /* Ranks past HELLO are capped when they say it (on_hello's
       * caller); waiting connections have their own cap. */
      if (g_queue_get_length (&srv->pending) >= ANIM_MAX_PENDING)
        drop_oldest_pending (srv, "too many connections without HELLO, "
                             "the oldest goes");
      Conn *c = g_new0 (Conn, 1);
      c->srv = srv;
      c->fd = fd;
      anim_wire_init (&c->wire, &live_sink, c, srv->l.token,
                      ANIM_MAX_PROCS);
      c->src = g_unix_fd_source_new (fd, G_IO_IN | G_IO_HUP | G_IO_ERR);
      g_source_set_callback (c->src, G_SOURCE_FUNC (conn_readable), c, NULL);
      g_source_attach (c->src, srv->ctx);
      c->timer = g_timeout_source_new_seconds (ANIM_HELLO_TIMEOUT);
      g_source_set_callback (c->timer, conn_hello_timeout, c, NULL);
      g_source_attach (c->timer, srv->ctx);
      srv->conns = g_list_prepend (srv->conns, c);
      g_queue_push_tail (&srv->pending, c);
      g_atomic_int_inc (&srv->nopen);
      /* A rank sends its HELLO right after connecting: read it now, before
       * more connections of a flood push this one out. */
      conn_readable (fd, G_IO_IN, c);
    }
  return G_SOURCE_CONTINUE;
}

static gpointer
reader_main (gpointer data)
{
  AnimServer *srv = data;
  g_main_context_push_thread_default (srv->ctx);
  while (!g_atomic_int_get (&srv->quit))
    g_main_context_iteration (srv->ctx, TRUE);
  g_main_context_pop_thread_default (srv->ctx);
  return NULL;
}

AnimServer *
anim_server_new (AnimLive *live, const char *listen_spec, GError **error)
{
  AnimServer *srv = g_new0 (AnimServer, 1);
  srv->live = live;
  if (!anim_listen_open (&srv->l, "mpeanim", listen_spec, error))
    {
      g_free (srv);
      return NULL;
    }
  srv->ctx = g_main_context_new ();
  anim_listen_watch (&srv->l, srv->ctx, accept_cb, srv);
  srv->thread = g_thread_new ("mpeanim-reader", reader_main, srv);
  return srv;
}

void
anim_server_free (AnimServer *srv)
{
  if (!srv)
    return;
  if (srv->thread)
    {
      g_atomic_int_set (&srv->quit, 1);
      g_main_context_wakeup (srv->ctx);
      g_thread_join (srv->thread);
    }
  while (srv->conns)
    conn_close (srv->conns->data);
  anim_listen_close (&srv->l);
  if (srv->ctx)
    g_main_context_unref (srv->ctx);
  g_free (srv);
}

const char *
anim_server_address (const AnimServer *srv)
{
  return srv->l.address;
}

guint
anim_server_n_open (AnimServer *srv)
{
  return (guint) g_atomic_int_get (&srv->nopen);
}

guint
anim_server_n_hello (AnimServer *srv)
{
  return (guint) g_atomic_int_get (&srv->nhello);
}

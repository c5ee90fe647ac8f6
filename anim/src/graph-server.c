/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <glib-unix.h>

#include "anim/client/graph-proto.h"
#include "anim-listen.h"
#include "graph-server.h"

#define CONN_BUF      (2 * 65536)   /* holds any frame whole */

typedef struct Conn Conn;

typedef struct
{
  int button, x, y;
} press_t;

struct GraphServer
{
  AnimListen       l;
  GraphCanvas     *canvas;
  GraphServerHooks hooks;
  void            *user;
  GList           *conns;
  GQueue           pending;         /* Conn * before HELLO, oldest first */
  guint            evicted;         /* waiting ones pushed out */
  int              cap_dirfd;       /* captures go beneath it only */
  char            *cap_dir;         /* its canonical path */
  guint            nopen, nlive, nhello;
  gboolean         headless;
  press_t          presses[GRAPH_PRESS_QUEUE];
  int              npresses;
  GQueue           mouse_waiters;   /* Conn *, blocked in Get_mouse_press */
  GQueue           drag_waiters;    /* Conn *, the head's drag is active */
  gboolean         drag_started;
  int              drag_px, drag_py, drag_cx, drag_cy;
};

struct Conn
{
  GraphServer *srv;
  int          fd;
  guint        src, timer;
  gboolean     hello;
  int          rank;
  GraphGC      gc;
  char        *cap_base;            /* relative to the capture directory */
  gboolean     cap_refused;         /* the rank's path was outside it */
  int          cap_freq;
  unsigned     cap_updates, cap_written;
  int          drag_button, drag_visual;
  double       drag_ratio;
  guint8       buf[CONN_BUF];
  size_t       len;
};

/* ------------------------------------------------------------------ */
/* Replies                                                             */
/* ------------------------------------------------------------------ */

static void
send_reply (Conn *c, guint8 type, int n, const int *v)
{
  guint8 f[ANIM_FRAME_HDR + 4 * 8];
  size_t len = ANIM_FRAME_HDR + 4 * (size_t) n;
  anim_put_hdr (f, (uint16_t) len, type);
  for (int i = 0; i < n; i++)
    anim_put32 (f + 4 + 4 * i, (uint32_t) v[i]);
  /* The rank waits for this answer, so its socket buffer is empty: a
   * short write means the rank is gone (its reads will fail too). */
  ssize_t w;
  do
    w = send (c->fd, f, len, MSG_NOSIGNAL | MSG_DONTWAIT);
  while (w < 0 && errno == EINTR);
}

static void
reply_press (Conn *c, int status, const press_t *p)
{
  int v[5] = { status, p != NULL, p ? p->x : 0, p ? p->y : 0,
               p ? p->button : 0 };
  send_reply (c, GRAPH_F_PRESS, 5, v);
}

static void
reply_drag (Conn *c, int status, int x1, int y1, int x2, int y2)
{
  int v[5] = { status, x1, y1, x2, y2 };
  send_reply (c, GRAPH_F_DRAGGED, 5, v);
}

/* ------------------------------------------------------------------ */
/* Mouse                                                               */
/* ------------------------------------------------------------------ */

void
graph_drag_region (int visual, double ratio, int px, int py, int rx, int ry,
                   int *x1, int *y1, int *x2, int *y2)
{
  int left = MIN (px, rx), top = MIN (py, ry);
  int w = ABS (rx - px), h = ABS (ry - py), side = MAX (w, h);
  double dist = sqrt ((double) w * w + (double) h * h);
  switch (visual)
    {
    case GRAPH_DRAG_LINE:
      *x1 = px, *y1 = py, *x2 = rx, *y2 = ry;
      return;
    case GRAPH_DRAG_FIXRATIO:
      if (w * ratio > h)
        h = (int) (w * ratio);
      else
        w = (int) (h / ratio);
      left = px > rx ? px - w : px;
      top = py > ry ? py - h : py;
      break;
    case GRAPH_DRAG_SQUARE:
    case GRAPH_DRAG_CIRCLE_BBOX:
      w = h = side;
      left = px > rx ? px - side : px;
      top = py > ry ? py - side : py;
      break;
    case GRAPH_DRAG_CIRCLE_RADIUS:
      left = px - (int) dist;
      top = py - (int) dist;
      w = h = (int) (2 * dist);
      break;
    case GRAPH_DRAG_CIRCLE_DIAMETER:
      left = (px + rx) / 2 - (int) (dist / 2);
      top = (py + ry) / 2 - (int) (dist / 2);
      w = h = (int) dist;
      break;
    default:                      /* NONE, RECT, OVAL_BBOX */
      break;
    }
  *x1 = left, *y1 = top, *x2 = left + w, *y2 = top + h;
}

static Conn *
active_drag (const GraphServer *srv)
{
  return g_queue_peek_head ((GQueue *) &srv->drag_waiters);
}

gboolean
graph_server_drag_band (const GraphServer *srv, int *visual, int *x1,
                        int *y1, int *x2, int *y2)
{
  Conn *c = active_drag (srv);
  if (!c || !srv->drag_started)
    return FALSE;
  *visual = c->drag_visual;
  graph_drag_region (c->drag_visual, c->drag_ratio, srv->drag_px,
                     srv->drag_py, srv->drag_cx, srv->drag_cy, x1, y1, x2,
                     y2);
  return TRUE;
}

static void
redraw (GraphServer *srv)
{
  if (srv->hooks.redraw)
    srv->hooks.redraw (srv->user);
}

void
graph_server_press (GraphServer *srv, int button, int x, int y)
{
  Conn *d = active_drag (srv);
  if (d)
    {
      if (!srv->drag_started && button == d->drag_button)
        {
          srv->drag_started = TRUE;
          srv->drag_px = srv->drag_cx = x;
          srv->drag_py = srv->drag_cy = y;
          redraw (srv);
        }
      return;               /* presses during a drag belong to it */
    }
  press_t p = { button, x, y };
  Conn *w = g_queue_pop_head (&srv->mouse_waiters);
  if (w)
    {
      reply_press (w, GRAPH_OK, &p);
      return;
    }
  if (srv->npresses == GRAPH_PRESS_QUEUE)
    {
      memmove (srv->presses, srv->presses + 1,
               sizeof srv->presses[0] * (GRAPH_PRESS_QUEUE - 1));
      srv->npresses--;
    }
  srv->presses[srv->npresses++] = p;
}

void
graph_server_motion (GraphServer *srv, int x, int y)
{
  if (active_drag (srv) && srv->drag_started)
    {
      srv->drag_cx = x;
      srv->drag_cy = y;
      redraw (srv);
    }
}

void
graph_server_release (GraphServer *srv, int button, int x, int y)
{
  Conn *d = active_drag (srv);
  if (!d || !srv->drag_started || button != d->drag_button)
    return;
  int x1, y1, x2, y2;
  graph_drag_region (d->drag_visual, d->drag_ratio, srv->drag_px,
                     srv->drag_py, x, y, &x1, &y1, &x2, &y2);
  g_queue_pop_head (&srv->drag_waiters);
  srv->drag_started = FALSE;
  reply_drag (d, GRAPH_OK, x1, y1, x2, y2);
  redraw (srv);
}

static void
answer_nowindow (GraphServer *srv)
{
  Conn *c;
  while ((c = g_queue_pop_head (&srv->mouse_waiters)))
    reply_press (c, GRAPH_ERR_NOWINDOW, NULL);
  while ((c = g_queue_pop_head (&srv->drag_waiters)))
    reply_drag (c, GRAPH_ERR_NOWINDOW, 0, 0, 0, 0);
  srv->drag_started = FALSE;
  srv->npresses = 0;
}

void
graph_server_set_headless (GraphServer *srv, gboolean headless)
{
  srv->headless = headless;
  if (headless)
    answer_nowindow (srv);
}

/* MPEGRAPH_TRACE=1: say when a rank starts waiting (tests inject input
 * only then, instead of guessing how long the request takes). */
static void
trace (const Conn *c, const char *what)
{
  static int on = -1;
  if (on < 0)
    on = g_strcmp0 (g_getenv ("MPEGRAPH_TRACE"), "1") == 0;
  if (on)
    g_printerr ("mpegraph: rank %d waits for %s\n", c->rank, what);
}

static void
want_mouse (Conn *c, int wait)
{
  GraphServer *srv = c->srv;
  if (srv->headless)
    {
      reply_press (c, GRAPH_ERR_NOWINDOW, NULL);
      return;
    }
  if (srv->npresses)
    {
      press_t p = srv->presses[0];
      memmove (srv->presses, srv->presses + 1,
               sizeof p * (size_t) (--srv->npresses));
      reply_press (c, GRAPH_OK, &p);
    }
  else if (wait)
    {
      g_queue_push_tail (&srv->mouse_waiters, c);
      trace (c, "a mouse press");
    }
  else
    reply_press (c, GRAPH_OK, NULL);
}

/* ------------------------------------------------------------------ */
/* Frames                                                              */
/* ------------------------------------------------------------------ */

static int
i32 (const guint8 *p, int k)
{
  return (int32_t) anim_get32 (p + ANIM_FRAME_HDR + 4 * k);
}

/* Opens rel (relative, without "..") for writing beneath dirfd: no
 * symbolic link on the way may lead out of it, and the file itself is
 * not a link. */
static int
open_beneath (int dirfd, const char *rel)
{
  int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW;
#ifdef SYS_openat2
  struct open_how how = { .flags = (uint64_t) flags, .mode = 0644,
                          .resolve = RESOLVE_BENEATH
                                     | RESOLVE_NO_MAGICLINKS };
  int fd = (int) syscall (SYS_openat2, dirfd, rel, &how, sizeof how);
  if (fd >= 0 || errno != ENOSYS)
    return fd;
#endif
  /* A kernel without openat2: every directory on the way opened without
   * following a link. */
  g_auto (GStrv) parts = g_strsplit (rel, "/", -1);
  int d = dup (dirfd), n = (int) g_strv_length (parts);
  for (int i = 0; d >= 0 && i < n - 1; i++)
    {
      if (!*parts[i] || strcmp (parts[i], ".") == 0)
        continue;
      int nd = openat (d, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW
                       | O_CLOEXEC);
      close (d);
      d = nd;
    }
  if (d < 0)
    return -1;
  int f = openat (d, parts[n - 1], flags, 0644);
  int e = errno;
  close (d);
  errno = e;
  return f;
}

/* The rank's capture base (made absolute on the rank) as a path relative
 * to the capture directory, or NULL when it lies outside: another
 * directory, or a ".." anywhere. */
/* path relative to dir when it lies beneath it ("" for dir itself),
 * else NULL. */
static const char *
beneath (const char *dir, const char *path)
{
  size_t dl = strcmp (dir, "/") == 0 ? 0 : strlen (dir);
  if (strncmp (path, dir, dl) != 0 || (path[dl] != '/' && path[dl]))
    return NULL;
  path += dl;
  while (*path == '/')
    path++;
  return path;
}

/* The rank's capture base (made absolute on the rank) as a path relative
 * to the capture directory, or NULL when it lies outside: another
 * directory, or a ".." anywhere.  An absolute path is also compared
 * through its directory's real path (the rank may name the directory
 * through a link to it). */
static char *
capture_rel (const GraphServer *srv, const char *path)
{
  char *rel = NULL;
  if (path[0] != '/')
    rel = g_strdup (path);
  else if (beneath (srv->cap_dir, path))
    rel = g_strdup (beneath (srv->cap_dir, path));
  else
    {
      g_autofree char *d = g_path_get_dirname (path);
      g_autofree char *base = g_path_get_basename (path);
      char *real = realpath (d, NULL);
      const char *r = real ? beneath (srv->cap_dir, real) : NULL;
      if (r)
        rel = *r ? g_strconcat (r, "/", base, NULL) : g_strdup (base);
      free (real);
    }
  if (!rel || !*rel || rel[strlen (rel) - 1] == '/')
    {
      g_free (rel);
      return NULL;
    }
  g_auto (GStrv) parts = g_strsplit (rel, "/", -1);
  for (int i = 0; parts[i]; i++)
    if (strcmp (parts[i], "..") == 0)
      {
        g_free (rel);
        return NULL;
      }
  return rel;
}

static const char *
do_update (Conn *c, uint32_t seq)
{
  int status = GRAPH_OK;
  if ((c->cap_base || c->cap_refused)
      && c->cap_updates++ % (unsigned) c->cap_freq == 0)
    {
      if (c->cap_refused)
        status = GRAPH_ERR_ARGS;
      else
        {
          char *path = g_strdup_printf ("%s%03u.png", c->cap_base,
                                        c->cap_written++);
          int fd = open_beneath (c->srv->cap_dirfd, path);
          if (fd < 0 || graph_canvas_write_png (c->srv->canvas, fd) < 0)
            {
              /* openat2 says EXDEV for a link leading out, O_NOFOLLOW
               * ELOOP for a link as the file. */
              int e = errno;
              g_printerr ("mpegraph: rank %d: cannot write %s in %s%s%s\n",
                          c->rank, path, c->srv->cap_dir,
                          fd < 0 ? ": " : "",
                          fd < 0 ? (e == EXDEV ? "a symbolic link leads out "
                                    "of the directory"
                                    : e == ELOOP ? "it is a symbolic link"
                                    : g_strerror (e)) : "");
              status = GRAPH_ERR_ARGS;
            }
          if (fd >= 0)
            close (fd);
          g_free (path);
        }
    }
  redraw (c->srv);
  int v[2] = { (int) seq, status };
  send_reply (c, GRAPH_F_UPDATED, 2, v);
  return NULL;
}

static const char *
do_hello (Conn *c, const guint8 *p, size_t n)
{
  GraphServer *srv = c->srv;
  if (p[2] != GRAPH_F_HELLO || n != GRAPH_HELLO_LEN)
    return "the first frame is not a HELLO";
  if (memcmp (p + 4, GRAPH_PROTO_MAGIC, 8) != 0)
    return "bad magic";
  unsigned diff = 0;
  for (int i = 0; i < ANIM_TOKEN_LEN; i++)
    diff |= (unsigned) (p[12 + i] ^ (guint8) srv->l.token[i]);
  if (diff)
    return "wrong token";
  int rank = i32 (p, 10), size = i32 (p, 11), w = i32 (p, 12),
      h = i32 (p, 13);
  if (size < 1 || size > (1 << 20) || rank < 0 || rank >= size || w < 1
      || h < 1 || w > GRAPH_MAX_SIZE || h > GRAPH_MAX_SIZE)
    return "bad HELLO values";
  if (srv->nlive >= GRAPH_MAX_CLIENTS)
    return "too many ranks connected";
  g_queue_remove (&srv->pending, c);
  c->hello = TRUE;
  c->rank = rank;
  if (c->timer)
    {
      g_source_remove (c->timer);
      c->timer = 0;
    }
  srv->nhello++;
  /* A window started by hand takes the size of the first job's window. */
  if (srv->nlive++ == 0
      && (w != graph_canvas_width (srv->canvas)
          || h != graph_canvas_height (srv->canvas)))
    {
      GraphCanvas *nc = graph_canvas_new (w, h);
      if (nc)
        {
          graph_canvas_free (srv->canvas);
          srv->canvas = nc;
          redraw (srv);
        }
    }
  return NULL;
}

/* One whole frame of n bytes; NULL, or why the connection is closed. */
static const char *
do_frame (Conn *c, const guint8 *p, size_t n)
{
  GraphCanvas *cv = c->srv->canvas;
  if (!c->hello)
    return do_hello (c, p, n);
  switch (p[2])
    {
    case GRAPH_F_GC:
      if (n != GRAPH_GC_LEN || i32 (p, 0) < 0 || i32 (p, 0) > 15
          || i32 (p, 1) < 0 || i32 (p, 1) > 1000 || i32 (p, 2) < 0
          || i32 (p, 2) > 1000 || i32 (p, 3) < 0)
        return "bad GC frame";
      c->gc = (GraphGC) { i32 (p, 0), i32 (p, 1), i32 (p, 2), i32 (p, 3) };
      return NULL;
    case GRAPH_F_POINTS:
      if ((n - ANIM_FRAME_HDR) % GRAPH_POINT_SIZE)
        return "bad POINTS frame";
      graph_canvas_points (cv, &c->gc, p + ANIM_FRAME_HDR,
                           (n - ANIM_FRAME_HDR) / GRAPH_POINT_SIZE);
      return NULL;
    case GRAPH_F_LINE:
      if (n != GRAPH_LINE_LEN)
        return "bad LINE frame";
      graph_canvas_line (cv, &c->gc, i32 (p, 0), i32 (p, 1), i32 (p, 2),
                         i32 (p, 3), (uint32_t) i32 (p, 4) & 0xffffffu);
      return NULL;
    case GRAPH_F_CIRCLE:
      if (n != GRAPH_CIRCLE_LEN || i32 (p, 2) < 0
          || (uint32_t) i32 (p, 4) > 1)
        return "bad CIRCLE frame";
      graph_canvas_circle (cv, &c->gc, i32 (p, 0), i32 (p, 1), i32 (p, 2),
                           (uint32_t) i32 (p, 3) & 0xffffffu, i32 (p, 4));
      return NULL;
    case GRAPH_F_RECT:
      if (n != GRAPH_RECT_LEN || i32 (p, 2) < 0 || i32 (p, 3) < 0)
        return "bad RECT frame";
      graph_canvas_rect (cv, &c->gc, i32 (p, 0), i32 (p, 1), i32 (p, 2),
                         i32 (p, 3), (uint32_t) i32 (p, 4) & 0xffffffu);
      return NULL;
    case GRAPH_F_STRING:
      if (n < GRAPH_STRING_MIN || n - GRAPH_STRING_MIN > GRAPH_TEXT_MAX)
        return "bad STRING frame";
      graph_canvas_string (cv, &c->gc, i32 (p, 0), i32 (p, 1),
                           (uint32_t) i32 (p, 2) & 0xffffffu,
                           (const char *) p + GRAPH_STRING_MIN,
                           n - GRAPH_STRING_MIN);
      return NULL;
    case GRAPH_F_UPDATE:
      if (n != GRAPH_UPDATE_LEN)
        return "bad UPDATE frame";
      return do_update (c, anim_get32 (p + 4));
    case GRAPH_F_CAPTURE:
      {
        size_t pl = n - GRAPH_CAPTURE_MIN;
        if (n < GRAPH_CAPTURE_MIN || pl > GRAPH_PATH_MAX || i32 (p, 0) < 1
            || memchr (p + GRAPH_CAPTURE_MIN, '\0', pl))
          return "bad CAPTURE frame";
        g_free (c->cap_base);
        c->cap_base = NULL;
        c->cap_refused = FALSE;
        if (pl)
          {
            g_autofree char *want = g_strndup ((const char *) p
                                               + GRAPH_CAPTURE_MIN, pl);
            c->cap_base = capture_rel (c->srv, want);
            c->cap_refused = !c->cap_base;
            if (c->cap_refused)
              g_printerr ("mpegraph: rank %d: capture %s refused: frames "
                          "are written in %s only (--capture-dir)\n",
                          c->rank, want, c->srv->cap_dir);
          }
        c->cap_freq = i32 (p, 0);
        c->cap_updates = c->cap_written = 0;
        return NULL;
      }
    case GRAPH_F_MOUSE:
      if (n != GRAPH_MOUSE_LEN || (uint32_t) i32 (p, 0) > 1)
        return "bad MOUSE frame";
      want_mouse (c, i32 (p, 0));
      return NULL;
    case GRAPH_F_DRAG:
      if (n != GRAPH_DRAG_LEN || i32 (p, 0) < 1 || i32 (p, 0) > 5
          || i32 (p, 1) < 0 || i32 (p, 1) > GRAPH_DRAG_FIXRATIO
          || i32 (p, 2) < 1)
        return "bad DRAG frame";
      if (c->srv->headless)
        {
          reply_drag (c, GRAPH_ERR_NOWINDOW, 0, 0, 0, 0);
          return NULL;
        }
      c->drag_button = i32 (p, 0);
      c->drag_visual = i32 (p, 1);
      c->drag_ratio = i32 (p, 2) / 1e6;
      g_queue_push_tail (&c->srv->drag_waiters, c);
      trace (c, "a drag");
      return NULL;
    default:
      return "unknown frame type";
    }
}

/* Consumes the whole frames at the start of buf; returns the bytes
 * used, and *err when the connection must be closed. */
static size_t
feed (Conn *c, const guint8 *buf, size_t len, const char **err)
{
  size_t off = 0;
  *err = NULL;
  while (len - off >= ANIM_FRAME_HDR)
    {
      const guint8 *p = buf + off;
      size_t n = anim_get16 (p);
      if (n < ANIM_FRAME_HDR || p[3] != 0)
        {
          *err = "bad frame header";
          return off;
        }
      if (len - off < n)
        break;
      if ((*err = do_frame (c, p, n)))
        return off;
      off += n;
    }
  return off;
}

/* ------------------------------------------------------------------ */
/* Connections                                                         */
/* ------------------------------------------------------------------ */

static void
conn_close (Conn *c)
{
  GraphServer *srv = c->srv;
  if (active_drag (srv) == c)
    {
      srv->drag_started = FALSE;
      redraw (srv);
    }
  g_queue_remove (&srv->mouse_waiters, c);
  g_queue_remove (&srv->drag_waiters, c);
  if (!c->hello)
    g_queue_remove (&srv->pending, c);
  if (c->src)
    g_source_remove (c->src);
  if (c->timer)
    g_source_remove (c->timer);
  close (c->fd);
  srv->conns = g_list_remove (srv->conns, c);
  srv->nopen--;
  gboolean was_live = c->hello;
  g_free (c->cap_base);
  g_free (c);
  if (was_live && --srv->nlive == 0 && srv->hooks.job_done)
    srv->hooks.job_done (srv->user);
}

static gboolean
conn_readable (gint fd, GIOCondition cond, gpointer data)
{
  Conn *c = data;
  gboolean eof = anim_conn_fill (fd, c->buf, &c->len, CONN_BUF);
  const char *err;
  size_t off = feed (c, c->buf, c->len, &err);
  if (err)
    {
      g_printerr ("mpegraph: closing connection%s: %s\n",
                  c->hello ? "" : " (before HELLO)", err);
      conn_close (c);   /* removes c->src: allowed from its own callback */
      return G_SOURCE_REMOVE;
    }
  memmove (c->buf, c->buf + off, c->len - off);
  c->len -= off;
  if (eof || (cond & (G_IO_HUP | G_IO_ERR) && !(cond & G_IO_IN)))
    {
      conn_close (c);   /* removes c->src: allowed from its own callback */
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
conn_hello_timeout (gpointer data)
{
  Conn *c = data;
  c->timer = 0;
  g_printerr ("mpegraph: closing connection (before HELLO): no HELLO "
              "within %d seconds\n", GRAPH_HELLO_TIMEOUT);
  conn_close (c);
  return G_SOURCE_REMOVE;
}

/* Makes room for one more connection waiting for its HELLO: the oldest
 * waiting one goes.  FALSE when none waits. */
static gboolean
drop_oldest_pending (GraphServer *srv, const char *why)
{
  Conn *old = g_queue_peek_head (&srv->pending);
  if (!old)
    return FALSE;
  /* One line per hundred: a flood would fill the terminal. */
  if (srv->evicted++ % 100 == 0)
    g_printerr ("mpegraph: closing connection (before HELLO): %s (%u so "
                "far)\n", why, srv->evicted);
  conn_close (old);
  return TRUE;
}

static gboolean
accept_cb (gint lfd, GIOCondition cond, gpointer data)
{
  (void) cond;
  GraphServer *srv = data;
  /* A few at a time, then back to the loop: connections accepted
   * earlier get their HELLO read before a burst of newer ones could push
   * them out (the listener stays readable, so this runs again). */
  for (int batch = 0; batch < GRAPH_MAX_PENDING / 4; batch++)
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
      /* Ranks past HELLO are capped in do_hello; waiting connections
       * have their own cap. */
      if (g_queue_get_length (&srv->pending) >= GRAPH_MAX_PENDING)
        drop_oldest_pending (srv, "too many connections without HELLO, "
                             "the oldest goes");
      Conn *c = g_new0 (Conn, 1);
      c->srv = srv;
      c->fd = fd;
      c->gc = (GraphGC) GRAPH_GC_DEFAULT;
      c->src = g_unix_fd_add (fd, G_IO_IN | G_IO_HUP | G_IO_ERR,
                              conn_readable, c);
      c->timer = g_timeout_add_seconds (GRAPH_HELLO_TIMEOUT,
                                        conn_hello_timeout, c);
      srv->conns = g_list_prepend (srv->conns, c);
      g_queue_push_tail (&srv->pending, c);
      srv->nopen++;
      /* A rank sends its HELLO right after connecting: read it now, before
       * more connections of a flood push this one out. */
      conn_readable (fd, G_IO_IN, c);
    }
  return G_SOURCE_CONTINUE;
}

GraphServer *
graph_server_new (const char *listen, int w, int h,
                  const GraphServerHooks *hooks, void *user, GError **error)
{
  GraphServer *srv = g_new0 (GraphServer, 1);
  srv->hooks = *hooks;
  srv->user = user;
  g_queue_init (&srv->mouse_waiters);
  g_queue_init (&srv->drag_waiters);
  srv->canvas = graph_canvas_new (w, h);
  if (!srv->canvas)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
                   "no memory for a %dx%d picture", w, h);
      g_free (srv);
      return NULL;
    }
  if (!anim_listen_open (&srv->l, "mpegraph", listen, error))
    {
      graph_canvas_free (srv->canvas);
      g_free (srv);
      return NULL;
    }
  srv->cap_dirfd = -1;
  if (!graph_server_capture_dir (srv, ".", error))
    {
      graph_server_free (srv);
      return NULL;
    }
  anim_listen_watch (&srv->l, NULL, accept_cb, srv);
  return srv;
}

gboolean
graph_server_capture_dir (GraphServer *srv, const char *dir, GError **error)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  char *real = fd >= 0 ? realpath (dir, NULL) : NULL;
  if (!real)
    {
      int e = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
                   "capture directory %s: %s", dir, g_strerror (e));
      if (fd >= 0)
        close (fd);
      return FALSE;
    }
  if (srv->cap_dirfd >= 0)
    close (srv->cap_dirfd);
  free (srv->cap_dir);
  srv->cap_dirfd = fd;
  srv->cap_dir = real;
  return TRUE;
}

void
graph_server_free (GraphServer *srv)
{
  if (!srv)
    return;
  srv->hooks.job_done = NULL;
  srv->hooks.redraw = NULL;
  while (srv->conns)
    conn_close (srv->conns->data);
  anim_listen_close (&srv->l);
  graph_canvas_free (srv->canvas);
  if (srv->cap_dirfd >= 0)
    close (srv->cap_dirfd);
  free (srv->cap_dir);
  g_free (srv);
}

const char *
graph_server_address (const GraphServer *srv)
{
  return srv->l.address;
}

GraphCanvas *
graph_server_canvas (GraphServer *srv)
{
  return srv->canvas;
}

guint
graph_server_n_hello (const GraphServer *srv)
{
  return srv->nhello;
}

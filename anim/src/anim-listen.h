/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The listening side of a window's address (docs/ANIM-PROTOCOL.md): a
 * random token, a TCP socket (loopback unless told otherwise) and a UNIX
 * socket in a private directory.  Shared by mpeanim (anim-server.c) and
 * the graphics window mpegraph (graph-server.c).
 */
#ifndef ANIM_LISTEN_H
#define ANIM_LISTEN_H

#include <glib.h>
#include <glib-unix.h>

#include "anim/client/anim-proto.h"

typedef struct
{
  int   tcp_fd, unix_fd;         /* -1 when absent; non-blocking */
  char *dir, *sock_path;
  char  token[ANIM_TOKEN_LEN + 1];
  char *address;                 /* "unix:/path#TOKEN,tcp://HOST:PORT/TOKEN" */
  GSource *tcp_src, *unix_src;   /* accept watches, NULL when none */
} AnimListen;

/* listen: NULL for 127.0.0.1 on a free port, else "HOST", "HOST:PORT" or
 * "[V6]:PORT" (port 0 = any).  The UNIX socket goes to a new directory
 * named after `name` in the temporary directory. */
gboolean anim_listen_open (AnimListen *l, const char *name,
                           const char *listen, GError **error);
/* Calls accept_cb (listening fd, condition, data) from ctx's loop (NULL:
 * the default one) whenever either socket has connections waiting. */
void     anim_listen_watch (AnimListen *l, GMainContext *ctx,
                            GUnixFDSourceFunc accept_cb, gpointer data);
/* Stops the watches, closes the sockets and removes the UNIX socket and
 * its directory. */
void     anim_listen_close (AnimListen *l);
/* Destroys and releases *src, if any, and clears it. */
void     anim_source_drop (GSource **src);

/* Reads what the non-blocking fd has into buf[*len .. cap), at most 16
 * reads so one busy client cannot hold the main loop; TRUE at the end of
 * the stream or on a hard error. */
gboolean anim_conn_fill (int fd, guint8 *buf, size_t *len, size_t cap);

#endif

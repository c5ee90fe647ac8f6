/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Listening sockets of the window: TCP (loopback unless told otherwise)
 * and a UNIX socket in a private directory, a random token, and one GLib
 * fd source per connection that validates frames (docs/ANIM-PROTOCOL.md)
 * and feeds the live model.
 */
#ifndef ANIM_SERVER_H
#define ANIM_SERVER_H

#include <glib.h>

#include "anim-live.h"

/* Ranks that said HELLO, at most; and connections waiting for their
 * HELLO (ANIM_HELLO_TIMEOUT seconds each), at most: a new one pushes the
 * oldest waiting one out, so silent peers never keep ranks out. */
#define ANIM_MAX_CLIENTS    1024
#define ANIM_MAX_PENDING    64
#define ANIM_HELLO_TIMEOUT  5

typedef struct AnimServer AnimServer;

/* listen: NULL for 127.0.0.1 on a free port, else "HOST", "HOST:PORT" or
 * "[V6]:PORT" (port 0 = any).  The UNIX socket is always added. */
AnimServer *anim_server_new (AnimLive *live, const char *listen,
                             GError **error);
void        anim_server_free (AnimServer *srv);
/* "unix:/path#TOKEN,tcp://HOST:PORT/TOKEN": the value for MPEANIM_ADDR. */
const char *anim_server_address (const AnimServer *srv);
/* Connections currently open (with or without HELLO). */
guint       anim_server_n_open (AnimServer *srv);
/* Connections that said HELLO so far (including closed ones). */
guint       anim_server_n_hello (AnimServer *srv);

#endif

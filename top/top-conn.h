/* SPDX-License-Identifier: BSD-3-Clause */
/* mpetop's connection to the job's manager rank: listen, accept, read
 * lines into the model, send the user's choices. */
#ifndef TOP_CONN_H
#define TOP_CONN_H

#include <stddef.h>
#include <stdio.h>

#include "top-model.h"

typedef struct
{
  int    lfd, fd;
  char   token[TOP_TOKEN_LEN + 1];
  char   in[1 << 16];
  size_t nin;
  FILE  *record;       /* every line received, or NULL */
} top_conn_t;

/* Listens on HOST:PORT (NULL: 127.0.0.1, any port) with a fresh token;
 * addr gets "tcp://HOST:PORT/TOKEN".  0 or -1 (message printed). */
int  top_conn_listen (top_conn_t *c, const char *spec, char *addr,
                      size_t cap);
/* Accepts a waiting job.  0 or -1. */
int  top_conn_accept (top_conn_t *c);
/* Reads what arrived into m.  0; -1 when the connection is gone (the job
 * ended, or was refused: wrong token, a line that never ends). */
int  top_conn_read (top_conn_t *c, top_model_t *m);
void top_conn_send (top_conn_t *c, const char *line);
void top_conn_close (top_conn_t *c);

#endif

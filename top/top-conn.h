/* SPDX-License-Identifier: BSD-3-Clause */
/* mpetop's connection to the job's manager rank: listen, accept, read
 * lines into the model, send the user's choices. */
#ifndef TOP_CONN_H
#define TOP_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <poll.h>

#include "top-model.h"

/* Connections that have not said hello yet: at most TOP_PENDING_MAX (a
 * new one pushes the oldest out), each closed after TOP_HELLO_TIMEOUT_S
 * without a hello, so idle peers never keep a job out. */
#define TOP_PENDING_MAX     16
#define TOP_HELLO_TIMEOUT_S 5

typedef struct
{
  int     fd;
  size_t  nin;
  int64_t since_ms;            /* CLOCK_MONOTONIC */
  char    in[256];             /* the hello line only */
} top_pending_t;

typedef struct
{
  int    lfd, fd;              /* listening socket; the job's (or -1) */
  top_pending_t pending[TOP_PENDING_MAX];
  int    npending;
  char   token[TOP_TOKEN_LEN + 1];
  char   in[1 << 16];
  size_t nin;
  FILE  *record;       /* every line received, or NULL */
} top_conn_t;

/* Listens on HOST:PORT (NULL: 127.0.0.1, any port) with a fresh token;
 * addr gets "tcp://HOST:PORT/TOKEN".  0 or -1 (message printed). */
int  top_conn_listen (top_conn_t *c, const char *spec, char *addr,
                      size_t cap);
/* What top_conn_serve saw (bits). */
enum
{
  TOP_EV_HELLO = 1,   /* a job introduced itself: m was reset and holds it */
  TOP_EV_GONE = 2     /* the job's connection closed (ended or refused) */
};
/* Never blocks: accepts waiting peers, reads the pending ones, drops
 * those past their hello time, takes the first with the right hello as
 * the job when none is watched, and reads the job's lines into m. */
int  top_conn_serve (top_conn_t *c, top_model_t *m);
/* The descriptors to wait on before the next top_conn_serve: fills up
 * to cap entries of p (POLLIN); returns how many. */
int  top_conn_pollfds (const top_conn_t *c, struct pollfd *p, int cap);
void top_conn_send (top_conn_t *c, const char *line);
void top_conn_close (top_conn_t *c);

#endif

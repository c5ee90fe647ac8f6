/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Window addresses with their token ("unix:/PATH#TOKEN",
 * "tcp://HOST:PORT/TOKEN", "tcp://[V6]:PORT/TOKEN", comma-separated;
 * docs/ANIM-PROTOCOL.md) and the connection to the first one that
 * answers.  Shared by the animation client (anim-client.c) and the
 * graphics client in libmpe (mpe/src/mpe-graphics.c).  libc only.
 */
#ifndef ANIM_ADDR_H
#define ANIM_ADDR_H

#include "anim/client/anim-proto.h"

#define ANIM_ADDR_MAX 4

typedef struct
{
  int  kind;                     /* 1 tcp, 2 unix */
  char host[256];
  char port[16];
  char path[108];
} anim_addr_t;

typedef struct
{
  anim_addr_t addrs[ANIM_ADDR_MAX];
  int         naddrs;
  char        token[ANIM_TOKEN_LEN + 1];   /* one token for all of them */
} anim_addr_list_t;

/* 0 if `list` is a valid address list, -1 otherwise. */
int anim_addr_parse (const char *list, anim_addr_list_t *out);

/* Connects to the first address that accepts within timeout_ms each;
 * returns a non-blocking, close-on-exec socket, or -1. */
int anim_addr_connect (const anim_addr_list_t *l, int timeout_ms);

#endif

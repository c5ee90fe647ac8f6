/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The window's side of the wire protocol (docs/ANIM-PROTOCOL.md): turns
 * the bytes a client sent into validated records for a sink.  No GLib,
 * no sockets, so the fuzz target (tests/anim/fuzz-wire.c) runs exactly
 * the code that reads from the network.
 */
#ifndef ANIM_WIRE_H
#define ANIM_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* What a connection's frames say, one call per record. */
typedef struct
{
  void (*hello) (void *user, int rank, int size);
  void (*state_def) (void *user, int32_t start, int32_t end,
                     const char *name, const char *color);
  void (*event) (void *user, int rank, uint64_t t, int thread, int32_t id);
  void (*msg) (void *user, int rank, int is_send, uint64_t t, int thread,
               int32_t partner, int32_t tag, uint64_t bytes);
  void (*drops) (void *user, int rank, uint64_t total);
  void (*end) (void *user, int rank, uint64_t sent, uint64_t dropped,
               uint64_t received);
} AnimWireSink;

/* The state of one connection. */
typedef struct
{
  const AnimWireSink *sink;
  void       *user;
  const char *token;      /* ANIM_TOKEN_LEN characters expected in HELLO */
  int         max_procs;  /* largest job size accepted */
  int         hello, ended;
  int         rank;       /* -1 before HELLO */
  uint64_t    received;   /* EVENT, SEND and RECV records so far */
} AnimWire;

void   anim_wire_init (AnimWire *w, const AnimWireSink *sink, void *user,
                       const char *token, int max_procs);
/* Consumes the whole frames at the start of buf[0, len) and returns the
 * bytes used (a partial frame is left for the next call).  On a protocol
 * violation *error says why and the connection must be closed. */
size_t anim_wire_feed (AnimWire *w, const uint8_t *buf, size_t len,
                       const char **error);

#endif

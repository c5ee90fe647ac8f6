/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writer-side message matching: sends and receives pair up FIFO per
 * (sender rank, receiver rank, communicator, tag), as MPI's ordering rule
 * guarantees.  Pending ends are bounded; what is left at finish is written
 * as unmatched.
 */
#include "config.h"
#include "logfmt-writer-internal.h"

#include <stdlib.h>

#define QUEUE_CAP_MAX (1u << 16)  /* per key; older ends become unmatched */
/* How far a receive may seem to end before its send began: clocks
 * corrected by the sync agree to well within this (clogtool verify
 * calls a pair further apart wrong). */
#define MATCH_SLACK_NS 1000000u

typedef struct
{
  uint32_t stream;
  bool     is_send;
  uint64_t time, size;
} mend_t;

typedef struct
{
  int32_t  src, dst, tag;
  uint32_t comm;
  bool     used;
  mend_t  *q;            /* ring */
  uint32_t head, len, cap;
} mkey_t;

struct logfmt__matcher
{
  mkey_t  *tab;
  size_t   cap, used;
};

int logfmt__writer_add_message (logfmt_writer_t *w,
                                const logfmt_message_t *m);

static uint64_t
hash4 (int32_t a, int32_t b, int32_t c, uint32_t d)
{
  uint64_t h = (uint64_t) (uint32_t) a * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t) (uint32_t) b * 0xC2B2AE3D27D4EB4Full + (h << 6);
  h ^= (uint64_t) (uint32_t) c * 0x165667B19E3779F9ull + (h >> 3);
  h ^= (uint64_t) d * 0x27D4EB2F165667C5ull;
  return h ^ (h >> 29);
}

static mkey_t *
lookup (struct logfmt__matcher *m, int32_t src, int32_t dst, int32_t tag,
        uint32_t comm)
{
  if ((m->used + 1) * 2 > m->cap)
    {
      size_t nc = m->cap ? m->cap * 2 : 256;
      mkey_t *nt = calloc (nc, sizeof *nt);
      if (!nt)
        return NULL;
      for (size_t i = 0; i < m->cap; i++)
        if (m->tab[i].used)
          {
            mkey_t *k = &m->tab[i];
            size_t j = hash4 (k->src, k->dst, k->tag, k->comm) & (nc - 1);
            while (nt[j].used)
              j = (j + 1) & (nc - 1);
            nt[j] = *k;
          }
      free (m->tab);
      m->tab = nt;
      m->cap = nc;
    }
  size_t j = hash4 (src, dst, tag, comm) & (m->cap - 1);
  while (m->tab[j].used)
    {
      mkey_t *k = &m->tab[j];
      if (k->src == src && k->dst == dst && k->tag == tag && k->comm == comm)
        return k;
      j = (j + 1) & (m->cap - 1);
    }
  mkey_t *k = &m->tab[j];
  memset (k, 0, sizeof *k);
  k->used = true;
  k->src = src;
  k->dst = dst;
  k->tag = tag;
  k->comm = comm;
  m->used++;
  return k;
}

static logfmt_message_t
unmatched (const mkey_t *k, const mend_t *e)
{
  logfmt_message_t msg = {
    .send_stream = e->is_send ? e->stream : LOGFMT_NO_STREAM,
    .recv_stream = e->is_send ? LOGFMT_NO_STREAM : e->stream,
    .send_time = e->is_send ? e->time : 0,
    .recv_time = e->is_send ? 0 : e->time,
    .send_rank = k->src, .recv_rank = k->dst, .tag = k->tag,
    .comm = k->comm, .size = e->size,
  };
  return msg;
}

int
logfmt__match_add (logfmt_writer_t *w, struct logfmt__matcher **mp,
                   uint32_t stream, int32_t rank, const logfmt_event_t *ev)
{
  if (!*mp)
    {
      *mp = calloc (1, sizeof **mp);
      if (!*mp)
        return LOGFMT_ENOMEM;
    }
  struct logfmt__matcher *m = *mp;
  bool is_send = ev->type == LOGFMT_REC_SEND;
  int32_t src = is_send ? rank : ev->partner;
  int32_t dst = is_send ? ev->partner : rank;
  mkey_t *k = lookup (m, src, dst, ev->tag, ev->comm);
  if (!k)
    return LOGFMT_ENOMEM;
  /* Repairing a damaged log: a receive ends after its send began
   * (within the clocks' error), so a waiting end that cannot be this
   * one's partner lost its own in a lost block, and stays unmatched
   * rather than pairing every later message wrongly. */
  while (logfmt__writer_match_by_time (w) && k->len > 0
         && k->q[k->head].is_send != is_send)
    {
      const mend_t *o = &k->q[k->head];
      uint64_t st = is_send ? ev->time : o->time;
      uint64_t rt = is_send ? o->time : ev->time;
      if (rt + MATCH_SLACK_NS >= st)
        break;
      if (!is_send)
        return logfmt__writer_add_message (w, &(logfmt_message_t) {
          .send_stream = LOGFMT_NO_STREAM, .recv_stream = stream,
          .recv_time = ev->time, .send_rank = src, .recv_rank = dst,
          .tag = ev->tag, .comm = ev->comm, .size = ev->size });
      logfmt_message_t msg = unmatched (k, o);
      k->head = (k->head + 1) % k->cap;
      k->len--;
      int rc = logfmt__writer_add_message (w, &msg);
      if (rc)
        return rc;
    }
  if (k->len > 0 && k->q[k->head].is_send != is_send)
    {
      mend_t *o = &k->q[k->head];
      k->head = (k->head + 1) % k->cap;
      k->len--;
      logfmt_message_t msg = {
        .send_stream = is_send ? stream : o->stream,
        .recv_stream = is_send ? o->stream : stream,
        .send_time = is_send ? ev->time : o->time,
        .recv_time = is_send ? o->time : ev->time,
        .send_rank = src, .recv_rank = dst, .tag = ev->tag,
        .comm = ev->comm, .size = is_send ? ev->size : o->size,
      };
      return logfmt__writer_add_message (w, &msg);
    }
  if (k->len == QUEUE_CAP_MAX)
    {
      /* Bounded memory: the oldest waiting end gives up. */
      logfmt_message_t msg = unmatched (k, &k->q[k->head]);
      k->head = (k->head + 1) % k->cap;
      k->len--;
      int rc = logfmt__writer_add_message (w, &msg);
      if (rc)
        return rc;
    }
  if (k->len == k->cap)
    {
      uint32_t nc = k->cap ? k->cap * 2 : 4;
      mend_t *nq = malloc (nc * sizeof *nq);
      if (!nq)
        return LOGFMT_ENOMEM;
      for (uint32_t i = 0; i < k->len; i++)
        nq[i] = k->q[(k->head + i) % k->cap];
      free (k->q);
      k->q = nq;
      k->cap = nc;
      k->head = 0;
    }
  k->q[(k->head + k->len) % k->cap] = (mend_t) {
    .stream = stream, .is_send = is_send, .time = ev->time, .size = ev->size,
  };
  k->len++;
  return 0;
}

int
logfmt__match_finish (logfmt_writer_t *w, struct logfmt__matcher *m)
{
  if (!m)
    return 0;
  for (size_t i = 0; i < m->cap; i++)
    {
      mkey_t *k = &m->tab[i];
      if (!k->used)
        continue;
      while (k->len > 0)
        {
          logfmt_message_t msg = unmatched (k, &k->q[k->head]);
          k->head = (k->head + 1) % k->cap;
          k->len--;
          int rc = logfmt__writer_add_message (w, &msg);
          if (rc)
            return rc;
        }
    }
  return 0;
}

void
logfmt__match_free (struct logfmt__matcher *m)
{
  if (!m)
    return;
  for (size_t i = 0; i < m->cap; i++)
    free (m->tab[i].q);
  free (m->tab);
  free (m);
}

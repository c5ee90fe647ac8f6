/* SPDX-License-Identifier: BSD-3-Clause */
/* Synthetic timeline generator; see logfmt-synth.h. */
#include "config.h"
#include "logfmt-synth.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 4
#define PENDING_CAP 1024

typedef struct
{
  uint64_t arrive;
  int32_t  src;     /* sender's world rank */
  int32_t  tag;
  uint64_t size;
} pending_t;

typedef struct
{
  uint64_t rng;
  uint64_t now;
  uint64_t left;            /* records still to emit */
  int32_t  rank;
  int      depth;
  int32_t  stack[MAX_DEPTH];
  pending_t pend[PENDING_CAP];  /* ring of messages on their way in */
  unsigned phead, plen;
} sstream_t;

struct logfmt_synth
{
  logfmt_synth_opts_t o;
  uint32_t nstreams;
  sstream_t *st;
  uint64_t *dur;            /* typical duration per state */
};

static const char *const names[] = {
  "Compute", "Update_halo", "Pack", "Unpack", "Solve", "IO_write",
  "Reduce_local", "Sort", "Stencil", "FFT", "Interpolate", "Checkpoint",
};
static const char *const colors[] = {
  "SeaGreen", "orange", "DarkOrchid", "gold", "SteelBlue", "firebrick",
  "khaki", "turquoise", "salmon", "OliveDrab", "plum", "peru",
};

static inline uint64_t
rnd (uint64_t *s)
{
  /* splitmix64: tiny and deterministic everywhere. */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double
rnd01 (uint64_t *s)
{
  return (double) (rnd (s) >> 11) * (1.0 / 9007199254740992.0);
}

void
logfmt_synth_opts_init (logfmt_synth_opts_t *o)
{
  memset (o, 0, sizeof *o);
  o->size = sizeof *o;
  o->nprocs = 2;
  o->threads_per_proc = 1;
  o->events_per_stream = 100000;
  o->seed = 1;
  o->nstates = 8;
  o->msg_fraction = 0.02;
}

int
logfmt_synth_new (const logfmt_synth_opts_t *opts, logfmt_synth_t **out)
{
  *out = NULL;
  logfmt_synth_t *s = calloc (1, sizeof *s);
  if (!s)
    return LOGFMT_ENOMEM;
  logfmt_synth_opts_init (&s->o);
  if (opts)
    memcpy (&s->o, opts, opts->size && opts->size < sizeof s->o
                           ? opts->size : sizeof s->o);
  if (s->o.nprocs == 0 || s->o.threads_per_proc == 0 || s->o.nstates == 0
      || s->o.msg_fraction < 0 || s->o.msg_fraction > 0.5
      || (uint64_t) s->o.nprocs * s->o.threads_per_proc > (1u << 20))
    {
      free (s);
      return LOGFMT_EINVAL;
    }
  s->nstreams = s->o.nprocs * s->o.threads_per_proc;
  s->st = calloc (s->nstreams, sizeof *s->st);
  s->dur = calloc (s->o.nstates + 2, sizeof *s->dur);
  if (!s->st || !s->dur)
    {
      logfmt_synth_free (s);
      return LOGFMT_ENOMEM;
    }
  uint64_t g = s->o.seed ^ 0x5EEDull;
  for (uint32_t i = 0; i < s->o.nstates + 2; i++)
    s->dur[i] = 80 + rnd (&g) % 3000;
  for (uint32_t i = 0; i < s->nstreams; i++)
    {
      sstream_t *t = &s->st[i];
      t->rng = s->o.seed * 0x100000001B3ull + i * 0x9E3779B97F4A7C15ull + 1;
      t->now = 1000 + rnd (&t->rng) % 500;
      t->left = s->o.events_per_stream;
      t->rank = (int32_t) (i / s->o.threads_per_proc);
    }
  *out = s;
  return 0;
}

void
logfmt_synth_free (logfmt_synth_t *s)
{
  if (!s)
    return;
  free (s->st);
  free (s->dur);
  free (s);
}

uint32_t
logfmt_synth_nstreams (const logfmt_synth_t *s)
{
  return s->nstreams;
}

/* MPE-style ids: state k has start 2k+1 and end 2k+2; the last two states
 * are MPI_Send and MPI_Recv; solo event id 900. */
int
logfmt_synth_define (logfmt_synth_t *s, logfmt_writer_t *w)
{
  int rc = 0;
  char buf[64];
  for (uint32_t k = 0; k < s->o.nstates + 2 && !rc; k++)
    {
      const char *name = buf;
      if (k == s->o.nstates)
        name = "MPI_Send";
      else if (k == s->o.nstates + 1)
        name = "MPI_Recv";
      else if (k < sizeof names / sizeof names[0])
        name = names[k];
      else
        snprintf (buf, sizeof buf, "State_%u", k);
      logfmt_state_def_t d = {
        .start_id = (int32_t) (2 * k + 1), .end_id = (int32_t) (2 * k + 2),
        .name = name,
        .color = k >= s->o.nstates ? (k == s->o.nstates ? "red" : "blue")
                 : colors[k % (sizeof colors / sizeof colors[0])],
        .format = k == 0 ? "iteration=%d" : NULL,
      };
      rc = logfmt_writer_add_state (w, &d);
    }
  logfmt_event_def_t ev = { 900, "Marker", "white", "value=%d", 0 };
  if (!rc)
    rc = logfmt_writer_add_event_def (w, &ev);
  for (uint32_t i = 0; i < s->nstreams && !rc; i++)
    {
      snprintf (buf, sizeof buf, "node%u", (unsigned) (i / s->o.threads_per_proc / 4));
      logfmt_stream_def_t d = {
        .rank = s->st[i].rank,
        .thread = (int32_t) (i % s->o.threads_per_proc), .host = buf,
      };
      rc = logfmt_writer_add_stream (w, &d, NULL);
    }
  logfmt_comm_def_t cw = { 0, 1, "MPI_COMM_WORLD", s->o.nprocs, NULL };
  if (!rc)
    rc = logfmt_writer_add_comm (w, &cw);
  return rc;
}

/* Gap before the next record: mostly short, sometimes a few us. */
static uint64_t
gap (sstream_t *t)
{
  uint64_t r = rnd (&t->rng);
  if ((r & 7) < 6)
    return 50 + (r >> 8) % 150;
  return 200 + (r >> 8) % 4000;
}

/* Produces stream i's next record. */
static void
step (logfmt_synth_t *s, uint32_t i, logfmt_event_t *ev)
{
  sstream_t *t = &s->st[i];
  memset (ev, 0, offsetof (logfmt_event_t, cargo));
  ev->type = LOGFMT_REC_EVENT;
  ev->state = -1;
  uint32_t nst = s->o.nstates;
  /* Records needed to close what is open must stay available. */
  bool must_close = t->left <= (uint64_t) t->depth;
  double u = rnd01 (&t->rng);
  t->now += gap (t);
  /* A message that has arrived is received first (threads share the
   * process's rank; thread 0 does the MPI). */
  if (!must_close && t->plen > 0 && t->pend[t->phead].arrive <= t->now
      && t->left > (uint64_t) t->depth + 1)
    {
      pending_t *p = &t->pend[t->phead];
      t->phead = (t->phead + 1) % PENDING_CAP;
      t->plen--;
      ev->type = LOGFMT_REC_RECV;
      ev->partner = p->src;
      ev->tag = p->tag;
      ev->size = p->size;
      ev->comm = 0;
      t->left--;
      return;
    }
  double pmsg = s->o.msg_fraction / 2;
  if (!must_close && s->o.nprocs > 1 && i % s->o.threads_per_proc == 0
      && u < pmsg && t->left > (uint64_t) t->depth + 1)
    {
      /* Send to a neighbour; it arrives after a latency plus bandwidth
       * term. */
      int32_t dst = (int32_t) ((t->rank + 1 + (rnd (&t->rng) & 1)
                                   * (s->o.nprocs > 2 ? s->o.nprocs - 2 : 0))
                               % s->o.nprocs);
      uint64_t size = 8ull << (rnd (&t->rng) % 14);
      ev->type = LOGFMT_REC_SEND;
      ev->partner = dst;
      ev->tag = (int32_t) (rnd (&t->rng) % 4);
      ev->size = size;
      sstream_t *d = &s->st[(uint32_t) dst * s->o.threads_per_proc];
      if (d->plen < PENDING_CAP)
        {
          pending_t *p = &d->pend[(d->phead + d->plen) % PENDING_CAP];
          p->arrive = t->now + 800 + size / 4;
          p->src = t->rank;
          p->tag = ev->tag;
          p->size = size;
          d->plen++;
        }
      else
        {
          /* The receiver is far behind: keep the send unmatched. */
          ev->tag = -1;
        }
      t->left--;
      return;
    }
  if (t->depth > 0 && (must_close || u < 0.45 || t->depth == MAX_DEPTH))
    {
      int32_t k = t->stack[--t->depth];
      ev->id = 2 * k + 2;
      t->now += s->dur[k] / 4;
    }
  else if (u > 0.97 || t->left < (uint64_t) t->depth + 2)
    {
      ev->id = 900;
      ev->flags = LOGFMT_EVF_CARGO;
      memset (ev->cargo, 0, LOGFMT_CARGO_SIZE);
      uint32_t v = (uint32_t) (t->now / 1000);
      ev->cargo[0] = (uint8_t) (v >> 24);
      ev->cargo[1] = (uint8_t) (v >> 16);
      ev->cargo[2] = (uint8_t) (v >> 8);
      ev->cargo[3] = (uint8_t) v;
    }
  else
    {
      /* Deeper levels prefer the later (shorter) states. */
      uint32_t k = (uint32_t) (rnd (&t->rng) % nst);
      if (t->depth > 0 && k < (uint32_t) t->stack[t->depth - 1])
        k = (uint32_t) t->stack[t->depth - 1]
            + (k % (nst - (uint32_t) t->stack[t->depth - 1]));
      t->stack[t->depth++] = (int32_t) k;
      ev->id = (int32_t) (2 * k + 1);
    }
  t->left--;
}

size_t
logfmt_synth_next (logfmt_synth_t *s, logfmt_event_t *ev, uint32_t *stream,
                   size_t n)
{
  size_t k = 0;
  while (k < n)
    {
      /* The stream furthest behind moves next: global time order. */
      uint32_t best = UINT32_MAX;
      uint64_t bt = UINT64_MAX;
      for (uint32_t i = 0; i < s->nstreams; i++)
        if (s->st[i].left > 0 && s->st[i].now < bt)
          {
            bt = s->st[i].now;
            best = i;
          }
      if (best == UINT32_MAX)
        break;
      step (s, best, &ev[k]);
      ev[k].time = s->st[best].now;
      stream[k] = best;
      k++;
    }
  return k;
}

int
logfmt_synth_write (const char *path, const logfmt_synth_opts_t *o,
                    logfmt_error_t *err)
{
  logfmt_synth_t *s;
  int rc = logfmt_synth_new (o, &s);
  if (rc)
    {
      if (err)
        {
          err->code = rc;
          err->offset = UINT64_MAX;
          snprintf (err->message, sizeof err->message,
                    "%s: invalid synthetic-log options", path);
        }
      return rc;
    }
  logfmt_writer_opts_t wo = {
    .size = sizeof wo, .match_messages = 1, .block_events = s->o.block_events,
    .creator = "logfmt synth", .world_size = s->o.nprocs,
    .origin_unix_ns = 1700000000000000000LL,
  };
  logfmt_writer_t *w;
  rc = logfmt_writer_open (path, &wo, &w, err);
  if (rc)
    {
      logfmt_synth_free (s);
      return rc;
    }
  rc = logfmt_synth_define (s, w);
  enum { BATCH = 4096 };
  logfmt_event_t *ev = malloc (BATCH * sizeof *ev);
  uint32_t *sid = malloc (BATCH * sizeof *sid);
  if (!ev || !sid)
    rc = LOGFMT_ENOMEM;
  size_t n;
  while (!rc && (n = logfmt_synth_next (s, ev, sid, BATCH)) > 0)
    {
      /* Hand runs of the same stream to the writer in one call. */
      size_t a = 0;
      while (a < n && !rc)
        {
          size_t b = a + 1;
          while (b < n && sid[b] == sid[a])
            b++;
          rc = logfmt_writer_event (w, sid[a], ev + a, b - a);
          a = b;
        }
    }
  free (ev);
  free (sid);
  logfmt_synth_free (s);
  if (rc)
    {
      logfmt_writer_abort (w);
      if (err)
        {
          err->code = rc;
          err->offset = UINT64_MAX;
          snprintf (err->message, sizeof err->message, "%s: %s", path,
                    logfmt_strerror (rc));
        }
      return rc;
    }
  return logfmt_writer_finish (w, err);
}

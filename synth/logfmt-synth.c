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
#define PENDING_CAP 1024   /* a fuller ring leaves the send unmatched */

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
  pending_t *pend;          /* ring of messages on their way in, grown */
  unsigned phead, plen, pcap;   /* up to PENDING_CAP as they come */
} sstream_t;

/* A message on its way to a stream, as the simulation in global time
 * order produced it: it joins the receiver's ring before the receiver's
 * step number `visible`. */
typedef struct
{
  uint64_t  visible;
  pending_t p;
} inbound_t;

/* What one stream needs from the others to replay its records alone: the
 * messages sent to it, and which of its own sends found the receiver's
 * ring full (step numbers). */
typedef struct
{
  inbound_t *in;
  size_t     nin, cin, ipos;
  uint64_t  *drop;
  size_t     ndrop, cdrop, dpos;
} replay_log_t;

/* A heap entry: the stream's time is kept here too, so sifting reads
 * the heap only (the streams are scattered in memory). */
typedef struct
{
  uint64_t now;
  uint32_t stream;
} hent_t;

struct logfmt_synth
{
  logfmt_synth_opts_t o;
  uint32_t nstreams;
  sstream_t *st;
  uint64_t *dur;            /* typical duration per state */
  /* Streams with records left, a min-heap on (now, index): the one
   * furthest behind moves next, in O(log streams). */
  hent_t  *heap;
  uint32_t nheap;
  /* Replay (logfmt_synth_write): the simulation above records into log;
   * rep holds the replayed streams' own state. */
  replay_log_t *log;
  sstream_t *rep;
  uint64_t target;          /* simulate until every stream did this many */
  uint32_t reached;         /* streams that did */
  bool oom;                 /* the log or a ring could not grow */
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

/* Stream i before its first record. */
static void
stream_start (const logfmt_synth_t *s, sstream_t *t, uint32_t i)
{
  t->rng = s->o.seed * 0x100000001B3ull + i * 0x9E3779B97F4A7C15ull + 1;
  t->now = 1000 + rnd (&t->rng) % 500;
  t->left = s->o.events_per_stream;
  t->rank = (int32_t) (i / s->o.threads_per_proc);
}

/* Heap order: earlier time first, then the lower stream index (the
 * order the former linear scan chose, so the output is unchanged). */
static inline bool
heap_before (hent_t a, hent_t b)
{
  return a.now < b.now || (a.now == b.now && a.stream < b.stream);
}

static void
heap_down (logfmt_synth_t *s, uint32_t i)
{
  hent_t *h = s->heap, x = h[i];
  uint32_t n = s->nheap;
  for (;;)
    {
      uint32_t c = 2 * i + 1;
      if (c >= n)
        break;
      if (c + 1 < n && heap_before (h[c + 1], h[c]))
        c++;
      if (!heap_before (h[c], x))
        break;
      h[i] = h[c];
      i = c;
    }
  h[i] = x;
}

static void
heap_push (logfmt_synth_t *s, uint32_t stream)
{
  hent_t *h = s->heap, x = { s->st[stream].now, stream };
  uint32_t i = s->nheap++;
  while (i > 0 && heap_before (x, h[(i - 1) / 2]))
    {
      h[i] = h[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  h[i] = x;
}

/* The stream at the top made a record: it moves down, or out when it
 * has no more. */
static void
heap_advance (logfmt_synth_t *s)
{
  const sstream_t *t = &s->st[s->heap[0].stream];
  if (t->left == 0)
    s->heap[0] = s->heap[--s->nheap];
  else
    s->heap[0].now = t->now;
  if (s->nheap > 0)
    heap_down (s, 0);
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
  s->heap = calloc (s->nstreams, sizeof *s->heap);
  if (!s->st || !s->dur || !s->heap)
    {
      logfmt_synth_free (s);
      return LOGFMT_ENOMEM;
    }
  uint64_t g = s->o.seed ^ 0x5EEDull;
  for (uint32_t i = 0; i < s->o.nstates + 2; i++)
    s->dur[i] = 80 + rnd (&g) % 3000;
  for (uint32_t i = 0; i < s->nstreams; i++)
    stream_start (s, &s->st[i], i);
  for (uint32_t i = 0; i < s->nstreams && s->o.events_per_stream; i++)
    heap_push (s, i);
  *out = s;
  return 0;
}

void
logfmt_synth_free (logfmt_synth_t *s)
{
  if (!s)
    return;
  for (uint32_t i = 0; s->st && i < s->nstreams; i++)
    free (s->st[i].pend);
  for (uint32_t i = 0; s->rep && i < s->nstreams; i++)
    free (s->rep[i].pend);
  for (uint32_t i = 0; s->log && i < s->nstreams; i++)
    {
      free (s->log[i].in);
      free (s->log[i].drop);
    }
  free (s->st);
  free (s->rep);
  free (s->log);
  free (s->dur);
  free (s->heap);
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

/* Room for one more message on its way to D: the ring grows by doubling
 * (a stream far behind its senders holds many; most hold a few). */
static bool
pending_room (sstream_t *d)
{
  if (d->plen < d->pcap)
    return true;
  unsigned cap = d->pcap ? 2 * d->pcap : 4;
  pending_t *p = malloc (cap * sizeof *p);
  if (!p)
    return false;   /* as if full: the send stays unmatched */
  for (unsigned k = 0; k < d->plen; k++)
    p[k] = d->pend[(d->phead + k) % d->pcap];
  free (d->pend);
  d->pend = p;
  d->phead = 0;
  d->pcap = cap;
  return true;
}

static bool
log_inbound (replay_log_t *l, uint64_t visible, const pending_t *p)
{
  if (l->nin == l->cin)
    {
      size_t c = l->cin ? 2 * l->cin : 16;
      inbound_t *v = realloc (l->in, c * sizeof *v);
      if (!v)
        return false;
      l->in = v;
      l->cin = c;
    }
  l->in[l->nin++] = (inbound_t) { visible, *p };
  return true;
}

static bool
log_drop (replay_log_t *l, uint64_t stepno)
{
  if (l->ndrop == l->cdrop)
    {
      size_t c = l->cdrop ? 2 * l->cdrop : 4;
      uint64_t *v = realloc (l->drop, c * sizeof *v);
      if (!v)
        return false;
      l->drop = v;
      l->cdrop = c;
    }
  l->drop[l->ndrop++] = stepno;
  return true;
}

/* A send of stream i: on the simulation, into the receiver's ring (and
 * the log); on a replay, as the log says.  False: the ring was full,
 * the send stays unmatched. */
static bool
deliver (logfmt_synth_t *s, uint32_t i, bool replay, const pending_t *p,
         uint32_t dst)
{
  sstream_t *t = replay ? &s->rep[i] : &s->st[i];
  uint64_t stepno = s->o.events_per_stream - t->left;
  if (replay)
    {
      replay_log_t *l = &s->log[i];
      if (l->dpos < l->ndrop && l->drop[l->dpos] == stepno)
        {
          l->dpos++;
          return false;
        }
      return true;
    }
  uint32_t di = dst * s->o.threads_per_proc;
  sstream_t *d = &s->st[di];
  bool ok = d->plen < PENDING_CAP && pending_room (d);
  if (ok)
    d->pend[(d->phead + d->plen++) % d->pcap] = *p;
  if (s->log && !(ok ? log_inbound (&s->log[di], s->o.events_per_stream
                                                 - d->left, p)
                     : log_drop (&s->log[i], stepno)))
    s->oom = true;
  return ok;
}

/* Produces stream i's next record: on the simulation in global order, or
 * (replay) on stream i alone, from what the simulation logged. */
static void
step (logfmt_synth_t *s, uint32_t i, logfmt_event_t *ev, bool replay)
{
  sstream_t *t = replay ? &s->rep[i] : &s->st[i];
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
      t->phead = (t->phead + 1) % t->pcap;
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
      pending_t p = { t->now + 800 + size / 4, t->rank, ev->tag, size };
      if (!deliver (s, i, replay, &p, (uint32_t) dst))
        ev->tag = -1;   /* the receiver is far behind: unmatched */
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
  while (k < n && s->nheap > 0)
    {
      /* The stream furthest behind moves next: global time order. */
      uint32_t best = s->heap[0].stream;
      step (s, best, &ev[k], false);
      ev[k].time = s->st[best].now;
      stream[k] = best;
      k++;
      heap_advance (s);
    }
  return k;
}

/* Steps done by a stream, and the most it will do up to the target. */
static uint64_t
steps_done (const logfmt_synth_t *s, const sstream_t *t)
{
  return s->o.events_per_stream - t->left;
}

static uint64_t
steps_goal (const logfmt_synth_t *s)
{
  return s->target < s->o.events_per_stream ? s->target
                                             : s->o.events_per_stream;
}

/* The simulation in global time order, logging, until every stream has
 * done steps_goal () records (the records themselves are dropped: the
 * replay makes them again, stream by stream). */
static void
simulate (logfmt_synth_t *s)
{
  uint64_t goal = steps_goal (s);
  s->reached = 0;
  for (uint32_t i = 0; i < s->nstreams; i++)
    s->reached += steps_done (s, &s->st[i]) >= goal;
  logfmt_event_t ev;
  while (s->reached < s->nstreams && s->nheap > 0 && !s->oom)
    {
      uint32_t best = s->heap[0].stream;
      step (s, best, &ev, false);
      s->reached += steps_done (s, &s->st[best]) == goal;
      heap_advance (s);
    }
}

/* Stream i's records up to steps_goal (), replayed from the log, to w. */
static int
replay (logfmt_synth_t *s, uint32_t i, logfmt_writer_t *w,
        logfmt_event_t *ev, size_t batch)
{
  sstream_t *t = &s->rep[i];
  replay_log_t *l = &s->log[i];
  uint64_t goal = steps_goal (s);
  int rc = 0;
  while (!rc && steps_done (s, t) < goal)
    {
      size_t k = 0;
      for (; k < batch && steps_done (s, t) < goal; k++)
        {
          uint64_t stepno = steps_done (s, t);
          for (; l->ipos < l->nin && l->in[l->ipos].visible <= stepno;
               l->ipos++)
            if (pending_room (t))
              t->pend[(t->phead + t->plen++) % t->pcap] = l->in[l->ipos].p;
            else
              return LOGFMT_ENOMEM;
          step (s, i, &ev[k], true);
          ev[k].time = t->now;
        }
      rc = logfmt_writer_event (w, i, ev, k);
    }
  /* What this part used goes. */
  /* (Empty tables may be NULL: no memmove of nothing from NULL.) */
  if (l->nin > l->ipos)
    memmove (l->in, l->in + l->ipos, (l->nin - l->ipos) * sizeof *l->in);
  l->nin -= l->ipos;
  l->ipos = 0;
  if (l->ndrop > l->dpos)
    memmove (l->drop, l->drop + l->dpos,
             (l->ndrop - l->dpos) * sizeof *l->drop);
  l->ndrop -= l->dpos;
  l->dpos = 0;
  if (!rc && t->left == 0)
    rc = logfmt_writer_end_stream (w, i);
  return rc;
}

/* The records to w in parts of one block per stream: the simulation runs
 * ahead until every stream has a block's worth, then each stream's block
 * is replayed alone, so the writer completes it at once.  The writer then
 * holds no open block, and the log only the messages of one part: memory
 * does not grow with the number of streams times their events, and
 * nothing is O(streams) per record. */
static int
write_by_stream (logfmt_synth_t *s, logfmt_writer_t *w)
{
  s->log = calloc (s->nstreams, sizeof *s->log);
  s->rep = calloc (s->nstreams, sizeof *s->rep);
  enum { BATCH = 4096 };
  logfmt_event_t *ev = malloc (BATCH * sizeof *ev);
  if (!s->log || !s->rep || !ev)
    {
      free (ev);
      return LOGFMT_ENOMEM;
    }
  for (uint32_t i = 0; i < s->nstreams; i++)
    stream_start (s, &s->rep[i], i);
  uint64_t part = s->o.block_events ? s->o.block_events : 65536;
  int rc = 0;
  s->target = 0;
  do
    {
      s->target += part;
      simulate (s);
      if (s->oom)
        rc = LOGFMT_ENOMEM;
      uint64_t done = s->target - part;
      if (done > s->o.events_per_stream)
        done = s->o.events_per_stream;
      uint64_t now = s->target < s->o.events_per_stream
                     ? part : s->o.events_per_stream - done;
      for (uint32_t i = 0; i < s->nstreams && !rc; i++)
        {
          rc = replay (s, i, w, ev, BATCH);
          /* Records written so far: every stream reached `done`, and
           * streams 0..i this part's `now` more. */
          if (!rc && s->o.progress && s->o.events_per_stream
              && s->o.progress (s->o.progress_user,
                                ((double) done * s->nstreams
                                 + (double) now * (i + 1))
                                / ((double) s->o.events_per_stream
                                   * s->nstreams)))
            rc = LOGFMT_ESTATE;   /* cancelled */
        }
    }
  while (!rc && s->target < s->o.events_per_stream);
  free (ev);
  return rc;
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
  if (!rc)
    rc = write_by_stream (s, w);
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

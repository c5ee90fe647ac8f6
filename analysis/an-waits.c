/* SPDX-License-Identifier: BSD-3-Clause */
/* Wait states (late sender, late receiver, waits in collectives) and
 * their direct causes, in one pass over the records of every stream
 * merged in time order.  Definitions: docs/ANALYSIS.md. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "an-internal.h"

static const char *const kind_names[AN_WAIT_NKINDS] = {
  "late sender", "late sender, wrong order", "late receiver", "wait at N x N", "wait at barrier",
  "late broadcast", "early reduce"
};

const char *
an_wait_kind_name (an_wait_kind_t k)
{
  return (unsigned) k < AN_WAIT_NKINDS ? kind_names[k] : "?";
}

/* What a state is to this analysis. */
enum
{
  S_USER = 0,       /* a cause candidate */
  S_INTERNAL,       /* the wrappers' own (MPE_*): never a cause */
  S_MPI,            /* an MPI call: p2p receive/send or other */
  S_COLL            /* a collective with its END cargo */
};

/* Roles of MPI functions. */
#define R_RECV_WAIT  0x01u   /* may wait for a late sender */
#define R_RECV_POST  0x02u   /* posts its receive at its start */
#define R_SEND_BLOCK 0x04u   /* may be held until the receive is posted */
#define R_NXN        0x08u
#define R_BARRIER    0x10u
#define R_ONE2N      0x20u
#define R_N2ONE      0x40u

static const struct
{
  const char *name;
  unsigned roles;
} roles[] = {
  { "MPI_Recv", R_RECV_WAIT | R_RECV_POST },
  { "MPI_Mrecv", R_RECV_WAIT | R_RECV_POST },
  { "MPI_Sendrecv", R_RECV_WAIT | R_RECV_POST },
  { "MPI_Sendrecv_replace", R_RECV_WAIT | R_RECV_POST },
  { "MPI_Wait", R_RECV_WAIT },
  { "MPI_Waitall", R_RECV_WAIT },
  { "MPI_Waitany", R_RECV_WAIT },
  { "MPI_Waitsome", R_RECV_WAIT },
  { "MPI_Send", R_SEND_BLOCK },
  { "MPI_Ssend", R_SEND_BLOCK },
  { "MPI_Allreduce", R_NXN },
  { "MPI_Allgather", R_NXN },
  { "MPI_Allgatherv", R_NXN },
  { "MPI_Alltoall", R_NXN },
  { "MPI_Alltoallv", R_NXN },
  { "MPI_Alltoallw", R_NXN },
  { "MPI_Reduce_scatter", R_NXN },
  { "MPI_Reduce_scatter_block", R_NXN },
  { "MPI_Barrier", R_BARRIER },
  { "MPI_Bcast", R_ONE2N },
  { "MPI_Scatter", R_ONE2N },
  { "MPI_Scatterv", R_ONE2N },
  { "MPI_Reduce", R_N2ONE },
  { "MPI_Gather", R_N2ONE },
  { "MPI_Gatherv", R_N2ONE },
};

/* Time per state between two MPI calls, sparse: (state, ns). */
typedef struct
{
  int32_t *state;
  uint64_t *ns;
  uint32_t n;
} seg_t;

static void
seg_free (seg_t *s)
{
  free (s->state);
  free (s->ns);
  memset (s, 0, sizeof *s);
}

static uint64_t
seg_get (const seg_t *s, int32_t state)
{
  for (uint32_t i = 0; i < s->n; i++)
    if (s->state[i] == state)
      return s->ns[i];
  return 0;
}

static int
seg_copy (seg_t *d, const seg_t *s)
{
  memset (d, 0, sizeof *d);
  if (s->n == 0)
    return 0;
  d->state = malloc (s->n * sizeof *d->state);
  d->ns = malloc (s->n * sizeof *d->ns);
  if (d->state == NULL || d->ns == NULL)
    {
      seg_free (d);
      return LOGFMT_ENOMEM;
    }
  memcpy (d->state, s->state, s->n * sizeof *d->state);
  memcpy (d->ns, s->ns, s->n * sizeof *d->ns);
  d->n = s->n;
  return 0;
}

/* Causes (rank, state, ns) of the waits of one call. */
typedef struct
{
  int32_t rank, state;
  uint64_t ns;
} rc_t;

typedef struct
{
  rc_t *v;
  uint32_t n, cap;
} rcl_t;

static void
rcl_free (rcl_t *l)
{
  free (l->v);
  memset (l, 0, sizeof *l);
}

static int
rcl_add (rcl_t *l, int32_t rank, int32_t state, uint64_t ns)
{
  for (uint32_t i = 0; i < l->n; i++)
    if (l->v[i].rank == rank && l->v[i].state == state)
      {
        l->v[i].ns += ns;
        return 0;
      }
  if (l->n == l->cap)
    {
      uint32_t nc = l->cap ? 2 * l->cap : 4;
      rc_t *nv = realloc (l->v, nc * sizeof *nv);
      if (nv == NULL)
        return LOGFMT_ENOMEM;
      l->v = nv;
      l->cap = nc;
    }
  l->v[l->n++] = (rc_t) { rank, state, ns };
  return 0;
}

static int
rcl_copy (rcl_t *d, const rcl_t *s)
{
  memset (d, 0, sizeof *d);
  for (uint32_t i = 0; i < s->n; i++)
    if (rcl_add (d, s->v[i].rank, s->v[i].state, s->v[i].ns) < 0)
      {
        rcl_free (d);
        return LOGFMT_ENOMEM;
      }
  return 0;
}

/* An MPI call instance: the one open on a stream, or one held. */
typedef struct
{
  int active;
  int32_t state;
  uint64_t start, end, waited_until;
  seg_t seg;          /* this rank's time before it (since its last call) */
  rcl_t prev;         /* the causes of the waits of the rank's previous
                         call, as known when this one began */
  rcl_t why;          /* the causes of this call's waits (on the stream's
                         own call only) */
} call_t;

static void
call_free (call_t *c)
{
  seg_free (&c->seg);
  rcl_free (&c->prev);
  rcl_free (&c->why);
}

#define RING 16
#define BATCH 256

typedef struct
{
  uint32_t idx;
  int32_t rank;
  logfmt_iter_t *it;
  logfmt_state_tracker_t *tr;
  logfmt_event_t *buf;
  long n, pos;
  int done;
  uint64_t last;
  uint64_t *acc;        /* per state + 1 (outside states): ns since the
                           last MPI call */
  int32_t *touched;
  uint32_t ntouched;
  int32_t cur;          /* innermost open user state, nstates: none */
  call_t call;
  uint64_t ring_start[RING], ring_end[RING];  /* recent closed calls */
  unsigned ring_n;
} strm_t;

/* A send waiting for its receive. */
typedef struct send_ent
{
  struct send_ent *next;
  struct send_ent *dprev, *dnext;   /* the receiver's list of sends */
  int32_t src, dst, tag;
  uint32_t comm, stream;
  call_t call;
} send_ent_t;

typedef struct
{
  int used;
  int32_t src, dst, tag;
  uint32_t comm;
  send_ent_t *head, *tail;
} queue_t;

/* A collective instance on one rank. */
typedef struct
{
  int32_t rank;
  uint32_t stream;
  call_t call;
} member_t;

typedef struct group
{
  struct group *next;
  uint32_t label;
  uint64_t seq;
  int32_t np, root, state;
  int32_t n;
  member_t *m;
} group_t;

/* Per rank and communicator label: collectives seen so far. */
typedef struct
{
  uint32_t label;
  uint64_t count;
} seqc_t;

typedef struct
{
  seqc_t *v;
  uint32_t n, cap;
} rankseq_t;

typedef struct
{
  uint64_t t;
  uint32_t i;
} hent_t;

/* Rows and causes, by key; cause_rank -2 marks a row. */
typedef struct
{
  int used;
  an_wait_kind_t kind;
  int32_t state, rank;
  uint32_t comm;
  int32_t cause_rank, cause_state;
  uint64_t calls, ns, max_ns;
} agg_t;

typedef struct
{
  const logfmt_reader_t *r;
  const an_waits_opts_t *o;
  size_t nstates;
  uint8_t *cls;
  unsigned *role;
  strm_t *s;
  uint32_t ns;
  hent_t *heap;           /* streams by the time of their next record */
  uint32_t nheap;
  queue_t *q;             /* open addressing on (src, dst, comm, tag) */
  size_t qcap, qn;
  group_t *groups;
  send_ent_t **to;        /* per receiving rank: its sends in flight */
  rankseq_t *rs;
  int32_t nranks;
  an_comm_map_t *map;
  agg_t *agg;
  size_t acap, an;
  uint64_t pending;
  an_waits_t *w;
} ctx_t;

/* ------------------------------------------------------------------ */
/* Aggregation                                                         */
/* ------------------------------------------------------------------ */

static size_t
agg_hash (const agg_t *k, size_t cap)
{
  uint64_t h = 1469598103934665603ull;
  int64_t f[6] = { k->kind, k->state, k->rank, k->comm, k->cause_rank,
                   k->cause_state };
  for (int i = 0; i < 6; i++)
    h = (h ^ (uint64_t) f[i]) * 1099511628211ull;
  return (size_t) (h ^ (h >> 29)) & (cap - 1);
}

static int
agg_same (const agg_t *a, const agg_t *b)
{
  return a->kind == b->kind && a->state == b->state && a->rank == b->rank
         && a->comm == b->comm && a->cause_rank == b->cause_rank
         && a->cause_state == b->cause_state;
}

static agg_t *
agg_get (ctx_t *c, const agg_t *k)
{
  if ((c->an + 1) * 2 > c->acap)
    {
      size_t nc = c->acap ? 2 * c->acap : 256;
      agg_t *nv = calloc (nc, sizeof *nv);
      if (nv == NULL)
        return NULL;
      for (size_t i = 0; i < c->acap; i++)
        if (c->agg[i].used)
          {
            size_t j = agg_hash (&c->agg[i], nc);
            while (nv[j].used)
              j = (j + 1) & (nc - 1);
            nv[j] = c->agg[i];
          }
      free (c->agg);
      c->agg = nv;
      c->acap = nc;
    }
  size_t j = agg_hash (k, c->acap);
  while (c->agg[j].used && !agg_same (&c->agg[j], k))
    j = (j + 1) & (c->acap - 1);
  if (!c->agg[j].used)
    {
      c->agg[j] = *k;
      c->agg[j].used = 1;
      c->agg[j].calls = c->agg[j].ns = c->agg[j].max_ns = 0;
      c->an++;
    }
  return &c->agg[j];
}

/* A wait of `ns` by call `wc` of rank `wr`, waiting for rank `cr` whose
 * call waited for is `cc`: the row, and the causes, the states in which
 * cr spent more time than wr since each one's previous MPI call, shared
 * in proportion to the excess, at most the wait in all. */
static int
add_wait (ctx_t *c, an_wait_kind_t kind, int32_t wr, uint32_t wstream,
          const call_t *wc, uint32_t comm, uint64_t ns, int32_t cr,
          const call_t *cc)
{
  if (ns == 0)
    return 0;
  agg_t k = { .kind = kind, .state = wc->state, .rank = wr, .comm = comm,
              .cause_rank = -2, .cause_state = -2 };
  agg_t *a = agg_get (c, &k);
  if (a == NULL)
    return LOGFMT_ENOMEM;
  a->calls++;
  a->ns += ns;
  if (ns > a->max_ns)
    a->max_ns = ns;
  /* The waiting rank's own call, while the stream still has it: its
   * causes are passed on to waits that it makes in turn. */
  call_t *live = &c->s[wstream].call;
  int own = live->state == wc->state && live->start == wc->start;
  uint64_t total = 0, given = 0;
  int32_t top_rank = -1, top_state = -2;   /* the largest part */
  uint64_t top_ns = 0;
  for (uint32_t i = 0; i < cc->seg.n; i++)
    {
      uint64_t mine = seg_get (&wc->seg, cc->seg.state[i]);
      if (cc->seg.ns[i] > mine)
        total += cc->seg.ns[i] - mine;
    }
  uint64_t share = total < ns ? total : ns;
  for (uint32_t i = 0; i < cc->seg.n && total; i++)
    {
      uint64_t mine = seg_get (&wc->seg, cc->seg.state[i]);
      if (cc->seg.ns[i] <= mine)
        continue;
      uint64_t ex = cc->seg.ns[i] - mine;
      uint64_t part = (uint64_t) ((long double) ex * share / total + 0.5L);
      k.cause_rank = cr;
      k.cause_state = cc->seg.state[i] == (int32_t) c->nstates
                        ? -1 : cc->seg.state[i];
      a = agg_get (c, &k);
      if (a == NULL || (own && rcl_add (&live->why, k.cause_rank,
                                        k.cause_state, part) < 0))
        return LOGFMT_ENOMEM;
      a->calls++;
      a->ns += part;
      given += part;
      if (part > top_ns)
        top_ns = part, top_rank = k.cause_rank, top_state = k.cause_state;
    }
  /* What the waited-for rank's own time does not explain, its previous
   * call's waits may: pass it on to their causes (a chain of waits). */
  uint64_t rest = ns > given ? ns - given : 0;
  uint64_t ptot = 0;
  for (uint32_t i = 0; i < cc->prev.n; i++)
    ptot += cc->prev.v[i].ns;
  uint64_t pass = rest < ptot ? rest : ptot;
  for (uint32_t i = 0; i < cc->prev.n && pass; i++)
    {
      const rc_t *p = &cc->prev.v[i];
      uint64_t part = (uint64_t) ((long double) p->ns * pass / ptot + 0.5L);
      k.cause_rank = p->rank;
      k.cause_state = p->state;
      a = agg_get (c, &k);
      if (a == NULL
          || (own && rcl_add (&live->why, p->rank, p->state, part) < 0))
        return LOGFMT_ENOMEM;
      a->calls++;
      a->ns += part;
      if (part > top_ns)
        top_ns = part, top_rank = k.cause_rank, top_state = k.cause_state;
    }
  if (c->o && c->o->each)
    {
      /* A receive completing several: after its previous wait. */
      uint64_t from = wc->start;
      if ((kind == AN_WAIT_LATE_SENDER || kind == AN_WAIT_LATE_SENDER_WO)
          && wc->waited_until > from)
        from = wc->waited_until;
      an_wait_inst_t wi = { .kind = kind, .state = wc->state, .rank = wr,
                            .stream = wstream, .comm = comm,
                            .call_start = wc->start, .wait_start = from,
                            .wait_ns = ns, .cause_rank = cr,
                            .top_rank = top_rank, .top_state = top_state,
                            .top_ns = top_ns };
      c->o->each (c->o->arg, &wi);
    }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Point to point                                                      */
/* ------------------------------------------------------------------ */

static size_t
q_hash (int32_t src, int32_t dst, uint32_t comm, int32_t tag, size_t cap)
{
  uint64_t h = ((uint64_t) (uint32_t) src << 32) ^ (uint32_t) dst;
  h = (h * 0x9E3779B97F4A7C15ull) ^ ((uint64_t) comm << 17)
      ^ (uint32_t) tag;
  h *= 0xC2B2AE3D27D4EB4Full;
  return (size_t) (h >> 24) & (cap - 1);
}

static queue_t *
q_get (ctx_t *c, int32_t src, int32_t dst, uint32_t comm, int32_t tag,
       int create)
{
  if (create && (c->qn + 1) * 2 > c->qcap)
    {
      size_t nc = c->qcap ? 2 * c->qcap : 256;
      queue_t *nv = calloc (nc, sizeof *nv);
      if (nv == NULL)
        return NULL;
      for (size_t i = 0; i < c->qcap; i++)
        if (c->q[i].used)
          {
            queue_t *o = &c->q[i];
            size_t j = q_hash (o->src, o->dst, o->comm, o->tag, nc);
            while (nv[j].used)
              j = (j + 1) & (nc - 1);
            nv[j] = *o;
          }
      free (c->q);
      c->q = nv;
      c->qcap = nc;
    }
  if (c->qcap == 0)
    return NULL;
  size_t j = q_hash (src, dst, comm, tag, c->qcap);
  while (c->q[j].used)
    {
      queue_t *e = &c->q[j];
      if (e->src == src && e->dst == dst && e->comm == comm && e->tag == tag)
        return e;
      j = (j + 1) & (c->qcap - 1);
    }
  if (!create)
    return NULL;
  c->q[j] = (queue_t) { .used = 1, .src = src, .dst = dst, .comm = comm,
                        .tag = tag };
  c->qn++;
  return &c->q[j];
}

/* The MPI call a message record is in: the open one, or the one that
 * ended with it (a receive and its call's END share one clock read). */
static const call_t *
call_at (const strm_t *s, uint64_t t)
{
  if (s->call.active || (s->call.state >= 0 && s->call.end == t))
    return &s->call;
  return NULL;
}

static int
on_send (ctx_t *c, strm_t *s, const logfmt_event_t *ev)
{
  if (ev->partner < 0)
    return 0;
  queue_t *q = q_get (c, s->rank, ev->partner, ev->comm, ev->tag, 1);
  send_ent_t *e = calloc (1, sizeof *e);
  if (q == NULL || e == NULL)
    {
      free (e);
      return LOGFMT_ENOMEM;
    }
  e->src = s->rank;
  e->dst = ev->partner;
  e->tag = ev->tag;
  e->comm = ev->comm;
  e->stream = s->idx;
  const call_t *cl = call_at (s, ev->time);
  if (cl)
    {
      e->call = *cl;
      memset (&e->call.why, 0, sizeof e->call.why);
      if (seg_copy (&e->call.seg, &cl->seg) < 0
          || rcl_copy (&e->call.prev, &cl->prev) < 0)
        {
          call_free (&e->call);
          free (e);
          return LOGFMT_ENOMEM;
        }
    }
  else
    {
      e->call.state = -1;
      e->call.start = ev->time;
    }
  if (q->tail)
    q->tail->next = e;
  else
    q->head = e;
  q->tail = e;
  if (e->dst < c->nranks)
    {
      e->dnext = c->to[e->dst];
      if (e->dnext)
        e->dnext->dprev = e;
      c->to[e->dst] = e;
    }
  c->pending++;
  if (c->pending > c->w->peak_pending)
    c->w->peak_pending = c->pending;
  return 0;
}

/* Whether the send call `sc` of stream `ss` was still open at time t. */
static int
open_at (const strm_t *ss, const call_t *sc, uint64_t t)
{
  if (ss->call.active && ss->call.start == sc->start
      && ss->call.state == sc->state)
    return 1;
  unsigned n = ss->ring_n < RING ? ss->ring_n : RING;
  for (unsigned i = 0; i < n; i++)
    {
      unsigned k = (ss->ring_n - 1 - i) % RING;
      if (ss->ring_start[k] == sc->start)
        return ss->ring_end[k] > t;
    }
  return 0;
}

static int
on_recv (ctx_t *c, strm_t *s, const logfmt_event_t *ev)
{
  if (ev->partner < 0)
    return 0;
  queue_t *q = q_get (c, ev->partner, s->rank, ev->comm, ev->tag, 0);
  send_ent_t *e = q ? q->head : NULL;
  if (e == NULL)
    {
      c->w->unmatched++;
      return 0;
    }
  q->head = e->next;
  if (q->head == NULL)
    q->tail = NULL;
  if (e->dst < c->nranks)
    {
      if (e->dprev)
        e->dprev->dnext = e->dnext;
      else
        c->to[e->dst] = e->dnext;
      if (e->dnext)
        e->dnext->dprev = e->dprev;
    }
  c->pending--;
  c->w->messages++;
  int rc = 0;
  call_t *rc_call = (call_t *) call_at (s, ev->time);
  if (rc_call && rc_call->state >= 0 && e->call.state >= 0)
    {
      unsigned rr = c->role[rc_call->state], sr = c->role[e->call.state];
      uint64_t from = rc_call->start > rc_call->waited_until
                        ? rc_call->start : rc_call->waited_until;
      if ((rr & R_RECV_WAIT) && e->call.start > from)
        {
          uint64_t until = e->call.start < ev->time ? e->call.start
                                                    : ev->time;
          if (until > from)
            {
              /* Wrong order: another message to this rank was sent
               * before the receive began and is still not received. */
              an_wait_kind_t k = AN_WAIT_LATE_SENDER;
              for (const send_ent_t *o = s->rank < c->nranks
                                           ? c->to[s->rank] : NULL;
                   o; o = o->dnext)
                if (o->call.start < rc_call->start)
                  {
                    k = AN_WAIT_LATE_SENDER_WO;
                    break;
                  }
              rc = add_wait (c, k, s->rank, s->idx,
                             rc_call, ev->comm, until - from, e->src,
                             &e->call);
              rc_call->waited_until = until;
            }
        }
      if (rc == 0 && (rr & R_RECV_POST) && (sr & R_SEND_BLOCK)
          && rc_call->start > e->call.start
          && open_at (&c->s[e->stream], &e->call, rc_call->start))
        rc = add_wait (c, AN_WAIT_LATE_RECEIVER, e->src, e->stream,
                       &e->call, ev->comm, rc_call->start - e->call.start,
                       s->rank, rc_call);
    }
  call_free (&e->call);
  free (e);
  return rc;
}

/* ------------------------------------------------------------------ */
/* Collectives                                                         */
/* ------------------------------------------------------------------ */

static uint64_t
next_seq (ctx_t *c, int32_t rank, uint32_t label)
{
  if (rank < 0 || rank >= c->nranks)
    return UINT64_MAX;
  rankseq_t *r = &c->rs[rank];
  for (uint32_t i = 0; i < r->n; i++)
    if (r->v[i].label == label)
      return r->v[i].count++;
  if (r->n == r->cap)
    {
      uint32_t nc = r->cap ? 2 * r->cap : 4;
      seqc_t *nv = realloc (r->v, nc * sizeof *nv);
      if (nv == NULL)
        return UINT64_MAX - 1;
      r->v = nv;
      r->cap = nc;
    }
  r->v[r->n++] = (seqc_t) { .label = label, .count = 1 };
  return 0;
}

static void
group_free (group_t *g)
{
  for (int32_t i = 0; i < g->n; i++)
    call_free (&g->m[i].call);
  free (g->m);
  free (g);
}

static int
group_done (ctx_t *c, group_t *g)
{
  const logfmt_comm_def_t *def = an_comm_map_find (c->map, g->label);
  uint32_t comm = def ? def->id : g->label;
  unsigned role = c->role[g->state];
  int rc = 0;

  c->w->collectives++;
  if (role & (R_NXN | R_BARRIER))
    {
      int32_t last = 0;
      for (int32_t i = 1; i < g->n; i++)
        if (g->m[i].call.start > g->m[last].call.start)
          last = i;
      an_wait_kind_t k = role & R_NXN ? AN_WAIT_NXN : AN_WAIT_BARRIER;
      for (int32_t i = 0; i < g->n && rc == 0; i++)
        {
          const call_t *m = &g->m[i].call, *l = &g->m[last].call;
          uint64_t until = l->start < m->end ? l->start : m->end;
          if (i != last && until > m->start)
            rc = add_wait (c, k, g->m[i].rank, g->m[i].stream, m, comm,
                           until - m->start, g->m[last].rank, l);
        }
      return rc;
    }
  /* The root's world rank: local root through the definition (world
   * ranks are their own when the definition lists none). */
  int32_t root_world = -1;
  if (g->root >= 0)
    {
      if (def && def->ranks && (uint32_t) g->root < def->size)
        root_world = def->ranks[g->root];
      else if (g->label == 0xffffffffu)
        root_world = g->root;
    }
  int32_t root = -1;
  for (int32_t i = 0; i < g->n; i++)
    if (g->m[i].rank == root_world)
      root = i;
  if (root < 0)
    return 0;
  const call_t *rt = &g->m[root].call;
  if (role & R_ONE2N)
    {
      for (int32_t i = 0; i < g->n && rc == 0; i++)
        {
          const call_t *m = &g->m[i].call;
          uint64_t until = rt->start < m->end ? rt->start : m->end;
          if (i != root && until > m->start)
            rc = add_wait (c, AN_WAIT_LATE_BCAST, g->m[i].rank,
                           g->m[i].stream, m, comm, until - m->start,
                           g->m[root].rank, rt);
        }
    }
  else if (role & R_N2ONE)
    {
      int32_t first = -1;
      for (int32_t i = 0; i < g->n; i++)
        if (i != root
            && (first < 0 || g->m[i].call.start < g->m[first].call.start))
          first = i;
      if (first >= 0)
        {
          const call_t *f = &g->m[first].call;
          uint64_t until = f->start < rt->end ? f->start : rt->end;
          if (until > rt->start)
            rc = add_wait (c, AN_WAIT_EARLY_REDUCE, g->m[root].rank,
                           g->m[root].stream, rt, comm, until - rt->start,
                           g->m[first].rank, f);
        }
    }
  return rc;
}

/* A collective call closed on stream s by the END `ev` (its cargo):
 * join it to its group. */
static int
on_coll (ctx_t *c, strm_t *s, const logfmt_event_t *ev)
{
  an_coll_cargo_t cg;
  an_coll_cargo_decode (ev->cargo, &cg);
  if (cg.np <= 0 || cg.np > c->nranks)
    {
      /* No communicator is wider than the world: damaged cargo. */
      c->w->incomplete += cg.np > c->nranks;
      return 0;
    }
  uint64_t seq = next_seq (c, s->rank, cg.label);
  if (seq == UINT64_MAX - 1)
    return LOGFMT_ENOMEM;
  if (seq == UINT64_MAX)
    return 0;
  group_t *g = c->groups, **pp = &c->groups;
  for (; g; pp = &g->next, g = g->next)
    if (g->label == cg.label && g->seq == seq)
      break;
  if (g == NULL)
    {
      g = calloc (1, sizeof *g);
      if (g == NULL || (g->m = calloc ((size_t) cg.np, sizeof *g->m)) == NULL)
        {
          free (g);
          return LOGFMT_ENOMEM;
        }
      g->label = cg.label;
      g->seq = seq;
      g->np = cg.np;
      g->root = cg.root;
      g->state = ev->state;
      g->next = c->groups;
      c->groups = g;
      pp = &c->groups;
    }
  if (g->n >= g->np || g->state != ev->state)
    {
      /* Members disagree on size or function: not matched. */
      c->w->incomplete++;
      *pp = g->next;
      c->pending -= (uint64_t) g->n;
      group_free (g);
      return 0;
    }
  member_t *m = &g->m[g->n++];
  m->rank = s->rank;
  m->stream = s->idx;
  m->call = s->call;
  memset (&m->call.why, 0, sizeof m->call.why);  /* stays with the stream */
  memset (&s->call.seg, 0, sizeof s->call.seg);  /* moved */
  memset (&s->call.prev, 0, sizeof s->call.prev);
  c->pending++;
  if (c->pending > c->w->peak_pending)
    c->w->peak_pending = c->pending;
  if (g->n < g->np)
    return 0;
  *pp = g->next;
  int rc = group_done (c, g);
  c->pending -= (uint64_t) g->n;
  group_free (g);
  return rc;
}

/* ------------------------------------------------------------------ */
/* The merged pass                                                     */
/* ------------------------------------------------------------------ */

static inline int
hent_less (hent_t a, hent_t b)
{
  return a.t < b.t || (a.t == b.t && a.i < b.i);
}

static void
heap_down (ctx_t *c, uint32_t i)
{
  for (;;)
    {
      uint32_t l = 2 * i + 1, m = i;
      if (l < c->nheap && hent_less (c->heap[l], c->heap[m]))
        m = l;
      if (l + 1 < c->nheap && hent_less (c->heap[l + 1], c->heap[m]))
        m = l + 1;
      if (m == i)
        return;
      hent_t t = c->heap[i];
      c->heap[i] = c->heap[m];
      c->heap[m] = t;
      i = m;
    }
}

static void
heap_up (ctx_t *c, uint32_t i)
{
  while (i > 0)
    {
      uint32_t p = (i - 1) / 2;
      if (!hent_less (c->heap[i], c->heap[p]))
        return;
      hent_t t = c->heap[i];
      c->heap[i] = c->heap[p];
      c->heap[p] = t;
      i = p;
    }
}

/* Refills s's buffer: 1 if it has a record, 0 at its end, or < 0. */
static int
refill (strm_t *s, logfmt_error_t *err)
{
  if (s->pos < s->n)
    return 1;
  long n = logfmt_iter_next_batch (s->it, s->buf, BATCH);
  if (n < 0)
    {
      const logfmt_error_t *e = logfmt_iter_error (s->it);
      if (err && e && e->code && err->code == 0)
        *err = *e;
      return (int) n;
    }
  s->n = n;
  s->pos = 0;
  return n > 0;
}

/* The innermost open user state, or nstates for none. */
static int32_t
innermost_user (const ctx_t *c, const strm_t *s)
{
  for (uint32_t i = logfmt_state_tracker_depth (s->tr); i-- > 0;)
    {
      int32_t k = logfmt_state_tracker_open (s->tr, i)->state;
      if (k >= 0 && (size_t) k < c->nstates && c->cls[k] == S_USER)
        return k;
    }
  return (int32_t) c->nstates;
}

/* Time since the last record goes to the innermost open user state
 * (or "outside states") unless an MPI call is open. */
static void
account (ctx_t *c, strm_t *s, uint64_t t)
{
  uint64_t d = t > s->last ? t - s->last : 0;
  s->last = t;
  if (d == 0 || s->call.active)
    return;
  int32_t st = s->cur;
  if (s->acc[st] == 0)
    s->touched[s->ntouched++] = st;
  s->acc[st] += d;
}

/* Freezes the time since the last call into the new call's segment. */
static int
call_begin (ctx_t *c, strm_t *s, int32_t state, uint64_t t)
{
  rcl_t prev = s->call.why;   /* the previous call's causes, moved */
  memset (&s->call.why, 0, sizeof s->call.why);
  call_free (&s->call);
  s->call = (call_t) { .active = 1, .state = state, .start = t,
                       .prev = prev };
  if (s->ntouched)
    {
      seg_t *g = &s->call.seg;
      g->state = malloc (s->ntouched * sizeof *g->state);
      g->ns = malloc (s->ntouched * sizeof *g->ns);
      if (g->state == NULL || g->ns == NULL)
        {
          seg_free (g);
          return LOGFMT_ENOMEM;
        }
      for (uint32_t i = 0; i < s->ntouched; i++)
        {
          g->state[i] = s->touched[i];
          g->ns[i] = s->acc[s->touched[i]];
          s->acc[s->touched[i]] = 0;
        }
      g->n = s->ntouched;
      s->ntouched = 0;
    }
  (void) c;
  return 0;
}

static int
step (ctx_t *c, strm_t *s, const logfmt_event_t *ev)
{
  logfmt_interval_t closed;
  account (c, s, ev->time);
  int st = logfmt_state_tracker_apply (s->tr, ev, &closed, NULL);
  if (st < 0)
    return st;
  /* Kept as states open and close, not looked up per record. */
  if (st == LOGFMT_STEP_OPENED && c->cls[ev->state] == S_USER)
    s->cur = ev->state;
  else if (st == LOGFMT_STEP_CLOSED && c->cls[closed.state] == S_USER)
    s->cur = innermost_user (c, s);
  if (st == LOGFMT_STEP_OPENED && !s->call.active && ev->state >= 0
      && (size_t) ev->state < c->nstates && c->cls[ev->state] >= S_MPI)
    return call_begin (c, s, ev->state, ev->time);
  if (st == LOGFMT_STEP_CLOSED && s->call.active
      && closed.state == s->call.state && closed.start == s->call.start)
    {
      s->call.active = 0;
      s->call.end = closed.end;
      s->ring_start[s->ring_n % RING] = closed.start;
      s->ring_end[s->ring_n % RING] = closed.end;
      s->ring_n++;
      if (c->cls[closed.state] == S_COLL && (ev->flags & LOGFMT_EVF_CARGO))
        return on_coll (c, s, ev);
      return 0;
    }
  if (ev->kind == LOGFMT_KIND_SEND)
    return on_send (c, s, ev);
  if (ev->kind == LOGFMT_KIND_RECV)
    return on_recv (c, s, ev);
  return 0;
}

static int
run (ctx_t *c, logfmt_error_t *err)
{
  int rc;
  for (uint32_t i = 0; i < c->ns; i++)
    {
      if ((rc = refill (&c->s[i], err)) < 0)
        return rc;
      if (rc == 1)
        {
          c->heap[c->nheap] = (hent_t) { c->s[i].buf[0].time, i };
          heap_up (c, c->nheap++);
        }
    }
  while (c->nheap)
    {
      /* The first stream runs until it passes the next one's head:
       * records come in runs, most without touching the heap. */
      hent_t top = c->heap[0], next = { UINT64_MAX, UINT32_MAX };
      for (uint32_t k = 1; k <= 2 && k < c->nheap; k++)
        if (hent_less (c->heap[k], next))
          next = c->heap[k];
      strm_t *s = &c->s[top.i];
      for (;;)
        {
          if ((rc = step (c, s, &s->buf[s->pos++])) < 0)
            {
              an__error (err, rc, "wait states");
              return rc;
            }
          if ((rc = refill (s, err)) < 0)
            return rc;
          if (rc == 0)
            {
              if (s->last >= c->w->t_last)
                {
                  c->w->t_last = s->last;
                  c->w->rank_last = s->rank;
                }
              c->heap[0] = c->heap[--c->nheap];
              break;
            }
          top.t = s->buf[s->pos].time;
          c->heap[0] = top;
          if (!hent_less (top, next))
            break;
        }
      if (c->nheap)
        heap_down (c, 0);
    }
  return 0;
}

static int
cmp_row (const void *a, const void *b)
{
  const an_wait_row_t *x = a, *y = b;
  if (x->wait_ns != y->wait_ns)
    return x->wait_ns < y->wait_ns ? 1 : -1;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return (x->state > y->state) - (x->state < y->state);
}

static int
cmp_cause (const void *a, const void *b)
{
  const an_wait_cause_t *x = a, *y = b;
  if (x->ns != y->ns)
    return x->ns < y->ns ? 1 : -1;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return (x->cause_rank > y->cause_rank) - (x->cause_rank < y->cause_rank);
}

static int
collect (ctx_t *c)
{
  an_waits_t *w = c->w;
  size_t nr = 0, nc = 0;
  for (size_t i = 0; i < c->acap; i++)
    if (c->agg[i].used)
      {
        if (c->agg[i].cause_rank == -2)
          nr++;
        else
          nc++;
      }
  w->rows = calloc (nr ? nr : 1, sizeof *w->rows);
  w->causes = calloc (nc ? nc : 1, sizeof *w->causes);
  if (w->rows == NULL || w->causes == NULL)
    return LOGFMT_ENOMEM;
  for (size_t i = 0; i < c->acap; i++)
    {
      const agg_t *a = &c->agg[i];
      if (!a->used)
        continue;
      if (a->cause_rank == -2)
        {
          w->rows[w->nrows++] = (an_wait_row_t) {
            .kind = a->kind, .state = a->state, .rank = a->rank,
            .comm = a->comm, .calls = a->calls, .wait_ns = a->ns,
            .max_ns = a->max_ns };
          w->total_ns += a->ns;
        }
      else
        w->causes[w->ncauses++] = (an_wait_cause_t) {
          .kind = a->kind, .state = a->state, .rank = a->rank,
          .comm = a->comm, .cause_rank = a->cause_rank,
          .cause_state = a->cause_state, .ns = a->ns };
    }
  if (w->nrows)
    qsort (w->rows, w->nrows, sizeof *w->rows, cmp_row);
  if (w->ncauses)
    qsort (w->causes, w->ncauses, sizeof *w->causes, cmp_cause);
  return 0;
}

static void
ctx_free (ctx_t *c)
{
  for (uint32_t i = 0; c->s && i < c->ns; i++)
    {
      strm_t *s = &c->s[i];
      logfmt_iter_free (s->it);
      logfmt_state_tracker_free (s->tr);
      free (s->buf);
      free (s->acc);
      free (s->touched);
      call_free (&s->call);
    }
  for (size_t i = 0; i < c->qcap; i++)
    for (send_ent_t *e = c->q[i].used ? c->q[i].head : NULL, *n; e;
         e = n)
      {
        n = e->next;
        call_free (&e->call);
        free (e);
      }
  for (group_t *g = c->groups, *n; g; g = n)
    {
      n = g->next;
      group_free (g);
    }
  for (int32_t i = 0; c->rs && i < c->nranks; i++)
    free (c->rs[i].v);
  free (c->rs);
  free (c->to);
  free (c->q);
  free (c->agg);
  free (c->s);
  free (c->heap);
  free (c->cls);
  free (c->role);
  an_comm_map_free (c->map);
}

int
an_waits_compute (const logfmt_reader_t *r, const an_waits_opts_t *o,
                  an_waits_t **out, logfmt_error_t *err)
{
  const logfmt_info_t *info = logfmt_reader_info (r);
  ctx_t c = { .r = r, .o = o, .nstates = logfmt_reader_n_states (r) };
  int rc = 0;

  *out = NULL;
  c.w = calloc (1, sizeof *c.w);
  c.cls = calloc (c.nstates + 1, 1);
  c.role = calloc (c.nstates + 1, sizeof *c.role);
  c.ns = info->nstreams;
  c.s = calloc (c.ns ? c.ns : 1, sizeof *c.s);
  c.heap = calloc (c.ns ? c.ns : 1, sizeof *c.heap);
  if (c.w == NULL || c.cls == NULL || c.role == NULL || c.s == NULL
      || c.heap == NULL || (rc = an_comm_map_new (r, &c.map)) < 0)
    {
      rc = rc < 0 ? rc : LOGFMT_ENOMEM;
      goto out;
    }
  for (size_t k = 0; k < c.nstates; k++)
    {
      const logfmt_state_def_t *d = logfmt_reader_state (r, k);
      an_state_class_t cl = an_state_class (d);
      c.cls[k] = cl == AN_STATE_COLL ? S_COLL : cl == AN_STATE_MPI ? S_MPI
                 : d && d->name && strncmp (d->name, "MPE_", 4) == 0
                   ? S_INTERNAL : S_USER;
      for (size_t j = 0; d && d->name && j < sizeof roles / sizeof *roles;
           j++)
        if (strcmp (d->name, roles[j].name) == 0)
          c.role[k] = roles[j].roles;
    }
  c.nranks = (int32_t) info->world_size;
  for (uint32_t i = 0; i < c.ns; i++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, i);
      strm_t *s = &c.s[i];
      s->idx = i;
      s->rank = sd ? sd->rank : -1;
      if (s->rank >= c.nranks)
        c.nranks = s->rank + 1;
      s->call.state = -1;
      s->cur = (int32_t) c.nstates;
      s->buf = malloc (BATCH * sizeof *s->buf);
      s->acc = calloc (c.nstates + 1, sizeof *s->acc);
      s->touched = calloc (c.nstates + 1, sizeof *s->touched);
      if (s->buf == NULL || s->acc == NULL || s->touched == NULL)
        {
          rc = LOGFMT_ENOMEM;
          goto out;
        }
      if ((rc = logfmt_iter_new (r, i, 0, UINT64_MAX, &s->it)) < 0
          || (rc = logfmt_state_tracker_new_mode (c.nstates, i,
                                                  LOGFMT_TRACKER_NESTING,
                                                  &s->tr)) < 0)
        goto out;
    }
  c.rs = calloc (c.nranks > 0 ? (size_t) c.nranks : 1, sizeof *c.rs);
  c.to = calloc (c.nranks > 0 ? (size_t) c.nranks : 1, sizeof *c.to);
  if (c.rs == NULL || c.to == NULL)
    {
      rc = LOGFMT_ENOMEM;
      goto out;
    }
  if ((rc = run (&c, err)) < 0)
    goto out;
  for (group_t *g = c.groups; g; g = g->next)
    c.w->incomplete++;
  rc = collect (&c);
out:
  if (rc < 0)
    {
      an__error (err, rc, "wait states");
      an_waits_free (c.w);
    }
  else
    *out = c.w;
  ctx_free (&c);
  return rc;
}

void
an_waits_free (an_waits_t *w)
{
  if (w == NULL)
    return;
  free (w->rows);
  free (w->causes);
  free (w);
}

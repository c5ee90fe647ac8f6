/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live monitor (ANALYSIS-MODEL 000-11 to 000-17): a manager rank
 * samples current metric values of every process while the job runs,
 * through a ring of service channels.  The manager sends a request that
 * names what it wants (mpe-monitor-wire.h); every rank adds its part and
 * forwards it to the next; the request comes back full.
 *
 * The channels are point-to-point messages on a private duplicate of
 * MPI_COMM_WORLD, so the program's communicators never see them.  Who
 * moves them (no requirement on the thread level the program asked for):
 *  - by default, the wrapped MPI calls: each one, at most every
 *    MPE_MONITOR_POLL_US, probes for a request (mpe__mon_progress).  A
 *    rank that computes without calling MPI holds the request until its
 *    next MPI call; the manager's accounting shows it as late;
 *  - with MPE_MONITOR_THREAD=yes and MPI_THREAD_MULTIPLE, a helper
 *    thread per rank probes every poll period instead, so computing ranks
 *    answer too, at the price of its wake-ups.
 * MPE_Finish_log drains the ring: the manager sends a STOP after its last
 * request, every rank forwards what reaches it until the STOP has passed,
 * so no request is left in flight.
 *
 * A ring's round trip is N hops, so large jobs use a tree instead
 * (MPE_MONITOR_SHAPE, automatic from MON_TREE_FROM ranks; mpetop(1),
 * "SHAPE AND SCALE"): the empty request goes down a tree of fan-out
 * MPE_MONITOR_FANOUT, each rank answers its parent with its part
 * appended to (or, for node and job levels, folded into) its children's
 * answers, so a round trip is 2 log_k N hops.  The STOP goes down the
 * same way and comes back up once a subtree has answered everything.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpe-internal.h"
#include "mpe-monitor.h"
#include "mpe-monitor-wire.h"

#define MON_TAG 4242      /* the ring, and the tree's way down */
#define MON_TAG_UP 4243   /* the tree's answers to the parent */
/* MPE_MONITOR_SHAPE=auto: a tree from this many ranks
 * (docs/benchmarks/HISTORY.md, "Live monitor": where the ring's N hops
 * cost more than the tree's 2 log_k N). */
#define MON_TREE_FROM 32
#define MON_FANOUT 8
#define MON_HOST_LEN 64

/* Exported to the wrapper libraries: 0 when the monitor is off, so the
 * wrappers pay one load. */
_Atomic int mpe__mon_active;

typedef struct
{
  MPI_Comm  comm;
  int       rank, size, manager;
  int       next, prev;
  /* The tree shape: world ranks; parent -1 at the manager. */
  int       shape, fanout;
  int       parent;
  int      *children;
  int       nchildren;
  /* Requests this rank answered and whose children have not all. */
  struct mon_pending { uint32_t seq; int waiting; mpe_mon_req_t *q;
                       size_t len; } *pend;
  int       npend, cap_pend;
  int       got_stop, stop_acks;
  int       nnodes;
  int      *node_of;          /* world rank -> node index */
  int       my_node;
  /* Progress. */
  atomic_flag busy;           /* one thread progresses at a time */
  uint64_t  poll_ns;          /* the wrapped calls' probe spacing */
  uint64_t  thread_poll_ns;   /* the helper thread's */
  _Atomic uint64_t next_poll; /* local ns */
  int       threaded;
  pthread_t thread;
  _Atomic int thread_stop;
  /* Sends in flight (requests forwarded or issued). */
  struct mon_send { MPI_Request req; void *buf; } *sends;
  int       nsends, cap_sends;
  /* Manager. */
  mpe_mon_want_t want;
  uint64_t  period_ns;
  uint64_t  next_due;         /* on a grid of period_ns from first_due */
  uint64_t  first_due;
  uint64_t  periods_before;   /* of the grids before a change of rate */
  uint32_t  seq;
  int       max_in_flight;
  int       stop_passed;      /* this rank forwarded the STOP */
  mpe_mon_stats_t stats;
  double   *rtt;              /* seconds, one per returned request */
  size_t    nrtt, cap_rtt;
} mon_t;

static mon_t M;

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}


/* The built-in metric until the metric cells provide more: records this
 * process (thread = -1) or one of its threads logged so far. */
static int
read_events (uint32_t code, int thread, int64_t *v)
{
  if (code != MPE_MON_CODE_EVENTS)
    return -1;
  int64_t n = 0, found = 0;
  pthread_mutex_lock (&mpe__g.lock);
  for (mpe_tbuf_t *b = mpe__g.tbufs; b; b = b->next)
    if (thread < 0 || b->thread == thread)
      {
        /* Metric samples are the logger's, not the program's. */
        int64_t k = (int64_t) (MPE_PEEK (b->pos) - b->base)
                    + (int64_t) (b->packed_wb ? MPE_PEEK (b->retired)
                                              : MPE_PEEK (b->spilled))
                    - (int64_t) MPE_PEEK (b->metric_slots);
        n += k > 0 ? k : 0;
        found = 1;
      }
  pthread_mutex_unlock (&mpe__g.lock);
  *v = n;
  return found || thread < 0 ? 0 : -1;
}

static int
read_value (uint32_t code, int thread, int64_t *v)
{
  if (code == MPE_MON_CODE_EVENTS)
    return read_events (code, thread, v);
  return mpe__metric_monitor_read (code, thread, v);
}

/* ---- the request: what this rank adds ---------------------------------- */

/* Slots the manager puts in a fresh request for `want`; -1 if the level
 * grows as it travels (threads). */
static long
slots_for (const mpe_mon_want_t *w)
{
  switch (w->level)
    {
    case MPE_MON_LEVEL_THREAD:  return 0;
    /* One value per rank: appended as the request travels, so the hop
       to rank i carries i values, not all of them (mpetop(1), "SHAPE AND SCALE"). */
    case MPE_MON_LEVEL_PROCESS: return w->object >= 0 ? 1 : 0;
    case MPE_MON_LEVEL_NODE:    return w->object >= 0 ? 1 : M.nnodes;
    case MPE_MON_LEVEL_JOB:     return 1;
    case MPE_MON_LEVEL_CHANNEL: return M.size;
    }
  return -1;
}

static int32_t
slot_object (const mpe_mon_want_t *w, long i)
{
  if (w->level == MPE_MON_LEVEL_JOB)
    return 0;
  return w->object >= 0 && w->level != MPE_MON_LEVEL_CHANNEL
         ? w->object : (int32_t) i;
}

/* Adds this rank's part to q (len bytes).  Returns the request to forward
 * (q itself, or a grown copy for the thread level), or NULL without
 * memory. */
static mpe_mon_req_t *
add_mine (mpe_mon_req_t *q, size_t *len)
{
  mpe_mon_slot_t *s = (mpe_mon_slot_t *) (q + 1);
  int64_t v;

  q->visited++;
  switch (q->level)
    {
    case MPE_MON_LEVEL_THREAD:
      {
        int nt = atomic_load (&mpe__g.nthreads);
        size_t bytes = mpe_mon_req_bytes ((uint64_t) q->nslots + nt);
        mpe_mon_req_t *g = bytes ? realloc (q, bytes) : NULL;
        if (!g)
          return NULL;
        q = g;
        s = (mpe_mon_slot_t *) (q + 1);
        for (int t = 0; t < nt; t++)
          if (read_value (q->code, t, &v) == 0)
            {
              int32_t who = (int32_t) ((uint32_t) M.rank << 16 | (uint32_t) t);
              mpe_mon_slot_init (&s[q->nslots], who);
              mpe_mon_slot_add (&s[q->nslots], v, who);
              q->nslots++;
            }
        *len = mpe_mon_req_bytes (q->nslots);
        return q;
      }
    case MPE_MON_LEVEL_PROCESS:
      if (q->object >= 0)
        {
          if (q->object == M.rank && read_value (q->code, -1, &v) == 0)
            mpe_mon_slot_add (&s[0], v, M.rank);
          return q;
        }
      if (read_value (q->code, -1, &v) == 0)
        {
          size_t bytes = mpe_mon_req_bytes ((uint64_t) q->nslots + 1);
          mpe_mon_req_t *g = bytes ? realloc (q, bytes) : NULL;
          if (!g)
            return NULL;
          q = g;
          s = (mpe_mon_slot_t *) (q + 1);
          mpe_mon_slot_init (&s[q->nslots], M.rank);
          mpe_mon_slot_add (&s[q->nslots], v, M.rank);
          q->nslots++;
          *len = bytes;
        }
      return q;
    case MPE_MON_LEVEL_NODE:
      if (q->object >= 0 && q->object != M.my_node)
        return q;
      if (read_value (q->code, -1, &v) == 0)
        mpe_mon_slot_add (&s[q->object >= 0 ? 0 : M.my_node], v, M.rank);
      return q;
    case MPE_MON_LEVEL_JOB:
      if (read_value (q->code, -1, &v) == 0)
        mpe_mon_slot_add (&s[0], v, M.rank);
      return q;
    case MPE_MON_LEVEL_CHANNEL:
      /* The row of one sender: its value towards each partner. */
      if (q->object == M.rank)
        for (int p = 0; p < M.size; p++)
          if (read_value (q->code, MPE_MON_THREAD_CHANNEL (p), &v) == 0)
            mpe_mon_slot_add (&s[p], v, M.rank);
      return q;
    }
  return q;
}

/* ---- sending --------------------------------------------------------- */

static void
reap_sends (int wait)
{
  int j = 0;
  for (int i = 0; i < M.nsends; i++)
    {
      int done = 0;
      if (wait)
        PMPI_Wait (&M.sends[i].req, MPI_STATUS_IGNORE), done = 1;
      else
        PMPI_Test (&M.sends[i].req, &done, MPI_STATUS_IGNORE);
      if (done)
        free (M.sends[i].buf);
      else
        M.sends[j++] = M.sends[i];
    }
  M.nsends = j;
}

/* Sends buf (taken over) to world rank dest; 0 or -1. */
static int
send_to (int dest, int tag, void *buf, size_t len)
{
  if (M.nsends == M.cap_sends)
    {
      int cap = M.cap_sends ? 2 * M.cap_sends : 8;
      void *g = realloc (M.sends, (size_t) cap * sizeof *M.sends);
      if (!g)
        {
          free (buf);
          return -1;
        }
      M.sends = g;
      M.cap_sends = cap;
    }
  struct mon_send *s = &M.sends[M.nsends];
  if (PMPI_Isend (buf, (int) len, MPI_BYTE, dest, tag, M.comm, &s->req)
      != MPI_SUCCESS)
    {
      free (buf);
      return -1;
    }
  s->buf = buf;
  M.nsends++;
  return 0;
}

static int
send_next (void *buf, size_t len)
{
  return send_to (M.next, MON_TAG, buf, len);
}

/* ---- the manager ----------------------------------------------------- */

/* A request for w with its fixed slots (none when `bare`: the tree's
 * way down carries no data). */
static mpe_mon_req_t *
build_request (int op, const mpe_mon_want_t *w, int bare, size_t *len)
{
  long n = op == MPE_MON_OP_STOP || bare ? 0 : slots_for (w);
  *len = mpe_mon_req_bytes ((uint64_t) (n < 0 ? 0 : n));
  mpe_mon_req_t *q = *len ? calloc (1, *len) : NULL;
  if (!q)
    return NULL;
  q->magic = MPE_MON_MAGIC;
  q->version = MPE_MON_VERSION;
  q->op = (uint16_t) op;
  q->resource = (uint16_t) w->resource;
  q->level = (uint16_t) w->level;
  q->object = w->object;
  q->code = w->code;
  q->nslots = (uint32_t) (n < 0 ? 0 : n);
  mpe_mon_slot_t *s = (mpe_mon_slot_t *) (q + 1);
  for (long i = 0; i < n; i++)
    mpe_mon_slot_init (&s[i], slot_object (w, i));
  return q;
}

static mpe_mon_req_t *
new_request (int op, int bare, size_t *len)
{
  mpe_mon_req_t *q = build_request (op, &M.want, bare, len);
  if (!q)
    return NULL;
  q->seq = M.seq++;
  q->t_send = (int64_t) now_ns ();
  return q;
}

/* What the manager sampled, for the definitions written at the finish
 * (level and code pairs; a handful in practice). */
#define MON_KINDS_MAX 64
static uint32_t kinds[MON_KINDS_MAX][2];
static int nkinds;

/* The returned values go into the log as metric samples of the level
 * (the channel level is the sender's row: recorded as process-level
 * channel values is left out). */
static void
record (const mpe_mon_req_t *q)
{
  if (q->level > MPE_MON_LEVEL_JOB || q->code == MPE_MON_CODE_EVENTS)
    return;
  int k = 0;
  while (k < nkinds && (kinds[k][0] != q->level || kinds[k][1] != q->code))
    k++;
  if (k == nkinds)
    {
      if (nkinds == MON_KINDS_MAX)
        return;
      kinds[nkinds][0] = q->level;
      kinds[nkinds][1] = q->code;
      nkinds++;
    }
  const mpe_mon_slot_t *s = (const mpe_mon_slot_t *) (q + 1);
  uint32_t id = MPE_MON_METRIC_ID (q->level, q->code);
  for (uint32_t i = 0; i < q->nslots; i++)
    if (s[i].n)
      mpe__metric_put_monitor (id, s[i].object, s[i].sum);
}

/* Collective: every rank defines what the manager sampled (rank 0's
 * definitions are the ones written). */
static void
describe_kinds (void)
{
  PMPI_Bcast (&nkinds, 1, MPI_INT, M.manager, M.comm);
  PMPI_Bcast (kinds, (int) sizeof kinds, MPI_BYTE, M.manager, M.comm);
  static const char *const lv[] = { "thread", "process", "node", "job" };
  for (int k = 0; k < nkinds; k++)
    {
      const char *unit = "1";
      const char *name = mpe__metric_name (kinds[k][1], &unit);
      char n[300];
      if (name)
        snprintf (n, sizeof n, "%s@%s", name, lv[kinds[k][0] & 3]);
      else
        snprintf (n, sizeof n, "metric%u@%s", kinds[k][1],
                  lv[kinds[k][0] & 3]);
      mpe__metric_describe_monitor (MPE_MON_METRIC_ID (kinds[k][0],
                                                       kinds[k][1]),
                                    n, unit ? unit : "1");
    }
  nkinds = 0;
}

static int
cmp_slot (const void *a, const void *b)
{
  const mpe_mon_slot_t *x = a, *y = b;
  return (x->object > y->object) - (x->object < y->object);
}

static void
manager_returned (mpe_mon_req_t *q)
{
  /* Appended slots come in ring order from the manager: by object. */
  if (q->level == MPE_MON_LEVEL_PROCESS || q->level == MPE_MON_LEVEL_THREAD)
    qsort (q + 1, q->nslots, sizeof (mpe_mon_slot_t), cmp_slot);
  uint64_t t = now_ns ();
  double rtt = (double) (t - (uint64_t) q->t_send) * 1e-9;

  M.stats.returned++;
  if (M.period_ns && rtt * 1e9 > (double) M.period_ns)
    M.stats.late++;
  if (q->visited != (uint32_t) M.size)
    M.stats.incomplete++;
  if (M.nrtt == M.cap_rtt)
    {
      size_t cap = M.cap_rtt ? 2 * M.cap_rtt : 256;
      double *g = realloc (M.rtt, cap * sizeof *g);
      if (g)
        M.rtt = g, M.cap_rtt = cap;
    }
  if (M.nrtt < M.cap_rtt)
    M.rtt[M.nrtt++] = rtt;
  mpe__mon_live_sample (q, rtt);
  record (q);
}

/* ---- the tree shape ------------------------------------------------- */

/* Drops the slots of q that hold no part; returns the new length.  The
 * slots keep their objects, so the parent finds where they go. */
static size_t
drop_empty (mpe_mon_req_t *q)
{
  mpe_mon_slot_t *s = (mpe_mon_slot_t *) (q + 1);
  uint32_t j = 0;
  for (uint32_t i = 0; i < q->nslots; i++)
    if (s[i].n)
      s[j++] = s[i];
  q->nslots = j;
  return mpe_mon_req_bytes (j);
}

/* A complete answer for a subtree: to the parent, or the manager's. */
static void
tree_up (mpe_mon_req_t *q, size_t len)
{
  if (M.rank != M.manager)
    {
      /* A subtree answers with the objects it has parts of only (its
         nodes, the one object asked for, nothing): a hop costs the size
         of what was found, not of the whole level. */
      if (!mpe_mon_level_appends (q->level, q->object))
        len = drop_empty (q);
      send_to (M.parent, MON_TAG_UP, q, len);
      return;
    }
  if (q->op == MPE_MON_OP_SAMPLE)
    manager_returned (q);
  free (q);
}

/* A request (header h, from the parent or the manager's own): this
 * rank's part, and the header on to the children. */
static void
tree_begin (const mpe_mon_req_t *h)
{
  mpe_mon_want_t w = { h->resource, h->level, h->object, h->code };
  size_t len;
  mpe_mon_req_t *q = build_request (MPE_MON_OP_SAMPLE, &w, 0, &len);
  if (q)
    {
      q->seq = h->seq;
      q->t_send = h->t_send;
      mpe_mon_req_t *g = add_mine (q, &len);
      if (!g)
        free (q);
      q = g;
    }
  if (!q)
    return;   /* no memory: the request is lost, the accounting says so */
  if (M.nchildren == 0)
    {
      tree_up (q, len);
      return;
    }
  if (M.npend == M.cap_pend)
    {
      int cap = M.cap_pend ? 2 * M.cap_pend : 8;
      void *g = realloc (M.pend, (size_t) cap * sizeof *M.pend);
      if (!g)
        {
          free (q);
          return;
        }
      M.pend = g;
      M.cap_pend = cap;
    }
  M.pend[M.npend++] = (struct mon_pending) { h->seq, M.nchildren, q, len };
  for (int c = 0; c < M.nchildren; c++)
    {
      mpe_mon_req_t *d = malloc (sizeof *d);
      if (!d)
        continue;   /* that subtree never answers: lost */
      *d = *h;
      d->nslots = 0;
      d->visited = 0;
      send_to (M.children[c], MON_TAG, d, sizeof *d);
    }
}

/* A child's answer r for a pending request: appended to, or folded
 * into, this rank's answer; the last one sends it up. */
static void
tree_answer (mpe_mon_req_t *r)
{
  int i = 0;
  while (i < M.npend && M.pend[i].seq != r->seq)
    i++;
  if (i == M.npend)
    {
      free (r);   /* not asked for (cannot happen with correct peers) */
      return;
    }
  struct mon_pending *p = &M.pend[i];
  mpe_mon_slot_t *src = (mpe_mon_slot_t *) (r + 1);
  if (mpe_mon_level_appends (p->q->level, p->q->object))
    {
      size_t bytes = mpe_mon_req_bytes ((uint64_t) p->q->nslots + r->nslots);
      mpe_mon_req_t *g = bytes ? realloc (p->q, bytes) : NULL;
      if (g)
        {
          memcpy ((mpe_mon_slot_t *) (g + 1) + g->nslots, src,
                  r->nslots * sizeof *src);
          g->nslots += r->nslots;
          g->visited += r->visited;
          p->q = g;
          p->len = bytes;
        }
    }
  else
    {
      /* This rank's answer has every slot of the level; the child's has
         those it found parts of, each named by its object. */
      mpe_mon_slot_t *dst = (mpe_mon_slot_t *) (p->q + 1);
      uint32_t n = p->q->nslots;
      for (uint32_t k = 0; k < r->nslots; k++)
        {
          int64_t at = n == 1 ? 0 : src[k].object;
          if (at >= 0 && at < (int64_t) n && dst[at].object == src[k].object)
            mpe_mon_slot_merge (&dst[at], &src[k]);
        }
      p->q->visited += r->visited;
    }
  free (r);
  if (--p->waiting > 0)
    return;
  mpe_mon_req_t *q = p->q;
  size_t len = p->len;
  M.pend[i] = M.pend[--M.npend];
  tree_up (q, len);
}

/* Once the STOP came down and every child answered it, every request of
 * this subtree has been answered: the STOP goes up. */
static void
tree_stop_check (void)
{
  if (!M.got_stop || M.stop_acks < M.nchildren || M.stop_passed)
    return;
  M.stop_passed = 1;
  if (M.rank == M.manager)
    return;
  mpe_mon_req_t *q = malloc (sizeof *q);
  if (q)
    {
      *q = (mpe_mon_req_t) { .magic = MPE_MON_MAGIC,
                             .version = MPE_MON_VERSION,
                             .op = MPE_MON_OP_STOP };
      send_to (M.parent, MON_TAG_UP, q, sizeof *q);
    }
}

/* The STOP on its way down (the manager starts it). */
static void
tree_stop_down (void)
{
  M.got_stop = 1;
  for (int c = 0; c < M.nchildren; c++)
    {
      mpe_mon_req_t *d = malloc (sizeof *d);
      if (!d)
        continue;
      *d = (mpe_mon_req_t) { .magic = MPE_MON_MAGIC,
                             .version = MPE_MON_VERSION,
                             .op = MPE_MON_OP_STOP };
      send_to (M.children[c], MON_TAG, d, sizeof *d);
    }
  tree_stop_check ();
}

/* Handles one received message q (len checked) of tag `tag`. */
static void
tree_received (mpe_mon_req_t *q, int tag)
{
  if (tag == MON_TAG_UP && q->op == MPE_MON_OP_SAMPLE)
    tree_answer (q);
  else if (tag == MON_TAG_UP)
    {
      M.stop_acks++;
      free (q);
      tree_stop_check ();
    }
  else if (q->op == MPE_MON_OP_SAMPLE)
    {
      tree_begin (q);
      free (q);
    }
  else
    {
      free (q);
      tree_stop_down ();
    }
}

/* MPE_MONITOR_METRIC names what to sample before a window asks: found
 * among the definitions once the program (or the wrappers) made it. */
static char want_name[128];

static void
resolve_want (void)
{
  logfmt_metric_def_t *d;
  size_t n = mpe__metric_defs (&d);
  for (size_t i = 0; d && i < n; i++)
    if (d[i].name && !strcmp (d[i].name, want_name))
      {
        M.want.code = d[i].id;
        want_name[0] = '\0';
      }
  free (d);
}

/* Issues a request when one is due and not too many are out. */
static void
manager_tick (uint64_t t)
{
  if (!M.period_ns || t < M.next_due)
    return;
  if (!mpe__mon_live_ready (t))
    {
      /* The window has not chosen yet: the first request goes as soon
         as it has, and the wait is not a missed sample. */
      M.first_due += t - M.next_due;
      M.next_due = t;
      return;
    }
  if (want_name[0])
    resolve_want ();
  uint64_t out = M.stats.sent - M.stats.returned;
  /* Periods that passed while nobody moved the monitor (the manager
     computed, or waited inside MPI) are missed samples.  The schedule
     stays on its grid, so every period is either sent or skipped. */
  uint64_t missed = (t - M.next_due) / M.period_ns;
  M.stats.skipped += missed;
  M.next_due += (missed + 1) * M.period_ns;
  if (out >= (uint64_t) M.max_in_flight)
    {
      M.stats.skipped++;     /* the ring is behind: do not pile up */
      return;
    }
  size_t len;
  int tree = M.shape == MPE_MON_SHAPE_TREE && M.size > 1;
  mpe_mon_req_t *q = new_request (MPE_MON_OP_SAMPLE, tree, &len);
  if (!q)
    {
      M.stats.skipped++;     /* no memory: this period has no sample */
      return;
    }
  M.stats.sent++;
  if (tree)
    {
      tree_begin (q);
      free (q);
      return;
    }
  if (M.size == 1)
    {
      size_t l2 = len;
      mpe_mon_req_t *g = add_mine (q, &l2);
      if (g)
        manager_returned (g);
      free (g ? g : q);
      return;
    }
  mpe_mon_req_t *g = add_mine (q, &len);
  if (g)
    send_next (g, len);
  else
    free (q);     /* no memory: this sample is lost, the count says so */
}

/* ---- progress -------------------------------------------------------- */

/* Receives one request if one waits (block: wait for it).  Returns its
 * op, 0 if none, -1 on error. */
static int
handle_one (int block)
{
  MPI_Message msg;
  MPI_Status st;
  int flag = 1, count;
  int tree = M.shape == MPE_MON_SHAPE_TREE;
  /* The ring hears its predecessor; the tree its parent and children. */
  int from = tree ? MPI_ANY_SOURCE : M.prev;
  int tag = tree ? MPI_ANY_TAG : MON_TAG;

  if (block)
    {
      if (PMPI_Mprobe (from, tag, M.comm, &msg, &st) != MPI_SUCCESS)
        return -1;
    }
  else if (PMPI_Improbe (from, tag, M.comm, &flag, &msg, &st)
           != MPI_SUCCESS)
    return -1;
  if (!flag)
    return 0;
  PMPI_Get_count (&st, MPI_BYTE, &count);
  size_t len = count > 0 ? (size_t) count : 0;
  mpe_mon_req_t *q = malloc (len ? len : 1);
  if (!q)
    return -1;
  if (PMPI_Mrecv (q, count, MPI_BYTE, &msg, MPI_STATUS_IGNORE)
      != MPI_SUCCESS || mpe_mon_req_check (q, len) != 0)
    {
      free (q);
      return -1;
    }
  int op = q->op;
  if (tree)
    {
      tree_received (q, st.MPI_TAG);
      return op;
    }
  if (M.rank == M.manager)
    {
      if (op == MPE_MON_OP_SAMPLE)
        manager_returned (q);
      free (q);
      return op;
    }
  if (op == MPE_MON_OP_SAMPLE)
    {
      mpe_mon_req_t *g = add_mine (q, &len);
      if (!g)
        {
          free (q);
          return -1;
        }
      q = g;
    }
  else
    M.stop_passed = 1;   /* the manager is draining; it may pass before
                            this rank reaches its own drain */
  send_next (q, len);
  return op;
}

static void
progress (void)
{
  uint64_t t = now_ns ();
  if (M.rank == M.manager)
    {
      mpe__mon_live_poll ();
      manager_tick (t);
    }
  while (handle_one (0) > 0)
    ;
  if (M.nsends)
    reap_sends (0);
}

void
mpe__mon_progress (void)
{
  if (!atomic_load_explicit (&mpe__mon_active, memory_order_relaxed))
    return;
  uint64_t t = now_ns ();
  if (t < atomic_load_explicit (&M.next_poll, memory_order_relaxed))
    return;
  if (atomic_flag_test_and_set (&M.busy))
    return;
  atomic_store_explicit (&M.next_poll, t + M.poll_ns, memory_order_relaxed);
  progress ();
  atomic_flag_clear (&M.busy);
}

static void *
helper_main (void *arg)
{
  (void) arg;
  struct timespec ts = { (time_t) (M.thread_poll_ns / 1000000000u),
                         (long) (M.thread_poll_ns % 1000000000u) };
  while (!atomic_load (&M.thread_stop))
    {
      if (!atomic_flag_test_and_set (&M.busy))
        {
          progress ();
          atomic_flag_clear (&M.busy);
        }
      nanosleep (&ts, NULL);
    }
  return NULL;
}

/* ---- start and stop -------------------------------------------------- */

/* Reads the environment as mpe__mon_start does, before MPI exists. */
int
mpe__mon_thread_wanted (void)
{
  const char *hz = getenv ("MPE_MONITOR");
  const char *th = getenv ("MPE_MONITOR_THREAD");
  int on = hz && *hz ? strtod (hz, NULL) > 0 : mpe__mon_live_wanted ();
  int off = th && (!strcmp (th, "no") || !strcmp (th, "NO")
                   || !strcmp (th, "false") || !strcmp (th, "FALSE")
                   || !strcmp (th, "0"));
  return on && !off;
}

static double
env_double (const char *name, double dflt)
{
  return mpe__env_number (name, dflt, 0, 1e9, "", 0);
}

static uint64_t
host_hash (const char *s)
{
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char) *s) * 1099511628211ull;
  return h;
}

/* Node index of every rank, by host name (first rank of a host numbers
 * it).  Collective. */
static int
learn_nodes (void)
{
  uint64_t mine = host_hash (mpe__g.host);
  uint64_t *all = malloc ((size_t) M.size * sizeof *all);
  M.node_of = malloc ((size_t) M.size * sizeof *M.node_of);
  if (!all || !M.node_of
      || PMPI_Allgather (&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T,
                         M.comm) != MPI_SUCCESS)
    {
      free (all);
      return -1;
    }
  M.nnodes = 0;
  for (int r = 0; r < M.size; r++)
    {
      int k = -1;
      for (int q = 0; q < r && k < 0; q++)
        if (all[q] == all[r])
          k = M.node_of[q];
      M.node_of[r] = k >= 0 ? k : M.nnodes++;
    }
  M.my_node = M.node_of[M.rank];
  free (all);
  /* Host names for the live window, on the manager only. */
  int live = M.rank == M.manager && mpe__mon_live_wanted ();
  PMPI_Bcast (&live, 1, MPI_INT, M.manager, M.comm);
  if (live)
    {
      char mine_h[MON_HOST_LEN] = { 0 };
      char *hosts = M.rank == M.manager
                    ? calloc ((size_t) M.size, MON_HOST_LEN) : NULL;
      memcpy (mine_h, mpe__g.host, MON_HOST_LEN - 1);
      PMPI_Gather (mine_h, MON_HOST_LEN, MPI_CHAR, hosts, MON_HOST_LEN,
                   MPI_CHAR, M.manager, M.comm);
      if (M.rank == M.manager)
        mpe__mon_live_open (M.size, M.nnodes, M.node_of, hosts,
                            MON_HOST_LEN, 1e9 / (double) M.period_ns);
      free (hosts);
    }
  return 0;
}

/* MPE_MONITOR_SHAPE: ring, tree, or auto (the tree from MON_TREE_FROM
 * ranks). */
static int
choose_shape (int size)
{
  static const char *const shapes[] = { "auto", "ring", "tree", NULL };
  int c = mpe__env_choice ("MPE_MONITOR_SHAPE", shapes, 0);
  if (c == 1)
    return MPE_MON_SHAPE_RING;
  if (c == 2)
    return MPE_MON_SHAPE_TREE;
  return size >= MON_TREE_FROM ? MPE_MON_SHAPE_TREE : MPE_MON_SHAPE_RING;
}

/* This rank's parent and children in the tree rooted at the manager. */
static int
tree_links (void)
{
  int rel = (M.rank - M.manager + M.size) % M.size, parent;
  M.children = malloc ((size_t) M.fanout * sizeof *M.children);
  if (!M.children)
    return -1;
  M.nchildren = mpe_mon_tree_links (rel, M.size, M.fanout, &parent,
                                    M.children);
  if (M.nchildren < 0)
    return -1;
  M.parent = parent < 0 ? -1 : (parent + M.manager) % M.size;
  for (int c = 0; c < M.nchildren; c++)
    M.children[c] = (M.children[c] + M.manager) % M.size;
  return 0;
}

int
mpe__mon_start (MPI_Comm world)
{
  double hz = 0;
  int settings[6] = { 0, 0, 0, 0, 0, 0 };

  PMPI_Comm_rank (world, &M.rank);
  PMPI_Comm_size (world, &M.size);
  /* Rank 0's environment decides for everybody. */
  if (M.rank == 0)
    {
      hz = env_double ("MPE_MONITOR", 0);
      if (hz == 0 && mpe__mon_live_wanted () && !getenv ("MPE_MONITOR"))
        hz = 10;
      const char *mgr = getenv ("MPE_MONITOR_MANAGER");
      settings[0] = (int) (hz * 1000.0 + 0.5);   /* millihertz */
      settings[1] = mgr ? atoi (mgr) : 0;
      /* -1: unset (the wrapped calls look every 200 us, the helper
         thread wakes every 1000 us). */
      settings[2] = getenv ("MPE_MONITOR_POLL_US")
                    ? (int) env_double ("MPE_MONITOR_POLL_US", 200) : -1;
      /* 2: asked for; 1: the default, where the thread level allows. */
      const char *tv = getenv ("MPE_MONITOR_THREAD");
      settings[3] = tv ? 2 * mpe__env_bool ("MPE_MONITOR_THREAD", 1) : 1;
      settings[4] = choose_shape (M.size);
      settings[5] = (int) env_double ("MPE_MONITOR_FANOUT", MON_FANOUT);
      if (settings[5] < 2)
        {
          fprintf (stderr, "MPE: MPE_MONITOR_FANOUT=%d is below 2; using "
                   "%d\n", settings[5], MON_FANOUT);
          settings[5] = MON_FANOUT;
        }
      if (settings[1] < 0 || settings[1] >= M.size)
        {
          fprintf (stderr, "MPE: MPE_MONITOR_MANAGER=%d is not a rank; "
                   "using 0\n", settings[1]);
          settings[1] = 0;
        }
    }
  if (PMPI_Bcast (settings, 6, MPI_INT, 0, world) != MPI_SUCCESS
      || settings[0] <= 0)
    return 0;
  if (PMPI_Comm_dup (world, &M.comm) != MPI_SUCCESS)
    return -1;
  M.manager = settings[1];
  M.next = (M.rank + 1) % M.size;
  M.prev = (M.rank + M.size - 1) % M.size;
  M.shape = settings[4];
  M.fanout = settings[5];
  M.stats.tree_fanout = M.shape == MPE_MON_SHAPE_TREE ? M.fanout : 0;
  if (M.shape == MPE_MON_SHAPE_TREE && tree_links () != 0)
    return -1;
  M.poll_ns = (uint64_t) (settings[2] > 0 ? settings[2]
                          : settings[2] < 0 ? 200 : 1) * 1000u;
  /* The helper thread's wake-ups take CPU from a program that uses every
     core: every 200 us cost a compute-bound job 8-10% on 2 ranks of 2
     cores, every 1000 us nothing measurable, for a round trip of about
     a millisecond a rank (docs/BENCHMARKS.md, "Live monitor"). */
  M.thread_poll_ns = settings[2] < 0 ? 1000000u : M.poll_ns;
  M.period_ns = (uint64_t) (1e12 / settings[0]);
  M.max_in_flight = 4;
  M.want = (mpe_mon_want_t) { MPE_MON_RES_PROCESS, MPE_MON_LEVEL_PROCESS,
                              -1, MPE_MON_CODE_EVENTS };
  if (M.rank == M.manager)
    {
      const char *mn = getenv ("MPE_MONITOR_METRIC");
      const char *lv = getenv ("MPE_MONITOR_LEVEL");
      static const char *const levels[] = { "thread", "process", "node",
                                            "job" };
      if (mn && *mn)
        snprintf (want_name, sizeof want_name, "%s", mn);
      for (int k = 0; lv && k < 4; k++)
        if (!strcmp (lv, levels[k]))
          M.want.level = k;
    }
  M.stats.hz = settings[0] / 1000.0;
  atomic_flag_clear (&M.busy);
  if (learn_nodes () != 0)
    return -1;   /* collective failures: MPI aborts before this anyway */
  M.next_due = M.first_due = now_ns () + M.period_ns;
  atomic_store (&M.next_poll, 0);
  atomic_store (&mpe__mon_active, 1);
  if (settings[3])
    {
      int level = MPI_THREAD_SINGLE;
      PMPI_Query_thread (&level);
      if (level == MPI_THREAD_MULTIPLE
          && pthread_create (&M.thread, NULL, helper_main, NULL) == 0)
        M.threaded = 1;
      else if (M.rank == 0 && settings[3] == 2)
        fprintf (stderr, "MPE: MPE_MONITOR_THREAD needs "
                 "MPI_THREAD_MULTIPLE (the automatic wrappers ask for it "
                 "in MPI_Init); the wrapped MPI calls move the "
                 "monitor's requests instead\n");
    }
  return 1;
}

void
mpe__mon_want (const mpe_mon_want_t *w, double hz)
{
  if (w)
    M.want = *w;
  if (hz > 0)
    {
      /* A new grid from now: the periods of the old one are counted. */
      uint64_t t = now_ns ();
      if (M.period_ns && t >= M.next_due)
        M.stats.skipped += (t - M.next_due) / M.period_ns + 1;
      M.periods_before = M.stats.sent + M.stats.skipped;
      M.period_ns = (uint64_t) (1e9 / hz);
      M.next_due = M.first_due = t + M.period_ns;
      M.stats.hz = hz;
    }
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Collective over world.  Drains the ring and stops. */
void
mpe__mon_stop (mpe_mon_stats_t *out)
{
  if (!atomic_load (&mpe__mon_active))
    {
      if (out)
        memset (out, 0, sizeof *out);
      return;
    }
  if (M.threaded)
    {
      atomic_store (&M.thread_stop, 1);
      pthread_join (M.thread, NULL);
      M.threaded = 0;
    }
  atomic_store (&mpe__mon_active, 0);
  while (atomic_flag_test_and_set (&M.busy))
    ;   /* a wrapper on another thread may be progressing */
  if (M.size > 1 && M.shape == MPE_MON_SHAPE_TREE)
    {
      /* The STOP goes down behind the last request and comes back up
         from each subtree once it answered everything. */
      if (M.rank == M.manager)
        tree_stop_down ();
      while (!M.stop_passed && handle_one (1) > 0)
        ;
      reap_sends (1);
      for (int i = 0; i < M.npend; i++)
        free (M.pend[i].q);   /* only after an error: answers lost */
    }
  else if (M.size > 1)
    {
      if (M.rank == M.manager)
        {
          size_t len;
          mpe_mon_req_t *q = new_request (MPE_MON_OP_STOP, 0, &len);
          if (q)
            send_next (q, len);
          /* Everything issued before the STOP comes back before it. */
          int op;
          while ((op = handle_one (1)) > 0 && op != MPE_MON_OP_STOP)
            ;
        }
      else
        while (!M.stop_passed && handle_one (1) > 0)
          ;
      reap_sends (1);
    }
  M.stats.lost = M.stats.sent - M.stats.returned;
  if (M.rank == M.manager && M.period_ns)
    {
      /* The periods that came due since the last tick had no request. */
      uint64_t t = now_ns ();
      if (t >= M.next_due)
        M.stats.skipped += (t - M.next_due) / M.period_ns + 1;
      M.stats.periods = M.periods_before
                        + (t >= M.first_due
                           ? (t - M.first_due) / M.period_ns + 1 : 0);
    }
  if (M.nrtt)
    {
      qsort (M.rtt, M.nrtt, sizeof *M.rtt, cmp_double);
      M.stats.rtt_min = M.rtt[0];
      M.stats.rtt_median = M.rtt[M.nrtt / 2];
      M.stats.rtt_max = M.rtt[M.nrtt - 1];
    }
  if (M.rank == M.manager)
    mpe__mon_live_close (&M.stats);
  /* Every rank gets the manager's accounting: rank 0 writes it into the
     log (mpe-merge.c). */
  PMPI_Bcast (&M.stats, (int) sizeof M.stats, MPI_BYTE, M.manager, M.comm);
  describe_kinds ();
  if (out)
    *out = M.stats;
  atomic_flag_clear (&M.busy);
  PMPI_Comm_free (&M.comm);
  free (M.node_of);
  free (M.children);
  free (M.pend);
  free (M.sends);
  free (M.rtt);
  memset (&M, 0, sizeof M);
}

static mpe_mon_stats_t last_stats;

void
mpe__mon_finish (void)
{
  int was_on = atomic_load (&mpe__mon_active);
  int manager = M.rank == M.manager;
  memset (&last_stats, 0, sizeof last_stats);
  mpe__mon_stop (&last_stats);
  if (was_on && manager && mpe__env_bool ("MPE_MONITOR_REPORT", 0))
    {
      char shape[40] = "ring";
      if (last_stats.tree_fanout)
        snprintf (shape, sizeof shape, "tree of fan-out %d",
                  last_stats.tree_fanout);
      fprintf (stderr, "MPE monitor: %.3g Hz, %s, %llu requests sent, "
               "%llu returned, %llu late, %llu skipped, %llu periods, "
               "round trip min %.3g median %.3g max %.3g s\n",
               last_stats.hz, shape,
               (unsigned long long) last_stats.sent,
               (unsigned long long) last_stats.returned,
               (unsigned long long) last_stats.late,
               (unsigned long long) last_stats.skipped,
               (unsigned long long) last_stats.periods, last_stats.rtt_min,
               last_stats.rtt_median, last_stats.rtt_max);
    }
}

size_t
mpe__mon_consts (logfmt_const_def_t *out, size_t cap)
{
  const mpe_mon_stats_t *st = &last_stats;
  if (st->hz <= 0 || cap < 9)
    return 0;
  const logfmt_const_def_t c[9] = {
    { "monitor.hz_milli", (int64_t) (st->hz * 1000.0 + 0.5) },
    { "monitor.requests_sent", (int64_t) st->sent },
    { "monitor.requests_returned", (int64_t) st->returned },
    { "monitor.requests_late", (int64_t) st->late },
    { "monitor.requests_skipped", (int64_t) st->skipped },
    { "monitor.rtt_min_ns", (int64_t) (st->rtt_min * 1e9 + 0.5) },
    { "monitor.rtt_median_ns", (int64_t) (st->rtt_median * 1e9 + 0.5) },
    { "monitor.rtt_max_ns", (int64_t) (st->rtt_max * 1e9 + 0.5) },
    { "monitor.tree_fanout", st->tree_fanout },
  };
  memcpy (out, c, sizeof c);
  return 9;
}

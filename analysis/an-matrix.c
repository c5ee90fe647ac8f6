/* SPDX-License-Identifier: BSD-3-Clause */
/* The communication matrix: point-to-point messages from the message
 * table, collectives from the state instances' END cargo.  Cells are
 * kept sparse (a 10,000-rank world has 10^8 cells, few of them used). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "an-internal.h"

void
an_matrix_opts_init (an_matrix_opts_t *o)
{
  memset (o, 0, sizeof *o);
  o->t1 = UINT64_MAX;
  o->collectives = 1;
}

/* ------------------------------------------------------------------ */
/* Point-to-point cells: open addressing on (from, to)                 */
/* ------------------------------------------------------------------ */

typedef struct
{
  an_cell_t *v;   /* count == 0: free */
  size_t cap, n;
} cellmap_t;

static size_t
cell_hash (int32_t from, int32_t to, size_t cap)
{
  uint64_t k = ((uint64_t) (uint32_t) from << 32) | (uint32_t) to;
  k *= 0x9E3779B97F4A7C15ull;
  return (size_t) (k >> 20) & (cap - 1);
}

static an_cell_t *
cellmap_get (cellmap_t *m, int32_t from, int32_t to)
{
  if ((m->n + 1) * 2 > m->cap)
    {
      size_t nc = m->cap ? m->cap * 2 : 1024;
      an_cell_t *nv = calloc (nc, sizeof *nv);
      if (nv == NULL)
        return NULL;
      for (size_t i = 0; i < m->cap; i++)
        if (m->v[i].count)
          {
            size_t j = cell_hash (m->v[i].from, m->v[i].to, nc);
            while (nv[j].count)
              j = (j + 1) & (nc - 1);
            nv[j] = m->v[i];
          }
      free (m->v);
      m->v = nv;
      m->cap = nc;
    }
  size_t j = cell_hash (from, to, m->cap);
  while (m->v[j].count && (m->v[j].from != from || m->v[j].to != to))
    j = (j + 1) & (m->cap - 1);
  if (m->v[j].count == 0)
    {
      m->v[j].from = from;
      m->v[j].to = to;
      m->n++;
    }
  return &m->v[j];
}

static int
cmp_cell (const void *a, const void *b)
{
  const an_cell_t *x = a, *y = b;
  if (x->from != y->from)
    return (x->from > y->from) - (x->from < y->from);
  return (x->to > y->to) - (x->to < y->to);
}

int
an_matrix_selects (const an_matrix_opts_t *o, const logfmt_message_t *msg)
{
  uint64_t t = msg->send_stream != LOGFMT_NO_STREAM ? msg->send_time
                                                    : msg->recv_time;
  return t >= o->t0 && t <= o->t1 && (!o->by_comm || msg->comm == o->comm);
}

static int
read_messages (const logfmt_reader_t *r, const an_matrix_opts_t *o,
               an_matrix_t *m, logfmt_error_t *err)
{
  logfmt_msg_iter_t *it = NULL;
  logfmt_message_t msg;
  cellmap_t map = { 0 };
  int rc = logfmt_msg_iter_new (r, o->t0, o->t1, &it);

  if (rc < 0)
    {
      an__error (err, rc, "message table");
      return rc;
    }
  while ((rc = logfmt_msg_iter_next (it, &msg)) == 1)
    {
      int has_send = msg.send_stream != LOGFMT_NO_STREAM;
      int has_recv = msg.recv_stream != LOGFMT_NO_STREAM;
      if (!an_matrix_selects (o, &msg))
        continue;
      if (msg.send_rank < 0 || msg.recv_rank < 0
          || (uint32_t) msg.send_rank >= m->nranks
          || (uint32_t) msg.recv_rank >= m->nranks)
        {
          m->outside++;
          continue;
        }
      an_cell_t *c = cellmap_get (&map, msg.send_rank, msg.recv_rank);
      if (c == NULL)
        {
          rc = LOGFMT_ENOMEM;
          break;
        }
      c->count++;
      c->bytes += msg.size;
      if (has_send && has_recv && msg.recv_time > msg.send_time)
        c->time_ns += msg.recv_time - msg.send_time;
      m->messages++;
      m->bytes += msg.size;
      m->unmatched_sends += has_send && !has_recv;
      m->unmatched_recvs += has_recv && !has_send;
    }
  if (rc < 0)
    {
      const logfmt_error_t *e = logfmt_msg_iter_error (it);
      if (err && e && e->code)
        *err = *e;
      else
        an__error (err, rc, "message table");
    }
  logfmt_msg_iter_free (it);
  if (rc < 0)
    {
      free (map.v);
      return rc;
    }
  /* Compact in place and sort. */
  size_t n = 0;
  for (size_t i = 0; i < map.cap; i++)
    if (map.v[i].count)
      map.v[n++] = map.v[i];
  if (n)
    qsort (map.v, n, sizeof *map.v, cmp_cell);
  m->cells = map.v;
  m->ncells = n;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Collectives                                                         */
/* ------------------------------------------------------------------ */

typedef struct
{
  uint32_t comm;
  const logfmt_comm_def_t *def;
  int32_t state;
  uint64_t calls, sent, recv, time_ns;
} coll_acc_t;

typedef struct
{
  const logfmt_reader_t *r;
  const an_matrix_opts_t *o;
  const an_comm_map_t *map;
  const uint8_t *is_coll;        /* per state */
  logfmt_interval_iter_t *it;
  coll_acc_t *acc;
  size_t nacc, capacc;
  uint64_t no_cargo;
  logfmt_error_t err;
} coll_worker_t;

static coll_acc_t *
acc_get (coll_worker_t *w, uint32_t comm, const logfmt_comm_def_t *def,
         int32_t state)
{
  /* Few (communicator, function) pairs: a linear search is enough. */
  for (size_t i = 0; i < w->nacc; i++)
    if (w->acc[i].comm == comm && w->acc[i].state == state)
      return &w->acc[i];
  if (w->nacc == w->capacc)
    {
      size_t nc = w->capacc ? 2 * w->capacc : 16;
      coll_acc_t *na = realloc (w->acc, nc * sizeof *na);
      if (na == NULL)
        return NULL;
      w->acc = na;
      w->capacc = nc;
    }
  coll_acc_t *a = &w->acc[w->nacc++];
  memset (a, 0, sizeof *a);
  a->comm = comm;
  a->def = def;
  a->state = state;
  return a;
}

static int
coll_stream (void *arg, uint32_t stream)
{
  coll_worker_t *w = arg;
  const an_matrix_opts_t *o = w->o;
  logfmt_interval_t iv;
  int rc;

  if (w->it == NULL)
    rc = logfmt_interval_iter_new (w->r, stream, o->t0, o->t1, &w->it);
  else
    rc = logfmt_interval_iter_reset (w->it, stream, o->t0, o->t1);
  if (rc < 0)
    {
      an__error (&w->err, rc, "state instances");
      return rc;
    }
  while ((rc = logfmt_interval_iter_next (w->it, &iv)) == 1)
    {
      if (!w->is_coll[iv.state] || (iv.flags & LOGFMT_IV_OPEN)
          || iv.start < o->t0 || iv.start > o->t1)
        continue;
      if (!(iv.flags & LOGFMT_IV_END_CARGO))
        {
          w->no_cargo++;
          continue;
        }
      an_coll_cargo_t c;
      an_coll_cargo_decode (iv.end_cargo, &c);
      const logfmt_comm_def_t *def = an_comm_map_find (w->map, c.label);
      uint32_t id = def ? def->id : c.label;
      if (o->by_comm && id != o->comm)
        continue;
      coll_acc_t *a = acc_get (w, id, def, iv.state);
      if (a == NULL)
        return LOGFMT_ENOMEM;
      a->calls++;
      a->sent += c.sent;
      a->recv += c.recv;
      a->time_ns += iv.inclusive;
    }
  if (rc < 0)
    {
      const logfmt_error_t *e = logfmt_interval_iter_error (w->it);
      if (e && e->code && w->err.code == 0)
        w->err = *e;
      an__error (&w->err, rc, "state instances");
    }
  return rc;
}

static int
cmp_acc (const void *a, const void *b)
{
  const coll_acc_t *x = a, *y = b;
  if (x->comm != y->comm)
    return (x->comm > y->comm) - (x->comm < y->comm);
  return (x->state > y->state) - (x->state < y->state);
}

static int
cmp_func_name (const void *a, const void *b)
{
  return strcmp (((const an_coll_func_t *) a)->name,
                 ((const an_coll_func_t *) b)->name);
}

/* Merges the workers' tallies into m->comms. */
static int
coll_merge (const logfmt_reader_t *r, an_matrix_t *m, coll_worker_t *w,
            unsigned nw)
{
  coll_worker_t all = { 0 };
  for (unsigned i = 0; i < nw; i++)
    {
      m->coll_no_cargo += w[i].no_cargo;
      for (size_t k = 0; k < w[i].nacc; k++)
        {
          const coll_acc_t *s = &w[i].acc[k];
          coll_acc_t *a = acc_get (&all, s->comm, s->def, s->state);
          if (a == NULL)
            {
              free (all.acc);
              return LOGFMT_ENOMEM;
            }
          a->calls += s->calls;
          a->sent += s->sent;
          a->recv += s->recv;
          a->time_ns += s->time_ns;
        }
    }
  if (all.nacc)
    qsort (all.acc, all.nacc, sizeof *all.acc, cmp_acc);
  size_t ncomms = 0;
  for (size_t k = 0; k < all.nacc; k++)
    ncomms += k == 0 || all.acc[k].comm != all.acc[k - 1].comm;
  m->comms = calloc (ncomms ? ncomms : 1, sizeof *m->comms);
  if (m->comms == NULL)
    {
      free (all.acc);
      return LOGFMT_ENOMEM;
    }
  for (size_t k = 0; k < all.nacc;)
    {
      size_t e = k;
      while (e < all.nacc && all.acc[e].comm == all.acc[k].comm)
        e++;
      an_coll_comm_t *c = &m->comms[m->ncomms++];
      c->id = all.acc[k].comm;
      c->def = all.acc[k].def;
      c->funcs = calloc (e - k, sizeof *c->funcs);
      if (c->funcs == NULL)
        {
          free (all.acc);
          return LOGFMT_ENOMEM;
        }
      for (size_t j = k; j < e; j++)
        {
          an_coll_func_t *f = &c->funcs[c->nfuncs++];
          f->state = all.acc[j].state;
          f->name = logfmt_reader_state (r, (size_t) f->state)->name;
          f->calls = all.acc[j].calls;
          f->bytes_sent = all.acc[j].sent;
          f->bytes_recv = all.acc[j].recv;
          f->time_ns = all.acc[j].time_ns;
          c->calls += f->calls;
          c->bytes_sent += f->bytes_sent;
          c->bytes_recv += f->bytes_recv;
          c->time_ns += f->time_ns;
        }
      if (c->nfuncs)
        qsort (c->funcs, c->nfuncs, sizeof *c->funcs, cmp_func_name);
      k = e;
    }
  free (all.acc);
  return 0;
}

static int
read_collectives (const logfmt_reader_t *r, const an_matrix_opts_t *o,
                  an_matrix_t *m, logfmt_error_t *err)
{
  size_t nstates = logfmt_reader_n_states (r);
  const logfmt_info_t *info = logfmt_reader_info (r);
  uint8_t *is_coll = calloc (nstates ? nstates : 1, 1);
  int any = 0, rc = 0;

  if (is_coll == NULL)
    return LOGFMT_ENOMEM;
  for (size_t s = 0; s < nstates; s++)
    any |= is_coll[s]
      = an_state_class (logfmt_reader_state (r, s)) == AN_STATE_COLL;
  if (!any)
    {
      /* No collective was logged with its cargo: nothing to read. */
      free (is_coll);
      m->comms = calloc (1, sizeof *m->comms);
      return m->comms ? 0 : LOGFMT_ENOMEM;
    }
  an_comm_map_t *map = NULL;
  uint32_t *streams = calloc (info->nstreams ? info->nstreams : 1,
                              sizeof *streams);
  unsigned nw = an__workers (o->threads, info->nstreams);
  coll_worker_t *w = calloc (nw, sizeof *w);
  void **wp = calloc (nw, sizeof *wp);
  if (streams == NULL || w == NULL || wp == NULL
      || (rc = an_comm_map_new (r, &map)) < 0)
    rc = rc < 0 ? rc : LOGFMT_ENOMEM;
  else
    {
      for (uint32_t s = 0; s < info->nstreams; s++)
        streams[s] = s;
      for (unsigned i = 0; i < nw; i++)
        {
          w[i] = (coll_worker_t) { .r = r, .o = o, .map = map,
                                   .is_coll = is_coll };
          wp[i] = &w[i];
        }
      rc = an__for_streams (streams, info->nstreams, wp, nw, coll_stream);
      for (unsigned i = 0; i < nw && rc < 0; i++)
        if (w[i].err.code && err && err->code == 0)
          *err = w[i].err;
      if (rc == 0)
        rc = coll_merge (r, m, w, nw);
    }
  if (rc < 0)
    an__error (err, rc, "collectives");
  for (unsigned i = 0; w && i < nw; i++)
    {
      logfmt_interval_iter_free (w[i].it);
      free (w[i].acc);
    }
  an_comm_map_free (map);
  free (w);
  free (wp);
  free (streams);
  free (is_coll);
  return rc;
}

/* ------------------------------------------------------------------ */

int
an_matrix_compute (const logfmt_reader_t *r, const an_matrix_opts_t *o,
                   an_matrix_t **out, logfmt_error_t *err)
{
  const logfmt_info_t *info = logfmt_reader_info (r);
  an_matrix_t *m = calloc (1, sizeof *m);
  int rc;

  *out = NULL;
  if (m == NULL)
    return LOGFMT_ENOMEM;
  /* The world: its stated size, or enough for every rank of a stream. */
  m->nranks = info->world_size;
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      if (sd && sd->rank >= 0 && (uint32_t) sd->rank >= m->nranks)
        m->nranks = (uint32_t) sd->rank + 1;
    }
  rc = read_messages (r, o, m, err);
  if (rc == 0 && o->collectives)
    rc = read_collectives (r, o, m, err);
  if (rc < 0)
    {
      an_matrix_free (m);
      return rc;
    }
  *out = m;
  return 0;
}

const an_cell_t *
an_matrix_cell (const an_matrix_t *m, int32_t from, int32_t to)
{
  an_cell_t key = { .from = from, .to = to };
  return bsearch (&key, m->cells, m->ncells, sizeof *m->cells, cmp_cell);
}

void
an_matrix_free (an_matrix_t *m)
{
  if (m == NULL)
    return;
  for (size_t i = 0; i < m->ncomms; i++)
    free (m->comms[i].funcs);
  free (m->comms);
  free (m->cells);
  free (m);
}

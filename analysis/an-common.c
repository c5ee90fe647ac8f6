/* SPDX-License-Identifier: BSD-3-Clause */
/* What a state is, the wrappers' collective cargo and communicator
 * labels, and the threads that read streams in parallel. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "an-internal.h"

/* The wrappers' collective END format (mpe/wrappers/wrap-internal.h). */
static const char coll_format[] = "comm=%x np=%d root=%d sent=%l recv=%l";

an_state_class_t
an_state_class (const logfmt_state_def_t *d)
{
  if (d == NULL || d->name == NULL || strncmp (d->name, "MPI_", 4) != 0)
    return AN_STATE_USER;
  if (d->format && strcmp (d->format, coll_format) == 0)
    return AN_STATE_COLL;
  return AN_STATE_MPI;
}

static uint64_t
get_be (const uint8_t *p, int n)
{
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v = (v << 8) | p[i];
  return v;
}

/* The wrappers' one-sided and MPI-IO END formats (wrap-internal.h). */
static const char rma_format[] = "target=%d sent=%l recv=%l";
static const char io_format[] = "bytes=%l";

int
an__state_data (const logfmt_state_def_t *d)
{
  if (d == NULL || d->name == NULL || d->format == NULL
      || strncmp (d->name, "MPI_", 4) != 0)
    return AN__DATA_NONE;
  if (strcmp (d->format, rma_format) == 0)
    return AN__DATA_RMA;
  if (strcmp (d->format, io_format) == 0)
    return strstr (d->name, "write") ? AN__DATA_IO_WRITE : AN__DATA_IO_READ;
  return AN__DATA_NONE;
}

void
an__data_cargo (int kind, const uint8_t *cargo, uint64_t *sent,
                uint64_t *recv)
{
  if (kind == AN__DATA_RMA)
    {
      *sent = get_be (cargo + 4, 8);
      *recv = get_be (cargo + 12, 8);
    }
  else if (kind == AN__DATA_IO_READ || kind == AN__DATA_IO_WRITE)
    {
      uint64_t b = get_be (cargo, 8);
      *sent = kind == AN__DATA_IO_WRITE ? b : 0;
      *recv = kind == AN__DATA_IO_READ ? b : 0;
    }
}

void
an_coll_cargo_decode (const uint8_t *cargo, an_coll_cargo_t *c)
{
  c->label = (uint32_t) get_be (cargo, 4);
  c->np = (int32_t) (uint32_t) get_be (cargo + 4, 4);
  c->root = (int32_t) (uint32_t) get_be (cargo + 8, 4);
  c->sent = get_be (cargo + 12, 8);
  c->recv = get_be (cargo + 20, 8);
}

/* ------------------------------------------------------------------ */
/* Communicator labels                                                 */
/* ------------------------------------------------------------------ */

/* The wrappers label a communicator by FNV-1a over the world ranks of
 * its group (an intercommunicator: then, after a multiply by 31, of its
 * remote group), bytes of each rank low first; MPI_COMM_WORLD is
 * ffffffff.  Definitions store the members (an intercommunicator's two
 * groups one after the other, the split not recorded), so the map
 * computes the label every member could have given. */
typedef struct
{
  uint32_t label;
  const logfmt_comm_def_t *def;
} label_t;

struct an_comm_map
{
  label_t *v;
  size_t n, cap;
  const logfmt_comm_def_t *world;
};

static uint32_t
fnv_ranks (uint32_t h, const int32_t *r, size_t n)
{
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < 4; b++)
      h = (h ^ (((uint32_t) r[i] >> (8 * b)) & 0xffu)) * 16777619u;
  return h;
}

static int
map_add (an_comm_map_t *m, uint32_t label, const logfmt_comm_def_t *d)
{
  if (m->n == m->cap)
    {
      size_t nc = m->cap ? 2 * m->cap : 16;
      label_t *nv = realloc (m->v, nc * sizeof *nv);
      if (nv == NULL)
        return LOGFMT_ENOMEM;
      m->v = nv;
      m->cap = nc;
    }
  m->v[m->n].label = label;
  m->v[m->n].def = d;
  m->n++;
  return 0;
}

static int
cmp_label (const void *a, const void *b)
{
  uint32_t x = ((const label_t *) a)->label;
  uint32_t y = ((const label_t *) b)->label;
  return (x > y) - (x < y);
}

/* Intercommunicators wider than this are not labelled (the split is
 * searched, quadratic in the size). */
#define INTER_MAX 4096

int
an_comm_map_new (const logfmt_reader_t *r, an_comm_map_t **out)
{
  an_comm_map_t *m = calloc (1, sizeof *m);
  const uint32_t basis = 2166136261u;
  int rc = 0;

  *out = NULL;
  if (m == NULL)
    return LOGFMT_ENOMEM;
  for (size_t i = 0; i < logfmt_reader_n_comms (r) && rc == 0; i++)
    {
      const logfmt_comm_def_t *d = logfmt_reader_comm (r, i);
      if (d->id == 0)
        {
          m->world = d;
          continue;
        }
      if (d->ranks == NULL || d->size == 0)
        continue;
      if (d->kind == 1)
        rc = map_add (m, fnv_ranks (basis, d->ranks, d->size), d);
      else if (d->size <= INTER_MAX)
        for (uint32_t k = 1; k < d->size && rc == 0; k++)
          {
            const int32_t *a = d->ranks, *b = d->ranks + k;
            uint32_t na = k, nb = d->size - k;
            rc = map_add (m, fnv_ranks (fnv_ranks (basis, a, na) * 31u,
                                        b, nb), d);
            if (rc == 0)
              rc = map_add (m, fnv_ranks (fnv_ranks (basis, b, nb) * 31u,
                                          a, na), d);
          }
    }
  if (rc < 0)
    {
      an_comm_map_free (m);
      return rc;
    }
  if (m->n)
    qsort (m->v, m->n, sizeof *m->v, cmp_label);
  *out = m;
  return 0;
}

const logfmt_comm_def_t *
an_comm_map_find (const an_comm_map_t *m, uint32_t label)
{
  if (label == 0xffffffffu)
    return m->world;
  label_t key = { .label = label };
  const label_t *hit = bsearch (&key, m->v, m->n, sizeof *m->v, cmp_label);
  return hit ? hit->def : NULL;
}

void
an_comm_map_free (an_comm_map_t *m)
{
  if (m == NULL)
    return;
  free (m->v);
  free (m);
}

/* ------------------------------------------------------------------ */
/* Streams in parallel                                                 */
/* ------------------------------------------------------------------ */

unsigned
an__workers (unsigned threads, uint32_t n)
{
  unsigned w = threads;
  if (w == 0)
    {
      long c = sysconf (_SC_NPROCESSORS_ONLN);
      w = c < 1 ? 1 : c > 8 ? 8 : (unsigned) c;
    }
  if (w > n)
    w = n;
  return w ? w : 1;
}

typedef struct
{
  const uint32_t *streams;
  uint32_t n;
  atomic_uint next;
  atomic_int err;
  an__stream_fn fn;
} pool_t;

typedef struct
{
  pool_t *pool;
  void *worker;
} slot_t;

static void *
pool_run (void *arg)
{
  slot_t *s = arg;
  pool_t *p = s->pool;
  for (;;)
    {
      if (atomic_load (&p->err) < 0)
        break;
      unsigned i = atomic_fetch_add (&p->next, 1);
      if (i >= p->n)
        break;
      int rc = p->fn (s->worker, p->streams[i]);
      if (rc < 0)
        {
          int zero = 0;
          atomic_compare_exchange_strong (&p->err, &zero, rc);
        }
    }
  return NULL;
}

int
an__for_streams (const uint32_t *streams, uint32_t n, void **workers,
                 unsigned nworkers, an__stream_fn fn)
{
  pool_t p = { .streams = streams, .n = n, .fn = fn };
  slot_t *slots = calloc (nworkers ? nworkers : 1, sizeof *slots);
  pthread_t *tid = calloc (nworkers ? nworkers : 1, sizeof *tid);
  unsigned started = 0;

  atomic_init (&p.next, 0);
  atomic_init (&p.err, 0);
  if (slots == NULL || tid == NULL)
    {
      free (slots);
      free (tid);
      return LOGFMT_ENOMEM;
    }
  for (unsigned i = 0; i < nworkers; i++)
    {
      slots[i].pool = &p;
      slots[i].worker = workers[i];
    }
  /* Worker 0 runs on the calling thread; a thread that cannot start
   * leaves its share to the others. */
  for (unsigned i = 1; i < nworkers; i++)
    if (pthread_create (&tid[started], NULL, pool_run, &slots[i]) == 0)
      started++;
  pool_run (&slots[0]);
  for (unsigned i = 0; i < started; i++)
    pthread_join (tid[i], NULL);
  free (slots);
  free (tid);
  return atomic_load (&p.err);
}

void
an__error (logfmt_error_t *err, int code, const char *what)
{
  if (err == NULL || err->code != 0)
    return;
  err->code = code;
  err->offset = UINT64_MAX;
  snprintf (err->message, sizeof err->message, "%s: %s", what,
            logfmt_strerror (code));
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Request and matched-message tracking, and the completion calls.
 *
 * Receives are logged when a wait/test call returns them complete, from
 * the status (wildcards resolved, PROC_NULL and cancelled ones dropped);
 * persistent sends are logged at MPI_Start*.  Nonblocking sends are logged
 * at the call and not tracked.  The table is split in 64 stripes, each an
 * open-addressed hash table behind its own spin lock, so threads rarely
 * meet; an atomic count lets completion calls skip it while it is empty.
 */
#include "config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mpe/wrappers/wrap-internal.h"

#define NSTRIPES 64
#define LOCAL_N  32

typedef struct
{
  uint64_t key;
  uint8_t  used;
  uint8_t  flags;
  int      partner, tag;
  uint64_t bytes;
  MPI_Comm comm;
} entry_t;

/* One cache line per stripe, so threads on different stripes never
 * share one. */
typedef struct
{
  _Alignas (64) atomic_flag lock;
  entry_t    *tab;
  size_t      cap, n;
} stripe_t;

typedef struct
{
  stripe_t       s[NSTRIPES];
  _Atomic size_t count;
} table_t;

static table_t reqs = { .s = { [0 ... NSTRIPES - 1] = { ATOMIC_FLAG_INIT } } };
static table_t msgs = { .s = { [0 ... NSTRIPES - 1] = { ATOMIC_FLAG_INIT } } };

#define KEY(h) key_of (&(h), sizeof (h))
static inline uint64_t
key_of (const void *h, size_t n)
{
  uint64_t k = 0;
  memcpy (&k, h, n < sizeof k ? n : sizeof k);
  return k;
}

static inline uint64_t
mix (uint64_t k)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return k;
}

static inline void
lock (stripe_t *s)
{
  while (atomic_flag_test_and_set_explicit (&s->lock, memory_order_acquire))
    sched_yield ();
}

static inline void
unlock (stripe_t *s)
{
  atomic_flag_clear_explicit (&s->lock, memory_order_release);
}

static stripe_t *
stripe_of (table_t *t, uint64_t key, uint64_t *h)
{
  *h = mix (key);
  return &t->s[*h % NSTRIPES];
}

/* Slot of key or of the empty slot where it would go; needs cap > 0. */
static size_t
find (stripe_t *s, uint64_t h, uint64_t key)
{
  size_t mask = s->cap - 1, i = (h / NSTRIPES) & mask;
  while (s->tab[i].used && s->tab[i].key != key)
    i = (i + 1) & mask;
  return i;
}

static int
grow (stripe_t *s)
{
  size_t ncap = s->cap ? 2 * s->cap : 16;
  entry_t *old = s->tab, *nt = calloc (ncap, sizeof *nt);
  size_t ocap = s->cap;
  if (nt == NULL)
    return -1;
  s->tab = nt;
  s->cap = ncap;
  for (size_t i = 0; i < ocap; i++)
    if (old[i].used)
      s->tab[find (s, mix (old[i].key), old[i].key)] = old[i];
  free (old);
  return 0;
}

static void
put (table_t *t, uint64_t key, const entry_t *e)
{
  uint64_t h;
  stripe_t *s = stripe_of (t, key, &h);
  lock (s);
  if ((s->n + 1) * 4 > s->cap * 3 && grow (s) < 0)
    {
      unlock (s);
      return;  /* out of memory: this request is simply not drawn */
    }
  size_t i = find (s, h, key);
  if (!s->tab[i].used)
    {
      s->n++;
      atomic_fetch_add_explicit (&t->count, 1, memory_order_relaxed);
    }
  s->tab[i] = *e;
  s->tab[i].key = key;
  s->tab[i].used = 1;
  unlock (s);
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void
erase_at (table_t *t, stripe_t *s, size_t i)
{
  size_t mask = s->cap - 1, j = i;
  s->tab[i].used = 0;
  for (;;)
    {
      j = (j + 1) & mask;
      if (!s->tab[j].used)
        break;
      size_t home = (mix (s->tab[j].key) / NSTRIPES) & mask;
      if (((j - home) & mask) >= ((j - i) & mask))
        {
          s->tab[i] = s->tab[j];
          s->tab[j].used = 0;
          i = j;
        }
    }
  s->n--;
  atomic_fetch_sub_explicit (&t->count, 1, memory_order_relaxed);
}

/* Looks key up; on a hit copies the entry to *out, then applies `op`:
 * 0 keep, 1 erase, 2 erase unless persistent (else clear ACTIVE),
 * 3 set `bits`, 4 set ACTIVE (+LOGGED if bits). */
static int
update (table_t *t, uint64_t key, int op, unsigned bits, entry_t *out)
{
  uint64_t h;
  int hit = 0;
  if (atomic_load_explicit (&t->count, memory_order_relaxed) == 0)
    return 0;
  stripe_t *s = stripe_of (t, key, &h);
  lock (s);
  if (s->cap)
    {
      size_t i = find (s, h, key);
      if (s->tab[i].used)
        {
          entry_t *e = &s->tab[i];
          hit = 1;
          if (out)
            *out = *e;
          switch (op)
            {
            case 1:
              erase_at (t, s, i);
              break;
            case 2:
              if (e->flags & MPE__REQ_PERSIST)
                e->flags &= ~(MPE__REQ_ACTIVE | MPE__REQ_CANCELLED);
              else
                erase_at (t, s, i);
              break;
            case 3:
              e->flags |= bits;
              break;
            case 4:
              e->flags = (e->flags & ~(MPE__REQ_LOGGED | MPE__REQ_CANCELLED))
                         | MPE__REQ_ACTIVE | (bits ? MPE__REQ_LOGGED : 0);
              break;
            }
        }
    }
  unlock (s);
  return hit;
}

static int
pending (void)
{
  return atomic_load_explicit (&reqs.count, memory_order_relaxed) != 0;
}

void
mpe__req_add (MPI_Request r, unsigned flags, MPI_Comm comm, int partner,
              int tag, uint64_t bytes)
{
  entry_t e = { 0 };
  if (r == MPI_REQUEST_NULL)
    return;
  e.flags = (uint8_t) (flags | ((flags & MPE__REQ_PERSIST)
                                ? 0 : MPE__REQ_ACTIVE | MPE__REQ_LOGGED));
  e.comm = comm;
  e.partner = partner;
  e.tag = tag;
  e.bytes = bytes;
  put (&reqs, KEY (r), &e);
}

void
mpe__msg_add (MPI_Message m, MPI_Comm comm)
{
  entry_t e = { 0 };
  e.comm = comm;
  put (&msgs, KEY (m), &e);
}

MPI_Comm
mpe__msg_take (MPI_Message m)
{
  entry_t e;
  if (update (&msgs, KEY (m), 1, 0, &e))
    return e.comm;
  return MPI_COMM_NULL;
}

void
mpe__req_reset (void)
{
  table_t *ts[2] = { &reqs, &msgs };
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < NSTRIPES; i++)
      {
        stripe_t *s = &ts[k]->s[i];
        lock (s);
        free (s->tab);
        s->tab = NULL;
        s->cap = s->n = 0;
        unlock (s);
      }
  atomic_store (&reqs.count, 0);
  atomic_store (&msgs.count, 0);
}

static void
internal_state (int which, int begin)
{
  int st = which ? MPE__ST_IRECV_WAITED : MPE__ST_ISEND_WAITED;
  if (begin)
    {
      if (!atomic_load_explicit (&mpe__wrap_internal_used[which],
                                 memory_order_relaxed))
        mpe__wrap_first_internal (which);
      mpe__log_id (MPE_KNOWN_STATE_START (st));
    }
  else
    mpe__log_id (MPE_KNOWN_STATE_END (st));
}

/* Request r completed with status st; log its receive if it is one. */
static void
done (MPI_Request r, const MPI_Status *st, int log)
{
  entry_t e;
  if (r == MPI_REQUEST_NULL || !update (&reqs, KEY (r), 2, 0, &e))
    return;
  if (!(e.flags & MPE__REQ_RECV) || !(e.flags & MPE__REQ_ACTIVE)
      || !(e.flags & MPE__REQ_LOGGED) || !log)
    return;
  if (e.flags & MPE__REQ_CANCELLED)
    {
      int c = 0;
      PMPI_Test_cancelled (st, &c);
      if (c)
        return;
    }
  /* The receive and the state's end share one clock read. */
  internal_state (1, 1);
  if (st->MPI_SOURCE >= 0)
    mpe__log_recv_end (e.comm, st->MPI_SOURCE, st->MPI_TAG,
                       wrap_status_bytes (st),
                       MPE_KNOWN_STATE_END (MPE__ST_IRECV_WAITED));
  else
    internal_state (1, 0);
}

static void
started (MPI_Request r, int log)
{
  entry_t e;
  if (!update (&reqs, KEY (r), 0, 0, &e))
    return;
  if (log && (e.flags & MPE__REQ_SEND) && e.partner != MPI_PROC_NULL)
    {
      /* The state's begin and the send share one clock read. */
      if (!atomic_load_explicit (&mpe__wrap_internal_used[0],
                                 memory_order_relaxed))
        mpe__wrap_first_internal (0);
      mpe__log_begin_send (MPE_KNOWN_STATE_START (MPE__ST_ISEND_WAITED),
                           e.comm, e.partner, e.tag, e.bytes);
      internal_state (0, 0);
    }
}

int
mpe__wrap_start (int s, MPI_Request *r)
{
  int on = WRAP_ON (s), rc;
  MPI_Request h = *r;
  if (!on && !pending ())
    return PMPI_Start (r);
  if (on)
    wrap_begin (s, mpe__wrap_states[s].start_id);
  started (h, on);
  rc = PMPI_Start (r);
  if (rc == MPI_SUCCESS)
    update (&reqs, KEY (h), 4, on, NULL);
  if (on)
    wrap_end (mpe__wrap_states[s].end_id);
  return rc;
}

int
mpe__wrap_startall (int s, int n, MPI_Request r[])
{
  int on = WRAP_ON (s), rc;
  MPI_Request local[LOCAL_N], *h = local;
  if (!on && !pending ())
    return PMPI_Startall (n, r);
  if (n > LOCAL_N && (h = malloc (n * sizeof *h)) == NULL)
    return PMPI_Startall (n, r);
  memcpy (h, r, (n > 0 ? n : 0) * sizeof *h);
  if (on)
    wrap_begin (s, mpe__wrap_states[s].start_id);
  for (int i = 0; i < n; i++)
    started (h[i], on);
  rc = PMPI_Startall (n, r);
  if (rc == MPI_SUCCESS)
    for (int i = 0; i < n; i++)
      update (&reqs, KEY (h[i]), 4, on, NULL);
  if (on)
    wrap_end (mpe__wrap_states[s].end_id);
  if (h != local)
    free (h);
  return rc;
}

/* The shape shared by all completion calls: copy the handles (MPI nulls
 * completed ones), supply statuses if ignored, call, then report each
 * completed request.  `which` picks the MPI call. */
enum { W_WAIT, W_WAITALL, W_WAITANY, W_WAITSOME, W_TEST, W_TESTALL,
       W_TESTANY, W_TESTSOME };

static int
complete (int which, int s, int n, MPI_Request *r, int *idx, int *flag,
          int *indices, MPI_Status *st)
{
  int on = WRAP_ON (s), rc, multi;
  MPI_Request hl[LOCAL_N], *h = hl;
  MPI_Status sl[LOCAL_N], *stv = st;
  int fl, *ind = indices;

  multi = which == W_WAITALL || which == W_TESTALL
          || which == W_WAITSOME || which == W_TESTSOME;
  if (n < 0)
    n = 0;
  if (pending ())
    {
      if (n > LOCAL_N)
        h = malloc (n * sizeof *h);
      if (multi && st == MPI_STATUSES_IGNORE)
        stv = n > LOCAL_N ? malloc (n * sizeof *stv) : sl;
      else if (!multi && st == MPI_STATUS_IGNORE)
        stv = sl;
      if (h == NULL || stv == NULL)
        {
          /* Out of memory: complete without drawing the receives. */
          if (h != hl)
            free (h);
          if (stv != st && stv != sl)
            free (stv);
          h = NULL;
        }
    }
  else
    h = NULL;
  if (h == NULL)
    {
      /* Nothing tracked: only the state, no copies. */
      if (on)
        wrap_begin (s, mpe__wrap_states[s].start_id);
      switch (which)
        {
        case W_WAIT: rc = PMPI_Wait (r, st); break;
        case W_WAITALL: rc = PMPI_Waitall (n, r, st); break;
        case W_WAITANY: rc = PMPI_Waitany (n, r, idx, st); break;
        case W_WAITSOME: rc = PMPI_Waitsome (n, r, idx, indices, st); break;
        case W_TEST: rc = PMPI_Test (r, flag, st); break;
        case W_TESTALL: rc = PMPI_Testall (n, r, flag, st); break;
        case W_TESTANY: rc = PMPI_Testany (n, r, idx, flag, st); break;
        default: rc = PMPI_Testsome (n, r, idx, indices, st); break;
        }
      if (on)
        wrap_end (mpe__wrap_states[s].end_id);
      return rc;
    }
  memcpy (h, r, n * sizeof *h);

  if (on)
    wrap_begin (s, mpe__wrap_states[s].start_id);
  switch (which)
    {
    case W_WAIT: rc = PMPI_Wait (r, stv); break;
    case W_WAITALL: rc = PMPI_Waitall (n, r, stv); break;
    case W_WAITANY: rc = PMPI_Waitany (n, r, idx, stv); break;
    case W_WAITSOME: rc = PMPI_Waitsome (n, r, idx, ind, stv); break;
    case W_TEST: rc = PMPI_Test (r, flag, stv); break;
    case W_TESTALL: rc = PMPI_Testall (n, r, flag, stv); break;
    case W_TESTANY: rc = PMPI_Testany (n, r, idx, flag, stv); break;
    default: rc = PMPI_Testsome (n, r, idx, ind, stv); break;
    }
  fl = flag ? *flag : 1;
  switch (which)
    {
    case W_WAIT:
    case W_TEST:
      if (rc == MPI_SUCCESS && fl)
        done (h[0], stv, on);
      break;
    case W_WAITANY:
    case W_TESTANY:
      if (rc == MPI_SUCCESS && fl && *idx != MPI_UNDEFINED
          && *idx >= 0 && *idx < n)
        done (h[*idx], stv, on);
      break;
    case W_WAITALL:
    case W_TESTALL:
      if ((rc == MPI_SUCCESS && fl) || rc == MPI_ERR_IN_STATUS)
        for (int i = 0; i < n; i++)
          if (rc == MPI_SUCCESS || stv[i].MPI_ERROR == MPI_SUCCESS)
            done (h[i], &stv[i], on);
      break;
    default:
      if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)
          && *idx != MPI_UNDEFINED)
        for (int j = 0; j < *idx; j++)
          if ((rc == MPI_SUCCESS || stv[j].MPI_ERROR == MPI_SUCCESS)
              && ind[j] >= 0 && ind[j] < n)
            done (h[ind[j]], &stv[j], on);
      break;
    }
  if (on)
    wrap_end (mpe__wrap_states[s].end_id);
  if (h != hl)
    free (h);
  if (stv != st && stv != sl)
    free (stv);
  return rc;
}

int
mpe__wrap_wait (int s, MPI_Request *r, MPI_Status *st)
{
  return complete (W_WAIT, s, 1, r, NULL, NULL, NULL, st);
}

int
mpe__wrap_waitall (int s, int n, MPI_Request r[], MPI_Status st[])
{
  return complete (W_WAITALL, s, n, r, NULL, NULL, NULL, st);
}

int
mpe__wrap_waitany (int s, int n, MPI_Request r[], int *index, MPI_Status *st)
{
  return complete (W_WAITANY, s, n, r, index, NULL, NULL, st);
}

int
mpe__wrap_waitsome (int s, int n, MPI_Request r[], int *outcount,
                    int indices[], MPI_Status st[])
{
  return complete (W_WAITSOME, s, n, r, outcount, NULL, indices, st);
}

int
mpe__wrap_test (int s, MPI_Request *r, int *flag, MPI_Status *st)
{
  return complete (W_TEST, s, 1, r, NULL, flag, NULL, st);
}

int
mpe__wrap_testall (int s, int n, MPI_Request r[], int *flag,
                   MPI_Status st[])
{
  return complete (W_TESTALL, s, n, r, NULL, flag, NULL, st);
}

int
mpe__wrap_testany (int s, int n, MPI_Request r[], int *index, int *flag,
                   MPI_Status *st)
{
  return complete (W_TESTANY, s, n, r, index, flag, NULL, st);
}

int
mpe__wrap_testsome (int s, int n, MPI_Request r[], int *outcount,
                    int indices[], MPI_Status st[])
{
  return complete (W_TESTSOME, s, n, r, outcount, NULL, indices, st);
}

int
mpe__wrap_reqfree (int s, MPI_Request *r)
{
  int on = WRAP_ON (s), rc;
  if (on)
    wrap_begin (s, mpe__wrap_states[s].start_id);
  if (*r != MPI_REQUEST_NULL)
    update (&reqs, KEY (*r), 1, 0, NULL);
  rc = PMPI_Request_free (r);
  if (on)
    wrap_end (mpe__wrap_states[s].end_id);
  return rc;
}

int
mpe__wrap_cancel (int s, MPI_Request *r)
{
  int on = WRAP_ON (s), rc;
  if (on)
    wrap_begin (s, mpe__wrap_states[s].start_id);
  if (*r != MPI_REQUEST_NULL)
    update (&reqs, KEY (*r), 3, MPE__REQ_CANCELLED, NULL);
  rc = PMPI_Cancel (r);
  if (on)
    wrap_end (mpe__wrap_states[s].end_id);
  return rc;
}

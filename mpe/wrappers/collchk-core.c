/* SPDX-License-Identifier: BSD-3-Clause */
/* libmpe_collchk: the checks behind the generated wrappers (see
   collchk-internal.h for the protocol). */
#include "config.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe/wrappers/collchk-internal.h"
#include "mpe_callstack.h"

/* Set while a checked call runs: MPI calls made from inside it (ROMIO's
   own collectives, our checks) are not checked again. */
static __thread int cc_nest;

/* ---- datatype signatures ------------------------------------------- */

/* Polynomial hash of the sequence of basic types, mod 2^64: the hash of
   A followed by B is H(A) * P^|B| + H(B), so counts and nesting compose. */
typedef struct { uint64_t h, n; } sig_t;
#define SIG_P UINT64_C (0x9e3779b97f4a7c15)

static uint64_t
pow_p (uint64_t n)
{
  uint64_t r = 1, b = SIG_P;
  for (; n; n >>= 1, b *= b)
    if (n & 1)
      r *= b;
  return r;
}

static sig_t
sig_cat (sig_t a, sig_t b)
{
  return (sig_t) { a.h * pow_p (b.n) + b.h, a.n + b.n };
}

static sig_t
sig_rep (sig_t a, uint64_t k)
{
  sig_t r = { 0, 0 };
  for (; k; k >>= 1, a = sig_cat (a, a))
    if (k & 1)
      r = sig_cat (r, a);
  return r;
}

static uint64_t
mix64 (uint64_t x)
{
  x += UINT64_C (0x9e3779b97f4a7c15);
  x = (x ^ (x >> 30)) * UINT64_C (0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * UINT64_C (0x94d049bb133111eb);
  return x ^ (x >> 31);
}

static int type_kv = MPI_KEYVAL_INVALID, comm_kv = MPI_KEYVAL_INVALID;

static int
type_attr_delete (MPI_Datatype t, int kv, void *val, void *extra)
{
  (void) t; (void) kv; (void) extra;
  free (val);
  return MPI_SUCCESS;
}

static sig_t
type_sig (MPI_Datatype t, int depth)
{
  int ni, na, nd, comb;
  if (t == MPI_DATATYPE_NULL
      || PMPI_Type_get_envelope (t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
    return (sig_t) { 0, 0 };
  if (comb == MPI_COMBINER_NAMED || comb == MPI_COMBINER_F90_REAL
      || comb == MPI_COMBINER_F90_COMPLEX || comb == MPI_COMBINER_F90_INTEGER
      || nd < 1 || depth > 64)
    return (sig_t) { mix64 ((uint64_t) (uint32_t) PMPI_Type_c2f (t)), 1 };
  sig_t *cached;
  int found = 0;
  if (PMPI_Type_get_attr (t, type_kv, &cached, &found) == MPI_SUCCESS
      && found)
    return *cached;

  int *ints = malloc (sizeof (int) * (ni + 1));
  MPI_Aint *aints = malloc (sizeof (MPI_Aint) * (na + 1));
  MPI_Datatype *types = malloc (sizeof (MPI_Datatype) * (nd + 1));
  sig_t r = { 0, 0 };
  if (ints && aints && types
      && PMPI_Type_get_contents (t, ni, na, nd, ints, aints, types)
         == MPI_SUCCESS)
    {
      if (comb == MPI_COMBINER_STRUCT)
        for (int i = 0; i < ints[0] && i < nd; i++)
          r = sig_cat (r, sig_rep (type_sig (types[i], depth + 1),
                                   (uint64_t) ints[1 + i]));
      else if (comb == MPI_COMBINER_DUP || comb == MPI_COMBINER_RESIZED)
        r = type_sig (types[0], depth + 1);
      else
        {
          /* One old type repeated (contiguous, vector, indexed, subarray,
             darray...): the sizes say how often. */
          MPI_Count so = 0, st = 0;
          PMPI_Type_size_x (types[0], &so);
          PMPI_Type_size_x (t, &st);
          if (so > 0)
            r = sig_rep (type_sig (types[0], depth + 1), (uint64_t) (st / so));
        }
      for (int i = 0; i < nd; i++)
        {
          int i2, a2, d2, c2;
          if (PMPI_Type_get_envelope (types[i], &i2, &a2, &d2, &c2)
              == MPI_SUCCESS && c2 != MPI_COMBINER_NAMED)
            PMPI_Type_free (&types[i]);
        }
    }
  free (ints);
  free (aints);
  free (types);
  cached = malloc (sizeof *cached);
  if (cached)
    {
      *cached = r;
      if (PMPI_Type_set_attr (t, type_kv, cached) != MPI_SUCCESS)
        free (cached);
    }
  return r;
}

void
mpe__cc_side (mpe__cc_side_t *s, int64_t count, MPI_Datatype type)
{
  sig_t g = count > 0 ? sig_rep (type_sig (type, 0), (uint64_t) count)
                      : (sig_t) { 0, 0 };
  s->h = g.h;
  s->n = g.n;
  s->count = count;
  s->packed = type == MPI_PACKED;
  s->set = 1;
  int len = 0;
  s->type[0] = '\0';
  if (type == MPI_DATATYPE_NULL)
    snprintf (s->type, sizeof s->type, "MPI_DATATYPE_NULL");
  else
    {
      char name[MPI_MAX_OBJECT_NAME];
      if (PMPI_Type_get_name (type, name, &len) == MPI_SUCCESS && len > 0)
        snprintf (s->type, sizeof s->type, "%.39s", name);
      else
        snprintf (s->type, sizeof s->type, "a derived datatype");
    }
}

uint64_t
mpe__cc_hash_ints (const int *a, int n)
{
  uint64_t h = mix64 ((uint64_t) n);
  for (int i = 0; a && i < n; i++)
    h = h * SIG_P + mix64 ((uint64_t) (int64_t) a[i]);
  return h;
}

uint64_t
mpe__cc_hash_counts (const MPI_Count *a, int n)
{
  uint64_t h = mix64 ((uint64_t) n);
  for (int i = 0; a && i < n; i++)
    h = h * SIG_P + mix64 ((uint64_t) a[i]);
  return h;
}

uint64_t
mpe__cc_hash_str (const char *s)
{
  uint64_t h = UINT64_C (1469598103934665603);
  for (; s && *s; s++)
    h = (h ^ (unsigned char) *s) * UINT64_C (1099511628211);
  return h;
}

static void
vec_side (const mpe__cc_vec_t *v, int i, mpe__cc_side_t *out)
{
  int64_t n = v->big ? (int64_t) ((const MPI_Count *) v->counts)[i]
                     : ((const int *) v->counts)[i];
  mpe__cc_side (out, n, v->types ? v->types[i] : v->type);
}

/* ---- the private communicator per user communicator ----------------- */

typedef struct
{
  MPI_Comm dup;
  int      inter, np, me;
} comm_info_t;

static int
comm_attr_delete (MPI_Comm comm, int kv, void *val, void *extra)
{
  (void) comm; (void) kv; (void) extra;
  comm_info_t *ci = val;
  if (ci->dup != MPI_COMM_NULL)
    PMPI_Comm_free (&ci->dup);
  free (ci);
  return MPI_SUCCESS;
}

static pthread_once_t kv_once = PTHREAD_ONCE_INIT;

static void
make_keyvals (void)
{
  PMPI_Comm_create_keyval (MPI_COMM_NULL_COPY_FN, comm_attr_delete, &comm_kv,
                           NULL);
  PMPI_Type_create_keyval (MPI_TYPE_NULL_COPY_FN, type_attr_delete, &type_kv,
                           NULL);
}

/* Collective over comm the first time (every member is then inside some
   checked call on it, so the duplicate is made everywhere). */
static comm_info_t *
comm_info (MPI_Comm comm)
{
  comm_info_t *ci;
  int found = 0;
  if (PMPI_Comm_get_attr (comm, comm_kv, &ci, &found) == MPI_SUCCESS
      && found)
    return ci;
  ci = calloc (1, sizeof *ci);
  if (!ci)
    return NULL;
  ci->dup = MPI_COMM_NULL;
  PMPI_Comm_test_inter (comm, &ci->inter);
  if (!ci->inter)
    {
      PMPI_Comm_dup (comm, &ci->dup);
      PMPI_Comm_set_errhandler (ci->dup, MPI_ERRORS_ARE_FATAL);
      PMPI_Comm_size (comm, &ci->np);
      PMPI_Comm_rank (comm, &ci->me);
    }
  PMPI_Comm_set_attr (comm, comm_kv, ci);
  return ci;
}

/* ---- files and windows --------------------------------------------- */

typedef struct
{
  uint64_t key;
  int      win;
  MPI_Comm comm;
} handle_t;

static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static handle_t *handles;
static size_t nhandles, handles_cap;

static uint64_t
key_of (const void *h, size_t size)
{
  uint64_t k = 0;
  memcpy (&k, h, size < sizeof k ? size : sizeof k);
  return k;
}

static void
track (uint64_t key, int win, MPI_Comm comm)
{
  MPI_Comm dup = MPI_COMM_NULL;
  int inter = 0;
  if (comm == MPI_COMM_NULL)
    return;
  PMPI_Comm_test_inter (comm, &inter);
  if (inter || PMPI_Comm_dup (comm, &dup) != MPI_SUCCESS)
    return;
  pthread_mutex_lock (&handles_lock);
  if (nhandles == handles_cap)
    {
      size_t cap = handles_cap ? handles_cap * 2 : 16;
      handle_t *n = realloc (handles, cap * sizeof *n);
      if (!n)
        {
          pthread_mutex_unlock (&handles_lock);
          PMPI_Comm_free (&dup);
          return;
        }
      handles = n;
      handles_cap = cap;
    }
  handles[nhandles++] = (handle_t) { key, win, dup };
  pthread_mutex_unlock (&handles_lock);
}

static void
untrack (uint64_t key, int win)
{
  MPI_Comm c = MPI_COMM_NULL;
  pthread_mutex_lock (&handles_lock);
  for (size_t i = 0; i < nhandles; i++)
    if (handles[i].key == key && handles[i].win == win)
      {
        c = handles[i].comm;
        handles[i] = handles[--nhandles];
        break;
      }
  pthread_mutex_unlock (&handles_lock);
  if (c != MPI_COMM_NULL)
    PMPI_Comm_free (&c);
}

static MPI_Comm
lookup (uint64_t key, int win)
{
  MPI_Comm c = MPI_COMM_NULL;
  pthread_mutex_lock (&handles_lock);
  for (size_t i = 0; i < nhandles; i++)
    if (handles[i].key == key && handles[i].win == win)
      c = handles[i].comm;
  pthread_mutex_unlock (&handles_lock);
  return c;
}

void
mpe__cc_track_file (MPI_File fh, MPI_Comm comm)
{
  track (key_of (&fh, sizeof fh), 0, comm);
}

void
mpe__cc_untrack_file (MPI_File fh)
{
  untrack (key_of (&fh, sizeof fh), 0);
}

MPI_Comm
mpe__cc_file_comm (MPI_File fh)
{
  return lookup (key_of (&fh, sizeof fh), 0);
}

void
mpe__cc_track_win (MPI_Win win, MPI_Comm comm)
{
  track (key_of (&win, sizeof win), 1, comm);
}

void
mpe__cc_untrack_win (MPI_Win win)
{
  untrack (key_of (&win, sizeof win), 1);
}

MPI_Comm
mpe__cc_win_comm (MPI_Win win)
{
  return lookup (key_of (&win, sizeof win), 1);
}

/* ---- entering and leaving a checked call ---------------------------- */

int
mpe__cc_enter (mpe__cc_call_t *c, MPI_Comm comm, int call)
{
  c->active = 0;
  c->nested = cc_nest;
  if (cc_nest)
    return 0;
  cc_nest = 1;
  int inited = 0, finalized = 0;
  PMPI_Initialized (&inited);
  if (inited)
    PMPI_Finalized (&finalized);
  if (!inited || finalized)
    {
      fprintf (stderr, "Collective Checking: %s --> %s\n",
               mpe__cc_names[call], inited ? "MPI_Finalize() has been called!"
                                           : "MPI_Init() has not been called!");
      return 0;
    }
  if (comm == MPI_COMM_NULL)
    return 0;
  pthread_once (&kv_once, make_keyvals);
  comm_info_t *ci = comm_info (comm);
  if (!ci || ci->inter || ci->dup == MPI_COMM_NULL)
    return 0;
  c->cc = ci->dup;
  c->np = ci->np;
  c->me = ci->me;
  memset (&c->rec, 0, sizeof c->rec);
  c->rec.call = call;
  c->rec.root = -1;
  c->rec.op = -1;
  c->rec.inplace = -1;
  c->rec.rootinplace = 0;
  c->sv.counts = c->rv.counts = NULL;
  c->active = 1;
  return 1;
}

void
mpe__cc_leave (mpe__cc_call_t *c)
{
  if (!c->nested)
    cc_nest = 0;
}

/* ---- reports -------------------------------------------------------- */

static int
frame_is_ours_or_mpi (void *addr)
{
  Dl_info self, info;
  if (!dladdr ((void *) mpe__cc_run, &self) || !dladdr (addr, &info))
    return 0;
  if (info.dli_fbase == self.dli_fbase)
    return 1;
  const char *base = info.dli_fname ? strrchr (info.dli_fname, '/') : NULL;
  base = base ? base + 1 : info.dli_fname;
  return base && strncmp (base, "libmpi", 6) == 0;
}

/* The call stack from the user's call on: frames of this library and of
   the MPI libraries (Fortran bindings) are dropped from the top. */
static void
print_stack (const char *name, int me)
{
  MPE_CallStack_t cs;
  MPE_CallStack_init (&cs);
  int skip = 0;
  while (skip < cs.depth - 1 && frame_is_ours_or_mpi (cs.buffer[skip]))
    skip++;
  memmove (cs.buffer, cs.buffer + skip, (cs.depth - skip) * sizeof (void *));
  cs.depth -= skip;
  char prefix[64];
  snprintf (prefix, sizeof prefix, "[%d]   ", me);
  MPE_CallStack_iteratorInit (&cs);
  const char *site = MPE_CallStack_iteratorFetchNext (&cs);
  fprintf (stderr, "Collective Checking: %s (Rank %d) --> called at %s\n",
           name, me, site ? site : "?");
  fprintf (stderr, "[%d] Backtrace of the call:\n", me);
  fflush (stderr);
  MPE_CallStack_fancyprint (&cs, 2, prefix, 1, MPE_CALLSTACK_UNLIMITED);
}

/* Every rank calls this with its own verdict (msg NULL: another rank
   found the problem); nobody returns. */
static void
fail (mpe__cc_call_t *c, const char *msg)
{
  const char *name = mpe__cc_names[c->rec.call];
  if (msg)
    {
      fprintf (stderr, "Collective Checking: %s (Rank %d) --> %s\n", name,
               c->me, msg);
      print_stack (name, c->me);
    }
  else
    fprintf (stderr, "Collective Checking: %s (Rank %d) --> Error on "
             "another process\n", name, c->me);
  fflush (stderr);
  PMPI_Barrier (c->cc);
  PMPI_Abort (c->cc, 1);
  abort ();
}

static void
describe (const mpe__cc_side_t *s, char *buf, size_t n)
{
  snprintf (buf, n, "%" PRId64 " x %s (%" PRIu64 " basic element%s)",
            s->count, s->type, s->n, s->n == 1 ? "" : "s");
}

static int
sig_match (const mpe__cc_side_t *a, const mpe__cc_side_t *b)
{
  if (a->packed || b->packed)
    return 1;
  return a->h == b->h && a->n == b->n;
}

static const char *
op_name (int op, char *buf, size_t n)
{
  static const struct { MPI_Op op; const char *name; } ops[] = {
    { MPI_MAX, "MPI_MAX" }, { MPI_MIN, "MPI_MIN" }, { MPI_SUM, "MPI_SUM" },
    { MPI_PROD, "MPI_PROD" }, { MPI_LAND, "MPI_LAND" },
    { MPI_BAND, "MPI_BAND" }, { MPI_LOR, "MPI_LOR" }, { MPI_BOR, "MPI_BOR" },
    { MPI_LXOR, "MPI_LXOR" }, { MPI_BXOR, "MPI_BXOR" },
    { MPI_MINLOC, "MPI_MINLOC" }, { MPI_MAXLOC, "MPI_MAXLOC" },
    { MPI_REPLACE, "MPI_REPLACE" }, { MPI_NO_OP, "MPI_NO_OP" },
  };
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (PMPI_Op_c2f (ops[i].op) == op)
      return ops[i].name;
  snprintf (buf, n, "user operator %d", op);
  return buf;
}

/* What aux[0..1] and arr mean, by call (for the report). */
static void
aux_labels (const char *call, const char **a0, const char **a1,
            const char **arr)
{
  *a0 = "argument";
  *a1 = "argument";
  *arr = "array arguments";
  if (strstr (call, "Intercomm_create"))
    *a0 = "local_leader", *a1 = "tag";
  else if (strstr (call, "Cart_"))
    *a0 = "ndims", *arr = "dims or periods";
  else if (strstr (call, "Graph_"))
    *a0 = "nnodes", *arr = "index or edges";
  else if (strstr (call, "File_open"))
    *a0 = "amode", *arr = "filename";
  else if (strstr (call, "set_atomicity"))
    *a0 = "flag";
  else if (strstr (call, "seek_shared"))
    *a0 = "whence";
  else if (strstr (call, "Reduce_scatter"))
    *arr = "recvcounts";
}

/* The checks every rank can make alike from the gathered records;
   returns 1 when there is a problem (all ranks agree on it), with this
   rank's message in msg ("" when another rank is at fault). */
static int
check_records (mpe__cc_call_t *c, const mpe__cc_rec_t *all, int shape,
               char *msg, size_t n)
{
  const mpe__cc_rec_t *me = &all[c->me], *r0 = &all[0];
  char a[160], b[160];
  int bad = 0;
  msg[0] = '\0';

  for (int i = 0; i < c->np; i++)
    bad |= all[i].call != r0->call;
  if (bad)
    {
      if (me->call != r0->call)
        snprintf (msg, n, "inconsistent collective calls: this process "
                  "calls %s, rank 0 calls %s", mpe__cc_names[me->call],
                  mpe__cc_names[r0->call]);
      return 1;
    }
#define SAME(field, ...)                                                 \
  do {                                                                  \
    for (int i = 0; i < c->np; i++)                                     \
      bad |= all[i].field != r0->field;                                 \
    if (bad)                                                            \
      {                                                                 \
        if (me->field != r0->field)                                     \
          snprintf (msg, n, __VA_ARGS__);                               \
        return 1;                                                       \
      }                                                                 \
  } while (0)
  SAME (root, "inconsistent root: %d here, %d at rank 0", me->root,
        r0->root);
  char o1[32], o2[32];
  SAME (op, "inconsistent operator: %s here, %s at rank 0",
        op_name (me->op, o1, sizeof o1), op_name (r0->op, o2, sizeof o2));
  SAME (inplace, "inconsistent use of MPI_IN_PLACE: %s here, %s at rank 0 "
        "(all processes or none must pass it)",
        me->inplace ? "passed" : "not passed",
        r0->inplace ? "passed" : "not passed");
  const char *l0, *l1, *la;
  aux_labels (mpe__cc_names[me->call], &l0, &l1, &la);
  SAME (aux[0], "inconsistent %s: %d here, %d at rank 0", l0, me->aux[0],
        r0->aux[0]);
  SAME (aux[1], "inconsistent %s: %d here, %d at rank 0", l1, me->aux[1],
        r0->aux[1]);
  SAME (arr, "inconsistent %s: the values here differ from rank 0's", la);
  SAME (vec, "inconsistent recvcounts or recvtype: what this process "
        "expects from each rank differs from what rank 0 expects");
#undef SAME

  int root = me->root;
  if ((shape == MPE__CC_BCAST || shape == MPE__CC_GATHER
       || shape == MPE__CC_SCATTER) && (root < 0 || root >= c->np))
    return 0;  /* MPI itself rejects the root */
  switch (shape)
    {
    case MPE__CC_UNIFORM:
    case MPE__CC_BCAST:
      {
        int ref = shape == MPE__CC_BCAST ? root : 0;
        const char *who = shape == MPE__CC_BCAST ? "root" : "rank";
        for (int i = 0; i < c->np; i++)
          bad |= !sig_match (&all[i].s, &all[ref].s);
        if (bad && !sig_match (&me->s, &all[ref].s))
          {
            describe (&me->s, a, sizeof a);
            describe (&all[ref].s, b, sizeof b);
            snprintf (msg, n, "inconsistent datatype signature: %s here, "
                      "%s at %s %d", a, b, who, ref);
          }
        return bad;
      }
    case MPE__CC_GATHER:
    case MPE__CC_SCATTER:
      {
        /* Gather: each sends s, the root takes r from each.  Scatter:
           the root sends s to each, each takes r. */
        int g = shape == MPE__CC_GATHER;
        const mpe__cc_side_t *ref = g ? &all[root].r : &all[root].s;
        int mine = 0;
        for (int i = 0; i < c->np; i++)
          {
            if (i == root && all[root].rootinplace)
              continue;
            int m = sig_match (g ? &all[i].s : &all[i].r, ref);
            bad |= !m;
            if (i == c->me)
              mine = !m;
          }
        if (mine)
          {
            describe (g ? &me->s : &me->r, a, sizeof a);
            describe (ref, b, sizeof b);
            snprintf (msg, n, g ? "datatype signature mismatch: this process "
                      "sends %s, root %d receives %s from each process"
                      : "datatype signature mismatch: this process receives "
                      "%s, root %d sends %s to each process", a, root, b);
          }
        return bad;
      }
    case MPE__CC_ALLGATHER:
      {
        /* Everyone's contribution matches everyone's receive side. */
        for (int i = 0; i < c->np; i++)
          bad |= !sig_match (&all[i].r, &r0->r);
        if (bad)
          {
            if (!sig_match (&me->r, &r0->r))
              {
                describe (&me->r, a, sizeof a);
                describe (&r0->r, b, sizeof b);
                snprintf (msg, n, "inconsistent receive datatype signature: "
                          "%s here, %s at rank 0", a, b);
              }
            return 1;
          }
        for (int i = 0; i < c->np; i++)
          bad |= !sig_match (all[i].inplace == 1 ? &all[i].r : &all[i].s,
                             &r0->r);
        if (bad && me->inplace != 1 && !sig_match (&me->s, &r0->r))
          {
            describe (&me->s, a, sizeof a);
            describe (&r0->r, b, sizeof b);
            snprintf (msg, n, "datatype signature mismatch: this process "
                      "sends %s to each process, which receive %s", a, b);
          }
        return bad;
      }
    default:
      return 0;
    }
}

/* Per-peer signatures (v-collectives): exchanged, compared locally, the
   verdict agreed by an allreduce. */
static int
check_peers (mpe__cc_call_t *c, const mpe__cc_rec_t *all, int shape,
             char *msg, size_t n)
{
  int np = c->np, me = c->me, root = c->rec.root, bad = 0;
  size_t sz = sizeof (mpe__cc_side_t);
  mpe__cc_side_t got, want, *vec = NULL, *in = NULL;
  char a[160], b[160];
  msg[0] = '\0';

  switch (shape)
    {
    case MPE__CC_GATHERV:
    case MPE__CC_SCATTERV:
      {
        if (root < 0 || root >= np)
          return 0;
        int g = shape == MPE__CC_GATHERV;
        if (me == root)
          {
            vec = malloc (np * sz);
            if (!vec)
              return 0;
            for (int i = 0; i < np; i++)
              vec_side (g ? &c->rv : &c->sv, i, &vec[i]);
          }
        PMPI_Scatter (vec, (int) sz, MPI_BYTE, &want, (int) sz, MPI_BYTE,
                      root, c->cc);
        const mpe__cc_side_t *mine = g ? &c->rec.s : &c->rec.r;
        if (!(me == root && all[root].rootinplace)
            && !sig_match (mine, &want))
          {
            bad = 1;
            describe (mine, a, sizeof a);
            describe (&want, b, sizeof b);
            snprintf (msg, n, g ? "datatype signature mismatch: this process "
                      "sends %s, root %d receives %s from it (recvcounts[%d])"
                      : "datatype signature mismatch: this process receives "
                      "%s, root %d sends %s to it (sendcounts[%d])",
                      a, root, b, me);
          }
        break;
      }
    case MPE__CC_ALLGATHERV:
      if (c->rec.inplace != 1)
        {
          vec_side (&c->rv, me, &want);
          if (!sig_match (&c->rec.s, &want))
            {
              bad = 1;
              describe (&c->rec.s, a, sizeof a);
              describe (&want, b, sizeof b);
              snprintf (msg, n, "datatype signature mismatch: this process "
                        "sends %s, every process receives %s from it "
                        "(recvcounts[%d])", a, b, me);
            }
        }
      break;
    case MPE__CC_ALLTOALLV:
      {
        if (c->rec.inplace == 1)
          return 0;
        vec = malloc (np * sz);
        in = malloc (np * sz);
        if (!vec || !in)
          {
            free (vec);
            free (in);
            return 0;
          }
        for (int i = 0; i < np; i++)
          vec_side (&c->sv, i, &vec[i]);
        PMPI_Alltoall (vec, (int) sz, MPI_BYTE, in, (int) sz, MPI_BYTE,
                       c->cc);
        for (int i = 0; i < np && !bad; i++)
          {
            vec_side (&c->rv, i, &want);
            got = in[i];
            if (!sig_match (&got, &want))
              {
                bad = 1;
                describe (&want, a, sizeof a);
                describe (&got, b, sizeof b);
                snprintf (msg, n, "datatype signature mismatch: this process "
                          "receives %s from rank %d, which sends %s to it",
                          a, i, b);
              }
          }
        break;
      }
    default:
      return 0;
    }
  free (vec);
  free (in);
  int any = 0;
  PMPI_Allreduce (&bad, &any, 1, MPI_INT, MPI_MAX, c->cc);
  (void) all;
  return any;
}

void
mpe__cc_run (mpe__cc_call_t *c, int shape)
{
  if (!c->active)
    return;
  /* Vectors become per-rank values the records can carry. */
  if (shape == MPE__CC_ALLGATHERV)
    {
      uint64_t h = mix64 ((uint64_t) c->np);
      for (int i = 0; i < c->np; i++)
        {
          mpe__cc_side_t s;
          vec_side (&c->rv, i, &s);
          h = h * SIG_P + mix64 (s.h ^ mix64 (s.n));
        }
      c->rec.vec = h;
    }
  if (c->rec.inplace == 1 && shape == MPE__CC_ALLGATHER)
    c->rec.s = c->rec.r;

  size_t sz = sizeof (mpe__cc_rec_t);
  mpe__cc_rec_t *all = malloc (sz * c->np);
  if (!all)
    return;
  PMPI_Allgather (&c->rec, (int) sz, MPI_BYTE, all, (int) sz, MPI_BYTE,
                  c->cc);
  char msg[512];
  if (check_records (c, all, shape, msg, sizeof msg)
      || check_peers (c, all, shape, msg, sizeof msg))
    fail (c, msg[0] ? msg : NULL);
  free (all);
}

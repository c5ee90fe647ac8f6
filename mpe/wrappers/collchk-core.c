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
#include <time.h>

#include "mpe/wrappers/collchk-internal.h"
#include "mpe_callstack.h"

/* Set while a checked call runs: MPI calls made from inside it (ROMIO's
   own collectives, our checks) are not checked again. */
static __thread int cc_nest;

static int comm_kv = MPI_KEYVAL_INVALID;

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
  int      grp, lnp, lme, rnp;   /* intercommunicators */
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
  PMPI_Comm_size (comm, &ci->lnp);
  PMPI_Comm_rank (comm, &ci->lme);
  if (!ci->inter)
    {
      PMPI_Comm_dup (comm, &ci->dup);
      ci->np = ci->lnp;
      ci->me = ci->lme;
      ci->rnp = ci->lnp;
    }
  else
    {
      /* Both groups in one intracommunicator, so that every process
         sees every record; the group is told apart by where merged rank
         0 is (an allreduce over an intercommunicator gives the remote
         group's minimum). */
      int mine, remote_min = 0;
      PMPI_Comm_remote_size (comm, &ci->rnp);
      PMPI_Intercomm_merge (comm, 0, &ci->dup);
      PMPI_Comm_size (ci->dup, &ci->np);
      PMPI_Comm_rank (ci->dup, &ci->me);
      mine = ci->me;
      PMPI_Allreduce (&mine, &remote_min, 1, MPI_INT, MPI_MIN, comm);
      ci->grp = remote_min == 0;
    }
  PMPI_Comm_set_errhandler (ci->dup, MPI_ERRORS_ARE_FATAL);
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
  c->nb = NULL;
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
  if (!ci || ci->dup == MPI_COMM_NULL)
    return 0;
  c->cc = ci->dup;
  c->np = ci->np;
  c->me = ci->me;
  c->inter = ci->inter;
  c->lnp = ci->lnp;
  c->pnp = ci->rnp;
  memset (&c->rec, 0, sizeof c->rec);
  c->rec.grp = ci->grp;
  c->rec.lrank = ci->lme;
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
print_stack (const char *name, int me, MPE_CallStack_t cs)
{
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
      MPE_CallStack_t cs;
      MPE_CallStack_init (&cs);
      fprintf (stderr, "Collective Checking: %s (Rank %d) --> %s\n", name,
               c->me, msg);
      print_stack (name, c->me, cs);
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

/* An intercommunicator's records (both groups, cc is the merged
   communicator): the root is MPI_ROOT at one process of one group,
   MPI_PROC_NULL at the others of that group, and that process's local
   rank in the other group; what one group sends is what the other
   receives; operator and MPI_IN_PLACE (not allowed) over both groups,
   the other values within each group.  Per-peer counts of the
   v-collectives are not compared.  Returns 1 on a problem, this rank's
   message in msg ("" when another is at fault). */
static int
check_inter (mpe__cc_call_t *c, const mpe__cc_rec_t *all, int shape,
             char *msg, size_t n)
{
  const mpe__cc_rec_t *me = &all[c->me];
  char a[160], b[160];
  int bad = 0, np = c->np;
  msg[0] = '\0';
  for (int i = 0; i < np; i++)
    if (all[i].inplace == 1)
      {
        if (me->inplace == 1)
          snprintf (msg, n, "MPI_IN_PLACE passed on an intercommunicator, "
                    "where it is not allowed");
        return 1;
      }
  char o1[32], o2[32];
  for (int i = 0; i < np; i++)
    bad |= all[i].op != all[0].op;
  if (bad)
    {
      if (me->op != all[0].op)
        snprintf (msg, n, "inconsistent operator: %s here, %s at rank %d of "
                  "group %d", op_name (me->op, o1, sizeof o1),
                  op_name (all[0].op, o2, sizeof o2), all[0].lrank,
                  all[0].grp);
      return 1;
    }
  /* Within each group: the first member of the group is the reference. */
  for (int i = 0; i < np; i++)
    {
      const mpe__cc_rec_t *ref = NULL;
      for (int j = 0; j < np && !ref; j++)
        if (all[j].grp == all[i].grp)
          ref = &all[j];
      if (all[i].aux[0] != ref->aux[0] || all[i].aux[1] != ref->aux[1]
          || all[i].arr != ref->arr || all[i].vec != ref->vec)
        {
          if (i == c->me)
            snprintf (msg, n, "inconsistent arguments within the local "
                      "group: these differ from its rank %d's", ref->lrank);
          bad = 1;
        }
    }
  if (bad)
    return 1;

  int root = -1;   /* index of the MPI_ROOT process in all[] */
  if (me->hasroot)
    {
      int nroot = 0;
      for (int i = 0; i < np; i++)
        if (all[i].root == MPI_ROOT && nroot++ == 0)
          root = i;
      if (nroot != 1)
        {
          if (nroot == 0 || (me->root == MPI_ROOT && root != c->me))
            snprintf (msg, n, nroot == 0 ? "no process passes MPI_ROOT as "
                      "root (%d here)" : "more than one process passes "
                      "MPI_ROOT (this one, and rank %d of group %d)",
                      nroot == 0 ? me->root : all[root].lrank,
                      nroot == 0 ? 0 : all[root].grp);
          return 1;
        }
      const mpe__cc_rec_t *rt = &all[root];
      for (int i = 0; i < np; i++)
        {
          int want = all[i].grp == rt->grp
                     ? (i == root ? MPI_ROOT : MPI_PROC_NULL) : rt->lrank;
          if (all[i].root == want)
            continue;
          bad = 1;
          if (i == c->me && all[i].grp == rt->grp)
            snprintf (msg, n, "inconsistent root: %d here, but in the root's "
                      "group all other processes pass MPI_PROC_NULL (%d)",
                      me->root, MPI_PROC_NULL);
          else if (i == c->me)
            snprintf (msg, n, "inconsistent root: %d here, the root is rank "
                      "%d of the remote group (it passes MPI_ROOT)",
                      me->root, rt->lrank);
        }
      if (bad)
        return 1;
    }

  /* Signatures: the side one group sends against the other's. */
  for (int i = 0; i < np; i++)
    {
      const mpe__cc_rec_t *x = &all[i];
      const mpe__cc_side_t *mine = NULL, *ref = NULL;
      const char *how = "";
      if (root >= 0 && x->grp == all[root].grp)
        continue;   /* the root's group takes no part but the root */
      switch (shape)
        {
        case MPE__CC_BCAST:
        case MPE__CC_UNIFORM:
          if (root >= 0)
            mine = &x->s, ref = &all[root].s, how = "at the root";
          else
            mine = &x->s, ref = &all[0].s, how = "at rank 0 of group 0";
          if (root < 0 && all[0].grp != 0)
            for (int j = 0; j < np; j++)
              if (all[j].grp == 0 && all[j].lrank == 0)
                ref = &all[j].s;
          break;
        case MPE__CC_GATHER:
        case MPE__CC_GATHERV:
          mine = &x->s, ref = shape == MPE__CC_GATHER ? &all[root].r : NULL;
          how = "received by the root";
          break;
        case MPE__CC_SCATTER:
        case MPE__CC_SCATTERV:
          mine = &x->r, ref = shape == MPE__CC_SCATTER ? &all[root].s : NULL;
          how = "sent by the root";
          break;
        case MPE__CC_ALLGATHER:
          /* what each of the other group sends this one */
          for (int j = 0; j < np && !ref; j++)
            if (all[j].grp != x->grp && !mpe__cc_sig_match (&all[j].s, &x->r))
              mine = &x->r, ref = &all[j].s, how = "sent by the remote group";
          break;
        default:
          break;
        }
      if (!mine || !ref || mpe__cc_sig_match (mine, ref))
        continue;
      bad = 1;
      if (i == c->me)
        {
          describe (mine, a, sizeof a);
          describe (ref, b, sizeof b);
          snprintf (msg, n, "inconsistent datatype signature: %s here, %s "
                    "%s", a, b, how);
        }
    }
  return bad;
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
  if (c->inter)
    return check_inter (c, all, shape, msg, n);
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
          bad |= !mpe__cc_sig_match (&all[i].s, &all[ref].s);
        if (bad && !mpe__cc_sig_match (&me->s, &all[ref].s))
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
            int m = mpe__cc_sig_match (g ? &all[i].s : &all[i].r, ref);
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
          bad |= !mpe__cc_sig_match (&all[i].r, &r0->r);
        if (bad)
          {
            if (!mpe__cc_sig_match (&me->r, &r0->r))
              {
                describe (&me->r, a, sizeof a);
                describe (&r0->r, b, sizeof b);
                snprintf (msg, n, "inconsistent receive datatype signature: "
                          "%s here, %s at rank 0", a, b);
              }
            return 1;
          }
        for (int i = 0; i < c->np; i++)
          bad |= !mpe__cc_sig_match (all[i].inplace == 1 ? &all[i].r : &all[i].s,
                             &r0->r);
        if (bad && me->inplace != 1 && !mpe__cc_sig_match (&me->s, &r0->r))
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

/* Per-peer signatures of the v-collectives (intracommunicators): the
   root's view of each rank is scattered to it (Gatherv, Scatterv), each
   rank's send sides are exchanged (Alltoallv/w); Allgatherv needs no
   exchange.  Each rank then compares its own side. */
typedef struct
{
  mpe__cc_side_t want;   /* what the root expects of this rank */
  mpe__cc_side_t *vec;   /* per peer, what this rank sends or expects */
  mpe__cc_side_t *in;    /* per peer, what it sends this rank */
} peers_t;

/* Fills what to exchange; 0: nothing to compare for this call. */
static int
peers_prepare (mpe__cc_call_t *c, int shape, peers_t *pp)
{
  int np = c->np, root = c->rec.root;
  pp->vec = pp->in = NULL;
  if (c->inter)
    return 0;
  switch (shape)
    {
    case MPE__CC_GATHERV:
    case MPE__CC_SCATTERV:
      if (root < 0 || root >= np)
        return 0;
      if (c->me == root)
        {
          if (!(pp->vec = malloc (np * sizeof *pp->vec)))
            return 0;
          for (int i = 0; i < np; i++)
            vec_side (shape == MPE__CC_GATHERV ? &c->rv : &c->sv, i,
                      &pp->vec[i]);
        }
      return 1;
    case MPE__CC_ALLGATHERV:
      if (c->rec.inplace == 1)
        return 0;
      vec_side (&c->rv, c->me, &pp->want);
      return 1;
    case MPE__CC_ALLTOALLV:
      if (c->rec.inplace == 1)
        return 0;
      pp->vec = malloc (2 * np * sizeof *pp->vec);
      pp->in = malloc (np * sizeof *pp->in);
      if (!pp->vec || !pp->in)
        {
          free (pp->vec);
          free (pp->in);
          pp->vec = pp->in = NULL;
          return 0;
        }
      for (int i = 0; i < np; i++)
        {
          vec_side (&c->sv, i, &pp->vec[i]);
          vec_side (&c->rv, i, &pp->vec[np + i]);   /* kept to compare */
        }
      return 1;
    default:
      return 0;
    }
}

/* The exchange, blocking (req NULL) or not. */
static void
peers_exchange (mpe__cc_call_t *c, int shape, peers_t *pp, MPI_Request *req)
{
  int sz = (int) sizeof (mpe__cc_side_t);
  if (shape == MPE__CC_GATHERV || shape == MPE__CC_SCATTERV)
    {
      if (req)
        PMPI_Iscatter (pp->vec, sz, MPI_BYTE, &pp->want, sz, MPI_BYTE,
                       c->rec.root, c->cc, req);
      else
        PMPI_Scatter (pp->vec, sz, MPI_BYTE, &pp->want, sz, MPI_BYTE,
                      c->rec.root, c->cc);
    }
  else if (shape == MPE__CC_ALLTOALLV)
    {
      if (req)
        PMPI_Ialltoall (pp->vec, sz, MPI_BYTE, pp->in, sz, MPI_BYTE, c->cc,
                        req);
      else
        PMPI_Alltoall (pp->vec, sz, MPI_BYTE, pp->in, sz, MPI_BYTE, c->cc);
    }
}

static int
peers_compare (mpe__cc_call_t *c, const mpe__cc_rec_t *all, int shape,
               const peers_t *pp, char *msg, size_t n)
{
  int np = c->np, me = c->me, root = c->rec.root;
  char a[160], b[160];
  msg[0] = '\0';
  switch (shape)
    {
    case MPE__CC_GATHERV:
    case MPE__CC_SCATTERV:
      {
        int g = shape == MPE__CC_GATHERV;
        const mpe__cc_side_t *mine = g ? &c->rec.s : &c->rec.r;
        if ((me == root && all[root].rootinplace)
            || mpe__cc_sig_match (mine, &pp->want))
          return 0;
        describe (mine, a, sizeof a);
        describe (&pp->want, b, sizeof b);
        snprintf (msg, n, g ? "datatype signature mismatch: this process "
                  "sends %s, root %d receives %s from it (recvcounts[%d])"
                  : "datatype signature mismatch: this process receives "
                  "%s, root %d sends %s to it (sendcounts[%d])",
                  a, root, b, me);
        return 1;
      }
    case MPE__CC_ALLGATHERV:
      if (mpe__cc_sig_match (&c->rec.s, &pp->want))
        return 0;
      describe (&c->rec.s, a, sizeof a);
      describe (&pp->want, b, sizeof b);
      snprintf (msg, n, "datatype signature mismatch: this process sends "
                "%s, every process receives %s from it (recvcounts[%d])",
                a, b, me);
      return 1;
    case MPE__CC_ALLTOALLV:
      for (int i = 0; i < np; i++)
        if (!mpe__cc_sig_match (&pp->in[i], &pp->vec[np + i]))
          {
            describe (&pp->vec[np + i], a, sizeof a);
            describe (&pp->in[i], b, sizeof b);
            snprintf (msg, n, "datatype signature mismatch: this process "
                      "receives %s from rank %d, which sends %s to it",
                      a, i, b);
            return 1;
          }
      return 0;
    default:
      return 0;
    }
}

/* Blocking: exchanged, compared, the verdict agreed by an allreduce. */
static int
check_peers (mpe__cc_call_t *c, const mpe__cc_rec_t *all, int shape,
             char *msg, size_t n)
{
  peers_t pp;
  msg[0] = '\0';
  if (!peers_prepare (c, shape, &pp))
    return 0;
  peers_exchange (c, shape, &pp, NULL);
  int bad = peers_compare (c, all, shape, &pp, msg, n), any = 0;
  free (pp.vec);
  free (pp.in);
  PMPI_Allreduce (&bad, &any, 1, MPI_INT, MPI_MAX, c->cc);
  return any;
}

/* Vectors become per-rank values the records can carry. */
static void
run_prepare (mpe__cc_call_t *c, int shape)
{
  if (shape == MPE__CC_ALLGATHERV)
    {
      uint64_t h = mpe__cc_mix64 ((uint64_t) c->pnp);
      for (int i = 0; i < c->pnp; i++)
        {
          mpe__cc_side_t s;
          vec_side (&c->rv, i, &s);
          h = h * MPE__CC_HASH_P + mpe__cc_mix64 (s.h ^ mpe__cc_mix64 (s.n));
        }
      c->rec.vec = h;
    }
  if (c->rec.inplace == 1 && shape == MPE__CC_ALLGATHER)
    c->rec.s = c->rec.r;
}

void
mpe__cc_run (mpe__cc_call_t *c, int shape)
{
  if (!c->active)
    return;
  run_prepare (c, shape);
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

/* ---- nonblocking collectives ---------------------------------------- */

struct mpe__cc_pending
{
  MPI_Request     user;     /* the user's request */
  MPI_Request     req[2];   /* records, per-peer exchange */
  int             shape;
  mpe__cc_call_t  c;
  mpe__cc_rec_t  *all;
  peers_t         pp;
  int             peers;    /* pp is exchanged */
  MPE_CallStack_t cs;       /* where the user called */
};

static pthread_mutex_t pend_lock = PTHREAD_MUTEX_INITIALIZER;
static mpe__cc_pending_t **pend;
static size_t npend, pend_cap;
static int npend_any;   /* npend, read without the lock */

int
mpe__cc_npending (void)
{
  return __atomic_load_n (&npend_any, __ATOMIC_RELAXED);
}

static void
pending_free (mpe__cc_pending_t *p)
{
  free (p->all);
  free (p->pp.vec);
  free (p->pp.in);
  free (p);
}

/* The check's own requests (statuses given: gcc warns about
   MPI_STATUSES_IGNORE). */
static void
wait_check (mpe__cc_pending_t *p)
{
  MPI_Status st[2];
  PMPI_Waitall (2, p->req, st);
}

static int
test_check (mpe__cc_pending_t *p)
{
  MPI_Status st[2];
  int done = 0;
  PMPI_Testall (2, p->req, &done, st);
  return done;
}

void
mpe__cc_start (mpe__cc_call_t *c, int shape)
{
  if (!c->active)
    return;
  run_prepare (c, shape);
  mpe__cc_pending_t *p = calloc (1, sizeof *p);
  if (!p || !(p->all = malloc (sizeof (mpe__cc_rec_t) * c->np)))
    {
      free (p);
      return;
    }
  p->shape = shape;
  p->c = *c;
  p->req[0] = p->req[1] = MPI_REQUEST_NULL;
  MPE_CallStack_init (&p->cs);
  int sz = (int) sizeof (mpe__cc_rec_t);
  PMPI_Iallgather (&p->c.rec, sz, MPI_BYTE, p->all, sz, MPI_BYTE, c->cc,
                   &p->req[0]);
  if ((p->peers = peers_prepare (&p->c, shape, &p->pp)))
    peers_exchange (&p->c, shape, &p->pp, &p->req[1]);
  c->nb = p;
}

void
mpe__cc_started (mpe__cc_call_t *c, int rc, const MPI_Request *req)
{
  mpe__cc_pending_t *p = c->nb;
  if (!p)
    return;
  c->nb = NULL;
  if (rc != MPI_SUCCESS || !req || *req == MPI_REQUEST_NULL)
    {
      /* MPI refused the call: the others' check cannot be left hanging,
         so finish ours now (it does not block if they called too). */
      wait_check (p);
      pending_free (p);
      return;
    }
  p->user = *req;
  pthread_mutex_lock (&pend_lock);
  if (npend == pend_cap)
    {
      size_t cap = pend_cap ? pend_cap * 2 : 16;
      mpe__cc_pending_t **n = realloc (pend, cap * sizeof *n);
      if (!n)
        {
          pthread_mutex_unlock (&pend_lock);
          wait_check (p);
          pending_free (p);
          return;
        }
      pend = n;
      pend_cap = cap;
    }
  pend[npend++] = p;
  __atomic_store_n (&npend_any, (int) npend, __ATOMIC_RELAXED);
  pthread_mutex_unlock (&pend_lock);
}

/* A nonblocking check found a problem: the process at fault reports it
   with the call stack of its call and aborts the job; the others say so
   and give it a few seconds to report before aborting themselves.  The
   abort names MPI_COMM_WORLD: the others are asleep here, not in MPI, and
   MPICH's abort on another communicator (ch4:ucx) waits for their
   progress, so the job hung instead of ending. */
static void
fail_nb (mpe__cc_pending_t *p, const char *msg)
{
  const char *name = mpe__cc_names[p->c.rec.call];
  if (msg)
    {
      fprintf (stderr, "Collective Checking: %s (Rank %d) --> %s\n", name,
               p->c.me, msg);
      print_stack (name, p->c.me, p->cs);
      fflush (stderr);
      PMPI_Abort (MPI_COMM_WORLD, 1);
    }
  fprintf (stderr, "Collective Checking: %s (Rank %d) --> Error on "
           "another process\n", name, p->c.me);
  fflush (stderr);
  for (int i = 0; i < 50; i++)
    {
      struct timespec ts = { 0, 100000000 };
      nanosleep (&ts, NULL);
    }
  PMPI_Abort (MPI_COMM_WORLD, 1);
  abort ();
}

/* Finishes the check of pend[i] if its exchange is done (or, blocking,
   once it is); 1 when it was finished and removed.  Call with the lock
   held; it is released around MPI calls that block. */
static int
settle_at (size_t i, int blocking)
{
  mpe__cc_pending_t *p = pend[i];
  int done = 0;
  if (blocking)
    {
      pthread_mutex_unlock (&pend_lock);
      wait_check (p);
      pthread_mutex_lock (&pend_lock);
      done = 1;
    }
  else
    done = test_check (p);
  if (!done)
    return 0;
  for (size_t k = 0; k < npend; k++)
    if (pend[k] == p)
      {
        pend[k] = pend[--npend];
        break;
      }
  __atomic_store_n (&npend_any, (int) npend, __ATOMIC_RELAXED);
  char msg[512];
  cc_nest = 1;
  if (check_records (&p->c, p->all, p->shape, msg, sizeof msg)
      || (p->peers && peers_compare (&p->c, p->all, p->shape, &p->pp, msg,
                                     sizeof msg)))
    {
      pthread_mutex_unlock (&pend_lock);
      fail_nb (p, msg[0] ? msg : NULL);
    }
  cc_nest = 0;
  pending_free (p);
  return 1;
}

int
mpe__cc_settle (int n, const MPI_Request *reqs, int blocking)
{
  int all_done = 1;
  if (!mpe__cc_npending () || cc_nest)
    return 1;
  pthread_mutex_lock (&pend_lock);
  for (int j = 0; j < n; j++)
    {
      if (reqs[j] == MPI_REQUEST_NULL)
        continue;
      for (size_t i = 0; i < npend; i++)
        if (pend[i]->user == reqs[j])
          {
            if (!settle_at (i, blocking))
              all_done = 0;
            break;
          }
    }
  pthread_mutex_unlock (&pend_lock);
  return all_done;
}

/* Waitany, Testany, Waitsome, Testsome (indx or outcount says which)
   while checks are under way: the requests whose check has not finished
   are hidden from MPI (MPI_REQUEST_NULL in a copy), so one of them is
   never completed before its check, and nothing blocks on a check that
   a correct program need not wait for; the wait forms poll. */
int
mpe__cc_anysome (int n, MPI_Request reqs[], int *indx, int *flag,
                 MPI_Status *status, int *outcount, int indices[],
                 MPI_Status statuses[], int blocking)
{
  MPI_Request *copy = malloc ((n > 0 ? n : 1) * sizeof *copy);
  int rc = MPI_SUCCESS, f = 0;
  if (!copy)
    return MPI_ERR_NO_MEM;
  for (;;)
    {
      int hidden = 0;
      f = 0;
      for (int j = 0; j < n; j++)
        {
          copy[j] = reqs[j];
          if (reqs[j] != MPI_REQUEST_NULL && !mpe__cc_settle (1, &reqs[j], 0))
            {
              copy[j] = MPI_REQUEST_NULL;
              hidden++;
            }
        }
      if (indx)
        {
          rc = PMPI_Testany (n, copy, indx, &f, status);
          f = rc == MPI_SUCCESS && f && (*indx != MPI_UNDEFINED || !hidden);
        }
      else
        {
          rc = PMPI_Testsome (n, copy, outcount, indices, statuses);
          f = rc == MPI_SUCCESS && (*outcount > 0
                                    || (*outcount == MPI_UNDEFINED
                                        && !hidden));
          if (rc == MPI_SUCCESS && *outcount == MPI_UNDEFINED && hidden)
            *outcount = 0;
        }
      if (indx && rc == MPI_SUCCESS && f && *indx != MPI_UNDEFINED)
        reqs[*indx] = copy[*indx];
      if (!indx && rc == MPI_SUCCESS && *outcount > 0)
        for (int k = 0; k < *outcount; k++)
          reqs[indices[k]] = copy[indices[k]];
      if (rc != MPI_SUCCESS || f || !blocking)
        break;
    }
  if (flag)
    *flag = f;
  free (copy);
  return rc;
}

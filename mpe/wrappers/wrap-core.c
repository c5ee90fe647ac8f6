/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * liblmpe/libampe by hand: MPI_Init*, MPI_Finalize, MPI_Pcontrol, the
 * class switches, and the helpers the generated wrappers call for
 * receives and collectives.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe/wrappers/wrap-internal.h"

_Atomic int mpe__wrap_on;
int mpe__wrap_inited;
__thread int mpe__wrap_nest __attribute__ ((tls_model ("initial-exec")));
/* Sized for the generated table; checked at init. */
#define MAX_STATES 1024
uint8_t mpe__wrap_active[MAX_STATES];
_Atomic uint8_t mpe__wrap_used[MAX_STATES];
_Atomic uint8_t mpe__wrap_internal_used[2];

static int comm_label_key = MPI_KEYVAL_INVALID;

static const char *const class_names[MPE__NCLASSES] = {
  "COLL", "MSG", "MSG_INIT", "COMM", "COMM_INFO", "TOPO", "FILE", "RMA",
  "SPAWN", "ENV", "ATTR", "GROUP", "DATATYPE", "TOOL"
};

/* MPE2's defaults: ENV, ATTR, GROUP, DATATYPE (and the tools interface,
 * which MPE2 predates) are wrapped but not logged.  MPE_WRAP_CLASSES
 * adjusts this: "all", "none", or a comma list of CLASS / +CLASS /
 * -CLASS applied in order. */
static void
choose_classes (uint8_t on[MPE__NCLASSES], int rank)
{
  for (int c = 0; c < MPE__NCLASSES; c++)
    on[c] = !(c == MPE__CLASS_ENV || c == MPE__CLASS_ATTR
              || c == MPE__CLASS_GROUP || c == MPE__CLASS_DATATYPE
              || c == MPE__CLASS_TOOL);
  const char *env = getenv ("MPE_WRAP_CLASSES");
  if (env == NULL || *env == '\0')
    return;
  char buf[256];
  snprintf (buf, sizeof buf, "%s", env);
  for (char *save = NULL, *tok = strtok_r (buf, ", ", &save); tok;
       tok = strtok_r (NULL, ", ", &save))
    {
      int val = 1;
      if (*tok == '+' || *tok == '-')
        val = *tok++ == '+';
      if (strcmp (tok, "all") == 0 || strcmp (tok, "none") == 0)
        {
          int v = strcmp (tok, "all") == 0 ? val : !val;
          memset (on, v, MPE__NCLASSES);
          continue;
        }
      int found = 0;
      for (int c = 0; c < MPE__NCLASSES; c++)
        if (strcmp (tok, class_names[c]) == 0)
          on[c] = val, found = 1;
      if (!found && rank == 0)
        fprintf (stderr, "MPE: MPE_WRAP_CLASSES: unknown class '%s' "
                 "ignored\n", tok);
    }
}

static void wrap_describe_used (void);
static int wrap_stopping;   /* inside MPI_Finalize */
static _Atomic int comm_finalize_logged;   /* by a freed communicator */

/* The definitions a recovered log needs, written to the spill file when
 * first used (the finish hook defines them for the finished log). */
static const struct
{
  const char *name, *color;
} internal_defs[2] = { { "MPE_Isend_waited", "magenta" },
                       { "MPE_Irecv_waited", "DarkOrange" } };
static _Atomic int comm_finalize_spilled;

void
mpe__wrap_first_use (int s)
{
  if (atomic_exchange (&mpe__wrap_used[s], 1))
    return;
  const mpe__wstate_t *w = &mpe__wrap_states[s];
  mpe__spill_known_def (1, w->start_id, w->end_id, w->name, w->color,
                        w->format);
}

void
mpe__wrap_first_internal (int which)
{
  if (atomic_exchange (&mpe__wrap_internal_used[which], 1))
    return;
  int st = which ? MPE__ST_IRECV_WAITED : MPE__ST_ISEND_WAITED;
  mpe__spill_known_def (1, MPE_KNOWN_STATE_START (st),
                        MPE_KNOWN_STATE_END (st), internal_defs[which].name,
                        internal_defs[which].color, NULL);
}

static void
spill_comm_finalize (void)
{
  if (!atomic_exchange (&comm_finalize_spilled, 1))
    mpe__spill_known_def (0, MPE_KNOWN_SOLO_COMM_FINALIZE, 0,
                          "MPE_Comm_finalize", "orange", NULL);
}

static void
wrap_start (int *argc, char ***argv)
{
  int rank = 0, size = 1;
  uint8_t cls_on[MPE__NCLASSES];

  if (mpe__wrap_nstates > MAX_STATES)
    {
      fprintf (stderr, "MPE: internal error: %d states > %d\n",
               mpe__wrap_nstates, MAX_STATES);
      return;
    }
  mpe__wrap_init (argc, argv);
  mpe__set_finish_hook (wrap_describe_used);
  PMPI_Comm_rank (MPI_COMM_WORLD, &rank);
  PMPI_Comm_size (MPI_COMM_WORLD, &size);
  choose_classes (cls_on, rank);
  for (int s = 0; s < mpe__wrap_nstates; s++)
    {
      mpe__wrap_active[s] = cls_on[mpe__wrap_states[s].cls];
      atomic_store (&mpe__wrap_used[s], 0);
      mpe__metric_fn_name (mpe__wrap_states[s].start_id,
                           mpe__wrap_states[s].name);
    }
  atomic_store (&mpe__wrap_internal_used[0], 0);
  atomic_store (&mpe__wrap_internal_used[1], 0);
  atomic_store (&comm_finalize_spilled, 0);
  mpe__spill_known_def (0, MPE_KNOWN_SOLO_COMM_INIT, 0, "MPE_Comm_init",
                        "red", NULL);
  if (comm_label_key == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval (MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                             &comm_label_key, NULL);
  mpe__wrap_inited = 1;
  atomic_store (&mpe__wrap_on, 1);
  /* One per process, not per thread: MPE2 logs it for MPI_COMM_WORLD
     and for the communicators logged calls create, never for a thread. */
  mpe__log_id (MPE_KNOWN_SOLO_COMM_INIT);
#ifdef MPE_WRAP_ANIM
  if (mpe__wrap_anim_start (rank, size) == 1 && rank == 0)
    fprintf (stderr, "MPE: libampe: MPEANIM_ADDR is not set, so nothing "
             "is animated (start mpeanim and export its address)\n");
#else
  mpe__wrap_anim_start (rank, size);
#endif
}

/* The level the program asked for when init_thread raised it, else -1. */
static int program_level = -1;

int
mpe__wrap_thread_level (int actual)
{
  return program_level >= 0 && actual > program_level ? program_level
                                                      : actual;
}

/* The live monitor's helper thread moves its requests while the program
 * computes, and needs MPI_THREAD_MULTIPLE.  An unmodified program asks
 * for less, so MPI is asked for MULTIPLE on its behalf when the monitor
 * will run; the program sees the level it asked for (here and in
 * MPI_Query_thread).  Off, MPI is initialised exactly as asked. */
static int
init_thread (int *argc, char ***argv, int required, int *provided)
{
  if (required >= MPI_THREAD_MULTIPLE || !mpe__mon_thread_wanted ())
    return PMPI_Init_thread (argc, argv, required, provided);
  int rc = PMPI_Init_thread (argc, argv, MPI_THREAD_MULTIPLE, provided);
  if (rc == MPI_SUCCESS)
    {
      program_level = required;
      *provided = mpe__wrap_thread_level (*provided);
    }
  return rc;
}

int
MPI_Init (int *argc, char ***argv)
{
  int provided, rc;
  if (mpe__mon_thread_wanted ())
    rc = init_thread (argc, argv, MPI_THREAD_SINGLE, &provided);
  else
    rc = PMPI_Init (argc, argv);
  if (rc == MPI_SUCCESS)
    wrap_start (argc, argv);
  return rc;
}

int
MPI_Init_thread (int *argc, char ***argv, int required, int *provided)
{
  int rc = init_thread (argc, argv, required, provided);
  if (rc == MPI_SUCCESS)
    wrap_start (argc, argv);
  return rc;
}

/* The finish hook: defines only the states some rank used, as MPE2 does.
 * Runs inside MPE_Finish_log, so a user's own MPE_Finish_log before
 * MPI_Finalize gets the MPI state names too. */
static void
wrap_describe_used (void)
{
  int n = mpe__wrap_nstates;
  uint8_t mine[MAX_STATES + 2], all[MAX_STATES + 2];

  for (int s = 0; s < n; s++)
    mine[s] = atomic_load (&mpe__wrap_used[s]);
  mine[n] = atomic_load (&mpe__wrap_internal_used[0]);
  mine[n + 1] = atomic_load (&mpe__wrap_internal_used[1]);
  if (PMPI_Allreduce (mine, all, n + 2, MPI_UNSIGNED_CHAR, MPI_MAX,
                      MPI_COMM_WORLD) != MPI_SUCCESS)
    memcpy (all, mine, n + 2);
  for (int s = 0; s < n; s++)
    if (all[s])
      {
        const mpe__wstate_t *w = &mpe__wrap_states[s];
        mpe__describe_known_state (w->start_id, w->end_id, w->name,
                                   w->color, w->format);
      }
  for (int k = 0; k < 2; k++)
    if (all[n + k])
      {
        int st = k ? MPE__ST_IRECV_WAITED : MPE__ST_ISEND_WAITED;
        mpe__describe_known_state (MPE_KNOWN_STATE_START (st),
                                   MPE_KNOWN_STATE_END (st),
                                   internal_defs[k].name,
                                   internal_defs[k].color, NULL);
      }
  mpe__describe_known_event (MPE_KNOWN_SOLO_COMM_INIT, "MPE_Comm_init",
                             "red", NULL);
  /* Not when the user finishes the log earlier, unless a freed
     communicator logged one already. */
  if (wrap_stopping || atomic_load (&comm_finalize_logged))
    mpe__describe_known_event (MPE_KNOWN_SOLO_COMM_FINALIZE,
                               "MPE_Comm_finalize", "orange", NULL);
}

static void
wrap_stop (void)
{
  if (atomic_load (&mpe__wrap_on) && !mpe__wrap_nest)
    {
      spill_comm_finalize ();
      mpe__log_id (MPE_KNOWN_SOLO_COMM_FINALIZE);
    }
  atomic_store (&mpe__wrap_on, 0);
  mpe__wrap_anim_stop ();
  wrap_stopping = 1;
  mpe__wrap_finalize ();        /* runs wrap_describe_used unless done */
  wrap_stopping = 0;
  mpe__wrap_rank2procname ();
  mpe__set_finish_hook (NULL);
  mpe__wrap_inited = 0;
  mpe__req_reset ();
}

int
MPI_Finalize (void)
{
  if (mpe__wrap_inited)
    wrap_stop ();
  return PMPI_Finalize ();
}

/* Level 0 stops the wrappers' logging, any other level resumes it (as
 * MPE2).  Communicator tracking and user MPE_Log_* calls go on. */
int
MPI_Pcontrol (const int level, ...)
{
  if (mpe__wrap_inited)
    atomic_store (&mpe__wrap_on, level != 0);
  return MPI_SUCCESS;
}

uint64_t
mpe__wrap_type_size_slow (MPI_Datatype t)
{
  MPI_Count sz = 0;
  if (t == MPI_DATATYPE_NULL || PMPI_Type_size_c (t, &sz) != MPI_SUCCESS
      || sz < 0)
    return 0;
  return (uint64_t) sz;
}

uint64_t
mpe__wrap_status_bytes_slow (const MPI_Status *st)
{
  MPI_Count n = 0;
  if (PMPI_Get_count_c (st, MPI_BYTE, &n) != MPI_SUCCESS
      || n == MPI_UNDEFINED || n < 0)
    n = 0;
  return (uint64_t) n;
}

void
wrap_comm_created (MPI_Comm comm, int on)
{
  mpe__comm_created (comm);
  if (on)
    mpe__log_id (MPE_KNOWN_SOLO_COMM_INIT);
}

void
wrap_comm_freed (MPI_Comm comm, int on)
{
  mpe__comm_freed (comm);
  if (on)
    {
      atomic_store (&comm_finalize_logged, 1);
      spill_comm_finalize ();
      mpe__log_id (MPE_KNOWN_SOLO_COMM_FINALIZE);
    }
}

/* A label for a communicator that is the same on every member: FNV-1a
 * of the world ranks of its group (then of the remote group), cached as
 * an attribute so it is computed once per communicator. */
static uint32_t
fnv_group (uint32_t h, MPI_Group g)
{
  MPI_Group world;
  int n = 0;
  PMPI_Group_size (g, &n);
  PMPI_Comm_group (MPI_COMM_WORLD, &world);
  for (int base = 0; base < n; base += 256)
    {
      int in[256], out[256], k = n - base < 256 ? n - base : 256;
      for (int i = 0; i < k; i++)
        in[i] = base + i;
      PMPI_Group_translate_ranks (g, k, in, world, out);
      for (int i = 0; i < k; i++)
        for (int b = 0; b < 4; b++)
          h = (h ^ (((uint32_t) out[i] >> (8 * b)) & 0xffu)) * 16777619u;
    }
  PMPI_Group_free (&world);
  return h;
}

static uint32_t
comm_label (MPI_Comm comm)
{
  void *val = NULL;
  int flag = 0, inter = 0;
  uint32_t h = 2166136261u;
  MPI_Group g;

  if (comm == MPI_COMM_NULL)
    return 0;
  if (comm == MPI_COMM_WORLD)
    return 0xffffffffu;
  if (comm_label_key != MPI_KEYVAL_INVALID
      && PMPI_Comm_get_attr (comm, comm_label_key, &val, &flag)
         == MPI_SUCCESS && flag)
    return (uint32_t) (uintptr_t) val;
  PMPI_Comm_group (comm, &g);
  h = fnv_group (h, g);
  PMPI_Group_free (&g);
  PMPI_Comm_test_inter (comm, &inter);
  if (inter)
    {
      PMPI_Comm_remote_group (comm, &g);
      h = fnv_group (h * 31u, g);
      PMPI_Group_free (&g);
    }
  if (comm_label_key != MPI_KEYVAL_INVALID)
    PMPI_Comm_set_attr (comm, comm_label_key, (void *) (uintptr_t) h);
  return h;
}

void
mpe__wrap_coll_info (MPI_Comm comm, int root, mpe__coll_info_t *ci)
{
  int inter = 0, topo = MPI_UNDEFINED;

  memset (ci, 0, sizeof *ci);
  if (comm == MPI_COMM_NULL)
    return;
  PMPI_Comm_rank (comm, &ci->me);
  PMPI_Comm_test_inter (comm, &inter);
  if (inter)
    {
      PMPI_Comm_remote_size (comm, &ci->np);
      ci->is_root = root == MPI_ROOT;
      return;
    }
  PMPI_Comm_size (comm, &ci->np);
  ci->is_root = root == ci->me;
  PMPI_Topo_test (comm, &topo);
  if (topo == MPI_CART)
    {
      int nd = 0;
      PMPI_Cartdim_get (comm, &nd);
      ci->in = ci->out = 2 * nd;
    }
  else if (topo == MPI_GRAPH)
    PMPI_Graph_neighbors_count (comm, ci->me, &ci->in), ci->out = ci->in;
  else if (topo == MPI_DIST_GRAPH)
    {
      int w = 0;
      PMPI_Dist_graph_neighbors_count (comm, &ci->in, &ci->out, &w);
    }
}

static void
put_be (uint8_t *p, uint64_t v, int n)
{
  for (int i = n - 1; i >= 0; i--, v >>= 8)
    p[i] = (uint8_t) (v & 0xff);
}

void
wrap_end_coll (int32_t end_id, MPI_Comm comm, int root, uint64_t sent,
               uint64_t recv)
{
  uint8_t cargo[32] = { 0 };
  mpe__coll_info_t ci;
  mpe__wrap_coll_info (comm, root, &ci);
  put_be (cargo, comm_label (comm), 4);
  put_be (cargo + 4, (uint32_t) ci.np, 4);
  put_be (cargo + 8, (uint32_t) root, 4);
  put_be (cargo + 12, sent, 8);
  put_be (cargo + 20, recv, 8);
  mpe__log_id_cargo (end_id, cargo);
  WRAP_INSTR_POST (sent + recv);
  mpe__wrap_nest = 0;
  WRAP_MONITOR ();
}

void
wrap_end_rma (int32_t end_id, int target, uint64_t sent, uint64_t recv)
{
  uint8_t cargo[32] = { 0 };
  put_be (cargo, (uint32_t) target, 4);
  put_be (cargo + 4, sent, 8);
  put_be (cargo + 12, recv, 8);
  mpe__log_id_cargo (end_id, cargo);
  WRAP_INSTR_POST (sent + recv);
  mpe__wrap_nest = 0;
  WRAP_MONITOR ();
}

void
wrap_end_io (int32_t end_id, uint64_t bytes)
{
  uint8_t cargo[32] = { 0 };
  put_be (cargo, bytes, 8);
  mpe__log_id_cargo (end_id, cargo);
  WRAP_INSTR_POST (bytes);
  mpe__wrap_nest = 0;
  WRAP_MONITOR ();
}

uint64_t
mpe__wrap_sum_i (const int *a, int n)
{
  uint64_t s = 0;
  for (int i = 0; a && i < n; i++)
    s += a[i] > 0 ? (uint64_t) a[i] : 0;
  return s;
}

uint64_t
mpe__wrap_sum_c (const MPI_Count *a, int n)
{
  uint64_t s = 0;
  for (int i = 0; a && i < n; i++)
    s += a[i] > 0 ? (uint64_t) a[i] : 0;
  return s;
}

uint64_t
mpe__wrap_sumw_i (const int *a, const MPI_Datatype *t, int n)
{
  uint64_t s = 0;
  for (int i = 0; a && t && i < n; i++)
    s += a[i] > 0 ? (uint64_t) a[i] * wrap_type_size (t[i]) : 0;
  return s;
}

uint64_t
mpe__wrap_sumw_c (const MPI_Count *a, const MPI_Datatype *t, int n)
{
  uint64_t s = 0;
  for (int i = 0; a && t && i < n; i++)
    s += a[i] > 0 ? (uint64_t) a[i] * wrap_type_size (t[i]) : 0;
  return s;
}

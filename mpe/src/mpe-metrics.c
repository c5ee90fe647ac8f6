/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Metric cells (mpe_metrics.h): per-thread values changed without locks,
 * the standard cells the MPI wrappers keep through the core's hooks
 * (mpe-internal.h: mpe__metric_call, mpe__metric_msg), and the samples
 * that carry changed values into the thread's buffer as METRIC records
 * (periodically, at chosen events, on request and at the finish).
 */
#include "config.h"
#include "mpe-internal.h"
#include "mpe-monitor.h"
#include "mpe_metrics.h"

#include <stdio.h>
#include <stdlib.h>

_Static_assert (MPE_METRIC_MAX_CELLS == MPE_METRIC_MAX_CELLS_,
                "one bound of user cells");

__thread mpe_mcells_t *mpe__mtls
  __attribute__ ((tls_model ("initial-exec")));
__thread uint64_t mpe__mdue
  __attribute__ ((tls_model ("initial-exec"))) = UINT64_MAX;
int mpe__mstd_guarded;
int mpe__mon_n;

/* Definitions: metric id -> name, unit, flags (rank 0's are written). */
typedef struct
{
  uint32_t id, flags;
  char *name, *unit;
} mdef_t;

static pthread_mutex_t mlock = PTHREAD_MUTEX_INITIALIZER;
static mdef_t *defs;
static size_t ndefs, cdefs;
static atomic_int nuser;                      /* user cells defined */
static uint32_t user_flags[MPE_METRIC_MAX_CELLS];
static int16_t user_guard[MPE_METRIC_MAX_CELLS];  /* flag cell + 1 */
static int16_t std_guard[MPE_MSTD_N];
static int16_t fn_guard[2 * MPE_MFN_MAX];
static mpe_mcells_t *all_cells;               /* every thread's, for finish */
static uint64_t period_ticks;                 /* 0: no periodic samples */
static int32_t on_ids[64];

static const struct
{
  const char *name, *unit;
  uint32_t flags;
} std_names[MPE_MSTD_N] = {
  [MPE_MSTD_MPI_CALLS] = { "mpi.calls", "1", 0 },
  [MPE_MSTD_MPI_TIME] = { "mpi.time", "ns", LOGFMT_METRIC_TIMER },
  [MPE_MSTD_MSGS_SENT] = { "msgs.sent", "1", 0 },
  [MPE_MSTD_BYTES_SENT] = { "bytes.sent", "bytes", 0 },
  [MPE_MSTD_MSGS_RECV] = { "msgs.recv", "1", 0 },
  [MPE_MSTD_BYTES_RECV] = { "bytes.recv", "bytes", 0 },
  [MPE_MSTD_COLL_CALLS] = { "coll.calls", "1", 0 },
  [MPE_MSTD_COLL_BYTES] = { "coll.bytes", "bytes", 0 },
};
static const char *const chan_names[MPE_MCHAN_N] = {
  "chan.msgs.sent", "chan.bytes.sent", "chan.msgs.recv", "chan.bytes.recv",
};

/* ---- Definitions ------------------------------------------------------ */

/* The definition as a spill frame (docs/SPILL-FORMAT.md, METRIC): written
 * when it is made, so that `clogtool recover` names the samples of a rank
 * that died; written again when its flags change (the later one wins). */
static void
def_to_spill (uint32_t id, uint32_t flags, const char *name,
              const char *unit)
{
  char buf[1024];
  size_t nl = strlen (name), ul = strlen (unit);
  if (ul > 64)
    ul = 64;
  if (8 + nl + 1 + ul + 1 > sizeof buf)
    nl = sizeof buf - (8 + 1 + ul + 1);
  memcpy (buf, &id, 4);
  memcpy (buf + 4, &flags, 4);
  memcpy (buf + 8, name, nl);
  buf[8 + nl] = '\0';
  memcpy (buf + 8 + nl + 1, unit, ul);
  buf[8 + nl + 1 + ul] = '\0';
  mpe__spill_frame (MPE_SPILL_METRIC, 0, buf, 8 + nl + 1 + ul + 1);
}

/* Flags as the log will have them: a user cell's may grow after it is
 * defined (LEVEL on its first set). */
static uint32_t
flags_of (const mdef_t *d)
{
  return d->flags | (d->id < MPE_METRIC_MAX_CELLS ? user_flags[d->id] : 0);
}

/* Writes definition `id` to the spill file again (its flags changed). */
static void
respill_def (uint32_t id)
{
  pthread_mutex_lock (&mlock);
  for (size_t i = 0; i < ndefs; i++)
    if (defs[i].id == id)
      {
        def_to_spill (id, flags_of (&defs[i]), defs[i].name, defs[i].unit);
        break;
      }
  pthread_mutex_unlock (&mlock);
}

/* A new log: its spill file gets every metric defined so far. */
void
mpe__metrics_respill (void)
{
  pthread_mutex_lock (&mlock);
  for (size_t i = 0; i < ndefs; i++)
    def_to_spill (defs[i].id, flags_of (&defs[i]), defs[i].name,
                  defs[i].unit);
  pthread_mutex_unlock (&mlock);
}

static int
add_def (uint32_t id, uint32_t flags, const char *name, const char *unit)
{
  pthread_mutex_lock (&mlock);
  for (size_t i = 0; i < ndefs; i++)
    if (defs[i].id == id)
      {
        pthread_mutex_unlock (&mlock);
        return MPE_LOG_OK;
      }
  if (ndefs == cdefs)
    {
      size_t c = cdefs ? cdefs * 2 : 64;
      mdef_t *d = realloc (defs, c * sizeof *d);
      if (!d)
        {
          pthread_mutex_unlock (&mlock);
          return MPE_LOG_NO_MEMORY;
        }
      defs = d;
      cdefs = c;
    }
  mdef_t *d = &defs[ndefs];
  d->id = id;
  d->flags = flags;
  d->name = strdup (name);
  d->unit = strdup (unit);
  if (d->name && d->unit)
    {
      ndefs++;
      def_to_spill (id, flags_of (d), d->name, d->unit);
    }
  else
    {
      free (d->name);
      free (d->unit);
    }
  pthread_mutex_unlock (&mlock);
  return MPE_LOG_OK;
}

void
mpe__metric_describe_fn (int fn, const char *name)
{
  if (fn < 0 || fn >= MPE_MFN_MAX || fn == 250 || fn == 251)
    return;
  char n[256];
  snprintf (n, sizeof n, "%s.calls", name);
  add_def (MPE_MID_FN + 2 * (uint32_t) fn, LOGFMT_METRIC_STANDARD, n, "1");
  snprintf (n, sizeof n, "%s.time", name);
  add_def (MPE_MID_FN + 2 * (uint32_t) fn + 1,
           LOGFMT_METRIC_STANDARD | LOGFMT_METRIC_TIMER, n, "ns");
}

void
mpe__metric_describe_counter (uint32_t id, uint32_t flags, const char *name,
                              const char *unit)
{
  add_def (id, flags, name, unit);
}

size_t
mpe__metric_ndefs (void)
{
  pthread_mutex_lock (&mlock);
  size_t n = ndefs;
  pthread_mutex_unlock (&mlock);
  return n;
}

size_t
mpe__metric_defs (logfmt_metric_def_t **out)
{
  pthread_mutex_lock (&mlock);
  logfmt_metric_def_t *v = malloc ((ndefs + 1) * sizeof *v);
  size_t n = 0;
  if (v)
    for (; n < ndefs; n++)
      v[n] = (logfmt_metric_def_t) { defs[n].id, flags_of (&defs[n]),
                                     defs[n].name, defs[n].unit };
  pthread_mutex_unlock (&mlock);
  *out = v;
  return n;
}

/* Called by MPE_Init_log: the standard definitions and the period. */
void
mpe__metrics_init (void)
{
  for (int k = 0; k < MPE_MSTD_N; k++)
    add_def (MPE_MID_STD + (uint32_t) k,
             std_names[k].flags | LOGFMT_METRIC_STANDARD, std_names[k].name,
             std_names[k].unit);
  for (int k = 0; k < MPE_MCHAN_N; k++)
    add_def (MPE_MID_CHAN + (uint32_t) k,
             LOGFMT_METRIC_STANDARD | LOGFMT_METRIC_CHANNEL, chan_names[k],
             k & 1 ? "bytes" : "1");
  double ns = mpe__env_number ("MPE_METRIC_PERIOD", 1e7, 0, 3600e9, "",
                               MPE_ENV_DURATION);
  /* ticks per ns = 2^32 / mult_fp. */
  period_ticks = ns > 0 && mpe__g.mult_fp
                 ? (uint64_t) (ns * 4294967296.0 / (double) mpe__g.mult_fp)
                 : 0;
  if (ns > 0 && period_ticks == 0)
    period_ticks = 1;
}

/* ---- Cells ------------------------------------------------------------ */

mpe_mcells_t *
mpe__mcells_create (void)
{
  if (mpe__mtls)
    return mpe__mtls;
  mpe_mcells_t *c = calloc (1, sizeof *c);
  if (!c)
    return NULL;
  pthread_mutex_lock (&mlock);
  c->next = all_cells;
  all_cells = c;
  pthread_mutex_unlock (&mlock);
  mpe__mtls = c;
  c->tb = mpe__tls;
  if (period_ticks)
    mpe__mdue = mpe__ticks () + period_ticks;
  return c;
}

static inline mpe_mcells_t *
cells (void)
{
  mpe_mcells_t *c = mpe__mtls;
  return MPE_LIKELY (c != NULL) ? c : mpe__mcells_create ();
}

/* The guard of user cell i lets a primitive through. */
static inline int
user_open (const mpe_mcells_t *c, int i)
{
  int g = user_guard[i];
  return g == 0 || c->user[g - 1] != 0;
}

int
mpe__mguard_open (const mpe_mcells_t *c, int16_t g)
{
  return g == 0 || c->user[g - 1] != 0;
}

int16_t
mpe__mguard_std (int k)
{
  return std_guard[k];
}

int16_t
mpe__mguard_fn (int k)
{
  return fn_guard[k];
}

int
MPE_Metric_define (const char *name, const char *unit, int *cell)
{
  if (!name || !unit || !cell)
    return MPE_LOG_PACK_FAIL;
  pthread_mutex_lock (&mlock);
  int i = atomic_load (&nuser);
  if (i >= MPE_METRIC_MAX_CELLS)
    {
      pthread_mutex_unlock (&mlock);
      return MPE_LOG_NO_MEMORY;
    }
  user_flags[i] = !strcmp (unit, "ns") ? LOGFMT_METRIC_TIMER : 0;
  atomic_store (&nuser, i + 1);
  pthread_mutex_unlock (&mlock);
  *cell = i;
  return add_def ((uint32_t) i, user_flags[i], name, unit);
}

#define USER_CELL(cell) ((unsigned) (cell) < (unsigned) atomic_load_explicit \
                           (&nuser, memory_order_relaxed))

int
MPE_Metric_set (int cell, long long v)
{
  mpe_mcells_t *c = cells ();
  if (MPE_UNLIKELY (!USER_CELL (cell) || !c))
    return MPE_LOG_PACK_FAIL;
  if (user_open (c, cell))
    c->user[cell] = v;
  /* A cell that is set is a level: tools report its value, not its
   * increase. */
  if (MPE_UNLIKELY (!(user_flags[cell] & LOGFMT_METRIC_LEVEL)))
    {
      user_flags[cell] |= LOGFMT_METRIC_LEVEL;
      respill_def ((uint32_t) cell);
    }
  return MPE_LOG_OK;
}

int
MPE_Metric_add (int cell, long long v)
{
  mpe_mcells_t *c = cells ();
  if (MPE_UNLIKELY (!USER_CELL (cell) || !c))
    return MPE_LOG_PACK_FAIL;
  if (user_open (c, cell))
    c->user[cell] += v;
  return MPE_LOG_OK;
}

int
MPE_Metric_sub (int cell, long long v)
{
  return MPE_Metric_add (cell, -v);
}

int
MPE_Metric_timer_start (int cell)
{
  mpe_mcells_t *c = cells ();
  if (MPE_UNLIKELY (!USER_CELL (cell) || !c))
    return MPE_LOG_PACK_FAIL;
  if (user_open (c, cell))
    c->user_t0[cell] = mpe__ticks () | 1;  /* 0 means stopped */
  return MPE_LOG_OK;
}

int
MPE_Metric_timer_stop (int cell)
{
  uint64_t t = mpe__ticks ();
  mpe_mcells_t *c = cells ();
  if (MPE_UNLIKELY (!USER_CELL (cell) || !c))
    return MPE_LOG_PACK_FAIL;
  uint64_t t0 = c->user_t0[cell];
  if (t0)
    {
      c->user[cell] += (int64_t) mpe_spill_mul_shr32 (t > t0 ? t - t0 : 0,
                                                      mpe__g.mult_fp);
      c->user_t0[cell] = 0;
    }
  return MPE_LOG_OK;
}

int
MPE_Metric_guard (int cell, int flag_cell)
{
  if (flag_cell != -1 && !USER_CELL (flag_cell))
    return MPE_LOG_PACK_FAIL;
  int16_t g = (int16_t) (flag_cell + 1);
  if (USER_CELL (cell))
    user_guard[cell] = g;
  else if (cell >= (int) MPE_MID_STD && cell < (int) MPE_MID_STD + MPE_MSTD_N)
    std_guard[cell - MPE_MID_STD] = g;
  else if (cell >= (int) MPE_MID_FN
           && cell < (int) MPE_MID_FN + 2 * MPE_MFN_MAX)
    fn_guard[cell - MPE_MID_FN] = g;
  else
    return MPE_LOG_PACK_FAIL;
  int any = 0;
  for (int k = 0; k < MPE_MSTD_N; k++)
    any |= std_guard[k] != 0;
  for (int k = 0; k < 2 * MPE_MFN_MAX; k++)
    any |= fn_guard[k] != 0;
  mpe__mstd_guarded = any;
  return MPE_LOG_OK;
}

/* The value a sample or a read gives for metric id (object for channel
 * cells); 0 for an unknown id. */
static int64_t
value_of (const mpe_mcells_t *c, uint32_t id, int partner)
{
  if (id < MPE_METRIC_MAX_CELLS)
    return c->user[id];
  if (id >= MPE_MID_FN && id < MPE_MID_FN + 2 * MPE_MFN_MAX)
    {
      uint32_t k = id - MPE_MID_FN;
      return k & 1 ? (int64_t) mpe_spill_mul_shr32 ((uint64_t) c->fn[k],
                                                    mpe__g.mult_fp)
                   : c->fn[k];
    }
  if (id >= MPE_MID_STD && id < MPE_MID_STD + MPE_MSTD_N)
    {
      uint32_t k = id - MPE_MID_STD;
      if (k == MPE_MSTD_MPI_CALLS || k == MPE_MSTD_MPI_TIME)
        {
          /* Sums over the functions (internal states 250, 251 aside). */
          uint64_t s = 0;
          for (int f = 0; f < MPE_MFN_MAX; f++)
            if (f != 250 && f != 251)
              s += (uint64_t) c->fn[2 * f + (k == MPE_MSTD_MPI_TIME)];
          return k == MPE_MSTD_MPI_TIME
                 ? (int64_t) mpe_spill_mul_shr32 (s, mpe__g.mult_fp)
                 : (int64_t) s;
        }
      return c->std[k];
    }
  if (id >= MPE_MID_CHAN && id < MPE_MID_CHAN + MPE_MCHAN_N)
    {
      uint32_t k = id - MPE_MID_CHAN;
      return c->chan[k] && partner >= 0 && partner < c->nchan
             ? c->chan[k][partner] : 0;
    }
  return 0;
}

long long
MPE_Metric_read (int cell)
{
  mpe_mcells_t *c = cells ();
  if (!c || cell < 0)
    return 0;
  if ((uint32_t) cell < MPE_METRIC_MAX_CELLS && !USER_CELL (cell))
    return 0;
  return value_of (c, (uint32_t) cell, -1);
}

long long
MPE_Metric_read_channel (int cell, int partner)
{
  mpe_mcells_t *c = cells ();
  if (!c || cell < (int) MPE_MID_CHAN
      || cell >= (int) MPE_MID_CHAN + MPE_MCHAN_N)
    return 0;
  return value_of (c, (uint32_t) cell, partner);
}

/* The live monitor's reader (mpe-monitor.h): metric
 * id summed over this process's threads (thread -1), of one thread, or
 * towards one partner (MPE_MON_THREAD_CHANNEL).  It reads other threads'
 * cells without their cooperation: a sample may miss an update in
 * flight, never touch freed memory (a thread's channel arrays are
 * allocated once, from NULL, at the world's size, before nchan says they
 * exist). */
int
mpe__metric_monitor_read (uint32_t id, int thread, int64_t *v)
{
  int partner = thread <= -2 ? -2 - thread : -1;
  if (partner >= 0)
    thread = -1;
  int known = (id < MPE_METRIC_MAX_CELLS && USER_CELL (id))
              || (id >= MPE_MID_FN && id < MPE_MID_FN + 2 * MPE_MFN_MAX)
              || (id >= MPE_MID_STD && id < MPE_MID_STD + MPE_MSTD_N)
              || (id >= MPE_MID_CHAN && id < MPE_MID_CHAN + MPE_MCHAN_N
                  && partner >= 0);
  if (!known)
    return -1;
  int64_t sum = 0;
  int found = 0;
  pthread_mutex_lock (&mlock);
  for (const mpe_mcells_t *c = all_cells; c; c = c->next)
    if (thread < 0 || (c->tb && c->tb->thread == thread))
      {
        if (partner >= 0
            && partner >= __atomic_load_n (&c->nchan, __ATOMIC_ACQUIRE))
          continue;
        sum = (int64_t) ((uint64_t) sum + (uint64_t) value_of (c, id,
                                                               partner));
        found = 1;
      }
  pthread_mutex_unlock (&mlock);
  *v = sum;
  return found || thread < 0 ? 0 : -1;
}

/* Names of the wrapped functions, by function index (wrappers). */
static const char *fn_names[MPE_MFN_MAX];

void
mpe__metric_fn_name (int32_t start_id, const char *name)
{
  int end, fn = mpe__known_fn (start_id, &end);
  if (fn >= 0 && !end)
    fn_names[fn] = name;
}

int
MPE_Metric_find (const char *name, int *cell)
{
  if (!name || !cell)
    return MPE_LOG_PACK_FAIL;
  pthread_mutex_lock (&mlock);
  int rc = MPE_LOG_PACK_FAIL;
  for (size_t i = 0; i < ndefs; i++)
    if (!strcmp (defs[i].name, name))
      {
        *cell = (int) defs[i].id;
        rc = MPE_LOG_OK;
        break;
      }
  pthread_mutex_unlock (&mlock);
  /* A function's cells exist before it is defined in the log. */
  const char *dot = strrchr (name, '.');
  for (int f = 0; rc != MPE_LOG_OK && dot && f < MPE_MFN_MAX; f++)
    if (fn_names[f] && strlen (fn_names[f]) == (size_t) (dot - name)
        && !strncmp (fn_names[f], name, (size_t) (dot - name))
        && (!strcmp (dot, ".calls") || !strcmp (dot, ".time")))
      {
        *cell = (int) (MPE_MID_FN + 2 * (uint32_t) f
                       + (strcmp (dot, ".time") == 0));
        rc = MPE_LOG_OK;
      }
  return rc;
}

/* ---- Channel cells ----------------------------------------------------- */

int64_t *
mpe__mchan_grow (mpe_mcells_t *c, int partner)
{
  int n = mpe__g.size > partner ? mpe__g.size : partner + 1;
  for (int k = 0; k < MPE_MCHAN_N; k++)
    {
      int64_t *v = realloc (c->chan[k], (size_t) n * sizeof *v);
      int64_t *e = realloc (c->chan_em[k], (size_t) n * sizeof *e);
      if (v)
        c->chan[k] = v;
      if (e)
        c->chan_em[k] = e;
      if (!v || !e)
        return NULL;
      memset (v + c->nchan, 0, (size_t) (n - c->nchan) * sizeof *v);
      memset (e + c->nchan, 0, (size_t) (n - c->nchan) * sizeof *e);
    }
  /* Published after the arrays: the monitor reads them from another
     thread (mpe__metric_monitor_read). */
  __atomic_store_n (&c->nchan, n, __ATOMIC_RELEASE);
  return c->chan[0];
}

/* ---- Samples ----------------------------------------------------------- */

/* One METRIC record into thread buffer b (b's owner, or a quiescent
 * thread at the finish). */
static void
put_sample (mpe_tbuf_t *b, uint32_t id, int64_t object, int64_t v)
{
  mpe_rec_t *r = b->pos;
  if (MPE_UNLIKELY (r >= b->wend))
    r = mpe__tbuf_full (b);
  mpe_spill_metric_t m = { object, v };
  r->t = mpe__ticks ();
  r->id = (int32_t) id;
  r->aux = MPE_REC_METRIC | b->tag;
  memcpy (r + 1, &m, sizeof m);
  MPE_PUBLISH (b->pos, r + 2);
  MPE_PUBLISH (b->metric_slots, b->metric_slots + 2);
}

/* Writes every cell of c that changed since its last sample. */
static void
sample_cells (mpe_mcells_t *c, mpe_tbuf_t *b)
{
  int nu = atomic_load (&nuser);
  for (int i = 0; i < nu; i++)
    if (c->user[i] != c->user_em[i])
      {
        put_sample (b, (uint32_t) i, -1, c->user[i]);
        c->user_em[i] = c->user[i];
      }
  for (uint32_t k = 0; k < MPE_MSTD_N; k++)
    {
      int64_t v = value_of (c, MPE_MID_STD + k, -1);
      if (v != c->std_em[k])
        {
          put_sample (b, MPE_MID_STD + k, -1, v);
          c->std_em[k] = v;
        }
    }
  for (uint32_t k = 0; k < 2 * MPE_MFN_MAX; k++)
    if (c->fn[k] != c->fn_em[k])
      {
        put_sample (b, MPE_MID_FN + k, -1, value_of (c, MPE_MID_FN + k, -1));
        c->fn_em[k] = c->fn[k];
      }
  for (uint32_t k = 0; k < MPE_MCHAN_N; k++)
    for (int p = 0; c->chan[k] && p < c->nchan; p++)
      if (c->chan[k][p] != c->chan_em[k][p])
        {
          put_sample (b, MPE_MID_CHAN + k, p, c->chan[k][p]);
          c->chan_em[k][p] = c->chan[k][p];
        }
}

static int
log_on (void)
{
  return atomic_load_explicit (&mpe__mode, memory_order_relaxed) != 0
         && mpe__g.state == 1;
}

/* The calling thread's samples, if it logs. */
static void
sample_self (void)
{
  mpe_mcells_t *c = mpe__mtls;
  if (!c || !log_on ())
    return;
  mpe_tbuf_t *b = mpe__tls ? mpe__tls : mpe__tbuf_create (0);
  if (!b)
    return;
  c->tb = b;
  uint64_t due = mpe__mdue;
  mpe__mdue = UINT64_MAX;  /* no re-entry from put */
  sample_cells (c, b);
  mpe__mdue = due;
}

void
mpe__metric_due (uint64_t t)
{
  if (period_ticks == 0)
    {
      mpe__mdue = UINT64_MAX;
      return;
    }
  mpe__mdue = UINT64_MAX;
  sample_self ();
  mpe__mdue = t + period_ticks;
}

void
mpe__metric_on (int32_t id)
{
  for (int i = 0; i < mpe__mon_n; i++)
    if (on_ids[i] == id)
      {
        sample_self ();
        return;
      }
}

int
MPE_Metric_sample (void)
{
  sample_self ();
  return MPE_LOG_OK;
}

int
MPE_Metric_sample_on (int event_id)
{
  pthread_mutex_lock (&mlock);
  int rc = MPE_LOG_NO_MEMORY;
  if (mpe__mon_n < 64)
    {
      on_ids[mpe__mon_n] = event_id;
      __atomic_store_n (&mpe__mon_n, mpe__mon_n + 1, __ATOMIC_RELEASE);
      rc = MPE_LOG_OK;
    }
  pthread_mutex_unlock (&mlock);
  /* Bare events must now look for the chosen ones. */
  pthread_mutex_lock (&mpe__g.lock);
  mpe__mode_store (atomic_load (&mpe__mode));
  pthread_mutex_unlock (&mpe__g.lock);
  return rc;
}

/* At the finish, before the merge: every thread's last values (threads
 * are quiescent then, as the merge reading their buffers requires). */
void
mpe__metrics_final (void)
{
  if (!log_on ())
    return;
  sample_self ();
  pthread_mutex_lock (&mlock);
  for (mpe_mcells_t *c = all_cells; c; c = c->next)
    if (c->tb && c != mpe__mtls)
      sample_cells (c, c->tb);
  pthread_mutex_unlock (&mlock);
}

/* The live monitor's samples (mpe-monitor.c): a definition for what it
 * sampled, and one record on the calling thread's timeline. */
void
mpe__metric_describe_monitor (uint32_t id, const char *name,
                              const char *unit)
{
  add_def (id, LOGFMT_METRIC_MONITOR | LOGFMT_METRIC_LEVEL, name, unit);
}

const char *
mpe__metric_name (uint32_t id, const char **unit)
{
  const char *n = NULL;
  pthread_mutex_lock (&mlock);
  for (size_t i = 0; i < ndefs && !n; i++)
    if (defs[i].id == id)
      {
        n = defs[i].name;
        *unit = defs[i].unit;
      }
  pthread_mutex_unlock (&mlock);
  return n;
}

void
mpe__metric_put_monitor (uint32_t id, int64_t object, int64_t v)
{
  if (!log_on ())
    return;
  mpe_tbuf_t *b = mpe__tls ? mpe__tls : mpe__tbuf_create (0);
  if (b)
    put_sample (b, id, object, v);
}

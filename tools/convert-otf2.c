/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OTF2 export, so Vampir and the Score-P tools read our logs:
 *  - one region per state, Enter/Leave for each instance as the state
 *    tracker pairs them (FORMAT.md section 13).  OTF2 regions nest: an
 *    END that leaves instances begun inside its own open (states that
 *    overlap without nesting) leaves them and re-enters them at once, the
 *    re-entries carrying the attribute "continued" (joined, the pieces
 *    are the instances);
 *  - MpiSend/MpiRecv with the communicator and the partner's rank in it;
 *    MpiCollectiveBegin/End inside the collectives the wrappers logged;
 *  - an event's cargo as attributes "MPE cargo 0..3" of its Enter/Leave;
 *  - solo events as metric events, one metric per event kind (value 1);
 *  - every track record as a metric event of its series' class, merged
 *    by time; call-path samples also as calling-context samples;
 *  - one location per stream, one location group per rank, one system
 *    tree node per host;
 *  - what OTF2 has no record for (constants, resources, call-path
 *    tables) as properties our importer reads;
 *  - nanosecond clock properties and the global definitions.
 * Streams are written one after the other, straight from the reader's
 * iterators; OTF2 flushes its chunks itself, so memory stays bounded.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "callpath/callpath.h"
#include "clogtool-internal.h"
#include "convert-internal.h"
#include "otf2in.h"

#ifdef HAVE_OTF2
#include <otf2/otf2.h>

/* A metric class: a solo event (kind 0, k0 = its id, INT32_MIN for
 * lost events), or one series of a track kind, keyed by the kind's key
 * columns (track_keys). */
typedef struct
{
  uint32_t kind;
  int64_t k0, k1;
} mkey_t;

typedef struct
{
  OTF2_Archive *ar;
  convert_ctx_t *c;
  const logfmt_reader_t *r;
  uint32_t nstrings;
  uint32_t nranks;            /* world ranks with a location */
  uint64_t *loc_of_rank;      /* rank -> location (first stream) */
  uint64_t *nevents;          /* per location */
  uint32_t nlocs;
  int32_t *loc_rank, *loc_thread;
  /* Solo events and track series -> metric classes, made as met. */
  mkey_t *mkeys;
  size_t nmetrics, capmetrics;
  uint32_t *mhash;            /* open addressing: class index + 1 */
  size_t hcap;
  /* Per comm: world rank -> rank in comm (-1 if not a member). */
  int32_t **inv;
  uint32_t *comm_size;
  size_t ncomms;
  uint64_t unnested;
  uint64_t tracked;           /* track records written as metrics */
  /* Call-path samples as calling-context samples: rank -> id of its
   * node 1 (node k is cc_base + k - 1; -1: no tables), and per calling
   * context its depth (the unwind distance of a sample there). */
  int64_t *cc_base;
  uint32_t *cc_depth;
  uint64_t ncc;
  logfmt_state_tracker_t *tracker;
  OTF2_AttributeList *continued;  /* "continued" = 1, for re-entries */
  OTF2_AttributeList *cargo;      /* an instance's BEGIN or END cargo */
  uint8_t *coll;              /* per state: 1 + OTF2 op of a collective
                                 the wrappers logged, else 0 */
  an_comm_map_t *labels;      /* the wrappers' comm label -> definition */
  uint32_t world;             /* OTF2 comm of MPI_COMM_WORLD */
  int own_world;              /* 1: no comm of the log is it; we add it */
} otf2_t;

#define ATTR_CONTINUED 0
#define ATTR_CARGO     1  /* .. 4: "MPE cargo 0..3", the cargo's 64-bit
                             big-endian words */

static OTF2_FlushType
pre_flush (void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cb,
           bool final)
{
  (void) ud; (void) ft; (void) loc; (void) cb; (void) final;
  return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush (void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
  (void) ud; (void) ft; (void) loc;
  return 0;
}

static OTF2_FlushCallbacks flush_cbs = { pre_flush, post_flush };

static int
oerr (otf2_t *o, OTF2_ErrorCode e, const char *what)
{
  clogtool__error ("%s: OTF2 %s: %s", o->c->out, what,
                   OTF2_Error_GetDescription (e));
  return -1;
}

/* Key columns of a track kind: the rest are the values of its metric
 * class, one member each. */
static uint32_t
track_keys (uint32_t kind)
{
  switch (kind)
    {
    case LOGFMT_TRACK_METRIC:
      return 2;                 /* id, object */
    case LOGFMT_TRACK_MEMORY:   /* cell */
    case LOGFMT_TRACK_NETWORK:  /* nic */
      return 1;
    default:
      return 0;
    }
}

static size_t
mkey_hash (const mkey_t *k)
{
  uint64_t h = k->kind * 0x9e3779b97f4a7c15ull;
  h = (h ^ (uint64_t) k->k0) * 0xff51afd7ed558ccdull;
  h = (h ^ (uint64_t) k->k1) * 0xc4ceb9fe1a85ec53ull;
  return (size_t) (h ^ (h >> 29));
}

/* Metric class of a key, made on first use. */
static uint32_t
metric_for (otf2_t *o, uint32_t kind, int64_t k0, int64_t k1, int *err)
{
  mkey_t k = { kind, k0, k1 };
  if (o->hcap)
    for (size_t h = mkey_hash (&k) & (o->hcap - 1); o->mhash[h];
         h = (h + 1) & (o->hcap - 1))
      {
        const mkey_t *x = &o->mkeys[o->mhash[h] - 1];
        if (x->kind == kind && x->k0 == k0 && x->k1 == k1)
          return o->mhash[h] - 1;
      }
  if (o->nmetrics == o->capmetrics)
    {
      size_t n = o->capmetrics ? o->capmetrics * 2 : 16;
      mkey_t *p = realloc (o->mkeys, n * sizeof *p);
      uint32_t *hp = calloc (2 * n, sizeof *hp);
      if (!p || !hp)
        {
          if (p)
            o->mkeys = p;
          free (hp);
          *err = 1;
          return 0;
        }
      o->mkeys = p;
      o->capmetrics = n;
      free (o->mhash);
      o->mhash = hp;
      o->hcap = 2 * n;
      for (size_t i = 0; i < o->nmetrics; i++)
        {
          size_t h = mkey_hash (&o->mkeys[i]) & (o->hcap - 1);
          while (o->mhash[h])
            h = (h + 1) & (o->hcap - 1);
          o->mhash[h] = (uint32_t) i + 1;
        }
    }
  o->mkeys[o->nmetrics] = k;
  size_t h = mkey_hash (&k) & (o->hcap - 1);
  while (o->mhash[h])
    h = (h + 1) & (o->hcap - 1);
  o->mhash[h] = (uint32_t) o->nmetrics + 1;
  return (uint32_t) o->nmetrics++;
}

/* The stream's track records (metrics, memory, NIC counters, context
 * switches, call-path samples), merged by time into its events: each
 * record is a Metric event of its series' class. */
#define NKINDS LOGFMT_TRACK_KIND_MAX
typedef struct
{
  logfmt_track_iter_t *it[NKINDS + 1];
  logfmt_track_rec_t rec[NKINDS + 1];
  uint32_t ncols[NKINDS + 1];
  int have[NKINDS + 1];
  int32_t rank;               /* the stream's, for its call paths */
} tracks_t;

static int
tracks_open (otf2_t *o, uint32_t s, tracks_t *t)
{
  memset (t, 0, sizeof *t);
  t->rank = o->loc_rank[s];
  for (uint32_t k = 1; k <= NKINDS; k++)
    {
      logfmt_track_info_t ti;
      if (logfmt_reader_track_info (o->r, s, k, &ti) != 0 || !ti.records)
        continue;
      int rc = logfmt_track_iter_new (o->r, s, k, 0, UINT64_MAX, &t->it[k]);
      if (rc == 0)
        rc = logfmt_track_iter_next (t->it[k], &t->rec[k]);
      if (rc < 0)
        {
          clogtool__lib_error (o->c->in, rc, logfmt_track_iter_error (t->it[k]));
          return -1;
        }
      t->have[k] = rc == 1;
      t->ncols[k] = ti.ncols;
    }
  return 0;
}

static void
tracks_close (tracks_t *t)
{
  for (uint32_t k = 1; k <= NKINDS; k++)
    logfmt_track_iter_free (t->it[k]);
}

/* Writes the records up to time until (inclusive), oldest first. */
static int
tracks_until (otf2_t *o, OTF2_EvtWriter *ew, tracks_t *t, uint64_t until,
              OTF2_ErrorCode *e)
{
  for (;;)
    {
      uint32_t best = 0;
      for (uint32_t k = 1; k <= NKINDS; k++)
        if (t->have[k] && t->rec[k].time <= until
            && (!best || t->rec[k].time < t->rec[best].time))
          best = k;
      if (!best || *e != OTF2_SUCCESS)
        return 0;
      const logfmt_track_rec_t *rec = &t->rec[best];
      uint32_t nk = track_keys (best), nc = t->ncols[best];
      if (nc > nk)
        {
          int err = 0;
          uint32_t m = metric_for (o, best, nk > 0 ? rec->col[0] : 0,
                                   nk > 1 ? rec->col[1] : 0, &err);
          if (err)
            return -1;
          OTF2_Type ty[LOGFMT_TRACK_MAX_COLS];
          OTF2_MetricValue v[LOGFMT_TRACK_MAX_COLS];
          for (uint32_t i = 0; i < nc - nk; i++)
            {
              ty[i] = OTF2_TYPE_INT64;
              v[i].signed_int = rec->col[nk + i];
            }
          *e = OTF2_EvtWriter_Metric (ew, NULL, rec->time, m,
                                      (uint8_t) (nc - nk), ty, v);
          o->tracked++;
          int64_t node = rec->col[LOGFMT_SAMPLE_COL_NODE];
          if (best == LOGFMT_TRACK_CALLPATH && *e == OTF2_SUCCESS
              && o->cc_base[t->rank] >= 0 && node >= 1
              && (uint64_t) (o->cc_base[t->rank] + node - 1) < o->ncc)
            {
              uint64_t cc = (uint64_t) o->cc_base[t->rank] + (uint64_t) node
                            - 1;
              *e = OTF2_EvtWriter_CallingContextSample (
                ew, NULL, rec->time, (uint32_t) cc, o->cc_depth[cc], 0);
            }
        }
      int rc = logfmt_track_iter_next (t->it[best], &t->rec[best]);
      if (rc < 0)
        {
          clogtool__lib_error (o->c->in, rc,
                               logfmt_track_iter_error (t->it[best]));
          return -1;
        }
      t->have[best] = rc == 1;
    }
}

/* Partner (world rank) -> rank in comm, falling back to MPI_COMM_WORLD
 * (comm id ncomms, added by us) when the comm does not know it. */
static void
msg_target (const otf2_t *o, uint32_t comm, int32_t partner,
            uint32_t *ocomm, uint32_t *orank)
{
  if (comm < o->ncomms && o->inv[comm] && partner >= 0
      && (uint32_t) partner < o->nranks && o->inv[comm][partner] >= 0)
    {
      *ocomm = comm;
      *orank = (uint32_t) o->inv[comm][partner];
      return;
    }
  *ocomm = o->world;
  *orank = partner < 0 ? 0 : (uint32_t) partner;
}

/* A collective's end, from the wrappers' cargo on its END: the
 * communicator its label names, the root (-1: none) and the bytes. */
static OTF2_ErrorCode
coll_end (otf2_t *o, OTF2_EvtWriter *ew, const logfmt_interval_t *iv)
{
  an_coll_cargo_t cc = { 0xffffffffu, 0, -1, 0, 0 };
  if (iv->flags & LOGFMT_IV_END_CARGO)
    an_coll_cargo_decode (iv->end_cargo, &cc);
  uint32_t comm = o->world;
  const logfmt_comm_def_t *d = an_comm_map_find (o->labels, cc.label);
  for (size_t i = 0; d && i < o->ncomms; i++)
    if (logfmt_reader_comm (o->r, i) == d)
      comm = (uint32_t) i;
  return OTF2_EvtWriter_MpiCollectiveEnd (
    ew, NULL, iv->end, (OTF2_CollectiveOp) (o->coll[iv->state] - 1), comm,
    cc.root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t) cc.root, cc.sent,
    cc.recv);
}

/* The cargo as attributes of the next Enter or Leave; NULL when there
 * is none. */
static OTF2_AttributeList *
cargo_attrs (otf2_t *o, const uint8_t *cargo, OTF2_ErrorCode *e)
{
  if (!cargo)
    return NULL;
  for (int k = 0; k < 4 && *e == OTF2_SUCCESS; k++)
    {
      OTF2_AttributeValue v;
      v.uint64 = 0;
      for (int i = 0; i < 8; i++)
        v.uint64 = v.uint64 << 8 | cargo[8 * k + i];
      *e = OTF2_AttributeList_AddAttribute (o->cargo, ATTR_CARGO + k,
                                            OTF2_TYPE_UINT64, v);
    }
  return o->cargo;
}

static int
write_stream (otf2_t *o, uint32_t s)
{
  const logfmt_reader_t *r = o->r;
  OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter (o->ar, s);
  if (!ew)
    return oerr (o, OTF2_ERROR_INVALID, "cannot get an event writer");
  logfmt_iter_t *it = NULL;
  int rc = logfmt_iter_new (r, s, 0, UINT64_MAX, &it);
  if (rc)
    {
      clogtool__lib_error (o->c->in, rc, NULL);
      return -1;
    }
  logfmt_state_tracker_t *tr = o->tracker;
  logfmt_state_tracker_reset (tr, s);
  logfmt_event_t ev;
  uint64_t last = 0;
  OTF2_ErrorCode e = OTF2_SUCCESS;
  int bad = 0, terr = 0;
  tracks_t tk;
  if (tracks_open (o, s, &tk))
    {
      tracks_close (&tk);
      logfmt_iter_free (it);
      return -1;
    }
  while (e == OTF2_SUCCESS && !bad && !terr
         && (rc = logfmt_iter_next (it, &ev)) == 1)
    {
      last = ev.time;
      if (tracks_until (o, ew, &tk, ev.time, &e))
        {
          terr = 1;
          break;
        }
      convert__count_event (o->c);
      switch (ev.kind)
        {
        case LOGFMT_KIND_BEGIN:
        case LOGFMT_KIND_END:
          {
            logfmt_interval_t iv;
            uint32_t inner = 0;
            int st = logfmt_state_tracker_apply (tr, &ev, &iv, &inner);
            if (st == LOGFMT_STEP_OPENED)
              {
                OTF2_AttributeList *al = cargo_attrs (
                  o, ev.flags & LOGFMT_EVF_CARGO ? ev.cargo : NULL, &e);
                if (e == OTF2_SUCCESS)
                  e = OTF2_EvtWriter_Enter (ew, al, ev.time,
                                            (uint32_t) ev.state);
                if (e == OTF2_SUCCESS && o->coll[ev.state])
                  e = OTF2_EvtWriter_MpiCollectiveBegin (ew, NULL, ev.time);
              }
            else if (st == LOGFMT_STEP_CLOSED)
              {
                /* The inner ones, now open indices depth-inner ..
                 * depth-1, are left and re-entered around it. */
                uint32_t d = logfmt_state_tracker_depth (tr);
                for (uint32_t i = d; e == OTF2_SUCCESS && i > d - inner; i--)
                  e = OTF2_EvtWriter_Leave (
                    ew, NULL, ev.time,
                    (uint32_t) logfmt_state_tracker_open (tr, i - 1)->state);
                if (e == OTF2_SUCCESS && o->coll[iv.state])
                  e = coll_end (o, ew, &iv);
                OTF2_AttributeList *al = NULL;
                if (e == OTF2_SUCCESS)
                  al = cargo_attrs (o, iv.flags & LOGFMT_IV_END_CARGO
                                       ? iv.end_cargo : NULL, &e);
                if (e == OTF2_SUCCESS)
                  e = OTF2_EvtWriter_Leave (ew, al, ev.time,
                                            (uint32_t) iv.state);
                for (uint32_t i = d - inner; e == OTF2_SUCCESS && i < d; i++)
                  {
                    OTF2_AttributeValue one = { .uint8 = 1 };
                    e = OTF2_AttributeList_AddAttribute (
                      o->continued, ATTR_CONTINUED, OTF2_TYPE_UINT8, one);
                    if (e == OTF2_SUCCESS)
                      e = OTF2_EvtWriter_Enter (
                        ew, o->continued, ev.time,
                        (uint32_t) logfmt_state_tracker_open (tr, i)->state);
                  }
                if (inner)
                  o->unnested++;
              }
            else if (st == LOGFMT_STEP_UNMATCHED_END
                     || (st == LOGFMT_STEP_TOO_DEEP
                         && ev.kind == LOGFMT_KIND_BEGIN))
              o->c->dropped++;
            else if (st < 0)
              bad = 1;
          }
          break;
        case LOGFMT_KIND_SOLO:
        case LOGFMT_KIND_LOSS:
          {
            /* Loss records share one metric, keyed INT32_MIN. */
            int32_t key = ev.kind == LOGFMT_KIND_LOSS ? INT32_MIN : ev.id;
            uint32_t m = metric_for (o, 0, key, 0, &bad);
            OTF2_Type t = OTF2_TYPE_INT64;
            OTF2_MetricValue v;
            v.signed_int = ev.kind == LOGFMT_KIND_LOSS ? (int64_t) ev.size : 1;
            OTF2_AttributeList *al = cargo_attrs (
              o, ev.kind == LOGFMT_KIND_SOLO && (ev.flags & LOGFMT_EVF_CARGO)
                 ? ev.cargo : NULL, &e);
            if (!bad && e == OTF2_SUCCESS)
              e = OTF2_EvtWriter_Metric (ew, al, ev.time, m, 1, &t, &v);
          }
          break;
        case LOGFMT_KIND_SEND:
        case LOGFMT_KIND_RECV:
          {
            uint32_t comm, rank;
            msg_target (o, ev.comm, ev.partner, &comm, &rank);
            if (ev.kind == LOGFMT_KIND_SEND)
              e = OTF2_EvtWriter_MpiSend (ew, NULL, ev.time, rank, comm,
                                          (uint32_t) ev.tag, ev.size);
            else
              e = OTF2_EvtWriter_MpiRecv (ew, NULL, ev.time, rank, comm,
                                          (uint32_t) ev.tag, ev.size);
          }
          break;
        default:
          o->c->dropped++;
          break;
        }
    }
  /* Regions still open at the end of the stream close at its last event,
   * innermost first. */
  for (uint32_t i = logfmt_state_tracker_depth (tr);
       e == OTF2_SUCCESS && !bad && rc >= 0 && i > 0; i--)
    {
      logfmt_interval_t iv = *logfmt_state_tracker_open (tr, i - 1);
      iv.end = last;
      iv.flags &= ~LOGFMT_IV_END_CARGO;
      if (o->coll[iv.state])
        e = coll_end (o, ew, &iv);
      if (e == OTF2_SUCCESS)
        e = OTF2_EvtWriter_Leave (ew, NULL, last, (uint32_t) iv.state);
    }
  if (!bad && !terr && rc >= 0 && tracks_until (o, ew, &tk, UINT64_MAX, &e))
    terr = 1;
  tracks_close (&tk);
  logfmt_state_tracker_reset (tr, s);
  if (rc < 0)
    {
      clogtool__lib_error (o->c->in, rc, logfmt_iter_error (it));
      logfmt_iter_free (it);
      return -1;
    }
  logfmt_iter_free (it);
  if (bad)
    {
      clogtool__error ("out of memory");
      return -1;
    }
  if (terr)
    return -1;
  if (e != OTF2_SUCCESS)
    return oerr (o, e, "writing events");
  uint64_t n = 0;
  OTF2_EvtWriter_GetNumberOfEvents (ew, &n);
  o->nevents[s] = n;
  e = OTF2_Archive_CloseEvtWriter (o->ar, ew);
  return e == OTF2_SUCCESS ? 0 : oerr (o, e, "closing an event writer");
}

/* A track series' member: its name and unit for Vampir, the metric
 * flags (metrics), the mode (counters accumulate). */
static void
member_label (const logfmt_reader_t *r, const mkey_t *k, uint32_t col,
              char *name, size_t nlen, char *unit, size_t ulen,
              uint32_t *flags, OTF2_MetricMode *mode)
{
  static const char *const nic[] = { "", "rx bytes", "tx bytes",
                                     "rx packets", "tx packets" };
  snprintf (unit, ulen, "#");
  switch (k->kind)
    {
    case LOGFMT_TRACK_METRIC:
      {
        int d = logfmt_reader_find_metric (r, (uint32_t) k->k0);
        const logfmt_metric_def_t *md
          = d >= 0 ? logfmt_reader_metric (r, (size_t) d) : NULL;
        /* The metric's name, and the partner of a channel or the
         * object of a monitor cell (the import names the metric from
         * its definition's member, not from these). */
        char base[200];
        if (md && md->name)
          snprintf (base, sizeof base, "%s", md->name);
        else
          snprintf (base, sizeof base, "metric %" PRId64, k->k0);
        if (k->k1 >= 0 && md && (md->flags & LOGFMT_METRIC_CHANNEL))
          snprintf (name, nlen, "%s to rank %" PRId64, base, k->k1);
        else if (k->k1 >= 0)
          snprintf (name, nlen, "%s [%" PRId64 "]", base, k->k1);
        else
          snprintf (name, nlen, "%s", base);
        if (md && md->unit)
          snprintf (unit, ulen, "%s", md->unit);
        *flags = md ? md->flags : 0;
        if (!(*flags & LOGFMT_METRIC_LEVEL))
          *mode = OTF2_METRIC_ACCUMULATED_START;
      }
      break;
    case LOGFMT_TRACK_MEMORY:
      if (k->k0 < 0)
        snprintf (name, nlen, col == LOGFMT_MEMORY_COL_LIVE
                  ? "memory live bytes" : "memory allocations");
      else
        snprintf (name, nlen, "%s (site %" PRId64 ")",
                  col == LOGFMT_MEMORY_COL_LIVE ? "memory live bytes"
                  : "memory allocations", k->k0);
      snprintf (unit, ulen, col == LOGFMT_MEMORY_COL_LIVE ? "bytes" : "#");
      if (col != LOGFMT_MEMORY_COL_LIVE)
        *mode = OTF2_METRIC_ACCUMULATED_START;
      break;
    case LOGFMT_TRACK_NETWORK:
      {
        const char *nn = NULL;
        for (size_t i = 0; i < logfmt_reader_n_resources (r) && !nn; i++)
          {
            const logfmt_resource_def_t *d = logfmt_reader_resource (r, i);
            if (d->kind == LOGFMT_RES_NIC && d->nv > LOGFMT_NIC_ID
                && d->v[LOGFMT_NIC_ID] == k->k0 && d->ns > 1)
              nn = d->s[1];
          }
        if (nn)
          snprintf (name, nlen, "NIC %s %s", nn, col < 5 ? nic[col] : "?");
        else
          snprintf (name, nlen, "NIC %" PRId64 " %s", k->k0,
                    col < 5 ? nic[col] : "?");
      }
      snprintf (unit, ulen, col <= LOGFMT_NETWORK_COL_TXB ? "bytes" : "#");
      *mode = OTF2_METRIC_ACCUMULATED_START;
      break;
    case LOGFMT_TRACK_SWITCH:
      snprintf (name, nlen, col == LOGFMT_SWITCH_COL_CPU
                ? "context switch: cpu"
                : "context switch: 1 in, 2 blocked, 3 preempted");
      break;
    case LOGFMT_TRACK_CALLPATH:
      {
        static const char *const cp[] = { "node", "cpu", "flags", "state",
                                          "weight" };
        snprintf (name, nlen, "call-path sample: %s", col < 5 ? cp[col] : "?");
      }
      break;
    default:
      snprintf (name, nlen, "track %u column %u", k->kind, col);
      break;
    }
}

static uint32_t
str (otf2_t *o, OTF2_GlobalDefWriter *g, const char *s, OTF2_ErrorCode *e)
{
  uint32_t id = o->nstrings++;
  if (*e == OTF2_SUCCESS)
    *e = OTF2_GlobalDefWriter_WriteString (g, id, s ? s : "");
  return id;
}

/* Each rank's call-path tables (binaries with build ids, the tree the
 * samples point into), encoded as the .clog stores them, in hex, as a
 * property "MPE callpaths" of the rank's location group: what the
 * import needs for `clogtool cct` (OTF2 has no place for binaries and
 * addresses). */
static int
write_callpaths (otf2_t *o, OTF2_GlobalDefWriter *g, OTF2_ErrorCode *e)
{
  const logfmt_reader_t *r = o->r;
  size_t n = logfmt_reader_callpath_ranks (r, NULL, 0);
  int32_t *ranks = calloc (n + 1, sizeof *ranks);
  if (!ranks)
    goto oom;
  n = logfmt_reader_callpath_ranks (r, ranks, n);
  uint32_t pname = n ? str (o, g, "MPE callpaths", e) : 0;
  for (size_t i = 0; i < n && *e == OTF2_SUCCESS; i++)
    {
      logfmt_callpaths_t *cp = NULL;
      logfmt_error_t err = { 0 };
      void *blob = NULL;
      size_t len = 0;
      int rc = logfmt_reader_callpaths (r, ranks[i], &cp, &err);
      if (rc)
        {
          clogtool__lib_error (o->c->in, rc, &err);
          free (ranks);
          return -1;
        }
      if (ranks[i] < 0 || (uint32_t) ranks[i] >= o->nranks)
        {
          logfmt_callpaths_free (cp);
          continue;
        }
      rc = logfmt_callpaths_encode (cp->rank, cp->modules, cp->nmodules,
                                    cp->nodes, cp->nnodes, &blob, &len);
      logfmt_callpaths_free (cp);
      char *hex = rc ? NULL : malloc (2 * len + 1);
      if (!hex)
        {
          free (blob);
          goto oom;
        }
      for (size_t k = 0; k < len; k++)
        sprintf (hex + 2 * k, "%02x", ((const uint8_t *) blob)[k]);
      hex[2 * len] = '\0';
      free (blob);
      OTF2_AttributeValue v;
      v.stringRef = str (o, g, hex, e);
      free (hex);
      if (*e == OTF2_SUCCESS)
        *e = OTF2_GlobalDefWriter_WriteLocationGroupProperty (
          g, (uint32_t) ranks[i], pname, OTF2_TYPE_STRING, v);
    }
  free (ranks);
  return 0;
oom:
  free (ranks);
  clogtool__error ("out of memory");
  return -1;
}

static size_t
name_hash (const char *s)
{
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (uint8_t) *s) * 1099511628211ull;
  return (size_t) (h ^ (h >> 32));
}

/* Calling contexts of the samples: a region per function name (ids
 * after the states'), a source location per file and line, a context
 * per node of each rank's tree (parent: its caller's, none under the
 * root), and the sampling interrupt generator (period from
 * MPE_SAMPLE_HZ, else 200 Hz, as clogtool cct assumes). */
static int
write_contexts (otf2_t *o, OTF2_GlobalDefWriter *g, OTF2_ErrorCode *e)
{
  const logfmt_reader_t *r = o->r;
  size_t n = logfmt_reader_callpath_ranks (r, NULL, 0);
  int32_t *ranks = calloc (n + 1, sizeof *ranks);
  cp_symbols_t *sy = cp_symbols_new ();
  /* Function names -> region, by an open-addressing table. */
  size_t hcap = 1024, nreg = 0;
  const char **hname = calloc (hcap, sizeof *hname);
  uint32_t *hreg = calloc (hcap, sizeof *hreg);
  uint32_t reg0 = (uint32_t) logfmt_reader_n_states (r), nscl = 0;
  uint32_t empty = str (o, g, "", e);
  int rc = 0;
  if (!ranks || !sy || !hname || !hreg)
    rc = -1;
  n = ranks ? logfmt_reader_callpath_ranks (r, ranks, n) : 0;
  for (size_t i = 0; i < n && !rc && *e == OTF2_SUCCESS; i++)
    {
      logfmt_callpaths_t *cp = NULL;
      logfmt_error_t err = { 0 };
      if (ranks[i] < 0 || (uint32_t) ranks[i] >= o->nranks
          || o->cc_base[ranks[i]] < 0
          || logfmt_reader_callpaths (r, ranks[i], &cp, &err) != 0)
        continue;
      uint64_t base = (uint64_t) o->cc_base[ranks[i]];
      for (size_t k = 1; k < cp->nnodes && !rc && *e == OTF2_SUCCESS; k++)
        {
          cp_frame_t fr;
          cp_symbols_frame (sy, cp, (uint32_t) k, &fr);
          const char *fn = fr.func ? fr.func : "?";
          if (2 * (nreg + 1) > hcap)
            {
              size_t nc = 2 * hcap;
              const char **nn = calloc (nc, sizeof *nn);
              uint32_t *nr = calloc (nc, sizeof *nr);
              if (!nn || !nr)
                {
                  free (nn);
                  free (nr);
                  rc = -1;
                  break;
                }
              for (size_t h = 0; h < hcap; h++)
                if (hname[h])
                  {
                    size_t x = name_hash (hname[h]) & (nc - 1);
                    while (nn[x])
                      x = (x + 1) & (nc - 1);
                    nn[x] = hname[h];
                    nr[x] = hreg[h];
                  }
              free (hname);
              free (hreg);
              hname = nn;
              hreg = nr;
              hcap = nc;
            }
          size_t x = name_hash (fn) & (hcap - 1);
          while (hname[x] && strcmp (hname[x], fn) != 0)
            x = (x + 1) & (hcap - 1);
          if (!hname[x])
            {
              hname[x] = fn;
              hreg[x] = reg0 + (uint32_t) nreg++;
              uint32_t name = str (o, g, fn, e);
              uint32_t file = str (o, g, fr.file ? fr.file : "", e);
              if (*e == OTF2_SUCCESS)
                *e = OTF2_GlobalDefWriter_WriteRegion (
                  g, hreg[x], name, name, empty, OTF2_REGION_ROLE_FUNCTION,
                  OTF2_PARADIGM_SAMPLING, OTF2_REGION_FLAG_NONE, file, 0, 0);
            }
          uint32_t scl = OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
          if (fr.file && fr.line > 0 && *e == OTF2_SUCCESS)
            {
              uint32_t file = str (o, g, fr.file, e);
              scl = nscl++;
              if (*e == OTF2_SUCCESS)
                *e = OTF2_GlobalDefWriter_WriteSourceCodeLocation (
                  g, scl, file, (uint32_t) fr.line);
            }
          uint32_t p = cp->nodes[k].parent;
          if (*e == OTF2_SUCCESS)
            *e = OTF2_GlobalDefWriter_WriteCallingContext (
              g, (uint32_t) (base + k - 1), hreg[x], scl,
              p >= 1 && p < k ? (uint32_t) (base + p - 1)
                              : OTF2_UNDEFINED_CALLING_CONTEXT);
        }
      logfmt_callpaths_free (cp);
    }
  if (!rc && *e == OTF2_SUCCESS)
    {
      int64_t hz = 200;
      for (size_t i = 0; i < logfmt_reader_n_consts (r); i++)
        {
          const logfmt_const_def_t *c = logfmt_reader_const (r, i);
          if (c->name && strcmp (c->name, "MPE_SAMPLE_HZ") == 0
              && c->value > 0)
            hz = c->value;
        }
      uint32_t name = str (o, g, "cpu-clock", e);
      if (*e == OTF2_SUCCESS)
        *e = OTF2_GlobalDefWriter_WriteInterruptGenerator (
          g, 0, name, OTF2_INTERRUPT_GENERATOR_MODE_TIME, OTF2_BASE_DECIMAL,
          -9, (uint64_t) (1000000000 / hz));
    }
  free (ranks);
  free (hname);
  free (hreg);
  cp_symbols_free (sy);
  if (rc)
    clogtool__error ("out of memory");
  return rc;
}

/* Hex of a string, for a property value that must not be split. */
static void
put_hex (char **p, const char *s)
{
  if (!s)
    {
      *(*p)++ = '-';
      return;
    }
  if (!*s)
    *(*p)++ = '=';
  for (; *s; s++)
    *p += sprintf (*p, "%02x", (unsigned) (uint8_t) *s);
}

/* The log's resource definitions (CPUs, memory call sites and totals,
 * NICs: what `clogtool memory`, `threads` and `cpus` name things by),
 * one property "MPE resource N" of the machine node each: "kind stream
 * nv ns v0 .. v7 s0 s1" with the strings in hex ("-" for none). */
static int
write_resources (otf2_t *o, OTF2_GlobalDefWriter *g, OTF2_ErrorCode *e)
{
  const logfmt_reader_t *r = o->r;
  for (size_t i = 0; i < logfmt_reader_n_resources (r) && *e == OTF2_SUCCESS;
       i++)
    {
      const logfmt_resource_def_t *d = logfmt_reader_resource (r, i);
      size_t cap = 256;
      for (uint32_t k = 0; k < LOGFMT_RES_MAX_S; k++)
        cap += d->s[k] ? 2 * strlen (d->s[k]) : 0;
      char *txt = malloc (cap), *p = txt;
      if (!txt)
        {
          clogtool__error ("out of memory");
          return -1;
        }
      p += sprintf (p, "%u %u %u %u", d->kind, d->stream, d->nv, d->ns);
      for (uint32_t k = 0; k < LOGFMT_RES_MAX_V; k++)
        p += sprintf (p, " %" PRId64, d->v[k]);
      for (uint32_t k = 0; k < LOGFMT_RES_MAX_S; k++)
        {
          *p++ = ' ';
          put_hex (&p, d->s[k]);
        }
      *p = '\0';
      char name[64];
      snprintf (name, sizeof name, "MPE resource %zu", i);
      uint32_t n = str (o, g, name, e);
      OTF2_AttributeValue v;
      v.stringRef = str (o, g, txt, e);
      free (txt);
      if (*e == OTF2_SUCCESS)
        *e = OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty (
          g, 0, n, OTF2_TYPE_STRING, v);
    }
  return 0;
}

static int
write_defs (otf2_t *o)
{
  const logfmt_reader_t *r = o->r;
  const logfmt_info_t *info = logfmt_reader_info (r);
  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter (o->ar);
  OTF2_ErrorCode e = OTF2_SUCCESS;
  char buf[320];
  if (!g)
    return oerr (o, OTF2_ERROR_INVALID, "cannot get the definition writer");

  /* The trace length covers the track records too. */
  uint64_t t_end = info->t_last;
  for (uint32_t k = 1; k <= NKINDS; k++)
    {
      logfmt_track_info_t ti;
      if (logfmt_reader_track_info (r, LOGFMT_NO_STREAM, k, &ti) == 0
          && ti.records && ti.t_last > t_end)
        t_end = ti.t_last;
    }
  e = OTF2_GlobalDefWriter_WriteClockProperties (
    g, 1000000000ull, 0, t_end + 1,
    info->origin_unix_ns > 0 ? (uint64_t) info->origin_unix_ns
                             : OTF2_UNDEFINED_TIMESTAMP);

  /* Regions: one per state. */
  uint32_t empty = str (o, g, "", &e);
  uint32_t cont_name = str (o, g, "continued", &e);
  uint32_t cont_desc = str (o, g, "1: this Enter continues the instance left "
                        "just before at the same time, because an "
                        "instance it was nested in ended first", &e);
  if (e == OTF2_SUCCESS)
    e = OTF2_GlobalDefWriter_WriteAttribute (g, ATTR_CONTINUED, cont_name, cont_desc,
                                             OTF2_TYPE_UINT8);
  for (int k = 0; k < 4 && e == OTF2_SUCCESS; k++)
    {
      snprintf (buf, sizeof buf, "MPE cargo %d", k);
      uint32_t an = str (o, g, buf, &e);
      uint32_t ad = str (o, g, "bytes 8k..8k+7 (big-endian) of the MPE "
                         "event's 32 bytes of info (cargo)", &e);
      if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteAttribute (g, ATTR_CARGO + k, an, ad,
                                                 OTF2_TYPE_UINT64);
    }
  for (size_t i = 0; i < logfmt_reader_n_states (r); i++)
    {
      const logfmt_state_def_t *d = logfmt_reader_state (r, i);
      uint32_t name = str (o, g, d->name, &e);
      /* The info format follows on a line of its own, so the import
       * gives it back (the collectives' cargo is read through it). */
      snprintf (buf, sizeof buf, "MPE state, events %d/%d, colour %s%s%s",
                d->start_id, d->end_id, d->color ? d->color : "",
                d->format && d->format[0] ? "\nformat " : "",
                d->format ? d->format : "");
      uint32_t desc = str (o, g, buf, &e);
      int mpi = d->name && strncmp (d->name, "MPI_", 4) == 0;
      OTF2_RegionRole role = mpi ? OTF2_REGION_ROLE_FUNCTION
                                 : OTF2_REGION_ROLE_CODE;
      uint32_t cop, crole;
      if (otf2in_collective (d->name, &cop, &crole))
        role = (OTF2_RegionRole) crole;
      if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteRegion (
          g, (uint32_t) i, name, name, desc, role,
          mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
          OTF2_REGION_FLAG_NONE, empty, 0, 0);
    }

  /* System tree: a machine node, under it one node per host the
   * streams name (ranks without a host sit on the machine node); a
   * location group per rank, a location per stream. */
  uint32_t mach = str (o, g, "machine", &e);
  uint32_t mcls = str (o, g, "machine", &e);
  uint32_t ncls = str (o, g, "node", &e);
  if (e == OTF2_SUCCESS)
    e = OTF2_GlobalDefWriter_WriteSystemTreeNode (
      g, 0, mach, mcls, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  uint32_t *node_of = calloc ((size_t) o->nranks + 1, sizeof *node_of);
  const char **hosts = calloc ((size_t) o->nlocs + 1, sizeof *hosts);
  uint32_t nhosts = 0;
  if (!node_of || !hosts)
    {
      free (node_of);
      free (hosts);
      clogtool__error ("out of memory");
      return -1;
    }
  for (uint32_t s = 0; s < logfmt_reader_info (r)->nstreams; s++)
    {
      const logfmt_stream_def_t *d = logfmt_reader_stream (r, s);
      if (!d->host || !d->host[0] || d->rank < 0 || node_of[d->rank])
        continue;
      uint32_t h = 0;
      while (h < nhosts && strcmp (hosts[h], d->host) != 0)
        h++;
      if (h == nhosts)
        {
          hosts[nhosts++] = d->host;
          uint32_t n = str (o, g, d->host, &e);
          if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteSystemTreeNode (g, h + 1, n, ncls,
                                                          0);
        }
      node_of[d->rank] = h + 1;
    }
  for (uint32_t rk = 0; rk < o->nranks; rk++)
    {
      snprintf (buf, sizeof buf, "MPI Rank %u", rk);
      uint32_t n = str (o, g, buf, &e);
      if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteLocationGroup (
          g, rk, n, OTF2_LOCATION_GROUP_TYPE_PROCESS, node_of[rk],
          OTF2_UNDEFINED_LOCATION_GROUP);
    }
  free (node_of);
  free (hosts);
  if (e == OTF2_SUCCESS && write_callpaths (o, g, &e))
    return -1;
  if (e == OTF2_SUCCESS && o->ncc && write_contexts (o, g, &e))
    return -1;
  if (e == OTF2_SUCCESS && write_resources (o, g, &e))
    return -1;
  /* The log's constants (MPE_SAMPLE_HZ, ...) as properties of the
   * machine node, "MPE constant NAME". */
  for (size_t i = 0; i < logfmt_reader_n_consts (r) && e == OTF2_SUCCESS;
       i++)
    {
      const logfmt_const_def_t *cd = logfmt_reader_const (r, i);
      snprintf (buf, sizeof buf, "MPE constant %s", cd->name ? cd->name : "");
      uint32_t n = str (o, g, buf, &e);
      OTF2_AttributeValue v;
      v.int64 = cd->value;
      if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty (
          g, 0, n, OTF2_TYPE_INT64, v);
    }
  for (uint32_t l = 0; l < o->nlocs; l++)
    {
      snprintf (buf, sizeof buf, "rank %d thread %d", o->loc_rank[l],
                o->loc_thread[l]);
      uint32_t n = str (o, g, buf, &e);
      if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteLocation (
          g, l, n, OTF2_LOCATION_TYPE_CPU_THREAD, o->nevents[l],
          (uint32_t) o->loc_rank[l]);
    }

  /* Communicators: group 0 lists every rank's location; each comm gets a
   * group of world ranks; our own MPI_COMM_WORLD comes last. */
  uint32_t gname = str (o, g, "MPI locations", &e);
  if (e == OTF2_SUCCESS)
    e = OTF2_GlobalDefWriter_WriteGroup (
      g, 0, gname, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
      OTF2_GROUP_FLAG_NONE, o->nranks, o->loc_of_rank);
  uint64_t *members = malloc (((size_t) o->nranks + 1) * sizeof *members);
  if (!members)
    {
      clogtool__error ("out of memory");
      return -1;
    }
  for (size_t i = 0; i < o->ncomms + (size_t) o->own_world
                     && e == OTF2_SUCCESS; i++)
    {
      uint32_t n = 0;
      const char *cname = "MPI_COMM_WORLD";
      if (i < o->ncomms)
        {
          const logfmt_comm_def_t *d = logfmt_reader_comm (r, i);
          for (uint32_t k = 0; k < o->comm_size[i]; k++)
            members[n++] = d->ranks && d->ranks[k] >= 0
                           ? (uint64_t) d->ranks[k] : 0;
          snprintf (buf, sizeof buf, "%s", d->name ? d->name : "comm");
          cname = buf;
        }
      else
        for (uint32_t k = 0; k < o->nranks; k++)
          members[n++] = k;
      uint32_t name = str (o, g, cname, &e);
      if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteGroup (
          g, (uint32_t) i + 1, name, OTF2_GROUP_TYPE_COMM_GROUP,
          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, members);
      if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteComm (g, (uint32_t) i, name,
                                            (uint32_t) i + 1,
                                            OTF2_UNDEFINED_COMM,
                                            OTF2_COMM_FLAG_NONE);
    }
  free (members);

  /* Metric classes: a solo event's has one member (value 1, or the lost
   * events' count); a track series' has one member per value column,
   * described "MPE track KIND key K0 K1 column C" (and the metric's
   * flags for a metric), so that the import rebuilds the records. */
  uint32_t nmember = 0;
  /* The log's metric definitions, in its order, as members of their
   * own ("MPE metric ID flags F"): the import defines them from these. */
  for (size_t i = 0; i < logfmt_reader_n_metrics (r) && e == OTF2_SUCCESS;
       i++)
    {
      const logfmt_metric_def_t *md = logfmt_reader_metric (r, i);
      uint32_t name = str (o, g, md->name, &e);
      snprintf (buf, sizeof buf, "MPE metric %u flags %u", md->id,
                md->flags);
      uint32_t desc = str (o, g, buf, &e);
      uint32_t unit = str (o, g, md->unit, &e);
      if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteMetricMember (
          g, nmember++, name, desc, OTF2_METRIC_TYPE_OTHER,
          md->flags & LOGFMT_METRIC_LEVEL ? OTF2_METRIC_ABSOLUTE_POINT
                                          : OTF2_METRIC_ACCUMULATED_START,
          OTF2_TYPE_INT64, OTF2_BASE_DECIMAL, 0, unit);
    }
  for (size_t i = 0; i < o->nmetrics && e == OTF2_SUCCESS; i++)
    {
      const mkey_t *k = &o->mkeys[i];
      OTF2_MetricMemberRef mm[LOGFMT_TRACK_MAX_COLS];
      uint32_t nm = 0;
      if (k->kind == 0)
        {
          int32_t id = (int32_t) k->k0;
          int d = id == INT32_MIN ? -1 : logfmt_reader_find_event_def (r, id);
          const logfmt_event_def_t *def
            = d >= 0 ? logfmt_reader_event_def (r, (size_t) d) : NULL;
          if (id == INT32_MIN)
            snprintf (buf, sizeof buf, "lost events");
          else if (def && def->name && def->name[0])
            snprintf (buf, sizeof buf, "%s", def->name);
          else
            snprintf (buf, sizeof buf, "event %d", id);
          uint32_t name = str (o, g, buf, &e);
          snprintf (buf, sizeof buf, "MPE solo event %d", id);
          uint32_t desc = str (o, g, buf, &e);
          uint32_t unit = str (o, g, "#", &e);
          mm[nm++] = nmember++;
          if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteMetricMember (
              g, mm[0], name, desc, OTF2_METRIC_TYPE_USER,
              OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_INT64, OTF2_BASE_DECIMAL,
              0, unit);
        }
      else
        {
          uint32_t nk = track_keys (k->kind);
          int ncols = logfmt_track_kind_ncols (k->kind);
          for (uint32_t c = nk; ncols > 0 && c < (uint32_t) ncols
                                && e == OTF2_SUCCESS; c++)
            {
              char nbuf[300], ubuf[64];
              uint32_t flags = 0;
              const char *unit = "#";
              OTF2_MetricMode mode = OTF2_METRIC_ABSOLUTE_POINT;
              member_label (r, k, c, nbuf, sizeof nbuf, ubuf, sizeof ubuf,
                            &flags, &mode);
              unit = ubuf;
              uint32_t name = str (o, g, nbuf, &e);
              snprintf (buf, sizeof buf, "MPE track %u key %" PRId64 " %"
                        PRId64 " column %u flags %u", k->kind, k->k0, k->k1,
                        c, flags);
              uint32_t desc = str (o, g, buf, &e);
              uint32_t u = str (o, g, unit, &e);
              mm[nm] = nmember++;
              if (e == OTF2_SUCCESS)
                e = OTF2_GlobalDefWriter_WriteMetricMember (
                  g, mm[nm], name, desc, OTF2_METRIC_TYPE_OTHER, mode,
                  OTF2_TYPE_INT64, OTF2_BASE_DECIMAL, 0, u);
              nm++;
            }
        }
      if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteMetricClass (
          g, (uint32_t) i, (uint8_t) nm, mm, OTF2_METRIC_ASYNCHRONOUS,
          k->kind == 0 ? OTF2_RECORDER_KIND_ABSTRACT
                       : OTF2_RECORDER_KIND_CPU);
    }
  if (e != OTF2_SUCCESS)
    return oerr (o, e, "writing definitions");
  e = OTF2_Archive_CloseGlobalDefWriter (o->ar, g);
  return e == OTF2_SUCCESS ? 0 : oerr (o, e, "closing definitions");
}

static int
setup (otf2_t *o)
{
  const logfmt_reader_t *r = o->r;
  const logfmt_info_t *info = logfmt_reader_info (r);
  o->nlocs = info->nstreams;
  o->nranks = info->world_size;
  for (uint32_t s = 0; s < o->nlocs; s++)
    {
      const logfmt_stream_def_t *d = logfmt_reader_stream (r, s);
      if (d->rank >= 0 && (uint32_t) d->rank + 1 > o->nranks)
        o->nranks = (uint32_t) d->rank + 1;
    }
  o->ncomms = logfmt_reader_n_comms (r);
  o->loc_of_rank = malloc (((size_t) o->nranks + 1) * sizeof *o->loc_of_rank);
  o->nevents = calloc ((size_t) o->nlocs + o->nranks + 1, sizeof *o->nevents);
  o->loc_rank = malloc (((size_t) o->nlocs + o->nranks + 1) * sizeof (int32_t));
  o->loc_thread = malloc (((size_t) o->nlocs + o->nranks + 1)
                          * sizeof (int32_t));
  o->inv = calloc (o->ncomms + 1, sizeof *o->inv);
  o->comm_size = calloc (o->ncomms + 1, sizeof *o->comm_size);
  o->continued = OTF2_AttributeList_New ();
  o->cargo = OTF2_AttributeList_New ();
  if (!o->loc_of_rank || !o->nevents || !o->loc_rank || !o->loc_thread
      || !o->inv || !o->comm_size || !o->continued || !o->cargo
      || logfmt_state_tracker_new (logfmt_reader_n_states (r), 0,
                                   &o->tracker))
    return -1;
  for (uint32_t k = 0; k < o->nranks; k++)
    o->loc_of_rank[k] = UINT64_MAX;
  for (uint32_t s = 0; s < o->nlocs; s++)
    {
      const logfmt_stream_def_t *d = logfmt_reader_stream (r, s);
      o->loc_rank[s] = d->rank < 0 ? 0 : d->rank;
      o->loc_thread[s] = d->thread;
      if (o->loc_of_rank[o->loc_rank[s]] == UINT64_MAX)
        o->loc_of_rank[o->loc_rank[s]] = s;
    }
  /* A rank without any stream still needs a location for the groups. */
  for (uint32_t k = 0; k < o->nranks; k++)
    if (o->loc_of_rank[k] == UINT64_MAX)
      {
        o->loc_rank[o->nlocs] = (int32_t) k;
        o->loc_thread[o->nlocs] = 0;
        o->loc_of_rank[k] = o->nlocs++;
      }
  /* Calling contexts: each rank's nodes but the root, in rank order. */
  if (!(o->cc_base = malloc (((size_t) o->nranks + 1) * sizeof *o->cc_base)))
    return -1;
  for (uint32_t k = 0; k < o->nranks; k++)
    o->cc_base[k] = -1;
  {
    size_t n = logfmt_reader_callpath_ranks (r, NULL, 0), cap = 0;
    int32_t *ranks = calloc (n + 1, sizeof *ranks);
    if (!ranks)
      return -1;
    n = logfmt_reader_callpath_ranks (r, ranks, n);
    for (size_t i = 0; i < n; i++)
      {
        logfmt_callpaths_t *cp = NULL;
        logfmt_error_t err = { 0 };
        if (ranks[i] < 0 || (uint32_t) ranks[i] >= o->nranks
            || logfmt_reader_callpaths (r, ranks[i], &cp, &err) != 0)
          continue;         /* the samples stay metrics only */
        if (o->ncc + cp->nnodes > cap)
          {
            cap = 2 * (o->ncc + cp->nnodes);
            uint32_t *d = realloc (o->cc_depth, cap * sizeof *d);
            if (!d)
              {
                logfmt_callpaths_free (cp);
                free (ranks);
                return -1;
              }
            o->cc_depth = d;
          }
        o->cc_base[ranks[i]] = (int64_t) o->ncc;
        for (size_t k = 1; k < cp->nnodes; k++)
          {
            uint32_t p = cp->nodes[k].parent;
            o->cc_depth[o->ncc + k - 1]
              = p >= 1 && p < k ? o->cc_depth[o->ncc + p - 1] + 1 : 1;
          }
        o->ncc += cp->nnodes - 1;
        logfmt_callpaths_free (cp);
      }
    free (ranks);
  }

  /* Collectives logged by the wrappers (their cargo gives the
   * communicator, root and bytes). */
  size_t nst = logfmt_reader_n_states (r);
  if (!(o->coll = calloc (nst + 1, 1)) || an_comm_map_new (r, &o->labels))
    return -1;
  for (size_t i = 0; i < nst; i++)
    {
      const logfmt_state_def_t *d = logfmt_reader_state (r, i);
      if (an_state_class (d) == AN_STATE_COLL)
        {
          uint32_t op, role;
          if (otf2in_collective (d->name, &op, &role))
            o->coll[i] = (uint8_t) (op + 1);
        }
    }
  /* MPI_COMM_WORLD: the log's own when it has one (every rank in
   * order), else one more comm after the log's. */
  o->world = (uint32_t) o->ncomms;
  o->own_world = 1;
  for (size_t i = 0; i < o->ncomms && o->own_world; i++)
    {
      const logfmt_comm_def_t *d = logfmt_reader_comm (r, i);
      uint32_t k = 0;
      if (d->ranks && d->size == o->nranks && d->kind == 1)
        while (k < d->size && d->ranks[k] == (int32_t) k)
          k++;
      if (d->ranks && k == o->nranks && k > 0)
        {
          o->world = (uint32_t) i;
          o->own_world = 0;
        }
    }
  for (size_t i = 0; i < o->ncomms; i++)
    {
      const logfmt_comm_def_t *d = logfmt_reader_comm (r, i);
      o->comm_size[i] = d->ranks ? d->size : 0;
      if (!d->ranks)
        continue;
      if (!(o->inv[i] = malloc (((size_t) o->nranks + 1) * sizeof (int32_t))))
        return -1;
      for (uint32_t k = 0; k < o->nranks; k++)
        o->inv[i][k] = -1;
      for (uint32_t k = 0; k < d->size; k++)
        if (d->ranks[k] >= 0 && (uint32_t) d->ranks[k] < o->nranks
            && o->inv[i][d->ranks[k]] < 0)
          o->inv[i][d->ranks[k]] = (int32_t) k;
    }
  return 0;
}

int
convert__to_otf2 (convert_ctx_t *c, const logfmt_reader_t *r)
{
  otf2_t o = { 0 };
  o.c = c;
  o.r = r;
  int rc = -1;
  OTF2_ErrorCode e;

  /* OUT names the anchor: DIR/NAME.otf2 -> archive path DIR, name NAME. */
  char *dir = strdup (c->out);
  if (!dir)
    goto out;
  char *slash = strrchr (dir, '/');
  char *name = slash ? slash + 1 : dir;
  char *dot = strrchr (name, '.');
  if (dot && strcmp (dot, ".otf2") == 0)
    *dot = '\0';
  if (!*name)
    {
      clogtool__error ("%s: no archive name", c->out);
      goto out;
    }
  const char *path = slash ? dir : ".";
  if (slash == dir)
    path = "/";
  if (slash)
    *slash = '\0';
  {
    /* OTF2 never overwrites; say so before it prints its own errors. */
    char arch[4200];
    struct stat st;
    snprintf (arch, sizeof arch, "%s/%s", slash ? path : ".", name);
    if (stat (c->out, &st) == 0 || stat (arch, &st) == 0)
      {
        clogtool__error ("%s: an OTF2 archive (%s or %s/) exists already; "
                         "remove it first", c->out, c->out, arch);
        goto out;
      }
  }
  if (setup (&o))
    {
      clogtool__error ("out of memory");
      goto out;
    }

  o.ar = OTF2_Archive_Open (path, name, OTF2_FILEMODE_WRITE, 1024 * 1024,
                            4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                            OTF2_COMPRESSION_NONE);
  if (!o.ar)
    {
      clogtool__error ("%s: cannot create the OTF2 archive (does %s/%s "
                       "exist already?)", c->out, path, name);
      goto out;
    }
  if ((e = OTF2_Archive_SetFlushCallbacks (o.ar, &flush_cbs, NULL))
      || (e = OTF2_Archive_SetSerialCollectiveCallbacks (o.ar))
      || (e = OTF2_Archive_SetCreator (o.ar, "clogtool convert"))
      || (e = OTF2_Archive_OpenEvtFiles (o.ar)))
    {
      oerr (&o, e, "opening the archive");
      goto close;
    }
  uint64_t total = logfmt_reader_info (r)->nevents;
  for (uint32_t s = 0; s < logfmt_reader_info (r)->nstreams; s++)
    {
      if (write_stream (&o, s))
        goto close;
      convert__progress_cb (c, total ? 0.95 * (double) c->events
                                       / (double) total : 0.5);
    }
  /* Count messages from the table for the report. */
  {
    logfmt_msg_iter_t *mi = NULL;
    logfmt_message_t m;
    if (logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi) == 0)
      {
        while (logfmt_msg_iter_next (mi, &m) == 1)
          if (m.send_stream != LOGFMT_NO_STREAM
              && m.recv_stream != LOGFMT_NO_STREAM)
            c->messages++;
        logfmt_msg_iter_free (mi);
      }
  }
  if ((e = OTF2_Archive_CloseEvtFiles (o.ar)))
    {
      oerr (&o, e, "closing event files");
      goto close;
    }
  /* Empty local definitions: the global ones use the same ids. */
  if ((e = OTF2_Archive_OpenDefFiles (o.ar)))
    {
      oerr (&o, e, "opening definition files");
      goto close;
    }
  for (uint32_t l = 0; l < o.nlocs; l++)
    {
      OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter (o.ar, l);
      if (!dw || (e = OTF2_Archive_CloseDefWriter (o.ar, dw)))
        {
          oerr (&o, dw ? e : OTF2_ERROR_INVALID, "local definitions");
          goto close;
        }
    }
  if ((e = OTF2_Archive_CloseDefFiles (o.ar)))
    {
      oerr (&o, e, "closing definition files");
      goto close;
    }
  if (write_defs (&o) == 0)
    rc = 0;
close:
  if (o.ar && (e = OTF2_Archive_Close (o.ar)) && rc == 0)
    rc = oerr (&o, e, "closing the archive");
out:
  if (o.unnested && rc == 0)
    fprintf (stderr, "clogtool convert: %" PRIu64 " state ends were not "
             "innermost; regions inside them were left and re-entered "
             "(attribute \"continued\")\n",
             o.unnested);
  free (dir);
  free (o.loc_of_rank);
  free (o.nevents);
  free (o.loc_rank);
  free (o.loc_thread);
  free (o.mkeys);
  free (o.cc_base);
  free (o.cc_depth);
  free (o.mhash);
  if (o.inv)
    for (size_t i = 0; i < o.ncomms; i++)
      free (o.inv[i]);
  free (o.inv);
  free (o.comm_size);
  logfmt_state_tracker_free (o.tracker);
  free (o.coll);
  an_comm_map_free (o.labels);
  if (o.continued)
    OTF2_AttributeList_Delete (o.continued);
  if (o.cargo)
    OTF2_AttributeList_Delete (o.cargo);
  return rc;
}

#else /* !HAVE_OTF2 */

int
convert__to_otf2 (convert_ctx_t *c, const logfmt_reader_t *r)
{
  (void) r;
  clogtool__error ("%s: this clogtool was built without OTF2", c->out);
  return -1;
}

#endif

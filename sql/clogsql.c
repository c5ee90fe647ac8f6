/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "clog" virtual-table module (clogsql.h).  Each table kind is a
 * schema, a row source and the constraints it can push down:
 *  - processes, threads: from the stream definitions;
 *  - states: logfmt's interval iterator (one row per instance, the rule
 *    every tool shares), per stream, window [t0, t1];
 *  - events: the event iterator, per stream, window [t0, t1];
 *  - messages: the message table;
 *  - metrics: the streams' metric tracks (FORMAT.md section 14);
 *  - state_totals: one row per state name, its instances' count and
 *    time, summed in one pass (totals.h) without a row per instance;
 *  - waits, critical_path: the analysis library's (waits.h), computed
 *    once per table and kept (a join scans them again).
 * xBestIndex hands rank, thread, stream and time constraints to xFilter
 * (SQLite still checks every row: the pushed-down window only has to be
 * a superset), which visits only the matching streams and decodes only
 * the blocks the window overlaps.  GROUP BY / DISTINCT on the states'
 * name is delivered grouped, without SQLite's sort ("states grouped by
 * name").
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef SQLITE_CORE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#endif

#include "clogsql.h"
#include "grouped.h"
#include "ivahead.h"
#include "otf2in.h"
#include "totals.h"
#include "waits.h"

/* ---- shared readers --------------------------------------------------- */

typedef struct shared
{
  struct shared *next;
  char *path;
  logfmt_reader_t *r;
  int refs;
} shared_t;

typedef struct
{
  shared_t *open;   /* readers of this connection's tables */
} registry_t;

static void
registry_free (void *p)
{
  registry_t *g = p;
  while (g && g->open)
    {
      shared_t *s = g->open;
      g->open = s->next;
      logfmt_reader_close (s->r);
      sqlite3_free (s->path);
      sqlite3_free (s);
    }
  sqlite3_free (g);
}

static shared_t *
shared_open (registry_t *g, const char *path, char **err)
{
  for (shared_t *s = g->open; s; s = s->next)
    if (strcmp (s->path, path) == 0)
      {
        s->refs++;
        return s;
      }
  /* A FIFO or a device would block the reader's open(), or never end:
   * only files and directories (OTF2 archives) are logs. */
  struct stat st;
  if (stat (path, &st) == 0 && !S_ISREG (st.st_mode) && !S_ISDIR (st.st_mode))
    {
      *err = sqlite3_mprintf ("clog: %s is not a regular file", path);
      return NULL;
    }
  logfmt_reader_t *r = NULL;
  logfmt_error_t e = { 0 };
  int rc = otf2in_reader_open (path, LOGFMT_OPEN_NOVERIFY, NULL, NULL, &r,
                               &e);
  if (rc || !r)
    {
      *err = sqlite3_mprintf ("%s", e.message[0] ? e.message
                                    : logfmt_strerror (rc));
      return NULL;
    }
  shared_t *s = sqlite3_malloc (sizeof *s);
  char *p = sqlite3_mprintf ("%s", path);
  if (!s || !p)
    {
      sqlite3_free (s);
      sqlite3_free (p);
      logfmt_reader_close (r);
      *err = sqlite3_mprintf ("out of memory");
      return NULL;
    }
  s->path = p;
  s->r = r;
  s->refs = 1;
  s->next = g->open;
  g->open = s;
  return s;
}

static void
shared_close (registry_t *g, shared_t *s)
{
  if (--s->refs > 0)
    return;
  for (shared_t **pp = &g->open; *pp; pp = &(*pp)->next)
    if (*pp == s)
      {
        *pp = s->next;
        break;
      }
  logfmt_reader_close (s->r);
  sqlite3_free (s->path);
  sqlite3_free (s);
}

/* ---- table kinds ------------------------------------------------------ */

typedef enum { K_PROCESSES, K_THREADS, K_STATES, K_EVENTS, K_MESSAGES,
               K_METRICS, K_STATE_TOTALS, K_WAITS, K_CRITPATH,
               NKINDS } kind_t;

static const char *const kind_name[NKINDS] = {
  "processes", "threads", "states", "events", "messages", "metrics",
  "state_totals", "waits", "critical_path"
};

/* Column numbers, per kind (the schemas below list them in this order). */
enum { P_RANK, P_HOST, P_THREADS, P_EVENTS };
enum { T_STREAM, T_RANK, T_THREAD, T_HOST, T_EVENTS };
enum { S_RANK, S_THREAD, S_NAME, S_START, S_END, S_DURATION, S_EXCLUSIVE,
       S_DEPTH, S_OPEN, S_CARGO, S_INFO, S_STATE, S_STREAM };
enum { E_RANK, E_THREAD, E_TIME, E_KIND, E_NAME, E_ID, E_PARTNER, E_TAG,
       E_SIZE, E_COMM, E_CARGO, E_INFO, E_STREAM };
enum { M_SEND_RANK, M_SEND_THREAD, M_SEND_TIME, M_RECV_RANK, M_RECV_THREAD,
       M_RECV_TIME, M_TAG, M_BYTES, M_COMM, M_COMM_NAME };
enum { X_RANK, X_THREAD, X_TIME, X_NAME, X_ID, X_OBJECT, X_VALUE, X_UNIT,
       X_STREAM };
enum { N_NAME, N_COUNT, N_DURATION, N_EXCLUSIVE };
enum { W_RANK, W_THREAD, W_NAME, W_START, W_DURATION, W_WAIT_START, W_WAIT,
       W_KIND, W_COMM, W_COMM_NAME, W_WAITED_RANK, W_CAUSE_STATE,
       W_CAUSE_RANK, W_CAUSE_NS, W_STATE, W_STREAM };
enum { CP_RANK, CP_NAME, CP_STATE, CP_NS };

static const char *const schema[NKINDS] = {
  "CREATE TABLE x(rank INTEGER, host TEXT, threads INTEGER, "
  "events INTEGER)",
  "CREATE TABLE x(stream INTEGER, rank INTEGER, thread INTEGER, host TEXT, "
  "events INTEGER)",
  "CREATE TABLE x(rank INTEGER, thread INTEGER, name TEXT, start INTEGER, "
  "\"end\" INTEGER, duration INTEGER, exclusive INTEGER, depth INTEGER, "
  "open INTEGER, cargo BLOB, info TEXT, state INTEGER, stream INTEGER)",
  "CREATE TABLE x(rank INTEGER, thread INTEGER, time INTEGER, kind TEXT, "
  "name TEXT, id INTEGER, partner INTEGER, tag INTEGER, size INTEGER, "
  "comm INTEGER, cargo BLOB, info TEXT, stream INTEGER)",
  "CREATE TABLE x(send_rank INTEGER, send_thread INTEGER, "
  "send_time INTEGER, recv_rank INTEGER, recv_thread INTEGER, "
  "recv_time INTEGER, tag INTEGER, bytes INTEGER, comm INTEGER, "
  "comm_name TEXT)",
  "CREATE TABLE x(rank INTEGER, thread INTEGER, time INTEGER, name TEXT, "
  "id INTEGER, object INTEGER, value INTEGER, unit TEXT, stream INTEGER)",
  "CREATE TABLE x(name TEXT, count INTEGER, duration INTEGER, "
  "exclusive INTEGER)",
  "CREATE TABLE x(rank INTEGER, thread INTEGER, name TEXT, start INTEGER, "
  "duration INTEGER, wait_start INTEGER, wait INTEGER, kind TEXT, "
  "comm INTEGER, comm_name TEXT, waited_rank INTEGER, cause_state TEXT, "
  "cause_rank INTEGER, cause_ns INTEGER, state INTEGER, stream INTEGER)",
  "CREATE TABLE x(rank INTEGER, name TEXT, state INTEGER, ns INTEGER)"
};

typedef struct
{
  sqlite3_vtab base;
  registry_t *reg;
  shared_t *sh;
  kind_t kind;
  uint32_t nranks;
  /* waits, critical_path: computed by the first scan, then kept. */
  int computed;
  sqlwait_t *waits;
  size_t nwaits;
  an_critpath_t *cp;
} vtab_t;

typedef struct
{
  sqlite3_vtab_cursor base;
  vtab_t *vt;
  const logfmt_reader_t *r;
  sqlite3_int64 rowid;
  int eof;
  /* Streams to visit (states, events) or rows (processes, threads). */
  uint32_t *streams;
  size_t nstreams, si;
  uint64_t t0, t1;
  logfmt_interval_iter_t *ivit;
  logfmt_interval_t iv;
  const logfmt_interval_t *ivp;   /* the states row: &iv or in abuf */
  /* states read ahead in a worker thread (ivahead.h), or NULL. */
  ivahead_t *ahead;
  const logfmt_interval_t *abuf;
  long an, apos;
  logfmt_iter_t *evit;
  logfmt_event_t *evbuf;
  long evn, evpos;
  logfmt_msg_iter_t *mit;
  logfmt_message_t m;
  logfmt_track_iter_t *trit;
  logfmt_track_rec_t trec;
  /* states delivered grouped by name (grouped.h), or NULL; with a
   * worker, the worker groups them. */
  grouped_t *grp;
  /* state_totals: the totals and the groups with instances, in name
   * order as GROUP BY name over states delivers them; grp names them. */
  totals_t *tot;
  uint32_t *order;
  uint32_t norder;
  /* processes: per rank threads and events, filled once. */
  uint64_t *p_events;
  uint32_t *p_threads;
  const char **p_host;
} cursor_t;

/* Unquotes an argument ('x', "x" or x) into a new string. */
static char *
unquote (const char *a)
{
  size_t n = strlen (a);
  while (n && (*a == ' ' || *a == '\t'))
    a++, n--;
  while (n && (a[n - 1] == ' ' || a[n - 1] == '\t'))
    n--;
  if (n >= 2 && (a[0] == '\'' || a[0] == '"') && a[n - 1] == a[0])
    {
      char q = a[0];
      char *o = sqlite3_malloc ((int) n);
      if (!o)
        return NULL;
      size_t k = 0;
      for (size_t i = 1; i + 1 < n; i++)
        {
          o[k++] = a[i];
          if (a[i] == q && a[i + 1] == q)
            i++;
        }
      o[k] = '\0';
      return o;
    }
  return sqlite3_mprintf ("%.*s", (int) n, a);
}

static int
vt_create (sqlite3 *db, void *aux, int argc, const char *const *argv,
           sqlite3_vtab **out, char **err)
{
  registry_t *g = aux;
  /* argv: module, database, table, args... */
  if (argc < 4 || argc > 5)
    {
      *err = sqlite3_mprintf ("clog: use USING clog('FILE'[, KIND]) with "
                              "KIND processes, threads, states, events, "
                              "messages, metrics, state_totals, waits or "
                              "critical_path");
      return SQLITE_ERROR;
    }
  char *kname = unquote (argc == 5 ? argv[4] : argv[2]);
  char *path = unquote (argv[3]);
  int kind = -1;
  for (int k = 0; kname && k < NKINDS; k++)
    if (sqlite3_stricmp (kname, kind_name[k]) == 0)
      kind = k;
  if (!kname || !path || kind < 0)
    {
      *err = kname && path
             ? sqlite3_mprintf ("clog: unknown table kind '%s' (processes, "
                                "threads, states, events, messages, metrics, "
                                "state_totals, waits, critical_path; give "
                                "it as the second argument)", kname)
             : sqlite3_mprintf ("out of memory");
      sqlite3_free (kname);
      sqlite3_free (path);
      return kname && path ? SQLITE_ERROR : SQLITE_NOMEM;
    }
  sqlite3_free (kname);
  shared_t *sh = shared_open (g, path, err);
  sqlite3_free (path);
  if (!sh)
    return SQLITE_ERROR;
  int rc = sqlite3_declare_vtab (db, schema[kind]);
  /* Not usable from a trigger or a view: a database's own schema never
   * reads a log the user did not name. */
#ifdef SQLITE_VTAB_DIRECTONLY                 /* SQLite 3.31 */
  if (rc == SQLITE_OK)
    rc = sqlite3_vtab_config (db, SQLITE_VTAB_DIRECTONLY);
#endif
  vtab_t *vt = rc == SQLITE_OK ? sqlite3_malloc (sizeof *vt) : NULL;
  if (!vt)
    {
      shared_close (g, sh);
      return rc == SQLITE_OK ? SQLITE_NOMEM : rc;
    }
  memset (vt, 0, sizeof *vt);
  vt->reg = g;
  vt->sh = sh;
  vt->kind = (kind_t) kind;
  const logfmt_info_t *info = logfmt_reader_info (sh->r);
  vt->nranks = info->world_size;
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *d = logfmt_reader_stream (sh->r, s);
      if (d->rank >= 0 && (uint32_t) d->rank >= vt->nranks)
        vt->nranks = (uint32_t) d->rank + 1;
    }
  *out = &vt->base;
  return SQLITE_OK;
}


/* A table found in a database's stored schema, not created by the
 * statement running now: only the temp schema's (which only this
 * connection writes).  A database file received from someone could
 * otherwise name any path, and reading it would open that path. */
static int
vt_connect (sqlite3 *db, void *aux, int argc, const char *const *argv,
            sqlite3_vtab **out, char **err)
{
  if (argc < 2 || sqlite3_stricmp (argv[1], "temp") != 0)
    {
      *err = sqlite3_mprintf ("clog: table %s.%s is stored in the "
                              "database, not made by you now: refused (a "
                              "database cannot choose which files clog "
                              "reads; create clog tables in temp)",
                              argc > 1 ? argv[1] : "?",
                              argc > 2 ? argv[2] : "?");
      return SQLITE_ERROR;
    }
  return vt_create (db, aux, argc, argv, out, err);
}

static int
vt_disconnect (sqlite3_vtab *base)
{
  vtab_t *vt = (vtab_t *) base;
  shared_close (vt->reg, vt->sh);
  free (vt->waits);
  an_critpath_free (vt->cp);
  sqlite3_free (vt);
  return SQLITE_OK;
}

/* ---- states grouped by name (grouped.h) ---------------------------- */

#define IDX_GROUPED 0x1

/* The fields a query's columns need (colUsed: bit i = column i). */
static unsigned
grouped_fields (sqlite3_uint64 used)
{
  static const unsigned need[] = {
    [S_RANK] = G_STREAM, [S_THREAD] = G_STREAM, [S_NAME] = 0,
    [S_START] = G_START, [S_END] = G_START | G_INCL, [S_DURATION] = G_INCL,
    [S_EXCLUSIVE] = G_EXCL, [S_DEPTH] = G_DEPTH, [S_OPEN] = G_FLAGS,
    [S_CARGO] = G_FLAGS | G_CARGO, [S_INFO] = G_FLAGS | G_CARGO | G_STATE,
    [S_STATE] = G_STATE, [S_STREAM] = G_STREAM
  };
  unsigned f = 0;
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (used & ((sqlite3_uint64) 1 << i))
      f |= need[i];
  return f;
}

/* ---- planning --------------------------------------------------------- */

/* Codes in idxStr, one per argv value given to xFilter. */
#define C_RANK   'r'
#define C_THREAD 't'
#define C_STREAM 's'
#define C_FROM   'a'   /* rows need time >= v: t0 = max (t0, v) */
#define C_AFTER  'A'   /* rows need time > v: t0 = max (t0, v + 1) */
#define C_TO     'b'   /* rows need time <= v: t1 = min (t1, v) */
#define C_BEFORE 'B'   /* rows need time < v: t1 = min (t1, v - 1) */
#define C_AT     'e'   /* both */

static char
code_for (kind_t k, int col, int op)
{
  int gt = op == SQLITE_INDEX_CONSTRAINT_GT;
  int lt = op == SQLITE_INDEX_CONSTRAINT_LT;
  int ge = op == SQLITE_INDEX_CONSTRAINT_GE;
  int le = op == SQLITE_INDEX_CONSTRAINT_LE;
  int eq = op == SQLITE_INDEX_CONSTRAINT_EQ;
  if (k == K_STATES || k == K_EVENTS || k == K_METRICS)
    {
      int rank = k == K_STATES ? S_RANK : k == K_EVENTS ? E_RANK : X_RANK;
      int thread = k == K_STATES ? S_THREAD : k == K_EVENTS ? E_THREAD
                   : X_THREAD;
      int stream = k == K_STATES ? S_STREAM : k == K_EVENTS ? E_STREAM
                   : X_STREAM;
      if (eq && col == rank)
        return C_RANK;
      if (eq && col == thread)
        return C_THREAD;
      if (eq && col == stream)
        return C_STREAM;
    }
  /* An instance overlaps [t0, t1] when start <= t1 and end >= t0; a
   * bound on start or on end bounds both sides that way. */
  if ((k == K_STATES && (col == S_START || col == S_END))
      || (k == K_EVENTS && col == E_TIME)
      || (k == K_METRICS && col == X_TIME))
    return eq ? C_AT : ge ? C_FROM : gt ? C_AFTER : le ? C_TO
           : lt ? C_BEFORE : 0;
  /* A message whose send or receive is in the window overlaps it. */
  if (k == K_MESSAGES && (col == M_SEND_TIME || col == M_RECV_TIME))
    return eq ? C_AT : ge ? C_FROM : gt ? C_AFTER : le ? C_TO
           : lt ? C_BEFORE : 0;
  return 0;
}

static int
vt_best_index (sqlite3_vtab *base, sqlite3_index_info *ix)
{
  vtab_t *vt = (vtab_t *) base;
  const logfmt_info_t *info = logfmt_reader_info (vt->sh->r);
  char codes[64];
  int n = 0;
  double rows = vt->kind == K_PROCESSES ? vt->nranks
                : vt->kind == K_THREADS ? info->nstreams
                : vt->kind == K_MESSAGES ? (double) info->nmessages
                : vt->kind == K_STATE_TOTALS
                  ? (double) logfmt_reader_n_states (vt->sh->r) + 1
                : vt->kind == K_WAITS ? (double) info->nmessages + 1
                : vt->kind == K_CRITPATH
                  ? (double) logfmt_reader_n_states (vt->sh->r) + 1
                : (double) info->nevents;
  for (int i = 0; i < ix->nConstraint && n < (int) sizeof codes - 1; i++)
    {
      const struct sqlite3_index_constraint *c = &ix->aConstraint[i];
      if (!c->usable)
        continue;
      char code = code_for (vt->kind, c->iColumn, c->op);
      if (!code)
        continue;
      codes[n++] = code;
      ix->aConstraintUsage[i].argvIndex = n;
      ix->aConstraintUsage[i].omit = 0;   /* SQLite checks it again */
      switch (code)
        {
        case C_RANK: rows /= vt->nranks ? vt->nranks : 1; break;
        case C_THREAD: rows /= 2; break;
        case C_STREAM: rows /= info->nstreams ? info->nstreams : 1; break;
        case C_AT: rows /= 1000; break;
        default: rows /= 10; break;
        }
    }
  codes[n] = '\0';
  ix->idxNum = 0;
  /* GROUP BY name or DISTINCT over name: the cursor groups the rows
   * itself (see "states grouped by name"). */
  int distinct = vt->kind == K_STATES && ix->nOrderBy > 0
                 ? sqlite3_vtab_distinct (ix) : 0;
  if (distinct >= 1)
    {
      /* 1, 2: rows of a name together; 3: also in ORDER BY's order.
       * The groups always come in name order (ascending only): SQLite
       * 3.40 says 1 for GROUP BY name ORDER BY name too, and then takes
       * the grouped rows as sorted. */
      int on_name = 1;
      for (int i = 0; i < ix->nOrderBy; i++)
        on_name &= ix->aOrderBy[i].iColumn == S_NAME
                   && !ix->aOrderBy[i].desc;
      if (on_name)
        {
          ix->orderByConsumed = 1;
          ix->idxNum = IDX_GROUPED | (int) grouped_fields (ix->colUsed) << 1;
        }
    }
  ix->idxStr = sqlite3_mprintf ("%s", codes);
  ix->needToFreeIdxStr = 1;
  if (!ix->idxStr)
    return SQLITE_NOMEM;
  ix->estimatedRows = (sqlite3_int64) (rows < 1 ? 1 : rows);
  ix->estimatedCost = rows < 1 ? 1 : rows;
  return SQLITE_OK;
}

/* ---- cursors ---------------------------------------------------------- */

static int
cur_open (sqlite3_vtab *base, sqlite3_vtab_cursor **out)
{
  vtab_t *vt = (vtab_t *) base;
  cursor_t *c = sqlite3_malloc (sizeof *c);
  if (!c)
    return SQLITE_NOMEM;
  memset (c, 0, sizeof *c);
  c->vt = vt;
  c->r = vt->sh->r;
  c->ivp = &c->iv;
  c->eof = 1;
  *out = &c->base;
  return SQLITE_OK;
}

static void
cur_reset (cursor_t *c)
{
  ivahead_stop (c->ahead);
  c->ahead = NULL;
  c->an = c->apos = 0;
  logfmt_interval_iter_free (c->ivit);
  logfmt_iter_free (c->evit);
  logfmt_msg_iter_free (c->mit);
  logfmt_track_iter_free (c->trit);
  grouped_free (c->grp);
  c->grp = NULL;
  totals_free (c->tot);
  c->tot = NULL;
  sqlite3_free (c->order);
  c->order = NULL;
  c->norder = 0;
  c->trit = NULL;
  c->ivit = NULL;
  c->evit = NULL;
  c->mit = NULL;
  sqlite3_free (c->streams);
  c->streams = NULL;
  c->nstreams = c->si = 0;
  c->evn = c->evpos = 0;
}

static int
cur_close (sqlite3_vtab_cursor *base)
{
  cursor_t *c = (cursor_t *) base;
  cur_reset (c);
  sqlite3_free (c->evbuf);
  sqlite3_free (c->p_events);
  sqlite3_free (c->p_threads);
  sqlite3_free (c->p_host);
  sqlite3_free (c);
  return SQLITE_OK;
}

static int
lib_error (cursor_t *c, int code, const logfmt_error_t *e)
{
  sqlite3_free (c->vt->base.zErrMsg);
  c->vt->base.zErrMsg = sqlite3_mprintf ("%s", e && e->message[0]
                                               ? e->message
                                               : logfmt_strerror (code));
  return code == LOGFMT_ENOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
}

/* Moves to the next row of a states/events cursor, stream by stream. */
static int
next_stream_row (cursor_t *c)
{
  for (;;)
    {
      if (c->vt->kind == K_STATES && c->ahead)
        {
          /* (cur_next moves within a batch itself) */
          c->an = ivahead_next (c->ahead, &c->abuf);
          c->apos = 0;
          if (c->an > 0)
            {
              c->ivp = c->abuf;
              return SQLITE_OK;
            }
          if (c->an < 0)
            return lib_error (c, (int) c->an, ivahead_error (c->ahead));
          c->eof = 1;
          return SQLITE_OK;
        }
      if (c->vt->kind == K_STATES && c->ivit)
        {
          int rc = logfmt_interval_iter_next (c->ivit, &c->iv);
          c->ivp = &c->iv;
          if (rc == 1)
            return SQLITE_OK;
          if (rc < 0)
            return lib_error (c, rc, logfmt_interval_iter_error (c->ivit));
        }
      else if (c->vt->kind == K_METRICS && c->trit)
        {
          int rc = logfmt_track_iter_next (c->trit, &c->trec);
          if (rc == 1)
            return SQLITE_OK;
          if (rc < 0)
            return lib_error (c, rc, logfmt_track_iter_error (c->trit));
        }
      else if (c->vt->kind == K_EVENTS && c->evit)
        {
          if (++c->evpos < c->evn)
            return SQLITE_OK;
          c->evn = logfmt_iter_next_batch (c->evit, c->evbuf, 1024);
          c->evpos = 0;
          if (c->evn > 0)
            return SQLITE_OK;
          if (c->evn < 0)
            return lib_error (c, (int) c->evn, logfmt_iter_error (c->evit));
        }
      if (c->si >= c->nstreams)
        {
          c->eof = 1;
          return SQLITE_OK;
        }
      uint32_t s = c->streams[c->si++];
      int rc;
      if (c->vt->kind == K_METRICS)
        {
          /* The track iterator's window is [t0, t1). */
          logfmt_track_iter_free (c->trit);
          c->trit = NULL;
          rc = logfmt_track_iter_new (c->r, s, LOGFMT_TRACK_METRIC, c->t0,
                                      c->t1 == UINT64_MAX ? UINT64_MAX
                                                          : c->t1 + 1,
                                      &c->trit);
        }
      else if (c->vt->kind == K_STATES)
        rc = c->ivit ? logfmt_interval_iter_reset (c->ivit, s, c->t0, c->t1)
                     : logfmt_interval_iter_new (c->r, s, c->t0, c->t1,
                                                 &c->ivit);
      else
        rc = c->evit ? logfmt_iter_reset (c->evit, s, c->t0, c->t1)
                     : logfmt_iter_new (c->r, s, c->t0, c->t1, &c->evit);
      if (rc)
        return lib_error (c, rc, NULL);
      c->evn = c->evpos = 0;
      c->evpos = -1;
    }
}

static int
fill_processes (cursor_t *c)
{
  uint32_t n = c->vt->nranks;
  if (c->p_events)
    return SQLITE_OK;
  c->p_events = sqlite3_malloc64 ((n + 1) * sizeof *c->p_events);
  c->p_threads = sqlite3_malloc64 ((n + 1) * sizeof *c->p_threads);
  c->p_host = sqlite3_malloc64 ((n + 1) * sizeof *c->p_host);
  if (!c->p_events || !c->p_threads || !c->p_host)
    return SQLITE_NOMEM;
  memset (c->p_events, 0, (n + 1) * sizeof *c->p_events);
  memset (c->p_threads, 0, (n + 1) * sizeof *c->p_threads);
  memset (c->p_host, 0, (n + 1) * sizeof *c->p_host);
  const logfmt_info_t *info = logfmt_reader_info (c->r);
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *d = logfmt_reader_stream (c->r, s);
      if (d->rank < 0 || (uint32_t) d->rank >= n)
        continue;
      c->p_events[d->rank] += logfmt_reader_stream_events (c->r, s);
      c->p_threads[d->rank]++;
      if (!c->p_host[d->rank])
        c->p_host[d->rank] = d->host;
    }
  return SQLITE_OK;
}

/* Next row of a grouped states cursor on SQLite's thread: during the
 * pass, the next instance of a state without a name (the others are
 * kept); after it, the kept buckets in name order. */
static int
group_next (cursor_t *c)
{
  grouped_t *gp = c->grp;
  while (gp->passing)
    {
      int rc = next_stream_row (c);
      if (rc != SQLITE_OK)
        return rc;
      if (c->eof)
        {
          c->eof = 0;
          break;
        }
      int k = grouped_take (gp, c->ivp);
      if (k < 0)
        return lib_error (c, k, NULL);
      if (k)
        return SQLITE_OK;
    }
  int rc = grouped_next (gp, &c->iv);
  c->ivp = &c->iv;
  c->eof = rc <= 0;
  return rc < 0 ? lib_error (c, rc, NULL) : SQLITE_OK;
}

/* state_totals: one pass over every stream (totals.h), then the groups
 * with instances in name order (NULL first): the order in which states
 * delivers GROUP BY name (grouped.h), so that a query over either gives
 * the same rows in the same order. */
static int
fill_totals (cursor_t *c)
{
  const logfmt_info_t *info = logfmt_reader_info (c->r);
  c->streams = sqlite3_malloc64 (((uint64_t) info->nstreams + 1)
                                 * sizeof *c->streams);
  if (!c->streams || !(c->grp = grouped_new (c->r, 0)))
    return SQLITE_NOMEM;
  uint64_t events = 0;
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      c->streams[c->nstreams++] = s;
      events += logfmt_reader_stream_events (c->r, s);
    }
  logfmt_error_t err;
  int rc = totals_compute (c->r, c->grp, c->streams, c->nstreams,
                           ivahead_wanted (events) ? 2 : 1, &c->tot, &err);
  if (rc)
    return lib_error (c, rc, &err);
  if (c->tot->wide)
    {
      sqlite3_free (c->vt->base.zErrMsg);
      c->vt->base.zErrMsg = sqlite3_mprintf ("clog: state_totals: a time "
                                             "past 2^63 ns (sum it over "
                                             "states)");
      return SQLITE_ERROR;
    }
  const totals_t *t = c->tot;
  c->order = sqlite3_malloc64 (((uint64_t) t->ngroups + 1)
                               * sizeof *c->order);
  if (!c->order)
    return SQLITE_NOMEM;
  for (uint32_t g = 0; g < t->ngroups; g++)
    if (t->count[g])
      c->order[c->norder++] = g;
  c->si = 0;
  c->eof = c->norder == 0;
  return SQLITE_OK;
}

/* waits, critical_path: the analysis, once per table (a join scans the
 * table again), then its rows. */
static int
fill_analysis (cursor_t *c)
{
  vtab_t *vt = c->vt;
  if (!vt->computed)
    {
      logfmt_error_t err = { 0 };
      int rc = vt->kind == K_WAITS
               ? sqlwaits_compute (c->r, &vt->waits, &vt->nwaits, &err)
               : an_critpath_compute (c->r, &vt->cp, &err);
      if (rc)
        return lib_error (c, rc, &err);
      vt->computed = 1;
    }
  c->si = 0;
  c->eof = (vt->kind == K_WAITS ? vt->nwaits : vt->cp->nitems) == 0;
  return SQLITE_OK;
}

static int
cur_filter (sqlite3_vtab_cursor *base, int idxNum, const char *idxStr,
            int argc, sqlite3_value **argv)
{
  cursor_t *c = (cursor_t *) base;
  vtab_t *vt = c->vt;
  const logfmt_info_t *info = logfmt_reader_info (c->r);
  cur_reset (c);
  c->eof = 0;
  c->rowid = 0;
  c->t0 = 0;
  c->t1 = UINT64_MAX;
  int64_t rank = -1, thread = -1, stream = -1;
  int none = 0;   /* a constraint no row can meet */
  for (int i = 0; i < argc && idxStr && idxStr[i]; i++)
    {
      int type = sqlite3_value_numeric_type (argv[i]);
      if (type != SQLITE_INTEGER && type != SQLITE_FLOAT)
        continue;   /* not a number: SQLite's own check decides */
      double d = sqlite3_value_double (argv[i]);
      sqlite3_int64 v = sqlite3_value_int64 (argv[i]);
      switch (idxStr[i])
        {
        case C_RANK: rank = v; none |= v < 0 || d != (double) v; break;
        case C_THREAD: thread = v; none |= v < 0 || d != (double) v; break;
        case C_STREAM: stream = v; none |= v < 0 || d != (double) v; break;
        case C_FROM: case C_AFTER: case C_AT:
          if (d >= 0)
            {
              /* An integer bound is exact; a real one is widened. */
              uint64_t t = d >= 1.8e19 ? UINT64_MAX
                           : type == SQLITE_INTEGER ? (uint64_t) v
                           : (uint64_t) d;
              if (idxStr[i] == C_AFTER && type == SQLITE_INTEGER
                  && t < UINT64_MAX)
                t++;
              if (t > c->t0)
                c->t0 = t;
            }
          if (idxStr[i] != C_AT)
            break;
          /* fall through */
        case C_TO: case C_BEFORE:
          if (d < 0 || (d == 0 && idxStr[i] == C_BEFORE))
            none = 1;
          else
            {
              uint64_t t = d >= 1.8e19 ? UINT64_MAX
                           : type == SQLITE_INTEGER ? (uint64_t) v
                           : (uint64_t) d + 1;
              if (idxStr[i] == C_BEFORE && type == SQLITE_INTEGER)
                t--;
              if (t < c->t1)
                c->t1 = t;
            }
          break;
        default:
          break;
        }
    }
  if (none || c->t0 > c->t1)
    {
      c->eof = 1;
      return SQLITE_OK;
    }
  switch (vt->kind)
    {
    case K_PROCESSES:
      c->si = 0;
      c->eof = vt->nranks == 0;
      return fill_processes (c);
    case K_THREADS:
      c->si = 0;
      c->eof = info->nstreams == 0;
      return SQLITE_OK;
    case K_STATE_TOTALS:
      return fill_totals (c);
    case K_WAITS:
    case K_CRITPATH:
      return fill_analysis (c);
    case K_MESSAGES:
      {
        int rc = logfmt_msg_iter_new (c->r, c->t0, c->t1, &c->mit);
        if (rc)
          return lib_error (c, rc, NULL);
        rc = logfmt_msg_iter_next (c->mit, &c->m);
        if (rc < 0)
          return lib_error (c, rc, logfmt_msg_iter_error (c->mit));
        c->eof = rc == 0;
        return SQLITE_OK;
      }
    default:
      break;
    }
  /* states, events: the streams the rank/thread/stream constraints
   * leave. */
  c->streams = sqlite3_malloc64 (((uint64_t) info->nstreams + 1)
                                 * sizeof *c->streams);
  if (!c->streams)
    return SQLITE_NOMEM;
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *d = logfmt_reader_stream (c->r, s);
      if ((rank < 0 || d->rank == rank) && (thread < 0 || d->thread == thread)
          && (stream < 0 || s == stream))
        c->streams[c->nstreams++] = s;
    }
  if (vt->kind == K_EVENTS && !c->evbuf
      && !(c->evbuf = sqlite3_malloc64 (1024 * sizeof *c->evbuf)))
    return SQLITE_NOMEM;
  c->evpos = 0;
  c->evn = 0;
  if (vt->kind != K_STATES)
    return next_stream_row (c);
  if ((idxNum & IDX_GROUPED)
      && !(c->grp = grouped_new (c->r, ((unsigned) idxNum >> 1) & 0xff)))
    return SQLITE_NOMEM;
  /* A large scan decodes (and groups) in a worker while SQLite works on
   * the rows (ivahead.h); if no thread can be had, it runs here. */
  uint64_t events = 0;
  for (size_t i = 0; i < c->nstreams; i++)
    events += logfmt_reader_stream_events (c->r, c->streams[i]);
  if (ivahead_wanted (events))
    ivahead_start (c->r, c->streams, c->nstreams, c->t0, c->t1, c->grp,
                   &c->ahead);
  return c->grp && !c->ahead ? group_next (c) : next_stream_row (c);
}

static int
cur_next (sqlite3_vtab_cursor *base)
{
  cursor_t *c = (cursor_t *) base;
  c->rowid++;
  if (c->ahead && ++c->apos < c->an)
    {
      /* the next row of the worker's batch: SQLite's thread does no more
       * than this per row */
      c->ivp = &c->abuf[c->apos];
      return SQLITE_OK;
    }
  switch (c->vt->kind)
    {
    case K_PROCESSES:
      c->eof = ++c->si >= c->vt->nranks;
      return SQLITE_OK;
    case K_THREADS:
      c->eof = ++c->si >= logfmt_reader_info (c->r)->nstreams;
      return SQLITE_OK;
    case K_STATE_TOTALS:
      c->eof = ++c->si >= c->norder;
      return SQLITE_OK;
    case K_WAITS:
      c->eof = ++c->si >= c->vt->nwaits;
      return SQLITE_OK;
    case K_CRITPATH:
      c->eof = ++c->si >= c->vt->cp->nitems;
      return SQLITE_OK;
    case K_MESSAGES:
      {
        int rc = logfmt_msg_iter_next (c->mit, &c->m);
        if (rc < 0)
          return lib_error (c, rc, logfmt_msg_iter_error (c->mit));
        c->eof = rc == 0;
        return SQLITE_OK;
      }
    case K_STATES:
      return c->grp && !c->ahead ? group_next (c) : next_stream_row (c);
    default:
      return next_stream_row (c);
    }
}

static int
cur_eof (sqlite3_vtab_cursor *base)
{
  return ((cursor_t *) base)->eof;
}

static int
cur_rowid (sqlite3_vtab_cursor *base, sqlite3_int64 *id)
{
  *id = ((cursor_t *) base)->rowid;
  return SQLITE_OK;
}

static void
result_text (sqlite3_context *ctx, const char *s)
{
  if (s)
    sqlite3_result_text (ctx, s, -1, SQLITE_STATIC);
  else
    sqlite3_result_null (ctx);
}

static void
result_u64 (sqlite3_context *ctx, uint64_t v)
{
  if (v > (uint64_t) INT64_MAX)
    sqlite3_result_double (ctx, (double) v);
  else
    sqlite3_result_int64 (ctx, (sqlite3_int64) v);
}

/* Cargo decoded through a format string, as clogtool print shows it. */
static void
result_info (sqlite3_context *ctx, const char *format, const uint8_t *cargo)
{
  char buf[512];
  if (!format || !*format
      || logfmt_format_cargo (format, cargo, LOGFMT_CARGO_SIZE, buf,
                              sizeof buf) < 0)
    {
      sqlite3_result_null (ctx);
      return;
    }
  sqlite3_result_text (ctx, buf, -1, SQLITE_TRANSIENT);
}

static const char *
kind_text (int kind)
{
  switch (kind)
    {
    case LOGFMT_KIND_BEGIN: return "begin";
    case LOGFMT_KIND_END: return "end";
    case LOGFMT_KIND_SOLO: return "solo";
    case LOGFMT_KIND_SEND: return "send";
    case LOGFMT_KIND_RECV: return "recv";
    case LOGFMT_KIND_LOSS: return "loss";
    default: return "?";
    }
}

static const char *
comm_name (const logfmt_reader_t *r, uint32_t id)
{
  for (size_t i = 0; i < logfmt_reader_n_comms (r); i++)
    {
      const logfmt_comm_def_t *d = logfmt_reader_comm (r, i);
      if (d->id == id)
        return d->name;
    }
  return NULL;
}

static int
column_states (cursor_t *c, sqlite3_context *ctx, int col)
{
  const logfmt_interval_t *iv = c->ivp;
  if (col == S_DURATION)   /* the usual columns first, without look-ups */
    {
      result_u64 (ctx, iv->inclusive);
      return SQLITE_OK;
    }
  if (col == S_NAME && c->grp)
    {
      const gbucket_t *b = &c->grp->b[grouped_group (c->grp, iv)];
      if (b->name)
        sqlite3_result_text (ctx, b->name, b->name_len, SQLITE_STATIC);
      else
        sqlite3_result_null (ctx);
      return SQLITE_OK;
    }
  const logfmt_stream_def_t *sd = logfmt_reader_stream (c->r, iv->stream);
  const logfmt_state_def_t *st = logfmt_reader_state (c->r,
                                                      (size_t) iv->state);
  switch (col)
    {
    case S_RANK: sqlite3_result_int (ctx, sd->rank); break;
    case S_THREAD: sqlite3_result_int (ctx, sd->thread); break;
    case S_NAME: result_text (ctx, st ? st->name : NULL); break;
    case S_START: result_u64 (ctx, iv->start); break;
    case S_END: result_u64 (ctx, iv->end); break;
    case S_DURATION: result_u64 (ctx, iv->inclusive); break;
    case S_EXCLUSIVE: result_u64 (ctx, iv->exclusive); break;
    case S_DEPTH: sqlite3_result_int (ctx, (int) iv->depth); break;
    case S_OPEN: sqlite3_result_int (ctx, !!(iv->flags & LOGFMT_IV_OPEN));
      break;
    case S_CARGO:
    case S_INFO:
      {
        /* MPE logs a state's info on its END, some programs on its
         * BEGIN: the END's cargo if it has one. */
        const uint8_t *cg = iv->flags & LOGFMT_IV_END_CARGO ? iv->end_cargo
                            : iv->flags & LOGFMT_IV_BEGIN_CARGO
                              ? iv->begin_cargo : NULL;
        if (!cg)
          sqlite3_result_null (ctx);
        else if (col == S_CARGO)
          sqlite3_result_blob (ctx, cg, LOGFMT_CARGO_SIZE, SQLITE_TRANSIENT);
        else
          result_info (ctx, st ? st->format : NULL, cg);
      }
      break;
    case S_STATE: sqlite3_result_int (ctx, iv->state); break;
    case S_STREAM: sqlite3_result_int64 (ctx, iv->stream); break;
    default: sqlite3_result_null (ctx); break;
    }
  return SQLITE_OK;
}

static int
column_events (cursor_t *c, sqlite3_context *ctx, int col)
{
  const logfmt_event_t *ev = &c->evbuf[c->evpos];
  uint32_t s = c->streams[c->si - 1];
  const logfmt_stream_def_t *sd = logfmt_reader_stream (c->r, s);
  int msg = ev->kind == LOGFMT_KIND_SEND || ev->kind == LOGFMT_KIND_RECV;
  const char *name = NULL, *format = NULL;
  if (ev->kind == LOGFMT_KIND_BEGIN || ev->kind == LOGFMT_KIND_END)
    {
      const logfmt_state_def_t *st = logfmt_reader_state (c->r,
                                                          (size_t) ev->state);
      name = st ? st->name : NULL;
      format = st ? st->format : NULL;
    }
  else if (ev->kind == LOGFMT_KIND_SOLO
           && (col == E_NAME || col == E_INFO))
    {
      int d = logfmt_reader_find_event_def (c->r, ev->id);
      const logfmt_event_def_t *ed = d >= 0
        ? logfmt_reader_event_def (c->r, (size_t) d) : NULL;
      name = ed ? ed->name : NULL;
      format = ed ? ed->format : NULL;
    }
  switch (col)
    {
    case E_RANK: sqlite3_result_int (ctx, sd->rank); break;
    case E_THREAD: sqlite3_result_int (ctx, sd->thread); break;
    case E_TIME: result_u64 (ctx, ev->time); break;
    case E_KIND: result_text (ctx, kind_text (ev->kind)); break;
    case E_NAME: result_text (ctx, name); break;
    case E_ID:
      if (ev->type == LOGFMT_REC_EVENT)
        sqlite3_result_int (ctx, ev->id);
      else
        sqlite3_result_null (ctx);
      break;
    case E_PARTNER:
      if (msg) sqlite3_result_int (ctx, ev->partner);
      else sqlite3_result_null (ctx);
      break;
    case E_TAG:
      if (msg) sqlite3_result_int (ctx, ev->tag);
      else sqlite3_result_null (ctx);
      break;
    case E_SIZE:
      if (msg || ev->kind == LOGFMT_KIND_LOSS) result_u64 (ctx, ev->size);
      else sqlite3_result_null (ctx);
      break;
    case E_COMM:
      if (msg) sqlite3_result_int64 (ctx, ev->comm);
      else sqlite3_result_null (ctx);
      break;
    case E_CARGO:
      if (ev->flags & LOGFMT_EVF_CARGO)
        sqlite3_result_blob (ctx, ev->cargo, LOGFMT_CARGO_SIZE,
                             SQLITE_TRANSIENT);
      else
        sqlite3_result_null (ctx);
      break;
    case E_INFO:
      if (ev->flags & LOGFMT_EVF_CARGO)
        result_info (ctx, format, ev->cargo);
      else
        sqlite3_result_null (ctx);
      break;
    case E_STREAM: sqlite3_result_int64 (ctx, s); break;
    default: sqlite3_result_null (ctx); break;
    }
  return SQLITE_OK;
}

static int
column_messages (cursor_t *c, sqlite3_context *ctx, int col)
{
  const logfmt_message_t *m = &c->m;
  int have_send = m->send_stream != LOGFMT_NO_STREAM;
  int have_recv = m->recv_stream != LOGFMT_NO_STREAM;
  switch (col)
    {
    case M_SEND_RANK: sqlite3_result_int (ctx, m->send_rank); break;
    case M_RECV_RANK: sqlite3_result_int (ctx, m->recv_rank); break;
    case M_SEND_THREAD:
      if (have_send)
        sqlite3_result_int (ctx,
                            logfmt_reader_stream (c->r, m->send_stream)
                              ->thread);
      else
        sqlite3_result_null (ctx);
      break;
    case M_RECV_THREAD:
      if (have_recv)
        sqlite3_result_int (ctx,
                            logfmt_reader_stream (c->r, m->recv_stream)
                              ->thread);
      else
        sqlite3_result_null (ctx);
      break;
    case M_SEND_TIME:
      if (have_send) result_u64 (ctx, m->send_time);
      else sqlite3_result_null (ctx);
      break;
    case M_RECV_TIME:
      if (have_recv) result_u64 (ctx, m->recv_time);
      else sqlite3_result_null (ctx);
      break;
    case M_TAG: sqlite3_result_int (ctx, m->tag); break;
    case M_BYTES: result_u64 (ctx, m->size); break;
    case M_COMM: sqlite3_result_int64 (ctx, m->comm); break;
    case M_COMM_NAME: result_text (ctx, comm_name (c->r, m->comm)); break;
    default: sqlite3_result_null (ctx); break;
    }
  return SQLITE_OK;
}

static int
column_metrics (cursor_t *c, sqlite3_context *ctx, int col)
{
  const logfmt_track_rec_t *t = &c->trec;
  uint32_t s = c->streams[c->si - 1];
  const logfmt_stream_def_t *sd = logfmt_reader_stream (c->r, s);
  int64_t id = t->col[LOGFMT_METRIC_COL_ID];
  int d = id >= 0 && id <= UINT32_MAX
          ? logfmt_reader_find_metric (c->r, (uint32_t) id) : -1;
  const logfmt_metric_def_t *md = d >= 0
    ? logfmt_reader_metric (c->r, (size_t) d) : NULL;
  switch (col)
    {
    case X_RANK: sqlite3_result_int (ctx, sd->rank); break;
    case X_THREAD: sqlite3_result_int (ctx, sd->thread); break;
    case X_TIME: result_u64 (ctx, t->time); break;
    case X_NAME: result_text (ctx, md ? md->name : NULL); break;
    case X_ID: sqlite3_result_int64 (ctx, id); break;
    case X_OBJECT:
      if (t->col[LOGFMT_METRIC_COL_OBJECT] >= 0)
        sqlite3_result_int64 (ctx, t->col[LOGFMT_METRIC_COL_OBJECT]);
      else
        sqlite3_result_null (ctx);
      break;
    case X_VALUE: sqlite3_result_int64 (ctx, t->col[LOGFMT_METRIC_COL_VALUE]);
      break;
    case X_UNIT: result_text (ctx, md ? md->unit : NULL); break;
    case X_STREAM: sqlite3_result_int64 (ctx, s); break;
    default: sqlite3_result_null (ctx); break;
    }
  return SQLITE_OK;
}

static const char *
state_name (const logfmt_reader_t *r, int32_t state)
{
  const logfmt_state_def_t *st = state >= 0
    ? logfmt_reader_state (r, (size_t) state) : NULL;
  return st ? st->name : NULL;
}

static int
column_waits (cursor_t *c, sqlite3_context *ctx, int col)
{
  const sqlwait_t *sw = &c->vt->waits[c->si];
  const an_wait_inst_t *w = &sw->w;
  switch (col)
    {
    case W_RANK: sqlite3_result_int (ctx, w->rank); break;
    case W_THREAD:
      sqlite3_result_int (ctx, logfmt_reader_stream (c->r, w->stream)
                                 ->thread);
      break;
    case W_NAME: result_text (ctx, state_name (c->r, w->state)); break;
    case W_START: result_u64 (ctx, w->call_start); break;
    case W_DURATION:
      if (sw->duration != UINT64_MAX) result_u64 (ctx, sw->duration);
      else sqlite3_result_null (ctx);
      break;
    case W_WAIT_START: result_u64 (ctx, w->wait_start); break;
    case W_WAIT: result_u64 (ctx, w->wait_ns); break;
    case W_KIND: result_text (ctx, an_wait_kind_name (w->kind)); break;
    case W_COMM: sqlite3_result_int64 (ctx, w->comm); break;
    case W_COMM_NAME: result_text (ctx, comm_name (c->r, w->comm)); break;
    case W_WAITED_RANK: sqlite3_result_int (ctx, w->cause_rank); break;
    case W_CAUSE_STATE:
      /* '(outside states)' as clogtool waits says it */
      if (w->top_rank < 0)
        sqlite3_result_null (ctx);
      else if (w->top_state < 0)
        result_text (ctx, "(outside states)");
      else
        result_text (ctx, state_name (c->r, w->top_state));
      break;
    case W_CAUSE_RANK:
      if (w->top_rank >= 0) sqlite3_result_int (ctx, w->top_rank);
      else sqlite3_result_null (ctx);
      break;
    case W_CAUSE_NS:
      if (w->top_rank >= 0) result_u64 (ctx, w->top_ns);
      else sqlite3_result_null (ctx);
      break;
    case W_STATE: sqlite3_result_int (ctx, w->state); break;
    case W_STREAM: sqlite3_result_int64 (ctx, w->stream); break;
    default: sqlite3_result_null (ctx); break;
    }
  return SQLITE_OK;
}

static int
column_critpath (cursor_t *c, sqlite3_context *ctx, int col)
{
  const an_cp_item_t *it = &c->vt->cp->items[c->si];
  switch (col)
    {
    case CP_RANK: sqlite3_result_int (ctx, it->rank); break;
    case CP_NAME:
      result_text (ctx, it->state < 0 ? "(outside states)"
                                      : state_name (c->r, it->state));
      break;
    case CP_STATE: sqlite3_result_int (ctx, it->state); break;
    case CP_NS: result_u64 (ctx, it->ns); break;
    default: sqlite3_result_null (ctx); break;
    }
  return SQLITE_OK;
}

static int
cur_column (sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col)
{
  cursor_t *c = (cursor_t *) base;
  switch (c->vt->kind)
    {
    case K_PROCESSES:
      switch (col)
        {
        case P_RANK: sqlite3_result_int64 (ctx, c->si); break;
        case P_HOST: result_text (ctx, c->p_host[c->si]); break;
        case P_THREADS: sqlite3_result_int64 (ctx, c->p_threads[c->si]);
          break;
        case P_EVENTS: result_u64 (ctx, c->p_events[c->si]); break;
        default: sqlite3_result_null (ctx); break;
        }
      return SQLITE_OK;
    case K_THREADS:
      {
        const logfmt_stream_def_t *d = logfmt_reader_stream (c->r,
                                                             (uint32_t) c->si);
        switch (col)
          {
          case T_STREAM: sqlite3_result_int64 (ctx, c->si); break;
          case T_RANK: sqlite3_result_int (ctx, d->rank); break;
          case T_THREAD: sqlite3_result_int (ctx, d->thread); break;
          case T_HOST: result_text (ctx, d->host); break;
          case T_EVENTS:
            result_u64 (ctx, logfmt_reader_stream_events (c->r,
                                                          (uint32_t) c->si));
            break;
          default: sqlite3_result_null (ctx); break;
          }
        return SQLITE_OK;
      }
    case K_STATES: return column_states (c, ctx, col);
    case K_EVENTS: return column_events (c, ctx, col);
    case K_MESSAGES: return column_messages (c, ctx, col);
    case K_METRICS: return column_metrics (c, ctx, col);
    case K_WAITS: return column_waits (c, ctx, col);
    case K_CRITPATH: return column_critpath (c, ctx, col);
    case K_STATE_TOTALS:
      {
        uint32_t g = c->order[c->si];
        const gbucket_t *b = &c->grp->b[g];
        switch (col)
          {
          case N_NAME:
            if (b->name)
              sqlite3_result_text (ctx, b->name, b->name_len, SQLITE_STATIC);
            else
              sqlite3_result_null (ctx);
            break;
          case N_COUNT: result_u64 (ctx, c->tot->count[g]); break;
          case N_DURATION: result_u64 (ctx, c->tot->inclusive[g]); break;
          case N_EXCLUSIVE: result_u64 (ctx, c->tot->exclusive[g]); break;
          default: sqlite3_result_null (ctx); break;
          }
        return SQLITE_OK;
      }
    default: return SQLITE_ERROR;
    }
}

#ifdef SQLITE_DIRECTONLY                       /* SQLite 3.30 */
# define CLOG_DIRECTONLY SQLITE_DIRECTONLY
#else
# define CLOG_DIRECTONLY 0
#endif

static sqlite3_module clog_module = {
  .iVersion = 0,
  .xCreate = vt_create,
  .xConnect = vt_connect,
  .xBestIndex = vt_best_index,
  .xDisconnect = vt_disconnect,
  .xDestroy = vt_disconnect,
  .xOpen = cur_open,
  .xClose = cur_close,
  .xFilter = cur_filter,
  .xNext = cur_next,
  .xEof = cur_eof,
  .xColumn = cur_column,
  .xRowid = cur_rowid,
};

/* clog_blocks(FILE): event blocks decoded so far through this
 * connection's reader of FILE (NULL if no table has it open). */
static void
fn_blocks (sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
  registry_t *g = sqlite3_user_data (ctx);
  const char *path = (const char *) sqlite3_value_text (argv[0]);
  (void) argc;
  for (shared_t *s = g->open; path && s; s = s->next)
    if (strcmp (s->path, path) == 0)
      {
        sqlite3_result_int64 (ctx, (sqlite3_int64)
                                     logfmt_reader_blocks_decoded (s->r));
        return;
      }
  sqlite3_result_null (ctx);
}

int
clogsql_register (sqlite3 *db)
{
  registry_t *g = sqlite3_malloc (sizeof *g);
  if (!g)
    return SQLITE_NOMEM;
  g->open = NULL;
  int rc = sqlite3_create_module_v2 (db, "clog", &clog_module, g,
                                     registry_free);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function (db, "clog_blocks", 1,
                                  SQLITE_UTF8 | CLOG_DIRECTONLY, g,
                                  fn_blocks, NULL, NULL);
  return rc;
}

int
clogsql_attach (sqlite3 *db, const char *path, char **errmsg)
{
  for (int k = 0; k < NKINDS; k++)
    {
      char *sql = sqlite3_mprintf ("CREATE VIRTUAL TABLE temp.%s USING "
                                   "clog(%Q, %s)", kind_name[k], path,
                                   kind_name[k]);
      if (!sql)
        return SQLITE_NOMEM;
      int rc = sqlite3_exec (db, sql, NULL, NULL, errmsg);
      sqlite3_free (sql);
      if (rc != SQLITE_OK)
        return rc;
    }
  return SQLITE_OK;
}

#ifndef SQLITE_CORE
/* Entry point of the loadable extension (.load clogsql). */
#ifdef _WIN32
__declspec(dllexport)
#endif
int
sqlite3_clogsql_init (sqlite3 *db, char **err,
                      const sqlite3_api_routines *api)
{
  SQLITE_EXTENSION_INIT2 (api);
  int rc = clogsql_register (db);
  if (rc != SQLITE_OK)
    *err = sqlite3_mprintf ("clogsql: cannot register the clog module");
  return rc;
}
#endif

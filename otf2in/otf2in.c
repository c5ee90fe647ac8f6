/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OTF2 archive -> .clog (otf2in.h says what maps to what).
 *
 * Three phases: the global definitions become the .clog's definitions
 * (states, streams, communicators, event definitions); then worker
 * threads each take the next location, read its local definitions (id
 * mappings) and its events, and hand them to the one logfmt writer in
 * batches under a lock; the writer matches the messages.  OTF2's own
 * locking callbacks make reading different locations from different
 * threads safe.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otf2in.h"

static int
set_err (logfmt_error_t *err, int code, const char *file, const char *fmt,
         ...) __attribute__ ((format (printf, 4, 5)));

static int
set_err (logfmt_error_t *err, int code, const char *file, const char *fmt,
         ...)
{
  if (err)
    {
      char msg[400];
      va_list ap;
      va_start (ap, fmt);
      vsnprintf (msg, sizeof msg, fmt, ap);
      va_end (ap);
      err->code = code;
      err->offset = UINT64_MAX;
      snprintf (err->message, sizeof err->message, "%s: %s",
                file ? file : "(null)", msg);
    }
  return code;
}

/* An OTF2 anchor file is a small file (the data is in NAME.def and
 * NAME/) that starts with a header byte, the byte order ('B' or 'L') and
 * "OTF2". */
int
otf2in_is_archive (const char *path)
{
#ifdef HAVE_OTF2
  /* Only a regular file can be an anchor: opening a FIFO or a device
   * to look would block or have effects. */
  unsigned char buf[8] = { 0 };
  struct stat st;
  if (!path || stat (path, &st) != 0 || !S_ISREG (st.st_mode))
    return 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return 0;
  ssize_t n = read (fd, buf, sizeof buf);
  close (fd);
  return n >= 7 && (buf[1] == 'B' || buf[1] == 'L')
         && memcmp (buf + 2, "OTF2", 5) == 0;
#else
  (void) path;
  return 0;
#endif
}

int
otf2in_reader_open (const char *path, unsigned flags,
                    logfmt_progress_cb progress, void *user,
                    logfmt_reader_t **out, logfmt_error_t *err)
{
  if (!path || !otf2in_is_archive (path))
    return logfmt_reader_open_progress (path, flags, progress, user, out,
                                        err);
  if (out)
    *out = NULL;
  const char *dir = getenv ("TMPDIR");
  if (!dir || !*dir)
    dir = "/tmp";
  char tmp[4096];
  snprintf (tmp, sizeof tmp, "%s/otf2in-XXXXXX", dir);
  int fd = mkstemp (tmp);
  if (fd < 0)
    return set_err (err, LOGFMT_EIO, path,
                    "cannot create a temporary file in %s: %s", dir,
                    strerror (errno));
  close (fd);
  int rc = otf2in_convert (path, tmp, NULL, 0, progress, user, NULL, err);
  if (rc == 0)
    {
      /* The reader maps the whole file: it outlives the name. */
      rc = logfmt_reader_open (tmp, flags, out, err);
      unlink (tmp);
    }
  return rc;
}

#ifndef HAVE_OTF2

int
otf2in_convert (const char *in_path, const char *out_path,
                const char *creator, unsigned threads,
                logfmt_progress_cb progress, void *user,
                otf2in_report_t *report, logfmt_error_t *err)
{
  (void) out_path; (void) creator; (void) threads; (void) progress;
  (void) user; (void) report;
  return set_err (err, LOGFMT_EBADMAGIC, in_path,
                  "cannot read OTF2: built without the OTF2 library "
                  "(install libotf2-trace-dev and reconfigure)");
}

#else /* HAVE_OTF2 */

#include <pthread.h>
#include <otf2/otf2.h>
#include <otf2/OTF2_Pthread_Locks.h>

/* ---- definitions ------------------------------------------------------ */

typedef struct { uint64_t id; uint32_t idx; } idmap_t;

typedef struct
{
  uint32_t name, parent;
} node_t;

typedef struct
{
  uint64_t id;
  uint32_t name, parent;     /* system tree node */
  OTF2_LocationGroupType type;
  int32_t rank;              /* -1 until assigned */
} lgroup_t;

typedef struct
{
  uint64_t id;
  uint32_t name;
  OTF2_LocationType type;
  uint64_t nevents;
  uint64_t group;
  int32_t rank, thread;
  uint32_t stream;           /* UINT32_MAX: not read (metric location) */
} loc_t;

typedef struct
{
  uint32_t id, name, desc;
  OTF2_Paradigm paradigm;
  int32_t start_id;          /* its state's BEGIN id (END: + 1) */
  int mpi;
  int coll;                  /* an MPI collective (role or name) */
} region_t;

typedef struct
{
  uint32_t id;
  OTF2_GroupType type;
  OTF2_Paradigm paradigm;
  uint32_t n;
  uint64_t *members;
} group_t;

typedef struct
{
  uint32_t id, name, group;
  uint32_t size;
  int32_t *ranks;            /* local -> world, NULL if unknown */
  int self;                  /* MPI_COMM_SELF-like: partner is oneself */
  uint32_t label;            /* the MPI wrappers' label of it */
} comm_t;

typedef struct
{
  uint32_t id, name, desc, unit;
  OTF2_MetricMode mode;
  /* Our export's track series ("MPE track K key A B column C flags F"):
   * the track kind (0: not one), its key columns and this column. */
  uint32_t trk_kind, trk_col, trk_flags;
  int64_t k0, k1;
} member_t;

typedef struct
{
  uint32_t name;             /* string ref */
  OTF2_Type type;
  OTF2_AttributeValue value;
} prop_t;

typedef struct
{
  uint32_t id;               /* class or instance ref */
  uint32_t member;           /* first member (class), or class (instance) */
  int instance;
} metric_t;

typedef struct imp imp_t;

/* One reading thread's state while it reads one location. */
typedef struct
{
  imp_t *im;
  uint32_t stream;
  int32_t rank;
  logfmt_event_t *batch;
  size_t n, cap;
  /* Leaves at time pend_time, by batch index: a "continued" Enter of the
   * same region at that time undoes one (our export's re-entries). */
  size_t pend[64];
  size_t npend;
  uint64_t pend_time;
  /* Open regions: state index, and the collective's cargo for its END. */
  struct { int32_t region; int has_cargo; uint8_t cargo[32]; } *stack;
  size_t depth, capstack;
  /* Track records of the stream (metric samples, and the tracks our
   * export wrote as metrics), with their kinds. */
  logfmt_track_rec_t *trk;
  size_t ntrk, captrk;
  uint32_t *trkk;
  size_t captrkk;
  int failed;                /* a logfmt code, or 0 */
  uint64_t skipped, coll_outside, metric_values;
} worker_t;

struct imp
{
  const char *path;
  OTF2_Reader *rd;
  logfmt_error_t *err;
  /* Clock. */
  uint64_t res, offset, realtime;
  /* Strings, dense by ref. */
  char **str;
  size_t nstr, capstr;
  node_t *nodes; size_t nnodes, capnodes; uint32_t *node_ids;
  lgroup_t *lg; size_t nlg, caplg;
  loc_t *loc; size_t nloc, caploc;
  region_t *reg; size_t nreg, capreg;
  group_t *grp; size_t ngrp, capgrp;
  comm_t *comm; size_t ncomm, capcomm;
  member_t *mem; size_t nmem, capmem;
  /* Location group properties that may be our export's call paths. */
  prop_t *prop; size_t nprop, capprop;
  metric_t *met; size_t nmet, capmet;
  idmap_t *reg_map, *comm_map, *mem_map, *met_map, *loc_map, *node_map;
  uint32_t cont_attr;        /* "continued" attribute, or UINT32_MAX */
  uint32_t cargo_attr[4];    /* "MPE cargo 0..3" (our export), or
                                UINT32_MAX */
  int32_t *solo_id;          /* per member: MPE solo id, INT32_MIN loss */
  int *is_solo;
  int bad_defs;              /* out of memory or inconsistent */
  /* Conversion. */
  logfmt_writer_t *w;
  pthread_mutex_t lock;      /* writer, progress, next location */
  size_t next_loc;
  uint64_t total, done, next_report;
  logfmt_progress_cb progress;
  void *user;
  int failed;                /* first error (code), err filled */
  otf2in_report_t rep;
};

static int
grow (void **p, size_t *cap, size_t n, size_t size)
{
  if (n < *cap)
    return 0;
  size_t nc = *cap ? *cap * 2 : 16;
  void *q = realloc (*p, nc * size);
  if (!q)
    return -1;
  *p = q;
  *cap = nc;
  return 0;
}

#define PUSH(im, arr, n, cap) \
  (grow ((void **) &(im)->arr, &(im)->cap, (im)->n, sizeof *(im)->arr) \
   ? ((im)->bad_defs = 1, (void *) NULL) : (void *) &(im)->arr[(im)->n++])

static const char *
S (const imp_t *im, uint32_t ref)
{
  return ref < im->nstr && im->str[ref] ? im->str[ref] : "";
}

static int
idmap_cmp (const void *a, const void *b)
{
  const idmap_t *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* Sorted (id -> index) table over n records whose ids get() returns. */
static idmap_t *
idmap_build (size_t n, uint64_t (*get) (const imp_t *, size_t),
             const imp_t *im)
{
  idmap_t *m = malloc ((n + 1) * sizeof *m);
  if (!m)
    return NULL;
  for (size_t i = 0; i < n; i++)
    m[i] = (idmap_t) { get (im, i), (uint32_t) i };
  qsort (m, n, sizeof *m, idmap_cmp);
  return m;
}

static int64_t
idmap_find (const idmap_t *m, size_t n, uint64_t id)
{
  size_t a = 0, b = n;
  while (a < b)
    {
      size_t c = (a + b) / 2;
      if (m[c].id < id)
        a = c + 1;
      else
        b = c;
    }
  return a < n && m[a].id == id ? (int64_t) m[a].idx : -1;
}

static uint64_t reg_id (const imp_t *im, size_t i) { return im->reg[i].id; }
static uint64_t comm_id (const imp_t *im, size_t i) { return im->comm[i].id; }
static uint64_t mem_id (const imp_t *im, size_t i) { return im->mem[i].id; }
static uint64_t met_id (const imp_t *im, size_t i) { return im->met[i].id; }
static uint64_t loc_id (const imp_t *im, size_t i) { return im->loc[i].id; }
static uint64_t node_id (const imp_t *im, size_t i) { return im->node_ids[i]; }

/* ---- global definition callbacks -------------------------------------- */

static OTF2_CallbackCode
def_clock (void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
  imp_t *im = u;
  (void) len;
  im->res = res;
  im->offset = off;
  im->realtime = rt;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_string (void *u, OTF2_StringRef self, const char *s)
{
  imp_t *im = u;
  if (self >= (1u << 26))
    {
      im->bad_defs = 2;
      return OTF2_CALLBACK_INTERRUPT;
    }
  while (self >= im->capstr)
    {
      size_t old = im->capstr;
      if (grow ((void **) &im->str, &im->capstr, im->capstr, sizeof *im->str))
        {
          im->bad_defs = 1;
          return OTF2_CALLBACK_INTERRUPT;
        }
      memset (im->str + old, 0, (im->capstr - old) * sizeof *im->str);
    }
  free (im->str[self]);
  im->str[self] = strdup (s ? s : "");
  if (self >= im->nstr)
    im->nstr = self + 1;
  return im->str[self] ? OTF2_CALLBACK_SUCCESS
         : (im->bad_defs = 1, OTF2_CALLBACK_INTERRUPT);
}

static OTF2_CallbackCode
def_attr (void *u, OTF2_AttributeRef self, OTF2_StringRef name,
          OTF2_StringRef desc, OTF2_Type type)
{
  imp_t *im = u;
  (void) desc; (void) type;
  unsigned k;
  char c;
  if (strcmp (S (im, name), "continued") == 0)
    im->cont_attr = self;
  else if (sscanf (S (im, name), "MPE cargo %u%c", &k, &c) == 1 && k < 4)
    im->cargo_attr[k] = self;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_node (void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
          OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
  imp_t *im = u;
  (void) cls;
  node_t *n = PUSH (im, nodes, nnodes, capnodes);
  if (!n)
    return OTF2_CALLBACK_INTERRUPT;
  *n = (node_t) { name, parent };
  /* Keep the ref in a parallel array for lookups. */
  uint32_t *ids = realloc (im->node_ids, im->nnodes * sizeof *ids);
  if (!ids)
    {
      im->bad_defs = 1;
      return OTF2_CALLBACK_INTERRUPT;
    }
  im->node_ids = ids;
  ids[im->nnodes - 1] = self;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_lgroup (void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
            OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
            OTF2_LocationGroupRef creator)
{
  imp_t *im = u;
  (void) creator;
  lgroup_t *g = PUSH (im, lg, nlg, caplg);
  if (!g)
    return OTF2_CALLBACK_INTERRUPT;
  *g = (lgroup_t) { self, name, parent, type, -1 };
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_loc (void *u, OTF2_LocationRef self, OTF2_StringRef name,
         OTF2_LocationType type, uint64_t nevents, OTF2_LocationGroupRef grp)
{
  imp_t *im = u;
  loc_t *l = PUSH (im, loc, nloc, caploc);
  if (!l)
    return OTF2_CALLBACK_INTERRUPT;
  *l = (loc_t) { self, name, type, nevents, grp, -1, -1, UINT32_MAX };
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_region (void *u, OTF2_RegionRef self, OTF2_StringRef name,
            OTF2_StringRef canon, OTF2_StringRef desc, OTF2_RegionRole role,
            OTF2_Paradigm paradigm, OTF2_RegionFlag flags, OTF2_StringRef src,
            uint32_t l0, uint32_t l1)
{
  imp_t *im = u;
  (void) canon; (void) role; (void) flags; (void) src; (void) l0; (void) l1;
  /* Sampling regions name calling contexts (frames), not states. */
  if (paradigm == OTF2_PARADIGM_SAMPLING)
    return OTF2_CALLBACK_SUCCESS;
  region_t *r = PUSH (im, reg, nreg, capreg);
  if (!r)
    return OTF2_CALLBACK_INTERRUPT;
  *r = (region_t) { self, name, desc, paradigm, 0,
                    paradigm == OTF2_PARADIGM_MPI,
                    paradigm == OTF2_PARADIGM_MPI
                    && (role == OTF2_REGION_ROLE_BARRIER
                        || role == OTF2_REGION_ROLE_COLL_ONE2ALL
                        || role == OTF2_REGION_ROLE_COLL_ALL2ONE
                        || role == OTF2_REGION_ROLE_COLL_ALL2ALL
                        || role == OTF2_REGION_ROLE_COLL_OTHER) };
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_group (void *u, OTF2_GroupRef self, OTF2_StringRef name,
           OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag flags,
           uint32_t n, const uint64_t *members)
{
  imp_t *im = u;
  (void) name; (void) flags;
  group_t *g = PUSH (im, grp, ngrp, capgrp);
  if (!g)
    return OTF2_CALLBACK_INTERRUPT;
  *g = (group_t) { self, type, paradigm, n, NULL };
  if (n && !(g->members = malloc (n * sizeof *members)))
    {
      im->bad_defs = 1;
      return OTF2_CALLBACK_INTERRUPT;
    }
  if (n)
    memcpy (g->members, members, n * sizeof *members);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_lgprop (void *u, OTF2_LocationGroupRef group, OTF2_StringRef name,
            OTF2_Type type, OTF2_AttributeValue value)
{
  imp_t *im = u;
  (void) group;
  prop_t *p = PUSH (im, prop, nprop, capprop);
  if (!p)
    return OTF2_CALLBACK_INTERRUPT;
  *p = (prop_t) { name, type, value };
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_nodeprop (void *u, OTF2_SystemTreeNodeRef node, OTF2_StringRef name,
              OTF2_Type type, OTF2_AttributeValue value)
{
  return def_lgprop (u, node, name, type, value);
}

/* A hex string of our export's resources back to text in place
 * ("-": none, "=": empty); NULL when it is not hex. */
static const char *
unhex (char *h)
{
  if (strcmp (h, "-") == 0)
    return NULL;
  if (strcmp (h, "=") == 0)
    return "";
  size_t n = strlen (h);
  if (n % 2)
    return NULL;
  for (size_t k = 0; k < n / 2; k++)
    {
      unsigned x;
      if (sscanf (h + 2 * k, "%2x", &x) != 1 || x == 0)
        return NULL;
      h[k] = (char) x;
    }
  h[n / 2] = '\0';
  return h;
}

/* "MPE resource N": "kind stream nv ns v0 .. v7 s0 s1" (our export). */
static int
put_resource (imp_t *im, const char *txt)
{
  logfmt_resource_def_t d = { 0 };
  char s0[4096], s1[4096];
  long long v[LOGFMT_RES_MAX_V];
  if (strlen (txt) >= 4000
      || sscanf (txt, "%u %u %u %u %lld %lld %lld %lld %lld %lld %lld %lld "
                 "%4095s %4095s", &d.kind, &d.stream, &d.nv, &d.ns, &v[0],
                 &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], s0, s1)
         != 14
      || d.nv > LOGFMT_RES_MAX_V || d.ns > LOGFMT_RES_MAX_S)
    return LOGFMT_ECORRUPT;
  for (int k = 0; k < LOGFMT_RES_MAX_V; k++)
    d.v[k] = v[k];
  d.s[0] = unhex (s0);
  d.s[1] = unhex (s1);
  return logfmt_writer_add_resource (im->w, &d);
}

/* Our export's properties: "MPE constant NAME" (int64) and "MPE
 * resource N" on the machine node, and "MPE callpaths" of a rank: its
 * call-path tables as the .clog encodes them, in hex. */
static int
put_callpaths (imp_t *im)
{
  for (size_t i = 0; i < im->nprop; i++)
    {
      const char *pname = S (im, im->prop[i].name);
      if (strncmp (pname, "MPE constant ", 13) == 0
          && im->prop[i].type == OTF2_TYPE_INT64)
        {
          logfmt_const_def_t cd = { pname + 13, im->prop[i].value.int64 };
          int rc = logfmt_writer_add_const (im->w, &cd);
          if (rc)
            return rc;
          continue;
        }
      if (strncmp (pname, "MPE resource ", 13) == 0
          && im->prop[i].type == OTF2_TYPE_STRING)
        {
          int rc = put_resource (im, S (im, im->prop[i].value.stringRef));
          if (rc)
            return rc;
          continue;
        }
      if (strcmp (pname, "MPE callpaths") != 0
          || im->prop[i].type != OTF2_TYPE_STRING)
        continue;
      const char *hex = S (im, im->prop[i].value.stringRef);
      size_t len = strlen (hex) / 2;
      uint8_t *blob = malloc (len + 1);
      if (!blob)
        return LOGFMT_ENOMEM;
      for (size_t k = 0; k < len; k++)
        {
          unsigned x;
          if (sscanf (hex + 2 * k, "%2x", &x) != 1)
            {
              free (blob);
              return LOGFMT_ECORRUPT;
            }
          blob[k] = (uint8_t) x;
        }
      int rc = logfmt_writer_put_callpaths (im->w, blob, len);
      free (blob);
      if (rc)
        return rc;
    }
  return 0;
}

static OTF2_CallbackCode
def_comm (void *u, OTF2_CommRef self, OTF2_StringRef name,
          OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
  imp_t *im = u;
  (void) parent; (void) flags;
  comm_t *c = PUSH (im, comm, ncomm, capcomm);
  if (!c)
    return OTF2_CALLBACK_INTERRUPT;
  *c = (comm_t) { self, name, group, 0, NULL, 0 };
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_member (void *u, OTF2_MetricMemberRef self, OTF2_StringRef name,
            OTF2_StringRef desc, OTF2_MetricType mtype, OTF2_MetricMode mode,
            OTF2_Type vtype, OTF2_Base base, int64_t exp, OTF2_StringRef unit)
{
  imp_t *im = u;
  (void) mtype; (void) vtype; (void) base; (void) exp;
  member_t *m = PUSH (im, mem, nmem, capmem);
  if (!m)
    return OTF2_CALLBACK_INTERRUPT;
  *m = (member_t) { self, name, desc, unit, mode };
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_mclass (void *u, OTF2_MetricRef self, uint8_t n,
            const OTF2_MetricMemberRef *members, OTF2_MetricOccurrence occ,
            OTF2_RecorderKind kind)
{
  imp_t *im = u;
  (void) occ; (void) kind;
  metric_t *m = PUSH (im, met, nmet, capmet);
  if (!m)
    return OTF2_CALLBACK_INTERRUPT;
  *m = (metric_t) { self, n ? members[0] : UINT32_MAX, 0 };
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_minst (void *u, OTF2_MetricRef self, OTF2_MetricRef cls,
           OTF2_LocationRef recorder, OTF2_MetricScope scope, uint64_t sc)
{
  imp_t *im = u;
  (void) recorder; (void) scope; (void) sc;
  metric_t *m = PUSH (im, met, nmet, capmet);
  if (!m)
    return OTF2_CALLBACK_INTERRUPT;
  *m = (metric_t) { self, cls, 1 };
  return OTF2_CALLBACK_SUCCESS;
}

/* ---- errors ------------------------------------------------------------ */

/* OTF2 reports errors through one process-wide callback; the last
 * message per thread explains the failing call (instead of OTF2 printing
 * it). */
static __thread char otf2_msg[256];

/* fmt is OTF2's own printf format (clang's -Wformat-nonliteral). */
static OTF2_ErrorCode
otf2_error_cb (void *u, const char *file, uint64_t line, const char *fn,
               OTF2_ErrorCode code, const char *fmt, va_list va)
  __attribute__ ((format (printf, 6, 0)));

static OTF2_ErrorCode
otf2_error_cb (void *u, const char *file, uint64_t line, const char *fn,
               OTF2_ErrorCode code, const char *fmt, va_list va)
{
  (void) u; (void) file; (void) line; (void) fn;
  char m[200] = "";
  if (fmt)
    vsnprintf (m, sizeof m, fmt, va);
  snprintf (otf2_msg, sizeof otf2_msg, "%s%s%s",
            OTF2_Error_GetDescription (code), m[0] ? ": " : "", m);
  return code;
}

static int
otf2_fail (imp_t *im, OTF2_ErrorCode e, const char *what)
{
  return set_err (im->err, LOGFMT_ECORRUPT, im->path, "OTF2 %s: %s", what,
                  otf2_msg[0] ? otf2_msg : OTF2_Error_GetDescription (e));
}

/* ---- mapping the definitions ------------------------------------------- */

static int
lg_cmp (const void *a, const void *b)
{
  const lgroup_t *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

static int64_t
lg_find (const imp_t *im, uint64_t id)
{
  size_t a = 0, b = im->nlg;
  while (a < b)
    {
      size_t c = (a + b) / 2;
      if (im->lg[c].id < id)
        a = c + 1;
      else
        b = c;
    }
  return a < im->nlg && im->lg[a].id == id ? (int64_t) a : -1;
}

static const group_t *
group_find (const imp_t *im, uint32_t id)
{
  for (size_t i = 0; i < im->ngrp; i++)
    if (im->grp[i].id == id)
      return &im->grp[i];
  return NULL;
}

static int
loc_order (const void *a, const void *b)
{
  const loc_t *x = *(loc_t *const *) a, *y = *(loc_t *const *) b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* "MPE state, events A/B, colour C", then maybe "\nformat F" (our
 * export's region description); *format points into desc, or NULL. */
static int
parse_mpe_region (const char *desc, int32_t *a, int32_t *b, char *color,
                  size_t clen, const char **format)
{
  int n = 0;
  *format = NULL;
  if (sscanf (desc, "MPE state, events %" SCNd32 "/%" SCNd32 ", colour %n",
              a, b, &n) != 2 || n == 0)
    return 0;
  const char *nl = strchr (desc + n, '\n');
  size_t len = nl ? (size_t) (nl - desc - n) : strlen (desc + n);
  snprintf (color, clen, "%.*s", (int) (len < clen ? len : clen - 1),
            desc + n);
  if (nl && strncmp (nl, "\nformat ", 8) == 0)
    *format = nl + 8;
  return 1;
}

/* MPI collectives by name (after "MPI_", nonblocking ones with their
 * leading I): the OTF2 operation and region role. */
static const struct
{
  const char *name;
  OTF2_CollectiveOp op;
  OTF2_RegionRole role;
} coll_ops[] = {
  { "Barrier", OTF2_COLLECTIVE_OP_BARRIER, OTF2_REGION_ROLE_BARRIER },
  { "Bcast", OTF2_COLLECTIVE_OP_BCAST, OTF2_REGION_ROLE_COLL_ONE2ALL },
  { "Gather", OTF2_COLLECTIVE_OP_GATHER, OTF2_REGION_ROLE_COLL_ALL2ONE },
  { "Gatherv", OTF2_COLLECTIVE_OP_GATHERV, OTF2_REGION_ROLE_COLL_ALL2ONE },
  { "Scatter", OTF2_COLLECTIVE_OP_SCATTER, OTF2_REGION_ROLE_COLL_ONE2ALL },
  { "Scatterv", OTF2_COLLECTIVE_OP_SCATTERV, OTF2_REGION_ROLE_COLL_ONE2ALL },
  { "Allgather", OTF2_COLLECTIVE_OP_ALLGATHER, OTF2_REGION_ROLE_COLL_ALL2ALL },
  { "Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV,
    OTF2_REGION_ROLE_COLL_ALL2ALL },
  { "Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL, OTF2_REGION_ROLE_COLL_ALL2ALL },
  { "Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV, OTF2_REGION_ROLE_COLL_ALL2ALL },
  { "Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW, OTF2_REGION_ROLE_COLL_ALL2ALL },
  { "Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_REGION_ROLE_COLL_ALL2ALL },
  { "Reduce", OTF2_COLLECTIVE_OP_REDUCE, OTF2_REGION_ROLE_COLL_ALL2ONE },
  { "Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER,
    OTF2_REGION_ROLE_COLL_ALL2ALL },
  { "Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK,
    OTF2_REGION_ROLE_COLL_ALL2ALL },
  { "Scan", OTF2_COLLECTIVE_OP_SCAN, OTF2_REGION_ROLE_COLL_OTHER },
  { "Exscan", OTF2_COLLECTIVE_OP_EXSCAN, OTF2_REGION_ROLE_COLL_OTHER },
};

int
otf2in_collective (const char *name, uint32_t *op, uint32_t *role)
{
  if (!name || strncmp (name, "MPI_", 4) != 0)
    return 0;
  name += 4;
  for (int pass = 0; pass < 2; pass++, name++)
    {
      for (size_t i = 0; i < sizeof coll_ops / sizeof *coll_ops; i++)
        if (strcmp (name, coll_ops[i].name) == 0)
          {
            *op = coll_ops[i].op;
            *role = coll_ops[i].role;
            return 1;
          }
      if (name[0] != 'I')
        break;
    }
  return 0;
}


/* The MPI wrappers' collective END format and cargo
 * (mpe/wrappers/wrap-internal.h, analysis/an-common.c), so that
 * `clogtool matrix` and `profile` count the collectives. */
static const char coll_format[] = "comm=%x np=%d root=%d sent=%l recv=%l";

/* The wrappers' label of a communicator: FNV-1a over its world ranks,
 * each low byte first; MPI_COMM_WORLD (id 0) is ffffffff. */
static uint32_t
comm_label (uint32_t id, const int32_t *ranks, uint32_t n)
{
  uint32_t h = 2166136261u;
  if (id == 0)
    return 0xffffffffu;
  for (uint32_t i = 0; ranks && i < n; i++)
    for (int b = 0; b < 4; b++)
      h = (h ^ (((uint32_t) ranks[i] >> (8 * b)) & 0xffu)) * 16777619u;
  return h;
}

/* Ranks, threads, streams, states, event definitions, communicators. */
static int
map_defs (imp_t *im, const char *creator)
{
  if (im->bad_defs)
    return set_err (im->err, im->bad_defs == 1 ? LOGFMT_ENOMEM
                    : LOGFMT_ECORRUPT, im->path,
                    im->bad_defs == 1 ? "out of memory reading definitions"
                    : "implausible definition (string id too large)");
  if (im->res == 0)
    return set_err (im->err, LOGFMT_ECORRUPT, im->path,
                    "no clock properties (timer resolution 0)");
  if (!(im->reg_map = idmap_build (im->nreg, reg_id, im))
      || !(im->comm_map = idmap_build (im->ncomm, comm_id, im))
      || !(im->mem_map = idmap_build (im->nmem, mem_id, im))
      || !(im->met_map = idmap_build (im->nmet, met_id, im))
      || !(im->loc_map = idmap_build (im->nloc, loc_id, im))
      || !(im->node_map = idmap_build (im->nnodes, node_id, im)))
    return set_err (im->err, LOGFMT_ENOMEM, im->path, "out of memory");
  qsort (im->lg, im->nlg, sizeof *im->lg, lg_cmp);

  /* Ranks: the MPI location group's order (rank i = member i's
   * process); processes it does not name come after, in id order. */
  int32_t nranks = 0;
  for (size_t g = 0; g < im->ngrp; g++)
    if (im->grp[g].type == OTF2_GROUP_TYPE_COMM_LOCATIONS
        && im->grp[g].paradigm == OTF2_PARADIGM_MPI)
      {
        for (uint32_t i = 0; i < im->grp[g].n && i < INT32_MAX; i++)
          {
            int64_t l = idmap_find (im->loc_map, im->nloc,
                                    im->grp[g].members[i]);
            int64_t k = l >= 0 ? lg_find (im, im->loc[l].group) : -1;
            if (k >= 0 && im->lg[k].rank < 0)
              {
                im->lg[k].rank = (int32_t) i;
                if ((int32_t) i >= nranks)
                  nranks = (int32_t) i + 1;
              }
          }
        break;
      }
  for (size_t k = 0; k < im->nlg; k++)
    if (im->lg[k].rank < 0)
      im->lg[k].rank = nranks++;

  /* Streams: every location that records more than metrics, ordered by
   * (rank, id); thread = index within its process. */
  loc_t **order = malloc ((im->nloc + 1) * sizeof *order);
  if (!order)
    return set_err (im->err, LOGFMT_ENOMEM, im->path, "out of memory");
  size_t nord = 0;
  for (size_t l = 0; l < im->nloc; l++)
    {
      int64_t k = lg_find (im, im->loc[l].group);
      if (im->loc[l].type == OTF2_LOCATION_TYPE_METRIC)
        continue;
      if (k < 0)
        {
          /* A location without a process: a rank of its own. */
          im->loc[l].rank = nranks++;
        }
      else
        im->loc[l].rank = im->lg[k].rank;
      order[nord++] = &im->loc[l];
    }
  qsort (order, nord, sizeof *order, loc_order);
  int rc = 0;
  for (size_t i = 0; i < nord && rc == 0; i++)
    {
      loc_t *l = order[i];
      l->thread = i > 0 && order[i - 1]->rank == l->rank
                  ? order[i - 1]->thread + 1 : 0;
      int64_t k = lg_find (im, l->group);
      const char *host = NULL;
      int64_t n = k >= 0 ? idmap_find (im->node_map, im->nnodes,
                                        im->lg[k].parent) : -1;
      if (n >= 0)
        host = S (im, im->nodes[n].name);
      logfmt_stream_def_t sd = { l->rank, l->thread, host };
      rc = logfmt_writer_add_stream (im->w, &sd, &l->stream);
      im->total += l->nevents;
    }
  free (order);

  /* States: one per region.  Our export's regions carry the MPE event
   * ids and colour; others get ids past every such id. */
  int32_t next_id = 0;
  char color[64];
  for (size_t i = 0; i < im->nreg; i++)
    {
      int32_t a, b;
      const char *f;
      if (parse_mpe_region (S (im, im->reg[i].desc), &a, &b, color,
                            sizeof color, &f))
        {
          if (a >= next_id)
            next_id = a + 1;
          if (b >= next_id)
            next_id = b + 1;
        }
    }
  next_id = (next_id + 1) & ~1;
  for (size_t i = 0; i < im->nreg && rc == 0; i++)
    {
      region_t *r = &im->reg[i];
      logfmt_state_def_t d = { 0 };
      const char *format = NULL;
      d.name = S (im, r->name);
      if (!parse_mpe_region (S (im, r->desc), &d.start_id, &d.end_id, color,
                             sizeof color, &format))
        {
          uint32_t rgb;
          logfmt_color_lookup (d.name, &rgb);
          snprintf (color, sizeof color, "#%06x", (unsigned) rgb);
          d.start_id = next_id;
          d.end_id = next_id + 1;
          next_id += 2;
        }
      d.color = color;
      /* Collectives hold the MPI_Collective_End's cargo on their END;
       * our export's regions name their own format. */
      uint32_t op, role;
      if (r->mpi && otf2in_collective (d.name, &op, &role))
        r->coll = 1;
      d.format = format ? format : r->coll ? coll_format : NULL;
      r->start_id = d.start_id;
      rc = logfmt_writer_add_state (im->w, &d);
    }

  /* Metrics our export made of solo events ("MPE solo event N"). */
  im->solo_id = calloc (im->nmem + 1, sizeof *im->solo_id);
  im->is_solo = calloc (im->nmem + 1, sizeof *im->is_solo);
  if (!im->solo_id || !im->is_solo)
    return set_err (im->err, LOGFMT_ENOMEM, im->path, "out of memory");
  for (size_t i = 0; i < im->nmem && rc == 0; i++)
    {
      int32_t id;
      if (sscanf (S (im, im->mem[i].desc), "MPE solo event %" SCNd32, &id)
          != 1)
        continue;
      im->is_solo[i] = 1;
      im->solo_id[i] = id;
      if (id == INT32_MIN)
        continue;
      logfmt_event_def_t ed = { 0 };
      ed.id = id;
      ed.name = S (im, im->mem[i].name);
      rc = logfmt_writer_add_event_def (im->w, &ed);
    }

  /* Other metric members become metric definitions (id = member
   * index): accumulated ones are counters, the others levels. */
  for (size_t i = 0; i < im->nmem && rc == 0; i++)
    {
      member_t *m = &im->mem[i];
      unsigned kind, col, flags;
      long long k0, k1;
      if (!im->is_solo[i]
          && sscanf (S (im, m->desc), "MPE metric %u flags %u", &col,
                     &flags) == 2)
        {
          /* A metric definition of our export, in the log's order. */
          logfmt_metric_def_t md = { 0 };
          md.id = col;
          md.flags = flags;
          md.name = S (im, m->name);
          md.unit = S (im, m->unit);
          m->trk_kind = UINT32_MAX;   /* no series: values not expected */
          rc = logfmt_writer_add_metric (im->w, &md);
          continue;
        }
      if (im->is_solo[i]
          || sscanf (S (im, m->desc), "MPE track %u key %lld %lld column %u "
                     "flags %u", &kind, &k0, &k1, &col, &flags) != 5
          || kind < 1 || kind > LOGFMT_TRACK_KIND_MAX)
        continue;
      m->trk_kind = kind;
      m->trk_col = col;
      m->trk_flags = flags;
      m->k0 = k0;
      m->k1 = k1;
    }
  for (size_t i = 0; i < im->nmem && rc == 0; i++)
    if (!im->is_solo[i] && !im->mem[i].trk_kind)
      {
        OTF2_MetricMode mode = im->mem[i].mode & OTF2_METRIC_VALUE_MASK;
        logfmt_metric_def_t md = { 0 };
        md.id = (uint32_t) i;
        md.flags = mode == OTF2_METRIC_VALUE_ACCUMULATED ? 0
                   : LOGFMT_METRIC_LEVEL;
        md.name = S (im, im->mem[i].name);
        md.unit = S (im, im->mem[i].unit);
        rc = logfmt_writer_add_metric (im->w, &md);
      }

  /* Communicators: members of a comm group are ranks in the MPI
   * location group, i.e. world ranks. */
  for (size_t i = 0; i < im->ncomm && rc == 0; i++)
    {
      comm_t *c = &im->comm[i];
      const group_t *g = group_find (im, c->group);
      logfmt_comm_def_t cd = { 0 };
      cd.id = c->id;
      cd.kind = 1;
      cd.name = S (im, c->name);
      if (g && g->type == OTF2_GROUP_TYPE_COMM_SELF)
        {
          c->self = 1;
          cd.size = 1;
        }
      else if (g && (g->type == OTF2_GROUP_TYPE_COMM_GROUP
                     || g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS))
        {
          c->size = g->n;
          c->ranks = malloc ((g->n + 1) * sizeof *c->ranks);
          if (!c->ranks)
            return set_err (im->err, LOGFMT_ENOMEM, im->path,
                            "out of memory");
          for (uint32_t k = 0; k < g->n; k++)
            {
              uint64_t m = g->members[k];
              if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
                {
                  int64_t l = idmap_find (im->loc_map, im->nloc, m);
                  c->ranks[k] = l >= 0 ? im->loc[l].rank : -1;
                }
              else
                c->ranks[k] = m < INT32_MAX ? (int32_t) m : -1;
            }
          cd.size = c->size;
          cd.ranks = c->ranks;
        }
      c->label = comm_label (c->id, c->ranks, c->size);
      rc = logfmt_writer_add_comm (im->w, &cd);
    }
  (void) creator;
  if (rc == 0)
    rc = put_callpaths (im);
  if (rc)
    return set_err (im->err, rc, im->path, "writing definitions: %s",
                    logfmt_strerror (rc));
  return 0;
}

/* ---- events ------------------------------------------------------------ */

static uint64_t
to_ns (const imp_t *im, OTF2_TimeStamp t)
{
  if (t <= im->offset)
    return 0;
  uint64_t d = t - im->offset;
  if (im->res == 1000000000u)
    return d;
  unsigned __int128 ns = (unsigned __int128) d * 1000000000u / im->res;
  return ns > UINT64_MAX ? UINT64_MAX : (uint64_t) ns;  /* saturate */
}

/* Hands the batch's first n records to the writer. */
static int
flush_batch (worker_t *wk, size_t n)
{
  imp_t *im = wk->im;
  int rc = 0;
  pthread_mutex_lock (&im->lock);
  if (im->failed)
    rc = im->failed;
  else if (n || wk->ntrk)
    {
      rc = n ? logfmt_writer_event (im->w, wk->stream, wk->batch, n) : 0;
      /* Runs of one kind (each kind's records are in time order). */
      for (size_t i = 0, j; rc == 0 && i < wk->ntrk; i = j)
        {
          for (j = i + 1; j < wk->ntrk && wk->trkk[j] == wk->trkk[i]; j++)
            ;
          rc = logfmt_writer_track_add (im->w, wk->stream, wk->trkk[i],
                                        wk->trk + i, j - i);
        }
      wk->ntrk = 0;
      if (rc)
        {
          im->failed = rc;
          set_err (im->err, rc, im->path, "writing events: %s",
                   logfmt_strerror (rc));
        }
      im->done += n;
      im->rep.events += n;
      if (rc == 0 && im->progress && im->done >= im->next_report)
        {
          im->next_report = im->done + 65536;
          double f = im->total ? (double) im->done / (double) im->total : 0.5;
          if (im->progress (im->user, f > 0.99 ? 0.99 : f))
            {
              rc = im->failed = LOGFMT_ESTATE;
              set_err (im->err, rc, im->path, "conversion cancelled");
            }
        }
    }
  pthread_mutex_unlock (&im->lock);
  return rc;
}

/* A new record at time t, appended to the batch. */
static logfmt_event_t *
add (worker_t *wk, OTF2_TimeStamp t)
{
  if (wk->failed)
    return NULL;
  uint64_t ns = to_ns (wk->im, t);
  if (wk->npend && ns != wk->pend_time)
    wk->npend = 0;
  if (grow ((void **) &wk->batch, &wk->cap, wk->n, sizeof *wk->batch))
    {
      wk->failed = LOGFMT_ENOMEM;
      return NULL;
    }
  logfmt_event_t *ev = &wk->batch[wk->n++];
  memset (ev, 0, offsetof (logfmt_event_t, cargo));
  ev->time = ns;
  ev->state = -1;
  return ev;
}

static const region_t *
region_of (const imp_t *im, OTF2_RegionRef ref)
{
  int64_t i = idmap_find (im->reg_map, im->nreg, ref);
  return i >= 0 ? &im->reg[i] : NULL;
}

static int
push_region (worker_t *wk, int32_t region)
{
  if (grow ((void **) &wk->stack, &wk->capstack, wk->depth,
            sizeof *wk->stack))
    return wk->failed = LOGFMT_ENOMEM;
  wk->stack[wk->depth].region = region;
  wk->stack[wk->depth].has_cargo = 0;
  wk->depth++;
  return 0;
}

static void
put_be (uint8_t *p, uint64_t v, int n)
{
  for (int i = n - 1; i >= 0; i--, v >>= 8)
    p[i] = (uint8_t) v;
}

/* An Enter's or Leave's cargo, from our export's attributes "MPE cargo
 * 0..3" (big-endian 64-bit words): 1 when all four are there. */
static int
get_cargo (const imp_t *im, OTF2_AttributeList *al, uint8_t *cargo)
{
  if (!al)
    return 0;
  for (int k = 0; k < 4; k++)
    {
      uint64_t v;
      if (im->cargo_attr[k] == UINT32_MAX
          || OTF2_AttributeList_GetUint64 (al, im->cargo_attr[k], &v)
             != OTF2_SUCCESS)
        return 0;
      put_be (cargo + 8 * k, v, 8);
    }
  return 1;
}

static OTF2_CallbackCode
ev_enter (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
          OTF2_AttributeList *al, OTF2_RegionRef ref)
{
  worker_t *wk = u;
  imp_t *im = wk->im;
  (void) loc; (void) pos;
  const region_t *r = region_of (im, ref);
  if (!r)
    {
      wk->skipped++;
      return OTF2_CALLBACK_SUCCESS;
    }
  int32_t ri = (int32_t) (r - im->reg);
  /* Our export's re-entry after a non-innermost end: undo its Leave. */
  uint8_t cont = 0;
  if (al && im->cont_attr != UINT32_MAX && wk->npend
      && to_ns (im, t) == wk->pend_time
      && OTF2_AttributeList_GetUint8 (al, im->cont_attr, &cont)
           == OTF2_SUCCESS && cont)
    for (size_t p = wk->npend; p-- > 0;)
      {
        size_t j = wk->pend[p];
        if (wk->batch[j].state == ri)
          {
            memmove (&wk->batch[j], &wk->batch[j + 1],
                     (wk->n - j - 1) * sizeof *wk->batch);
            wk->n--;
            for (size_t q = p; q + 1 < wk->npend; q++)
              wk->pend[q] = wk->pend[q + 1] - 1;
            wk->npend--;
            return push_region (wk, ri) ? OTF2_CALLBACK_INTERRUPT
                                        : OTF2_CALLBACK_SUCCESS;
          }
      }
  logfmt_event_t *ev = add (wk, t);
  if (!ev || push_region (wk, ri))
    return OTF2_CALLBACK_INTERRUPT;
  ev->type = LOGFMT_REC_EVENT;
  ev->id = ri;  /* replaced by the state's start id below */
  ev->state = ri;
  if (get_cargo (im, al, ev->cargo))
    ev->flags |= LOGFMT_EVF_CARGO;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_leave (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
          OTF2_AttributeList *al, OTF2_RegionRef ref)
{
  worker_t *wk = u;
  imp_t *im = wk->im;
  (void) loc; (void) pos; (void) al;
  const region_t *r = region_of (im, ref);
  if (!r)
    {
      wk->skipped++;
      return OTF2_CALLBACK_SUCCESS;
    }
  int32_t ri = (int32_t) (r - im->reg);
  logfmt_event_t *ev = add (wk, t);
  if (!ev)
    return OTF2_CALLBACK_INTERRUPT;
  ev->type = LOGFMT_REC_EVENT;
  ev->state = ri;
  ev->id = -1 - ri;  /* an END; the state's end id is set below */
  /* Innermost open instance of this region: its collective cargo. */
  for (size_t d = wk->depth; d-- > 0;)
    if (wk->stack[d].region == ri)
      {
        if (wk->stack[d].has_cargo)
          {
            memcpy (ev->cargo, wk->stack[d].cargo, sizeof ev->cargo);
            ev->flags |= LOGFMT_EVF_CARGO;
          }
        memmove (&wk->stack[d], &wk->stack[d + 1],
                 (wk->depth - d - 1) * sizeof *wk->stack);
        wk->depth--;
        break;
      }
  /* Our export's exact cargo wins over the collective's. */
  if (get_cargo (im, al, ev->cargo))
    ev->flags |= LOGFMT_EVF_CARGO;
  if (wk->npend == 0)
    wk->pend_time = ev->time;
  if (wk->npend < sizeof wk->pend / sizeof wk->pend[0])
    wk->pend[wk->npend++] = wk->n - 1;
  return OTF2_CALLBACK_SUCCESS;
}

/* Partner's rank in comm -> world rank (-1 if unknown). */
static int32_t
world_rank (const worker_t *wk, OTF2_CommRef comm, uint32_t peer)
{
  const imp_t *im = wk->im;
  int64_t i = idmap_find (im->comm_map, im->ncomm, comm);
  if (i < 0)
    return (int32_t) peer;  /* no definition: take it as a world rank */
  const comm_t *c = &im->comm[i];
  if (c->self)
    return wk->rank;
  if (c->ranks && peer < c->size)
    return c->ranks[peer];
  return -1;
}

static OTF2_CallbackCode
message (worker_t *wk, OTF2_TimeStamp t, int send, uint32_t peer,
         OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
  int32_t partner = world_rank (wk, comm, peer);
  if (partner < 0)
    {
      wk->skipped++;
      return OTF2_CALLBACK_SUCCESS;
    }
  logfmt_event_t *ev = add (wk, t);
  if (!ev)
    return OTF2_CALLBACK_INTERRUPT;
  ev->type = send ? LOGFMT_REC_SEND : LOGFMT_REC_RECV;
  ev->partner = partner;
  ev->tag = (int32_t) tag;
  ev->comm = comm;
  ev->size = len;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_send (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
         OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef comm,
         uint32_t tag, uint64_t len)
{
  (void) loc; (void) pos; (void) al;
  return message (u, t, 1, peer, comm, tag, len);
}

static OTF2_CallbackCode
ev_isend (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
          OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef comm,
          uint32_t tag, uint64_t len, uint64_t req)
{
  (void) loc; (void) pos; (void) al; (void) req;
  return message (u, t, 1, peer, comm, tag, len);
}

static OTF2_CallbackCode
ev_recv (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
         OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef comm,
         uint32_t tag, uint64_t len)
{
  (void) loc; (void) pos; (void) al;
  return message (u, t, 0, peer, comm, tag, len);
}

static OTF2_CallbackCode
ev_irecv (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
          OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef comm,
          uint32_t tag, uint64_t len, uint64_t req)
{
  (void) loc; (void) pos; (void) al; (void) req;
  return message (u, t, 0, peer, comm, tag, len);
}

static OTF2_CallbackCode
ev_coll_end (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
             OTF2_AttributeList *al, OTF2_CollectiveOp op, OTF2_CommRef comm,
             uint32_t root, uint64_t sent, uint64_t received)
{
  worker_t *wk = u;
  (void) loc; (void) t; (void) pos; (void) al; (void) op;
  /* The innermost open MPI region (MPI_Allreduce, ...) gets the cargo
   * coll_format describes, on its END. */
  int64_t ci = idmap_find (wk->im->comm_map, wk->im->ncomm, comm);
  const comm_t *cm = ci >= 0 ? &wk->im->comm[ci] : NULL;
  for (size_t d = wk->depth; d-- > 0;)
    if (wk->im->reg[wk->stack[d].region].mpi)
      {
        uint8_t *c = wk->stack[d].cargo;
        put_be (c, cm ? cm->label : 0xffffffffu, 4);
        put_be (c + 4, cm ? (cm->self ? 1 : cm->size) : 0, 4);
        put_be (c + 8, root == OTF2_UNDEFINED_UINT32 ? UINT32_MAX : root, 4);
        put_be (c + 12, sent, 8);
        put_be (c + 20, received, 8);
        memset (c + 28, 0, 4);
        wk->stack[d].has_cargo = 1;
        return OTF2_CALLBACK_SUCCESS;
      }
  wk->coll_outside++;
  return OTF2_CALLBACK_SUCCESS;
}

/* An OTF2 metric value as a track column: doubles rounded, unsigned
 * values above INT64_MAX clamped. */
static int64_t
metric_value (OTF2_Type type, OTF2_MetricValue v)
{
  switch (type)
    {
    case OTF2_TYPE_DOUBLE:
      if (!(v.floating_point > -9.2e18))
        return v.floating_point > 0 ? INT64_MAX : INT64_MIN;
      if (v.floating_point > 9.2e18)
        return INT64_MAX;
      return (int64_t) (v.floating_point < 0 ? v.floating_point - 0.5
                                             : v.floating_point + 0.5);
    case OTF2_TYPE_UINT64:
      return v.unsigned_int > (uint64_t) INT64_MAX ? INT64_MAX
             : (int64_t) v.unsigned_int;
    default:
      return v.signed_int;
    }
}

static OTF2_CallbackCode
ev_metric (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
           OTF2_AttributeList *al, OTF2_MetricRef ref, uint8_t n,
           const OTF2_Type *types, const OTF2_MetricValue *vals)
{
  worker_t *wk = u;
  const imp_t *im = wk->im;
  (void) loc; (void) pos;
  int64_t m = idmap_find (im->met_map, im->nmet, ref);
  if (m >= 0 && im->met[m].instance)
    m = idmap_find (im->met_map, im->nmet, im->met[m].member);
  int64_t mm = m >= 0 && !im->met[m].instance
               ? idmap_find (im->mem_map, im->nmem, im->met[m].member) : -1;
  if (mm >= 0 && im->mem[mm].trk_kind == UINT32_MAX)
    {
      wk->metric_values += n;
      return OTF2_CALLBACK_SUCCESS;
    }
  if (mm >= 0 && im->mem[mm].trk_kind)
    {
      /* A track record of our export: its members are the class's
       * value columns, in order, after the key columns. */
      const member_t *f = &im->mem[mm];
      if (grow ((void **) &wk->trk, &wk->captrk, wk->ntrk, sizeof *wk->trk)
          || grow ((void **) &wk->trkk, &wk->captrkk, wk->ntrk,
                   sizeof *wk->trkk))
        {
          wk->failed = LOGFMT_ENOMEM;
          return OTF2_CALLBACK_INTERRUPT;
        }
      logfmt_track_rec_t *tr = &wk->trk[wk->ntrk];
      memset (tr, 0, sizeof *tr);
      tr->time = to_ns (im, t);
      if (f->trk_col > 0)
        tr->col[0] = f->k0;
      if (f->trk_col > 1)
        tr->col[1] = f->k1;
      for (uint8_t i = 0; i < n; i++)
        {
          const member_t *x = (size_t) mm + i < im->nmem ? &im->mem[mm + i]
                              : NULL;
          if (!x || x->trk_kind != f->trk_kind || x->k0 != f->k0
              || x->k1 != f->k1 || x->trk_col >= LOGFMT_TRACK_MAX_COLS)
            {
              wk->metric_values += n;
              return OTF2_CALLBACK_SUCCESS;
            }
          tr->col[x->trk_col] = metric_value (types[i], vals[i]);
        }
      wk->trkk[wk->ntrk++] = f->trk_kind;
      return OTF2_CALLBACK_SUCCESS;
    }
  if (mm >= 0 && !im->is_solo[mm] && n == 1)
    {
      /* A metric sample: the value from this time on. */
      if (grow ((void **) &wk->trk, &wk->captrk, wk->ntrk, sizeof *wk->trk)
          || grow ((void **) &wk->trkk, &wk->captrkk, wk->ntrk,
                   sizeof *wk->trkk))
        {
          wk->failed = LOGFMT_ENOMEM;
          return OTF2_CALLBACK_INTERRUPT;
        }
      wk->trkk[wk->ntrk] = LOGFMT_TRACK_METRIC;
      logfmt_track_rec_t *tr = &wk->trk[wk->ntrk++];
      memset (tr, 0, sizeof *tr);
      tr->time = to_ns (im, t);
      tr->col[LOGFMT_METRIC_COL_ID] = (int64_t) mm;
      tr->col[LOGFMT_METRIC_COL_OBJECT] = -1;
      tr->col[LOGFMT_METRIC_COL_VALUE] = metric_value (types[0], vals[0]);
      return OTF2_CALLBACK_SUCCESS;
    }
  if (mm < 0 || !im->is_solo[mm] || n < 1)
    {
      wk->metric_values += n;
      return OTF2_CALLBACK_SUCCESS;
    }
  logfmt_event_t *ev = add (wk, t);
  if (!ev)
    return OTF2_CALLBACK_INTERRUPT;
  if (im->solo_id[mm] == INT32_MIN)
    {
      ev->type = LOGFMT_REC_LOSS;
      ev->size = types[0] == OTF2_TYPE_DOUBLE ? (uint64_t) vals[0].floating_point
                 : vals[0].unsigned_int;
    }
  else
    {
      ev->type = LOGFMT_REC_EVENT;
      ev->id = im->solo_id[mm];
      if (get_cargo (im, al, ev->cargo))
        ev->flags |= LOGFMT_EVF_CARGO;
    }
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_unknown (OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
            OTF2_AttributeList *al)
{
  (void) loc; (void) t; (void) pos; (void) al;
  ((worker_t *) u)->skipped++;
  return OTF2_CALLBACK_SUCCESS;
}

/* BEGIN/END ids of the batch's first n records from the states (the
 * callbacks stored the region index, negated for an END). */
static void
fix_ids (worker_t *wk, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      logfmt_event_t *ev = &wk->batch[i];
      if (ev->type == LOGFMT_REC_EVENT && ev->state >= 0)
        {
          int end = ev->id < 0;
          ev->id = wk->im->reg[ev->state].start_id + end;
          ev->state = -1;
        }
    }
}

/* Flushes what can no longer change: everything before the first
 * pending Leave (a later "continued" Enter may still undo those). */
static int
flush_final (worker_t *wk, int all)
{
  size_t cut = all || wk->npend == 0 ? wk->n : wk->pend[0];
  fix_ids (wk, cut);
  int rc = flush_batch (wk, cut);
  if (rc)
    return rc;
  memmove (wk->batch, wk->batch + cut, (wk->n - cut) * sizeof *wk->batch);
  wk->n -= cut;
  for (size_t p = 0; p < wk->npend; p++)
    wk->pend[p] -= cut;
  if (all)
    wk->npend = 0;
  return 0;
}

static OTF2_EvtReaderCallbacks *
event_callbacks (void)
{
  OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New ();
  if (!cb)
    return NULL;
  OTF2_EvtReaderCallbacks_SetEnterCallback (cb, ev_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback (cb, ev_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback (cb, ev_send);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback (cb, ev_isend);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback (cb, ev_recv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback (cb, ev_irecv);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback (cb, ev_coll_end);
  OTF2_EvtReaderCallbacks_SetMetricCallback (cb, ev_metric);
  OTF2_EvtReaderCallbacks_SetUnknownCallback (cb, ev_unknown);
  return cb;
}

/* Reads one location into the writer. */
static int
read_location (worker_t *wk, loc_t *l, OTF2_EvtReaderCallbacks *cbs)
{
  imp_t *im = wk->im;
  OTF2_DefReader *dr = OTF2_Reader_GetDefReader (im->rd, l->id);
  if (dr)
    {
      uint64_t n = 0;
      OTF2_ErrorCode e = OTF2_Reader_ReadAllLocalDefinitions (im->rd, dr, &n);
      OTF2_Reader_CloseDefReader (im->rd, dr);
      if (e != OTF2_SUCCESS)
        return otf2_fail (im, e, "reading local definitions");
    }
  OTF2_EvtReader *er = OTF2_Reader_GetEvtReader (im->rd, l->id);
  if (!er)
    return otf2_fail (im, OTF2_ERROR_INVALID, "opening a location's events");
  wk->stream = l->stream;
  wk->rank = l->rank;
  wk->n = wk->npend = wk->depth = wk->ntrk = 0;
  OTF2_ErrorCode e = OTF2_Reader_RegisterEvtCallbacks (im->rd, er, cbs, wk);
  /* Fewer records than asked for means the end: asking again would make
   * OTF2 look for a chunk that is not there. */
  uint64_t got = 4096;
  while (e == OTF2_SUCCESS && got == 4096 && !wk->failed)
    {
      e = OTF2_Reader_ReadLocalEvents (im->rd, er, 4096, &got);
      if (e == OTF2_SUCCESS && !wk->failed && wk->n >= 4096)
        wk->failed = flush_final (wk, 0);
    }
  OTF2_Reader_CloseEvtReader (im->rd, er);
  if (e != OTF2_SUCCESS && !wk->failed)
    return otf2_fail (im, e, "reading events");
  if (!wk->failed)
    wk->failed = flush_final (wk, 1);
  if (!wk->failed)
    {
      pthread_mutex_lock (&im->lock);
      int rc = logfmt_writer_track_flush (im->w, wk->stream);
      pthread_mutex_unlock (&im->lock);
      if (rc)
        wk->failed = rc;
    }
  return wk->failed;
}

static void *
worker_main (void *arg)
{
  imp_t *im = arg;
  worker_t wk = { 0 };
  wk.im = im;
  OTF2_EvtReaderCallbacks *cbs = event_callbacks ();
  int rc = cbs ? 0 : LOGFMT_ENOMEM;
  while (rc == 0)
    {
      pthread_mutex_lock (&im->lock);
      loc_t *l = NULL;
      while (!im->failed && im->next_loc < im->nloc && !l)
        {
          loc_t *c = &im->loc[im->next_loc++];
          if (c->stream != UINT32_MAX)
            l = c;
        }
      rc = im->failed;
      pthread_mutex_unlock (&im->lock);
      if (!l || rc)
        break;
      rc = read_location (&wk, l, cbs);
    }
  pthread_mutex_lock (&im->lock);
  if (rc && !im->failed)
    {
      im->failed = rc;
      if (im->err && im->err->code == 0)
        set_err (im->err, rc, im->path, "%s", logfmt_strerror (rc));
    }
  im->rep.skipped += wk.skipped;
  im->rep.collectives_outside += wk.coll_outside;
  im->rep.metric_values += wk.metric_values;
  pthread_mutex_unlock (&im->lock);
  if (cbs)
    OTF2_EvtReaderCallbacks_Delete (cbs);
  free (wk.batch);
  free (wk.stack);
  free (wk.trk);
  free (wk.trkk);
  return NULL;
}

/* OTF2IN_THREADS, else the CPUs, at most 4. */
static unsigned
default_threads (void)
{
  const char *e = getenv ("OTF2IN_THREADS");
  if (e && atoi (e) > 0)
    return (unsigned) atoi (e);
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 4 ? 4 : (unsigned) n;
}

static int
read_events (imp_t *im, unsigned threads)
{
  OTF2_ErrorCode e = OTF2_SUCCESS;
  for (size_t l = 0; l < im->nloc && e == OTF2_SUCCESS; l++)
    if (im->loc[l].stream != UINT32_MAX)
      e = OTF2_Reader_SelectLocation (im->rd, im->loc[l].id);
  if (e == OTF2_SUCCESS)
    e = OTF2_Reader_OpenDefFiles (im->rd);
  if (e == OTF2_SUCCESS)
    e = OTF2_Reader_OpenEvtFiles (im->rd);
  if (e != OTF2_SUCCESS)
    return otf2_fail (im, e, "opening the event files");
  if (threads == 0)
    threads = default_threads ();
  size_t nread = 0;
  for (size_t l = 0; l < im->nloc; l++)
    nread += im->loc[l].stream != UINT32_MAX;
  if (threads > nread)
    threads = nread ? (unsigned) nread : 1;
  pthread_t tid[16];
  if (threads > 16)
    threads = 16;
  unsigned started = 0;
  for (unsigned i = 1; i < threads; i++)
    if (pthread_create (&tid[started], NULL, worker_main, im) == 0)
      started++;
  worker_main (im);
  for (unsigned i = 0; i < started; i++)
    pthread_join (tid[i], NULL);
  im->rep.threads = started + 1;
  OTF2_Reader_CloseEvtFiles (im->rd);
  OTF2_Reader_CloseDefFiles (im->rd);
  return im->failed;
}

static void
imp_free (imp_t *im)
{
  for (size_t i = 0; i < im->nstr; i++)
    free (im->str[i]);
  free (im->str);
  free (im->nodes);
  free (im->node_ids);
  free (im->lg);
  free (im->loc);
  free (im->reg);
  for (size_t i = 0; i < im->ngrp; i++)
    free (im->grp[i].members);
  free (im->grp);
  for (size_t i = 0; i < im->ncomm; i++)
    free (im->comm[i].ranks);
  free (im->comm);
  free (im->mem);
  free (im->prop);
  free (im->met);
  free (im->reg_map);
  free (im->comm_map);
  free (im->mem_map);
  free (im->met_map);
  free (im->loc_map);
  free (im->node_map);
  free (im->solo_id);
  free (im->is_solo);
}

static int
read_global_defs (imp_t *im)
{
  OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader (im->rd);
  if (!gr)
    return otf2_fail (im, OTF2_ERROR_INVALID, "reading the definitions");
  OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New ();
  if (!cb)
    return set_err (im->err, LOGFMT_ENOMEM, im->path, "out of memory");
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback (cb, def_clock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback (cb, def_string);
  OTF2_GlobalDefReaderCallbacks_SetAttributeCallback (cb, def_attr);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback (cb, def_node);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback (cb, def_lgroup);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback (cb, def_loc);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback (cb, def_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback (cb, def_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback (cb, def_comm);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupPropertyCallback (cb,
                                                                  def_lgprop);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodePropertyCallback (
    cb, def_nodeprop);
  OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback (cb, def_member);
  OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback (cb, def_mclass);
  OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback (cb, def_minst);
  OTF2_ErrorCode e = OTF2_Reader_RegisterGlobalDefCallbacks (im->rd, gr, cb,
                                                             im);
  uint64_t n = 0;
  if (e == OTF2_SUCCESS)
    e = OTF2_Reader_ReadAllGlobalDefinitions (im->rd, gr, &n);
  OTF2_GlobalDefReaderCallbacks_Delete (cb);
  OTF2_Reader_CloseGlobalDefReader (im->rd, gr);
  if (e != OTF2_SUCCESS && !im->bad_defs)
    return otf2_fail (im, e, "reading the definitions");
  return 0;
}

/* The OTF2 library opens the archive's members with blocking reads: a
 * FIFO (or a device) among them would hang the reader.  Only regular
 * files (and directories) are let through. */
static int
check_members (const char *anchor, logfmt_error_t *err)
{
  size_t n = strlen (anchor);
  if (n < 5 || strcmp (anchor + n - 5, ".otf2") != 0)
    return 0;
  char p[4096];
  if (n >= sizeof p)
    return 0;
  memcpy (p, anchor, n - 5);
  strcpy (p + n - 5, ".def");
  struct stat st;
  if (stat (p, &st) == 0 && !S_ISREG (st.st_mode))
    return set_err (err, LOGFMT_EINVAL, anchor, "archive member %s is not a "
                    "regular file", p);
  p[n - 5] = '\0';
  DIR *d = opendir (p);
  if (!d)
    return 0;  /* missing: the OTF2 library reports it */
  struct dirent *de;
  int rc = 0;
  while (rc == 0 && (de = readdir (d)))
    {
      char q[4096 + 256];
      if (de->d_name[0] == '.')
        continue;
      snprintf (q, sizeof q, "%s/%s", p, de->d_name);
      if (stat (q, &st) == 0 && !S_ISREG (st.st_mode) && !S_ISDIR (st.st_mode))
        rc = set_err (err, LOGFMT_EINVAL, anchor, "archive member %s is not "
                      "a regular file", q);
    }
  closedir (d);
  return rc;
}

int
otf2in_convert (const char *in_path, const char *out_path,
                const char *creator, unsigned threads,
                logfmt_progress_cb progress, void *user,
                otf2in_report_t *report, logfmt_error_t *err)
{
  if (!in_path || !out_path)
    return set_err (err, LOGFMT_EINVAL, in_path, "NULL argument");
  if (err)
    memset (err, 0, sizeof *err);
  struct stat st;
  if (stat (in_path, &st) != 0)
    return set_err (err, LOGFMT_EIO, in_path, "cannot open: %s",
                    strerror (errno));
  if (!otf2in_is_archive (in_path))
    return set_err (err, LOGFMT_EBADMAGIC, in_path,
                    "not an OTF2 archive anchor file");
  int mrc = check_members (in_path, err);
  if (mrc)
    return mrc;
  imp_t im_ = { 0 }, *im = &im_;
  im->path = in_path;
  im->err = err;
  im->cont_attr = UINT32_MAX;
  for (int k = 0; k < 4; k++)
    im->cargo_attr[k] = UINT32_MAX;
  im->progress = progress;
  im->user = user;
  pthread_mutex_init (&im->lock, NULL);
  OTF2_Error_RegisterCallback (otf2_error_cb, NULL);
  otf2_msg[0] = '\0';

  int rc = 0;
  im->rd = OTF2_Reader_Open (in_path);
  if (!im->rd)
    rc = set_err (err, LOGFMT_ECORRUPT, in_path,
                  "OTF2 cannot open the archive: %s",
                  otf2_msg[0] ? otf2_msg : "unreadable anchor file");
  OTF2_ErrorCode e = OTF2_SUCCESS;
  if (rc == 0
      && ((e = OTF2_Reader_SetSerialCollectiveCallbacks (im->rd))
          || (e = OTF2_Pthread_Reader_SetLockingCallbacks (im->rd, NULL))))
    rc = otf2_fail (im, e, "setting up the reader");
  if (rc == 0)
    rc = read_global_defs (im);

  char ctext[512];
  char *ocreator = NULL;
  if (rc == 0)
    {
      OTF2_Reader_GetCreator (im->rd, &ocreator);
      snprintf (ctext, sizeof ctext, "OTF2 archive (%s)%s%s",
                ocreator && *ocreator ? ocreator : "unknown creator",
                creator ? ", " : "", creator ? creator : "");
      logfmt_writer_opts_t wo = { 0 };
      wo.size = sizeof wo;
      wo.match_messages = 1;
      wo.creator = ctext;
      if (im->realtime != OTF2_UNDEFINED_TIMESTAMP && im->realtime
          && im->realtime < (uint64_t) INT64_MAX)
        wo.origin_unix_ns = (int64_t) im->realtime;
      rc = logfmt_writer_open (out_path, &wo, &im->w, err);
    }
  free (ocreator);
  if (rc == 0)
    rc = map_defs (im, creator);
  if (rc == 0)
    rc = read_events (im, threads);
  if (rc == 0)
    {
      rc = logfmt_writer_finish (im->w, err);
      im->w = NULL;
    }
  if (im->w)
    logfmt_writer_abort (im->w);
  if (rc)
    unlink (out_path);
  else if (progress)
    progress (user, 1.0);
  if (im->rd)
    OTF2_Reader_Close (im->rd);
  for (size_t l = 0; l < im->nloc; l++)
    im->rep.locations += im->loc[l].stream != UINT32_MAX;
  if (report)
    *report = im->rep;
  imp_free (im);
  pthread_mutex_destroy (&im->lock);
  return rc;
}

#endif /* HAVE_OTF2 */

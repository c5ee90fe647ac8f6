/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool metrics: the metric cells recorded in a log (mpe_metrics.h,
 * FORMAT.md section 14), aggregated over the hierarchies thread ->
 * process -> node -> job and channel -> process -> node -> job. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "clogtool.h"
#include "clogtool-internal.h"

static void
metrics_help (void)
{
  fputs (
    "Usage: clogtool metrics [--json|--csv] [--level LEVEL]\n"
    "                        [--from T0] [--to T1] FILE\n"
    "\n"
    "Prints every metric the log records (user cells of mpe_metrics.h\n"
    "and the standard cells the MPI wrappers keep), aggregated at one\n"
    "level of the resource hierarchies: a thread (or, for a channel\n"
    "metric, a channel: this rank -> a partner rank), a process, a node\n"
    "(host) or the job.  Each object's value is the sum of its parts;\n"
    "per metric the sum, min and max over the level's objects (with the\n"
    "objects holding the min and the max) and their mean.\n"
    "\n"
    "A counter's or timer's value is its increase over the window (its\n"
    "last sample at T1 minus its last sample before T0; the final value\n"
    "without a window); a level's (a resource in use) is its value at\n"
    "T1.\n"
    "\n"
    "Options:\n"
    "  -j, --json        one JSON object\n"
    "      --csv         metric,unit,level,object,value rows\n"
    "  -l, --level L     thread, process (default), node or job\n"
    "  -f, --from T0     the window's start\n"
    "  -T, --to T1       the window's end\n"
    "  -h, --help        show this help\n"
    "\n"
    "Times take a unit (1.5s, 20ms, 300us, 100ns; plain = seconds).\n"
    "\n"
    "JSON: {\"level\", \"from\", \"to\" (s, null without a window),\n"
    "\"ranks\", \"metrics\": [{\"id\", \"name\", \"unit\", \"kind\" (counter,\n"
    "timer or level), \"channel\", \"standard\", \"per_rank\" (value of\n"
    "each world rank), \"sum\", \"min\", \"min_at\", \"max\", \"max_at\",\n"
    "\"mean\", \"objects\": [{\"name\", \"value\"}]}]}.\n"
    "\n"
    "Exit status: 0 success, 1 error, 2 bad usage.\n", stdout);
}

enum { LV_THREAD, LV_PROCESS, LV_NODE, LV_JOB };
static const char *const level_names[] = { "thread", "process", "node",
                                           "job" };

/* One series of one stream: its last values before T0 and up to T1. */
typedef struct
{
  uint32_t stream, id;
  int64_t  object;
  int64_t  v0, v1;
} series_t;

typedef struct
{
  series_t *v;
  size_t n, cap;
  uint32_t *slots;   /* open addressing: index + 1 */
  size_t nslots;
} table_t;

static uint64_t
hash3 (uint32_t s, uint32_t id, int64_t obj)
{
  uint64_t h = ((uint64_t) s << 32 | id) * 0x9E3779B97F4A7C15ull
               ^ (uint64_t) obj * 0xC2B2AE3D27D4EB4Full;
  return h ^ (h >> 31);
}

static series_t *
lookup (table_t *t, uint32_t s, uint32_t id, int64_t obj)
{
  if ((t->n + 1) * 2 > t->nslots)
    {
      size_t ns = t->nslots ? t->nslots * 2 : 1024;
      uint32_t *sl = calloc (ns, sizeof *sl);
      if (!sl)
        return NULL;
      for (size_t i = 0; i < t->n; i++)
        {
          size_t j = hash3 (t->v[i].stream, t->v[i].id, t->v[i].object)
                     & (ns - 1);
          while (sl[j])
            j = (j + 1) & (ns - 1);
          sl[j] = (uint32_t) i + 1;
        }
      free (t->slots);
      t->slots = sl;
      t->nslots = ns;
    }
  size_t j = hash3 (s, id, obj) & (t->nslots - 1);
  while (t->slots[j])
    {
      series_t *x = &t->v[t->slots[j] - 1];
      if (x->stream == s && x->id == id && x->object == obj)
        return x;
      j = (j + 1) & (t->nslots - 1);
    }
  if (t->n == t->cap)
    {
      size_t c = t->cap ? t->cap * 2 : 1024;
      series_t *v = realloc (t->v, c * sizeof *v);
      if (!v)
        return NULL;
      t->v = v;
      t->cap = c;
    }
  series_t *x = &t->v[t->n];
  *x = (series_t) { s, id, obj, 0, 0 };
  t->slots[j] = (uint32_t) ++t->n;
  return x;
}

/* Reads every stream's metric track up to T1. */
static int
load (const logfmt_reader_t *r, uint64_t t0, uint64_t t1, table_t *t)
{
  uint32_t ns = logfmt_reader_info (r)->nstreams;
  for (uint32_t s = 0; s < ns; s++)
    {
      logfmt_track_iter_t *it;
      if (logfmt_track_iter_new (r, s, LOGFMT_TRACK_METRIC, 0,
                                 t1 == UINT64_MAX ? UINT64_MAX : t1 + 1,
                                 &it))
        return LOGFMT_ENOMEM;
      logfmt_track_rec_t x;
      int rc;
      while ((rc = logfmt_track_iter_next (it, &x)) == 1)
        {
          series_t *e = lookup (t, s, (uint32_t) x.col[LOGFMT_METRIC_COL_ID],
                                x.col[LOGFMT_METRIC_COL_OBJECT]);
          if (!e)
            {
              rc = LOGFMT_ENOMEM;
              break;
            }
          if (x.time < t0)
            e->v0 = x.col[LOGFMT_METRIC_COL_VALUE];
          e->v1 = x.col[LOGFMT_METRIC_COL_VALUE];
        }
      if (rc < 0)
        {
          clogtool__lib_error ("cannot read the metric samples", rc,
                               logfmt_track_iter_error (it));
          logfmt_track_iter_free (it);
          return rc;
        }
      logfmt_track_iter_free (it);
    }
  return 0;
}

/* The objects of one level for one metric. */
typedef struct
{
  char   **names;
  int64_t *vals;
  size_t   n;
} objects_t;

static void
objects_free (objects_t *o)
{
  for (size_t i = 0; i < o->n; i++)
    free (o->names[i]);
  free (o->names);
  free (o->vals);
}

static int
obj_add (objects_t *o, size_t *cap, const char *name, int64_t v, bool merge)
{
  if (merge)
    for (size_t i = 0; i < o->n; i++)
      if (!strcmp (o->names[i], name))
        {
          o->vals[i] += v;
          return 0;
        }
  if (o->n == *cap)
    {
      size_t c = *cap ? *cap * 2 : 64;
      char **nn = realloc (o->names, c * sizeof *nn);
      if (nn)
        o->names = nn;
      int64_t *nv = realloc (o->vals, c * sizeof *nv);
      if (nv)
        o->vals = nv;
      if (!nn || !nv)
        return -1;
      *cap = c;
    }
  o->names[o->n] = strdup (name);
  o->vals[o->n] = v;
  if (!o->names[o->n])
    return -1;
  o->n++;
  return 0;
}

static const char *
host_of (const logfmt_reader_t *r, int32_t rank, uint32_t ns)
{
  for (uint32_t s = 0; s < ns; s++)
    {
      const logfmt_stream_def_t *d = logfmt_reader_stream (r, s);
      if (d->rank == rank)
        return d->host ? d->host : "?";
    }
  return "?";
}

static int
cmp_series (const void *a, const void *b)
{
  const series_t *x = a, *y = b;
  if (x->id != y->id)
    return x->id < y->id ? -1 : 1;
  if (x->stream != y->stream)
    return x->stream < y->stream ? -1 : 1;
  return (x->object > y->object) - (x->object < y->object);
}

/* Builds the objects of `level` and the per-rank values of metric d
 * from its series [a, z) (sorted by stream then object). */
static int
aggregate (const logfmt_reader_t *r, const logfmt_metric_def_t *d,
           const series_t *a, const series_t *z, int level, int64_t *per_rank,
           uint32_t nranks, objects_t *o)
{
  uint32_t ns = logfmt_reader_info (r)->nstreams;
  bool chan = d->flags & LOGFMT_METRIC_CHANNEL;
  bool lvl = d->flags & LOGFMT_METRIC_LEVEL;
  size_t cap = 0;
  char name[160];
  memset (o, 0, sizeof *o);
  memset (per_rank, 0, nranks * sizeof *per_rank);
  /* Every object of the level exists, with 0 when it has no samples
   * (channels: only those with samples). */
  if (!chan || level != LV_THREAD)
    for (uint32_t s = 0; s < ns; s++)
      {
        const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
        if (level == LV_THREAD)
          snprintf (name, sizeof name, "rank %" PRId32 " thread %" PRId32,
                    sd->rank, sd->thread);
        else if (level == LV_PROCESS)
          snprintf (name, sizeof name, "rank %" PRId32, sd->rank);
        else if (level == LV_NODE)
          snprintf (name, sizeof name, "%s", sd->host ? sd->host : "?");
        else
          snprintf (name, sizeof name, "job");
        if (obj_add (o, &cap, name, 0, level != LV_THREAD))
          return -1;
      }
  for (const series_t *x = a; x < z; x++)
    {
      int64_t v = lvl ? x->v1 : x->v1 - x->v0;
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, x->stream);
      if (sd->rank >= 0 && (uint32_t) sd->rank < nranks)
        per_rank[sd->rank] += v;
      if (level == LV_THREAD && chan)
        snprintf (name, sizeof name, "rank %" PRId32 " -> rank %" PRId64,
                  sd->rank, x->object);
      else if (level == LV_THREAD)
        snprintf (name, sizeof name, "rank %" PRId32 " thread %" PRId32,
                  sd->rank, sd->thread);
      else if (level == LV_PROCESS)
        snprintf (name, sizeof name, "rank %" PRId32, sd->rank);
      else if (level == LV_NODE)
        snprintf (name, sizeof name, "%s", host_of (r, sd->rank, ns));
      else
        snprintf (name, sizeof name, "job");
      if (obj_add (o, &cap, name, v, true))
        return -1;
    }
  return 0;
}

static const char *
kind_of (const logfmt_metric_def_t *d)
{
  return d->flags & LOGFMT_METRIC_LEVEL ? "level"
         : d->flags & LOGFMT_METRIC_TIMER ? "timer" : "counter";
}

/* A named constant of the log, or -1. */
static int64_t
const_of (const logfmt_reader_t *r, const char *name)
{
  for (size_t i = 0; i < logfmt_reader_n_consts (r); i++)
    {
      const logfmt_const_def_t *c = logfmt_reader_const (r, i);
      if (c->name && !strcmp (c->name, name))
        return c->value;
    }
  return -1;
}

/* The live monitor's accounting (monitor.* constants) and the series it
 * sampled, when it ran: a "monitor" member, or two lines of text. */
static void
print_monitor (const logfmt_reader_t *r, int json)
{
  int64_t hz = const_of (r, "monitor.hz_milli");
  if (hz < 0)
    return;
  int64_t sent = const_of (r, "monitor.requests_sent");
  int64_t ret = const_of (r, "monitor.requests_returned");
  int64_t late = const_of (r, "monitor.requests_late");
  int64_t skip = const_of (r, "monitor.requests_skipped");
  double mn = const_of (r, "monitor.rtt_min_ns") * 1e-9;
  double md = const_of (r, "monitor.rtt_median_ns") * 1e-9;
  double mx = const_of (r, "monitor.rtt_max_ns") * 1e-9;
  if (json)
    {
      printf (",\n\"monitor\": {\"hz\": %.17g, \"requests_sent\": %" PRId64
              ", \"requests_returned\": %" PRId64 ", \"requests_late\": %"
              PRId64 ", \"requests_skipped\": %" PRId64 ",\n  \"rtt_s\": "
              "{\"min\": %.9f, \"median\": %.9f, \"max\": %.9f},\n  "
              "\"series\": [", (double) hz / 1000.0, sent, ret, late, skip,
              mn, md, mx);
      int k = 0;
      for (size_t i = 0; i < logfmt_reader_n_metrics (r); i++)
        {
          const logfmt_metric_def_t *d = logfmt_reader_metric (r, i);
          if (!(d->flags & LOGFMT_METRIC_MONITOR))
            continue;
          fputs (k++ ? ", " : "", stdout);
          clogtool__json_string (stdout, d->name);
        }
      fputs ("]}", stdout);
      return;
    }
  printf ("monitor: %.3g Hz, %" PRId64 " requests sent, %" PRId64
          " returned, %" PRId64 " late, %" PRId64 " skipped; round trip "
          "min %.6f median %.6f max %.6f s\n", (double) hz / 1000.0, sent,
          ret, late, skip, mn, md, mx);
}

int
clogtool_metrics_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "json", no_argument, NULL, 'j' },
    { "csv", no_argument, NULL, 'C' },
    { "level", required_argument, NULL, 'l' },
    { "from", required_argument, NULL, 'f' },
    { "to", required_argument, NULL, 'T' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int json = 0, csv = 0, level = LV_PROCESS, c;
  uint64_t t0 = 0, t1 = UINT64_MAX;
  bool window = false;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":jl:f:T:h", longopts, NULL)) != -1)
    switch (c)
      {
      case 'j':
        json = 1;
        break;
      case 'C':
        csv = 1;
        break;
      case 'l':
        for (level = 0; level < 4; level++)
          if (!strcmp (optarg, level_names[level]))
            break;
        if (level == 4)
          return clogtool__usage_error ("metrics", "bad level '%s' (thread, "
                                        "process, node or job)", optarg);
        break;
      case 'f':
      case 'T':
        if (clogtool__parse_time (optarg, c == 'f' ? &t0 : &t1) < 0)
          return clogtool__usage_error ("metrics", "bad time '%s'", optarg);
        window = true;
        break;
      case 'h':
        metrics_help ();
        return clogtool__exit_after_output ();
      default:
        return clogtool__bad_option ("metrics", c, argv);
      }
  if (json && csv)
    return clogtool__usage_error ("metrics", "--json and --csv exclude each "
                                  "other");
  if (t1 < t0)
    return clogtool__usage_error ("metrics", "--to before --from");
  int rc = clogtool__one_file ("metrics", argc);
  if (rc)
    return rc;
  logfmt_reader_t *r = clogtool__open (argv[optind]);
  if (!r)
    return CLOGTOOL_EXIT_PROBLEM;
  table_t t = { 0 };
  if (load (r, t0, t1, &t))
    {
      logfmt_reader_close (r);
      return CLOGTOOL_EXIT_PROBLEM;
    }
  if (t.n)
    qsort (t.v, t.n, sizeof *t.v, cmp_series);
  uint32_t nranks = clogtool__ranks_present (r);
  int64_t *per_rank = calloc (nranks + 1, sizeof *per_rank);
  char tb[32];
  if (json)
    {
      printf ("{\"level\": \"%s\", \"from\": ", level_names[level]);
      if (window)
        printf ("%s, \"to\": ", clogtool__fmt_time (t0, tb));
      else
        fputs ("null, \"to\": ", stdout);
      if (window && t1 != UINT64_MAX)
        printf ("%s", clogtool__fmt_time (t1, tb));
      else
        fputs ("null", stdout);
      printf (", \"ranks\": %" PRIu32 ",\n\"metrics\": [", nranks);
    }
  else if (csv)
    puts ("metric,unit,level,object,value");
  else
    printf ("%-28s %-6s %-7s %16s %16s %-18s %16s %-18s %16s\n", "metric",
            "unit", "kind", "sum", "min", "(at)", "max", "(at)", "mean");
  size_t nm = logfmt_reader_n_metrics (r), shown = 0;
  int status = CLOGTOOL_EXIT_OK;
  for (size_t i = 0; i < nm && per_rank; i++)
    {
      const logfmt_metric_def_t *d = logfmt_reader_metric (r, i);
      /* Its series: a run of the sorted table. */
      size_t lo = 0, hi = t.n;
      while (lo < hi)
        {
          size_t m = (lo + hi) / 2;
          if (t.v[m].id < d->id)
            lo = m + 1;
          else
            hi = m;
        }
      size_t z = lo;
      while (z < t.n && t.v[z].id == d->id)
        z++;
      /* Standard cells nobody changed are left out; the live monitor's
         samples are reported with its accounting below. */
      if ((z == lo && (d->flags & LOGFMT_METRIC_STANDARD))
          || (d->flags & LOGFMT_METRIC_MONITOR))
        continue;
      objects_t o;
      if (aggregate (r, d, t.v + lo, t.v + z, level, per_rank, nranks, &o))
        {
          clogtool__error ("out of memory");
          status = CLOGTOOL_EXIT_PROBLEM;
          objects_free (&o);
          break;
        }
      int64_t sum = 0;
      size_t imin = 0, imax = 0;
      for (size_t k = 0; k < o.n; k++)
        {
          sum += o.vals[k];
          if (o.vals[k] < o.vals[imin])
            imin = k;
          if (o.vals[k] > o.vals[imax])
            imax = k;
        }
      double mean = o.n ? (double) sum / (double) o.n : 0;
      int64_t mn = o.n ? o.vals[imin] : 0, mx = o.n ? o.vals[imax] : 0;
      if (json)
        {
          printf ("%s\n {\"id\": %" PRIu32 ", \"name\": ", shown ? "," : "",
                  d->id);
          clogtool__json_string (stdout, d->name);
          fputs (", \"unit\": ", stdout);
          clogtool__json_string (stdout, d->unit);
          printf (", \"kind\": \"%s\", \"channel\": %s, \"standard\": %s,\n"
                  "  \"per_rank\": [", kind_of (d),
                  d->flags & LOGFMT_METRIC_CHANNEL ? "true" : "false",
                  d->flags & LOGFMT_METRIC_STANDARD ? "true" : "false");
          for (uint32_t k = 0; k < nranks; k++)
            printf ("%s%" PRId64, k ? ", " : "", per_rank[k]);
          printf ("],\n  \"sum\": %" PRId64 ", \"min\": %" PRId64
                  ", \"min_at\": ", sum, mn);
          clogtool__json_string (stdout, o.n ? o.names[imin] : "");
          printf (", \"max\": %" PRId64 ", \"max_at\": ", mx);
          clogtool__json_string (stdout, o.n ? o.names[imax] : "");
          printf (", \"mean\": %.17g,\n  \"objects\": [", mean);
          for (size_t k = 0; k < o.n; k++)
            {
              printf ("%s{\"name\": ", k ? ", " : "");
              clogtool__json_string (stdout, o.names[k]);
              printf (", \"value\": %" PRId64 "}", o.vals[k]);
            }
          fputs ("]}", stdout);
        }
      else if (csv)
        for (size_t k = 0; k < o.n; k++)
          {
            /* Names and units are the program's: quote them. */
            printf ("\"%s\",\"%s\",%s,\"%s\",%" PRId64 "\n", d->name,
                    d->unit, level_names[level], o.names[k], o.vals[k]);
          }
      else
        {
          clogtool__put_text (stdout, d->name, 28);
          putchar (' ');
          clogtool__put_text (stdout, d->unit, 6);
          printf (" %-7s %16" PRId64 " %16" PRId64 " ", kind_of (d), sum,
                  mn);
          clogtool__put_text (stdout, o.n ? o.names[imin] : "-", 18);
          printf (" %16" PRId64 " ", mx);
          clogtool__put_text (stdout, o.n ? o.names[imax] : "-", 18);
          printf (" %16.1f\n", mean);
        }
      shown++;
      objects_free (&o);
    }
  if (json)
    {
      fputs ("]", stdout);
      print_monitor (r, 1);
      fputs ("}\n", stdout);
    }
  else if (!csv && shown == 0)
    puts ("(no metrics in this log)");
  if (!json && !csv)
    print_monitor (r, 0);
  free (per_rank);
  free (t.v);
  free (t.slots);
  logfmt_reader_close (r);
  if (status)
    return status;
  return clogtool__exit_after_output ();
}

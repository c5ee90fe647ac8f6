/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Chrome trace event format (JSON), as loaded by the Perfetto UI and
 * chrome://tracing: pid = world rank + 1, tid = stream + 1, a slice per
 * state instance (instances as the state tracker pairs them, FORMAT.md
 * section 13), an "i" instant per solo event, a flow ("s" then "f") per
 * matched message bound to a slice, counter tracks ("C") for metrics,
 * memory and NICs, thread-state slices on a track per thread, call-path
 * samples as stackFrames + samples, and metadata naming processes and
 * threads.  Written incrementally, one stream at a time; only the open
 * states of the current stream are held in memory (by the tracker), the
 * samples wait in a temporary file until the events are written.
 *
 * Slices on one thread must nest.  An instance that ends while instances
 * begun inside it stay open (states that overlap without nesting) is
 * written as an async slice ("b"/"e", its own track in the process); the
 * rest then nest, so they are "X" slices on the thread.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an-memory.h"
#include "callpath/callpath.h"
#include "clogtool-internal.h"
#include "convert-internal.h"

/* The memory cells of one stream (its call sites' definitions), sorted
 * by cell, so that naming a memory record is a binary search. */
typedef struct
{
  int64_t cell;
  size_t res;                 /* its resource definition */
  int own;                    /* in the toolkit's own libraries */
} site_t;

typedef struct
{
  FILE   *f;
  int     first;
  logfmt_state_tracker_t *tracker;
  uint64_t async_id;
  uint32_t nstreams;
  uint64_t samples;         /* call-path samples written */
  FILE   *samples_f;        /* the samples, appended after the events */
  cp_symbols_t *sy;         /* memory call sites' names, made on use */
  site_t *sites;            /* of stream sites_stream */
  size_t nsites, capsites;
  uint32_t sites_stream;
} json_t;

/* Ids: pid = rank + 1 and tid = stream + 1, so that no rank is pid 0 or
 * tid 0 (Perfetto's idle process and thread); the thread-state track of
 * stream s is tid nstreams + 1 + s. */
static int
pid_of (const logfmt_stream_def_t *sd)
{
  return sd->rank + 1;
}

/* Microseconds with nanosecond digits, exact. */
static void
put_ts (FILE *f, const char *key, uint64_t ns)
{
  fprintf (f, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000,
           (unsigned) (ns % 1000));
}

static void
begin_obj (json_t *j)
{
  fputs (j->first ? "\n{" : ",\n{", j->f);
  j->first = 0;
}

static void
put_info (json_t *j, const char *format, const uint8_t *cargo)
{
  char text[256];
  if (!format || !format[0])
    return;
  if (logfmt_format_cargo (format, cargo, LOGFMT_CARGO_SIZE, text,
                           sizeof text) < 0 && !text[0])
    return;
  fputs (",\"args\":{\"info\":", j->f);
  clogtool__json_string (j->f, text);
  fputc ('}', j->f);
}

/* One instance: an "X" slice, or a "b"/"e" pair when it does not nest
 * (inner > 0).  Its text is the END's cargo, else the BEGIN's. */
static void
put_slice (json_t *j, const logfmt_reader_t *r, uint32_t s,
           const logfmt_interval_t *iv, uint32_t inner)
{
  const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
  const logfmt_state_def_t *def = logfmt_reader_state (r, (size_t) iv->state);
  const uint8_t *cargo = (iv->flags & LOGFMT_IV_END_CARGO) ? iv->end_cargo
                         : (iv->flags & LOGFMT_IV_BEGIN_CARGO)
                         ? iv->begin_cargo : NULL;
  begin_obj (j);
  fputs (inner ? "\"ph\":\"b\"" : "\"ph\":\"X\"", j->f);
  fputs (",\"cat\":\"state\",\"name\":", j->f);
  clogtool__json_string (j->f, def ? def->name : "?");
  fprintf (j->f, ",\"pid\":%d,\"tid\":%u", pid_of (sd), s + 1);
  if (inner)
    fprintf (j->f, ",\"id\":%" PRIu64, ++j->async_id);
  put_ts (j->f, "ts", iv->start);
  if (!inner)
    put_ts (j->f, "dur", iv->inclusive);
  if (iv->flags & LOGFMT_IV_OPEN)
    fputs (",\"args\":{\"unfinished\":true}", j->f);
  else if (def && cargo)
    put_info (j, def->format, cargo);
  fputc ('}', j->f);
  if (!inner)
    return;
  begin_obj (j);
  fputs ("\"ph\":\"e\",\"cat\":\"state\",\"name\":", j->f);
  clogtool__json_string (j->f, def ? def->name : "?");
  fprintf (j->f, ",\"pid\":%d,\"tid\":%u,\"id\":%" PRIu64, pid_of (sd),
           s + 1, j->async_id);
  put_ts (j->f, "ts", iv->end);
  fputc ('}', j->f);
}

/* A "C" counter event: one track per name in the process. */
static void
put_counter (json_t *j, const char *name, int pid, uint64_t t,
             const char *k1, int64_t v1, const char *k2, int64_t v2)
{
  begin_obj (j);
  fputs ("\"ph\":\"C\",\"cat\":\"counter\",\"name\":", j->f);
  clogtool__json_string (j->f, name);
  fprintf (j->f, ",\"pid\":%d", pid);
  put_ts (j->f, "ts", t);
  fprintf (j->f, ",\"args\":{\"%s\":%" PRId64, k1, v1);
  if (k2)
    fprintf (j->f, ",\"%s\":%" PRId64, k2, v2);
  fputs ("}}", j->f);
}

static int
site_cmp (const void *a, const void *b)
{
  int64_t x = ((const site_t *) a)->cell, y = ((const site_t *) b)->cell;
  return (x > y) - (x < y);
}

/* A memory cell's call site, resolved as clogtool memory does, or
 * NULL. */
static const char *
site_name (json_t *j, const logfmt_reader_t *r, uint32_t stream,
           int64_t cell)
{
  if (j->sites_stream != stream)
    {
      j->nsites = 0;
      j->sites_stream = stream;
      for (size_t i = 0; i < logfmt_reader_n_resources (r); i++)
        {
          const logfmt_resource_def_t *d = logfmt_reader_resource (r, i);
          if (d->kind != LOGFMT_RES_MEMSITE || d->nv <= LOGFMT_MEM_OFFSET
              || !d->ns || !d->s[0] || d->stream != stream)
            continue;
          if (j->nsites == j->capsites)
            {
              size_t n = j->capsites ? 2 * j->capsites : 64;
              site_t *v = realloc (j->sites, n * sizeof *v);
              if (!v)
                break;
              j->sites = v;
              j->capsites = n;
            }
          j->sites[j->nsites++] = (site_t) { d->v[LOGFMT_MEM_ID], i,
                                             an_memory_own_site (d) };
        }
      qsort (j->sites, j->nsites, sizeof *j->sites, site_cmp);
    }
  site_t key = { cell, 0, 0 };
  const site_t *hit = j->nsites ? bsearch (&key, j->sites, j->nsites,
                                           sizeof key, site_cmp) : NULL;
  if (hit && hit->own)
    return "";   /* the caller leaves the toolkit's own sites out */
  if (!hit || (!j->sy && !(j->sy = cp_symbols_new ())))
    return NULL;
  const logfmt_resource_def_t *d = logfmt_reader_resource (r, hit->res);
  cp_frame_t fr;
  cp_symbols_address (j->sy, d->s[0], (uint64_t) d->v[LOGFMT_MEM_OFFSET],
                      &fr);
  return fr.func;
}

static const char *
nic_name (const logfmt_reader_t *r, int64_t nic)
{
  for (size_t i = 0; i < logfmt_reader_n_resources (r); i++)
    {
      const logfmt_resource_def_t *d = logfmt_reader_resource (r, i);
      if (d->kind == LOGFMT_RES_NIC && d->nv > LOGFMT_NIC_ID
          && d->v[LOGFMT_NIC_ID] == nic && d->ns > 1 && d->s[1])
        return d->s[1];
    }
  return NULL;
}

/* A thread-state piece on the stream's state track. */
static void
put_tstate (json_t *j, int pid, uint32_t s, int what, int64_t cpu,
            uint64_t t0, uint64_t t1)
{
  begin_obj (j);
  fprintf (j->f, "\"ph\":\"X\",\"cat\":\"thread state\",\"name\":\"%s\","
           "\"pid\":%d,\"tid\":%u", what == LOGFMT_SWITCH_IN ? "Running"
           : what == LOGFMT_SWITCH_BLOCKED ? "Blocked" : "Preempted", pid,
           j->nstreams + 1 + s);
  put_ts (j->f, "ts", t0);
  put_ts (j->f, "dur", t1 - t0);
  fprintf (j->f, ",\"args\":{\"cpu\":%" PRId64 "}}", cpu);
}

/* The stream's tracks: metrics, memory and NIC counters as counter
 * tracks (named with the thread when it is not the first), context
 * switches as thread-state slices, call-path samples into the samples
 * file (written after the events). */
static int
write_tracks (json_t *j, convert_ctx_t *c, const logfmt_reader_t *r,
              uint32_t s)
{
  static const uint32_t kinds[] = { LOGFMT_TRACK_METRIC, LOGFMT_TRACK_MEMORY,
                                    LOGFMT_TRACK_NETWORK, LOGFMT_TRACK_SWITCH,
                                    LOGFMT_TRACK_CALLPATH };
  const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
  int pid = pid_of (sd);
  char thr[32] = "";
  if (sd->thread != 0)
    snprintf (thr, sizeof thr, " (thread %d)", sd->thread);
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
    {
      logfmt_track_info_t ti;
      if (logfmt_reader_track_info (r, s, kinds[k], &ti) != 0
          || ti.records == 0)
        continue;
      logfmt_track_iter_t *it = NULL;
      logfmt_track_rec_t rec;
      int rc = logfmt_track_iter_new (r, s, kinds[k], 0, UINT64_MAX, &it);
      if (rc)
        {
          clogtool__lib_error (c->in, rc, NULL);
          return -1;
        }
      char name[400], site[300] = "";
      int64_t sw_what = 0, sw_cpu = -1, last_cell = INT64_MIN;
      int own_cell = 0;
      uint64_t sw_t = 0;
      while ((rc = logfmt_track_iter_next (it, &rec)) == 1)
        switch (kinds[k])
          {
          case LOGFMT_TRACK_METRIC:
            {
              int d = logfmt_reader_find_metric (
                r, (uint32_t) rec.col[LOGFMT_METRIC_COL_ID]);
              const logfmt_metric_def_t *md
                = d >= 0 ? logfmt_reader_metric (r, (size_t) d) : NULL;
              char base[300];
              if (md && md->name)
                snprintf (base, sizeof base, "%s", md->name);
              else
                snprintf (base, sizeof base, "metric %" PRId64,
                          rec.col[LOGFMT_METRIC_COL_ID]);
              int64_t obj = rec.col[LOGFMT_METRIC_COL_OBJECT];
              if (obj >= 0 && md && (md->flags & LOGFMT_METRIC_CHANNEL))
                snprintf (name, sizeof name, "%s to rank %" PRId64 "%s",
                          base, obj, thr);
              else if (obj >= 0)
                snprintf (name, sizeof name, "%s [%" PRId64 "]%s", base,
                          obj, thr);
              else
                snprintf (name, sizeof name, "%s%s", base, thr);
              put_counter (j, name, pid, rec.time, "value",
                           rec.col[LOGFMT_METRIC_COL_VALUE], NULL, 0);
            }
            break;
          case LOGFMT_TRACK_MEMORY:
            if (rec.col[LOGFMT_MEMORY_COL_CELL] < 0)
              snprintf (name, sizeof name, "memory live bytes%s", thr);
            else
              {
                /* The site's function, resolved once per cell. */
                int64_t cell = rec.col[LOGFMT_MEMORY_COL_CELL];
                if (cell != last_cell)
                  {
                    const char *fn = site_name (j, r, s, cell);
                    own_cell = fn && !*fn;
                    snprintf (site, sizeof site, "%s%s(site %" PRId64 ")",
                              fn ? fn : "", fn ? " " : "", cell);
                    last_cell = cell;
                  }
                /* As clogtool memory: libmpe's allocations are not the
                   program's sites (the total above keeps them). */
                if (own_cell)
                  break;
                snprintf (name, sizeof name, "memory live bytes: %s%s", site,
                          thr);
              }
            put_counter (j, name, pid, rec.time, "bytes",
                         rec.col[LOGFMT_MEMORY_COL_LIVE], "allocations",
                         rec.col[LOGFMT_MEMORY_COL_CALLS]);
            break;
          case LOGFMT_TRACK_NETWORK:
            {
              const char *nn = nic_name (r, rec.col[LOGFMT_NETWORK_COL_NIC]);
              char nic[300];
              if (nn)
                snprintf (nic, sizeof nic, "%s", nn);
              else
                snprintf (nic, sizeof nic, "%" PRId64,
                          rec.col[LOGFMT_NETWORK_COL_NIC]);
              snprintf (name, sizeof name, "NIC %s bytes", nic);
              put_counter (j, name, pid, rec.time, "rx",
                           rec.col[LOGFMT_NETWORK_COL_RXB], "tx",
                           rec.col[LOGFMT_NETWORK_COL_TXB]);
              snprintf (name, sizeof name, "NIC %s packets", nic);
              put_counter (j, name, pid, rec.time, "rx",
                           rec.col[LOGFMT_NETWORK_COL_RXP], "tx",
                           rec.col[LOGFMT_NETWORK_COL_TXP]);
            }
            break;
          case LOGFMT_TRACK_SWITCH:
            /* Each switch ends the piece the previous one began. */
            if (sw_what)
              put_tstate (j, pid, s, (int) sw_what, sw_cpu, sw_t, rec.time);
            sw_what = rec.col[LOGFMT_SWITCH_COL_WHAT];
            sw_cpu = rec.col[LOGFMT_SWITCH_COL_CPU];
            sw_t = rec.time;
            if (sw_what < LOGFMT_SWITCH_IN || sw_what > LOGFMT_SWITCH_PREEMPTED)
              sw_what = 0;
            break;
          case LOGFMT_TRACK_CALLPATH:
            fprintf (j->samples_f, "%s\n{\"cpu\":%" PRId64 ",\"tid\":%u,"
                     "\"pid\":%d", j->samples ? "," : "",
                     rec.col[LOGFMT_SAMPLE_COL_CPU], s + 1, pid);
            put_ts (j->samples_f, "ts", rec.time);
            fprintf (j->samples_f, ",\"name\":\"cpu-clock\","
                     "\"sf\":\"%d.%" PRId64 "\",\"weight\":%" PRId64 "}",
                     sd->rank, rec.col[LOGFMT_SAMPLE_COL_NODE],
                     rec.col[LOGFMT_SAMPLE_COL_WEIGHT] > 0
                     ? rec.col[LOGFMT_SAMPLE_COL_WEIGHT] : 1);
            j->samples++;
            break;
          }
      if (rc < 0)
        clogtool__lib_error (c->in, rc, logfmt_track_iter_error (it));
      logfmt_track_iter_free (it);
      if (rc < 0)
        return -1;
    }
  return 0;
}

/* Every rank's call-path tree as stackFrames ("RANK.NODE"; node 0, the
 * root, is no frame: its children have no parent), names resolved. */
static int
write_frames (json_t *j, convert_ctx_t *c, const logfmt_reader_t *r)
{
  size_t n = logfmt_reader_callpath_ranks (r, NULL, 0);
  int32_t *ranks = calloc (n + 1, sizeof *ranks);
  cp_symbols_t *sy = cp_symbols_new ();
  int first = 1, rc = 0;
  if (!ranks || !sy)
    {
      free (ranks);
      cp_symbols_free (sy);
      clogtool__error ("out of memory");
      return -1;
    }
  n = logfmt_reader_callpath_ranks (r, ranks, n);
  fputs (",\n\"stackFrames\":{", j->f);
  for (size_t i = 0; i < n && rc == 0; i++)
    {
      logfmt_callpaths_t *cp = NULL;
      logfmt_error_t err = { 0 };
      if ((rc = logfmt_reader_callpaths (r, ranks[i], &cp, &err)) != 0)
        {
          clogtool__lib_error (c->in, rc, &err);
          break;
        }
      for (uint32_t k = 0; k < cp->nnodes; k++)
        {
          cp_frame_t fr;
          char label[600];
          if (k == 0)
            snprintf (label, sizeof label, "(rank %d)", ranks[i]);
          else
            {
              cp_symbols_frame (sy, cp, k, &fr);
              snprintf (label, sizeof label, "%s", fr.func ? fr.func : "?");
            }
          fprintf (j->f, "%s\n\"%d.%u\":{\"name\":", first ? "" : ",",
                   ranks[i], k);
          clogtool__json_string (j->f, label);
          if (k > 0 && cp->nodes[k].parent > 0)
            fprintf (j->f, ",\"parent\":\"%d.%u\"", ranks[i],
                     cp->nodes[k].parent);
          fputc ('}', j->f);
          first = 0;
        }
      logfmt_callpaths_free (cp);
    }
  fputs ("}", j->f);
  free (ranks);
  cp_symbols_free (sy);
  return rc ? -1 : 0;
}

static int
write_stream (json_t *j, convert_ctx_t *c, const logfmt_reader_t *r,
              uint32_t s)
{
  const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
  logfmt_iter_t *it = NULL;
  logfmt_event_t ev;
  uint64_t last = 0;
  int rc = logfmt_iter_new (r, s, 0, UINT64_MAX, &it);
  if (rc)
    {
      clogtool__lib_error (c->in, rc, NULL);
      return -1;
    }
  logfmt_state_tracker_reset (j->tracker, s);
  while ((rc = logfmt_iter_next (it, &ev)) == 1)
    {
      last = ev.time;
      switch (ev.kind)
        {
        case LOGFMT_KIND_BEGIN:
        case LOGFMT_KIND_END:
          {
            logfmt_interval_t iv;
            uint32_t inner = 0;
            int st = logfmt_state_tracker_apply (j->tracker, &ev, &iv,
                                                 &inner);
            if (st < 0)
              {
                logfmt_iter_free (it);
                clogtool__error ("out of memory");
                return -1;
              }
            if (st == LOGFMT_STEP_CLOSED)
              put_slice (j, r, s, &iv, inner);
            else if (st == LOGFMT_STEP_UNMATCHED_END
                     || (st == LOGFMT_STEP_TOO_DEEP
                         && ev.kind == LOGFMT_KIND_BEGIN))
              c->dropped++;
            convert__count_event (c);
          }
          break;
        case LOGFMT_KIND_SOLO:
          {
            int d = logfmt_reader_find_event_def (r, ev.id);
            const logfmt_event_def_t *def
              = d >= 0 ? logfmt_reader_event_def (r, (size_t) d) : NULL;
            char name[32];
            snprintf (name, sizeof name, "event %d", ev.id);
            begin_obj (j);
            fputs ("\"ph\":\"i\",\"s\":\"t\",\"cat\":\"event\",\"name\":",
                   j->f);
            clogtool__json_string (j->f, def ? def->name : name);
            fprintf (j->f, ",\"pid\":%d,\"tid\":%u", pid_of (sd), s + 1);
            put_ts (j->f, "ts", ev.time);
            if (def && (ev.flags & LOGFMT_EVF_CARGO))
              put_info (j, def->format, ev.cargo);
            fputc ('}', j->f);
            convert__count_event (c);
          }
          break;
        case LOGFMT_KIND_LOSS:
          begin_obj (j);
          fprintf (j->f, "\"ph\":\"i\",\"s\":\"t\",\"cat\":\"loss\","
                   "\"name\":\"events lost\",\"pid\":%d,\"tid\":%u",
                   pid_of (sd), s + 1);
          fprintf (j->f, ",\"args\":{\"lost\":%" PRIu64 "}", ev.size);
          put_ts (j->f, "ts", ev.time);
          fputc ('}', j->f);
          convert__count_event (c);
          break;
        default:
          /* SEND/RECV: flows, written below.  A flow binds to the slice
           * around it on its thread: where no state is open, a slice of
           * its own, of zero length. */
          if (logfmt_state_tracker_depth (j->tracker) == 0
              && (ev.kind == LOGFMT_KIND_SEND || ev.kind == LOGFMT_KIND_RECV))
            {
              begin_obj (j);
              fprintf (j->f, "\"ph\":\"X\",\"cat\":\"message\","
                       "\"name\":\"%s\",\"pid\":%d,\"tid\":%u",
                       ev.kind == LOGFMT_KIND_SEND ? "send" : "receive",
                       pid_of (sd), s + 1);
              put_ts (j->f, "ts", ev.time);
              fprintf (j->f, ",\"dur\":0,\"args\":{\"partner\":%d,"
                       "\"tag\":%d,\"size\":%" PRIu64 "}}", ev.partner,
                       ev.tag, ev.size);
            }
          convert__count_event (c);
          break;
        }
    }
  if (rc < 0)
    {
      clogtool__lib_error (c->in, rc, logfmt_iter_error (it));
      logfmt_iter_free (it);
      return -1;
    }
  logfmt_iter_free (it);
  /* States still open at the end of the stream run to its last event. */
  logfmt_interval_t iv;
  while (logfmt_state_tracker_cut (j->tracker, last, &iv) == 1)
    put_slice (j, r, s, &iv, 0);
  return write_tracks (j, c, r, s);
}

int
convert__to_json (convert_ctx_t *c, const logfmt_reader_t *r)
{
  const logfmt_info_t *info = logfmt_reader_info (r);
  json_t j = { 0 };
  int rc = 0;
  j.first = 1;
  j.f = fopen (c->out, "w");
  if (!j.f)
    {
      clogtool__error ("%s: %s", c->out, strerror (errno));
      return -1;
    }
  setvbuf (j.f, NULL, _IOFBF, 1 << 20);
  j.nstreams = info->nstreams;
  j.sites_stream = LOGFMT_NO_STREAM;
  if (logfmt_state_tracker_new (logfmt_reader_n_states (r), 0, &j.tracker)
      || !(j.samples_f = tmpfile ()))
    {
      clogtool__error ("out of memory or no temporary file");
      logfmt_state_tracker_free (j.tracker);
      fclose (j.f);
      remove (c->out);
      return -1;
    }
  fputs ("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":", j.f);
  clogtool__json_string (j.f, c->in);
  fputs (",\"format\":", j.f);
  clogtool__json_string (j.f, info->format_name);
  fputs ("},\"traceEvents\":[", j.f);

  /* Names: one process per rank, one thread per stream. */
  int32_t last_rank = -1;
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      if (sd->rank != last_rank)
        {
          char name[320];
          if (sd->host && sd->host[0])
            snprintf (name, sizeof name, "rank %d (%s)", sd->rank, sd->host);
          else
            snprintf (name, sizeof name, "rank %d", sd->rank);
          begin_obj (&j);
          fprintf (j.f, "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,"
                   "\"args\":{\"name\":", pid_of (sd));
          clogtool__json_string (j.f, name);
          fputs ("}}", j.f);
          begin_obj (&j);
          fprintf (j.f, "\"ph\":\"M\",\"name\":\"process_sort_index\","
                   "\"pid\":%d,\"args\":{\"sort_index\":%d}}", pid_of (sd),
                   sd->rank);
          last_rank = sd->rank;
        }
      begin_obj (&j);
      fprintf (j.f, "\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,"
               "\"tid\":%u,\"args\":{\"name\":\"rank %d thread %d\"}}",
               pid_of (sd), s + 1, sd->rank, sd->thread);
      logfmt_track_info_t ti;
      if (logfmt_reader_track_info (r, s, LOGFMT_TRACK_SWITCH, &ti) == 0
          && ti.records > 0)
        {
          begin_obj (&j);
          fprintf (j.f, "\"ph\":\"M\",\"name\":\"thread_name\","
                   "\"pid\":%d,\"tid\":%u,\"args\":{\"name\":\"rank %d "
                   "thread %d state\"}}", pid_of (sd), j.nstreams + 1 + s,
                   sd->rank, sd->thread);
        }
    }

  uint64_t total = info->nevents ? info->nevents : 1;
  for (uint32_t s = 0; rc == 0 && s < info->nstreams; s++)
    {
      rc = write_stream (&j, c, r, s);
      convert__progress_cb (c, 0.95 * (double) c->events / (double) total);
    }

  /* Messages as flows: the start binds to the enclosing send slice, the
   * end ("bp":"e") to the enclosing receive slice. */
  logfmt_msg_iter_t *mi = NULL;
  if (rc == 0 && (rc = logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi)))
    clogtool__lib_error (c->in, rc, NULL);
  if (rc == 0)
    {
      logfmt_message_t m;
      uint64_t id = 0;
      while ((rc = logfmt_msg_iter_next (mi, &m)) == 1)
        {
          if (m.send_stream == LOGFMT_NO_STREAM
              || m.recv_stream == LOGFMT_NO_STREAM)
            {
              c->dropped++;     /* an arrow needs both ends */
              continue;
            }
          const logfmt_stream_def_t *a = logfmt_reader_stream (r,
                                                               m.send_stream);
          const logfmt_stream_def_t *b = logfmt_reader_stream (r,
                                                               m.recv_stream);
          id++;
          begin_obj (&j);
          fprintf (j.f, "\"ph\":\"s\",\"cat\":\"message\",\"name\":\"message\","
                   "\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%u", id,
                   pid_of (a), m.send_stream + 1);
          put_ts (j.f, "ts", m.send_time);
          fprintf (j.f, ",\"args\":{\"tag\":%d,\"size\":%" PRIu64 "}}",
                   m.tag, m.size);
          /* A receive logged before its send is stored at the send's
           * time, where the receiver may have no slice: one of its own. */
          if (m.recv_time <= m.send_time)
            {
              begin_obj (&j);
              fprintf (j.f, "\"ph\":\"X\",\"cat\":\"message\","
                       "\"name\":\"receive\",\"pid\":%d,\"tid\":%u",
                       pid_of (b), m.recv_stream + 1);
              put_ts (j.f, "ts", m.recv_time);
              fprintf (j.f, ",\"dur\":0,\"args\":{\"partner\":%d,"
                       "\"tag\":%d,\"size\":%" PRIu64 "}}", a->rank, m.tag,
                       m.size);
            }
          begin_obj (&j);
          fprintf (j.f, "\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"message\","
                   "\"name\":\"message\",\"id\":%" PRIu64 ",\"pid\":%d,"
                   "\"tid\":%u", id, pid_of (b), m.recv_stream + 1);
          put_ts (j.f, "ts", m.recv_time);
          fputc ('}', j.f);
          c->messages++;
        }
      if (rc < 0)
        clogtool__lib_error (c->in, rc, logfmt_msg_iter_error (mi));
      else
        rc = 0;
      logfmt_msg_iter_free (mi);
    }
  logfmt_state_tracker_free (j.tracker);
  fputs ("\n]", j.f);
  /* Call-path samples in the format's stack-sample form. */
  if (rc == 0 && j.samples)
    {
      rc = write_frames (&j, c, r);
      fputs (",\n\"samples\":[", j.f);
      rewind (j.samples_f);
      char buf[65536];
      size_t n;
      while ((n = fread (buf, 1, sizeof buf, j.samples_f)) > 0)
        fwrite (buf, 1, n, j.f);
      if (ferror (j.samples_f))
        rc = -1;
      fputs ("\n]", j.f);
    }
  fclose (j.samples_f);
  cp_symbols_free (j.sy);
  free (j.sites);
  fputs ("}\n", j.f);
  if (ferror (j.f) | (fclose (j.f) != 0))
    {
      if (rc == 0)
        clogtool__error ("%s: write error: %s", c->out, strerror (errno));
      rc = -1;
    }
  if (rc)
    {
      remove (c->out);
      return -1;
    }
  return 0;
}

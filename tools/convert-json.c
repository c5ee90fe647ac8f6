/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Chrome trace event format (JSON), as loaded by the Perfetto UI and
 * chrome://tracing: pid = world rank, tid = thread, a slice per state
 * instance (instances as the state tracker pairs them, FORMAT.md section
 * 13), an "i" instant per solo event, a flow ("s" then "f") per matched
 * message, and metadata naming processes and threads.  Written
 * incrementally, one stream at a time; only the open states of the
 * current stream are held in memory (by the tracker).
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

#include "clogtool-internal.h"
#include "convert-internal.h"

typedef struct
{
  FILE   *f;
  int     first;
  logfmt_state_tracker_t *tracker;
  uint64_t async_id;
} json_t;

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
put_slice (json_t *j, const logfmt_reader_t *r, const logfmt_stream_def_t *sd,
           const logfmt_interval_t *iv, uint32_t inner)
{
  const logfmt_state_def_t *def = logfmt_reader_state (r, (size_t) iv->state);
  const uint8_t *cargo = (iv->flags & LOGFMT_IV_END_CARGO) ? iv->end_cargo
                         : (iv->flags & LOGFMT_IV_BEGIN_CARGO)
                         ? iv->begin_cargo : NULL;
  begin_obj (j);
  fputs (inner ? "\"ph\":\"b\"" : "\"ph\":\"X\"", j->f);
  fputs (",\"cat\":\"state\",\"name\":", j->f);
  clogtool__json_string (j->f, def ? def->name : "?");
  fprintf (j->f, ",\"pid\":%d,\"tid\":%d", sd->rank, sd->thread);
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
  fprintf (j->f, ",\"pid\":%d,\"tid\":%d,\"id\":%" PRIu64, sd->rank,
           sd->thread, j->async_id);
  put_ts (j->f, "ts", iv->end);
  fputc ('}', j->f);
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
              put_slice (j, r, sd, &iv, inner);
            else if (st == LOGFMT_STEP_UNMATCHED_END
                     || (st == LOGFMT_STEP_TOO_DEEP
                         && ev.kind == LOGFMT_KIND_BEGIN))
              c->dropped++;
            c->events++;
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
            fprintf (j->f, ",\"pid\":%d,\"tid\":%d", sd->rank, sd->thread);
            put_ts (j->f, "ts", ev.time);
            if (def && (ev.flags & LOGFMT_EVF_CARGO))
              put_info (j, def->format, ev.cargo);
            fputc ('}', j->f);
            c->events++;
          }
          break;
        case LOGFMT_KIND_LOSS:
          begin_obj (j);
          fprintf (j->f, "\"ph\":\"i\",\"s\":\"t\",\"cat\":\"loss\","
                   "\"name\":\"%" PRIu64 " events lost\",\"pid\":%d,"
                   "\"tid\":%d", ev.size, sd->rank, sd->thread);
          put_ts (j->f, "ts", ev.time);
          fputc ('}', j->f);
          c->events++;
          break;
        default:                  /* SEND/RECV: flows, written below */
          c->events++;
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
    put_slice (j, r, sd, &iv, 0);
  return 0;
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
  if (logfmt_state_tracker_new (logfmt_reader_n_states (r), 0, &j.tracker))
    {
      clogtool__error ("out of memory");
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
                   "\"args\":{\"name\":", sd->rank);
          clogtool__json_string (j.f, name);
          fputs ("}}", j.f);
          begin_obj (&j);
          fprintf (j.f, "\"ph\":\"M\",\"name\":\"process_sort_index\","
                   "\"pid\":%d,\"args\":{\"sort_index\":%d}}", sd->rank,
                   sd->rank);
          last_rank = sd->rank;
        }
      begin_obj (&j);
      fprintf (j.f, "\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,"
               "\"tid\":%d,\"args\":{\"name\":\"thread %d\"}}", sd->rank,
               sd->thread, sd->thread);
    }

  uint64_t total = info->nevents ? info->nevents : 1;
  for (uint32_t s = 0; rc == 0 && s < info->nstreams; s++)
    {
      rc = write_stream (&j, c, r, s);
      convert__progress_cb (c, 0.9 * (double) c->events / (double) total);
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
                   "\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%d", id, a->rank,
                   a->thread);
          put_ts (j.f, "ts", m.send_time);
          fprintf (j.f, ",\"args\":{\"tag\":%d,\"size\":%" PRIu64 "}}",
                   m.tag, m.size);
          begin_obj (&j);
          fprintf (j.f, "\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"message\","
                   "\"name\":\"message\",\"id\":%" PRIu64 ",\"pid\":%d,"
                   "\"tid\":%d", id, b->rank, b->thread);
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
  fputs ("\n]}\n", j.f);
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

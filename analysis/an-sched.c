/* SPDX-License-Identifier: BSD-3-Clause */
/* A thread's runs on and off CPUs from its context-switch track, its
 * split over a time range, and the per-state split (clogtool threads,
 * the viewer's threads table and on/off-CPU shading). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "an-internal.h"
#include "an-sched.h"

/* Keeps the first error: the library's details if it has them. */
static void
keep_error (logfmt_error_t *err, int code, const logfmt_error_t *src,
            const char *what)
{
  if (err && !err->code && src && src->code && src->message[0])
    *err = *src;
  else
    an__error (err, code, what);
}

/* First and last event time of a stream (one pass; 0, 0 when empty). */
static int
event_range (const logfmt_reader_t *r, uint32_t stream, uint64_t *t0,
             uint64_t *t1, logfmt_error_t *err)
{
  *t0 = UINT64_MAX;
  *t1 = 0;
  logfmt_iter_t *it;
  int rc = logfmt_iter_new (r, stream, 0, UINT64_MAX, &it);
  if (rc)
    {
      an__error (err, rc, "cannot read events");
      return rc;
    }
  logfmt_event_t ev[512];
  long n;
  while ((n = logfmt_iter_next_batch (it, ev, 512)) > 0)
    {
      if (ev[0].time < *t0)
        *t0 = ev[0].time;
      if (ev[n - 1].time > *t1)
        *t1 = ev[n - 1].time;
    }
  if (n < 0)
    keep_error (err, (int) n, logfmt_iter_error (it), "cannot read events");
  logfmt_iter_free (it);
  return n < 0 ? (int) n : 0;
}

static int
push_run (an_sched_thread_t *th, size_t *cap, an_sched_run_t run)
{
  if (run.t1 <= run.t0)
    return 0;
  if (th->nruns == *cap)
    {
      size_t nc = *cap ? *cap * 2 : 256;
      an_sched_run_t *v = realloc (th->runs, nc * sizeof *v);
      if (!v)
        return LOGFMT_ENOMEM;
      th->runs = v;
      *cap = nc;
    }
  th->runs[th->nruns++] = run;
  if (run.on)
    th->on_ns += run.t1 - run.t0;
  else if (run.why == AN_SCHED_OUT_PREEMPTED)
    th->preempted_ns += run.t1 - run.t0;
  else
    th->blocked_ns += run.t1 - run.t0;
  return 0;
}

static int
add_cpu (an_sched_thread_t *th, int32_t cpu)
{
  if (cpu < 0)
    return 0;
  size_t i = 0;
  while (i < th->ncpus && th->cpus[i] < cpu)
    i++;
  if (i < th->ncpus && th->cpus[i] == cpu)
    return 0;
  int32_t *v = realloc (th->cpus, (th->ncpus + 1) * sizeof *v);
  if (!v)
    return LOGFMT_ENOMEM;
  memmove (v + i + 1, v + i, (th->ncpus - i) * sizeof *v);
  v[i] = cpu;
  th->cpus = v;
  th->ncpus++;
  return 0;
}

int
an_sched_thread_load (const logfmt_reader_t *r, uint32_t stream,
                      an_sched_thread_t *th, logfmt_error_t *err)
{
  memset (th, 0, sizeof *th);
  th->stream = stream;
  uint64_t e0, e1;
  int rc = event_range (r, stream, &e0, &e1, err);
  if (rc)
    return rc;
  logfmt_track_info_t ti;
  if (logfmt_reader_track_info (r, stream, LOGFMT_TRACK_SWITCH, &ti) != 0
      || ti.records == 0)
    {
      /* No switch at all: on a CPU (which one is unknown) throughout. */
      size_t cap = 0;
      th->has = e0 != UINT64_MAX;
      th->t0 = th->has ? e0 : 0;
      th->t1 = th->has ? e1 : 0;
      return th->has ? push_run (th, &cap, (an_sched_run_t) { e0, e1, -1, 1,
                                                          0 }) : 0;
    }
  th->has = 1;
  logfmt_track_iter_t *it;
  rc = logfmt_track_iter_new (r, stream, LOGFMT_TRACK_SWITCH, 0, UINT64_MAX,
                              &it);
  if (rc)
    {
      an__error (err, rc, "cannot read the switch track");
      return rc;
    }
  size_t cap = 0;
  int on = 1, first = 1;
  int32_t cpu = -1;      /* the CPU of the current or last run */
  uint64_t since = 0;
  uint8_t why = AN_SCHED_OUT_BLOCKED;
  uint64_t last = 0;
  logfmt_track_rec_t rec;
  while (rc == 0 && (rc = logfmt_track_iter_next (it, &rec)) == 1)
    {
      rc = 0;
      int what = (int) rec.col[1];
      int32_t c = (int32_t) rec.col[0];
      last = rec.time;
      if (first)
        {
          /* Running when its first event was logged, unless the track
           * begins by switching it in. */
          first = 0;
          on = what != AN_SCHED_IN;
          th->t0 = on && e0 < rec.time ? e0 : rec.time;
          since = th->t0;
          cpu = c;
        }
      if (what == AN_SCHED_IN)
        {
          if (!on)
            {
              rc = push_run (th, &cap, (an_sched_run_t) { since, rec.time, cpu,
                                                       0, why });
              if (cpu >= 0 && c != cpu)
                th->migrations++;
              on = 1;
              since = rec.time;
            }
          cpu = c;
        }
      else if (what == AN_SCHED_OUT_BLOCKED || what == AN_SCHED_OUT_PREEMPTED)
        {
          if (on)
            {
              rc = push_run (th, &cap, (an_sched_run_t) { since, rec.time, c,
                                                       1, 0 });
              if (!rc)
                rc = add_cpu (th, c);
              th->switches++;
              on = 0;
              since = rec.time;
            }
          why = (uint8_t) what;
          cpu = c;
        }
    }
  if (rc < 0)
    keep_error (err, rc, logfmt_track_iter_error (it),
                "cannot read the switch track");
  logfmt_track_iter_free (it);
  if (rc < 0)
    return rc;
  th->t1 = e1 > last && e0 != UINT64_MAX ? e1 : last;
  rc = push_run (th, &cap, (an_sched_run_t) { since, th->t1, cpu, (uint8_t) on,
                                           on ? 0 : why });
  if (!rc && on)
    rc = add_cpu (th, cpu);
  return rc;
}

void
an_sched_thread_free (an_sched_thread_t *th)
{
  free (th->runs);
  free (th->cpus);
  memset (th, 0, sizeof *th);
}

void
an_sched_thread_split (const an_sched_thread_t *th, uint64_t a, uint64_t b,
                    an_sched_split_t *out)
{
  memset (out, 0, sizeof *out);
  /* The first run ending after a. */
  size_t lo = 0, hi = th->nruns;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (th->runs[mid].t1 <= a)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (size_t i = lo; i < th->nruns && th->runs[i].t0 < b; i++)
    {
      const an_sched_run_t *x = &th->runs[i];
      uint64_t s = x->t0 > a ? x->t0 : a, e = x->t1 < b ? x->t1 : b;
      if (e <= s)
        continue;
      if (x->on)
        {
          out->on += e - s;
          if (x->cpu >= 0 && x->cpu < AN_SCHED_MAX_CPUS)
            out->cpus[x->cpu / 64] |= (uint64_t) 1 << (x->cpu % 64);
          if (i > 0 && x->t0 >= a && !th->runs[i - 1].on
              && th->runs[i - 1].cpu >= 0 && th->runs[i - 1].cpu != x->cpu)
            out->migrations++;
        }
      else if (x->why == AN_SCHED_OUT_PREEMPTED)
        out->preempted += e - s;
      else
        out->blocked += e - s;
      /* A switch-out starts every off run but the window's first. */
      if (!x->on && i > 0 && x->t0 >= a)
        {
          if (x->why == AN_SCHED_OUT_PREEMPTED)
            out->preemptions++;
          else
            out->blocks++;
        }
    }
}

void
an_sched_split_add (an_sched_split_t *a, const an_sched_split_t *b)
{
  a->on += b->on;
  a->blocked += b->blocked;
  a->preempted += b->preempted;
  a->blocks += b->blocks;
  a->preemptions += b->preemptions;
  a->migrations += b->migrations;
  for (size_t i = 0; i < AN_SCHED_MAX_CPUS / 64; i++)
    a->cpus[i] |= b->cpus[i];
}

int
an_sched_file_has_switches (const logfmt_reader_t *r)
{
  logfmt_track_info_t ti;
  return logfmt_reader_track_info (r, LOGFMT_NO_STREAM, LOGFMT_TRACK_SWITCH,
                                   &ti) == 0 && ti.records > 0;
}

int
an_sched_states (const logfmt_reader_t *r, const an_sched_thread_t *th,
                 an_sched_state_t *acc, size_t nstates, logfmt_error_t *err)
{
  if (nstates)
    memset (acc, 0, nstates * sizeof *acc);
  logfmt_interval_iter_t *it;
  int rc = logfmt_interval_iter_new (r, th->stream, 0, UINT64_MAX, &it);
  if (rc)
    {
      an__error (err, rc, "cannot read states");
      return rc;
    }
  logfmt_interval_t iv;
  while ((rc = logfmt_interval_iter_next (it, &iv)) == 1)
    {
      if (iv.state < 0 || (size_t) iv.state >= nstates)
        continue;
      an_sched_state_t *a = &acc[iv.state];
      an_sched_split_t sp;
      an_sched_thread_split (th, iv.start, iv.end, &sp);
      a->count++;
      a->time += iv.end - iv.start;
      an_sched_split_add (&a->sp, &sp);
    }
  if (rc < 0)
    keep_error (err, rc, logfmt_interval_iter_error (it),
                "cannot read states");
  logfmt_interval_iter_free (it);
  return rc < 0 ? rc : 0;
}

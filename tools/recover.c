/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clogtool recover: rebuilds a .clog file from the spill files that the
 * processes of a crashed MPE run left behind (format: docs/SPILL-FORMAT.md,
 * read with libspillfmt).
 *
 *   clogtool recover [-o OUT.clog] [--run ID] DIR | PREFIX
 *
 * DIR: the newest run among DIR/mpe-<run>-<rank>-<pid>.spill (or --run).
 * PREFIX: every spill file whose path starts with PREFIX.
 * Times are corrected with the clock sync points each rank recorded, by
 * the merge's own arithmetic and origin (libspillfmt), so the files a
 * finished run kept rebuild its log exactly; messages are matched by the
 * merge's own rule (mpe_spill_match), at any size.
 * Prints what was recovered and what is missing.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <logfmt/logfmt.h>
#include "clogtool.h"
#include "clogtool-internal.h"
#include "spillfmt.h"

typedef struct
{
  uint16_t type, thread;
  uint32_t len;
  uint64_t off;
} frame_t;

typedef struct
{
  char     *path;
  FILE     *f;
  int       ended, failed, saved, have_meta;
  unsigned  gaps;     /* threads whose unspilled events were lost */
  uint64_t  counters; /* counter readings recovered */
  mpe_spill_meta_t m;
  frame_t  *frames;
  size_t    nframes;
  int64_t  *sync_l, *sync_off;
  int       nsync;
  mpe_spill_clock_t clock;
  int       nthreads;
  uint32_t  first_stream;
  uint64_t  events, raw_events, ring_events, bad_frames;
} spill_t;

static void
usage (FILE *out)
{
  fprintf (out,
           "usage: clogtool recover [-o OUT.clog] [--run ID] [--clean] "
           "DIR|PREFIX\n"
           "       clogtool recover --list [DIR]\n"
           "Rebuilds a .clog from the local spill files of a crashed MPE run.\n"
           "  DIR     directory holding mpe-<run>-<rank>-<pid>.spill files\n"
           "          (the newest run, or the one given with --run)\n"
           "  PREFIX  every spill file whose path starts with PREFIX\n"
           "  -o, --output FILE  output (default: recovered.clog); \"-\" is\n"
           "          standard output (the report then goes to stderr)\n"
           "  --clean once OUT is written, remove the spill files and the\n"
           "          ring files (in /dev/shm by default) they point to\n"
           "  --list  the runs whose local files are in DIR (default: as\n"
           "          libmpe, $MPE_TMPDIR, $TMPDIR, $TMP, $TEMP or /tmp), with\n"
           "          their state and the sizes of their spill and ring files\n");
}

static int
read_at (FILE *f, uint64_t off, void *buf, size_t len)
{
  return mpe_spill_read_file_cb (f, off, buf, len);
}

static int
add_sync (spill_t *s, int64_t l, int64_t off)
{
  int64_t *a = realloc (s->sync_l, (size_t) (s->nsync + 1) * sizeof *a);
  if (a)
    s->sync_l = a;
  int64_t *b = a ? realloc (s->sync_off, (size_t) (s->nsync + 1) * sizeof *b)
                 : NULL;
  if (!b)
    return -1;
  s->sync_off = b;
  /* Sorted by local time, as the logger keeps them. */
  if (s->nsync > 0 && l < s->sync_l[s->nsync - 1])
    l = s->sync_l[s->nsync - 1];
  s->sync_l[s->nsync] = l;
  s->sync_off[s->nsync] = off;
  s->nsync++;
  return 0;
}

static int
add_frame (spill_t *s, size_t *cap, const mpe_spill_frame_t *h, uint64_t at)
{
  if (s->nframes == *cap)
    {
      size_t nc = *cap ? 2 * *cap : 256;
      frame_t *nf = realloc (s->frames, nc * sizeof *nf);
      if (!nf)
        return -1;
      s->frames = nf;
      *cap = nc;
    }
  s->frames[s->nframes++] = (frame_t) { h->type, h->thread, h->len, at };
  return 0;
}

static void
ring_path (const spill_t *s, int thread, char *out, size_t len)
{
  snprintf (out, len, "%s.t%d%s", s->m.ring, thread, MPE_RING_SUFFIX);
}

/* Reads the frame list (the scanner skips damaged stretches). */
static int
scan_file (spill_t *s)
{
  s->f = fopen (s->path, "rb");
  if (!s->f)
    {
      fprintf (stderr, "clogtool recover: %s: %s\n", s->path, strerror (errno));
      return -1;
    }
  struct stat st;
  mpe_spill_scan_t sc;
  int rc = fstat (fileno (s->f), &st) == 0
           ? mpe_spill_scan_init (&sc, mpe_spill_read_file_cb, s->f,
                                  (uint64_t) st.st_size)
           : -1;
  if (rc != 0)
    {
      fprintf (stderr, "clogtool recover: %s: %s\n", s->path,
               rc == -2 ? "spill file of a newer version than this clogtool"
                        : "not an MPE spill file");
      return -1;
    }
  size_t cap = 0;
  mpe_spill_frame_t h;
  uint64_t at;
  while ((rc = mpe_spill_scan_next (&sc, &h, &at)) == 1)
    {
      int64_t l, off;
      if (h.type == MPE_SPILL_META)
        {
          mpe_spill_meta_parse (&s->m, sc.payload, h.len);
          s->have_meta = 1;
        }
      else if (h.type == MPE_SPILL_SYNC
               && mpe_spill_sync_parse (sc.payload, h.len, &l, &off) == 0)
        rc = add_sync (s, l, off);
      else if (h.type == MPE_SPILL_END)
        s->ended = 1;
      else if (h.type == MPE_SPILL_FAILED)
        s->failed = 1;
      else if (h.type == MPE_SPILL_SAVED)
        s->saved = 1;
      if (h.type == MPE_SPILL_BLOCK || h.type == MPE_SPILL_RAW
          || h.type == MPE_SPILL_PACKED)
        if (h.thread + 1 > s->nthreads)
          s->nthreads = h.thread + 1;
      if (rc < 0 || add_frame (s, &cap, &h, at) != 0)
        {
          rc = -1;
          break;
        }
    }
  s->bad_frames += sc.bad;
  mpe_spill_scan_free (&sc);
  if (rc < 0)
    {
      fprintf (stderr, "clogtool recover: %s: out of memory\n", s->path);
      return -1;
    }
  if (!s->have_meta)
    {
      fprintf (stderr, "clogtool recover: %s: no metadata frame\n", s->path);
      return -1;
    }
  /* Threads that never spilled have only a ring file. */
  if (!s->ended && s->m.ring[0])
    for (int t = 0; t < s->nthreads + 64; t++)
      {
        char rp[8192];
        ring_path (s, t, rp, sizeof rp);
        if (access (rp, R_OK) == 0 && t + 1 > s->nthreads)
          s->nthreads = t + 1;
      }
  if (s->nthreads == 0)
    s->nthreads = 1;
  s->clock = (mpe_spill_clock_t) { s->m.mono0, s->sync_l, s->sync_off,
                                   s->nsync, 0 };
  return 0;
}

static void
add_defs (logfmt_writer_t *w, spill_t *s)
{
  for (size_t i = 0; i < s->nframes; i++)
    {
      frame_t *fr = &s->frames[i];
      if (fr->type != MPE_SPILL_STATE && fr->type != MPE_SPILL_EVENT
          && fr->type != MPE_SPILL_COMM && fr->type != MPE_SPILL_METRIC)
        continue;
      char *t = malloc ((size_t) fr->len + 1);
      mpe_spill_def_t d;
      if (t && read_at (s->f, fr->off, t, fr->len) == 0)
        {
          t[fr->len] = '\0';
          if (mpe_spill_def_parse (fr->type, t, fr->len, &d) != 0)
            s->bad_frames++;
          else if (d.type == MPE_SPILL_COMM)
            logfmt_writer_add_comm (w, &d.comm);
          else if (d.type == MPE_SPILL_STATE)
            logfmt_writer_add_state (w, &d.state);
          else if (d.type == MPE_SPILL_METRIC)
            logfmt_writer_add_metric (w, &d.metric);
          else
            logfmt_writer_add_event_def (w, &d.event);
        }
      free (t);
    }
}

/* Receives one thread's events in batches, times in local ns; returns
 * non-zero to stop. */
typedef int (*batch_cb) (void *user, logfmt_event_t *ev, size_t n);

/* What a thread's spilled events end with: the ring's copies of them are
 * skipped (a spill cut short, or the crash handler's RAW frames).  A ring
 * record older than the last spilled event is a copy; one at the same
 * time only if it is one of the events spilled at that time: the clock
 * can give the first record of a new round (the flush's 560) the time of
 * the last record spilled before it, and it must not be taken for a copy
 * of it. */
enum { SPILLED_AT_LAST = 64 };
typedef struct
{
  int      any;
  uint64_t last;      /* local ns of the last event */
  size_t   at_last;   /* events with that time (those kept below) */
  struct { int32_t id; uint8_t type; } ev[SPILLED_AT_LAST];
} spilled_t;

static void
note_spilled (spilled_t *sp, const logfmt_event_t *ev, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      if (!sp->any || ev[i].time > sp->last)
        {
          sp->any = 1;
          sp->last = ev[i].time;
          sp->at_last = 0;
        }
      else if (ev[i].time < sp->last)
        continue;
      if (sp->at_last < SPILLED_AT_LAST)
        {
          sp->ev[sp->at_last].id = ev[i].id;
          sp->ev[sp->at_last].type = ev[i].type;
          sp->at_last++;
        }
    }
}

/* Whether ring event e is a copy of a spilled one; a copy at the last
 * time is matched once. */
static int
ring_copy (spilled_t *sp, const logfmt_event_t *e)
{
  if (!sp->any || e->time > sp->last)
    return 0;
  if (e->time < sp->last)
    return 1;
  for (size_t j = 0; j < sp->at_last; j++)
    if (sp->ev[j].id == e->id && sp->ev[j].type == e->type)
      {
        sp->ev[j] = sp->ev[--sp->at_last];
        return 1;
      }
  return 0;
}

/* Passes on the n events of batch that are not copies of spilled ones
 * (or, with `note`, of ring events before them: a frame area's events
 * may be in the records after it too). */
static int
ring_pass (spill_t *s, spilled_t *sp, logfmt_event_t *batch, size_t n,
           int note, int count, batch_cb cb, void *user)
{
  size_t keep = 0;
  for (size_t i = 0; i < n; i++)
    if (!ring_copy (sp, &batch[i]))
      batch[keep++] = batch[i];
  if (note)
    note_spilled (sp, batch, keep);
  if (!keep)
    return 0;
  if (count)
    s->ring_events += keep;
  return cb (user, batch, keep);
}

/* Passes what thread's ring file holds beyond the spilled events. */
static int
ring_batches (spill_t *s, int thread, int count, spilled_t *sp,
              logfmt_event_t *batch, batch_cb cb, void *user)
{
  if (s->ended || !s->m.ring[0])
    return 0;
  char path[8192];
  ring_path (s, thread, path, sizeof path);
  FILE *f = fopen (path, "rb");
  if (!f)
    return 0;
  struct stat st;
  mpe_ring_t ring;
  int lr = fstat (fileno (f), &st) == 0
           ? mpe_ring_load (&ring, mpe_spill_read_file_cb, f,
                            (uint64_t) st.st_size)
           : -1;
  fclose (f);
  if (lr == -2)
    return LOGFMT_ENOMEM;
  if (lr != 0 && !count)
    return 0;
  if (lr != 0)
    {
      fprintf (stderr, "clogtool recover: %s: not a usable ring file\n", path);
      s->bad_frames++;
      return 0;
    }
  int rc = 0;
  /* Packed write-behind's frame areas, older first: frames not yet
   * spilled, copies of the last spilled ones where a spill was under
   * way. */
  for (int a = 0; a < 2 && rc == 0; a++)
    {
      if (!ring.area_len[a])
        continue;
      mpe_spill_mem_t mem = { ring.area[a], ring.area_len[a] };
      mpe_spill_scan_t sc;
      mpe_spill_scan_area (&sc, mpe_spill_read_mem_cb, &mem, mem.len);
      mpe_spill_frame_t h;
      uint64_t at;
      int sr;
      while (rc == 0 && (sr = mpe_spill_scan_next (&sc, &h, &at)) == 1)
        {
          mpe_spill_events_t it;
          logfmt_error_t err;
          if (h.type != MPE_SPILL_PACKED
              || mpe_spill_events_init (&it, h.type, sc.payload, h.len,
                                        s->m.tick0, s->m.mult_fp, &err) != 0)
            continue;
          size_t n;
          while (rc == 0 && (n = mpe_spill_events_next (&it, batch, 4096)) > 0)
            rc = ring_pass (s, sp, batch, n, 1, count, cb, user);
          mpe_spill_events_free (&it);
        }
      if (sr < 0 && rc == 0)
        rc = LOGFMT_ENOMEM;
      if (count && sc.bad)
        {
          fprintf (stderr, "clogtool recover: %s: %llu damaged stretches of "
                   "frames skipped\n", path, (unsigned long long) sc.bad);
          s->bad_frames++;
        }
      mpe_spill_scan_free (&sc);
    }
  for (int p = 0; p < 2 && rc == 0; p++)
    {
      if (!ring.len[p])  /* part[p] may be NULL */
        continue;
      const mpe_spill_rec_t *r = ring.part[p], *end = r + ring.len[p];
      while (r < end && rc == 0)
        {
          size_t n = mpe_spill_recs_decode (&r, end, s->m.tick0,
                                            s->m.mult_fp, batch, 4096);
          rc = ring_pass (s, sp, batch, n, 0, count, cb, user);
        }
    }
  mpe_ring_free (&ring);
  return rc;
}

/* Every event of one thread, in order: the spilled frames, then its ring
 * file.  The counters are updated only when `count` is set. */
static int
thread_batches (spill_t *s, int thread, int count, batch_cb cb, void *user)
{
  spilled_t sp = { 0 };
  logfmt_event_t *batch = malloc (4096 * sizeof *batch);
  if (!batch)
    return LOGFMT_ENOMEM;
  int rc = 0;
  for (size_t i = 0; i < s->nframes && rc == 0; i++)
    {
      frame_t *fr = &s->frames[i];
      if (fr->thread != thread
          || (fr->type != MPE_SPILL_BLOCK && fr->type != MPE_SPILL_RAW
              && fr->type != MPE_SPILL_PACKED))
        continue;
      void *buf = malloc (fr->len ? fr->len : 1);
      mpe_spill_events_t it;
      logfmt_error_t err;
      if (!buf || read_at (s->f, fr->off, buf, fr->len) != 0)
        {
          free (buf);
          continue;
        }
      int ir = mpe_spill_events_init (&it, fr->type, buf, fr->len,
                                      s->m.tick0, s->m.mult_fp, &err);
      if (ir == -2)
        rc = LOGFMT_ENOMEM;
      else if (ir != 0 && count)
        {
          fprintf (stderr, "clogtool recover: %s: frame skipped: %s\n",
                   s->path, err.message);
          s->bad_frames++;
        }
      size_t n;
      while (ir == 0 && rc == 0 && (n = mpe_spill_events_next (&it, batch,
                                                               4096)) > 0)
        {
          if (count && fr->type == MPE_SPILL_RAW)
            s->raw_events += n;
          note_spilled (&sp, batch, n);
          rc = cb (user, batch, n);
        }
      if (ir == 0 && rc == 0 && count && mpe_spill_events_unread (&it))
        {
          fprintf (stderr, "clogtool recover: %s: %u packed events "
                   "unreadable\n", s->path, mpe_spill_events_unread (&it));
          s->bad_frames++;
        }
      if (ir == 0)
        mpe_spill_events_free (&it);
      free (buf);
    }
  if (rc == 0)
    rc = ring_batches (s, thread, count, &sp, batch, cb, user);
  free (batch);
  return rc < 0 ? rc : 0;
}

/* The origin (t = 0) is the earliest corrected event time of the run, as
 * in the merge; a thread's events are in time order, so its first batch
 * holds its earliest. */
typedef struct
{
  spill_t *s;
  int64_t  tmin;
} first_t;

static int
first_cb (void *user, logfmt_event_t *ev, size_t n)
{
  first_t *f = user;
  for (size_t i = 0; i < n; i++)
    {
      int64_t c = mpe_spill_clock_correct (&f->s->clock, ev[i].time);
      if (c < f->tmin)
        f->tmin = c;
    }
  return 1;  /* enough */
}

/* The run's message ends, matched once every stream is written, by the
 * merge's own rule (mpe_spill_match). */
typedef struct
{
  mpe_spill_mend_t *v;
  size_t            n, cap;
} mends_t;

static int
push_mend (mends_t *a, const mpe_spill_mend_t *m)
{
  if (a->n == a->cap)
    {
      size_t nc = a->cap ? 2 * a->cap : 4096;
      mpe_spill_mend_t *nv = realloc (a->v, nc * sizeof *nv);
      if (!nv)
        return LOGFMT_ENOMEM;
      a->v = nv;
      a->cap = nc;
    }
  a->v[a->n++] = *m;
  return 0;
}

typedef struct
{
  logfmt_writer_t *w;
  spill_t         *s;
  uint32_t         stream;
  int64_t          G;
  uint32_t         seq;
  mends_t         *sends, *recvs;
  uint64_t         last;     /* the last event's time */
  int              any;
  logfmt_track_rec_t *ctr;   /* the thread's counter readings, in order */
  size_t           nctr, ictr;
} emit_t;

/* The thread's counter readings (COUNTERS frames, written with the rest
 * of memory) as metric track records with corrected times; 0 or
 * LOGFMT_ENOMEM. */
static int
load_counters (emit_t *e, int thread)
{
  spill_t *s = e->s;
  size_t cap = 0;
  uint64_t newest = 0;  /* a frame written twice (a crash during a flush)
                           repeats older readings: skipped */
  for (size_t i = 0; i < s->nframes; i++)
    {
      frame_t *fr = &s->frames[i];
      if (fr->type != MPE_SPILL_COUNTERS || fr->thread != thread)
        continue;
      size_t n = fr->len / sizeof (mpe_spill_ctr_t);
      mpe_spill_ctr_t *r = malloc (n ? n * sizeof *r : 1);
      if (!r)
        return LOGFMT_ENOMEM;
      if (read_at (s->f, fr->off, r, n * sizeof *r) != 0)
        {
          free (r);
          s->bad_frames++;
          continue;
        }
      if (e->nctr + n > cap)
        {
          size_t nc = cap ? 2 * cap : 1024;
          while (nc < e->nctr + n)
            nc *= 2;
          logfmt_track_rec_t *nv = realloc (e->ctr, nc * sizeof *nv);
          if (!nv)
            {
              free (r);
              return LOGFMT_ENOMEM;
            }
          e->ctr = nv;
          cap = nc;
        }
      for (size_t k = 0; k < n; k++)
        {
          if (r[k].t < newest)
            continue;
          newest = r[k].t;
          int64_t c = mpe_spill_clock_correct (
            &s->clock, (int64_t) mpe_spill_tick_ns (r[k].t, s->m.tick0,
                                                    s->m.mult_fp));
          int64_t t = mpe_spill_add (c, -e->G);
          logfmt_track_rec_t *x = &e->ctr[e->nctr++];
          memset (x, 0, sizeof *x);
          x->time = t < 0 ? 0 : (uint64_t) t;
          x->col[LOGFMT_METRIC_COL_ID] = r[k].id;
          x->col[LOGFMT_METRIC_COL_OBJECT] = -1;
          x->col[LOGFMT_METRIC_COL_VALUE] = r[k].v;
        }
      free (r);
    }
  return 0;
}

/* Counter readings up to `until` join the metric track, in time order
 * with the thread's metric samples (as the merge puts them). */
static int
put_counters (emit_t *e, uint64_t until)
{
  size_t from = e->ictr;
  while (e->ictr < e->nctr && e->ctr[e->ictr].time <= until)
    e->ictr++;
  return e->ictr > from
         ? logfmt_writer_track_add (e->w, e->stream, LOGFMT_TRACK_METRIC,
                                    e->ctr + from, e->ictr - from)
         : 0;
}

static int
emit_cb (void *user, logfmt_event_t *ev, size_t n)
{
  emit_t *e = user;
  for (size_t i = 0; i < n; i++)
    {
      int64_t c = mpe_spill_clock_correct (&e->s->clock, ev[i].time);
      int64_t t = mpe_spill_add (c, -e->G);
      ev[i].time = t < 0 ? 0 : (uint64_t) t;
      if (ev[i].type == LOGFMT_REC_SEND || ev[i].type == LOGFMT_REC_RECV)
        {
          int send = ev[i].type == LOGFMT_REC_SEND;
          mpe_spill_mend_t m = {
            .src = send ? e->s->m.rank : ev[i].partner,
            .dst = send ? ev[i].partner : e->s->m.rank,
            .comm = ev[i].comm, .tag = ev[i].tag, .t = c,
            .size = ev[i].size, .stream = e->stream, .seq = e->seq++,
          };
          int rc = push_mend (send ? e->sends : e->recvs, &m);
          if (rc)
            return rc;
        }
    }
  /* Metric samples go to the stream's extension track (FORMAT.md
   * section 14), the rest to its blocks. */
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (ev[i].type == MPE_SPILL_EV_METRIC)
        {
          logfmt_track_rec_t r;
          mpe_spill_ev_metric_rec (&ev[i], &r);
          int rc = put_counters (e, ev[i].time);
          if (rc)
            return rc;
          rc = logfmt_writer_track_add (e->w, e->stream,
                                        LOGFMT_TRACK_METRIC, &r, 1);
          if (rc)
            return rc;
          continue;
        }
      ev[k++] = ev[i];
    }
  e->s->events += k;
  if (k)
    {
      e->any = 1;
      e->last = ev[k - 1].time;
    }
  return k ? logfmt_writer_event (e->w, e->stream, ev, k) : 0;
}

/* Whether thread's records that were only in memory are lost: its
 * process neither finished nor saved its memory (a crash handler), and
 * there is no ring file to read them from (MPE_RING_DIR=none, a ring
 * that could not be made, or one removed since). */
static int
memory_lost (const spill_t *s, int thread)
{
  if (s->ended || s->failed || s->saved)
    return 0;
  if (!s->m.ring[0])
    return 1;
  char rp[8192];
  ring_path (s, thread, rp, sizeof rp);
  return access (rp, R_OK) != 0;
}

/* The events after a thread's last spilled one are lost, how many is
 * unknown: a LOSS record of 1 (at least one, as a killed thread that was
 * logging had) marks the place, so the log does not claim to be whole. */
static int
mark_gap (emit_t *e)
{
  logfmt_event_t loss;
  memset (&loss, 0, sizeof loss);
  loss.time = e->any ? e->last : 0;
  loss.type = LOGFMT_REC_LOSS;
  loss.state = -1;
  loss.size = 1;
  e->s->gaps++;
  return logfmt_writer_event (e->w, e->stream, &loss, 1);
}

/* Pairs the run's sends and receives as the merge does (a send to a rank
 * outside the run stays unmatched) and writes the message table; times
 * relative to the origin G. */
static int
put_messages (logfmt_writer_t *w, mends_t *sends, mends_t *recvs, int64_t G)
{
  size_t n;
  mpe_spill_match_t *mt = mpe_spill_match (sends->v, sends->n, recvs->v,
                                           recvs->n, &n);
  if (!mt)
    return LOGFMT_ENOMEM;
  logfmt_message_t *msgs = (logfmt_message_t *) mt;
  for (size_t i = 0; i < n; i++)
    {
      logfmt_message_t x = mt[i].m;
      if (x.send_stream != LOGFMT_NO_STREAM)
        {
          int64_t t = mpe_spill_add (mt[i].ts, -G);
          x.send_time = t < 0 ? 0 : (uint64_t) t;
        }
      if (x.recv_stream != LOGFMT_NO_STREAM)
        {
          int64_t t = mpe_spill_add (mt[i].tr, -G);
          x.recv_time = t < 0 ? 0 : (uint64_t) t;
        }
      msgs[i] = x;  /* compacted in place: msgs[i] ends before mt[i + 1] */
    }
  int rc = logfmt_writer_put_messages (w, msgs, n);
  free (mt);
  return rc;
}

/* The record families that were on and lived in process memory until
 * the finish: a rank that did not finish has none of them here. */
/* Where the report goes: stderr when the log itself is on stdout. */
static FILE *report;

static void
print_memonly (const spill_t *files, size_t n)
{
  static const struct { const char *key, *what; } fam[] = {
    { "samples", "call-path samples and call sites (MPE_SAMPLE_HZ)" },
    { "sched", "scheduling tracks (MPE_SCHED)" },
    { "memory", "memory tracks (MPE_MEMORY)" },
    { "network", "NIC tracks (MPE_NETWORK)" },
  };
  int first = 1;
  for (size_t k = 0; k < sizeof fam / sizeof fam[0]; k++)
    {
      int lost = 0;
      for (size_t i = 0; i < n && !lost; i++)
        {
          char list[sizeof files[i].m.memonly + 2];
          snprintf (list, sizeof list, ",%s,", files[i].m.memonly);
          char key[32];
          snprintf (key, sizeof key, ",%s,", fam[k].key);
          lost = !files[i].ended && strcmp (files[i].m.memonly, "none")
                 && strstr (list, key) != NULL;
        }
      if (!lost)
        continue;
      fprintf (report, "%s%s", first ? "not recoverable (kept in process "
                                       "memory until the merge, which the "
                                       "ranks that did not finish never "
                                       "completed): " : ", ",
               fam[k].what);
      first = 0;
    }
  if (!first)
    fprintf (report, "\n");
}

static int
cmp_rank (const void *a, const void *b)
{
  const spill_t *x = a, *y = b;
  return x->m.rank != y->m.rank ? (x->m.rank < y->m.rank ? -1 : 1)
         : (x->m.pid < y->m.pid ? -1 : x->m.pid > y->m.pid);
}

/* Extracts the run id from ".../mpe-<run>-<rank>-<pid>.spill". */
static int
run_of (const char *name, char *run, size_t len)
{
  size_t pl = strlen (MPE_SPILL_NAME_PREFIX), sl = strlen (MPE_SPILL_NAME_SUFFIX);
  size_t nl = strlen (name);
  if (nl <= pl + sl || strncmp (name, MPE_SPILL_NAME_PREFIX, pl) != 0
      || strcmp (name + nl - sl, MPE_SPILL_NAME_SUFFIX) != 0)
    return -1;
  const char *dash = strchr (name + pl, '-');
  if (!dash || (size_t) (dash - name - pl) >= len)
    return -1;
  memcpy (run, name + pl, (size_t) (dash - name - pl));
  run[dash - name - pl] = '\0';
  return 0;
}

/* ---- --list --------------------------------------------------------- */

typedef struct
{
  char     run[64];
  int      files, world, ended, failed, alive;
  unsigned rings;
  uint64_t spill_bytes, ring_bytes;
  time_t   newest;
} run_info_t;

/* The type of an empty frame closing the file (END, FAILED), else 0. */
static int
tail_type (FILE *f, uint64_t size)
{
  mpe_spill_frame_t h;
  if (size < MPE_SPILL_HEADER_SIZE + sizeof h
      || read_at (f, size - sizeof h, &h, sizeof h) != 0)
    return 0;
  return h.magic == MPE_SPILL_FRAME_MAGIC && h.len == 0 ? h.type : 0;
}

/* Adds spill file path (a run's, its META read) to ri. */
static void
list_file (run_info_t *ri, const char *path)
{
  FILE *f = fopen (path, "rb");
  struct stat st;
  if (!f || fstat (fileno (f), &st) != 0)
    {
      if (f)
        fclose (f);
      return;
    }
  ri->files++;
  ri->spill_bytes += (uint64_t) st.st_size;
  if (st.st_mtime > ri->newest)
    ri->newest = st.st_mtime;
  int tt = tail_type (f, (uint64_t) st.st_size);
  ri->ended += tt == MPE_SPILL_END;
  ri->failed += tt == MPE_SPILL_FAILED;
  mpe_spill_scan_t sc;
  mpe_spill_frame_t h;
  uint64_t at;
  mpe_spill_meta_t m;
  memset (&m, 0, sizeof m);
  if (mpe_spill_scan_init (&sc, mpe_spill_read_file_cb, f,
                           (uint64_t) st.st_size) == 0)
    {
      /* META is the first frame a process writes. */
      if (mpe_spill_scan_next (&sc, &h, &at) == 1 && h.type == MPE_SPILL_META)
        mpe_spill_meta_parse (&m, sc.payload, h.len);
      mpe_spill_scan_free (&sc);
    }
  fclose (f);
  if (m.size > ri->world)
    ri->world = m.size;
  if (m.pid > 0 && (kill ((pid_t) m.pid, 0) == 0 || errno == EPERM))
    ri->alive++;
  for (int t = 0; m.ring[0] && t < 256; t++)
    {
      char rp[8192];
      struct stat rs;
      snprintf (rp, sizeof rp, "%s.t%d%s", m.ring, t, MPE_RING_SUFFIX);
      if (stat (rp, &rs) == 0)
        {
          ri->rings++;
          ri->ring_bytes += (uint64_t) rs.st_blocks * 512;
        }
    }
}

static int
cmp_newest (const void *a, const void *b)
{
  const run_info_t *x = a, *y = b;
  return x->newest != y->newest ? (x->newest < y->newest ? -1 : 1)
                                : strcmp (x->run, y->run);
}

static int
list_runs (const char *dir)
{
  DIR *d = opendir (dir);
  if (!d)
    {
      fprintf (stderr, "clogtool recover: %s: %s\n", dir, strerror (errno));
      return 1;
    }
  run_info_t *runs = NULL;
  size_t nruns = 0;
  struct dirent *de;
  int rc = 0;
  while ((de = readdir (d)))
    {
      char run[64], path[8192];
      if (run_of (de->d_name, run, sizeof run) != 0)
        continue;
      size_t i;
      for (i = 0; i < nruns && strcmp (runs[i].run, run) != 0; i++)
        ;
      if (i == nruns)
        {
          run_info_t *nr = realloc (runs, (nruns + 1) * sizeof *runs);
          if (!nr)
            {
              rc = 1;
              break;
            }
          runs = nr;
          memset (&runs[nruns], 0, sizeof runs[nruns]);
          snprintf (runs[nruns].run, sizeof runs[nruns].run, "%s", run);
          nruns++;
        }
      snprintf (path, sizeof path, "%s/%s", dir, de->d_name);
      list_file (&runs[i], path);
    }
  closedir (d);
  if (rc)
    {
      fprintf (stderr, "clogtool recover: out of memory\n");
      free (runs);
      return 1;
    }
  if (nruns == 0)
    {
      printf ("no MPE local files (%s*%s) in %s\n", MPE_SPILL_NAME_PREFIX,
              MPE_SPILL_NAME_SUFFIX, dir);
      free (runs);
      return 0;
    }
  qsort (runs, nruns, sizeof *runs, cmp_newest);
  printf ("%-16s  %-7s  %-28s  %10s  %-22s  %s\n", "RUN", "RANKS", "STATE",
          "SPILL", "RING FILES (memory)", "LAST WRITTEN");
  uint64_t spill = 0, ring = 0;
  for (size_t i = 0; i < nruns; i++)
    {
      run_info_t *r = &runs[i];
      const char *state = r->alive ? "running"
                          : r->ended == r->files ? "finished, files kept"
                          : r->failed ? "finished, log not written"
                                      : "did not finish";
      char ranks[32], rings[64], when[32];
      snprintf (ranks, sizeof ranks, "%d/%d", r->files, r->world);
      snprintf (rings, sizeof rings, "%u, %.1f MB", r->rings,
                (double) r->ring_bytes / 1048576.0);
      struct tm tm;
      localtime_r (&r->newest, &tm);
      strftime (when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
      printf ("%-16s  %-7s  %-28s  %7.1f MB  %-22s  %s\n", r->run, ranks,
              state, (double) r->spill_bytes / 1048576.0, rings, when);
      spill += r->spill_bytes;
      ring += r->ring_bytes;
    }
  printf ("%zu run(s): %.1f MB of spill files in %s, %.1f MB of ring "
          "files\n", nruns, (double) spill / 1048576.0, dir,
          (double) ring / 1048576.0);
  printf ("rebuild a run's log: clogtool recover --run RUN [-o OUT.clog] %s"
          " (--clean also removes its files)\n", dir);
  free (runs);
  return 0;
}

int
clogtool_recover_main (int argc, char **argv)
{
  const char *out = "recovered.clog", *src = NULL, *want_run = NULL;
  int clean = 0, list = 0;
  for (int i = 1; i < argc; i++)
    {
      if (!strcmp (argv[i], "-h") || !strcmp (argv[i], "--help"))
        {
          usage (stdout);
          return 0;
        }
      else if ((!strcmp (argv[i], "-o") || !strcmp (argv[i], "--output"))
               && i + 1 < argc)
        out = argv[++i];
      else if (!strncmp (argv[i], "--output=", 9))
        out = argv[i] + 9;
      else if (!strcmp (argv[i], "--run") && i + 1 < argc)
        want_run = argv[++i];
      else if (!strcmp (argv[i], "--clean"))
        clean = 1;
      else if (!strcmp (argv[i], "--list"))
        list = 1;
      else if (argv[i][0] == '-' && argv[i][1])
        {
          fprintf (stderr, "clogtool recover: unknown option %s\n", argv[i]);
          usage (stderr);
          return 2;
        }
      else if (!src)
        src = argv[i];
      else
        {
          usage (stderr);
          return 2;
        }
    }
  if (list)
    return list_runs (src ? src : mpe_spill_default_dir ());
  if (!src)
    {
      usage (stderr);
      return 2;
    }

  /* Collect the files. */
  struct stat st;
  int is_dir = stat (src, &st) == 0 && S_ISDIR (st.st_mode);
  char *dcopy = strdup (src), *bcopy = strdup (src);
  const char *dir = is_dir ? src : dirname (dcopy);
  const char *base = is_dir ? "" : basename (bcopy);
  DIR *d = opendir (dir);
  if (!d)
    {
      fprintf (stderr, "clogtool recover: %s: %s\n", dir, strerror (errno));
      return 1;
    }
  char best_run[64] = "";
  time_t best_time = 0;
  struct dirent *de;
  if (is_dir && !want_run)
    {
      while ((de = readdir (d)))
        {
          char run[64], path[8192];
          if (run_of (de->d_name, run, sizeof run) != 0)
            continue;
          snprintf (path, sizeof path, "%s/%s", dir, de->d_name);
          if (stat (path, &st) == 0 && st.st_mtime >= best_time)
            {
              best_time = st.st_mtime;
              snprintf (best_run, sizeof best_run, "%s", run);
            }
        }
      rewinddir (d);
    }
  else if (want_run)
    snprintf (best_run, sizeof best_run, "%s", want_run);
  spill_t *files = NULL;
  size_t nfiles = 0;
  while ((de = readdir (d)))
    {
      char run[64];
      if (run_of (de->d_name, run, sizeof run) != 0)
        continue;
      if (is_dir || want_run ? strcmp (run, best_run) != 0
                             : strncmp (de->d_name, base, strlen (base)) != 0)
        continue;
      spill_t *nf = realloc (files, (nfiles + 1) * sizeof *files);
      if (!nf)
        break;
      files = nf;
      memset (&files[nfiles], 0, sizeof files[nfiles]);
      size_t pl = strlen (dir) + strlen (de->d_name) + 2;
      files[nfiles].path = malloc (pl);
      snprintf (files[nfiles].path, pl, "%s/%s", dir, de->d_name);
      nfiles++;
    }
  closedir (d);
  free (dcopy);
  free (bcopy);
  if (nfiles == 0)
    {
      fprintf (stderr, "clogtool recover: no MPE spill files (%s*%s) found "
               "for %s\n", MPE_SPILL_NAME_PREFIX, MPE_SPILL_NAME_SUFFIX, src);
      return 1;
    }

  size_t good = 0;
  for (size_t i = 0; i < nfiles; i++)
    if (scan_file (&files[i]) == 0)
      files[good++] = files[i];
    else if (files[i].f)
      fclose (files[i].f);
  nfiles = good;
  if (nfiles == 0)
    return 1;
  qsort (files, nfiles, sizeof *files, cmp_rank);

  int world = 0;
  int64_t G = INT64_MAX;
  uint32_t next_stream = 0;
  for (size_t i = 0; i < nfiles; i++)
    {
      if (files[i].m.size > world)
        world = files[i].m.size;
      first_t f = { &files[i], INT64_MAX };
      for (int t = 0; t < files[i].nthreads; t++)
        thread_batches (&files[i], t, 0, first_cb, &f);
      if (f.tmin < G)
        G = f.tmin;
      files[i].first_stream = next_stream;
      next_stream += (uint32_t) files[i].nthreads;
    }
  if (G == INT64_MAX)  /* no events at all: the merge's rule too */
    G = mpe_spill_clock_correct (&files[0].clock, 0);

  logfmt_writer_opts_t wo;
  memset (&wo, 0, sizeof wo);
  wo.size = sizeof wo;
  wo.match_messages = 0;  /* put_messages: the merge's matching */
  wo.creator = "clogtool recover";
  wo.world_size = (uint32_t) world;
  wo.origin_unix_ns = files[0].m.real0 - files[0].m.mono0 + G;
  logfmt_writer_t *w;
  logfmt_error_t err;
  /* The writer seeks: "-" goes through a temporary file. */
  char tmp[PATH_MAX];
  const char *path = clogtool__out_begin (out, tmp);
  if (!path)
    return 1;
  if (logfmt_writer_open (path, &wo, &w, &err) != 0)
    {
      fprintf (stderr, "clogtool recover: %s\n", err.message);
      clogtool__out_end (out, path, 0);
      return 1;
    }
  for (size_t i = 0; i < nfiles; i++)
    add_defs (w, &files[i]);
  for (size_t i = 0; i < nfiles; i++)
    for (int t = 0; t < files[i].nthreads; t++)
      {
        logfmt_stream_def_t sd = { files[i].m.rank, t, files[i].m.host };
        uint32_t got;
        logfmt_writer_add_stream (w, &sd, &got);
      }
  int rc = 0;
  mends_t sends = { 0 }, recvs = { 0 };
  for (size_t i = 0; i < nfiles && rc == 0; i++)
    for (int t = 0; t < files[i].nthreads && rc == 0; t++)
      {
        emit_t e = { w, &files[i], files[i].first_stream + (uint32_t) t, G,
                     0, &sends, &recvs, 0, 0, NULL, 0, 0 };
        rc = load_counters (&e, t);
        if (rc == 0)
          rc = thread_batches (&files[i], t, 1, emit_cb, &e);
        if (rc == 0)
          rc = put_counters (&e, UINT64_MAX);
        files[i].counters += e.nctr;
        free (e.ctr);
        if (rc == 0 && memory_lost (&files[i], t))
          rc = mark_gap (&e);
      }
  if (rc == 0)
    rc = put_messages (w, &sends, &recvs, G);
  free (sends.v);
  free (recvs.v);
  if (rc != 0)
    {
      fprintf (stderr, "clogtool recover: writing %s: %s\n", out,
               logfmt_strerror (rc));
      logfmt_writer_abort (w);
      clogtool__out_end (out, path, 0);
      return 1;
    }
  if (logfmt_writer_finish (w, &err) != 0)
    {
      fprintf (stderr, "clogtool recover: %s\n", err.message);
      clogtool__out_end (out, path, 0);
      return 1;
    }
  if (clogtool__out_end (out, path, 1) < 0)
    return 1;
  report = path == out ? stdout : stderr;

  /* Report. */
  uint64_t total = 0;
  for (size_t i = 0; i < nfiles; i++)
    {
      spill_t *s = &files[i];
      fprintf (report, "rank %d (pid %ld on %s): %" PRIu64 " events, %d "
               "thread(s)%s%s", s->m.rank, s->m.pid, s->m.host, s->events,
               s->nthreads,
               s->ended ? ", finished normally"
               : s->failed ? ", finished but its log could not be written"
                           : ", did not finish (crashed or killed)",
               s->raw_events ? " - in-memory events saved at exit" : "");
      if (s->ring_events)
        fprintf (report, ", %" PRIu64 " taken from its ring file(s)",
                 s->ring_events);
      if (s->bad_frames)
        fprintf (report, ", %" PRIu64 " damaged frame(s) skipped",
                 s->bad_frames);
      if (s->counters)
        fprintf (report, ", %" PRIu64 " counter readings", s->counters);
      if (s->gaps)
        fprintf (report, ", its unspilled events were in memory only (no "
                 "ring file%s) and are lost: a LOSS record marks the gap on "
                 "%u thread(s)", s->m.ring[0] ? "" : "s, MPE_RING_DIR=none",
                 s->gaps);
      fprintf (report, "\n");
      total += s->events;
      fclose (s->f);
    }
  for (int r = 0; r < world; r++)
    {
      int found = 0;
      for (size_t i = 0; i < nfiles; i++)
        found |= files[i].m.rank == r;
      if (!found)
        fprintf (report, "rank %d: missing (no spill file)\n", r);
    }
  fprintf (report, "wrote %s: %" PRIu64 " events from %zu of %d ranks\n",
           out, total, nfiles, world);
  print_memonly (files, nfiles);
  if (clean)
    for (size_t i = 0; i < nfiles; i++)
      {
        unlink (files[i].path);
        for (int t = 0; files[i].m.ring[0] && t < files[i].nthreads + 64; t++)
          {
            char rp[8192];
            ring_path (&files[i], t, rp, sizeof rp);
            unlink (rp);
          }
      }
  for (size_t i = 0; i < nfiles; i++)
    {
      free (files[i].path);
      free (files[i].frames);
      free (files[i].sync_l);
      free (files[i].sync_off);
    }
  free (files);
  return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <gio/gio.h>
#include <logfmt/logfmt.h>

#include "anim-replay.h"

#define HIST_LINES 16

typedef struct
{
  guint64 *t;       /* times of state changes */
  gint32  *top;     /* innermost state after each change, -1 for none */
  gsize    n;
  gint32   stream;  /* stream for history, -1 if the rank has none */
} RankTrack;

typedef struct
{
  guint64 t0, t1;   /* send (or receive) time, receive time */
  gint32  src, dst;
  guint64 bytes;
} Msg;

struct AnimReplay
{
  logfmt_reader_t *r;
  guint64     t_first, t_last;
  int         nprocs;
  RankTrack  *ranks;
  Msg        *msgs;
  guint64    *prefix_end;  /* max t1 over msgs[0..i] */
  gsize       nmsgs;
  guint32    *rgb;
  guint8     *state_used;  /* per state index: it occurs in the log */
  AnimLegendItem *legend;
  int         nlegend;
  AnimDotView *views;
  gsize       nviews_cap;
  char        status[200];
  char        info_buf[HIST_LINES + 1][112];
  const char *info[HIST_LINES + 1];
};

static int
cmp_msg (const void *a, const void *b)
{
  const Msg *x = a, *y = b;
  return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

static gboolean
load_tracks (AnimReplay *rp, GError **error)
{
  const logfmt_info_t *info = logfmt_reader_info (rp->r);
  for (guint32 s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (rp->r, s);
      if (!sd || sd->rank < 0 || sd->rank >= rp->nprocs || sd->thread != 0)
        continue;
      RankTrack *tr = &rp->ranks[sd->rank];
      tr->stream = (gint32) s;
      GArray *ts = g_array_new (FALSE, FALSE, sizeof (guint64));
      GArray *tops = g_array_new (FALSE, FALSE, sizeof (gint32));
      /* The innermost open state, by the rule every tool shares
       * (FORMAT.md section 13). */
      logfmt_state_tracker_t *nest = NULL;
      logfmt_iter_t *it = NULL;
      int rc = logfmt_state_tracker_new (logfmt_reader_n_states (rp->r), s,
                                         &nest);
      if (rc == 0)
        rc = logfmt_iter_new (rp->r, s, 0, UINT64_MAX, &it);
      if (rc < 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s",
                       logfmt_strerror (rc));
          logfmt_state_tracker_free (nest);
          g_array_free (ts, TRUE);
          g_array_free (tops, TRUE);
          return FALSE;
        }
      logfmt_event_t ev;
      while ((rc = logfmt_iter_next (it, &ev)) == 1)
        {
          int step = logfmt_state_tracker_apply (nest, &ev, NULL, NULL);
          if (step != LOGFMT_STEP_OPENED && step != LOGFMT_STEP_CLOSED)
            continue;
          guint32 depth = logfmt_state_tracker_depth (nest);
          gint32 top = depth == 0 ? -1
                       : logfmt_state_tracker_open (nest, depth - 1)->state;
          g_array_append_val (ts, ev.time);
          g_array_append_val (tops, top);
          if (top >= 0 && (size_t) top < logfmt_reader_n_states (rp->r))
            rp->state_used[top] = 1;
        }
      logfmt_state_tracker_free (nest);
      if (rc < 0)
        {
          const logfmt_error_t *e = logfmt_iter_error (it);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s",
                       e && e->message[0] ? e->message : logfmt_strerror (rc));
          logfmt_iter_free (it);
          g_array_free (ts, TRUE);
          g_array_free (tops, TRUE);
          return FALSE;
        }
      logfmt_iter_free (it);
      tr->n = ts->len;
      tr->t = (guint64 *) g_array_free (ts, FALSE);
      tr->top = (gint32 *) g_array_free (tops, FALSE);
    }
  return TRUE;
}

static gboolean
load_msgs (AnimReplay *rp, GError **error)
{
  logfmt_msg_iter_t *it;
  int rc = logfmt_msg_iter_new (rp->r, 0, UINT64_MAX, &it);
  if (rc < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s",
                   logfmt_strerror (rc));
      return FALSE;
    }
  GArray *a = g_array_new (FALSE, FALSE, sizeof (Msg));
  logfmt_message_t m;
  while ((rc = logfmt_msg_iter_next (it, &m)) == 1)
    {
      if (m.send_rank < 0 || m.send_rank >= rp->nprocs || m.recv_rank < 0
          || m.recv_rank >= rp->nprocs)
        continue;
      Msg x = { .src = m.send_rank, .dst = m.recv_rank, .bytes = m.size };
      gboolean hs = m.send_stream != LOGFMT_NO_STREAM;
      gboolean hr = m.recv_stream != LOGFMT_NO_STREAM;
      if (!hs && !hr)
        continue;
      x.t0 = hs ? m.send_time : m.recv_time;
      x.t1 = hr ? m.recv_time : x.t0;
      if (x.t1 < x.t0)
        x.t1 = x.t0;  /* clock skew: show it as instant */
      g_array_append_val (a, x);
    }
  if (rc < 0)
    {
      const logfmt_error_t *e = logfmt_msg_iter_error (it);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s",
                   e && e->message[0] ? e->message : logfmt_strerror (rc));
      logfmt_msg_iter_free (it);
      g_array_free (a, TRUE);
      return FALSE;
    }
  logfmt_msg_iter_free (it);
  qsort (a->data, a->len, sizeof (Msg), cmp_msg);
  rp->nmsgs = a->len;
  rp->msgs = (Msg *) g_array_free (a, FALSE);
  rp->prefix_end = g_new (guint64, rp->nmsgs ? rp->nmsgs : 1);
  guint64 mx = 0;
  for (gsize i = 0; i < rp->nmsgs; i++)
    {
      if (rp->msgs[i].t1 > mx)
        mx = rp->msgs[i].t1;
      rp->prefix_end[i] = mx;
    }
  return TRUE;
}

AnimReplay *
anim_replay_open (const char *path, GError **error)
{
  logfmt_error_t err = { 0 };
  logfmt_reader_t *r = NULL;
  int rc = logfmt_reader_open (path, LOGFMT_OPEN_NOVERIFY, &r, &err);
  if (rc < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s",
                   err.message[0] ? err.message : logfmt_strerror (rc));
      return NULL;
    }
  AnimReplay *rp = g_new0 (AnimReplay, 1);
  rp->r = r;
  const logfmt_info_t *info = logfmt_reader_info (r);
  rp->t_first = info->t_first;
  rp->t_last = info->t_last > info->t_first ? info->t_last : info->t_first;
  int n = (int) info->world_size;
  for (guint32 s = 0; s < info->nstreams; s++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      if (sd && sd->rank >= n && sd->rank < 1048576)
        n = sd->rank + 1;
    }
  if (n <= 0 || n > 1048576)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: no processes in the log", path);
      anim_replay_free (rp);
      return NULL;
    }
  rp->nprocs = n;
  rp->ranks = g_new0 (RankTrack, n);
  for (int i = 0; i < n; i++)
    rp->ranks[i].stream = -1;
  rp->rgb = g_new (guint32, n);
  size_t nst = logfmt_reader_n_states (r);
  rp->state_used = g_new0 (guint8, nst ? nst : 1);
  if (!load_tracks (rp, error) || !load_msgs (rp, error))
    {
      g_prefix_error (error, "%s: ", path);
      anim_replay_free (rp);
      return NULL;
    }
  /* The legend: the states the animation can show, in their order. */
  rp->legend = g_new0 (AnimLegendItem, nst ? nst : 1);
  for (size_t i = 0; i < nst; i++)
    if (rp->state_used[i])
      {
        const logfmt_state_def_t *sd = logfmt_reader_state (r, i);
        rp->legend[rp->nlegend].name = sd->name ? sd->name : "?";
        rp->legend[rp->nlegend++].rgb = sd->rgb;
      }
  return rp;
}

void
anim_replay_free (AnimReplay *rp)
{
  if (!rp)
    return;
  for (int i = 0; rp->ranks && i < rp->nprocs; i++)
    {
      g_free (rp->ranks[i].t);
      g_free (rp->ranks[i].top);
    }
  g_free (rp->ranks);
  g_free (rp->msgs);
  g_free (rp->prefix_end);
  g_free (rp->rgb);
  g_free (rp->state_used);
  g_free (rp->legend);
  g_free (rp->views);
  logfmt_reader_close (rp->r);
  g_free (rp);
}

double
anim_replay_duration (const AnimReplay *rp)
{
  return (rp->t_last - rp->t_first) / 1e9;
}

int
anim_replay_nprocs (const AnimReplay *rp)
{
  return rp->nprocs;
}

/* Index of the last entry <= t in a sorted array, or -1. */
static gssize
last_le (const guint64 *a, gsize n, guint64 t)
{
  gsize lo = 0, hi = n;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (a[mid] <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return (gssize) lo - 1;
}

static gssize
last_msg_le (const AnimReplay *rp, guint64 t)
{
  gsize lo = 0, hi = rp->nmsgs;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (rp->msgs[mid].t0 <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return (gssize) lo - 1;
}

static int
fill_history (AnimReplay *rp, int sel, guint64 t)
{
  int n = 0;
  snprintf (rp->info_buf[n++], sizeof rp->info_buf[0],
            "rank %d - records before this time (s)", sel);
  gint32 s = rp->ranks[sel].stream;
  if (s >= 0)
    {
      /* Widen a look-back window until enough records are found. */
      logfmt_event_t last[HIST_LINES - 1];
      int got = 0;
      for (guint64 span = 10000000; got < HIST_LINES - 1; span *= 8)
        {
          guint64 from = t - rp->t_first > span ? t - span : rp->t_first;
          logfmt_iter_t *it;
          got = 0;
          if (logfmt_iter_new (rp->r, (guint32) s, from, t, &it) < 0)
            break;
          logfmt_event_t ev;
          int k = 0;
          while (logfmt_iter_next (it, &ev) == 1)
            last[k++ % (HIST_LINES - 1)] = ev, got++;
          logfmt_iter_free (it);
          if (from == rp->t_first)
            break;
        }
      int keep = got < HIST_LINES - 1 ? got : HIST_LINES - 1;
      for (int j = 0; j < keep; j++)
        {
          const logfmt_event_t *ev = &last[(got - 1 - j) % (HIST_LINES - 1)];
          char *o = rp->info_buf[n++];
          size_t ol = sizeof rp->info_buf[0];
          double ts = (ev->time - rp->t_first) / 1e9;
          const logfmt_state_def_t *sd =
            ev->state >= 0 ? logfmt_reader_state (rp->r, (size_t) ev->state)
                           : NULL;
          switch (ev->kind)
            {
            case LOGFMT_KIND_BEGIN:
            case LOGFMT_KIND_END:
              snprintf (o, ol, "%.6f  %s %.60s", ts,
                        ev->kind == LOGFMT_KIND_BEGIN ? "begin" : "end  ",
                        sd && sd->name ? sd->name : "?");
              break;
            case LOGFMT_KIND_SEND:
            case LOGFMT_KIND_RECV:
              snprintf (o, ol, "%.6f  %s %d tag %d %llu B", ts,
                        ev->kind == LOGFMT_KIND_SEND ? "send ->" : "recv <-",
                        ev->partner, ev->tag, (unsigned long long) ev->size);
              break;
            default:
              {
                /* Solo events by the name the log defines. */
                int k = logfmt_reader_find_event_def (rp->r, ev->id);
                const logfmt_event_def_t *ed =
                  k >= 0 ? logfmt_reader_event_def (rp->r, (size_t) k) : NULL;
                if (ev->kind == LOGFMT_KIND_LOSS)
                  snprintf (o, ol, "%.6f  %llu events lost", ts,
                            (unsigned long long) ev->size);
                else if (ed && ed->name)
                  snprintf (o, ol, "%.6f  event %.60s", ts, ed->name);
                else
                  snprintf (o, ol, "%.6f  event %d", ts, ev->id);
              }
              break;
            }
        }
    }
  for (int i = 0; i < n; i++)
    rp->info[i] = rp->info_buf[i];
  return n;
}

void
anim_replay_scene (AnimReplay *rp, double t, double min_flight,
                   int selected, AnimScene *s)
{
  memset (s, 0, sizeof *s);
  if (t < 0)
    t = 0;
  guint64 tn = rp->t_first + (guint64) (t * 1e9 + 0.5);
  guint64 minf = (guint64) (min_flight * 1e9);
  for (int i = 0; i < rp->nprocs; i++)
    {
      RankTrack *tr = &rp->ranks[i];
      gssize k = last_le (tr->t, tr->n, tn);
      gint32 st = k >= 0 ? tr->top[k] : -1;
      const logfmt_state_def_t *sd =
        st >= 0 ? logfmt_reader_state (rp->r, (size_t) st) : NULL;
      rp->rgb[i] = sd ? sd->rgb : ANIM_NO_STATE;
    }
  gsize nv = 0;
  for (gssize k = last_msg_le (rp, tn); k >= 0; k--)
    {
      const Msg *m = &rp->msgs[k];
      /* Stop once no earlier message can still be in flight. */
      if (rp->prefix_end[k] + minf < tn)
        break;
      guint64 span = m->t1 - m->t0 > minf ? m->t1 - m->t0 : minf;
      if (tn > m->t0 + span || (span == 0 && tn != m->t0))
        continue;
      if (nv == rp->nviews_cap)
        {
          rp->nviews_cap = rp->nviews_cap ? rp->nviews_cap * 2 : 1024;
          rp->views = g_renew (AnimDotView, rp->views, rp->nviews_cap);
        }
      AnimDotView *v = &rp->views[nv++];
      v->src = m->src;
      v->dst = m->dst;
      v->frac = span ? (float) ((double) (tn - m->t0) / span) : 1.0f;
      v->bytes = m->bytes;
    }
  snprintf (rp->status, sizeof rp->status,
            "t = %.6f s of %.6f s   in flight %zu   ranks %d", t,
            anim_replay_duration (rp), (size_t) nv, rp->nprocs);
  s->nprocs = rp->nprocs;
  s->proc_rgb = rp->rgb;
  s->dots = rp->views;
  s->ndots = nv;
  s->status = rp->status;
  s->selected = selected;
  s->legend = rp->legend;
  s->nlegend = rp->nlegend;
  if (selected >= 0 && selected < rp->nprocs)
    {
      s->ninfo = fill_history (rp, selected, tn);
      s->info = rp->info;
    }
}

/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <logfmt/logfmt.h>

#include "anim-live.h"

#define STACK_MAX   16
#define HIST_LEN    16
#define RATE_BINS   10          /* of 100 ms: rates over the last second */
#define QUEUED_MAX  1000000     /* unmatched sends remembered for matching */
#define LAT_MAX     1000000

typedef struct
{
  gint32   start, end;
  char    *name;
  guint32  rgb;
  guint8   solo;     /* a solo event's name (start == end) */
  guint8   used;     /* begun at least once in this job (legend) */
} Def;

typedef struct
{
  guint64 t;
  guint8  kind;      /* 0 begin, 1 end, 2 solo, 3 send, 4 recv */
  gint32  a, tag;    /* a: event id (0-2) or partner (3-4) */
  guint64 bytes;
} Hist;

typedef struct
{
  guint8  seen, ended;
  guint64 drops;
  int     depth;
  int     stack[STACK_MAX];
  Hist    hist[HIST_LEN];
  int     hist_n, hist_pos;
} Proc;

typedef struct
{
  int      src, dst;
  guint64  bytes;
  guint64  sent_ns;
  double   t0;
  guint32  gen;
  guint8   matched, drawn, active;
} Dot;

typedef struct
{
  int src, dst, tag;
} ChanKey;

typedef struct
{
  GQueue q;              /* (slot << 32 | gen) of sends not yet received */
  int    early_recvs;    /* receives that arrived before their send */
} Chan;

struct AnimLive
{
  GArray     *defs;      /* Def */
  GHashTable *by_id;     /* id -> 2 * def index + is_end + 1 */
  Proc       *procs;
  int         nprocs;    /* the current job's size */
  int         procs_cap;
  /* The current job's earliest and latest record times (times are shown
     from its start). */
  guint64     job_t0, job_t1;
  Dot        *dots;
  guint32     ndots_cap;
  guint32    *active;
  guint32     nactive;
  guint32    *free_slots;
  guint32     nfree;
  GHashTable *chans;
  guint64     queued;
  double      clock;
  AnimLiveStats st;
  guint64     rate_bin[RATE_BINS], rate_bytes[RATE_BINS];
  gint64      rate_epoch;          /* index of the newest bin */
  gboolean    measure;
  GArray     *lat;                 /* float ms */
  GArray     *drawn_now;           /* slots first shown in this scene */
  GMutex      lock;                /* anim_live_lock */
  /* Scene storage: written by anim_live_scene only, so the window can
     draw a scene after unlocking while the reader thread feeds on. */
  int         nscene_procs;
  guint32    *rgb;
  guint8     *seen;
  AnimDotView *views;
  guint32     nviews_cap;
  char        status[256];
  AnimLegendItem *legend;
  char      **legend_names;
  int         nlegend, legend_cap;
  char        info_buf[HIST_LEN + 2][112];
  const char *info[HIST_LEN + 2];
};

static guint64
mono_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000ull + (guint64) ts.tv_nsec;
}

static guint
chan_hash (gconstpointer p)
{
  const ChanKey *k = p;
  return (guint) (k->src * 2654435761u) ^ (guint) (k->dst * 40503u)
         ^ (guint) k->tag;
}

static gboolean
chan_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (ChanKey)) == 0;
}

static void
chan_free (gpointer p)
{
  Chan *c = p;
  g_queue_clear (&c->q);
  g_free (c);
}

AnimLive *
anim_live_new (void)
{
  AnimLive *lv = g_new0 (AnimLive, 1);
  lv->defs = g_array_new (FALSE, TRUE, sizeof (Def));
  lv->by_id = g_hash_table_new (NULL, NULL);
  lv->chans = g_hash_table_new_full (chan_hash, chan_equal, g_free, chan_free);
  lv->lat = g_array_new (FALSE, FALSE, sizeof (float));
  lv->drawn_now = g_array_new (FALSE, FALSE, sizeof (guint32));
  lv->job_t0 = G_MAXUINT64;
  g_mutex_init (&lv->lock);
  return lv;
}

void
anim_live_free (AnimLive *lv)
{
  if (!lv)
    return;
  for (guint i = 0; i < lv->defs->len; i++)
    g_free (g_array_index (lv->defs, Def, i).name);
  g_array_free (lv->defs, TRUE);
  g_hash_table_destroy (lv->by_id);
  g_hash_table_destroy (lv->chans);
  g_array_free (lv->lat, TRUE);
  g_array_free (lv->drawn_now, TRUE);
  g_free (lv->procs);
  g_free (lv->dots);
  g_free (lv->active);
  g_free (lv->free_slots);
  g_free (lv->rgb);
  g_free (lv->seen);
  g_free (lv->views);
  for (int i = 0; i < lv->nlegend; i++)
    g_free (lv->legend_names[i]);
  g_free (lv->legend_names);
  g_free (lv->legend);
  g_mutex_clear (&lv->lock);
  g_free (lv);
}

void
anim_live_lock (AnimLive *lv)
{
  g_mutex_lock (&lv->lock);
}

void
anim_live_unlock (AnimLive *lv)
{
  g_mutex_unlock (&lv->lock);
}

void
anim_live_measure_latency (AnimLive *lv, gboolean on)
{
  lv->measure = on;
}

static void
ensure_procs (AnimLive *lv, int n)
{
  if (n <= lv->nprocs || n > ANIM_MAX_PROCS)
    return;
  if (n > lv->procs_cap)
    {
      lv->procs = g_renew (Proc, lv->procs, n);
      lv->procs_cap = n;
    }
  memset (lv->procs + lv->nprocs, 0, (n - lv->nprocs) * sizeof (Proc));
  lv->nprocs = n;
}

/* A new job: nothing of the last one (ranks ended, states, history,
 * unmatched messages, time origin) carries over; the counters do. */
static void
new_job (AnimLive *lv, int size)
{
  lv->nprocs = 0;
  ensure_procs (lv, size);
  for (guint i = 0; i < lv->defs->len; i++)
    g_free (g_array_index (lv->defs, Def, i).name);
  g_array_set_size (lv->defs, 0);
  g_hash_table_remove_all (lv->by_id);
  g_hash_table_remove_all (lv->chans);
  lv->queued = 0;
  lv->job_t0 = G_MAXUINT64;
  lv->job_t1 = 0;
}

static void
job_time (AnimLive *lv, guint64 t)
{
  if (t < lv->job_t0)
    lv->job_t0 = t;
  if (t > lv->job_t1)
    lv->job_t1 = t;
}

void
anim_live_hello (AnimLive *lv, int rank, int size)
{
  /* A HELLO from a rank the current job already has, or for another
   * world size, starts a new job.  (Not "every rank has ended": a fast
   * rank can end before a slow one of its job connects.) */
  if (size > 0 && rank >= 0 && rank < size
      && (size != lv->nprocs || lv->procs[rank].seen))
    new_job (lv, size);
  if (rank < 0 || rank >= lv->nprocs)
    return;
  lv->procs[rank].seen = 1;
  lv->st.clients++;
  if ((guint64) size > lv->st.world_size)
    lv->st.world_size = size;
}

void
anim_live_rejected (AnimLive *lv)
{
  lv->st.rejected++;
}

void
anim_live_state_def (AnimLive *lv, gint32 start, gint32 end,
                     const char *name, const char *color)
{
  guint32 rgb = ANIM_NO_STATE;
  logfmt_color_lookup (color, &rgb);
  gpointer v;
  if (start == end && g_hash_table_lookup_extended (lv->by_id,
                                                    GINT_TO_POINTER (start),
                                                    NULL, &v)
      && !g_array_index (lv->defs, Def, (GPOINTER_TO_INT (v) - 1) / 2).solo)
    return;  /* a state's event id: not a solo event */
  if (g_hash_table_lookup_extended (lv->by_id, GINT_TO_POINTER (start),
                                    NULL, &v))
    {
      int idx = (GPOINTER_TO_INT (v) - 1) / 2;
      Def *d = &g_array_index (lv->defs, Def, idx);
      if (d->start == start && d->end == end)
        {
          g_free (d->name);
          d->name = g_strdup (name);
          d->rgb = rgb;
          return;
        }
    }
  if (lv->defs->len >= 100000)
    return;
  Def d = { start, end, g_strdup (name), rgb, start == end, 0 };
  /* A state begun before its definition arrived is in the legend too. */
  for (int i = 0; i < lv->nprocs && !d.solo && !d.used; i++)
    for (int k = 0; k < lv->procs[i].hist_n; k++)
      if (lv->procs[i].hist[k].kind <= 2 && lv->procs[i].hist[k].a == start)
        d.used = 1;
  int idx = (int) lv->defs->len;
  g_array_append_val (lv->defs, d);
  g_hash_table_insert (lv->by_id, GINT_TO_POINTER (start),
                       GINT_TO_POINTER (2 * idx + 1));
  if (end != start)
    g_hash_table_insert (lv->by_id, GINT_TO_POINTER (end),
                         GINT_TO_POINTER (2 * idx + 2));
}

static void
hist_add (Proc *p, guint64 t, int kind, gint32 a, gint32 tag, guint64 bytes)
{
  Hist *h = &p->hist[p->hist_pos];
  h->t = t;
  h->kind = (guint8) kind;
  h->a = a;
  h->tag = tag;
  h->bytes = bytes;
  p->hist_pos = (p->hist_pos + 1) % HIST_LEN;
  if (p->hist_n < HIST_LEN)
    p->hist_n++;
}

void
anim_live_event (AnimLive *lv, int rank, guint64 t, int thread, gint32 id)
{
  if (rank < 0 || rank >= lv->nprocs)
    return;
  Proc *p = &lv->procs[rank];
  lv->st.records++;
  job_time (lv, t);
  gpointer v = g_hash_table_lookup (lv->by_id, GINT_TO_POINTER (id));
  int code = v ? GPOINTER_TO_INT (v) - 1 : 0, idx = code / 2, is_end = code & 1;
  if (!v || g_array_index (lv->defs, Def, idx).solo)
    {
      hist_add (p, t, 2, id, 0, 0);
      return;
    }
  hist_add (p, t, is_end, id, 0, 0);
  if (!is_end)
    g_array_index (lv->defs, Def, idx).used = 1;
  /* Colour follows the main thread's innermost state. */
  if (thread != 0)
    return;
  if (!is_end)
    {
      if (p->depth < STACK_MAX)
        p->stack[p->depth] = idx;
      p->depth++;
    }
  else if (p->depth > 0)
    p->depth--;
}

static void
rate_add (AnimLive *lv, guint64 bytes, gboolean msg)
{
  gint64 bin = g_get_monotonic_time () / 100000;
  if (bin != lv->rate_epoch)
    {
      gint64 gap = bin - lv->rate_epoch;
      for (gint64 k = 1; k <= gap && k <= RATE_BINS; k++)
        {
          int j = (int) ((lv->rate_epoch + k) % RATE_BINS);
          lv->rate_bin[j] = lv->rate_bytes[j] = 0;
        }
      lv->rate_epoch = bin;
    }
  if (msg)
    {
      lv->rate_bin[bin % RATE_BINS]++;
      lv->rate_bytes[bin % RATE_BINS] += bytes;
    }
}

static guint32
dot_alloc (AnimLive *lv)
{
  if (lv->nfree)
    return lv->free_slots[--lv->nfree];
  if (lv->ndots_cap >= ANIM_MAX_DOTS)
    return G_MAXUINT32;
  guint32 old = lv->ndots_cap, cap = old ? old * 2 : 1024;
  if (cap > ANIM_MAX_DOTS)
    cap = ANIM_MAX_DOTS;
  lv->dots = g_renew (Dot, lv->dots, cap);
  memset (lv->dots + old, 0, (cap - old) * sizeof (Dot));
  lv->active = g_renew (guint32, lv->active, cap);
  lv->free_slots = g_renew (guint32, lv->free_slots, cap);
  for (guint32 i = cap; i > old + 1; i--)
    lv->free_slots[lv->nfree++] = i - 1;
  lv->ndots_cap = cap;
  return old;
}

/* Forgets a channel with nothing pending, so that tags that change with
 * every message do not accumulate. */
static void
chan_release (AnimLive *lv, int src, int dst, int tag, Chan *c)
{
  if (c->early_recvs == 0 && g_queue_is_empty (&c->q))
    {
      ChanKey k = { src, dst, tag };
      g_hash_table_remove (lv->chans, &k);
    }
}

static Chan *
chan_get (AnimLive *lv, int src, int dst, int tag)
{
  ChanKey k = { src, dst, tag };
  Chan *c = g_hash_table_lookup (lv->chans, &k);
  if (!c)
    {
      c = g_new0 (Chan, 1);
      g_queue_init (&c->q);
      g_hash_table_insert (lv->chans, g_memdup2 (&k, sizeof k), c);
    }
  return c;
}

void
anim_live_msg (AnimLive *lv, int rank, gboolean is_send, guint64 t,
               int thread, int partner, int tag, guint64 bytes)
{
  if (rank < 0 || rank >= lv->nprocs)
    return;
  lv->st.records++;
  job_time (lv, t);
  hist_add (&lv->procs[rank], t, is_send ? 3 : 4, partner, tag, bytes);
  if (partner < 0 || partner >= lv->nprocs)
    return;
  int src = is_send ? rank : partner, dst = is_send ? partner : rank;
  Chan *c = chan_get (lv, src, dst, tag);
  if (!is_send)
    {
      lv->st.recvs++;
      gpointer e = g_queue_pop_head (&c->q);
      if (!e)
        {
          c->early_recvs++;
          return;
        }
      lv->queued--;
      lv->st.matched++;
      guint64 code = (guint64) (guintptr) e;
      guint32 slot = (guint32) (code >> 32), gen = (guint32) code;
      if (slot < lv->ndots_cap && lv->dots[slot].active
          && lv->dots[slot].gen == gen)
        lv->dots[slot].matched = 1;
      chan_release (lv, src, dst, tag, c);
      return;
    }
  lv->st.sends++;
  lv->st.bytes += bytes;
  rate_add (lv, bytes, TRUE);
  guint32 slot = dot_alloc (lv);
  if (slot == G_MAXUINT32)
    {
      /* Not shown, but its receive must still pair with it. */
      lv->st.dots_dropped++;
      if (c->early_recvs > 0)
        {
          c->early_recvs--;
          lv->st.matched++;
          chan_release (lv, src, dst, tag, c);
        }
      else if (lv->queued < QUEUED_MAX)
        {
          g_queue_push_tail (&c->q, GSIZE_TO_POINTER (G_MAXSIZE));
          lv->queued++;
        }
      return;
    }
  Dot *d = &lv->dots[slot];
  d->src = src;
  d->dst = dst;
  d->bytes = bytes;
  d->sent_ns = t;
  d->t0 = lv->clock;
  d->gen++;
  d->drawn = 0;
  d->active = 1;
  d->matched = 0;
  lv->active[lv->nactive++] = slot;
  if (c->early_recvs > 0)
    {
      c->early_recvs--;
      lv->st.matched++;
      d->matched = 1;
      chan_release (lv, src, dst, tag, c);
    }
  else if (lv->queued < QUEUED_MAX && sizeof (gpointer) >= 8)
    {
      g_queue_push_tail (&c->q, (gpointer) (guintptr)
                         (((guint64) slot << 32) | d->gen));
      lv->queued++;
    }
}

void
anim_live_drops (AnimLive *lv, int rank, guint64 total)
{
  if (rank < 0 || rank >= lv->nprocs)
    return;
  Proc *p = &lv->procs[rank];
  if (total > p->drops)
    {
      lv->st.dropped += total - p->drops;
      p->drops = total;
    }
}

void
anim_live_end (AnimLive *lv, int rank, guint64 sent, guint64 dropped,
               guint64 received)
{
  lv->st.ranks_ended++;
  lv->st.records_expected += sent;
  if (sent == received)
    lv->st.ranks_complete++;
  anim_live_drops (lv, rank, dropped);
  if (rank >= 0 && rank < lv->nprocs)
    lv->procs[rank].ended = 1;
}

void
anim_live_advance (AnimLive *lv, double dt)
{
  lv->clock += dt;
}

double
anim_live_clock (const AnimLive *lv)
{
  return lv->clock;
}

int
anim_live_nprocs (const AnimLive *lv)
{
  return lv->nprocs;
}

static void
fill_info (AnimLive *lv, int sel)
{
  Proc *p = &lv->procs[sel];
  int n = 0;
  snprintf (lv->info_buf[n++], sizeof lv->info_buf[0],
            "rank %d%s - last %d records (s since the job's start)", sel,
            p->ended ? " (ended)" : "", p->hist_n);
  for (int k = 0; k < p->hist_n; k++)
    {
      const Hist *h = &p->hist[(p->hist_pos - 1 - k + HIST_LEN) % HIST_LEN];
      char *o = lv->info_buf[n++];
      size_t ol = sizeof lv->info_buf[0];
      double ts = h->t >= lv->job_t0 ? (h->t - lv->job_t0) / 1e9
                                     : -((lv->job_t0 - h->t) / 1e9);
      /* Names as defined now: a definition may arrive after the first
       * records that use its ids. */
      const Def *d = NULL;
      int is_end = 0;
      if (h->kind <= 2)
        {
          gpointer v = g_hash_table_lookup (lv->by_id,
                                            GINT_TO_POINTER (h->a));
          if (v)
            {
              d = &g_array_index (lv->defs, Def,
                                  (GPOINTER_TO_INT (v) - 1) / 2);
              is_end = (GPOINTER_TO_INT (v) - 1) & 1;
            }
        }
      switch (h->kind)
        {
        case 0:
        case 1:
        case 2:
          if (d && d->solo)
            snprintf (o, ol, "%.6f  event %.60s", ts, d->name);
          else if (d)
            snprintf (o, ol, "%.6f  %s %.60s", ts,
                      is_end ? "end  " : "begin", d->name);
          else
            snprintf (o, ol, "%.6f  event %d", ts, h->a);
          break;
        case 3:
          snprintf (o, ol, "%.6f  send -> %d tag %d %" G_GUINT64_FORMAT " B",
                    ts, h->a, h->tag, h->bytes);
          break;
        default:
          snprintf (o, ol, "%.6f  recv <- %d tag %d %" G_GUINT64_FORMAT " B",
                    ts, h->a, h->tag, h->bytes);
          break;
        }
    }
  for (int i = 0; i < n; i++)
    lv->info[i] = lv->info_buf[i];
}

void
anim_live_scene (AnimLive *lv, int selected, AnimScene *s)
{
  memset (s, 0, sizeof *s);
  rate_add (lv, 0, FALSE);
  if (lv->nscene_procs < lv->nprocs)
    {
      lv->rgb = g_renew (guint32, lv->rgb, lv->nprocs);
      lv->seen = g_renew (guint8, lv->seen, lv->nprocs);
      lv->nscene_procs = lv->nprocs;
    }
  for (int i = 0; i < lv->nprocs; i++)
    {
      Proc *p = &lv->procs[i];
      int top = p->depth > STACK_MAX ? STACK_MAX : p->depth;
      lv->rgb[i] = top > 0 ? g_array_index (lv->defs, Def,
                                            p->stack[top - 1]).rgb
                           : ANIM_NO_STATE;
      lv->seen[i] = p->seen;
    }
  if (lv->nviews_cap < lv->nactive)
    {
      lv->nviews_cap = lv->nactive + 1024;
      lv->views = g_renew (AnimDotView, lv->views, lv->nviews_cap);
    }
  g_array_set_size (lv->drawn_now, 0);
  guint32 nv = 0;
  for (guint32 k = 0; k < lv->nactive;)
    {
      guint32 slot = lv->active[k];
      Dot *d = &lv->dots[slot];
      double age = lv->clock - d->t0, f = age / ANIM_FLIGHT_S;
      if (f >= 1 && (d->matched || age >= ANIM_TIMEOUT_S))
        {
          d->active = 0;
          lv->free_slots[lv->nfree++] = slot;
          lv->active[k] = lv->active[--lv->nactive];
          continue;
        }
      if (!d->drawn)
        {
          d->drawn = 1;
          if (lv->measure)
            g_array_append_val (lv->drawn_now, slot);
        }
      AnimDotView *v = &lv->views[nv++];
      v->src = d->src;
      v->dst = d->dst;
      v->frac = (float) (f > 1 ? 1 : f);
      v->bytes = d->bytes;
      k++;
    }
  guint64 msgs = 0, bytes = 0;
  for (int j = 0; j < RATE_BINS; j++)
    {
      msgs += lv->rate_bin[j];
      bytes += lv->rate_bytes[j];
    }
  /* The states begun in this job, copied: the reader thread may
     replace a definition while the window draws. */
  for (int i = 0; i < lv->nlegend; i++)
    g_free (lv->legend_names[i]);
  lv->nlegend = 0;
  for (guint i = 0; i < lv->defs->len && i < 4096; i++)
    {
      const Def *d = &g_array_index (lv->defs, Def, i);
      if (!d->used || d->solo)
        continue;
      if (lv->nlegend == lv->legend_cap)
        {
          lv->legend_cap = lv->legend_cap ? 2 * lv->legend_cap : 16;
          lv->legend = g_renew (AnimLegendItem, lv->legend, lv->legend_cap);
          lv->legend_names = g_renew (char *, lv->legend_names,
                                      lv->legend_cap);
        }
      lv->legend_names[lv->nlegend] = g_strdup (d->name);
      lv->legend[lv->nlegend].name = lv->legend_names[lv->nlegend];
      lv->legend[lv->nlegend++].rgb = d->rgb;
    }
  s->legend = lv->legend;
  s->nlegend = lv->nlegend;
  double tj = lv->job_t1 > lv->job_t0 && lv->job_t0 != G_MAXUINT64
              ? (lv->job_t1 - lv->job_t0) / 1e9 : 0;
  snprintf (lv->status, sizeof lv->status,
            "t %.1f s   msgs/s %" G_GUINT64_FORMAT "   bytes/s %" G_GUINT64_FORMAT
            "   in flight %u   messages %" G_GUINT64_FORMAT
            "   dropped %" G_GUINT64_FORMAT "   ranks %d",
            tj, msgs, bytes, nv, lv->st.sends,
            lv->st.dropped + lv->st.dots_dropped, lv->nprocs);
  if (lv->nprocs == 0)
    snprintf (lv->status, sizeof lv->status,
              "waiting for a job: run it with the MPEANIM_ADDR line above");
  s->nprocs = lv->nprocs;
  s->proc_rgb = lv->rgb;
  s->proc_seen = lv->seen;
  s->dots = lv->views;
  s->ndots = nv;
  s->status = lv->status;
  s->selected = selected;
  if (selected >= 0 && selected < lv->nprocs)
    {
      fill_info (lv, selected);
      s->info = lv->info;
      s->ninfo = lv->procs[selected].hist_n + 1;
    }
}

void
anim_live_frame_drawn (AnimLive *lv)
{
  lv->st.frames++;
  if (!lv->measure || !lv->drawn_now->len)
    return;
  guint64 now = mono_ns ();
  for (guint i = 0; i < lv->drawn_now->len && lv->lat->len < LAT_MAX; i++)
    {
      Dot *d = &lv->dots[g_array_index (lv->drawn_now, guint32, i)];
      float ms = d->sent_ns < now ? (float) ((now - d->sent_ns) / 1e6) : 0;
      g_array_append_val (lv->lat, ms);
    }
  g_array_set_size (lv->drawn_now, 0);
}

static int
cmp_float (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return x < y ? -1 : x > y;
}

const AnimLiveStats *
anim_live_stats (AnimLive *lv)
{
  guint n = lv->lat->len;
  lv->st.lat_n = n;
  if (n)
    {
      float *v = (float *) lv->lat->data;
      qsort (v, n, sizeof *v, cmp_float);
      lv->st.lat_p50_ms = v[n / 2];
      lv->st.lat_p99_ms = v[(guint) (n * 0.99) < n ? (guint) (n * 0.99)
                                                   : n - 1];
      lv->st.lat_max_ms = v[n - 1];
    }
  return &lv->st;
}

gboolean
anim_live_write_stats (AnimLive *lv, const char *path, GError **error)
{
  const AnimLiveStats *s = anim_live_stats (lv);
  g_autofree char *txt = g_strdup_printf (
    "clients=%" G_GUINT64_FORMAT "\nrejected=%" G_GUINT64_FORMAT
    "\nranks_ended=%" G_GUINT64_FORMAT "\nranks_complete=%" G_GUINT64_FORMAT
    "\nrecords=%" G_GUINT64_FORMAT "\nrecords_expected=%" G_GUINT64_FORMAT
    "\nmessages=%" G_GUINT64_FORMAT "\nrecvs=%" G_GUINT64_FORMAT
    "\nmatched=%" G_GUINT64_FORMAT "\nbytes=%" G_GUINT64_FORMAT
    "\ndropped=%" G_GUINT64_FORMAT "\ndots_dropped=%" G_GUINT64_FORMAT
    "\nframes=%" G_GUINT64_FORMAT "\nworld_size=%" G_GUINT64_FORMAT
    "\nlatency_n=%" G_GUINT64_FORMAT "\nlatency_p50_ms=%.3f"
    "\nlatency_p99_ms=%.3f\nlatency_max_ms=%.3f\n",
    s->clients, s->rejected, s->ranks_ended, s->ranks_complete, s->records,
    s->records_expected, s->sends, s->recvs, s->matched, s->bytes,
    s->dropped, s->dots_dropped, s->frames, s->world_size, s->lat_n,
    s->lat_p50_ms, s->lat_p99_ms, s->lat_max_ms);
  return g_file_set_contents (path, txt, -1, error);
}

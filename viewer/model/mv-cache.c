/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <string.h>

#include "mv-cache.h"
#include "mv-pyramid.h"
#include "analysis/analysis.h"

/* Lane pyramids kept, at most (pixel rows of aggregated lanes). */
#define LANE_PYR_MAX_BYTES   (32u << 20)
/* Many-stream logs (mv_cache_pyramid_scratch's): streams whose summary
 * is read between two drops of the file's mapped pages.  Each read maps
 * up to 64 KB around it (the kernel's fault-around), 16 MB per 256. */
#define DROP_EVERY           256u
#define DROP_MIN_STREAMS     10000u
/* Decoded events kept across frames, at most this many in all. */
#define DEC_MAX_EVENTS       3000000u

struct MvCache
{
  MvLog        *log;
  guint         bins, levels;     /* fixed at creation */
  GMutex        lock;             /* everything below */
  guint8      **pyr;              /* [stream], NULL until read */
  guint8       *pyr_quality;      /* [stream], MvPyrQuality */
  guint8       *pyr_seen;         /* [stream]: read, maybe not kept
                                     (mv_cache_pyramid_scratch) */
  gint          reads;            /* atomic: since the last page drop */
  gsize         pyr_reads;        /* atomic: pyramids read from the file */
  guint         pyr_filled;       /* streams with a pyramid */
  GHashTable   *lane_pyr;         /* guint64 key -> GBytes */
  gsize         lane_pyr_bytes;
  guint         lane_pyr_hidden;
  MvLaneMemo   *memo;
  gpointer      spare[2];         /* freed lane blocks, for reuse */
  gboolean      spare_made;       /* one made ahead, on frame 1 */
  MvDecoded   **dec;              /* [stream], NULL if none */
  MvOpenAt     *open_at;          /* [stream], n = 0 and t = 0: none */
  gboolean     *has_open_at;
  guint64       dec_events, dec_clock;
  GArray       *msgs;             /* logfmt_message_t meeting [ta, tb] */
  guint64       msg_ta, msg_tb, msg_span;
  /* The waits of every stream (MvWait, by start), computed once for
   * the whole run: under their own lock, the pass being long. */
  GMutex        waits_lock;
  gint          waits_done;       /* 1 computed, -1 failed */
  GArray      **waits;            /* [stream] */
};

/* Lane keys are (first row << 32 | rows): g_int64_hash folds them to
 * first ^ rows, which collides in runs for lanes of ~10 rows. */
static guint
lane_key_hash (gconstpointer k)
{
  guint64 v = *(const guint64 *) k;
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdull;
  v ^= v >> 33;
  return (guint) v;
}

MvCache *
mv_cache_new (MvLog *log)
{
  MvCache *c = g_atomic_rc_box_new0 (MvCache);
  guint n = MAX (log->nrows, 1);
  c->log = mv_log_ref (log);
  /* About 64 MB at most with the pyramid levels (twice the base): 65536
   * bins (the most a stored summary level has) for up to 170 streams,
   * fewer for more (1024 for 10,000 processes, still about as fine as
   * the file's own summaries of such streams). */
  guint64 per = (32u << 20) / ((guint64) n * 3);
  c->bins = 256;
  while (c->bins < 65536 && c->bins * 2 <= per)
    c->bins *= 2;
  c->levels = 1;
  while ((c->bins >> c->levels) >= 16)
    c->levels++;
  g_mutex_init (&c->lock);
  c->pyr = g_new0 (guint8 *, n);
  c->pyr_quality = g_new0 (guint8, n);
  c->pyr_seen = g_new0 (guint8, n);
  c->lane_pyr = g_hash_table_new_full (lane_key_hash, g_int64_equal, g_free,
                                       (GDestroyNotify) g_bytes_unref);
  c->dec = g_new0 (MvDecoded *, n);
  c->open_at = g_new0 (MvOpenAt, n);
  c->has_open_at = g_new0 (gboolean, n);
  g_mutex_init (&c->waits_lock);
  return c;
}

static void
cache_free (MvCache *c)
{
  for (guint i = 0; i < c->log->nrows; i++)
    {
      g_free (c->pyr[i]);
      mv_decoded_unref (c->dec[i]);
      g_free (c->open_at[i].state);
      g_free (c->open_at[i].start);
    }
  g_free (c->pyr);
  g_free (c->pyr_quality);
  g_free (c->pyr_seen);
  g_hash_table_unref (c->lane_pyr);
  mv_lane_memo_unref (NULL, c->memo);
  g_free (c->spare[0]);
  g_free (c->spare[1]);
  g_free (c->dec);
  g_free (c->open_at);
  g_free (c->has_open_at);
  if (c->msgs)
    g_array_unref (c->msgs);
  for (guint i = 0; c->waits && i < c->log->info->nstreams; i++)
    if (c->waits[i])
      g_array_unref (c->waits[i]);
  g_free (c->waits);
  g_mutex_clear (&c->waits_lock);
  g_mutex_clear (&c->lock);
  mv_log_unref (c->log);
}

MvCache *
mv_cache_ref (MvCache *c)
{
  return g_atomic_rc_box_acquire (c);
}

void
mv_cache_unref (MvCache *c)
{
  if (c != NULL)
    g_atomic_rc_box_release_full (c, (GDestroyNotify) cache_free);
}

MvLog *
mv_cache_log (const MvCache *c)
{
  return c->log;
}

guint
mv_cache_bins (const MvCache *c)
{
  return c->bins;
}

guint
mv_cache_levels (const MvCache *c)
{
  return c->levels;
}

/* ---- whole-run pyramids ---- */

void
mv_cache_note_stream_read (MvCache *c)
{
  /* Reading every stream once touches most of a file of many small
   * streams: its pages need not stay mapped (resident). */
  if (c->log->nrows >= DROP_MIN_STREAMS
      && (guint) g_atomic_int_add (&c->reads, 1) + 1 >= DROP_EVERY)
    {
      g_atomic_int_set (&c->reads, 0);
      logfmt_reader_drop_pages (c->log->reader);
    }
}

/* Reads a stream's pyramid into q (mv_pyr_offset (bins, levels)
 * bytes). */
static MvPyrQuality
pyr_read (MvCache *c, guint32 stream, guint8 *q)
{
  mv_cache_note_stream_read (c);
  g_atomic_pointer_add (&c->pyr_reads, 1);
  MvLog *log = c->log;
  guint nb = c->bins, ns = log->nstates;
  gsize bytes = mv_pyr_offset (nb, c->levels);
  float *occ = g_new (float, (gsize) nb * MAX (ns, 1));
  logfmt_error_t err = { 0 };
  memset (q, 0xff, bytes);
  for (gsize i = 2; i < bytes; i += 3)
    q[i] = 0;
  guint64 level = 0;
  double cbin = (double) (mv_log_t_last (log) - mv_log_t_first (log)) / nb;
  gboolean bad = FALSE;
  if (ns > 0)
    {
      if (logfmt_reader_summary (log->reader, stream, mv_log_t_first (log),
                                 mv_log_t_last (log), nb, occ, NULL, &level,
                                 &err) == 0)
        mv_pyr_build (occ, nb, ns, c->levels, q);
      else
        bad = TRUE;
    }
  g_free (occ);
  return bad ? MV_PYR_DAMAGED : level >= cbin ? MV_PYR_FINEST
         : MV_PYR_COARSER;
}

const guint8 *
mv_cache_pyramid (MvCache *c, guint32 stream, MvPyrQuality *quality)
{
  g_mutex_lock (&c->lock);
  const guint8 *p = c->pyr[stream];
  MvPyrQuality qual = c->pyr_quality[stream];
  g_mutex_unlock (&c->lock);
  if (p != NULL)
    {
      if (quality)
        *quality = qual;
      return p;
    }
  /* Read outside the lock so several threads can fill the cache. */
  guint8 *q = g_malloc (mv_pyr_offset (c->bins, c->levels));
  MvPyrQuality read = pyr_read (c, stream, q);
  g_mutex_lock (&c->lock);
  if (c->pyr[stream] == NULL)
    {
      c->pyr_quality[stream] = read;
      c->pyr[stream] = q;
      c->pyr_filled++;
      q = NULL;
    }
  p = c->pyr[stream];
  qual = c->pyr_quality[stream];
  g_mutex_unlock (&c->lock);
  g_free (q);
  if (quality)
    *quality = qual;
  return p;
}

const guint8 *
mv_cache_pyramid_scratch (MvCache *c, guint32 stream, guint8 *scratch,
                          MvPyrQuality *quality)
{
  g_mutex_lock (&c->lock);
  const guint8 *p = c->pyr[stream];
  MvPyrQuality qual = c->pyr_quality[stream];
  g_mutex_unlock (&c->lock);
  if (p == NULL)
    {
      qual = pyr_read (c, stream, scratch);
      p = scratch;
      g_mutex_lock (&c->lock);
      if (c->pyr[stream] == NULL)
        {
          c->pyr_quality[stream] = qual;
          c->pyr_seen[stream] = 1;
        }
      g_mutex_unlock (&c->lock);
    }
  if (quality)
    *quality = qual;
  return p;
}

MvPyrQuality
mv_cache_pyramid_peek (MvCache *c, guint32 stream)
{
  g_mutex_lock (&c->lock);
  MvPyrQuality q = c->pyr[stream] || c->pyr_seen[stream]
                   ? c->pyr_quality[stream] : MV_PYR_UNREAD;
  g_mutex_unlock (&c->lock);
  return q;
}

guint64
mv_cache_pyramid_reads (MvCache *c)
{
  return (guint64) (gsize) g_atomic_pointer_get (&c->pyr_reads);
}

gboolean
mv_cache_pyramid_kept (MvCache *c, guint32 stream)
{
  g_mutex_lock (&c->lock);
  gboolean kept = c->pyr[stream] != NULL;
  g_mutex_unlock (&c->lock);
  return kept;
}

MvPyrQuality
mv_cache_pyramid_quality (MvCache *c, guint32 stream, guint8 *scratch)
{
  MvPyrQuality q = mv_cache_pyramid_peek (c, stream);
  if (q != MV_PYR_UNREAD)
    return q;
  if (scratch)
    mv_cache_pyramid_scratch (c, stream, scratch, &q);
  else
    mv_cache_pyramid (c, stream, &q);
  return q;
}

typedef struct
{
  MvCache *c;
  guint    first, last, step;
} Prefill;

static gpointer
prefill_thread (gpointer data)
{
  Prefill *pf = data;
  for (guint r = pf->first; r < pf->last; r += pf->step)
    mv_cache_pyramid (pf->c, pf->c->log->rows[r].stream, NULL);
  return NULL;
}

void
mv_cache_prefill (MvCache *c, guint first, guint last)
{
  guint n = MIN (MAX (g_get_num_processors (), 1), 8);
  g_mutex_lock (&c->lock);
  gboolean all = c->pyr_filled == c->log->nrows;
  g_mutex_unlock (&c->lock);
  if (last - first < 64 || n < 2 || all)
    return;
  GThread *th[8];
  Prefill pf[8];
  for (guint i = 0; i < n; i++)
    {
      pf[i] = (Prefill) { c, first + i, last, n };
      th[i] = g_thread_new ("mv-cache", prefill_thread, &pf[i]);
    }
  for (guint i = 0; i < n; i++)
    g_thread_join (th[i]);
}

/* ---- pyramids of aggregated lanes ---- */

/* Called with the lock held. */
static void
lane_pyr_check_hidden (MvCache *c, guint hidden)
{
  if (c->lane_pyr_hidden != hidden)
    {
      g_hash_table_remove_all (c->lane_pyr);
      c->lane_pyr_bytes = 0;
      c->lane_pyr_hidden = hidden;
    }
}

GBytes *
mv_cache_lane_pyr_get (MvCache *c, guint64 key, guint hidden)
{
  g_mutex_lock (&c->lock);
  lane_pyr_check_hidden (c, hidden);
  GBytes *b = g_hash_table_lookup (c->lane_pyr, &key);
  if (b)
    g_bytes_ref (b);
  g_mutex_unlock (&c->lock);
  return b;
}

void
mv_cache_lane_pyr_put (MvCache *c, guint64 key, guint hidden, GBytes *b)
{
  gsize bytes = g_bytes_get_size (b);
  g_mutex_lock (&c->lock);
  if (c->lane_pyr_hidden == hidden)
    {
      if (c->lane_pyr_bytes + bytes > LANE_PYR_MAX_BYTES)
        {
          g_hash_table_remove_all (c->lane_pyr);
          c->lane_pyr_bytes = 0;
        }
      if (!g_hash_table_contains (c->lane_pyr, &key))
        {
          g_hash_table_insert (c->lane_pyr, g_memdup2 (&key, sizeof key),
                               g_bytes_ref (b));
          c->lane_pyr_bytes += bytes;
        }
    }
  g_mutex_unlock (&c->lock);
}

/* ---- lane blocks ---- */

/* Blocks are reference counted: a scene and the pan memo share one.
 * The last reference returns it to one of the two spare slots, and a
 * later frame takes it from there: a fresh 13 MB block (1,000 lanes)
 * would fault in page by page, ~30 ms on this VM. */
typedef struct
{
  gint  ref;
  gsize size;
} BlockHead;

#define BLOCK_HEAD 16  /* sizeof (BlockHead), rounded for alignment */

guint8 *
mv_cache_block_new (MvCache *c, gsize size)
{
  BlockHead *h = NULL;
  g_mutex_lock (&c->lock);
  for (int i = 0; i < 2 && h == NULL; i++)
    if (c->spare[i] && ((BlockHead *) c->spare[i])->size == size)
      h = g_steal_pointer (&c->spare[i]);
  g_mutex_unlock (&c->lock);
  if (h == NULL)
    {
      h = g_malloc (BLOCK_HEAD + size);
      h->size = size;
    }
  h->ref = 1;
  return (guint8 *) h + BLOCK_HEAD;
}

void
mv_cache_block_ahead (MvCache *c, gsize size)
{
  g_mutex_lock (&c->lock);
  gboolean make = !c->spare_made && c->spare[0] == NULL;
  c->spare_made = TRUE;
  g_mutex_unlock (&c->lock);
  if (!make)
    return;
  BlockHead *h = g_malloc (BLOCK_HEAD + size);
  memset (h, 0, BLOCK_HEAD + size);
  h->size = size;
  g_mutex_lock (&c->lock);
  if (c->spare[0] == NULL)
    {
      c->spare[0] = h;
      h = NULL;
    }
  g_mutex_unlock (&c->lock);
  g_free (h);
}

guint8 *
mv_block_ref (guint8 *b)
{
  g_atomic_int_inc (&((BlockHead *) (b - BLOCK_HEAD))->ref);
  return b;
}

void
mv_cache_block_unref (MvCache *c, guint8 *b)
{
  BlockHead *h = (BlockHead *) (b - BLOCK_HEAD);
  if (!g_atomic_int_dec_and_test (&h->ref))
    return;
  if (c)
    {
      /* Into an empty slot, else in place of one of another size (the
       * plot was resized), else freed. */
      g_mutex_lock (&c->lock);
      for (int i = 0; i < 2 && h; i++)
        if (c->spare[i] == NULL
            || ((BlockHead *) c->spare[i])->size != h->size)
          {
            gpointer old = c->spare[i];
            c->spare[i] = h;
            h = old;
            break;
          }
      g_mutex_unlock (&c->lock);
    }
  g_free (h);
}

/* ---- the last summary frame ---- */

void
mv_lane_memo_unref (MvCache *c, MvLaneMemo *m)
{
  if (m == NULL || !g_atomic_int_dec_and_test (&m->ref))
    return;
  if (m->block)
    mv_cache_block_unref (c, m->block);
  g_free (m->lanes);
  g_free (m);
}

MvLaneMemo *
mv_cache_memo_get (MvCache *c)
{
  g_mutex_lock (&c->lock);
  MvLaneMemo *m = c->memo;
  if (m)
    g_atomic_int_inc (&m->ref);
  g_mutex_unlock (&c->lock);
  return m;
}

void
mv_cache_memo_drop (MvCache *c, MvLaneMemo *m)
{
  g_mutex_lock (&c->lock);
  MvLaneMemo *drop = NULL;
  if (m != NULL && c->memo == m)
    drop = g_steal_pointer (&c->memo);
  g_mutex_unlock (&c->lock);
  mv_lane_memo_unref (c, drop);
}

void
mv_cache_memo_publish (MvCache *c, MvLaneMemo *m)
{
  g_mutex_lock (&c->lock);
  MvLaneMemo *old = c->memo;
  c->memo = m;
  g_mutex_unlock (&c->lock);
  mv_lane_memo_unref (c, old);
}

/* ---- decoded events ---- */

MvDecoded *
mv_decoded_new (guint64 ta, guint64 tb, guint reserve)
{
  MvDecoded *d = g_atomic_rc_box_new0 (MvDecoded);
  d->ta = ta;
  d->tb = tb;
  d->evs = g_array_sized_new (FALSE, FALSE, sizeof (MvEv), reserve);
  d->cargo = g_array_new (FALSE, FALSE, LOGFMT_CARGO_SIZE);
  return d;
}

static void
decoded_clear (MvDecoded *d)
{
  g_array_unref (d->evs);
  g_array_unref (d->cargo);
}

void
mv_decoded_unref (MvDecoded *d)
{
  if (d != NULL)
    g_atomic_rc_box_release_full (d, (GDestroyNotify) decoded_clear);
}

static gboolean
covers (const MvDecoded *d, guint64 ta, guint64 tb)
{
  return d != NULL && d->ta <= ta && d->tb >= tb;
}

MvDecoded *
mv_cache_decoded_get (MvCache *c, guint32 stream, guint64 ta, guint64 tb)
{
  g_mutex_lock (&c->lock);
  MvDecoded *d = c->dec[stream];
  if (covers (d, ta, tb))
    {
      d->used = ++c->dec_clock;
      g_atomic_rc_box_acquire (d);
    }
  else
    d = NULL;
  g_mutex_unlock (&c->lock);
  return d;
}

gboolean
mv_cache_decoded_covers (MvCache *c, guint32 stream, guint64 ta, guint64 tb)
{
  g_mutex_lock (&c->lock);
  gboolean yes = covers (c->dec[stream], ta, tb);
  g_mutex_unlock (&c->lock);
  return yes;
}

void
mv_cache_decoded_put (MvCache *c, guint32 stream, MvDecoded *d)
{
  GPtrArray *gone = g_ptr_array_new_with_free_func
    ((GDestroyNotify) mv_decoded_unref);
  g_mutex_lock (&c->lock);
  if (c->dec[stream] != NULL)
    {
      c->dec_events -= c->dec[stream]->evs->len;
      g_ptr_array_add (gone, c->dec[stream]);
    }
  c->dec[stream] = g_atomic_rc_box_acquire (d);
  d->used = ++c->dec_clock;
  c->dec_events += d->evs->len;
  /* Over the bound: drop the least recently used streams. */
  while (c->dec_events > DEC_MAX_EVENTS)
    {
      guint victim = G_MAXUINT;
      for (guint i = 0; i < c->log->nrows; i++)
        if (c->dec[i] != NULL && c->dec[i] != d
            && (victim == G_MAXUINT || c->dec[i]->used
                                       < c->dec[victim]->used))
          victim = i;
      if (victim == G_MAXUINT)
        break;
      c->dec_events -= c->dec[victim]->evs->len;
      g_ptr_array_add (gone, g_steal_pointer (&c->dec[victim]));
    }
  g_mutex_unlock (&c->lock);
  g_ptr_array_unref (gone);
}

/* ---- states open at a time ---- */

gboolean
mv_cache_open_at_get (MvCache *c, guint32 stream, guint64 lo, guint64 hi,
                      MvOpenAt *out)
{
  g_mutex_lock (&c->lock);
  const MvOpenAt *o = &c->open_at[stream];
  gboolean yes = c->has_open_at[stream] && o->t >= lo && o->t <= hi;
  if (yes)
    {
      out->t = o->t;
      out->n = o->n;
      out->state = g_memdup2 (o->state, o->n * sizeof *o->state);
      out->start = g_memdup2 (o->start, o->n * sizeof *o->start);
    }
  g_mutex_unlock (&c->lock);
  return yes;
}

void
mv_cache_open_at_put (MvCache *c, guint32 stream, MvOpenAt *o)
{
  g_mutex_lock (&c->lock);
  MvOpenAt old = c->open_at[stream];
  c->open_at[stream] = *o;
  c->has_open_at[stream] = TRUE;
  g_mutex_unlock (&c->lock);
  g_free (old.state);
  g_free (old.start);
}

/* ---- messages ---- */

GArray *
mv_cache_messages_get (MvCache *c, guint64 t0, guint64 t1, guint64 *span)
{
  g_mutex_lock (&c->lock);
  GArray *a = NULL;
  if (c->msgs && c->msg_ta <= t0 && c->msg_tb >= t1)
    {
      a = g_array_ref (c->msgs);
      *span = c->msg_span;
    }
  g_mutex_unlock (&c->lock);
  return a;
}

gboolean
mv_cache_messages_cover (MvCache *c, guint64 t0, guint64 t1)
{
  g_mutex_lock (&c->lock);
  gboolean yes = c->msgs && c->msg_ta <= t0 && c->msg_tb >= t1;
  g_mutex_unlock (&c->lock);
  return yes;
}

void
mv_cache_messages_put (MvCache *c, GArray *a, guint64 ta, guint64 tb,
                       guint64 span)
{
  g_mutex_lock (&c->lock);
  GArray *old = c->msgs;
  c->msgs = g_array_ref (a);
  c->msg_ta = ta;
  c->msg_tb = tb;
  c->msg_span = span;
  g_mutex_unlock (&c->lock);
  if (old)
    g_array_unref (old);
}

/* ---- waits ---- */

static void
keep_wait (void *arg, const an_wait_inst_t *w)
{
  GArray **v = arg;
  if (v[w->stream] == NULL)
    v[w->stream] = g_array_new (FALSE, FALSE, sizeof (MvWait));
  MvWait m = { w->wait_start, w->wait_start + w->wait_ns, w->state };
  g_array_append_val (v[w->stream], m);
}

static gint
cmp_wait (gconstpointer a, gconstpointer b)
{
  const MvWait *x = a, *y = b;
  return (x->t0 > y->t0) - (x->t0 < y->t0);
}

const GArray *
mv_cache_waits (MvCache *c, guint32 stream)
{
  const MvLog *log = c->log;
  g_mutex_lock (&c->waits_lock);
  if (c->waits_done == 0)
    {
      GArray **v = g_new0 (GArray *, MAX (log->info->nstreams, 1));
      an_waits_opts_t o = { .each = keep_wait, .arg = v };
      an_waits_t *w = NULL;
      logfmt_error_t err;
      c->waits_done = an_waits_compute (log->reader, &o, &w, &err) == 0
                      ? 1 : -1;
      an_waits_free (w);
      for (guint i = 0; i < log->info->nstreams; i++)
        if (v[i])
          g_array_sort (v[i], cmp_wait);
      c->waits = v;
    }
  const GArray *a = c->waits_done > 0 && stream < log->info->nstreams
                    ? c->waits[stream] : NULL;
  g_mutex_unlock (&c->waits_lock);
  return a;
}

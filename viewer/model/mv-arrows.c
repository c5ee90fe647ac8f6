/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Arrows: the window's messages between visible rows, one arrow each,
 * or summed into 4-pixel cells when there are more than
 * MV_SCENE_MAX_ARROWS.  Messages are read with a margin and kept in the
 * cache.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mv-scene-build.h"

#define MAX_MSGS_SCANNED MV_SCENE_MAX_MSGS_SCANNED

static double
slot_center (const MvScene *s, guint slot)
{
  return ((double) slot + 0.5) * s->p.row_h - s->p.y0;
}

/* The slot showing each row (a collapsed group's header holds both ends
 * of the messages inside it) as a table when many messages are to be
 * placed (a binary search over the slots for each end was a third of a
 * deep view's first image at 100,000 processes in rank ranges), else
 * NULL: each end is looked up. */
static guint32 *
slot_table (const MvLog *log, const GArray *slots, guint messages)
{
  if (slots == NULL || slots->len == 0 || messages < 1024
      || messages < log->nrows / 64)
    return NULL;
  return mv_slots_row_table (slots, log->nrows);
}

static guint64
arrow_key (const MvArrow *a)
{
  /* 4-pixel cells: arrows closer than that look the same. */
  guint64 q[4] = {
    (guint64) (gint64) floor (a->x0 / 4) & 0xffff,
    (guint64) (gint64) floor (a->y0 / 4) & 0xffff,
    (guint64) (gint64) floor (a->x1 / 4) & 0xffff,
    (guint64) (gint64) floor (a->y1 / 4) & 0xffff,
  };
  return q[0] << 48 | q[1] << 32 | q[2] << 16 | q[3];
}

static inline guint64
key_hash (guint64 v)
{
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdull;
  v ^= v >> 33;
  return v;
}

/* The cells of aggregated arrows: open addressing over at least twice
 * as many slots as cells can be (a GHashTable's calls per message cost
 * a millisecond at 40,000 messages). */
typedef struct
{
  guint64 *keys;
  guint32 *at;       /* 1 + the cell's index in s->arrows, 0 free */
  guint64  mask;
} Cells;

static void
cells_init (Cells *c, guint max_cells)
{
  guint64 n = 64;
  while (n < 2 * (guint64) max_cells)
    n *= 2;
  c->keys = g_new (guint64, n);
  c->at = g_new0 (guint32, n);
  c->mask = n - 1;
}

static void
cells_clear (Cells *c)
{
  g_free (c->keys);
  g_free (c->at);
}

/* Adds an arrow to the cells (aggregated mode). */
static void
cell_add (MvScene *s, Cells *cells, const MvArrow *a)
{
  guint64 key = arrow_key (a);
  for (guint64 i = key_hash (key) & cells->mask;; i = (i + 1) & cells->mask)
    {
      if (cells->at[i] == 0)
        {
          g_array_append_val (s->arrows, *a);
          cells->keys[i] = key;
          cells->at[i] = s->arrows->len;
          return;
        }
      if (cells->keys[i] == key)
        {
          g_array_index (s->arrows, MvArrow, cells->at[i] - 1).count
            += a->count;
          return;
        }
    }
}

/* A message's first time: its send time, or its receive time when the
 * send was not logged (a run of the file is in this order). */
static inline guint64
msg_first_time (const logfmt_message_t *m)
{
  return m->send_stream == LOGFMT_NO_STREAM ? m->recv_time : m->send_time;
}

static gint
msg_cmp_first (gconstpointer a, gconstpointer b)
{
  guint64 x = msg_first_time (a), y = msg_first_time (b);
  return x < y ? -1 : x > y;
}

/* Messages kept across frames: at most this many. */
#define MSG_CACHE_MAX (10 * MAX_MSGS_SCANNED)

/* Messages meeting [ta, tb], at most max (NULL if more, or damaged:
 * *problem then says why), by first time (runs written by different
 * ranks interleave); *span: the longest |recv_time - send_time|. */
static GArray *
msgs_read (const MvLog *log, guint64 ta, guint64 tb, guint64 max,
           GCancellable *cancellable, guint64 *span, char **problem)
{
  *span = 0;
  logfmt_msg_iter_t *it = NULL;
  if (logfmt_msg_iter_new (log->reader, ta, tb, &it) != 0)
    return NULL;
  /* Sized for the messages expected from the run's average (+25%): a
   * doubling array copies and faults in fresh pages at each step. */
  double est = (double) log->info->nmessages
               * (double) (MIN (tb, mv_log_t_last (log))
                           - MIN (MAX (ta, mv_log_t_first (log)),
                                  mv_log_t_last (log)))
               / MAX (mv__run_span (log), 1);
  GArray *a = g_array_sized_new (FALSE, FALSE, sizeof (logfmt_message_t),
                                 (guint) MIN (est * 1.25 + 64, (double) max));
  logfmt_message_t m;
  int rc;
  guint64 last = 0;
  gboolean sorted = TRUE;
  while ((rc = logfmt_msg_iter_next (it, &m)) == 1)
    {
      if (a->len >= max
          || ((a->len & 4095) == 0 && g_cancellable_is_cancelled (cancellable)))
        {
          g_array_unref (a);
          a = NULL;
          break;
        }
      g_array_append_val (a, m);
      guint64 first = msg_first_time (&m);
      sorted = sorted && first >= last;
      last = first;
      if (m.send_stream != LOGFMT_NO_STREAM
          && m.recv_stream != LOGFMT_NO_STREAM)
        *span = MAX (*span, MAX (m.send_time, m.recv_time)
                            - MIN (m.send_time, m.recv_time));
    }
  if (rc < 0)
    *problem = g_strdup (logfmt_msg_iter_error (it)->message);
  logfmt_msg_iter_free (it);
  if (a && !sorted)
    g_array_sort (a, msg_cmp_first);
  return a;
}

/* The window's messages, from the cache if it holds them, else read
 * with a margin of two window widths each side and kept; *span: the
 * longest of them (msgs_read). */
static GArray *
msgs_get (MvCache *cache, guint64 t0, guint64 t1, GCancellable *cancellable,
          guint64 *span, char **problem)
{
  const MvLog *log = mv_cache_log (cache);
  GArray *a = mv_cache_messages_get (cache, t0, t1, span);
  if (a)
    return a;
  guint64 m = 2 * (t1 - t0);
  guint64 ta = t0 - MIN (t0, m);
  guint64 tb = t1 > G_MAXUINT64 - m ? G_MAXUINT64 : t1 + m;
  a = msgs_read (log, ta, tb, MSG_CACHE_MAX, cancellable, span, problem);
  if (a == NULL && *problem == NULL)
    return msgs_read (log, t0, t1, 2 * MAX_MSGS_SCANNED, cancellable, span,
                      problem);
  if (a && *problem == NULL)
    mv_cache_messages_put (cache, a, ta, tb, *span);
  return a;
}

/* The first of msgs (by first time) whose first time is at least t. */
static guint
msgs_from (const GArray *msgs, guint64 t)
{
  guint lo = 0, hi = msgs->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (msg_first_time (&g_array_index (msgs, logfmt_message_t, mid)) < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* TRUE if the message is drawn for the window [t0, t1] (one end
 * unknown: always, for its count). */
static inline gboolean
msg_meets (const logfmt_message_t *m, guint64 t0, guint64 t1)
{
  return m->send_stream == LOGFMT_NO_STREAM
         || m->recv_stream == LOGFMT_NO_STREAM
         || (MIN (m->send_time, m->recv_time) <= t1
             && MAX (m->send_time, m->recv_time) >= t0);
}

void
mv__scene_arrows (MvScene *s, GCancellable *cancellable)
{
  MvLog *log = s->log;
  Cells cells = { NULL, NULL, 0 };
  s->arrows = g_array_new (FALSE, FALSE, sizeof (MvArrow));
  if (s->p.hide_arrows)
    return;
  double span = (double) (s->p.t1 - s->p.t0);
  guint64 scanned = 0;
  double est = (double) log->info->nmessages * span / mv__run_span (log);
  if (est > MAX_MSGS_SCANNED)
    {
      s->arrows_skipped = TRUE;
      return;
    }
  char *problem = NULL;
  guint64 longest = 0;
  GArray *msgs = msgs_get (s->cache, s->p.t0, s->p.t1, cancellable,
                           &longest, &problem);
  if (problem)
    mv__scene_problem (s, problem);
  if (msgs == NULL)
    {
      /* Messages bunched in this window: too many to draw. */
      s->arrows_skipped = !g_cancellable_is_cancelled (cancellable);
      return;
    }
  /* The kept messages may span a much wider window than this one (a
   * deep view's 200 among 190,000): only those whose first time lies
   * within the longest message of it can meet it.  Unmatched ends
   * outside are not drawn either way. */
  guint64 t0 = s->p.t0, t1 = s->p.t1;
  guint from = msgs_from (msgs, t0 - MIN (t0, longest));
  guint to = msgs_from (msgs, t1 > G_MAXUINT64 - longest ? G_MAXUINT64
                              : t1 + longest + 1);
  /* Messages bunched in this window, more than the scan below gives up
   * at: known from their times alone, before any is aggregated (80,000
   * into cells cost 8 ms, to be thrown away). */
  for (guint mi = from; mi < to; mi++)
    if (msg_meets (&g_array_index (msgs, logfmt_message_t, mi), t0, t1)
        && ++scanned > 2 * MAX_MSGS_SCANNED)
      {
        s->arrows_skipped = TRUE;
        g_array_unref (msgs);
        return;
      }
  guint in_window = (guint) scanned;
  scanned = 0;
  guint32 *slot_of = slot_table (log, s->p.slots, in_window);
  for (guint mi = from; mi < to; mi++)
    {
      const logfmt_message_t m = g_array_index (msgs, logfmt_message_t, mi);
      if (!msg_meets (&m, t0, t1))
        continue;
      if (++scanned > 2 * MAX_MSGS_SCANNED)
        {
          /* Messages bunched in this window: give up, as above. */
          s->arrows_skipped = TRUE;
          g_array_set_size (s->arrows, 0);
          break;
        }
      if (m.send_stream == LOGFMT_NO_STREAM
          || m.recv_stream == LOGFMT_NO_STREAM
          || m.send_stream >= log->nrows || m.recv_stream >= log->nrows)
        continue;
      MvArrow a = { .count = 1, .msg = m };
      guint rs = log->stream_row[m.send_stream];
      guint rr = log->stream_row[m.recv_stream];
      guint ss = slot_of ? slot_of[rs] : mv_slots_find_row (s->p.slots, rs);
      guint sr = slot_of ? slot_of[rr] : mv_slots_find_row (s->p.slots, rr);
      /* A message inside a collapsed group is not drawn: both ends
       * are its one row. */
      if (s->p.slots && ss == sr
          && mv_slots_get (s->p.slots, ss).row_count > 1)
        continue;
      a.y0 = (float) slot_center (s, ss);
      a.y1 = (float) slot_center (s, sr);
      if ((a.y0 < 0 && a.y1 < 0)
          || (a.y0 > s->p.height && a.y1 > s->p.height))
        continue;
      a.x0 = (float) mv_time_map_x (&s->map, m.send_time);
      a.x1 = (float) mv_time_map_x (&s->map, m.recv_time);
      s->nmessages++;
      if (cells.at != NULL)
        cell_add (s, &cells, &a);
      else
        {
          g_array_append_val (s->arrows, a);
          if (s->arrows->len > MV_SCENE_MAX_ARROWS)
            {
              /* Too many to tell apart: switch to count-weighted cells. */
              GArray *old = s->arrows;
              /* Sized for every message left (pages are touched only
               * as cells are added): no copying as it grows. */
              s->arrows = g_array_sized_new (FALSE, FALSE, sizeof (MvArrow),
                                             MIN (to - mi + old->len,
                                                  2 * MAX_MSGS_SCANNED + 1));
              cells_init (&cells, MIN (in_window, 2 * MAX_MSGS_SCANNED));
              for (guint i = 0; i < old->len; i++)
                cell_add (s, &cells, &g_array_index (old, MvArrow, i));
              g_array_unref (old);
              s->arrows_aggregated = TRUE;
            }
        }
    }
  g_array_unref (msgs);
  g_free (slot_of);
  cells_clear (&cells);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hit testing of a scene (what is under the pointer) and the tooltip
 * text for what was hit.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mv-restracks.h"
#include "mv-scene.h"

/* Events read ahead for the end of a state open past the window (a
 * tooltip must not stall on a huge stream). */
#define MV_DESCRIBE_MAX_SCAN 2000000u

static double
seg_dist (double px, double py, double x0, double y0, double x1, double y1)
{
  double dx = x1 - x0, dy = y1 - y0;
  double l2 = dx * dx + dy * dy;
  double t = l2 > 0 ? ((px - x0) * dx + (py - y0) * dy) / l2 : 0;
  t = CLAMP (t, 0, 1);
  double cx = x0 + t * dx - px, cy = y0 + t * dy - py;
  return sqrt (cx * cx + cy * cy);
}

gboolean
mv_scene_hit (const MvScene *s, double x, double y, MvHit *hit)
{
  memset (hit, 0, sizeof *hit);
  if (s == NULL || x < 0 || x >= s->p.width || y < 0)
    return FALSE;
  const MvLane *lane = NULL;
  for (guint i = 0; i < s->nlanes; i++)
    if (y >= s->lanes[i].y && y < s->lanes[i].y + MAX (s->lanes[i].h, 1))
      lane = &s->lanes[i];
  /* Arrows lie over the bars: test them first. */
  if (s->arrows)
    {
      double best = 3.0;
      for (guint i = 0; i < s->arrows->len; i++)
        {
          const MvArrow *a = &g_array_index (s->arrows, MvArrow, i);
          double d = seg_dist (x, y, a->x0, a->y0, a->x1, a->y1);
          if (d < best)
            {
              best = d;
              hit->kind = MV_HIT_ARROW;
              hit->arrow = a;
            }
        }
      if (hit->kind == MV_HIT_ARROW)
        return TRUE;
    }
  if (lane == NULL)
    return FALSE;
  hit->lane = lane;
  if (lane->counter != NULL)
    {
      double cy, ch;
      mv_scene_counter_strip (lane, &cy, &ch);
      int px = (int) x;
      if (y >= cy && px >= 0 && px < s->p.width && lane->counter[px].known)
        {
          hit->kind = MV_HIT_COUNTER;
          hit->px = px;
          return TRUE;
        }
    }
  if (lane->sample_fn != NULL)
    {
      double sy, sh;
      mv_scene_sample_strip (lane, &sy, &sh);
      int px = (int) x;
      if (y < sy + sh && px >= 0 && px < s->p.width && lane->sample_fn[px])
        {
          hit->kind = MV_HIT_SAMPLE;
          hit->px = px;
          return TRUE;
        }
    }
  if (lane->pixels != NULL)
    {
      hit->kind = MV_HIT_PIXEL;
      hit->px = (int) x;
      return lane->dominant[(int) x] >= 0;
    }
  if (lane->markers)
    for (guint i = 0; i < lane->markers->len; i++)
      {
        const MvMarker *m = &g_array_index (lane->markers, MvMarker, i);
        if (fabs (m->x - x) <= 4 && y < lane->y + lane->h / 2 + 2)
          {
            hit->kind = MV_HIT_MARKER;
            hit->marker = m;
            return TRUE;
          }
      }
  if (lane->spans)
    for (guint i = lane->spans->len; i-- > 0;)
      {
        const MvSpan *sp = &g_array_index (lane->spans, MvSpan, i);
        double in = mv_scene_depth_inset (lane->h, sp->depth);
        if (x >= sp->x0 - 0.5 && x <= MAX (sp->x1, sp->x0 + 1) + 0.5
            && y >= lane->y + in && y <= lane->y + lane->h - in)
          {
            hit->kind = MV_HIT_SPAN;
            hit->span = sp;
            return TRUE;
          }
      }
  return FALSE;
}

static void
append_time (GString *str, const char *what, guint64 t)
{
  g_string_append_printf (str, "\n%s: %.9f s", what, (double) t / 1e9);
}

/* The label of the group whose header the lane is, or NULL. */
static char *
lane_group_label (const MvScene *s, const MvLane *lane)
{
  const GArray *slots = s->p.slots;
  if (slots == NULL || slots->len == 0 || lane->row_count < 2)
    return NULL;
  /* Headers start with their first row: walk back over the slots that
   * start there. */
  for (guint i = mv_slots_find_row (slots, lane->row_first) + 1; i-- > 0;)
    {
      MvSlot sl = mv_slots_get (slots, i);
      if (sl.row_first != lane->row_first)
        break;
      if (sl.row_count == lane->row_count && sl.group >= 0)
        return mv_slot_label (s->log, &sl);
    }
  return NULL;
}

static void
append_row (GString *str, const MvLog *log, guint row)
{
  const MvRow *r = &log->rows[row];
  g_string_append_printf (str, "\nrank %d, thread %d", r->rank, r->thread);
  if (r->host)
    g_string_append_printf (str, " on %s", r->host);
}

char *
mv_scene_describe (const MvScene *s, const MvHit *hit)
{
  const MvLog *log = s->log;
  GString *str = g_string_new (NULL);
  char buf[64];
  switch (hit->kind)
    {
    case MV_HIT_SAMPLE:
      {
        const char *fn = mv_sample_source_func_name
                           (s->p.samples, hit->lane->sample_fn[hit->px]);
        g_string_append_printf (str, "%s: %s", s->p.sample_depth
                                ? "stack frame" : "sampled in",
                                fn ? fn : "?");
        if (s->p.sample_depth)
          g_string_append_printf (str, " (depth %d)", s->p.sample_depth);
        append_row (str, log, hit->lane->row_first);
        append_time (str, "at", mv_time_map_t (&s->map, hit->px + 0.5));
        break;
      }
    case MV_HIT_COUNTER:
      {
        const logfmt_metric_bin_t *b = &hit->lane->counter[hit->px];
        if (s->p.restrack)
          {
            /* Memory and network tracks: named, in bytes. */
            const char *per = s->p.restrack == MV_RESTRACK_NETWORK ? "/s"
                                                                  : "";
            char *v = g_format_size ((guint64) MAX (b->last, 0));
            g_string_append_printf (str, "%s: %s%s (%" G_GINT64_FORMAT
                                    " bytes%s)",
                                    mv_restrack_name (s->p.restrack), v, per,
                                    b->last, per);
            g_free (v);
            if (b->min != b->max)
              {
                char *lo = g_format_size ((guint64) MAX (b->min, 0));
                char *hi = g_format_size ((guint64) MAX (b->max, 0));
                g_string_append_printf (str, "\nin this pixel: %s%s .. %s%s "
                                        "(%" G_GUINT64_FORMAT " samples)",
                                        lo, per, hi, per, b->samples);
                g_free (lo);
                g_free (hi);
              }
            append_row (str, log, hit->lane->row_first);
            append_time (str, "at", mv_time_map_t (&s->map, hit->px + 0.5));
            break;
          }
        int di = logfmt_reader_find_metric (log->reader, s->p.metric);
        const logfmt_metric_def_t *d
          = di >= 0 ? logfmt_reader_metric (log->reader, (size_t) di) : NULL;
        const char *unit = d && d->unit && strcmp (d->unit, "1") != 0
                           ? d->unit : "";
        g_string_append_printf (str, "%s = %" G_GINT64_FORMAT " %s",
                                d && d->name ? d->name : "metric", b->last,
                                unit);
        if (b->min != b->max)
          g_string_append_printf (str, "\nin this pixel: %" G_GINT64_FORMAT
                                  " .. %" G_GINT64_FORMAT " (%" G_GUINT64_FORMAT
                                  " samples)", b->min, b->max, b->samples);
        append_row (str, log, hit->lane->row_first);
        append_time (str, "at", mv_time_map_t (&s->map, hit->px + 0.5));
        break;
      }
    case MV_HIT_SPAN:
      {
        const MvSpan *sp = hit->span;
        const logfmt_state_def_t *d = mv_log_state (log, sp->state);
        g_string_append (str, d && d->name ? d->name : "(unnamed state)");
        if (sp->count > 1)
          g_string_append_printf (str, " (%u instances, zoom in)", sp->count);
        append_row (str, log, hit->lane->row_first);
        guint32 stream = log->rows[hit->lane->row_first].stream;
        /* A state open past the window: its end is looked up ahead. */
        guint64 t_end = sp->t_end;
        gboolean ended = !(sp->flags & (MV_SPAN_OPEN_RIGHT | MV_SPAN_CUT));
        if ((sp->flags & MV_SPAN_OPEN_RIGHT) && sp->count == 1
            && !(sp->flags & MV_SPAN_OPEN_LEFT)
            && mv_log_find_instance_end (log, stream, sp->t_begin, sp->state,
                                         MV_DESCRIBE_MAX_SCAN, &t_end))
          ended = TRUE;
        if (sp->flags & MV_SPAN_OPEN_LEFT)
          g_string_append (str, "\nstart: before the decoded range");
        else
          append_time (str, "start", sp->t_begin);
        if (ended)
          append_time (str, (sp->flags & MV_SPAN_OPEN_RIGHT)
                            ? "end (after the window)" : "end", t_end);
        else if (sp->flags & MV_SPAN_OPEN_RIGHT)
          g_string_append (str, "\nend: after the window");
        else
          append_time (str, "never ended; the stream ends", sp->t_end);
        if (ended && !(sp->flags & MV_SPAN_OPEN_LEFT))
          {
            mv_format_duration (t_end - sp->t_begin, buf, sizeof buf);
            g_string_append_printf (str, "\nduration: %s", buf);
          }
        /* The info of the start and of the end event (MPE's info
         * states: the end's often holds the result, cpilog's sum). */
        logfmt_event_t ev;
        char out[256];
        if (d && d->format && sp->count == 1
            && !(sp->flags & MV_SPAN_OPEN_LEFT)
            && mv_log_find_begin (log, stream, sp->t_begin, sp->state, &ev)
            && (ev.flags & LOGFMT_EVF_CARGO))
          {
            logfmt_format_cargo (d->format, ev.cargo, sizeof ev.cargo,
                                 out, sizeof out);
            g_string_append_printf (str, "\nstart info: %s", out);
          }
        if (d && d->format && sp->count == 1 && ended
            && mv_log_find_end (log, stream, t_end, sp->state, &ev)
            && (ev.flags & LOGFMT_EVF_CARGO))
          {
            logfmt_format_cargo (d->format, ev.cargo, sizeof ev.cargo,
                                 out, sizeof out);
            g_string_append_printf (str, "\nend info: %s", out);
          }
        break;
      }
    case MV_HIT_MARKER:
      {
        const MvMarker *m = hit->marker;
        const logfmt_event_def_t *d = m->evdef >= 0
                                      ? mv_log_evdef (log, m->evdef) : NULL;
        if (m->loss && m->count == 1)
          g_string_append_printf (str, "%d events lost (buffer full)", m->id);
        else if (m->loss)
          g_string_append (str, "events lost (buffer full)");
        else if (d && d->name)
          g_string_append (str, d->name);
        else
          g_string_append_printf (str, "event %d", m->id);
        if (m->count > 1)
          g_string_append_printf (str, " (%u events, zoom in)", m->count);
        append_row (str, log, hit->lane->row_first);
        append_time (str, "time", m->time);
        if (d && d->format && (m->flags & LOGFMT_EVF_CARGO))
          {
            char out[256];
            logfmt_format_cargo (d->format, m->cargo, sizeof m->cargo,
                                 out, sizeof out);
            g_string_append_printf (str, "\n%s", out);
          }
        break;
      }
    case MV_HIT_ARROW:
      {
        const logfmt_message_t *m = &hit->arrow->msg;
        if (hit->arrow->count > 1)
          g_string_append_printf (str, "%u messages (zoom in); first:\n",
                                  hit->arrow->count);
        g_string_append_printf (str, "message rank %d -> rank %d\n"
                                "tag %d, %" G_GUINT64_FORMAT " bytes, "
                                "comm %u", m->send_rank, m->recv_rank,
                                m->tag, m->size, m->comm);
        append_time (str, "send", m->send_time);
        append_time (str, "receive", m->recv_time);
        mv_format_duration (m->recv_time - m->send_time, buf, sizeof buf);
        g_string_append_printf (str, "\nin flight: %s", buf);
        break;
      }
    case MV_HIT_PIXEL:
      {
        int dom = hit->lane->dominant[hit->px];
        const logfmt_state_def_t *d = dom >= 0 ? mv_log_state (log, dom)
                                               : NULL;
        g_string_append_printf (str, "mostly %s (states cover %u%% of "
                                "this pixel)", d && d->name ? d->name : "?",
                                hit->lane->dom_pct[hit->px]);
        char *group = lane_group_label (s, hit->lane);
        if (group)
          {
            g_string_append_printf (str, "\n%s", group);
            g_free (group);
          }
        else if (hit->lane->row_count > 1)
          g_string_append_printf (str, "\nranks %d .. %d",
                                  log->rows[hit->lane->row_first].rank,
                                  log->rows[hit->lane->row_first
                                            + hit->lane->row_count - 1].rank);
        else
          append_row (str, log, hit->lane->row_first);
        g_string_append (str, "\nzoom in for single instances");
        break;
      }
    default:
      break;
    }
  return g_string_free (str, FALSE);
}

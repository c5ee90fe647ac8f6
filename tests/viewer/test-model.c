/* SPDX-License-Identifier: BSD-3-Clause */
/* Viewer model tests, no GTK: mapping, ticks, LOD choice, state stack
 * reconstruction, arrows, statistics, search, on a hand-built log. */
#include "config.h"

#include <math.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "tests/common/tap.h"
#include "tests/viewer/mv-testlog.h"
#include "viewer/app/mv-export.h"
#include "viewer/draw/mv-draw.h"
#include "viewer/model/mv-cache.h"
#include "viewer/model/mv-groups.h"
#include "viewer/model/mv-intervals.h"
#include "viewer/model/mv-matrix.h"
#include "viewer/model/mv-pyramid.h"
#include "viewer/model/mv-restracks.h"
#include "viewer/model/mv-scene.h"
#include "viewer/model/mv-stats.h"
#include "viewer/model/mv-view.h"

static void
test_view (void)
{
  MvView v;
  mv_view_init (&v, 0, 1000, 500);
  ok (mv_view_time_to_x (&v, 500) == 250.0, "t=500 maps to x=250");
  ok (mv_view_x_to_time (&v, 100) == 200, "x=100 maps to t=200");
  ok (mv_view_x_to_time (&v, -5) == 0, "left of the plot clamps to lo");
  ok (mv_view_time_to_x (&v, v.t0) == 0 && mv_view_time_to_x (&v, v.t1) == 500
      && mv_view_x_to_time (&v, 0) == v.t0
      && mv_view_x_to_time (&v, 500) == v.t1,
      "the view's edges map both ways exactly");
  /* The one mapping, with times as big as real ones (ns since 1970,
   * beyond a double's exact range) and awkward spans and widths. */
  static const struct { guint64 t0, span; double w; } maps[] = {
    { 1763990000123456789ull, 1, 1920 },
    { 1763990000123456789ull, 7, 1913 },
    { 1763990000123456789ull, 999999937, 1913 },
    { 1763990000123456789ull, 86400000000123ull, 1000 },
    { 17, 49, 3 },
  };
  gboolean edges = TRUE, inverse = TRUE, order = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (maps); i++)
    {
      MvTimeMap m = mv_time_map (maps[i].t0, maps[i].t0 + maps[i].span,
                                 maps[i].w);
      edges &= mv_time_map_x (&m, m.t0) == 0
               && mv_time_map_x (&m, m.t1) == maps[i].w
               && mv_time_map_t (&m, 0) == m.t0
               && mv_time_map_t (&m, maps[i].w) == m.t1
               && mv_time_map_x (&m, m.t0 - 1) < 0
               && mv_time_map_x (&m, m.t1 + 1) > maps[i].w;
      /* Every pixel: the time found maps back into that pixel's half
       * nanosecond (or the pixel itself when a pixel is < 1 ns). */
      double px_per_ns = maps[i].w / (double) maps[i].span;
      double prev = -1;
      for (double x = 0; x <= maps[i].w; x += 1)
        {
          guint64 t = mv_time_map_t (&m, x);
          double back = mv_time_map_x (&m, t);
          inverse &= fabs (back - x) <= 0.5 * px_per_ns + 1e-9;
          order &= back >= prev;
          prev = back;
        }
    }
  ok (edges, "time map: t0 -> 0 and t1 -> width exactly, and back");
  ok (inverse, "time map: x -> t -> x within half a nanosecond");
  ok (order, "time map: monotonic");
  MvTimeMap big = mv_time_map (5, 1000, 100);
  ok (mv_time_map_t (&big, -1e9) == 0
      && mv_time_map_t (&big, 1e30) == G_MAXUINT64,
      "time map: the inverse clamps to the time range");
  mv_view_zoom_at (&v, 250, 2.0);
  ok (v.t0 == 250 && v.t1 == 750, "zoom x2 around the centre: [%"
      G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "]", v.t0, v.t1);
  mv_view_zoom_at (&v, 0, 2.0);
  ok (v.t0 == 250 && v.t1 == 500, "zoom keeps the time under the pointer");
  mv_view_pan (&v, 100);
  ok (v.t0 == 300 && v.t1 == 550, "pan 100 px = 50 ns at this scale");
  mv_view_pan (&v, 10000);
  ok (v.t0 == 750 && v.t1 == 1000, "pan clamps at the end");
  mv_view_set (&v, 100, 200, TRUE);
  mv_view_set (&v, 120, 130, TRUE);
  ok (mv_view_back (&v) && v.t0 == 100 && v.t1 == 200, "history back");
  ok (mv_view_back (&v) && v.t0 == 750 && v.t1 == 1000, "back again");
  ok (!mv_view_back (&v), "history start");
  ok (mv_view_forward (&v) && v.t0 == 100 && v.t1 == 200, "forward");
  mv_view_set (&v, 5, 6, FALSE);
  ok (v.t1 - v.t0 == 10, "minimum span is 10 ns");
  mv_view_fit (&v);
  ok (v.t0 == 0 && v.t1 == 1000, "fit all");
  mv_view_clear (&v);

  ok (mv_ticks_step (1000, 1000, 90) == 100, "ticks: 1000 ns on 1000 px "
      "-> 100 ns");
  ok (mv_ticks_step (1000000000, 1600, 90) == 100000000,
      "ticks: 1 s on 1600 px -> 100 ms");
  ok (mv_ticks_step (7000, 1000, 90) == 1000, "ticks: 7 us -> 1 us");
  ok (mv_ticks_step (3000, 1000, 90) == 500, "ticks: 3 us -> 500 ns");
  char buf[64];
  mv_format_time (1500000, 500000, buf, sizeof buf);
  ok (g_str_equal (buf, "1.5 ms"), "format 1.5 ms: '%s'", buf);
  mv_format_time (2000000000, 1000000000, buf, sizeof buf);
  ok (g_str_equal (buf, "2 s"), "format 2 s: '%s'", buf);
  mv_format_time (250, 50, buf, sizeof buf);
  ok (g_str_equal (buf, "250 ns"), "format 250 ns: '%s'", buf);
  mv_format_duration (12345, buf, sizeof buf);
  ok (g_str_equal (buf, "12.35 us"), "duration 12.35 us: '%s'", buf);

  guint64 t = 0;
  ok (mv_parse_time ("1.5", &t) && t == 1500000000, "parse 1.5 (s)");
  ok (mv_parse_time ("20ms", &t) && t == 20000000, "parse 20ms");
  ok (mv_parse_time ("3us", &t) && t == 3000, "parse 3us");
  ok (mv_parse_time ("100ns", &t) && t == 100, "parse 100ns");
  ok (!mv_parse_time ("abc", &t) && !mv_parse_time ("-1", &t)
      && !mv_parse_time ("5 parsecs", &t), "reject bad times");
}

/* Counter tracks: the metric's step values per pixel under each
 * process, a common scale, and the value under the pointer. */
static void
test_counters (const char *path)
{
  GError *error = NULL;
  ok (mv_testlog_write_metric (path) == 0, "metric test log written");
  g_autoptr (MvLog) log = mv_log_open (path, NULL, NULL, &error);
  ok (log != NULL, "metric log opened");
  if (log == NULL)
    return;
  g_autoptr (MvCache) cache = mv_cache_new (log);
  MvSceneParams p = { .t0 = 0, .t1 = 1000000, .width = 1000, .height = 100,
                      .row_h = 50, .force_lod = -1 };
  MvScene *s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s && s->lanes[0].counter == NULL && !s->counter_known,
      "no counter track unless asked");
  mv_scene_free (s);
  p.show_metric = TRUE;
  p.metric = 7;
  s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s && s->nlanes == 2 && s->lanes[0].counter && s->lanes[1].counter,
      "a counter track under each process");
  if (s == NULL || s->lanes[0].counter == NULL || s->lanes[1].counter == NULL)
    {
      mv_scene_free (s);
      return;
    }
  const logfmt_metric_bin_t *c0 = s->lanes[0].counter;
  ok (c0[100].last == 0 && c0[300].last == 40 && c0[600].last == 10
      && c0[900].last == 30, "rank 0 steps 0, 40, 10, 30: %lld %lld %lld "
      "%lld", (long long) c0[100].last, (long long) c0[300].last,
      (long long) c0[600].last, (long long) c0[900].last);
  ok (s->lanes[1].counter[500].last == 20, "rank 1 holds 20");
  ok (s->counter_known && s->counter_lo == 0 && s->counter_hi == 40,
      "one scale for both: 0 .. 40");
  double cy, ch;
  mv_scene_counter_strip (&s->lanes[0], &cy, &ch);
  MvHit hit;
  ok (mv_scene_hit (s, 300, cy + ch - 1, &hit) && hit.kind == MV_HIT_COUNTER
      && hit.px == 300, "the strip under rank 0 is the counter");
  char *d = mv_scene_describe (s, &hit);
  ok (strstr (d, "queue = 40") && strstr (d, "rank 0"), "hover: %s", d);
  g_free (d);
  /* The same strip as a memory track (MPE_MEMORY=1): named, in bytes,
   * not "metric = N". */
  s->p.restrack = MV_RESTRACK_MEMORY;
  d = mv_scene_describe (s, &hit);
  ok (strstr (d, "Memory: live bytes per process: 40 bytes")
      && !strstr (d, "metric ="), "hover on a memory track: %s", d);
  g_free (d);
  s->p.restrack = MV_RESTRACK_NONE;
  ok (mv_scene_hit (s, 300, 5, &hit) && hit.kind == MV_HIT_SPAN,
      "above the strip: the state");
  mv_scene_free (s);
  p.metric = 99;
  s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s && s->lanes[0].counter == NULL && !s->counter_known,
      "a metric the log does not have: no track");
  mv_scene_free (s);
}

/* The matrix heat map: blocks of ranks sum their cells. */
static void
test_matrix_grid (const char *path)
{
  GError *error = NULL;
  ok (mv_testlog_write_n (path, 1, 6) == 0, "6-rank test log written");
  g_autoptr (MvLog) log = mv_log_open (path, NULL, NULL, &error);
  MvMatrix *mm = log ? mv_matrix_compute (log, 0, G_MAXUINT64, FALSE, 0,
                                          &error) : NULL;
  ok (mm != NULL && mm->m->nranks == 6 && mm->m->messages == 3,
      "matrix: 6 ranks, 3 messages (0->1, 2->3, 4->5)");
  if (mm == NULL)
    return;
  MvMatrixGrid *g = mv_matrix_grid (mm, MV_MATRIX_COUNT, 100);
  ok (g->group == 1 && g->n == 6 && g->v[0 * 6 + 1] == 1 && g->v[1 * 6 + 0] == 0
      && g->v[4 * 6 + 5] == 1 && g->vmax == 1, "one block per rank");
  mv_matrix_grid_free (g);
  g = mv_matrix_grid (mm, MV_MATRIX_BYTES, 4);
  ok (g->group == 2 && g->n == 3 && g->v[0] == 64 && g->v[1 * 3 + 1] == 64
      && g->v[2 * 3 + 2] == 64 && g->v[1] == 0 && g->vmax == 64,
      "4 pixels: blocks of 2 ranks, each pair's 64 bytes on the diagonal");
  mv_matrix_grid_free (g);
  g = mv_matrix_grid (mm, MV_MATRIX_COUNT, 1);
  ok (g->n == 1 && g->v[0] == 3, "1 pixel: everything in one block");
  mv_matrix_grid_free (g);
  GArray *a = mv_matrix_messages (mm, 2, 3, 0, 5, 10, NULL);
  ok (a && a->len == 1
      && g_array_index (a, logfmt_message_t, 0).send_rank == 2,
      "the messages of a block: 2 -> 3");
  if (a)
    g_array_unref (a);
  mv_matrix_free (mm);
}

static const MvSpan *
span_at (const MvLane *l, guint i)
{
  return i < l->spans->len ? &g_array_index (l->spans, MvSpan, i) : NULL;
}

static void
test_scene (MvLog *log)
{
  g_autoptr (MvCache) cache = mv_cache_new (log);
  MvSceneParams p = { .t0 = 0, .t1 = 1000, .width = 1000, .height = 44,
                      .row_h = 22, .force_lod = -1 };
  ok (!mv_scene_choose_summary (log, &p), "small window: decode");
  MvSceneParams q = p;
  q.budget = 5;
  ok (mv_scene_choose_summary (log, &q), "over the budget: summaries");
  q = p;
  q.row_h = 2;
  ok (mv_scene_choose_summary (log, &q), "rows < 4 px: summaries");

  GError *error = NULL;
  MvScene *s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s != NULL && !s->summary && s->nlanes == 2, "scene: 2 decoded lanes");
  if (s == NULL)
    return;
  const MvLane *l0 = &s->lanes[0], *l1 = &s->lanes[1];
  ASSERT_EQ (l0->spans->len, 3, "rank 0 spans");
  const MvSpan *a = span_at (l0, 0), *b = span_at (l0, 2),
               *a2 = span_at (l0, 1);
  ok (a && a->state == 0 && a->depth == 0 && a->t_begin == 100
      && a->t_end == 600 && a->x0 == 100 && a->x1 == 600,
      "A [100,600] depth 0 at x 100..600");
  ok (a2 && a2->state == 0 && a2->t_begin == 800 && a2->t_end == 1000,
      "A [800,1000]");
  ok (b && b->state == 1 && b->depth == 1 && b->t_begin == 200
      && b->t_end == 300, "B [200,300] nested at depth 1");
  ASSERT_EQ (l0->markers->len, 1, "rank 0 markers");
  const MvMarker *m = &g_array_index (l0->markers, MvMarker, 0);
  ok (m->x == 700 && m->id == 10 && m->evdef == 0, "E marker at x=700");
  ASSERT_EQ (l1->spans->len, 2, "rank 1 spans");
  ASSERT_EQ (s->arrows->len, 1, "one arrow");
  const MvArrow *ar = &g_array_index (s->arrows, MvArrow, 0);
  ok (ar->x0 == 400 && ar->x1 == 500 && ar->y0 == 11 && ar->y1 == 33
      && ar->msg.tag == 5 && ar->msg.size == 64,
      "arrow (400,11) -> (500,33), tag 5, 64 bytes");

  MvHit hit;
  ok (mv_scene_hit (s, 250, 11, &hit) && hit.kind == MV_HIT_SPAN
      && hit.span->state == 1, "hit at (250,11) is B");
  char *d = mv_scene_describe (s, &hit);
  ok (strstr (d, "B") && strstr (d, "duration: 100 ns")
      && strstr (d, "rank 0, thread 0 on node0"), "B details: %s", d);
  g_free (d);
  ok (mv_scene_hit (s, 150, 11, &hit) && hit.kind == MV_HIT_SPAN
      && hit.span->state == 0, "hit at (150,11) is A");
  d = mv_scene_describe (s, &hit);
  ok (strstr (d, "x=42") != NULL, "A's cargo decoded: %s", d);
  g_free (d);
  ok (mv_scene_hit (s, 450, 22, &hit) && hit.kind == MV_HIT_ARROW,
      "hit on the arrow");
  d = mv_scene_describe (s, &hit);
  ok (strstr (d, "tag 5, 64 bytes") && strstr (d, "in flight: 100 ns"),
      "arrow details: %s", d);
  g_free (d);
  ok (!mv_scene_hit (s, 50, 11, &hit), "nothing at (50,11)");
  mv_scene_free (s);

  /* A window inside A on rank 0: the state begun before it is known. */
  p.t0 = 250;
  p.t1 = 550;
  p.width = 300;
  s = mv_scene_compute (cache, &p, NULL, &error);
  a = span_at (&s->lanes[0], 0);
  ok (a && a->state == 0 && a->depth == 0 && a->t_begin == 100
      && a->x0 == -1 && a->t_end == 550 && (a->flags & MV_SPAN_OPEN_RIGHT),
      "A open at both edges of [250,550]");
  b = span_at (&s->lanes[0], 1);
  ok (b && b->state == 1 && b->depth == 1 && b->x0 == -1 && b->x1 == 50,
      "B clipped to x -1..50");
  /* That window lies inside the first one's decoded range (plus its
   * margin): served from the event cache, nothing decoded again. */
  ASSERT_EQ (s->decoded, 0, "inner window: events from the cache");
  mv_scene_free (s);
  /* The first window again: from the cache, with the same spans. */
  MvSceneParams far = p;
  far.t0 = 0;
  far.t1 = 1000;
  far.width = 1000;
  s = mv_scene_compute (cache, &far, NULL, &error);
  ok (s->decoded == 0 && s->lanes[0].spans->len == 3
      && span_at (&s->lanes[0], 0)->t_end == 600,
      "first window again: cached, same 3 spans on rank 0");
  mv_scene_free (s);

  /* Hidden state: A disappears, B stays. */
  guint8 hidden[2] = { 1, 0 };
  p.t0 = 0;
  p.t1 = 1000;
  p.width = 1000;
  p.state_hidden = hidden;
  s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s->lanes[0].spans->len == 1 && span_at (&s->lanes[0], 0)->state == 1,
      "hiding A leaves only B on rank 0");
  mv_scene_free (s);
}

static gboolean
near (guint32 got, guint32 want)
{
  for (int sh = 0; sh <= 16; sh += 8)
    if (ABS ((int) ((got >> sh) & 0xff) - (int) ((want >> sh) & 0xff)) > 8)
      return FALSE;
  return TRUE;
}

/* Same log in microseconds, 1 us pixels: the summary level used is
 * then about one pixel wide, so colours away from edges are within a
 * few units. */
static void
test_summary (MvLog *log)
{
  g_autoptr (MvCache) cache = mv_cache_new (log);
  GError *error = NULL;
  MvSceneParams p = { .t0 = 0, .t1 = 1000000, .width = 1000, .height = 44,
                      .row_h = 22, .force_lod = 1 };
  MvScene *s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s && s->summary, "forced summaries");
  if (s)
    {
      const guint32 *px = s->lanes[0].pixels;
      ok (px[50] == 0xffffff, "t=50us empty: %06x", px[50]);
      ok (near (px[150], 0xff0000), "t=150us A: %06x", px[150]);
      ok (near (px[250], 0x00ff00), "t=250us B: %06x", px[250]);
      ok (near (px[650], 0xffffff), "t=650us empty: %06x", px[650]);
      ok (s->lanes[0].dominant[150] == 0 && s->lanes[0].dom_pct[150] >= 97,
          "dominant state at 150us is A (%u%%)", s->lanes[0].dom_pct[150]);
    }
  mv_scene_free (s);

  /* 2 rows in one pixel: one aggregated lane. */
  p.force_lod = -1;
  p.row_h = 0.5;
  p.height = 1;
  s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s && s->summary && s->nlanes == 1 && s->lanes[0].row_count == 2,
      "rows thinner than a pixel are aggregated");
  if (s)
    ok (near (s->lanes[0].pixels[650], 0xff8080),
        "t=650us: A on one of two ranks blends 50%%: %06x",
        s->lanes[0].pixels[650]);
  mv_scene_free (s);
  /* The aggregated lane's cached pyramid follows the hidden states. */
  guint8 hide_a[2] = { 1, 0 };
  p.state_hidden = hide_a;
  s = mv_scene_compute (cache, &p, NULL, &error);
  if (s)
    ok (s->lanes[0].pixels[650] == 0xffffff && near (s->lanes[0].pixels[250],
                                                     0x00ff00),
        "A hidden: t=650us empty (%06x), t=250us still B (%06x)",
        s->lanes[0].pixels[650], s->lanes[0].pixels[250]);
  mv_scene_free (s);
  p.state_hidden = NULL;
  s = mv_scene_compute (cache, &p, NULL, &error);
  if (s)
    ok (near (s->lanes[0].pixels[650], 0xff8080),
        "A shown again: t=650us blends 50%% again (%06x)",
        s->lanes[0].pixels[650]);
  /* Zoomed out 4x: a coarser pyramid level, same picture. */
  mv_scene_free (s);
  p.t1 = 4000000;
  p.width = 1000;
  s = mv_scene_compute (cache, &p, NULL, &error);
  if (s)
    ok (near (s->lanes[0].pixels[40], 0xff0000)
        && s->lanes[0].pixels[400] == 0xffffff,
        "4x zoomed out: t=160us A (%06x), t=1600us empty (%06x)",
        s->lanes[0].pixels[40], s->lanes[0].pixels[400]);
  mv_scene_free (s);
}

/* A pan by whole pixels of an aggregated view copies the columns still
 * in view from the last frame: the result must equal a fresh frame. */
static void
test_pan_memo (const char *path)
{
  GError *error = NULL;
  MvLog *log = mv_log_open (path, NULL, NULL, &error);
  MvLog *fresh = mv_log_open (path, NULL, NULL, &error);
  ok (log && fresh, "64-rank log opened twice");
  if (!log || !fresh)
    return;
  g_autoptr (MvCache) cache = mv_cache_new (log);
  g_autoptr (MvCache) fresh_cache = mv_cache_new (fresh);
  /* 2,000 ns per pixel; rows 0.25 px: 16 lanes of 4 ranks. */
  MvSceneParams p = { .t0 = 0, .t1 = 2000000, .width = 1000, .height = 16,
                      .row_h = 0.25, .force_lod = -1 };
  MvScene *a = mv_scene_compute (cache, &p, NULL, &error);
  ok (a && a->summary && a->nlanes == 16 && a->pan_reused == 0,
      "first frame: 16 aggregated lanes, nothing reused");
  p.t0 += 100 * 2000;
  p.t1 += 100 * 2000;
  MvScene *b = mv_scene_compute (cache, &p, NULL, &error);
  MvScene *c = mv_scene_compute (fresh_cache, &p, NULL, &error);
  ok (b && c && b->pan_reused == 16 * 900 && c->pan_reused == 0,
      "pan by 100 px: 900 columns of 16 lanes reused (%zu)",
      b ? (size_t) b->pan_reused : 0);
  gboolean same = b && c && b->nlanes == c->nlanes;
  for (guint i = 0; same && i < b->nlanes; i++)
    same = memcmp (b->lanes[i].pixels, c->lanes[i].pixels, 4000) == 0
           && memcmp (b->lanes[i].dominant, c->lanes[i].dominant, 2000) == 0
           && memcmp (b->lanes[i].dom_pct, c->lanes[i].dom_pct, 1000) == 0;
  ok (same, "the panned frame equals a fresh one, pixel for pixel");
  mv_scene_free (b);
  /* Half a pixel: no reuse.  Back 100 px the other way: reuse again. */
  p.t0 += 1000;
  p.t1 += 1000;
  b = mv_scene_compute (cache, &p, NULL, &error);
  ok (b && b->pan_reused == 0, "a pan by half a pixel samples again");
  mv_scene_free (b);
  p.t0 -= 1000 + 100 * 2000;
  p.t1 -= 1000 + 100 * 2000;
  mv_scene_free (mv_scene_compute (cache, &p, NULL, &error));
  p.t0 += 50 * 2000;
  p.t1 += 50 * 2000;
  mv_scene_free (c);
  c = mv_scene_compute (fresh_cache, &p, NULL, &error);
  b = mv_scene_compute (cache, &p, NULL, &error);
  same = b && c && b->pan_reused == 16 * 950;
  for (guint i = 0; same && i < b->nlanes; i++)
    same = memcmp (b->lanes[i].pixels, c->lanes[i].pixels, 4000) == 0;
  ok (same, "pan by 50 px: reused and equal to a fresh frame");
  mv_scene_free (a);
  mv_scene_free (b);
  mv_scene_free (c);
  mv_log_unref (log);
  mv_log_unref (fresh);
}

/* A view whose blocks are not decoded yet is first shown coarse. */
static void
test_coarse_first (const char *path)
{
  GError *error = NULL;
  MvLog *log = mv_log_open (path, NULL, NULL, &error);
  ok (log != NULL, "64-rank log opened");
  if (log == NULL)
    return;
  g_autoptr (MvCache) cache = mv_cache_new (log);
  MvSceneParams p = { .t0 = 0, .t1 = 1000000, .width = 1000,
                      .height = 64 * 20, .row_h = 20, .force_lod = -1 };
  MvSceneParams c;
  ok (!mv_scene_choose_summary (log, &p), "64 rows of 20 px: decoded");
  ok (mv_scene_coarse_first (cache, &p, &c) && c.force_lod == 1
      && c.t0 == p.t0 && c.t1 == p.t1 && c.width == p.width,
      "nothing decoded yet: a coarse stage from summaries first");
  MvScene *s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s && !s->summary && s->decoded > 0, "the full scene decodes");
  mv_scene_free (s);
  ok (!mv_scene_coarse_first (cache, &p, &c),
      "once decoded: no coarse stage for the same view");
  p.force_lod = 1;
  ok (!mv_scene_coarse_first (cache, &p, &c),
      "a view from summaries needs no coarse stage");
  mv_log_unref (log);
}

/* Zoomed in further than the whole-run pyramids resolve, lanes of
 * several rows come from the file: each row's step from A to B (rank r
 * at 500000 + r ns) lands on its own pixel.  Lane L holds ranks 4L..4L+3,
 * whose steps are at pixels 400 + 8L + {0, 2, 4, 6} (0.5 ns a pixel). */
static int
steps_right (const MvScene *s, int nlanes)
{
  int right = 0;
  for (int l = 0; l < nlanes && l < (int) s->nlanes; l++)
    {
      const MvLane *ln = &s->lanes[l];
      int x = 400 + 8 * l;
      right += ln->row_first == (guint) (4 * l) && ln->row_count == 4
               && ln->pixels && ln->dominant[x - 1] == 0
               && ln->dominant[x + 7] == 1 && ln->dom_pct[x - 1] == 100;
    }
  return right;
}

/* A step log of nranks ranks written to path and opened: NULL when
 * either failed (each a test point). */
static MvLog *
open_step_log (const char *path, int nranks, GError **error)
{
  ok (mv_testlog_write_steps (path, nranks) == 0,
      "%d-rank step log written", nranks);
  MvLog *log = mv_log_open (path, NULL, NULL, error);
  ok (log != NULL, "%d-rank step log opened", nranks);
  return log;
}

static void
test_fine_lanes (const char *path)
{
  GError *error = NULL;
  MvLog *log = open_step_log (path, 400, &error);
  if (log == NULL)
    return;
  g_autoptr (MvCache) cache = mv_cache_new (log);
  MvSceneParams p = { .t0 = 499800, .t1 = 500300, .width = 1000,
                      .height = 100, .row_h = 0.25, .force_lod = -1 };
  MvSceneParams c;
  ok (mv_scene_coarse_first (cache, &p, &c) && c.coarse_lanes && c.t0 == p.t0,
      "zoomed in past the pyramids: a coarse stage first");
  MvScene *s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s && s->summary && s->fine && s->decoded > 0,
      "the full stage decodes the rows (%" G_GUINT64_FORMAT " events)",
      s ? s->decoded : 0);
  int right = s ? steps_right (s, 20) : 0;
  ok (right == 20, "every lane steps from A to B where its rows do "
      "(%d of 20)", right);
  mv_scene_free (s);
  /* The next view starts from the states the last one left open at its
   * start (kept in the cache): the same picture as from a fresh cache. */
  MvSceneParams q = p;
  q.t0 += 100;
  q.t1 += 100;
  g_autoptr (MvCache) fresh = mv_cache_new (log);
  MvScene *s1 = mv_scene_compute (cache, &q, NULL, &error);
  MvScene *s2 = mv_scene_compute (fresh, &q, NULL, &error);
  gboolean same = s1 && s2 && s1->fine && s2->fine && s1->nlanes == s2->nlanes
                  && s1->decoded < s2->decoded;
  for (guint i = 0; same && i < s1->nlanes; i++)
    same = memcmp (s1->lanes[i].pixels, s2->lanes[i].pixels,
                   q.width * sizeof (guint32)) == 0;
  ok (same, "fine lanes restarted where the last view left them: fewer "
      "records read (%" G_GUINT64_FORMAT " < %" G_GUINT64_FORMAT "), the "
      "same pixels", s1 ? s1->decoded : 0, s2 ? s2->decoded : 0);
  mv_scene_free (s1);
  mv_scene_free (s2);
  s = mv_scene_compute (cache, &c, NULL, &error);
  right = s ? steps_right (s, 20) : 20;
  ok (s && !s->fine && right < 20,
      "the coarse stage cannot tell (%d of 20 lanes right)", right);
  mv_scene_free (s);
  /* Fit all: the pyramids resolve a pixel; nothing is decoded. */
  p.t0 = 0;
  p.t1 = 1000000;
  ok (!mv_scene_coarse_first (cache, &p, &c), "fit all: one stage");
  s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s && s->summary && !s->fine && s->decoded == 0,
      "fit all: from the pyramids");
  mv_scene_free (s);
  mv_log_unref (log);
}

/* The open states at t0 (outermost first) as "state@start" words. */
static GString *
open_list (MvTracker *t)
{
  GString *g = g_string_new (NULL);
  for (guint i = 0; i < mv_tracker_depth (t); i++)
    {
      const logfmt_interval_t *iv = mv_tracker_open (t, i);
      g_string_append_printf (g, "%d@%" G_GUINT64_FORMAT " ", iv->state,
                              iv->start);
    }
  return g;
}

/* Pass 1 over ev[from .. to) in batches. */
static void
scan_range (MvTracker *t, const logfmt_event_t *ev, guint from, guint to)
{
  for (guint i = from; i < to; i += MV_TRACKER_BATCH)
    mv_tracker_seed_scan_batch (t, ev + i, MIN (MV_TRACKER_BATCH, to - i));
}

/* A lookback scanned once (mv_tracker_seed_lookback) leaves the tracker
 * as applying its records again does: random records of 4 states that
 * nest, overlap, and end without a begin, every split point. */
static void
test_seed_lookback (void)
{
  enum { N = 600, NS = 4 };
  static logfmt_event_t ev[N];
  guint64 x = 88172645463325252ull;
  for (guint i = 0; i < N; i++)
    {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      memset (&ev[i], 0, sizeof ev[i]);
      ev[i].time = 1000 + 10 * (guint64) i;
      ev[i].kind = (x & 1) ? LOGFMT_KIND_BEGIN
                   : (x & 6) ? LOGFMT_KIND_END : LOGFMT_KIND_SOLO;
      ev[i].state = (gint32) ((x >> 8) % NS);
    }
  guint64 tstart = 1000;
  int same = 0, tried = 0, nontrivial = 0;
  MvTracker *a = mv_tracker_new (NS, TRUE), *b = mv_tracker_new (NS, TRUE);
  for (guint i0 = 0; i0 <= N; i0 += 7, tried++)
    {
      /* Applying again: scan all, seed, apply the lookback. */
      mv_tracker_seed_begin (a);
      scan_range (a, ev, 0, N);
      mv_tracker_seed_end (a, tstart);
      for (guint i = 0; i < i0; i += MV_TRACKER_BATCH)
        mv_tracker_apply_batch (a, ev + i, MIN (MV_TRACKER_BATCH, i0 - i),
                                FALSE, FALSE);
      /* Scanned once. */
      mv_tracker_seed_begin (b);
      scan_range (b, ev, 0, i0);
      guint nunm = b->pre->len, n = mv_tracker_depth (b);
      gint32 st[LOGFMT_STATE_MAX_DEPTH];
      guint64 t[LOGFMT_STATE_MAX_DEPTH];
      for (guint k = 0; k < n; k++)
        {
          st[k] = mv_tracker_open (b, k)->state;
          t[k] = mv_tracker_open (b, k)->start;
        }
      scan_range (b, ev, i0, N);
      mv_tracker_seed_end (b, tstart);
      mv_tracker_seed_lookback (b, tstart, nunm, n, st, t);
      g_autoptr (GString) la = open_list (a);
      g_autoptr (GString) lb = open_list (b);
      same += strcmp (la->str, lb->str) == 0;
      nontrivial += nunm > 0 && n > 0;
    }
  ok (same == tried && nontrivial > tried / 2, "a lookback scanned once "
      "leaves the states open at t0 that applying it again does (%d of %d "
      "split points, %d with ENDs closing seeded states and states left "
      "open)", same, tried, nontrivial);
  mv_tracker_free (a);
  mv_tracker_free (b);
}

/* 2,000 rows on 100 px, none read yet: the first image reads a few rows
 * per lane (not every stream), the second is exact and equals a fresh
 * cache's; after it, views need one stage. */
static void
test_sampled_rows (const char *path)
{
  GError *error = NULL;
  MvLog *log = open_step_log (path, 2000, &error);
  if (log == NULL)
    return;
  g_autoptr (MvCache) cache = mv_cache_new (log);
  MvSceneParams p = { .t0 = 0, .t1 = 1000000, .width = 500, .height = 100,
                      .row_h = 0.05, .force_lod = -1 };
  MvSceneParams c;
  ok (mv_scene_coarse_first (cache, &p, &c) && c.sample_rows > 0,
      "20 rows per pixel, none read: a first stage from a few rows per "
      "lane");
  MvScene *s = mv_scene_compute (cache, &c, NULL, &error);
  guint read = 0;
  for (guint r = 0; r < log->nrows; r++)
    read += mv_cache_pyramid_peek (cache, log->rows[r].stream)
            != MV_PYR_UNREAD;
  ok (s && s->rows_sampled && s->nlanes > 1
      && read <= s->nlanes * c.sample_rows,
      "the first stage read %u of 2000 rows (%u lanes)", read,
      s ? s->nlanes : 0);
  mv_scene_free (s);
  s = mv_scene_compute (cache, &p, NULL, &error);
  g_autoptr (MvCache) fresh = mv_cache_new (log);
  MvScene *s2 = mv_scene_compute (fresh, &p, NULL, &error);
  gboolean same = s && s2 && !s->rows_sampled && s->nlanes == s2->nlanes;
  for (guint i = 0; same && i < s->nlanes; i++)
    same = memcmp (s->lanes[i].pixels, s2->lanes[i].pixels,
                   p.width * sizeof (guint32)) == 0;
  ok (same, "the second stage reads every row: the same pixels as a fresh "
      "cache's");
  mv_scene_free (s);
  mv_scene_free (s2);
  ok (!mv_scene_coarse_first (cache, &p, &c), "once read: one stage");
  mv_log_unref (log);
}

/* TRUE if two scenes have the same lanes' pixels. */
static gboolean
same_lane_pixels (const MvScene *a, const MvScene *b)
{
  gboolean same = a && b && a->nlanes == b->nlanes;
  for (guint i = 0; same && i < a->nlanes; i++)
    same = memcmp (a->lanes[i].pixels, b->lanes[i].pixels,
                   a->p.width * sizeof (guint32)) == 0;
  return same;
}

/* Rows kept by the cache's pyramids (not only their quality). */
static guint
pyramids_kept (MvCache *cache, MvLog *log)
{
  guint n = 0;
  for (guint r = 0; r < log->nrows; r++)
    n += mv_cache_pyramid_kept (cache, log->rows[r].stream);
  return n;
}

/* Ungrouped, 80 rows per pixel row (more than a big group's header):
 * the rows' pyramids are not kept (100,000 processes: 150 MB), the
 * second stage builds each pixel row's pyramid, and the first image of
 * a deeper view is drawn from those, reading no row again, with the
 * pixels a cache that kept every row's pyramid draws. */
static void
test_many_rows_per_pixel (const char *path)
{
  GError *error = NULL;
  MvLog *log = open_step_log (path, 8000, &error);
  if (log == NULL)
    return;
  /* The rows' events summed once at open (the level of detail's
   * estimates over 100,000 rows use them, not a loop per frame). */
  gboolean sums = log->row_events[0] == 0;
  for (guint r = 0; r < log->nrows; r++)
    sums &= log->row_events[r + 1] - log->row_events[r]
            == logfmt_reader_stream_events (log->reader,
                                            log->rows[r].stream);
  ok (sums && log->row_events[log->nrows] == log->info->nevents,
      "row_events: the events of the rows before each, %" G_GUINT64_FORMAT
      " in all", log->row_events[log->nrows]);
  g_autoptr (MvCache) cache = mv_cache_new (log);
  MvSceneParams p = { .t0 = 0, .t1 = 1000000, .width = 500, .height = 100,
                      .row_h = 100.0 / 8000, .force_lod = -1 };
  MvSceneParams c;
  ok (mv_scene_coarse_first (cache, &p, &c) && c.sample_rows > 0,
      "80 rows per pixel row, none read: a first stage from a sample");
  MvScene *s = mv_scene_compute (cache, &c, NULL, &error);
  guint64 reads = mv_cache_pyramid_reads (cache);
  ok (s && s->rows_sampled && reads <= s->nlanes * c.sample_rows,
      "the first stage read %" G_GUINT64_FORMAT " of 8000 rows (%u lanes)",
      reads, s ? s->nlanes : 0);
  mv_scene_free (s);
  s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s && !s->rows_sampled && mv_cache_pyramid_reads (cache) >= 8000,
      "the second stage reads every row");
  mv_scene_free (s);
  guint kept = pyramids_kept (cache, log);
  ok (kept == 0, "no row's pyramid kept (%u)", kept);

  /* Zoomed in past the pyramids: a first stage, then the window read
   * from every row. */
  p.t0 = 480000;
  p.t1 = 530000;
  ok (mv_scene_coarse_first (cache, &p, &c) && c.coarse_lanes,
      "zoomed in: two stages");
  reads = mv_cache_pyramid_reads (cache);
  s = mv_scene_compute (cache, &c, NULL, &error);
  ok (s && !s->rows_sampled && mv_cache_pyramid_reads (cache) == reads,
      "its first image reads no row: the lanes' own pyramids serve");
  MvSceneParams exact = c;
  exact.sample_rows = 0;
  g_autoptr (MvCache) fresh = mv_cache_new (log);
  for (guint r = 0; r < log->nrows; r++)
    mv_cache_pyramid (fresh, log->rows[r].stream, NULL);
  MvScene *s2 = mv_scene_compute (fresh, &exact, NULL, &error);
  ok (s && s->nlanes > 1 && same_lane_pixels (s, s2),
      "... with the pixels of a cache keeping every row's pyramid");
  mv_scene_free (s);
  mv_scene_free (s2);
  s = mv_scene_compute (cache, &p, NULL, &error);
  s2 = mv_scene_compute (fresh, &p, NULL, &error);
  ok (s && s->fine && same_lane_pixels (s, s2),
      "the second stage reads the window of every row, as a cache "
      "keeping their pyramids does");
  /* Rank r changes state at 500000 + r ns: pixel x = (r + 20000) / 100
   * of the pixel row holding it changes colour there. */
  const MvLane *l = s && s->nlanes > 1 ? &s->lanes[1] : NULL;
  ok (l && l->row_first == 80 && l->dominant[0] == 0
      && l->dominant[p.width - 1] == 1 && l->dominant[200] == 0
      && l->dominant[202] == 1,
      "its pixel row 1 (ranks 80-159) turns from A to B at x 200-201");
  mv_scene_free (s);
  mv_scene_free (s2);
  kept = pyramids_kept (cache, log);
  ok (kept == 0, "still no row's pyramid kept (%u)", kept);
  mv_log_unref (log);
}

/* Per state, how many of host's ranks are in it at time t, read from
 * the file with logfmt's own iterator (not the viewer's model); the
 * number of ranks on host in *n. */
static void
host_states_at (MvLog *log, const char *host, guint64 t, guint *count,
                guint *n)
{
  memset (count, 0, log->nstates * sizeof *count);
  *n = 0;
  for (guint st = 0; st < log->info->nstreams; st++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (log->reader, st);
      if (g_strcmp0 (sd->host, host) != 0)
        continue;
      ++*n;
      logfmt_iter_t *it = NULL;
      logfmt_event_t ev;
      gint32 cur = -1;
      if (logfmt_iter_new (log->reader, st, 0, t, &it) != 0)
        continue;
      while (logfmt_iter_next (it, &ev) == 1 && ev.time <= t)
        if (ev.kind == LOGFMT_KIND_BEGIN)
          cur = ev.state;
        else if (ev.kind == LOGFMT_KIND_END)
          cur = -1;
      logfmt_iter_free (it);
      if (cur >= 0)
        count[cur]++;
    }
}

/* The frame around a scene (ruler, row labels) drawn into an image of
 * the layout's size. */
static cairo_surface_t *
frame_image (const MvScene *s, const MvLayout *l)
{
  cairo_surface_t *img = cairo_image_surface_create (
      CAIRO_FORMAT_RGB24, (int) l->width, (int) l->height);
  cairo_t *cr = cairo_create (img);
  MvDrawOpts o = { .highlight_state = -1 };
  mv_draw_frame (cr, s, l, &o);
  cairo_destroy (cr);
  cairo_surface_flush (img);
  return img;
}

typedef struct
{
  const MvScene  *s;
  const MvLayout *l;
} FrameJob;

static gpointer
frame_image_job (gpointer p)
{
  const FrameJob *j = p;
  return frame_image (j->s, j->l);
}

/* frame_image on a thread of its own: the label column drawn with no
 * cache. */
static cairo_surface_t *
frame_image_fresh (const MvScene *s, const MvLayout *l)
{
  FrameJob job = { s, l };
  return g_thread_join (g_thread_new ("fresh", frame_image_job, &job));
}

static void
surfaces_destroy (cairo_surface_t **v, int n)
{
  for (int i = 0; i < n; i++)
    if (v[i])
      cairo_surface_destroy (v[i]);
}

/* The label columns of two images are the same, pixel for pixel. */
static gboolean
label_columns_equal (cairo_surface_t *a, cairo_surface_t *b,
                     const MvLayout *l)
{
  int stride = cairo_image_surface_get_stride (a);
  const guchar *pa = cairo_image_surface_get_data (a);
  const guchar *pb = cairo_image_surface_get_data (b);
  for (int y = (int) l->plot_y; y < (int) (l->plot_y + l->plot_h); y++)
    if (memcmp (pa + (gsize) y * stride, pb + (gsize) y * stride,
                (gsize) l->label_w * 4) != 0)
      return FALSE;
  return TRUE;
}

/* The label column of a scene on its own (ungrouped, 15 px rows) of the
 * log at path, drawn after whatever this thread drew last; *fresh the
 * same drawn on a new thread (no cache). */
static cairo_surface_t *
labels_of_log (const char *path, MvLayout *lay, cairo_surface_t **fresh)
{
  GError *error = NULL;
  MvLog *log = mv_log_open (path, NULL, NULL, &error);
  g_clear_error (&error);
  if (log == NULL)
    return NULL;
  g_autoptr (MvCache) cache = mv_cache_new (log);
  mv_layout_compute (lay, log, 1000 + 96 + 12, 30 + 120, FALSE);
  MvSceneParams p = { .t0 = 0, .t1 = 1000000, .width = (int) lay->plot_w,
                      .height = lay->plot_h, .row_h = 15, .force_lod = -1 };
  MvScene *s = mv_scene_compute (cache, &p, NULL, &error);
  g_clear_error (&error);
  cairo_surface_t *img = s ? frame_image (s, lay) : NULL;
  *fresh = s ? frame_image_fresh (s, lay) : NULL;
  mv_scene_free (s);
  mv_log_unref (log);
  return img;
}

/* Two logs of 8 rows each, labelled in another order: the same places,
 * other texts; the second's column must not be the first's kept. */
static void
test_label_cache (const char *path)
{
  char *path2 = g_strconcat (path, ".n", NULL);
  MvLayout la, lb;
  cairo_surface_t *fa = NULL, *fb = NULL, *ra = NULL, *rb = NULL;
  if (mv_testlog_write_nodes (path) == 0
      && mv_testlog_write_n (path2, 1, 8) == 0)
    {
      fa = labels_of_log (path, &la, &ra);
      fb = labels_of_log (path2, &lb, &rb);
    }
  ok (fa && fb && ra && rb && label_columns_equal (fa, ra, &la)
      && label_columns_equal (fb, rb, &lb)
      && !label_columns_equal (fa, fb, &la),
      "labels of another log at the same places: drawn anew, as with no "
      "cache");
  surfaces_destroy ((cairo_surface_t *[]) { fa, fb, ra, rb }, 4);
  g_unlink (path2);
  g_free (path2);
}

/* Rows grouped by node (8 ranks placed round-robin on 2 nodes) and by
 * rank range (2000 ranks): the slots, and each group row's aggregate
 * against the states of its ranks read straight from the file. */
static void
test_groups (const char *path)
{
  GError *error = NULL;
  ok (mv_testlog_write_nodes (path) == 0, "node log written");
  MvLog *log = mv_log_open (path, NULL, NULL, &error);
  ok (log != NULL, "node log opened");
  if (log == NULL)
    return;
  gboolean order = log->nrows == 8;
  for (guint r = 0; order && r < 8; r++)
    order = log->rows[r].rank == (gint32) (r < 4 ? 2 * r : 2 * (r - 4) + 1);
  ok (order, "rows go node by node: ranks 0 2 4 6 1 3 5 7");
  MvGroups *g = mv_groups_new (log, MV_GROUP_AUTO);
  ok (g->mode == MV_GROUP_NONE && mv_groups_slots (g) == NULL,
      "auto on 8 ranks of 2 nodes: a row each, as before");
  mv_groups_free (g);
  g = mv_groups_new (log, MV_GROUP_NODE);
  GArray *sl = mv_groups_slots (g);
  ok (g->mode == MV_GROUP_NODE && sl && sl->len == 10,
      "by node, expanded: 2 headers + 8 rows (%u slots)",
      sl ? sl->len : 0);
  MvSlot h0 = mv_slots_get (sl, 0), h1 = mv_slots_get (sl, 5);
  char *l0 = mv_slot_label (log, &h0);
  ok (h0.kind == MV_SLOT_NODE && h0.row_first == 0 && h0.row_count == 4
      && h1.row_first == 4 && h1.row_count == 4 && h0.nprocs == 4
      && g_str_equal (l0, "nodeE (4)"),
      "node headers hold their 4 rows: '%s'", l0);
  g_free (l0);
  ok (mv_slots_find_row (sl, 6) == 8,
      "rank 5 (row 6) is drawn in slot 8 when expanded");
  mv_groups_set_all (g, TRUE);
  sl = mv_groups_slots (g);
  ok (sl->len == 2 && mv_slots_find_row (sl, 6) == 1,
      "collapsed: 2 slots, rank 5 in nodeO's");
  mv_groups_toggle (g, 0);
  ok (mv_groups_slots (g)->len == 6, "nodeE unfolded: 6 slots");
  mv_groups_set_all (g, TRUE);

  /* The collapsed headers' aggregate (1000 ns per pixel). */
  g_autoptr (MvCache) cache = mv_cache_new (log);
  MvSceneParams p = { .t0 = 0, .t1 = 1000000, .width = 1000, .height = 40,
                      .row_h = 20, .force_lod = -1,
                      .slots = mv_groups_slots (g) };
  MvScene *s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s && s->nlanes == 2 && s->lanes[0].pixels && s->lanes[1].pixels,
      "collapsed: 2 aggregated lanes");
  const char *hosts[2] = { "nodeE", "nodeO" };
  guint count[2];
  for (guint i = 0; s && i < 2; i++)
    for (guint k = 0; k < 2; k++)
      {
        guint64 t = k ? 750000 : 250000;
        guint n;
        host_states_at (log, hosts[i], t, count, &n);
        guint dom = count[1] > count[0], sum = count[0] + count[1];
        guint pct = (guint) (100.0 * sum / n + 0.5);
        guint x = (guint) (t / 1000);
        ok (s->lanes[i].dominant[x] == (gint16) dom
            && s->lanes[i].dom_pct[x] == pct,
            "%s at %" G_GUINT64_FORMAT " ns: %u in A, %u in B of %u: "
            "dominant %d (%d), covered %u%% (%u%%)", hosts[i], t,
            count[0], count[1], n, s->lanes[i].dominant[x], dom,
            s->lanes[i].dom_pct[x], pct);
      }
  MvHit hit;
  char *tip = s && mv_scene_hit (s, 250, 10, &hit)
              ? mv_scene_describe (s, &hit) : NULL;
  ok (tip && strstr (tip, "mostly B") && strstr (tip, "nodeE (4)"),
      "a header's tooltip names its node: %s", tip ? tip : "(none)");
  g_free (tip);
  /* The label column is kept from frame to frame (per thread): a header
   * folded or unfolded since must not show the old labels. */
  MvLayout lay;
  mv_layout_compute (&lay, log, 1000 + 96 + 12, 30 + 120, FALSE);
  MvSceneParams lp = p;
  lp.width = (int) lay.plot_w;
  lp.height = lay.plot_h;
  MvScene *sa = mv_scene_compute (cache, &lp, NULL, &error);
  mv_groups_toggle (g, 0);
  lp.slots = mv_groups_slots (g);
  MvScene *sb = mv_scene_compute (cache, &lp, NULL, &error);
  cairo_surface_t *fa = sa ? frame_image (sa, &lay) : NULL;
  cairo_surface_t *fb = sb ? frame_image (sb, &lay) : NULL;
  cairo_surface_t *fb2 = sb ? frame_image (sb, &lay) : NULL;
  cairo_surface_t *fresh = sb ? frame_image_fresh (sb, &lay) : NULL;
  ok (fa && fb && fresh && !label_columns_equal (fa, fb, &lay)
      && label_columns_equal (fb, fresh, &lay)
      && label_columns_equal (fb2, fresh, &lay),
      "labels after a fold: the column is drawn anew, as with no cache");
  surfaces_destroy ((cairo_surface_t *[]) { fa, fb, fb2, fresh }, 4);
  mv_scene_free (sa);
  mv_scene_free (sb);
  mv_groups_set_all (g, TRUE);
  mv_scene_free (s);
  /* Expanded, tall rows: the rows decoded, the headers still
   * aggregates. */
  mv_groups_set_all (g, FALSE);
  p.slots = mv_groups_slots (g);
  p.height = 200;
  p.force_lod = 0;
  s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s && !s->summary && s->group_lanes && s->nlanes == 10
      && s->lanes[0].pixels && s->lanes[0].dominant[750] == 0
      && s->lanes[0].dom_pct[750] == 25 && s->lanes[1].spans
      && s->lanes[1].spans->len == 1,
      "expanded and decoded: header lanes aggregate, rows have spans");
  mv_scene_free (s);
  mv_groups_free (g);
  mv_log_unref (log);

  ok (mv_testlog_write_steps (path, 2000) == 0, "2000-rank step log written");
  log = mv_log_open (path, NULL, NULL, &error);
  if (log == NULL)
    return;
  g = mv_groups_new (log, MV_GROUP_AUTO);
  sl = mv_groups_slots (g);
  MvSlot last = mv_slots_get (sl, sl->len - 1);
  char *ll = mv_slot_label (log, &last);
  ok (g->mode == MV_GROUP_RANGE && sl->len == 125 && last.row_count == 16
      && last.collapsed && g_str_equal (ll, "ranks 1984-1999"),
      "2000 ranks: 125 collapsed range rows of 16 ranks ('%s')", ll);
  g_free (ll);
  mv_groups_toggle (g, 3);
  ok (mv_groups_slots (g)->len == 141, "one unfolded: 141 slots");
  mv_groups_set_all (g, FALSE);
  ok (mv_groups_slots (g)->len == 2125, "all unfolded: 2125 slots");
  MvGroups *none = mv_groups_new (log, MV_GROUP_NONE);
  ok (mv_groups_slots (none) == NULL
      && mv_slots_count (log, NULL) == 2000, "none: one slot per row");
  mv_groups_free (none);
  mv_groups_free (g);
  mv_log_unref (log);
}

/* A scene of the busy log (16 ranks, 4 per node) in a fresh cache:
 * rows by node (expanded or collapsed) or ungrouped (groups NULL). */
static MvScene *
busy_scene (MvLog *log, MvGroups *groups, double row_h, int force_lod,
            guint64 budget)
{
  g_autoptr (MvCache) cache = mv_cache_new (log);
  MvSceneParams p = { .t0 = 5000000, .t1 = 5004000, .width = 1000,
                      .height = 400, .row_h = row_h, .force_lod = force_lod,
                      .budget = budget,
                      .slots = groups ? mv_groups_slots (groups) : NULL };
  GError *error = NULL;
  MvScene *s = mv_scene_compute (cache, &p, NULL, &error);
  g_clear_error (&error);
  return s;
}

static gboolean
lanes_equal (const MvLane *a, const MvLane *b, guint width)
{
  return a->pixels && b->pixels
         && memcmp (a->pixels, b->pixels, width * sizeof *a->pixels) == 0
         && memcmp (a->dominant, b->dominant,
                    width * sizeof *a->dominant) == 0
         && memcmp (a->dom_pct, b->dom_pct, width) == 0;
}

/* Group headers zoomed in past the pyramids sum their rows' states for
 * the window: each row is read once a frame (not again for its header),
 * and a header over decoded rows walks the events the cache keeps, not
 * the file; the pixels are those of the header read alone. */
static void
test_group_fine (const char *path)
{
  GError *error = NULL;
  ok (mv_testlog_write_busy (path, 16, 4) == 0, "busy 16-rank log written");
  MvLog *log = mv_log_open (path, NULL, NULL, &error);
  if (log == NULL)
    return;
  MvGroups *open = mv_groups_new (log, MV_GROUP_NODE);
  MvGroups *shut = mv_groups_new (log, MV_GROUP_NODE);
  mv_groups_set_all (shut, TRUE);
  /* Thin rows: summary lanes read from the file for the window (a
   * budget of 1 event: not through the cache). */
  MvScene *flat = busy_scene (log, NULL, 2, -1, 1);
  MvScene *grp = busy_scene (log, open, 2, -1, 1);
  MvScene *heads = busy_scene (log, shut, 2, -1, 1);
  gboolean same = flat && grp && heads && flat->fine && grp->fine
                  && heads->fine && !grp->fine_cached && grp->nlanes == 20
                  && heads->nlanes == 4;
  for (guint i = 0; same && i < 20; i++)
    same = i % 5 == 0 ? lanes_equal (&grp->lanes[i], &heads->lanes[i / 5],
                                     1000)
                      : lanes_equal (&grp->lanes[i],
                                     &flat->lanes[i - i / 5 - 1], 1000);
  ok (same, "fine lanes by node: headers as when collapsed, rows as "
      "ungrouped");
  ok (grp && flat && heads && grp->decoded == flat->decoded
      && heads->decoded == flat->decoded,
      "each row read once: %" G_GUINT64_FORMAT " records with headers, %"
      G_GUINT64_FORMAT " ungrouped, %" G_GUINT64_FORMAT " collapsed",
      grp ? grp->decoded : 0, flat ? flat->decoded : 0,
      heads ? heads->decoded : 0);
  gboolean varied = FALSE;
  for (guint x = 1; heads && x < 1000; x++)
    varied |= heads->lanes[1].pixels[x] != heads->lanes[1].pixels[0];
  ok (varied, "the headers' pixels vary over the window");
  mv_scene_free (flat);
  mv_scene_free (grp);
  mv_scene_free (heads);
  /* Tall rows: decoded; the headers over them walk the cached events:
   * the same pixels as walking the file (a budget of 1 event). */
  flat = busy_scene (log, NULL, 20, 0, 0);
  grp = busy_scene (log, open, 20, 0, 0);
  heads = busy_scene (log, shut, 20, 0, 1);
  same = flat && grp && heads && !grp->summary && grp->fine
         && grp->fine_cached && heads->fine && !heads->fine_cached;
  for (guint i = 0; same && i < 4; i++)
    same = lanes_equal (&grp->lanes[i * 5], &heads->lanes[i], 1000);
  ok (same, "decoded rows by node: headers from the cached events as from "
      "the file");
  ok (grp && flat && grp->decoded == flat->decoded,
      "the headers read nothing more (%" G_GUINT64_FORMAT " records, %"
      G_GUINT64_FORMAT " ungrouped)", grp ? grp->decoded : 0,
      flat ? flat->decoded : 0);
  mv_scene_free (flat);
  mv_scene_free (grp);
  mv_scene_free (heads);
  mv_groups_free (open);
  mv_groups_free (shut);
  mv_log_unref (log);
}

/* Dense arrows are drawn through buffers kept from frame to frame: a
 * frame must not see what the one before left there. */
static gboolean
plot_equal_after_other (MvLog *log, int width, guint64 span, guint64 t_other)
{
  g_autoptr (MvCache) cache = mv_cache_new (log);
  GError *error = NULL;
  guint8 *img[2] = { NULL, NULL };
  int stride = cairo_format_stride_for_width (CAIRO_FORMAT_RGB24, width);
  for (int k = 0; k < 3; k++)
    {
      guint64 t0 = k == 1 ? t_other : 0;
      MvSceneParams p = { .t0 = t0, .t1 = t0 + span, .width = width,
                          .height = 44, .row_h = 22, .force_lod = -1 };
      MvScene *s = mv_scene_compute (cache, &p, NULL, &error);
      if (s == NULL)
        return FALSE;
      cairo_surface_t *surf = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                          width, 44);
      cairo_t *cr = cairo_create (surf);
      MvDrawOpts o = { .highlight_state = -1 };
      mv_draw_plot (cr, s, width, 44, &o);
      cairo_destroy (cr);
      cairo_surface_flush (surf);
      if (k != 1)
        img[k / 2] = g_memdup2 (cairo_image_surface_get_data (surf),
                                (gsize) stride * 44);
      cairo_surface_destroy (surf);
      mv_scene_free (s);
    }
  gboolean same = memcmp (img[0], img[1], (gsize) stride * 44) == 0;
  g_free (img[0]);
  g_free (img[1]);
  return same;
}

/* The plot of s drawn into an image surface (the density image blended
 * straight into it) or through a recording surface replayed onto one
 * (cairo composites it): (transfer full) pixels. */
static guint8 *
plot_pixels (const MvScene *s, int width, int height, gboolean recorded)
{
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                     width, height);
  cairo_surface_t *target = recorded
    ? cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA, NULL) : img;
  cairo_t *cr = cairo_create (target);
  MvDrawOpts o = { .highlight_state = -1 };
  mv_draw_plot (cr, s, width, height, &o);
  cairo_destroy (cr);
  if (recorded)
    {
      cr = cairo_create (img);
      cairo_set_source_surface (cr, target, 0, 0);
      cairo_paint (cr);
      cairo_destroy (cr);
      cairo_surface_destroy (target);
    }
  cairo_surface_flush (img);
  guint8 *px = g_memdup2 (cairo_image_surface_get_data (img),
                          (gsize) cairo_image_surface_get_stride (img)
                          * height);
  cairo_surface_destroy (img);
  return px;
}

/* A w x h scene of log's first 1000 ns, two rows, for arrows a test
 * puts in it (its own emptied), or NULL (said so). */
static MvScene *
arrows_scene (MvLog *log, int w, int h)
{
  g_autoptr (MvCache) cache = mv_cache_new (log);
  MvSceneParams p = { .t0 = 0, .t1 = 1000, .width = w, .height = h,
                      .row_h = h / 2.0, .force_lod = -1 };
  MvScene *s = mv_scene_compute (cache, &p, NULL, NULL);
  if (s == NULL)
    ok (FALSE, "scene for the arrows, %dx%d", w, h);
  else
    g_array_set_size (s->arrows, 0);
  return s;
}

/* Many aggregated arrows leaving most of their box empty are blended
 * straight into an image target, each pixel's colour as it is found:
 * the pixels cairo composites through the density mask, in plots of
 * half (tall) and full vertical resolution.  (3,000 lines of 16 pixels
 * over 300,000: summed as runs, and under a quarter of the box.) */
static void
test_arrows_direct (MvLog *log)
{
  static const int heights[] = { 600, 300 };
  for (guint k = 0; k < G_N_ELEMENTS (heights); k++)
    {
      int w = 1000, h = heights[k], vs = h > 400 ? 2 : 1;
      MvScene *s = arrows_scene (log, w, h);
      if (s == NULL)
        continue;
      GRand *rand = g_rand_new_with_seed (7 + k);
      for (guint i = 0; i < 3000; i++)
        {
          MvArrow a = { .count = 1 + g_rand_int_range (rand, 0, 40) };
          a.x0 = (float) g_rand_double_range (rand, -5, w + 5);
          a.y0 = (float) g_rand_double_range (rand, -5, h + 5);
          a.x1 = a.x0 + (g_rand_boolean (rand) ? 15 : -15);
          a.y1 = a.y0 + (float) g_rand_double_range (rand, -3, 3) * vs;
          g_array_append_val (s->arrows, a);
        }
      s->arrows_aggregated = TRUE;
      g_rand_free (rand);
      guint8 *direct = plot_pixels (s, w, h, FALSE);
      guint8 *composited = plot_pixels (s, w, h, TRUE);
      /* Stepped pixel by pixel, the same pixels as summed as runs. */
      mv__draw_sparse_below = 0;
      guint8 *stepped = plot_pixels (s, w, h, FALSE);
      mv__draw_sparse_below = G_MAXUINT;
      guint8 *runs = plot_pixels (s, w, h, FALSE);
      mv__draw_sparse_below = 32;
      gsize bytes = (gsize) cairo_format_stride_for_width
                      (CAIRO_FORMAT_RGB24, w) * h;
      ok (memcmp (stepped, runs, bytes) == 0
          && memcmp (runs, direct, bytes) == 0,
          "aggregated arrows, %dx%d: stepped pixel by pixel, the pixels "
          "summed as runs", w, h);
      g_free (stepped);
      g_free (runs);
      /* Built beside the rest of the plot or on this thread: the same. */
      guint keep = mv__draw_density_thread_min;
      mv__draw_density_thread_min = G_MAXUINT;
      guint8 *here = plot_pixels (s, w, h, FALSE);
      guint8 *here_rec = plot_pixels (s, w, h, TRUE);
      mv__draw_density_thread_min = keep;
      gsize stride = (gsize) cairo_format_stride_for_width
                       (CAIRO_FORMAT_RGB24, w);
      ok (s->arrows->len >= mv__draw_density_thread_min
          && memcmp (direct, here, stride * h) == 0
          && memcmp (composited, here_rec, stride * h) == 0,
          "aggregated arrows, %dx%d: built on a thread of their own, the "
          "pixels drawn on the caller's", w, h);
      g_free (here);
      g_free (here_rec);
      g_array_set_size (s->arrows, 0);
      guint8 *blank = plot_pixels (s, w, h, FALSE);
      gsize n = (gsize) cairo_format_stride_for_width (CAIRO_FORMAT_RGB24, w)
                * h, diff = 0, drawn = 0;
      for (gsize i = 0; i < n; i++)
        diff += direct[i] != composited[i];
      for (gsize i = 0; i < n; i += 4)
        drawn += memcmp (direct + i, blank + i, 3) != 0;
      ok (diff == 0 && drawn > 20000,
          "aggregated arrows, %dx%d: blended directly, the pixels cairo "
          "composites (%" G_GSIZE_FORMAT " bytes differ, %" G_GSIZE_FORMAT
          " pixels drawn)", w, h, diff, drawn);
      g_free (direct);
      g_free (composited);
      g_free (blank);
      mv_scene_free (s);
    }
}

/* Long arrows at every slope, stepped pixel by pixel and summed as runs
 * (each run ends where the line leaves its row): the same pixels. */
static void
test_arrows_long (MvLog *log)
{
  int w = 900, h = 700;
  MvScene *s = arrows_scene (log, w, h);
  if (s == NULL)
    return;
  GRand *rand = g_rand_new_with_seed (11);
  for (guint i = 0; i < 400; i++)
    {
      MvArrow a = { .count = 1 + g_rand_int_range (rand, 0, 9) };
      a.x0 = (float) g_rand_double_range (rand, -50, w + 50);
      a.y0 = (float) g_rand_double_range (rand, -50, h + 50);
      a.x1 = (float) g_rand_double_range (rand, -50, w + 50);
      a.y1 = (float) g_rand_double_range (rand, -50, h + 50);
      g_array_append_val (s->arrows, a);
    }
  s->arrows_aggregated = TRUE;
  g_rand_free (rand);
  mv__draw_sparse_below = 0;
  guint8 *stepped = plot_pixels (s, w, h, FALSE);
  mv__draw_sparse_below = G_MAXUINT;
  guint8 *runs = plot_pixels (s, w, h, FALSE);
  mv__draw_sparse_below = 32;
  gsize bytes = (gsize) cairo_format_stride_for_width (CAIRO_FORMAT_RGB24, w)
                * h, diff = 0;
  for (gsize i = 0; i < bytes; i++)
    diff += stepped[i] != runs[i];
  ok (diff == 0, "400 long arrows at every slope: stepped pixel by pixel, "
      "the pixels summed as runs (%" G_GSIZE_FORMAT " bytes differ)", diff);
  g_free (stepped);
  g_free (runs);
  mv_scene_free (s);
}

/* A deep window's arrows come from the messages kept for a wider view,
 * scanned from the first that can reach it (by the longest kept
 * message): the 50 slanted messages (sent in [800, 850), received 100
 * ns later) all cross [870, 880], sent 21-70 ns before it; none of the
 * vertical ones does.  Then a window between them meets none. */
static void
test_arrows_kept_window (MvLog *log)
{
  g_autoptr (MvCache) cache = mv_cache_new (log);
  MvSceneParams wide = { .t0 = 0, .t1 = 1000, .width = 1000, .height = 400,
                         .row_h = 200, .force_lod = -1 };
  MvScene *s = mv_scene_compute (cache, &wide, NULL, NULL);
  ok (s != NULL && s->nmessages == 650,
      "whole run: all 650 messages (%" G_GUINT64_FORMAT ")",
      s ? (guint64) s->nmessages : 0);
  if (s)
    mv_scene_free (s);
  ok (mv_cache_messages_cover (cache, 870, 880),
      "the kept messages cover the deep window");
  static const struct { guint64 t0, t1; guint want; } win[] = {
    { 870, 880, 50 }, { 300, 400, 0 }, { 849, 851, 50 }, { 955, 990, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (win); i++)
    {
      MvSceneParams p = wide;
      p.t0 = win[i].t0;
      p.t1 = win[i].t1;
      s = mv_scene_compute (cache, &p, NULL, NULL);
      ok (s != NULL && s->nmessages == win[i].want,
          "[%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "]: %u messages "
          "drawn (%" G_GUINT64_FORMAT ")", win[i].t0, win[i].t1,
          win[i].want, s ? (guint64) s->nmessages : 0);
      if (s)
        mv_scene_free (s);
    }
}

static void
test_dense_arrows (const char *path)
{
  ok (mv_testlog_write_msgs (path) == 0, "message-dense log written");
  GError *error = NULL;
  MvLog *log = mv_log_open (path, NULL, NULL, &error);
  ok (log != NULL, "message-dense log opened");
  if (log == NULL)
    return;
  /* 1 ns per px: lines summed as runs (draw_arrow_density); 0.175 ns
   * per px without the long slanted ones: stepped one by one. */
  ok (plot_equal_after_other (log, 1000, 1000, 400),
      "dense arrows as runs: the same picture after another frame");
  ok (plot_equal_after_other (log, 4000, 700, 300),
      "sparse arrows: the same picture after another frame");
  test_arrows_direct (log);
  test_arrows_long (log);
  test_arrows_kept_window (log);
  mv_log_unref (log);
}

/* Arrows between grouped rows, so many that each end's slot comes from
 * a table: every arrow's ends at the centres of the slots
 * mv_slots_find_row gives its rows, and every message drawn that does
 * not lie within a collapsed group (16 ranks on 4 nodes, 1,600
 * messages; node n1 unfolded, the others collapsed). */
static void
test_arrows_grouped (const char *path)
{
  ok (mv_testlog_write_exchange (path, 16, 4, 100) == 0,
      "exchange log written");
  GError *error = NULL;
  MvLog *log = mv_log_open (path, NULL, NULL, &error);
  ok (log != NULL, "exchange log opened");
  if (log == NULL)
    return;
  MvGroups *g = mv_groups_new (log, MV_GROUP_NODE);
  mv_groups_set_all (g, TRUE);
  mv_groups_toggle (g, 1);
  GArray *sl = mv_groups_slots (g);
  g_autoptr (MvCache) cache = mv_cache_new (log);
  MvSceneParams p = { .t0 = 0, .t1 = 12000, .width = 1000, .height = 200,
                      .row_h = 25, .force_lod = -1, .slots = sl };
  MvScene *s = mv_scene_compute (cache, &p, NULL, &error);
  guint placed = 0, want = 0;
  for (guint i = 0; s && i < s->arrows->len; i++)
    {
      const MvArrow *a = &g_array_index (s->arrows, MvArrow, i);
      guint ss = mv_slots_find_row (sl,
                                    log->stream_row[a->msg.send_stream]);
      guint sr = mv_slots_find_row (sl,
                                    log->stream_row[a->msg.recv_stream]);
      placed += a->y0 == (float) ((ss + 0.5) * p.row_h)
                && a->y1 == (float) ((sr + 0.5) * p.row_h);
    }
  /* Ranks 4-7 (n1) have rows of their own; a message between two ranks
   * of one collapsed node is not drawn. */
  for (int i = 0; i < 100; i++)
    for (int r = 0; r < 16; r++)
      {
        int to = (r + 1 + i * 7 % 15) % 16;
        want += !(r / 4 == to / 4 && r / 4 != 1);
      }
  ok (s && !s->arrows_aggregated && s->arrows->len == want
      && placed == want,
      "grouped arrows: %u of %u placed at their slots (%u expected)",
      placed, s ? s->arrows->len : 0, want);
  if (s)
    mv_scene_free (s);
  mv_groups_free (g);
  mv_log_unref (log);
}

/* Records the fractions a pass reports; stops it at stop_at calls. */
typedef struct
{
  GArray *f;
  guint   stop_at;
} ProgressLog;

static gboolean
progress_log (gpointer user, double fraction)
{
  ProgressLog *p = user;
  g_array_append_val (p->f, fraction);
  return p->stop_at && p->f->len >= p->stop_at;
}

/* Fractions in [0, 1] that never go back; the last is `last` (< 0: any). */
static gboolean
progress_sane (const ProgressLog *p, double last)
{
  const double *f = (const double *) p->f->data;
  for (guint i = 0; i < p->f->len; i++)
    if (f[i] < 0 || f[i] > 1 || (i > 0 && f[i] < f[i - 1]))
      return FALSE;
  return p->f->len > 0 && (last < 0 || f[p->f->len - 1] == last);
}

/* Statistics and search over the whole run show their progress and
 * stop when asked (the window runs them off its thread, with a bar). */
static void
test_stats_progress (MvLog *log)
{
  GError *error = NULL;
  ProgressLog p = { g_array_new (FALSE, FALSE, sizeof (double)), 0 };
  MvStats *st = mv_stats_compute (log, 0, G_MAXUINT64, progress_log, &p,
                                  NULL, &error);
  ok (st && mv_stats_cell (st, 0, -1)->count == 3 && progress_sane (&p, 1.0),
      "stats with progress: the same table, %u fractions from %g to 1",
      p.f->len, p.f->len ? g_array_index (p.f, double, 0) : -1.0);
  g_clear_pointer (&st, mv_stats_free);
  g_array_set_size (p.f, 0);
  p.stop_at = 1;
  st = mv_stats_compute (log, 0, G_MAXUINT64, progress_log, &p, NULL,
                         &error);
  ok (st == NULL && g_error_matches (error, G_IO_ERROR,
                                     G_IO_ERROR_CANCELLED) && p.f->len == 1,
      "stats stopped by the progress function: cancelled, no table");
  g_clear_error (&error);
  GCancellable *c = g_cancellable_new ();
  g_cancellable_cancel (c);
  st = mv_stats_compute (log, 0, G_MAXUINT64, NULL, NULL, c, &error);
  ok (st == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED),
      "stats cancelled: no table, G_IO_ERROR_CANCELLED");
  g_clear_error (&error);

  MvInstance f;
  g_array_set_size (p.f, 0);
  p.stop_at = 0;
  ok (mv_search_state (log, 0, 100, TRUE, &f, progress_log, &p, NULL)
      && f.t_begin == 520 && progress_sane (&p, -1),
      "search with progress: rank 1 at 520, %u fractions", p.f->len);
  ok (!mv_search_state (log, 0, 100, TRUE, &f, NULL, NULL, c),
      "search cancelled: nothing found");
  g_array_set_size (p.f, 0);
  p.stop_at = 1;
  ok (!mv_search_state (log, 0, 100, TRUE, &f, progress_log, &p, NULL),
      "search stopped by the progress function: nothing found");
  g_object_unref (c);
  g_array_unref (p.f);
}

static void
test_stats (MvLog *log)
{
  GError *error = NULL;
  MvStats *st = mv_stats_compute (log, 0, G_MAXUINT64, NULL, NULL, NULL,
                                  &error);
  ok (st != NULL && st->nranks == 2 && st->nstates == 2, "stats computed");
  if (st == NULL)
    return;
  const MvStatCell *a = mv_stats_cell (st, 0, -1);
  ok (a->count == 3 && a->incl == 1080 && a->excl == 980 && a->min == 200
      && a->max == 500, "A total: 3, incl 1080, excl 980, min 200, max 500");
  const MvStatCell *a0 = mv_stats_cell (st, 0, 0);
  ok (a0->count == 2 && a0->incl == 700 && a0->excl == 600,
      "A rank 0: 2, 700, 600");
  const MvStatCell *b = mv_stats_cell (st, 1, -1);
  ok (b->count == 2 && b->incl == 300 && b->excl == 300 && b->min == 100
      && b->max == 200, "B total: 2, 300");
  ok (st->ev_count[0] == 1, "E counted once");
  /* 380 and 500 share the bin [317, 563). */
  ok (mv_hist_bin (380) == 10 && mv_hist_bin (500) == 10
      && mv_hist_bin (200) == 9 && st->hist[0 * MV_HIST_BINS + 10] == 2
      && st->hist[0 * MV_HIST_BINS + 9] == 1, "A histogram");
  mv_stats_free (st);
  st = mv_stats_compute (log, 500, 1000, NULL, NULL, NULL, &error);
  a = mv_stats_cell (st, 0, -1);
  ok (a->count == 2 && a->incl == 580, "A beginning in [500,1000]: 2, 580");
  mv_stats_free (st);

  ok (mv_hist_bin (0) == 0 && mv_hist_bin (1) == 0 && mv_hist_bin (10) == 4
      && mv_hist_bin (999) == 11 && mv_hist_bin (1000) == 12,
      "log bins: 4 per decade");
  ok (mv_hist_bin_lo (12) == 1000 && mv_hist_bin_lo (4) == 10, "bin bounds");

  GArray *in = mv_stats_instances (log, 0, mv_hist_bin (500), 0,
                                   G_MAXUINT64, 100, NULL);
  ok (in->len == 2 && g_array_index (in, MvInstance, 0).t_begin == 100
      && g_array_index (in, MvInstance, 1).t_begin == 520
      && g_array_index (in, MvInstance, 1).stream == 1,
      "instances in A's [317, 563) bin: 100 (rank 0), 520 (rank 1)");
  g_array_unref (in);

  MvInstance f;
  ok (mv_search_state (log, 0, 0, TRUE, &f, NULL, NULL, NULL)
      && f.t_begin == 100 && f.t_end == 600 && f.stream == 0, "search A from 0: rank 0 at 100");
  ok (mv_search_state (log, 0, 100, TRUE, &f, NULL, NULL, NULL)
      && f.t_begin == 520 && f.stream == 1 && f.t_end == 900, "next A: rank 1 at 520");
  ok (mv_search_state (log, 0, 800, FALSE, &f, NULL, NULL, NULL)
      && f.t_begin == 520,
      "previous A before 800: 520");
  ok (!mv_search_state (log, 0, 100, FALSE, &f, NULL, NULL, NULL),
      "no A before 100");
  ok (!mv_search_state (log, 1, 200, TRUE, &f, NULL, NULL, NULL),
      "no B after 200");
  ok (mv_find_state_by_name (log, "B") == 1
      && mv_find_state_by_name (log, "a") == 0
      && mv_find_state_by_name (log, "zz") == -1, "state by name");
}

/* States that overlap without nesting pair by the one rule (FORMAT.md
 * section 13) in every part of the viewer; see mv-testlog.h. */
static const MvSpan *
only_span (const MvScene *s)
{
  return s && s->nlanes == 1 && s->lanes[0].spans->len == 1
         ? &g_array_index (s->lanes[0].spans, MvSpan, 0) : NULL;
}

static void
test_overlap (const char *path)
{
  ok (mv_testlog_write_overlap (path) == 0, "overlap log written");
  GError *error = NULL;
  MvLog *log = mv_log_open (path, NULL, NULL, &error);
  ok (log != NULL, "overlap log opened");
  if (log == NULL)
    return;
  MvStats *st = mv_stats_compute (log, 0, G_MAXUINT64, NULL, NULL, NULL,
                                  &error);
  const MvStatCell *a = st ? mv_stats_cell (st, 0, -1) : NULL;
  const MvStatCell *b = st ? mv_stats_cell (st, 1, -1) : NULL;
  ok (a && a->count == 2 && a->incl == 2200 && a->excl == 1100,
      "A: 2 instances, 2200 ns, 1100 ns innermost");
  ok (b && b->count == 2 && b->incl == 2400 && b->excl == 2400
      && b->min == 400 && b->max == 2000,
      "B: ends at its own END, not with A (400 and 2000 ns)");
  ok (st && st->unmatched == 2, "an END that closed nothing and a BEGIN "
      "never ended: 2 not in the table");
  mv_stats_free (st);

  GArray *in = mv_stats_instances (log, 1, -1, 0, G_MAXUINT64, 10, NULL);
  ok (in->len == 2 && g_array_index (in, MvInstance, 0).t_end == 600
      && g_array_index (in, MvInstance, 1).t_begin == 21000
      && g_array_index (in, MvInstance, 1).t_end == 23000,
      "instances of B: [200, 600], [21000, 23000]");
  g_array_unref (in);
  MvInstance f;
  ok (mv_search_state (log, 1, 0, TRUE, &f, NULL, NULL, NULL) && f.t_begin == 200
      && f.t_end == 600, "search B: [200, 600]");
  ok (mv_search_state (log, 1, 23500, TRUE, &f, NULL, NULL, NULL) && f.t_begin == 24000
      && f.t_end == 25000, "search B never ended: to the last record");

  g_autoptr (MvCache) cache = mv_cache_new (log);
  MvSceneParams p = { .t0 = 0, .t1 = 1000, .width = 1000, .height = 22,
                      .row_h = 22, .force_lod = 0 };
  MvScene *s = mv_scene_compute (cache, &p, NULL, &error);
  const MvLane *l = s && s->nlanes == 1 ? &s->lanes[0] : NULL;
  const MvSpan *sa = l ? span_at (l, 0) : NULL, *sb = l ? span_at (l, 1) : NULL;
  ok (l && l->spans->len == 2 && sa->state == 0 && sa->depth == 0
      && sa->t_end == 300 && sb->state == 1 && sb->depth == 1
      && sb->t_begin == 200 && sb->t_end == 600,
      "decoded: A [100, 300], B [200, 600] inside it, nothing at 700");
  mv_scene_free (s);
  /* Far into the stream (4 window widths looked back): A open before
   * the decode is inferred, so B keeps its depth. */
  p.t0 = 22100;
  p.t1 = 22600;
  s = mv_scene_compute (cache, &p, NULL, &error);
  const MvSpan *o = only_span (s);
  ok (o && o->state == 1 && o->depth == 1 && o->t_begin == 21000
      && o->flags == MV_SPAN_OPEN_RIGHT,
      "decoded after a lookback: B from 21000 at depth 1, open right");
  mv_scene_free (s);
  /* Inside A and B, no record in the window or the lookback: A, whose
   * END comes within two window widths after it, is found and drawn
   * across (B's END is further: not seen from here). */
  p.t0 = 21800;
  p.t1 = 21900;
  s = mv_scene_compute (cache, &p, NULL, &error);
  o = only_span (s);
  ok (o && o->state == 0
      && o->flags == (MV_SPAN_OPEN_LEFT | MV_SPAN_OPEN_RIGHT),
      "decoded inside A with nothing in view: A drawn across the window");
  mv_scene_free (s);
  p.t0 = 24500;
  p.t1 = 26000;
  s = mv_scene_compute (cache, &p, NULL, &error);
  o = only_span (s);
  ok (o && o->state == 1 && o->t_end == 25000 && o->flags == MV_SPAN_CUT
      && fabs (o->x1 - 1000.0 / 3) < 0.01,
      "decoded: B never ended stops at the stream's last record");
  mv_scene_free (s);
  mv_log_unref (log);
}

/* One pixel of mv_pyr_sample as it was computed pixel by pixel (before
 * runs of pixels in one bin shared one computation): the reference. */
static void
pyr_pixel_ref (const MvPyrGeom *g, const guint8 *pyr, guint ns,
               const guint8 *hid, const guint32 *lut, guint32 bg, guint x,
               guint32 *pix, gint16 *dom, guint8 *pct)
{
  const guint8 *e = pyr + g->off + 3 * (gsize) g->b0[x];
  guint dstate[4], nd = 0;
  float dw[4], cov = 0;
  for (guint j = 0; j < g->nbins[x]; j++, e += 3)
    {
      guint d = e[0] | (guint) e[1] << 8;
      if (d >= ns || e[2] == 0 || (hid && hid[d]))
        continue;
      float v = g->w[(gsize) x * 4 + j] * e[2];
      cov += v;
      guint i = 0;
      while (i < nd && dstate[i] != d)
        i++;
      if (i == nd)
        {
          dstate[nd] = d;
          dw[nd++] = 0;
        }
      dw[i] += v;
    }
  if (nd == 0)
    {
      *pix = bg;
      *dom = -1;
      *pct = 0;
      return;
    }
  guint bj = 0;
  for (guint i = 1; i < nd; i++)
    if (dw[i] > dw[bj])
      bj = i;
  *pix = lut[(gsize) dstate[bj] * 256 + (guint) MIN (cov + 0.5f, 255.0f)];
  *dom = (gint16) dstate[bj];
  *pct = (guint8) MIN (cov * (100.0f / 255) + 0.5f, 100);
}

/* mv_pyr_sample computes one colour per run of pixels lying in the
 * same bin (zoomed in past the pyramid): the same pixels as one
 * computation per pixel, from any column range, zoomed out or in. */
static void
test_pyr_runs (void)
{
  const guint nb = 256, nlev = 4, ns = 5, w = 640;
  guint8 *pyr = g_malloc (mv_pyr_offset (nb, nlev));
  float *occ = g_new (float, nb * ns);
  GRand *rand = g_rand_new_with_seed (22);
  for (guint i = 0; i < nb * ns; i++)
    occ[i] = g_rand_int_range (rand, 0, 4) == 0 ? 0
             : (float) g_rand_double (rand) / ns;
  mv_pyr_build (occ, nb, ns, nlev, pyr);
  guint32 lut[5 * 256];
  for (guint i = 0; i < G_N_ELEMENTS (lut); i++)
    lut[i] = i * 2654435761u;
  const guint8 hid[5] = { 0, 0, 1, 0, 0 };
  /* Windows of [lo, hi] = [1000, 1000 + 2^20]: zoomed out, a pixel a
   * bin, zoomed in 50x and 5,000x (long runs), off both ends. */
  static const struct { guint64 t0, t1; } win[] = {
    { 1000, 1000 + (1 << 20) }, { 5000, 5000 + 640 * 4096 / 2 },
    { 300000, 300000 + 640 * 4096 / 50 }, { 777777, 777777 + 640 * 4096 / 5000 },
    { 0, 400000 }, { 900000, 1500000 },
  };
  gboolean same = TRUE, runs = FALSE, covered = TRUE;
  guint32 *pix = g_new (guint32, w);
  gint16 *dom = g_new (gint16, w);
  guint8 *pct = g_new (guint8, w);
  for (guint k = 0; k < G_N_ELEMENTS (win); k++)
    for (guint h = 0; h < 2; h++)
      {
        MvPyrGeom g;
        mv_pyr_geom_init (&g, nb, nlev, 1000, 1000 + (1 << 20), win[k].t0,
                          win[k].t1, w);
        guint longest = 0;
        for (guint x = 0; x < w; x++)
          {
            longest = MAX (longest, g.run[x]);
            covered &= g.run[x] >= 1 && x + g.run[x] <= w;
          }
        runs |= longest >= 50;
        /* Whole width, then ranges starting inside runs. */
        static const guint ranges[][2] = { { 0, 640 }, { 3, 97 },
                                           { 101, 102 }, { 333, 640 } };
        for (guint r = 0; r < G_N_ELEMENTS (ranges); r++)
          {
            guint xa = ranges[r][0], xb = ranges[r][1];
            memset (pix, 0xab, w * sizeof *pix);
            memset (dom, 0xab, w * sizeof *dom);
            memset (pct, 0xab, w);
            mv_pyr_sample (&g, pyr, ns, h ? hid : NULL, lut, 0xffffff, pix,
                           dom, pct, xa, xb);
            for (guint x = 0; x < w; x++)
              {
                guint32 rp = 0xabababab;
                gint16 rd = (gint16) 0xabab;
                guint8 rc = 0xab;
                if (x >= xa && x < xb)
                  pyr_pixel_ref (&g, pyr, ns, h ? hid : NULL, lut, 0xffffff,
                                 x, &rp, &rd, &rc);
                same &= pix[x] == rp && dom[x] == rd && pct[x] == rc;
              }
          }
        mv_pyr_geom_clear (&g);
      }
  ok (covered, "pyramid runs: every pixel in a run within the width");
  ok (runs, "pyramid runs: zoomed in 5,000x, runs of 50 pixels or more");
  ok (same, "pyramid sampling by runs: the pixels of one computation per "
      "pixel, over every range (only the range written)");
  g_free (pix);
  g_free (dom);
  g_free (pct);
  g_free (occ);
  g_free (pyr);
  g_rand_free (rand);
}

/* Markers: MPE's own events (negative ids) are named, only the loss
 * record says events were lost; states show the info of their end
 * event, and one open past the window its end and duration. */
static void
test_info (const char *path)
{
  ok (mv_testlog_write_info (path) == 0, "info log written");
  GError *error = NULL;
  MvLog *log = mv_log_open (path, NULL, NULL, &error);
  ok (log != NULL, "info log opened");
  if (log == NULL)
    return;
  g_autoptr (MvCache) cache = mv_cache_new (log);
  MvSceneParams p = { .t0 = 0, .t1 = 1000000, .width = 1000, .height = 22,
                      .row_h = 22, .force_lod = 0 };
  MvScene *s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s != NULL && s->nlanes == 1, "info scene");
  if (s == NULL)
    {
      mv_log_unref (log);
      return;
    }
  const MvLane *l = &s->lanes[0];
  int named = 0, lost = 0;
  for (guint i = 0; i < l->markers->len; i++)
    {
      MvHit hit = { .kind = MV_HIT_MARKER, .lane = l,
                    .marker = &g_array_index (l->markers, MvMarker, i) };
      char *d = mv_scene_describe (s, &hit);
      if (hit.marker->id < 0)
        {
          ok (strstr (d, "MPE_Comm_") && !strstr (d, "lost"),
              "id %d is an event, no loss: %s", hit.marker->id, d);
          named++;
        }
      else
        {
          ok (hit.marker->loss && strstr (d, "17 events lost"),
              "the loss record: %s", d);
          lost++;
        }
      g_free (d);
    }
  ok (named == 2 && lost == 1, "2 MPE events, 1 loss (%d, %d)", named, lost);
  MvHit hit;
  ok (mv_scene_hit (s, 250, 11, &hit) && hit.kind == MV_HIT_SPAN,
      "hit the first Compute");
  char *d = hit.kind == MV_HIT_SPAN ? mv_scene_describe (s, &hit)
                                    : g_strdup ("");
  ok (strstr (d, "end info: intervals=100 sum=3.25")
      && strstr (d, "duration: 300"), "end event's info: %s", d);
  g_free (d);
  mv_scene_free (s);
  /* A window ending inside the second instance. */
  p.t1 = 700000;
  s = mv_scene_compute (cache, &p, NULL, &error);
  ok (s && mv_scene_hit (s, 900, 11, &hit) && hit.kind == MV_HIT_SPAN
      && (hit.span->flags & MV_SPAN_OPEN_RIGHT), "hit the open Compute");
  d = s && hit.kind == MV_HIT_SPAN ? mv_scene_describe (s, &hit)
                                   : g_strdup ("");
  ok (strstr (d, "end (after the window): 0.000900000 s")
      && strstr (d, "duration: 400")
      && strstr (d, "end info: intervals=200 sum=6.5"),
      "open past the window: its end, duration and info: %s", d);
  g_free (d);
  mv_scene_free (s);
  mv_log_unref (log);
}

int
main (void)
{
  char *dir = g_dir_make_tmp ("mvtest-XXXXXX", NULL);
  char *path = g_build_filename (dir, "t.clog", NULL);
  test_view ();
  test_pyr_runs ();
  ok (mv_testlog_write (path, 1000) == 0, "test log (us) written");
  GError *error = NULL;
  MvLog *log = mv_log_open (path, NULL, NULL, &error);
  ok (log != NULL, "log opened: %s", error ? error->message : "");
  if (log)
    test_summary (log);
  mv_log_unref (log);
  ok (mv_testlog_write (path, 1) == 0, "test log written");
  log = mv_log_open (path, NULL, NULL, &error);
  ok (log != NULL, "log opened: %s", error ? error->message : "");
  if (log)
    {
      ok (log->nrows == 2 && log->rows[1].rank == 1 && log->nstates == 2
          && log->nevdefs == 1, "2 rows, 2 states, 1 event");
      test_scene (log);
      test_stats (log);
      test_stats_progress (log);
      mv_log_unref (log);
    }
  ok (mv_testlog_write_n (path, 1000, 64) == 0, "64-rank test log written");
  test_pan_memo (path);
  test_coarse_first (path);
  test_dense_arrows (path);
  test_arrows_grouped (path);
  test_fine_lanes (path);
  test_seed_lookback ();
  test_sampled_rows (path);
  test_many_rows_per_pixel (path);
  test_groups (path);
  test_label_cache (path);
  test_group_fine (path);
  test_overlap (path);
  test_counters (path);
  test_matrix_grid (path);
  test_info (path);
  /* Not a log: a clear error. */
  g_file_set_contents (path, "hello", 5, NULL);
  g_clear_error (&error);
  log = mv_log_open (path, NULL, NULL, &error);
  ok (log == NULL && error != NULL && strstr (error->message, "t.clog"),
      "garbage file: %s", error ? error->message : "(no error)");
  g_clear_error (&error);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
  return exit_status ();
}

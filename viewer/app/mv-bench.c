/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpeview --bench FILE: time to first frame, per-frame times over a
 * zoom/pan sequence across all scales, peak RSS.  Headless.
 *
 * "scene" is the worker's part (decode or summaries + plot rendering),
 * "paint" the GUI thread's part (blit of the last plot + ruler/labels);
 * a frame as the user sees it after a zoom step costs scene + paint.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <cairo.h>

#include "mv-export.h"
#include "../draw/mv-draw.h"
#include "../model/mv-view.h"

/* Resident memory now, kB from /proc/self/status (0 where there is
 * none): anonymous (heap) and file pages (the log is mapped, so pages
 * read from it count while the kernel keeps them mapped). */
static void
rss_now (long *anon, long *file)
{
  *anon = *file = 0;
  char *text = NULL;
  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    return;
  const char *a = strstr (text, "RssAnon:"), *f = strstr (text, "RssFile:");
  if (a)
    *anon = strtol (a + 8, NULL, 10);
  if (f)
    *file = strtol (f + 8, NULL, 10);
  g_free (text);
}

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

/* CPU time of this process: on a shared, loaded machine it tells what a
 * frame costs better than wall time (the work is single-threaded). */
static double
cpu_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
dcmp (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
report (const char *what, GArray *a)
{
  g_array_sort (a, dcmp);
  double *v = (double *) a->data;
  guint n = a->len;
  if (n == 0)
    return;
  g_print ("%-22s n=%-4u median %7.2f ms  p95 %7.2f ms  max %7.2f ms\n",
           what, n, v[n / 2], v[MIN (n - 1, (guint) ceil (n * 0.95) - 1)],
           v[n - 1]);
}

/* MV_BENCH_PERF_CTL=FIFO: "enable" and "disable" written to a perf
 * control fifo around each first image (`perf record -D -1 --control
 * fifo:FIFO`), to profile first images apart from the second stages
 * (not the first frame's, which opens the log, nor those of the next
 * MV_BENCH_PERF_SKIP=N views). */
static void
perf_ctl (const char *cmd)
{
  static FILE *ctl;
  static guint calls;
  const char *path = g_getenv ("MV_BENCH_PERF_CTL");
  const char *skip = g_getenv ("MV_BENCH_PERF_SKIP");
  if (path == NULL || *path == '\0'
      || calls++ < 2 * (1 + (skip ? atoi (skip) : 0)))
    return;
  if (ctl == NULL && (ctl = fopen (path, "w")) == NULL)
    return;
  fprintf (ctl, "%s\n", cmd);
  fflush (ctl);
}

static long
minor_faults (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

/* One scene for p: compute + plot surface (worker), then paint (GUI). */
static gboolean
stage (MvCache *cache, const MvLayout *l, const MvSceneParams *p, cairo_t *cr,
       cairo_surface_t **plot, double *scene_ms, double *paint_ms,
       gboolean *summary)
{
  double a = now_ms (), ca = cpu_ms ();
  long fa = minor_faults ();
  GError *error = NULL;
  MvScene *s = mv_scene_compute (cache, p, NULL, &error);
  if (s == NULL)
    {
      g_printerr ("mpeview: %s\n", error->message);
      g_error_free (error);
      return FALSE;
    }
  double am = now_ms (), cam = cpu_ms ();
  /* Reused from frame to frame, as the window does (mv-timeline.c). */
  if (*plot == NULL)
    *plot = cairo_image_surface_create (CAIRO_FORMAT_RGB24, p->width,
                                        (int) ceil (p->height));
  cairo_t *pcr = cairo_create (*plot);
  MvDrawOpts o = { .highlight_state = -1 };
  mv_draw_plot (pcr, s, p->width, p->height, &o);
  cairo_destroy (pcr);
  cairo_surface_flush (*plot);
  double b = now_ms (), cb = cpu_ms ();
  cairo_save (cr);
  cairo_set_source_surface (cr, *plot, l->plot_x, l->plot_y);
  cairo_paint (cr);
  cairo_restore (cr);
  mv_draw_frame (cr, s, l, &o);
  cairo_surface_flush (cairo_get_target (cr));
  double c = now_ms (), cc = cpu_ms ();
  *scene_ms = b - a;
  if (g_getenv ("MV_BENCH_VERBOSE"))
    g_print ("  compute %.2f ms, render %.2f ms (CPU %.2f + %.2f, paint "
             "%.2f), %ld page faults, %zu lane pixels reused, %u arrows%s%s%s\n",
             am - a, b - am, cam - ca, cb - cam, cc - cb,
             minor_faults () - fa, (size_t) s->pan_reused,
             s->arrows ? s->arrows->len : 0,
             s->arrows_aggregated ? " (aggregated)" : "",
             s->arrows_skipped ? " (skipped)" : "",
             p->force_lod == 1 || p->hide_arrows ? " [coarse stage]" : "");
  *paint_ms = c - b;
  *summary = s->summary;
  mv_scene_free (s);
  return TRUE;
}

/* One frame as the window shows it (mv-timeline.c): a view that needs
 * much from the file first gets a coarse scene, then the full one.
 * *scene_ms, *paint_ms and *summary are the first image's; *full_ms is
 * the time until the full one (the same when there is one stage). */
static gboolean
frame (MvCache *cache, GArray *slots, const MvLayout *l, const MvView *v,
       cairo_t *cr,
       cairo_surface_t **plot, double *scene_ms, double *paint_ms,
       double *full_ms, double *cpu, double *cpu1, gboolean *summary,
       gboolean *staged)
{
  MvSceneParams p = {
    .t0 = v->t0, .t1 = v->t1, .width = (int) l->plot_w,
    .height = l->plot_h, .row_h = v->row_h, .y0 = v->y0, .force_lod = -1,
    .slots = slots,
  };
  perf_ctl ("enable");
  double ca = cpu_ms ();
  MvSceneParams coarse;
  *staged = mv_scene_coarse_first (cache, &p, &coarse);
  if (g_getenv ("MV_BENCH_VERBOSE"))
    g_print ("  stages chosen: %.2f ms CPU%s\n", cpu_ms () - ca,
             coarse.sample_rows ? ", rows sampled" : "");
  if (!stage (cache, l, *staged ? &coarse : &p, cr, plot, scene_ms, paint_ms,
              summary))
    return FALSE;
  *full_ms = *scene_ms + *paint_ms;
  *cpu1 = cpu_ms () - ca;
  perf_ctl ("disable");
  if (*staged)
    {
      double sm, pm;
      gboolean full_summary;
      if (!stage (cache, l, &p, cr, plot, &sm, &pm, &full_summary))
        return FALSE;
      *full_ms += sm + pm;
    }
  *cpu = cpu_ms () - ca;
  return TRUE;
}

int
mv_bench_run (const char *input, int width, int height, MvGroupMode group,
              int fold)
{
  double t_start = now_ms (), c_start = cpu_ms ();
  GError *error = NULL;
  MvLog *log = mv_log_open (input, NULL, NULL, &error);
  if (log == NULL)
    {
      g_printerr ("mpeview: %s\n", error->message);
      g_error_free (error);
      return 1;
    }
  double t_open = now_ms ();
  long anon0, file0;
  rss_now (&anon0, &file0);
  struct rusage ru0;
  getrusage (RUSAGE_SELF, &ru0);
  MvCache *cache = mv_cache_new (log);
  cairo_surface_t *surf = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                      width, height);
  cairo_t *cr = cairo_create (surf);
  MvLayout l;
  mv_layout_compute (&l, log, width, height, FALSE);
  MvView v;
  mv_view_init (&v, mv_log_t_first (log), mv_log_t_last (log), l.plot_w);
  /* Rows grouped as the window groups them (100,000 processes: a few
   * hundred collapsed rank-range rows). */
  MvGroups *groups = mv_export_groups (log, group, fold);
  GArray *slots = mv_groups_slots (groups);
  v.row_h = mv_layout_fit_row_h_slots (l.plot_h, mv_slots_count (log, slots));
  double sm, pm, fm, cm, cm1;
  gboolean summary, staged;
  cairo_surface_t *plot = NULL;
  double t_scene = now_ms (), c_scene = cpu_ms ();
  if (!frame (cache, slots, &l, &v, cr, &plot, &sm, &pm, &fm, &cm, &cm1, &summary,
              &staged))
    return 1;
  double t_first = t_scene + sm + pm;
  double c_first = c_scene - c_start + cm1;
  g_print ("file: %s\nevents: %" G_GUINT64_FORMAT ", streams: %u, "
           "messages: %" G_GUINT64_FORMAT "\n", input, log->info->nevents,
           log->nrows, log->info->nmessages);
  g_print ("rows: %u shown (grouped by %s)\n", mv_slots_count (log, slots),
           mv_groups_mode_name (groups->mode));
  g_print ("open: %.1f ms; first frame (open + scene + paint): %.1f ms "
           "wall, %.1f ms CPU (%s)\n", t_open - t_start, t_first - t_start,
           c_first, summary ? "summaries" : "decoded");
  if (staged)
    g_print ("first frame in full detail: %.1f ms\n",
             t_scene + fm - t_start);
  long anon1, file1;
  rss_now (&anon1, &file1);
  g_print ("RSS after open: %.1f + %.1f MB (anonymous + mapped file; "
           "peak %.1f MB), after the first frame: %.1f + %.1f MB\n",
           anon0 / 1024.0, file0 / 1024.0, ru0.ru_maxrss / 1024.0,
           anon1 / 1024.0, file1 / 1024.0);

  GArray *scene_s = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *scene_d = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *paint = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *total = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *cpu = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *cpu_img = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *cpu_s = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *cpu_d = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *full = g_array_new (FALSE, FALSE, sizeof (double));
  guint nstaged = 0;
  /* Zoom in x2 per step around a point at 37% of the run down to ~1 us,
   * panning a few steps at each scale, then zoom back out. */
  guint steps = 0;
  gboolean verbose = g_getenv ("MV_BENCH_VERBOSE") != NULL;
  /* MV_BENCH_FRAMES=N: the first N frames of the sequence only (logs so
   * large that the whole sequence takes too long for a quick run). */
  const char *fe = g_getenv ("MV_BENCH_FRAMES");
  guint max_frames = fe && *fe ? (guint) g_ascii_strtoull (fe, NULL, 10)
                               : G_MAXUINT;
  for (int dir = 0; dir < 2; dir++)
    for (int k = 0; k < 64; k++)
      {
        guint64 span = v.t1 - v.t0;
        if (dir == 0 && span < 2000)
          break;
        if ((dir == 1 && v.t0 == v.lo && v.t1 == v.hi)
            || steps >= max_frames)
          break;
        mv_view_zoom_at (&v, l.plot_w * 0.37, dir == 0 ? 2.0 : 0.5);
        for (int pan = 0; pan < 3; pan++)
          {
            if (pan > 0)
              mv_view_pan (&v, l.plot_w * 0.25);
            if (!frame (cache, slots, &l, &v, cr, &plot, &sm, &pm, &fm, &cm, &cm1,
                        &summary, &staged))
              return 1;
            if (verbose)
              g_print ("  frame %3u: span %.3g s, %s, scene %.2f ms, "
                       "cpu %.2f ms (first image %.2f), from %.9f s%s\n", steps,
                       (v.t1 - v.t0) / 1e9, summary ? "summ" : "dec", sm,
                       cm, cm1, v.t0 / 1e9, staged ? ", two stages" : "");
            g_array_append_val (full, fm);
            nstaged += staged;
            g_array_append_val (cpu, cm);
            g_array_append_val (cpu_img, cm1);
            g_array_append_val (summary ? cpu_s : cpu_d, cm);
            g_array_append_val (summary ? scene_s : scene_d, sm);
            g_array_append_val (paint, pm);
            double t = sm + pm;
            g_array_append_val (total, t);
            steps++;
          }
        if (dir == 0)
          mv_view_pan (&v, -l.plot_w * 0.5);
      }
  g_print ("zoom/pan sequence at %dx%d: %u frames\n", width, height, steps);
  report ("scene (summaries)", scene_s);
  report ("scene (decoded)", scene_d);
  report ("paint (GUI thread)", paint);
  report ("frame (scene+paint)", total);
  guint over = 0;
  for (guint i = 0; i < total->len; i++)
    over += g_array_index (total, double, i) > 16.0;
  g_print ("frames over 16 ms: %u of %u\n", over, total->len);
  /* Views that needed blocks or messages from the file first showed a
   * coarse scene (above), then the full one: */
  g_print ("views in two stages: %u of %u\n", nstaged, total->len);
  report ("until full detail", full);
  report ("frame CPU (summaries)", cpu_s);
  report ("frame CPU (decoded)", cpu_d);
  report ("frame CPU (all)", cpu);
  report ("first image CPU", cpu_img);
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  g_print ("peak RSS: %.1f MB\n", ru.ru_maxrss / 1024.0);
  long anon, file;
  rss_now (&anon, &file);
  g_print ("RSS at the end: %.1f MB anonymous, %.1f MB of the mapped file\n",
           anon / 1024.0, file / 1024.0);
  g_array_unref (scene_s);
  g_array_unref (scene_d);
  g_array_unref (paint);
  g_array_unref (total);
  g_array_unref (cpu);
  g_array_unref (cpu_img);
  g_array_unref (cpu_s);
  g_array_unref (cpu_d);
  g_array_unref (full);
  cairo_destroy (cr);
  cairo_surface_destroy (surf);
  if (plot)
    cairo_surface_destroy (plot);
  mv_view_clear (&v);
  mv_cache_unref (cache);
  mv_groups_free (groups);
  mv_log_unref (log);
  return 0;
}

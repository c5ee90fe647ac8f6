/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpeview: timeline viewer for .clog files (and MPE2 CLOG2/CLOG files).
 * --export, --export-stats and --bench run without a display: gtk_init
 * is never called on those paths.
 */
#include "config.h"

#include <locale.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "mv-export.h"
#include "mv-window.h"

static gboolean
parse_time_opt (const char *name, const char *value, gpointer data,
                GError **error)
{
  guint64 t;
  if (!mv_parse_time (value, &t))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s: bad time '%s' (e.g. 1.5, 20ms, 3us, 100ns)",
                   name, value);
      return FALSE;
    }
  MvExportOpts *o = data;
  if (g_str_equal (name, "--from"))
    {
      o->from = t;
      o->has_from = TRUE;
    }
  else
    {
      o->to = t;
      o->has_to = TRUE;
    }
  return TRUE;
}

int
main (int argc, char **argv)
{
  MvExportOpts eo = { 0 };
  char *export_path = NULL, *stats_path = NULL, *matrix_path = NULL;
  char *tables_path = NULL;
  char *flame_path = NULL, *ranks = NULL, *flame_select = NULL;
  gboolean samples = FALSE;
  int sample_depth = 0;
  char *detail = NULL, *counter = NULL;
  gboolean bench = FALSE, bench_matrix = FALSE, version = FALSE;
  gboolean sched = FALSE, cpus = FALSE, waits = FALSE;
  char *track = NULL, *group = NULL;
  gboolean collapse = FALSE, expand = FALSE;
  int width = 0, height = 0;

  setlocale (LC_ALL, "");
#ifdef __GLIBC__
  /* Every frame allocates a few 8 MB images and buffers: keep freed
   * memory in the heap instead of returning it to the system, or each
   * frame pays thousands of page faults (10-40 ms here). */
  mallopt (M_MMAP_THRESHOLD, 32 << 20);
  mallopt (M_TRIM_THRESHOLD, 128 << 20);
#endif
  GOptionEntry headless[] = {
    { "export", 'e', 0, G_OPTION_ARG_FILENAME, &export_path,
      "Render FILE's timeline to OUT (.png, .svg, .pdf) without a display",
      "OUT" },
    { "export-stats", 0, 0, G_OPTION_ARG_FILENAME, &stats_path,
      "Write FILE's statistics table (per state and rank) to OUT as CSV",
      "OUT" },
    { "export-matrix", 0, 0, G_OPTION_ARG_FILENAME, &matrix_path,
      "Write FILE's communication matrix (message counts) to OUT.png",
      "OUT" },
    { "export-flame", 0, 0, G_OPTION_ARG_FILENAME, &flame_path,
      "Write FILE's flame graph (call-path samples) to OUT.png, or its "
      "tree to OUT.json", "OUT" },
    { "samples", 0, 0, G_OPTION_ARG_NONE, &samples,
      "Export: draw call-path samples in each thread's row", NULL },
    { "sample-depth", 0, 0, G_OPTION_ARG_INT, &sample_depth,
      "Export: samples as a lane of the Nth frame from the outermost "
      "(0: ticks of the innermost function)", "N" },
    { "ranks", 0, 0, G_OPTION_ARG_STRING, &ranks,
      "Flame graph: only these ranks (e.g. 0,2-3)", "LIST" },
    { "flame-select", 0, 0, G_OPTION_ARG_STRING, &flame_select,
      "Select function NAME's widest flame graph node: print where it ran "
      "(--export-flame), or mark it in the timeline (--export)", "NAME" },
    { "export-tables", 0, 0, G_OPTION_ARG_FILENAME, &tables_path,
      "Write FILE's threads, CPUs (MPE_SCHED=1) and memory (MPE_MEMORY=1) tables to OUT as JSON",
      "OUT" },
    { "waits", 0, 0, G_OPTION_ARG_NONE, &waits,
      "Export: hatch the part of each MPI call spent waiting for another "
      "rank (where states are drawn one by one)", NULL },
    { "sched", 0, 0, G_OPTION_ARG_NONE, &sched,
      "Export: shade where each thread was off its CPU (MPE_SCHED=1)",
      NULL },
    { "track", 0, 0, G_OPTION_ARG_STRING, &track,
      "Export: memory or network (NIC) counter tracks", "WHICH" },
    { "cpus", 0, 0, G_OPTION_ARG_NONE, &cpus,
      "Export the CPU view (a row per CPU, coloured by the thread on it)",
      NULL },
    { "from", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_time_opt,
      "Start of the exported window (seconds, or 20ms, 3us, 100ns)", "T0" },
    { "to", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_time_opt,
      "End of the exported window", "T1" },
    { "counter", 0, 0, G_OPTION_ARG_STRING, &counter,
      "Export: draw metric NAME as a counter track under each process",
      "NAME" },
    { "detail", 0, 0, G_OPTION_ARG_STRING, &detail,
      "Export drawn from: auto (default), summaries or events", "HOW" },
    { "group", 0, 0, G_OPTION_ARG_STRING, &group,
      "Rows grouped by node, by rank range, none, or auto (default: by "
      "rank range past 1024 processes, else none)", "HOW" },
    { "collapse", 0, 0, G_OPTION_ARG_NONE, &collapse,
      "Every group collapsed to its aggregate row", NULL },
    { "expand", 0, 0, G_OPTION_ARG_NONE, &expand,
      "Every group expanded (default below 1024 processes)", NULL },
    { "width", 'W', 0, G_OPTION_ARG_INT, &width,
      "Export/bench width in pixels", "W" },
    { "height", 'H', 0, G_OPTION_ARG_INT, &height,
      "Export/bench height in pixels", "H" },
    { "bench", 0, 0, G_OPTION_ARG_NONE, &bench,
      "Measure first-frame and zoom/pan frame times, peak RSS", NULL },
    { "bench-matrix", 0, 0, G_OPTION_ARG_NONE, &bench_matrix,
      "Measure the communication matrix window's first image", NULL },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &version, "Print the version",
      NULL },
    { NULL },
  };
  GOptionContext *ctx = g_option_context_new ("[FILE]");
  g_option_context_set_summary (ctx, "Timeline viewer for MPE logs "
                                "(.clog, CLOG2, CLOG v1).");
  GOptionGroup *grp = g_option_group_new (NULL, NULL, NULL, &eo, NULL);
  g_option_group_add_entries (grp, headless);
  g_option_context_set_main_group (ctx, grp);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("mpeview: %s\n(try mpeview --help)\n", error->message);
      g_error_free (error);
      g_option_context_free (ctx);
      return 2;
    }
  g_option_context_free (ctx);
  if (version)
    {
      g_print ("mpeview %s\n", PACKAGE_VERSION);
      return 0;
    }
  if ((export_path != NULL) + (stats_path != NULL) + (matrix_path != NULL)
      + (flame_path != NULL) + (tables_path != NULL) + bench + bench_matrix
      > 1)
    {
      g_printerr ("mpeview: --export, --export-stats, --export-matrix, "
                  "--export-flame, --export-tables, --bench and "
                  "--bench-matrix are exclusive\n");
      return 2;
    }
  MvGroupMode group_mode = MV_GROUP_AUTO;
  if (group != NULL && !mv_groups_parse_mode (group, &group_mode))
    {
      g_printerr ("mpeview: --group: node, range, none or auto, not '%s'\n",
                  group);
      return 2;
    }
  if (collapse && expand)
    {
      g_printerr ("mpeview: --collapse and --expand are exclusive\n");
      return 2;
    }
  int fold = collapse ? 1 : expand ? 0 : -1;
  if (sample_depth < 0 || sample_depth > 1000)
    {
      g_printerr ("mpeview: --sample-depth: 0 to 1000, not %d\n",
                  sample_depth);
      return 2;
    }
  if (export_path != NULL || stats_path != NULL || matrix_path != NULL
      || flame_path != NULL || tables_path != NULL || bench
      || bench_matrix)
    {
      if (argc != 2)
        {
          g_printerr ("mpeview: %s needs exactly one input FILE\n",
                      bench ? "--bench" : bench_matrix ? "--bench-matrix"
                      : stats_path ? "--export-stats"
                      : matrix_path ? "--export-matrix"
                      : flame_path ? "--export-flame"
                      : tables_path ? "--export-tables" : "--export");
          return 2;
        }
      if (bench)
        return mv_bench_run (argv[1], width ? width : 1920,
                             height ? height : 1080, group_mode, fold);
      if (bench_matrix)
        return mv_bench_matrix_run (argv[1], width ? width : 1000,
                                    height ? height : 1000);
      eo.input = argv[1];
      eo.output = stats_path ? stats_path
                  : matrix_path ? matrix_path
                  : flame_path ? flame_path
                  : tables_path ? tables_path : export_path;
      eo.width = width;
      eo.height = height;
      eo.force_lod = -1;
      eo.counter = counter;
      eo.samples = samples || sample_depth > 0;
      eo.sample_depth = sample_depth;
      eo.ranks = ranks;
      eo.flame_select = flame_select;
      eo.sched = sched;
      eo.waits = waits;
      eo.cpus = cpus;
      eo.track = track;
      eo.group = group_mode;
      eo.fold = fold;
      if (detail != NULL && !g_str_equal (detail, "auto"))
        {
          if (!g_str_equal (detail, "summaries")
              && !g_str_equal (detail, "events"))
            {
              g_printerr ("mpeview: --detail: auto, summaries or events, "
                          "not '%s'\n", detail);
              return 2;
            }
          eo.force_lod = g_str_equal (detail, "summaries");
        }
      if (!(stats_path ? mv_export_stats_run (&eo, &error)
            : matrix_path ? mv_export_matrix_run (&eo, &error)
            : flame_path ? mv_export_flame_run (&eo, &error)
            : tables_path ? mv_export_tables_run (&eo, &error)
            : cpus ? mv_export_cpus_run (&eo, &error)
            : mv_export_run (&eo, &error)))
        {
          g_printerr ("mpeview: %s\n", error->message);
          g_error_free (error);
          return 1;
        }
      return 0;
    }
  if (argc > 2)
    {
      g_printerr ("mpeview: at most one FILE\n");
      return 2;
    }
  mv_window_set_grouping (group_mode, fold);
  return mv_window_main (argc > 1 ? argv[1] : NULL);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* mpeview --export OUT.png --cpus [--from T0 --to T1] FILE: the CPU
 * view headless (the window's model and drawing code), and
 * mpeview --export-tables OUT.json FILE: the threads, CPUs and memory
 * tables. */
#include "config.h"

#include <errno.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "mv-export.h"
#include "../draw/mv-draw-cpus.h"
#include "../model/mv-memory-table.h"
#include "../model/mv-sched-tables.h"

gboolean
mv_export_tables_run (const MvExportOpts *o, GError **error)
{
  g_autoptr (MvLog) log = mv_export_open_log (o->input, error);
  if (log == NULL)
    return FALSE;
  /* The tables the log has data for; an error when it has none. */
  gboolean has_sched = mv_sched_tables_available (log);
  gboolean has_mem = mv_memory_table_available (log);
  if (!has_sched && !has_mem)
    {
      g_set_error (error, MV_LOG_ERROR, 1, "%s has neither context-switch "
                   "records (MPE_SCHED=1) nor memory records (MPE_MEMORY=1)",
                   log->path);
      return FALSE;
    }
  g_autoptr (MvSchedTables) t = NULL;
  g_autoptr (MvMemoryTable) mem = NULL;
  if (has_sched && (t = mv_sched_tables_new (log, error)) == NULL)
    return FALSE;
  if (has_mem && (mem = mv_memory_table_new (log, error)) == NULL)
    return FALSE;
  FILE *f = g_str_equal (o->output, "-") ? stdout : fopen (o->output, "w");
  if (f == NULL)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "%s: %s", o->output, g_strerror (errno));
      return FALSE;
    }
  fputc ('{', f);
  gboolean ok = mv_sched_tables_write_json (t, f);
  fprintf (f, ",\n\"memory\": ");
  if (mem)
    ok = mv_memory_table_write_json (mem, f) && ok;
  else
    fprintf (f, "null");
  fprintf (f, "}\n");
  if (f != stdout)
    ok = fclose (f) == 0 && ok;
  else
    ok = fflush (f) == 0 && ok;
  if (!ok)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: cannot write",
                   o->output);
      if (f != stdout)
        g_unlink (o->output);
    }
  return ok;
}

gboolean
mv_export_cpus_run (const MvExportOpts *o, GError **error)
{
  if (!g_str_has_suffix (o->output, ".png"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "--cpus writes PNG: %s does not end in .png", o->output);
      return FALSE;
    }
  g_autoptr (MvLog) log = mv_export_open_log (o->input, error);
  if (log == NULL)
    return FALSE;
  guint64 t0 = o->has_from ? o->from : mv_log_t_first (log);
  guint64 t1 = o->has_to ? o->to : mv_log_t_last (log);
  if (t1 <= t0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "--to must be later than --from");
      return FALSE;
    }
  g_autoptr (MvCpuView) cv = mv_cpuview_new (log, error);
  if (cv == NULL)
    return FALSE;
  int w = o->width ? o->width : 1200;
  /* Default height: every CPU at the full row height. */
  int h = o->height ? o->height
          : (int) (30 + 28 + MAX (cv->nrows, 1) * MV_CPU_ROW_H);
  MvCpuLayout l;
  mv_cpu_layout (&l, cv, w, h);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr = cairo_create (s);
  mv_draw_cpuview (cr, cv, &l, t0, t1);
  cairo_destroy (cr);
  cairo_status_t st = cairo_surface_write_to_png (s, o->output);
  cairo_surface_destroy (s);
  if (st != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s",
                   o->output, cairo_status_to_string (st));
      return FALSE;
    }
  return TRUE;
}

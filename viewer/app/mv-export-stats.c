/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpeview --export-stats OUT.csv [--from T0 --to T1] FILE: the
 * statistics window's table, headless, from the same model
 * (mv_stats_compute, mv_stats_to_csv).
 */
#include "config.h"

#include <gio/gio.h>

#include "mv-export.h"
#include "../model/mv-stats.h"

gboolean
mv_export_stats_run (const MvExportOpts *o, GError **error)
{
  guint64 t0 = o->has_from ? o->from : 0;
  guint64 t1 = o->has_to ? o->to : G_MAXUINT64;
  if (t1 < t0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "--to must not be earlier than --from");
      return FALSE;
    }
  g_autoptr (MvLog) log = mv_export_open_log (o->input, error);
  if (log == NULL)
    return FALSE;
  g_autoptr (MvStats) st = mv_stats_compute (log, t0, t1, NULL, NULL, NULL, error);
  if (st == NULL)
    return FALSE;
  return mv_stats_save_csv (st, o->output, error);
}

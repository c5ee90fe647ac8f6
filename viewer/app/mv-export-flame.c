/* SPDX-License-Identifier: BSD-3-Clause */
/* --export-flame: the flame graph window's drawing (or its tree as
 * JSON) without a display, and the time marks of a selected node, for
 * scripts and tests. */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "mv-export.h"
#include "../draw/mv-draw-flame.h"

static MvFlame *
flame_for (MvLog *log, guint64 t0, guint64 t1, const char *ranks,
           GError **error)
{
  gint32 *rv;
  gsize nr;
  if (!mv_flame_parse_ranks (ranks, &rv, &nr))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "--ranks: '%s' is not 'all' or a list like 0,2-3", ranks);
      return NULL;
    }
  MvFlame *fl = mv_flame_compute (log, t0, t1, rv, nr, error);
  g_free (rv);
  return fl;
}

static guint32
select_node (const MvFlame *fl, const char *name, GError **error)
{
  guint32 n = mv_flame_find (fl, name);
  if (n == 0)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 "--flame-select: no function named '%s' in the flame "
                 "graph", name);
  return n;
}

GArray *
mv_export_flame_marks (MvLog *log, guint64 t0, guint64 t1,
                       const char *ranks, const char *name, GError **error)
{
  g_autoptr (MvFlame) fl = flame_for (log, t0, t1, ranks, error);
  if (fl == NULL)
    return NULL;
  guint32 n = select_node (fl, name, error);
  return n ? mv_flame_marks (fl, n) : NULL;
}

gboolean
mv_export_flame_run (const MvExportOpts *o, GError **error)
{
  gboolean json = g_str_has_suffix (o->output, ".json");
  if (!json && !g_str_has_suffix (o->output, ".png"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "%s: unknown output format (use .png or .json)",
                   o->output);
      return FALSE;
    }
  if (!mv_export_check_size (o, error))
    return FALSE;
  g_autoptr (MvLog) log = mv_export_open_log (o->input, error);
  if (log == NULL)
    return FALSE;
  guint64 t0 = o->has_from ? o->from : 0;
  guint64 t1 = o->has_to ? o->to : G_MAXUINT64;
  if (t1 <= t0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "--to must be later than --from");
      return FALSE;
    }
  g_autoptr (MvFlame) fl = flame_for (log, t0, t1, o->ranks, error);
  if (fl == NULL)
    return FALSE;
  guint32 sel = 0;
  if (o->flame_select && !(sel = select_node (fl, o->flame_select, error)))
    return FALSE;
  gboolean ok;
  int saved = 0;
  if (json)
    {
      FILE *fp = fopen (o->output, "w");
      if (fp == NULL)
        {
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                       "%s: %s", o->output, g_strerror (errno));
          return FALSE;
        }
      mv_flame_write_json (fl, fp);
      ok = !ferror (fp);
      saved = errno;
      ok = fclose (fp) == 0 && ok;
      if (!ok)
        saved = errno ? errno : saved;
    }
  else
    {
      double w = o->width ? o->width : 1200;
      double h = o->height ? o->height
                 : (fl->max_depth + 1) * MV_FLAME_BOX_H + 2;
      cairo_surface_t *surf = cairo_image_surface_create
                                (CAIRO_FORMAT_RGB24, (int) w, (int) h);
      cairo_t *cr = cairo_create (surf);
      mv_draw_flame (cr, fl, w, h, sel);
      cairo_destroy (cr);
      cairo_status_t st = cairo_surface_write_to_png (surf, o->output);
      cairo_surface_destroy (surf);
      ok = st == CAIRO_STATUS_SUCCESS;
      saved = EIO;
    }
  if (!ok)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "%s: cannot write (%s)", o->output, g_strerror (saved));
      g_unlink (o->output);
      return FALSE;
    }
  if (sel)
    {
      /* Where the selected context ran: rank thread t0 t1 samples. */
      g_autoptr (GArray) m = mv_flame_marks (fl, sel);
      for (guint i = 0; i < m->len; i++)
        {
          const MvTimeMark *k = &g_array_index (m, MvTimeMark, i);
          const MvRow *r = &log->rows[log->stream_row[k->stream]];
          printf ("%d %d %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %u\n",
                  r->rank, r->thread, k->t0, k->t1, k->samples);
        }
    }
  return TRUE;
}

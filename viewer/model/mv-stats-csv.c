/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The statistics table as CSV (RFC 4180 quoting, LF line ends): what
 * the statistics window shows, row for row, so the window's "Save as
 * CSV" and `mpeview --export-stats` write the same thing.
 */
#include "config.h"

#include <string.h>

#include "mv-stats.h"

static void
csv_field (GString *out, const char *s)
{
  if (strpbrk (s, ",\"\r\n") == NULL)
    {
      g_string_append (out, s);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = s; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

/* Nanoseconds as seconds, exactly (9 decimals). */
static void
csv_seconds (GString *out, guint64 ns)
{
  g_string_append_printf (out, ",%" G_GUINT64_FORMAT ".%09" G_GUINT64_FORMAT,
                          ns / 1000000000u, ns % 1000000000u);
}

static void
csv_row (GString *out, const char *state, const char *rank,
         const MvStatCell *c)
{
  csv_field (out, state);
  g_string_append_c (out, ',');
  csv_field (out, rank);
  g_string_append_printf (out, ",%" G_GUINT64_FORMAT, c->count);
  csv_seconds (out, c->incl);
  csv_seconds (out, c->excl);
  /* The mean rounded to the nearest ns. */
  csv_seconds (out, c->count ? (c->incl + c->count / 2) / c->count : 0);
  csv_seconds (out, c->count ? c->min : 0);
  csv_seconds (out, c->max);
  g_string_append_c (out, '\n');
}

char *
mv_stats_to_csv (const MvStats *st)
{
  GString *out = g_string_new ("state,rank,count,total_s,exclusive_s,"
                               "mean_s,min_s,max_s\n");
  for (guint s = 0; s < st->nstates; s++)
    {
      const char *name = mv_log_state (st->log, s)->name;
      if (name == NULL)
        name = "?";
      csv_row (out, name, "all", mv_stats_cell (st, s, -1));
      for (guint r = 0; r < st->nranks; r++)
        {
          const MvStatCell *c = mv_stats_cell (st, s, (int) r);
          if (c->count == 0)
            continue;
          char rk[32];
          g_snprintf (rk, sizeof rk, "%d", st->ranks[r]);
          csv_row (out, name, rk, c);
        }
    }
  return g_string_free (out, FALSE);
}

gboolean
mv_stats_save_csv (const MvStats *st, const char *path, GError **error)
{
  char *csv = mv_stats_to_csv (st);
  /* Written to a temporary file and renamed: a full disk leaves the
   * old file (or none), never half a table. */
  gboolean ok = g_file_set_contents (path, csv, -1, error);
  g_free (csv);
  return ok;
}

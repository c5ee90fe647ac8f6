/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <string.h>

#include "mv-log.h"
#include "otf2in.h"

G_DEFINE_QUARK (mv-log-error-quark, mv_log_error)

typedef struct
{
  MvProgressFunc func;
  gpointer       user;
} ProgressCtx;

static int
progress_cb (void *user, double fraction)
{
  ProgressCtx *ctx = user;
  return ctx->func != NULL && ctx->func (ctx->user, fraction) ? 1 : 0;
}

static int
row_cmp (gconstpointer a, gconstpointer b)
{
  const MvRow *ra = a, *rb = b;
  if (ra->node_rank != rb->node_rank)
    return ra->node_rank < rb->node_rank ? -1 : 1;
  if (ra->rank != rb->rank)
    return ra->rank < rb->rank ? -1 : 1;
  if (ra->thread != rb->thread)
    return ra->thread < rb->thread ? -1 : 1;
  return ra->stream < rb->stream ? -1 : ra->stream > rb->stream;
}

static void
log_free (MvLog *log)
{
  logfmt_reader_close (log->reader);
  g_free (log->path);
  g_free (log->warning);
  g_free (log->rows);
  g_free (log->stream_row);
  g_free (log->row_events);
  g_clear_pointer (&log->evdef_by_id, g_hash_table_unref);
}

MvLog *
mv_log_open (const char *path, MvProgressFunc progress, gpointer user,
             GError **error)
{
  ProgressCtx ctx = { progress, user };
  logfmt_reader_t *r = NULL;
  logfmt_error_t err = { 0 };
  gboolean partial = FALSE;
  char *warning = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  /* An OTF2 archive is converted to a temporary .clog (the window
   * converts it next to the archive first, so this is for other
   * callers). */
  gboolean otf2 = otf2in_is_archive (path);
  int rc = otf2in_reader_open (path, LOGFMT_OPEN_NOVERIFY, progress_cb, &ctx,
                               &r, &err);
  if (!otf2 && (rc == LOGFMT_EPARTIAL || rc == LOGFMT_ETRUNCATED
      || rc == LOGFMT_ECORRUPT || rc == LOGFMT_ECHECKSUM))
    {
      /* Show what can be read, and say what is missing. */
      logfmt_error_t err2 = { 0 };
      if (logfmt_reader_open_progress (path, LOGFMT_OPEN_TOLERANT,
                                       progress_cb, &ctx, &r, &err2) == 0)
        {
          partial = TRUE;
          warning = g_strdup_printf ("%s. Only the complete parts are shown.",
                                     err.message[0] ? err.message
                                     : logfmt_strerror (rc));
          rc = 0;
        }
    }
  if (rc != 0)
    {
      g_set_error (error, MV_LOG_ERROR, -rc, "%s",
                   err.message[0] ? err.message : logfmt_strerror (rc));
      return NULL;
    }

  MvLog *log = g_atomic_rc_box_new0 (MvLog);
  log->reader = r;
  log->info = logfmt_reader_info (r);
  log->path = g_strdup (path);
  log->partial = partial;
  log->warning = warning;
  log->nrows = log->info->nstreams;
  log->rows = g_new0 (MvRow, MAX (log->nrows, 1));
  log->stream_row = g_new0 (guint, MAX (log->nrows, 1));
  for (guint i = 0; i < log->nrows; i++)
    {
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, i);
      log->rows[i].stream = i;
      log->rows[i].rank = sd ? sd->rank : (gint32) i;
      log->rows[i].thread = sd ? sd->thread : 0;
      log->rows[i].host = sd ? sd->host : NULL;
    }
  /* Rows go node by node (nodes in the order of their lowest rank), so
   * that a node's processes are one range of rows (mv-groups.h); with
   * the usual block placement this is rank order. */
  GHashTable *low = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < log->nrows; i++)
    if (log->rows[i].host)
      {
        gpointer v;
        if (!g_hash_table_lookup_extended (low, log->rows[i].host, NULL, &v)
            || GPOINTER_TO_INT (v) > log->rows[i].rank)
          g_hash_table_insert (low, (gpointer) log->rows[i].host,
                               GINT_TO_POINTER (log->rows[i].rank));
      }
  for (guint i = 0; i < log->nrows; i++)
    log->rows[i].node_rank = log->rows[i].host
      ? GPOINTER_TO_INT (g_hash_table_lookup (low, log->rows[i].host))
      : log->rows[i].rank;
  g_hash_table_unref (low);
  qsort (log->rows, log->nrows, sizeof (MvRow), row_cmp);
  guint threads = 0;
  log->row_events = g_new (guint64, log->nrows + 1);
  log->row_events[0] = 0;
  for (guint i = 0; i < log->nrows; i++)
    {
      log->row_events[i + 1] = log->row_events[i]
        + logfmt_reader_stream_events (r, log->rows[i].stream);
      log->stream_row[log->rows[i].stream] = i;
      log->rows[i].first_of_rank = i == 0
        || log->rows[i - 1].rank != log->rows[i].rank;
      threads = log->rows[i].first_of_rank ? 1 : threads + 1;
      log->max_threads = MAX (log->max_threads, threads);
    }
  log->nstates = logfmt_reader_n_states (r);
  log->nevdefs = logfmt_reader_n_event_defs (r);
  log->evdef_by_id = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < log->nevdefs; i++)
    g_hash_table_insert (log->evdef_by_id,
                         GINT_TO_POINTER (logfmt_reader_event_def (r, i)->id),
                         GUINT_TO_POINTER (i + 1));
  return log;
}

MvLog *
mv_log_ref (MvLog *log)
{
  return g_atomic_rc_box_acquire (log);
}

void
mv_log_unref (MvLog *log)
{
  if (log != NULL)
    g_atomic_rc_box_release_full (log, (GDestroyNotify) log_free);
}

const logfmt_state_def_t *
mv_log_state (const MvLog *log, guint i)
{
  return logfmt_reader_state (log->reader, i);
}

const logfmt_event_def_t *
mv_log_evdef (const MvLog *log, guint i)
{
  return logfmt_reader_event_def (log->reader, i);
}

int
mv_log_find_evdef (const MvLog *log, gint32 id)
{
  return (int) GPOINTER_TO_UINT (g_hash_table_lookup (log->evdef_by_id,
                                                      GINT_TO_POINTER (id)))
         - 1;
}

char *
mv_log_row_label (const MvLog *log, guint row)
{
  const MvRow *r = &log->rows[row];
  if (r->thread == 0 && (row + 1 >= log->nrows
                         || log->rows[row + 1].rank != r->rank))
    return g_strdup_printf ("rank %d", r->rank);
  return g_strdup_printf ("rank %d.%d", r->rank, r->thread);
}

guint64
mv_log_t_first (const MvLog *log)
{
  return log->info->t_first;
}

guint64
mv_log_t_last (const MvLog *log)
{
  return MAX (log->info->t_last, log->info->t_first + 1);
}

/* The first event of `kind` and `state` on `stream` at `time`. */
static gboolean
find_at (const MvLog *log, guint32 stream, guint64 time, gint32 state,
         int kind, logfmt_event_t *ev)
{
  logfmt_iter_t *it = NULL;
  gboolean found = FALSE;
  if (logfmt_iter_new (log->reader, stream, time, time, &it) != 0)
    return FALSE;
  while (logfmt_iter_next (it, ev) == 1)
    if (ev->kind == kind && ev->state == state)
      {
        found = TRUE;
        break;
      }
  logfmt_iter_free (it);
  return found;
}

gboolean
mv_log_find_begin (const MvLog *log, guint32 stream, guint64 time,
                   gint32 state, logfmt_event_t *ev)
{
  return find_at (log, stream, time, state, LOGFMT_KIND_BEGIN, ev);
}

gboolean
mv_log_find_end (const MvLog *log, guint32 stream, guint64 time,
                 gint32 state, logfmt_event_t *ev)
{
  return find_at (log, stream, time, state, LOGFMT_KIND_END, ev);
}

gboolean
mv_log_find_instance_end (const MvLog *log, guint32 stream, guint64 t_begin,
                          gint32 state, guint64 max_events, guint64 *t_end)
{
  logfmt_iter_t *it = NULL;
  if (logfmt_iter_new (log->reader, stream, t_begin, G_MAXUINT64, &it) != 0)
    return FALSE;
  /* The instance's BEGIN opens it; an END of its state closes the
   * innermost open instance of that state (mv-intervals.h), so it ends
   * at the END that brings the count of open ones back to zero. */
  logfmt_event_t ev;
  guint64 open = 0, n = 0;
  gboolean found = FALSE;
  while (!found && n++ < max_events && logfmt_iter_next (it, &ev) == 1)
    {
      if (ev.state != state)
        continue;
      if (ev.kind == LOGFMT_KIND_BEGIN)
        open++;
      else if (ev.kind == LOGFMT_KIND_END && open > 0 && --open == 0)
        {
          *t_end = ev.time;
          found = TRUE;
        }
    }
  logfmt_iter_free (it);
  return found;
}

void
mv_json_string (FILE *fp, const char *s)
{
  fputc ('"', fp);
  for (; s && *s; s++)
    {
      unsigned char c = (unsigned char) *s;
      if (c == '"' || c == '\\')
        fprintf (fp, "\\%c", c);
      else if (c < 0x20)
        fprintf (fp, "\\u%04x", c);
      else
        fputc (c, fp);
    }
  fputc ('"', fp);
}

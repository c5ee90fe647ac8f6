/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "mv-matrix-window.h"
#include "mv-child-window.h"
#include "../draw/mv-draw-matrix.h"
#include "../model/mv-matrix.h"

struct _MvMatrixWindow
{
  GtkWindow     parent;
  GtkWidget    *range, *what, *comm, *map, *list, *colls, *status;
  MvTimeline   *tl;
  MvLog        *log;
  MvMatrix     *mm;
  MvMatrixGrid *grid;
  int           sel_i, sel_j;     /* selected block, -1 none */
  GArray       *msgs;             /* the selected block's messages */
  guint64       t0, t1;           /* window of mm, or of the job */
  guint         follow_id;        /* pending recompute after a change */
  GCancellable *cancel, *list_cancel;
};

G_DEFINE_TYPE (MvMatrixWindow, mv_matrix_window, GTK_TYPE_WINDOW)

typedef MvMatrixWindow Mw;

static MvMatrixWhat
cur_what (Mw *mw)
{
  return (MvMatrixWhat) MAX (gtk_combo_box_get_active
                             (GTK_COMBO_BOX (mw->what)), 0);
}

/* The communicator chosen: FALSE for all. */
static gboolean
cur_comm (Mw *mw, guint32 *id)
{
  int i = gtk_combo_box_get_active (GTK_COMBO_BOX (mw->comm));
  if (i <= 0 || (size_t) i > logfmt_reader_n_comms (mw->log->reader))
    return FALSE;
  *id = logfmt_reader_comm (mw->log->reader, (size_t) i - 1)->id;
  return TRUE;
}

static void
cur_window (Mw *mw, guint64 *t0, guint64 *t1)
{
  *t0 = 0;
  *t1 = G_MAXUINT64;
  if (gtk_combo_box_get_active (GTK_COMBO_BOX (mw->range)) == 1
      && !mv_timeline_selection (mw->tl, t0, t1))
    {
      const MvView *v = mv_timeline_view (mw->tl);
      *t0 = v->t0;
      *t1 = v->t1;
    }
}

/* The grid for the current plot size and quantity. */
static void
regrid (Mw *mw)
{
  mv_matrix_grid_free (mw->grid);
  mw->grid = NULL;
  if (mw->mm == NULL)
    return;
  MvMatrixLayout l;
  mv_matrix_layout (&l, gtk_widget_get_allocated_width (mw->map),
                    gtk_widget_get_allocated_height (mw->map));
  mw->grid = mv_matrix_grid (mw->mm, cur_what (mw),
                             mv_matrix_layout_blocks (&l));
}

static void
fill_collectives (Mw *mw)
{
  GString *s = g_string_new (NULL);
  const an_matrix_t *m = mw->mm->m;
  char vb[48], tb[48];
  g_string_append_printf (s, "%" PRIu64 " messages, ", m->messages);
  mv_matrix_format (MV_MATRIX_BYTES, (double) m->bytes, vb, sizeof vb);
  g_string_append (s, vb);
  if (m->unmatched_sends || m->unmatched_recvs)
    g_string_append_printf (s, " (unmatched: %" PRIu64 " sends, %" PRIu64
                            " receives)", m->unmatched_sends,
                            m->unmatched_recvs);
  g_string_append (s, m->ncomms ? "\nCollectives:" : "\nNo collectives "
                   "with the wrappers' communicator and sizes.");
  for (size_t i = 0; i < m->ncomms; i++)
    {
      const an_coll_comm_t *c = &m->comms[i];
      const char *name = c->def && c->def->name ? c->def->name
                         : c->id == 0 ? "MPI_COMM_WORLD" : "";
      mv_matrix_format (MV_MATRIX_BYTES, (double) c->bytes_sent, vb,
                        sizeof vb);
      mv_format_duration (c->time_ns, tb, sizeof tb);
      g_string_append_printf (s, "\n  0x%08" PRIx32 " %s (%u ranks): %"
                              PRIu64 " calls, %s sent, %s", c->id, name,
                              c->def ? c->def->size : 0, c->calls, vb, tb);
    }
  gtk_label_set_text (GTK_LABEL (mw->colls), s->str);
  g_string_free (s, TRUE);
}

/* ---- jobs --------------------------------------------------------------- */

typedef struct
{
  MvLog    *log;
  MvMatrix *mm;       /* for the message list */
  guint64   t0, t1;
  gboolean  by_comm;
  guint32   comm;
  gint32    f0, f1, r0, r1;
} Job;

static void
job_free (Job *j)
{
  mv_log_unref (j->log);
  g_free (j);
}

static void
matrix_thread (GTask *t, gpointer src, gpointer data, GCancellable *c)
{
  Job *j = data;
  GError *error = NULL;
  MvMatrix *mm = mv_matrix_compute (j->log, j->t0, j->t1, j->by_comm,
                                    j->comm, &error);
  if (mm)
    g_task_return_pointer (t, mm, (GDestroyNotify) mv_matrix_free);
  else
    g_task_return_error (t, error);
}

static void
clear_list (Mw *mw)
{
  GList *kids = gtk_container_get_children (GTK_CONTAINER (mw->list));
  for (GList *l = kids; l; l = l->next)
    gtk_widget_destroy (l->data);
  g_list_free (kids);
  if (mw->msgs)
    g_array_unref (mw->msgs);
  mw->msgs = NULL;
}

/* Jobs hold a reference on the window (their source object); a closed
 * window cancels them and their results are dropped. */
static void
matrix_done (GObject *src, GAsyncResult *res, gpointer user)
{
  Mw *mw = MV_MATRIX_WINDOW (src);
  MvMatrix *mm = mv_job_result (res, mw->status);
  if (mm == NULL)
    return;
  mv_matrix_free (mw->mm);
  mw->mm = mm;
  mw->sel_i = mw->sel_j = -1;
  clear_list (mw);
  regrid (mw);
  fill_collectives (mw);
  gtk_label_set_text (GTK_LABEL (mw->status),
                      "Click a block to list its messages; activate one "
                      "to show it in the timeline.");
  gtk_widget_queue_draw (mw->map);
}

static void
recompute (Mw *mw)
{
  Job *j = g_new0 (Job, 1);
  cur_window (mw, &j->t0, &j->t1);
  j->by_comm = cur_comm (mw, &j->comm);
  j->log = mv_log_ref (mw->log);
  mw->t0 = j->t0;
  mw->t1 = j->t1;
  if (mw->cancel)
    g_cancellable_cancel (mw->cancel);
  g_clear_object (&mw->cancel);
  mw->cancel = g_cancellable_new ();
  gtk_label_set_text (GTK_LABEL (mw->status), "Computing…");
  GTask *t = g_task_new (mw, mw->cancel, matrix_done, NULL);
  g_task_set_task_data (t, j, (GDestroyNotify) job_free);
  g_task_run_in_thread (t, matrix_thread);
  g_object_unref (t);
}

static void
list_thread (GTask *t, gpointer src, gpointer data, GCancellable *c)
{
  Job *j = data;
  GArray *a = mv_matrix_messages (j->mm, j->f0, j->f1, j->r0, j->r1, 500,
                                  c);
  if (a)
    g_task_return_pointer (t, a, (GDestroyNotify) g_array_unref);
  else
    g_task_return_new_error (t, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                             "cancelled");
}

static void
list_done (GObject *src, GAsyncResult *res, gpointer user)
{
  Mw *mw = MV_MATRIX_WINDOW (src);
  GArray *a = g_task_propagate_pointer (G_TASK (res), NULL);
  if (a == NULL)
    return;
  clear_list (mw);
  mw->msgs = a;
  for (guint i = 0; i < a->len; i++)
    {
      const logfmt_message_t *m = &g_array_index (a, logfmt_message_t, i);
      gboolean has_send = m->send_stream != LOGFMT_NO_STREAM;
      gboolean has_recv = m->recv_stream != LOGFMT_NO_STREAM;
      char txt[160], d[48];
      if (has_send && has_recv)
        mv_format_duration (m->recv_time - m->send_time, d, sizeof d);
      else
        g_strlcpy (d, has_send ? "not received" : "send not logged",
                   sizeof d);
      g_snprintf (txt, sizeof txt, "%.9f s  %d → %d  tag %d  %" PRIu64
                  " B  %s", (has_send ? m->send_time : m->recv_time) / 1e9,
                  m->send_rank, m->recv_rank, m->tag, m->size, d);
      GtkWidget *l = gtk_label_new (txt);
      gtk_label_set_xalign (GTK_LABEL (l), 0);
      gtk_list_box_insert (GTK_LIST_BOX (mw->list), l, -1);
    }
  gtk_widget_show_all (mw->list);
  char *s = g_strdup_printf ("%u messages listed (at most 500); activate "
                             "one to show it", a->len);
  gtk_label_set_text (GTK_LABEL (mw->status), s);
  g_free (s);
}

static void
list_block (Mw *mw, guint i, guint j)
{
  const MvMatrixGrid *g = mw->grid;
  Job *job = g_new0 (Job, 1);
  job->log = mv_log_ref (mw->log);
  job->mm = mw->mm;
  job->f0 = (gint32) (i * g->group);
  job->f1 = (gint32) MIN ((i + 1) * g->group, g->nranks) - 1;
  job->r0 = (gint32) (j * g->group);
  job->r1 = (gint32) MIN ((j + 1) * g->group, g->nranks) - 1;
  if (mw->list_cancel)
    g_cancellable_cancel (mw->list_cancel);
  g_clear_object (&mw->list_cancel);
  mw->list_cancel = g_cancellable_new ();
  GTask *t = g_task_new (mw, mw->list_cancel, list_done, NULL);
  g_task_set_task_data (t, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (t, list_thread);
  g_object_unref (t);
}

/* ---- the heat map ------------------------------------------------------- */

static gboolean
on_map_draw (GtkWidget *da, cairo_t *cr, Mw *mw)
{
  MvMatrixLayout l;
  mv_matrix_layout (&l, gtk_widget_get_allocated_width (da),
                    gtk_widget_get_allocated_height (da));
  if (mw->mm && (mw->grid == NULL
                 || mw->grid->n != MIN (mv_matrix_layout_blocks (&l)
                                        ? (MAX (mw->mm->m->nranks, 1)
                                           + mw->grid->group - 1)
                                          / mw->grid->group : 0,
                                        mw->grid->n)))
    regrid (mw);
  mv_draw_matrix (cr, mw->grid, &l, cur_what (mw), mw->sel_i, mw->sel_j);
  return TRUE;
}

static void
on_map_size (GtkWidget *da, GdkRectangle *a, Mw *mw)
{
  /* A new size may need another number of ranks per pixel. */
  if (mw->mm)
    {
      regrid (mw);
      mw->sel_i = mw->sel_j = -1;
    }
}

static gboolean
on_map_press (GtkWidget *da, GdkEventButton *ev, Mw *mw)
{
  MvMatrixLayout l;
  guint i, j;
  mv_matrix_layout (&l, gtk_widget_get_allocated_width (da),
                    gtk_widget_get_allocated_height (da));
  if (ev->button != 1 || !mv_matrix_hit (mw->grid, &l, ev->x, ev->y, &i, &j))
    return FALSE;
  mw->sel_i = (int) i;
  mw->sel_j = (int) j;
  gtk_widget_queue_draw (da);
  list_block (mw, i, j);
  return TRUE;
}

static gboolean
on_map_tooltip (GtkWidget *da, int x, int y, gboolean kb, GtkTooltip *tip,
                Mw *mw)
{
  MvMatrixLayout l;
  guint i, j;
  mv_matrix_layout (&l, gtk_widget_get_allocated_width (da),
                    gtk_widget_get_allocated_height (da));
  if (!mv_matrix_hit (mw->grid, &l, x, y, &i, &j))
    return FALSE;
  const MvMatrixGrid *g = mw->grid;
  char vb[48], from[48], to[48];
  guint f1 = MIN ((i + 1) * g->group, g->nranks) - 1;
  guint r1 = MIN ((j + 1) * g->group, g->nranks) - 1;
  if (g->group > 1)
    {
      g_snprintf (from, sizeof from, "ranks %u–%u", i * g->group, f1);
      g_snprintf (to, sizeof to, "ranks %u–%u", j * g->group, r1);
    }
  else
    {
      g_snprintf (from, sizeof from, "rank %u", i);
      g_snprintf (to, sizeof to, "rank %u", j);
    }
  mv_matrix_format (cur_what (mw), g->v[(gsize) i * g->n + j], vb,
                    sizeof vb);
  char *s = g_strdup_printf ("%s → %s: %s", from, to, vb);
  gtk_tooltip_set_text (tip, s);
  g_free (s);
  return TRUE;
}

static void
on_msg_activated (GtkListBox *lb, GtkListBoxRow *row, Mw *mw)
{
  int i = gtk_list_box_row_get_index (row);
  if (mw->msgs == NULL || i < 0 || (guint) i >= mw->msgs->len)
    return;
  const logfmt_message_t *m = &g_array_index (mw->msgs, logfmt_message_t,
                                              i);
  gboolean has_send = m->send_stream != LOGFMT_NO_STREAM;
  gboolean has_recv = m->recv_stream != LOGFMT_NO_STREAM;
  guint64 a = has_send ? m->send_time : m->recv_time;
  guint64 b = has_recv ? m->recv_time : a;
  guint64 d = MAX (b - a, 1000);
  guint32 stream = has_send ? m->send_stream : m->recv_stream;
  mv_timeline_show (mw->tl, a > d ? a - d : 0, b + d,
                    (int) mw->log->stream_row[stream]);
}

static void
on_what_changed (GtkComboBox *c, Mw *mw)
{
  regrid (mw);
  gtk_widget_queue_draw (mw->map);
}

static void
on_query_changed (GtkComboBox *c, Mw *mw)
{
  recompute (mw);
}

static gboolean
follow_now (gpointer data)
{
  Mw *mw = data;
  mw->follow_id = 0;
  guint64 t0, t1;
  cur_window (mw, &t0, &t1);
  if (t0 != mw->t0 || t1 != mw->t1)
    recompute (mw);
  return G_SOURCE_REMOVE;
}

/* The timeline's selection or window moved: follow it once it rests. */
static void
on_timeline_changed (MvTimeline *tl, Mw *mw)
{
  if (gtk_combo_box_get_active (GTK_COMBO_BOX (mw->range)) != 1)
    return;
  if (mw->follow_id)
    g_source_remove (mw->follow_id);
  mw->follow_id = g_timeout_add (150, follow_now, mw);
}

static void
mv_matrix_window_dispose (GObject *obj)
{
  Mw *mw = MV_MATRIX_WINDOW (obj);
  if (mw->cancel)
    g_cancellable_cancel (mw->cancel);
  if (mw->list_cancel)
    g_cancellable_cancel (mw->list_cancel);
  g_clear_object (&mw->cancel);
  g_clear_object (&mw->list_cancel);
  if (mw->follow_id)
    g_source_remove (mw->follow_id);
  mw->follow_id = 0;
  G_OBJECT_CLASS (mv_matrix_window_parent_class)->dispose (obj);
}

static void
mv_matrix_window_finalize (GObject *obj)
{
  Mw *mw = MV_MATRIX_WINDOW (obj);
  if (mw->msgs)
    g_array_unref (mw->msgs);
  mv_matrix_grid_free (mw->grid);
  mv_matrix_free (mw->mm);
  mv_log_unref (mw->log);
  G_OBJECT_CLASS (mv_matrix_window_parent_class)->finalize (obj);
}

static void
mv_matrix_window_class_init (MvMatrixWindowClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  oc->dispose = mv_matrix_window_dispose;
  oc->finalize = mv_matrix_window_finalize;
}

static void
mv_matrix_window_init (MvMatrixWindow *mw)
{
  mw->sel_i = mw->sel_j = -1;
}

#define WINDOW_KEY "mv-matrix-window"



GtkWidget *
mv_matrix_window_show (GtkWindow *parent, MvTimeline *tl)
{
  MvLog *log = mv_timeline_get_log (tl);
  GtkWidget *old = mv_child_window_reuse (parent, WINDOW_KEY, log);
  if (old)
    return old;

  Mw *mw = g_object_new (MV_TYPE_MATRIX_WINDOW, "type", GTK_WINDOW_TOPLEVEL,
                         "title", "Communication matrix", "transient-for",
                         parent, "destroy-with-parent", TRUE,
                         "default-width", 980, "default-height", 720, NULL);
  mw->tl = tl;
  mw->log = mv_log_ref (log);
  mv_child_window_register (parent, WINDOW_KEY, GTK_WIDGET (mw), log);

  GtkWidget *vbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  g_object_set (vbox, "margin", 10, NULL);
  static const char *const whats[] = { "Messages", "Bytes",
    "Time (send to receive)", NULL };
  GtkWidget *bar = mv_range_bar_new (&mw->range);
  gtk_box_pack_start (GTK_BOX (bar), gtk_label_new ("Show"), FALSE, FALSE,
                      8);
  mw->what = mv_combo_new (whats);
  gtk_box_pack_start (GTK_BOX (bar), mw->what, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (bar), gtk_label_new ("Communicator"), FALSE,
                      FALSE, 8);
  mw->comm = gtk_combo_box_text_new ();
  gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (mw->comm), "All");
  for (size_t i = 0; i < logfmt_reader_n_comms (log->reader); i++)
    {
      const logfmt_comm_def_t *d = logfmt_reader_comm (log->reader, i);
      char *s = g_strdup_printf ("0x%08" PRIx32 " %s (%u)", d->id,
                                 d->name ? d->name
                                 : d->id == 0 ? "MPI_COMM_WORLD" : "",
                                 d->size);
      gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (mw->comm), s);
      g_free (s);
    }
  gtk_combo_box_set_active (GTK_COMBO_BOX (mw->comm), 0);
  gtk_box_pack_start (GTK_BOX (bar), mw->comm, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (vbox), bar, FALSE, FALSE, 0);

  GtkWidget *hpaned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  mw->map = gtk_drawing_area_new ();
  gtk_widget_set_size_request (mw->map, 360, 360);
  gtk_widget_add_events (mw->map, GDK_BUTTON_PRESS_MASK);
  gtk_widget_set_has_tooltip (mw->map, TRUE);
  g_signal_connect (mw->map, "draw", G_CALLBACK (on_map_draw), mw);
  g_signal_connect (mw->map, "size-allocate", G_CALLBACK (on_map_size), mw);
  g_signal_connect (mw->map, "button-press-event",
                    G_CALLBACK (on_map_press), mw);
  g_signal_connect (mw->map, "query-tooltip", G_CALLBACK (on_map_tooltip),
                    mw);
  gtk_paned_pack1 (GTK_PANED (hpaned), mw->map, TRUE, FALSE);
  GtkWidget *lscroll = gtk_scrolled_window_new (NULL, NULL);
  gtk_widget_set_size_request (lscroll, 340, -1);
  mw->list = gtk_list_box_new ();
  g_signal_connect (mw->list, "row-activated",
                    G_CALLBACK (on_msg_activated), mw);
  gtk_container_add (GTK_CONTAINER (lscroll), mw->list);
  gtk_paned_pack2 (GTK_PANED (hpaned), lscroll, FALSE, FALSE);
  gtk_box_pack_start (GTK_BOX (vbox), hpaned, TRUE, TRUE, 0);

  mw->colls = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (mw->colls), 0);
  gtk_label_set_selectable (GTK_LABEL (mw->colls), TRUE);
  GtkWidget *cscroll = gtk_scrolled_window_new (NULL, NULL);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (cscroll),
                                  GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_size_request (cscroll, -1, 110);
  gtk_container_add (GTK_CONTAINER (cscroll), mw->colls);
  gtk_box_pack_start (GTK_BOX (vbox), cscroll, FALSE, FALSE, 0);
  mw->status = gtk_label_new ("");
  gtk_label_set_xalign (GTK_LABEL (mw->status), 0);
  gtk_box_pack_start (GTK_BOX (vbox), mw->status, FALSE, FALSE, 0);
  gtk_container_add (GTK_CONTAINER (mw), vbox);

  g_signal_connect (mw->what, "changed", G_CALLBACK (on_what_changed), mw);
  g_signal_connect (mw->range, "changed", G_CALLBACK (on_query_changed), mw);
  g_signal_connect (mw->comm, "changed", G_CALLBACK (on_query_changed), mw);
  g_signal_connect_object (tl, "changed", G_CALLBACK (on_timeline_changed),
                           mw, 0);
  recompute (mw);
  gtk_widget_show_all (GTK_WIDGET (mw));
  return GTK_WIDGET (mw);
}

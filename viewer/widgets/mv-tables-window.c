/* SPDX-License-Identifier: BSD-3-Clause */
/* Threads and CPUs tables in a notebook. */
#include "config.h"

#include "mv-tables-window.h"
#include "../model/mv-sched-tables.h"

#define WINDOW_KEY "mv-tables-window"

/* A column of seconds shown with 6 decimals (sorted as numbers). */
static void
seconds_cell (GtkTreeViewColumn *col, GtkCellRenderer *cell,
              GtkTreeModel *m, GtkTreeIter *it, gpointer data)
{
  double v;
  gtk_tree_model_get (m, it, GPOINTER_TO_INT (data), &v, -1);
  char buf[64];
  g_snprintf (buf, sizeof buf, "%.6f", v);
  g_object_set (cell, "text", buf, NULL);
}

static void
add_column (GtkWidget *view, const char *title, int col, gboolean secs)
{
  GtkCellRenderer *r = gtk_cell_renderer_text_new ();
  GtkTreeViewColumn *c = gtk_tree_view_column_new ();
  gtk_tree_view_column_set_title (c, title);
  gtk_tree_view_column_pack_start (c, r, TRUE);
  if (secs)
    gtk_tree_view_column_set_cell_data_func (c, r, seconds_cell,
                                             GINT_TO_POINTER (col), NULL);
  else
    gtk_tree_view_column_add_attribute (c, r, "text", col);
  gtk_tree_view_column_set_sort_column_id (c, col);
  gtk_tree_view_column_set_resizable (c, TRUE);
  gtk_tree_view_append_column (GTK_TREE_VIEW (view), c);
}

static GtkWidget *
scrolled (GtkWidget *view)
{
  GtkWidget *sw = gtk_scrolled_window_new (NULL, NULL);
  gtk_container_add (GTK_CONTAINER (sw), view);
  return sw;
}

enum
{
  T_RANK, T_THREAD, T_ON, T_OFF, T_BLOCKED, T_PREEMPTED, T_SWITCHES,
  T_MIGRATIONS, T_CPUS, T_N
};

static GtkWidget *
threads_view (const MvSchedTables *t)
{
  GtkListStore *st = gtk_list_store_new (T_N, G_TYPE_INT, G_TYPE_INT,
                                         G_TYPE_DOUBLE, G_TYPE_DOUBLE,
                                         G_TYPE_DOUBLE, G_TYPE_DOUBLE,
                                         G_TYPE_UINT64, G_TYPE_UINT64,
                                         G_TYPE_STRING);
  for (guint i = 0; i < t->threads->len; i++)
    {
      const MvThreadRow *r = &g_array_index (t->threads, MvThreadRow, i);
      gtk_list_store_insert_with_values
        (st, NULL, -1, T_RANK, r->rank, T_THREAD, r->thread, T_ON,
         r->on_ns / 1e9, T_OFF, (r->blocked_ns + r->preempted_ns) / 1e9,
         T_BLOCKED, r->blocked_ns / 1e9, T_PREEMPTED, r->preempted_ns / 1e9,
         T_SWITCHES, r->switches, T_MIGRATIONS, r->migrations, T_CPUS,
         r->cpus, -1);
    }
  GtkWidget *v = gtk_tree_view_new_with_model (GTK_TREE_MODEL (st));
  g_object_unref (st);
  add_column (v, "Rank", T_RANK, FALSE);
  add_column (v, "Thread", T_THREAD, FALSE);
  add_column (v, "On-CPU s", T_ON, TRUE);
  add_column (v, "Off-CPU s", T_OFF, TRUE);
  add_column (v, "Blocked s", T_BLOCKED, TRUE);
  add_column (v, "Preempted s", T_PREEMPTED, TRUE);
  add_column (v, "Switches", T_SWITCHES, FALSE);
  add_column (v, "Migrations", T_MIGRATIONS, FALSE);
  add_column (v, "CPUs", T_CPUS, FALSE);
  return scrolled (v);
}

enum
{
  C_HOST, C_CPU, C_CORE, C_SOCKET, C_NUMA, C_SMT, C_ON, C_THREADS, C_N
};

static GtkWidget *
cpus_view (const MvSchedTables *t)
{
  GtkListStore *st = gtk_list_store_new (C_N, G_TYPE_STRING, G_TYPE_INT,
                                         G_TYPE_INT, G_TYPE_INT, G_TYPE_INT,
                                         G_TYPE_INT, G_TYPE_DOUBLE,
                                         G_TYPE_STRING);
  for (guint i = 0; i < t->cpus->len; i++)
    {
      const MvCpuTableRow *r = &g_array_index (t->cpus, MvCpuTableRow, i);
      GString *who = g_string_new (r->shared_core ? "(shared core) " : "");
      for (guint k = 0; k < r->nusers; k++)
        g_string_append_printf (who, "%s%d:%d %.6f s", k ? ", " : "",
                                r->users[k].rank, r->users[k].thread,
                                r->users[k].on_ns / 1e9);
      gtk_list_store_insert_with_values
        (st, NULL, -1, C_HOST, r->host, C_CPU, r->cpu, C_CORE, r->core,
         C_SOCKET, r->socket, C_NUMA, r->numa, C_SMT, r->smt, C_ON,
         r->on_ns / 1e9, C_THREADS, who->str, -1);
      g_string_free (who, TRUE);
    }
  GtkWidget *v = gtk_tree_view_new_with_model (GTK_TREE_MODEL (st));
  g_object_unref (st);
  add_column (v, "Host", C_HOST, FALSE);
  add_column (v, "CPU", C_CPU, FALSE);
  add_column (v, "Core", C_CORE, FALSE);
  add_column (v, "Socket", C_SOCKET, FALSE);
  add_column (v, "NUMA", C_NUMA, FALSE);
  add_column (v, "SMT", C_SMT, FALSE);
  add_column (v, "On-CPU s", C_ON, TRUE);
  add_column (v, "Threads (rank:thread on-CPU)", C_THREADS, FALSE);
  return scrolled (v);
}

static void
on_destroy (GtkWidget *win, GtkWindow *parent)
{
  if (g_object_get_data (G_OBJECT (parent), WINDOW_KEY) == win)
    g_object_set_data (G_OBJECT (parent), WINDOW_KEY, NULL);
}

void
mv_tables_window_show (GtkWindow *parent, MvTimeline *tl)
{
  MvLog *log = mv_timeline_get_log (tl);
  if (log == NULL)
    return;
  GtkWidget *old = g_object_get_data (G_OBJECT (parent), WINDOW_KEY);
  if (old && g_object_get_data (G_OBJECT (old), "mv-log") == log)
    {
      gtk_window_present (GTK_WINDOW (old));
      return;
    }
  if (old)
    gtk_widget_destroy (old);
  GError *error = NULL;
  g_autoptr (MvSchedTables) t = mv_sched_tables_new (log, &error);
  if (t == NULL)
    {
      GtkWidget *d = gtk_message_dialog_new (parent, GTK_DIALOG_MODAL,
                                             GTK_MESSAGE_INFO,
                                             GTK_BUTTONS_CLOSE, "%s",
                                             error->message);
      g_error_free (error);
      gtk_dialog_run (GTK_DIALOG (d));
      gtk_widget_destroy (d);
      return;
    }
  GtkWidget *win = gtk_window_new (GTK_WINDOW_TOPLEVEL);
  gtk_window_set_title (GTK_WINDOW (win), "Threads and CPUs");
  gtk_window_set_transient_for (GTK_WINDOW (win), parent);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (win), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (win), 900, 480);
  g_object_set_data_full (G_OBJECT (win), "mv-log", mv_log_ref (log),
                          (GDestroyNotify) mv_log_unref);
  g_object_set_data (G_OBJECT (parent), WINDOW_KEY, win);
  g_signal_connect_object (win, "destroy", G_CALLBACK (on_destroy), parent,
                           0);
  GtkWidget *nb = gtk_notebook_new ();
  gtk_notebook_append_page (GTK_NOTEBOOK (nb), threads_view (t),
                            gtk_label_new ("Threads"));
  gtk_notebook_append_page (GTK_NOTEBOOK (nb), cpus_view (t),
                            gtk_label_new ("CPUs"));
  gtk_container_add (GTK_CONTAINER (win), nb);
  gtk_widget_show_all (win);
}

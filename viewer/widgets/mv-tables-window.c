/* SPDX-License-Identifier: BSD-3-Clause */
/* Threads, CPUs and memory tables in a notebook (the ones the log has
 * records for). */
#include "config.h"

#include "mv-tables-window.h"
#include "mv-child-window.h"
#include "../model/mv-memory-table.h"
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
  mv_tree_add_column (GTK_TREE_VIEW (v), "Rank", T_RANK, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Thread", T_THREAD, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "On-CPU s", T_ON, seconds_cell);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Off-CPU s", T_OFF, seconds_cell);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Blocked s", T_BLOCKED, seconds_cell);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Preempted s", T_PREEMPTED, seconds_cell);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Switches", T_SWITCHES, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Migrations", T_MIGRATIONS, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "CPUs", T_CPUS, NULL);
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
  mv_tree_add_column (GTK_TREE_VIEW (v), "Host", C_HOST, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "CPU", C_CPU, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Core", C_CORE, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Socket", C_SOCKET, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "NUMA", C_NUMA, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "SMT", C_SMT, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "On-CPU s", C_ON, seconds_cell);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Threads (rank:thread on-CPU)", C_THREADS, NULL);
  return scrolled (v);
}


enum
{
  M_RANK, M_SITE, M_FILE, M_LINE, M_KIND, M_CALLS, M_PEAK, M_LIVE_END, M_N
};

/* A source line, empty when unknown (0). */
static void
line_cell (GtkTreeViewColumn *col, GtkCellRenderer *cell, GtkTreeModel *m,
           GtkTreeIter *it, gpointer data)
{
  int v;
  gtk_tree_model_get (m, it, GPOINTER_TO_INT (data), &v, -1);
  char buf[32] = "";
  if (v > 0)
    g_snprintf (buf, sizeof buf, "%d", v);
  g_object_set (cell, "text", buf, NULL);
}

/* Per rank a row of its totals, and under it its call sites. */
static GtkWidget *
memory_view (const MvMemoryTable *t)
{
  GtkTreeStore *st = gtk_tree_store_new (M_N, G_TYPE_INT, G_TYPE_STRING,
                                         G_TYPE_STRING, G_TYPE_INT,
                                         G_TYPE_STRING, G_TYPE_INT64,
                                         G_TYPE_INT64, G_TYPE_INT64);
  const an_memory_t *m = t->mem;
  for (size_t r = 0; r < m->nranks; r++)
    {
      const an_mem_rank_t *rk = &m->ranks[r];
      GtkTreeIter top, it;
      int64_t calls = 0;
      for (size_t k = 0; k < rk->nsites; k++)
        calls += m->sites[rk->first + k].calls;
      gtk_tree_store_insert_with_values
        (st, &top, NULL, -1, M_RANK, rk->rank, M_SITE, "(rank total)",
         M_FILE, "", M_LINE, 0, M_KIND, "", M_CALLS, calls, M_PEAK,
         rk->peak, M_LIVE_END, rk->live_end, -1);
      for (size_t k = 0; k < rk->nsites; k++)
        {
          const an_mem_site_t *s = &m->sites[rk->first + k];
          gtk_tree_store_insert_with_values
            (st, &it, &top, -1, M_RANK, s->rank, M_SITE, s->function,
             M_FILE, s->file, M_LINE, s->line, M_KIND,
             s->live_end > 0 ? (s->kind ? "mmap, LEAK" : "heap, LEAK")
                             : (s->kind ? "mmap" : "heap"),
             M_CALLS, s->calls, M_PEAK, s->peak, M_LIVE_END, s->live_end,
             -1);
        }
    }
  GtkWidget *v = gtk_tree_view_new_with_model (GTK_TREE_MODEL (st));
  g_object_unref (st);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Rank", M_RANK, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Call site (function)", M_SITE, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "File", M_FILE, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Line", M_LINE, line_cell);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Kind", M_KIND, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Calls", M_CALLS, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Peak B", M_PEAK, NULL);
  mv_tree_add_column (GTK_TREE_VIEW (v), "Live at end B", M_LIVE_END, NULL);
  gtk_tree_view_expand_all (GTK_TREE_VIEW (v));
  return scrolled (v);
}


void
mv_tables_window_show (GtkWindow *parent, MvTimeline *tl)
{
  MvLog *log = mv_timeline_get_log (tl);
  if (log == NULL)
    return;
  if (mv_child_window_reuse (parent, WINDOW_KEY, log))
    return;
  GError *error = NULL;
  g_autoptr (MvSchedTables) t = NULL;
  g_autoptr (MvMemoryTable) mem = NULL;
  gboolean has_sched = mv_sched_tables_available (log);
  gboolean has_mem = mv_memory_table_available (log);
  if (!has_sched && !has_mem)
    g_set_error (&error, MV_LOG_ERROR, 1, "%s has neither context-switch "
                 "records (MPE_SCHED=1) nor memory records (MPE_MEMORY=1)",
                 log->path);
  else if (has_sched)
    t = mv_sched_tables_new (log, &error);
  if (error == NULL && has_mem)
    mem = mv_memory_table_new (log, &error);
  if (error != NULL)
    {
      mv_child_window_error (parent, error);
      return;
    }
  GtkWidget *win = gtk_window_new (GTK_WINDOW_TOPLEVEL);
  gtk_window_set_title (GTK_WINDOW (win), "Threads, CPUs and memory");
  gtk_window_set_transient_for (GTK_WINDOW (win), parent);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (win), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (win), 900, 480);
  g_object_set_data_full (G_OBJECT (win), "mv-log", mv_log_ref (log),
                          (GDestroyNotify) mv_log_unref);
  mv_child_window_register (parent, WINDOW_KEY, win, log);
  GtkWidget *nb = gtk_notebook_new ();
  if (t)
    {
      gtk_notebook_append_page (GTK_NOTEBOOK (nb), threads_view (t),
                                gtk_label_new ("Threads"));
      gtk_notebook_append_page (GTK_NOTEBOOK (nb), cpus_view (t),
                                gtk_label_new ("CPUs"));
    }
  if (mem)
    gtk_notebook_append_page (GTK_NOTEBOOK (nb), memory_view (mem),
                              gtk_label_new ("Memory"));
  gtk_container_add (GTK_CONTAINER (win), nb);
  gtk_widget_show_all (win);
}

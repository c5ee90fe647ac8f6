/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <gio/gio.h>

#include "mv-child-window.h"

#define LOG_KEY "mv-child-window-log"

GtkWidget *
mv_child_window_reuse (GtkWindow *parent, const char *key, MvLog *log)
{
  GtkWidget *old = g_object_get_data (G_OBJECT (parent), key);
  if (old == NULL)
    return NULL;
  if (g_object_get_data (G_OBJECT (old), LOG_KEY) == log)
    {
      gtk_window_present (GTK_WINDOW (old));
      return old;
    }
  gtk_widget_destroy (old);   /* its destroy handler forgets it */
  return NULL;
}

static void
on_child_destroy (GtkWidget *win, gpointer parent)
{
  const char *key = g_object_get_data (G_OBJECT (win), "mv-child-window-key");
  if (g_object_get_data (parent, key) == win)
    g_object_set_data (parent, key, NULL);
}

void
mv_child_window_register (GtkWindow *parent, const char *key, GtkWidget *win,
                          MvLog *log)
{
  /* Only compared, never dereferenced: the window holds its own ref. */
  g_object_set_data (G_OBJECT (win), LOG_KEY, log);
  g_object_set_data (G_OBJECT (win), "mv-child-window-key", (gpointer) key);
  g_object_set_data (G_OBJECT (parent), key, win);
  g_signal_connect_object (win, "destroy", G_CALLBACK (on_child_destroy),
                           parent, 0);
}

void
mv_child_window_error (GtkWindow *parent, GError *error)
{
  GtkWidget *d = gtk_message_dialog_new (parent, GTK_DIALOG_MODAL,
                                         GTK_MESSAGE_INFO, GTK_BUTTONS_CLOSE,
                                         "%s", error->message);
  g_error_free (error);
  gtk_dialog_run (GTK_DIALOG (d));
  gtk_widget_destroy (d);
}

GtkTreeViewColumn *
mv_tree_add_column (GtkTreeView *tree, const char *title, int col,
                    GtkTreeCellDataFunc fmt)
{
  GtkCellRenderer *r = gtk_cell_renderer_text_new ();
  GtkTreeViewColumn *c;
  if (fmt)
    {
      g_object_set (r, "xalign", 1.0, NULL);
      c = gtk_tree_view_column_new_with_attributes (title, r, NULL);
      gtk_tree_view_column_set_cell_data_func (c, r, fmt,
                                               GINT_TO_POINTER (col), NULL);
    }
  else
    c = gtk_tree_view_column_new_with_attributes (title, r, "text", col,
                                                  NULL);
  gtk_tree_view_column_set_sort_column_id (c, col);
  gtk_tree_view_column_set_resizable (c, TRUE);
  gtk_tree_view_append_column (tree, c);
  return c;
}

GtkWidget *
mv_combo_new (const char *const *items)
{
  GtkWidget *c = gtk_combo_box_text_new ();
  for (; *items; items++)
    gtk_combo_box_text_append_text (GTK_COMBO_BOX_TEXT (c), *items);
  gtk_combo_box_set_active (GTK_COMBO_BOX (c), 0);
  return c;
}

GtkWidget *
mv_range_combo_new (void)
{
  static const char *const ranges[] = { "Whole run",
                                        "Selection (or visible window)",
                                        NULL };
  return mv_combo_new (ranges);
}

GtkWidget *
mv_range_bar_new (GtkWidget **range)
{
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_box_pack_start (GTK_BOX (bar), gtk_label_new ("Range"), FALSE, FALSE,
                      0);
  *range = mv_range_combo_new ();
  gtk_box_pack_start (GTK_BOX (bar), *range, FALSE, FALSE, 0);
  return bar;
}

gpointer
mv_job_result (GAsyncResult *res, GtkWidget *status)
{
  GError *error = NULL;
  gpointer p = g_task_propagate_pointer (G_TASK (res), &error);
  if (p || error == NULL)
    return p;
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    gtk_label_set_text (GTK_LABEL (status), error->message);
  g_error_free (error);
  return NULL;
}

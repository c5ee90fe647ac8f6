/* SPDX-License-Identifier: BSD-3-Clause */
/* The "Threads" menu: a popover of toggles and window openers. */
#include "config.h"

#include "mv-cpu-window.h"
#include "mv-tables-window.h"
#include "mv-sched-menu.h"
#include "mv-test-log.h"
#include "../model/mv-restracks.h"

typedef struct
{
  GtkWindow  *parent;
  MvTimeline *tl;
  GtkWidget  *shade, *track[3], *cpus;
} Menu;

static void
on_shading (GtkToggleButton *b, Menu *m)
{
  mv_timeline_set_sched (m->tl, gtk_toggle_button_get_active (b));
}

static void
on_waits (GtkToggleButton *b, Menu *m)
{
  mv_timeline_set_waits (m->tl, gtk_toggle_button_get_active (b));
}

static void
on_track (GtkToggleButton *b, Menu *m)
{
  if (gtk_toggle_button_get_active (b))
    mv_timeline_set_restrack (m->tl, GPOINTER_TO_INT
                                       (g_object_get_data (G_OBJECT (b),
                                                           "mv-restrack")));
}

static void
on_cpus (GtkButton *b, Menu *m)
{
  GtkWidget *pop = gtk_widget_get_ancestor (GTK_WIDGET (b),
                                            GTK_TYPE_POPOVER);
  if (pop)
    gtk_popover_popdown (GTK_POPOVER (pop));
  mv_cpu_window_show (m->parent, m->tl);
}

static void
on_tables (GtkButton *b, Menu *m)
{
  GtkWidget *pop = gtk_widget_get_ancestor (GTK_WIDGET (b),
                                            GTK_TYPE_POPOVER);
  if (pop)
    gtk_popover_popdown (GTK_POPOVER (pop));
  mv_tables_window_show (m->parent, m->tl);
}

static GtkWidget *
item (const char *label, const char *tip, GCallback cb, Menu *m)
{
  GtkWidget *b = gtk_model_button_new ();
  g_object_set (b, "text", label, NULL);
  gtk_widget_set_tooltip_text (b, tip);
  g_signal_connect (b, "clicked", cb, m);
  return b;
}

GtkWidget *
mv_sched_menu_new (GtkWindow *parent, MvTimeline *tl)
{
  Menu *m = g_new0 (Menu, 1);
  m->parent = parent;
  m->tl = tl;
  GtkWidget *btn = gtk_menu_button_new ();
  gtk_button_set_label (GTK_BUTTON (btn), "Threads");
  gtk_widget_set_tooltip_text (btn, "Threads on and off CPUs, the CPUs, "
                               "memory (logs written with MPE_SCHED=1, "
                               "MPE_MEMORY=1)");
  g_object_set_data_full (G_OBJECT (btn), "mv-sched-menu", m, g_free);
  GtkWidget *pop = gtk_popover_new (btn);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_container_set_border_width (GTK_CONTAINER (box), 8);
  GtkWidget *shade = gtk_check_button_new_with_mnemonic
                       ("_Off-CPU shading");
  gtk_widget_set_tooltip_text (shade, "Shade each thread's row where it "
                               "was off its CPU: blue-grey blocked, "
                               "orange preempted (strip at the row's top)");
  g_signal_connect (shade, "toggled", G_CALLBACK (on_shading), m);
  m->shade = shade;
  gtk_box_pack_start (GTK_BOX (box), shade, FALSE, FALSE, 0);
  GtkWidget *waits = gtk_check_button_new_with_mnemonic
                       ("MPI _waits hatched");
  gtk_widget_set_tooltip_text (waits, "Hatch the part of each MPI call "
                               "spent waiting for another rank (clogtool "
                               "waits), where states are drawn one by one; "
                               "the first time, one pass over the run");
  g_signal_connect (waits, "toggled", G_CALLBACK (on_waits), m);
  gtk_box_pack_start (GTK_BOX (box), waits, FALSE, FALSE, 0);
  /* Memory or NIC tracks, drawn as counter tracks (one at a time, and
   * not with a metric from the counter picker). */
  GtkWidget *first = NULL;
  for (int k = 0; k < 3; k++)
    {
      GtkWidget *r = gtk_radio_button_new_with_label_from_widget
                       (first ? GTK_RADIO_BUTTON (first) : NULL,
                        k ? mv_restrack_name (k) : "No resource track");
      first = first ? first : r;
      m->track[k] = r;
      g_object_set_data (G_OBJECT (r), "mv-restrack", GINT_TO_POINTER (k));
      g_signal_connect (r, "toggled", G_CALLBACK (on_track), m);
      gtk_box_pack_start (GTK_BOX (box), r, FALSE, FALSE, 0);
    }
  m->cpus = item ("CPU view", "One row per CPU, coloured by the "
                  "rank/thread running on it, for the visible window",
                  G_CALLBACK (on_cpus), m);
  gtk_box_pack_start (GTK_BOX (box), m->cpus, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (box),
                      item ("Threads, CPUs and memory tables", "Per thread "
                            "on- and off-CPU time, switches, migrations; "
                            "per CPU its threads; per rank and call site "
                            "its memory (clogtool threads, cpus, memory)",
                            G_CALLBACK (on_tables), m), FALSE, FALSE, 0);
  gtk_widget_show_all (box);
  gtk_container_add (GTK_CONTAINER (pop), box);
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (btn), pop);
  return btn;
}

/* A layer the log has no records for: greyed out, and its tooltip says
 * why (and how to record it); switched off if it was on. */
static void
offer (GtkWidget *w, gboolean have, const char *tip, const char *why)
{
  if (!have && GTK_IS_TOGGLE_BUTTON (w)
      && gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (w)))
    gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (w), FALSE);
  gtk_widget_set_sensitive (w, have);
  gtk_widget_set_tooltip_text (w, have ? tip : why);
  char *name = NULL;
  if (GTK_IS_MODEL_BUTTON (w))
    g_object_get (w, "text", &name, NULL);
  else
    name = g_strdup (gtk_button_get_label (GTK_BUTTON (w)));
  mv_test_log ("layer %s: %s", name ? name : "?", have ? "offered" : why);
  g_free (name);
}

void
mv_sched_menu_set_log (GtkWidget *menu, MvLog *log)
{
  Menu *m = g_object_get_data (G_OBJECT (menu), "mv-sched-menu");
  logfmt_track_info_t ti;
  gboolean sched = log && logfmt_reader_track_info (log->reader,
                                                    LOGFMT_NO_STREAM,
                                                    LOGFMT_TRACK_SWITCH,
                                                    &ti) == 0
                   && ti.records > 0;
  /* A track the new log lacks: back to none (radios are not unset). */
  for (int k = 1; k < 3; k++)
    if (!(log && mv_restrack_log_has (log, k))
        && gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (m->track[k])))
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (m->track[0]), TRUE);
  offer (m->shade, sched, "Shade each thread's row where it was off its "
         "CPU: blue-grey blocked, orange preempted (strip at the row's top)",
         "This log has no context-switch records: record it with "
         "MPE_SCHED=1");
  offer (m->cpus, sched, "One row per CPU, coloured by the rank/thread "
         "running on it, for the visible window",
         "This log has no context-switch records: record it with "
         "MPE_SCHED=1");
  offer (m->track[1], log && mv_restrack_log_has (log, 1),
         "Each process's live heap bytes as a counter track",
         "This log has no memory records: record it with MPE_MEMORY=1");
  offer (m->track[2], log && mv_restrack_log_has (log, 2),
         "Each host's NIC bytes per second as a counter track",
         "This log has no network records: record it with MPE_NETWORK=1");
}

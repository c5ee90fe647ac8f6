/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MvTimeline: the interactive timeline (a GtkGrid: a drawing area plus
 * scrollbars).  Emits "changed" when the window, selection or detail
 * text changes.
 * Scenes are computed on a worker thread (GTask + GCancellable); while one
 * computes, the last published plot surface is repainted, transformed to
 * the current window.
 */
#ifndef MV_TIMELINE_H
#define MV_TIMELINE_H

#include <gtk/gtk.h>

#include "../model/mv-scene.h"
#include "../model/mv-view.h"

/* The focused instance's frame: a dark outer line and a bright inner
 * one, so that it shows on any state colour. */
#define MV_FOCUS_OUTER_RGB 0x101010u
#define MV_FOCUS_INNER_RGB 0xffd500u

G_BEGIN_DECLS

#define MV_TYPE_TIMELINE (mv_timeline_get_type ())
G_DECLARE_FINAL_TYPE (MvTimeline, mv_timeline, MV, TIMELINE, GtkGrid)

MvTimeline *mv_timeline_new (void);
void        mv_timeline_set_log (MvTimeline *tl, MvLog *log);
MvLog      *mv_timeline_get_log (MvTimeline *tl);
/* Visibility flags (copied). */
void        mv_timeline_set_hidden (MvTimeline *tl, const guint8 *states,
                                    const guint8 *evdefs);
void        mv_timeline_set_highlight (MvTimeline *tl, gint32 state);
/* Shades where each thread was off its CPU (MPE_SCHED=1 logs). */
void        mv_timeline_set_sched (MvTimeline *tl, gboolean show);
/* Hatches the waiting part of MPI calls where states are decoded (the
 * first time: one pass over the whole run, off the GUI thread). */
void        mv_timeline_set_waits (MvTimeline *tl, gboolean show);
/* Draws memory or NIC tracks (MvResTrack, mv-restracks.h; 0 none) as
 * counter tracks. */
void        mv_timeline_set_restrack (MvTimeline *tl, int which);
/* Shows metric `id` as a counter track under each process (a step
 * graph; hover shows the value), or none when show is FALSE. */
void        mv_timeline_set_metric (MvTimeline *tl, gboolean show,
                                    guint32 id);
/* Draws call-path samples in each thread's row (mv-samples.h): ticks
 * of the innermost function (depth 0) or a lane of the depth-th frame
 * from the outermost; show FALSE hides them. */
void        mv_timeline_set_samples (MvTimeline *tl, gboolean show,
                                     int depth);
gboolean    mv_timeline_samples_shown (MvTimeline *tl, int *depth);
/* Marks places in time on rows (a flame graph node's samples); copied,
 * n = 0 clears them. */
void        mv_timeline_set_marks (MvTimeline *tl, const MvTimeMark *marks,
                                   guint n);
/* Shows [t0, t1] (history kept) and scrolls the row into view. */
void        mv_timeline_show (MvTimeline *tl, guint64 t0, guint64 t1,
                              int row);
/* Shows an instance (a search's, the statistics' "show it"): the window
 * around it, outlined, its details (these until a scene decodes it). */
void        mv_timeline_show_instance (MvTimeline *tl, guint row,
                                       gint32 state, guint64 t_begin,
                                       guint64 t_end, const char *details);
/* Handles a key meant for the plot (W/A/S/D, +, -, Home, arrows...);
 * TRUE if it did. */
gboolean    mv_timeline_key (MvTimeline *tl, GdkEventKey *ev);
void        mv_timeline_fit (MvTimeline *tl);
/* Rows grouped by node, rank range or not (mv-groups.h); fold -1 the
 * default (collapsed past MV_GROUPS_HUGE processes), 0 every group
 * expanded, 1 every group collapsed.  Kept for the next log. */
void        mv_timeline_set_grouping (MvTimeline *tl, MvGroupMode mode,
                                      int fold);
MvGroupMode mv_timeline_grouping (MvTimeline *tl);
void        mv_timeline_back (MvTimeline *tl);
void        mv_timeline_forward (MvTimeline *tl);
void        mv_timeline_zoom (MvTimeline *tl, double factor);
const MvView *mv_timeline_view (MvTimeline *tl);
gboolean    mv_timeline_selection (MvTimeline *tl, guint64 *t0, guint64 *t1);
/* Details of the last clicked item, or NULL. */
const char *mv_timeline_details (MvTimeline *tl);
/* "decoded" / "summaries" and the number of events decoded. */
const MvScene *mv_timeline_scene (MvTimeline *tl);

G_END_DECLS

#endif

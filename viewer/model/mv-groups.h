/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MvGroups: the rows of the timeline grouped along the resource
 * hierarchy (thread -> process -> node) and, for large jobs, by rank
 * range (nested blocks of 16 of the level below, so 16, 256, 4096 ...
 * ranks), each group collapsible.  What the timeline shows is a list of
 * slots, one per drawn row: a group's header row (the aggregate of its
 * rows) or one thread's row.  Slots are in row order (MvLog sorts rows
 * node by node), so a group is a contiguous range of log rows and a
 * header lane is the existing aggregated lane over that range.
 *
 * A header draws, per pixel column, the state most of the group's
 * processes are in, faded by how much of the group states cover (the
 * aggregated lanes of mv-lane-summary.c): what Vampir's and Jumpshot's
 * aggregated process rows show, and what reads at a glance on a few
 * pixels of height (a stacked share needs tall rows to be legible).
 *
 * The slot list is an immutable GArray snapshot: a scene keeps a
 * reference to the one it was computed with while the GUI toggles
 * groups (each change makes a new array).  A NULL slot list means one
 * slot per row (no grouping: the timeline as it always was).
 */
#ifndef MV_GROUPS_H
#define MV_GROUPS_H

#include "mv-log.h"

G_BEGIN_DECLS

typedef enum
{
  MV_GROUP_AUTO,    /* range if huge, else none */
  MV_GROUP_NONE,
  MV_GROUP_NODE,
  MV_GROUP_RANGE,
} MvGroupMode;

/* Past this many processes, AUTO groups by rank range (over the nodes
 * when there are several) and every group starts collapsed. */
#define MV_GROUPS_HUGE   1024u
/* Range levels are added until at most this many groups are on top. */
#define MV_GROUPS_TOP    512u
#define MV_GROUPS_FANOUT 16u

typedef enum { MV_SLOT_ROW, MV_SLOT_NODE, MV_SLOT_RANGE } MvSlotKind;

typedef struct
{
  guint   row_first;    /* log rows [row_first, row_first + row_count) */
  guint   row_count;
  gint32  group;        /* its group's index, -1 for a thread's row */
  guint8  kind;         /* MvSlotKind */
  guint8  depth;        /* nesting (label indentation) */
  guint8  collapsed;
  guint8  pad;
  guint32 nprocs;       /* processes in the group (1 for a row) */
} MvSlot;

typedef struct
{
  guint    row_first, row_count;
  guint    end;         /* index after its subtree (groups are in
                           preorder) */
  guint32  nprocs;
  guint8   kind;        /* MV_SLOT_NODE or MV_SLOT_RANGE */
  guint8   depth;
  gboolean collapsed;
} MvGroup;

typedef struct
{
  MvLog      *log;
  MvGroupMode mode;      /* as resolved (never AUTO) */
  GArray     *groups;    /* MvGroup, preorder */
  GArray     *slots;     /* MvSlot, or NULL when mode is NONE */
} MvGroups;

/* Groups of log's rows (AUTO resolved as documented above). */
MvGroups   *mv_groups_new (MvLog *log, MvGroupMode mode);
void        mv_groups_free (MvGroups *g);
/* The current slot list (transfer none; g_array_ref to keep it), NULL
 * when ungrouped. */
GArray     *mv_groups_slots (const MvGroups *g);
/* Collapses or expands one group, or all; the slot list is rebuilt. */
void        mv_groups_toggle (MvGroups *g, guint group);
void        mv_groups_set_all (MvGroups *g, gboolean collapsed);
gboolean    mv_groups_parse_mode (const char *s, MvGroupMode *mode);
const char *mv_groups_mode_name (MvGroupMode mode);

/* Slot helpers: slots may be NULL (one slot per row). */
guint    mv_slots_count (const MvLog *log, const GArray *slots);
MvSlot   mv_slots_get (const GArray *slots, guint i);
/* The slot drawing row `row`: its own, or its collapsed group's. */
guint    mv_slots_find_row (const GArray *slots, guint row);
/* mv_slots_find_row of every row [0, nrows), as a table (g_free it): for
 * callers that place many rows' items at once.  slots must not be NULL. */
guint32 *mv_slots_row_table (const GArray *slots, guint nrows);
/* "node3 (4 processes)", "ranks 0-255", "rank 3" (caller frees). */
char    *mv_slot_label (const MvLog *log, const MvSlot *s);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MvGroups, mv_groups_free)

G_END_DECLS

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Row groups (mv-groups.h): built bottom-up from the processes (runs of
 * rows of one rank), a level of nodes or of rank blocks, then range
 * levels of MV_GROUPS_FANOUT groups each while the top has more than
 * MV_GROUPS_TOP; kept in preorder, from which the slot list is made.
 */
#include "config.h"

#include <string.h>

#include "mv-groups.h"

typedef struct
{
  guint   row_first, row_count;
  guint32 nprocs;
  guint8  kind;
  guint   child_first, child_count;   /* in the level below */
} Node;

/* Consecutive units of `in` merged into blocks: by host when by_host,
 * else `fanout` at a time. */
static GArray *
level_up (const MvLog *log, const GArray *in, gboolean by_host, guint fanout,
          guint8 kind)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Node));
  for (guint i = 0; i < in->len;)
    {
      const Node *a = &g_array_index (in, Node, i);
      guint j = i + 1;
      if (by_host)
        while (j < in->len
               && g_strcmp0 (log->rows[g_array_index (in, Node, j).row_first]
                               .host, log->rows[a->row_first].host) == 0)
          j++;
      else
        j = MIN (i + fanout, in->len);
      const Node *z = &g_array_index (in, Node, j - 1);
      Node n = { a->row_first, z->row_first + z->row_count - a->row_first,
                 0, kind, i, j - i };
      for (guint k = i; k < j; k++)
        n.nprocs += g_array_index (in, Node, k).nprocs;
      g_array_append_val (out, n);
      i = j;
    }
  return out;
}

static void
emit (MvGroups *g, GPtrArray *levels, guint level, guint idx, guint depth,
      gboolean collapsed)
{
  const Node *n = &g_array_index ((GArray *) levels->pdata[level], Node, idx);
  guint at = g->groups->len;
  MvGroup grp = { n->row_first, n->row_count, 0, n->nprocs, n->kind,
                  (guint8) MIN (depth, 255), collapsed };
  g_array_append_val (g->groups, grp);
  if (level > 1)
    for (guint k = 0; k < n->child_count; k++)
      emit (g, levels, level - 1, n->child_first + k, depth + 1, collapsed);
  g_array_index (g->groups, MvGroup, at).end = g->groups->len;
}

static void
rebuild_slots (MvGroups *g)
{
  if (g->slots)
    g_array_unref (g->slots);
  g->slots = NULL;
  if (g->mode == MV_GROUP_NONE)
    return;
  g->slots = g_array_new (FALSE, FALSE, sizeof (MvSlot));
  for (guint i = 0; i < g->groups->len;)
    {
      const MvGroup *grp = &g_array_index (g->groups, MvGroup, i);
      MvSlot s = { grp->row_first, grp->row_count, (gint32) i, grp->kind,
                   grp->depth, (guint8) grp->collapsed, 0, grp->nprocs };
      g_array_append_val (g->slots, s);
      if (grp->collapsed)
        i = grp->end;
      else if (grp->end == i + 1)
        {
          /* A bottom group: its threads' rows. */
          for (guint r = 0; r < grp->row_count; r++)
            {
              MvSlot row = { grp->row_first + r, 1, -1, MV_SLOT_ROW,
                             (guint8) MIN (grp->depth + 1, 255), 0, 0, 1 };
              g_array_append_val (g->slots, row);
            }
          i++;
        }
      else
        i++;
    }
}

MvGroups *
mv_groups_new (MvLog *log, MvGroupMode mode)
{
  MvGroups *g = g_new0 (MvGroups, 1);
  g->log = mv_log_ref (log);
  g->groups = g_array_new (FALSE, FALSE, sizeof (MvGroup));
  /* The processes: runs of rows of one rank. */
  GArray *procs = g_array_new (FALSE, FALSE, sizeof (Node));
  for (guint r = 0; r < log->nrows; r++)
    {
      if (r == 0 || log->rows[r].first_of_rank)
        {
          Node n = { r, 1, 1, MV_SLOT_ROW, 0, 0 };
          g_array_append_val (procs, n);
        }
      else
        g_array_index (procs, Node, procs->len - 1).row_count++;
    }
  guint nprocs = procs->len;
  /* Node groups are asked for (--group node, G, the Rows picker), not
   * the default: they now cost about what rows do per frame
   * (docs/benchmarks/HISTORY.md, "Node-grouped rows"), but their header rows
   * take a fifth of the height at 4 processes per node, and below 1024
   * processes the default keeps a row per process, as logs always
   * looked. */
  if (mode == MV_GROUP_AUTO)
    mode = nprocs > MV_GROUPS_HUGE ? MV_GROUP_RANGE : MV_GROUP_NONE;
  g->mode = mode;
  if (mode == MV_GROUP_NONE || nprocs == 0)
    {
      g->mode = MV_GROUP_NONE;
      g_array_unref (procs);
      return g;
    }
  GPtrArray *levels = g_ptr_array_new_with_free_func
                        ((GDestroyNotify) g_array_unref);
  g_ptr_array_add (levels, procs);
  g_ptr_array_add (levels, level_up (log, procs, mode == MV_GROUP_NODE,
                                     MV_GROUPS_FANOUT,
                                     mode == MV_GROUP_NODE ? MV_SLOT_NODE
                                     : MV_SLOT_RANGE));
  for (GArray *top; (top = levels->pdata[levels->len - 1])->len
                    > MV_GROUPS_TOP;)
    g_ptr_array_add (levels, level_up (log, top, FALSE, MV_GROUPS_FANOUT,
                                       MV_SLOT_RANGE));
  /* Huge jobs start collapsed: the first frame draws a few hundred
   * group rows from the summaries, not 100,000 rows. */
  gboolean collapsed = nprocs > MV_GROUPS_HUGE;
  guint top = levels->len - 1;
  for (guint i = 0; i < ((GArray *) levels->pdata[top])->len; i++)
    emit (g, levels, top, i, 0, collapsed);
  g_ptr_array_unref (levels);
  rebuild_slots (g);
  return g;
}

void
mv_groups_free (MvGroups *g)
{
  if (g == NULL)
    return;
  if (g->slots)
    g_array_unref (g->slots);
  g_array_unref (g->groups);
  mv_log_unref (g->log);
  g_free (g);
}

GArray *
mv_groups_slots (const MvGroups *g)
{
  return g ? g->slots : NULL;
}

void
mv_groups_toggle (MvGroups *g, guint group)
{
  if (group >= g->groups->len)
    return;
  MvGroup *grp = &g_array_index (g->groups, MvGroup, group);
  grp->collapsed = !grp->collapsed;
  rebuild_slots (g);
}

void
mv_groups_set_all (MvGroups *g, gboolean collapsed)
{
  for (guint i = 0; i < g->groups->len; i++)
    g_array_index (g->groups, MvGroup, i).collapsed = collapsed;
  rebuild_slots (g);
}

static const char *const mode_names[] = { "auto", "none", "node", "range" };

gboolean
mv_groups_parse_mode (const char *s, MvGroupMode *mode)
{
  for (guint i = 0; i < G_N_ELEMENTS (mode_names); i++)
    if (g_strcmp0 (s, mode_names[i]) == 0)
      {
        *mode = (MvGroupMode) i;
        return TRUE;
      }
  return FALSE;
}

const char *
mv_groups_mode_name (MvGroupMode mode)
{
  return (guint) mode < G_N_ELEMENTS (mode_names) ? mode_names[mode] : "?";
}

guint
mv_slots_count (const MvLog *log, const GArray *slots)
{
  return slots ? slots->len : log->nrows;
}

MvSlot
mv_slots_get (const GArray *slots, guint i)
{
  if (slots)
    return g_array_index (slots, MvSlot, i);
  MvSlot s = { i, 1, -1, MV_SLOT_ROW, 0, 0, 0, 1 };
  return s;
}

guint
mv_slots_find_row (const GArray *slots, guint row)
{
  if (slots == NULL)
    return row;
  /* The last slot starting at or before row: slots are in preorder, so
   * that is the deepest shown one holding it (a group's header and its
   * first row start alike; the row comes later). */
  guint lo = 0, hi = slots->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (slots, MvSlot, mid).row_first <= row)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo > 0 ? lo - 1 : 0;
}

guint32 *
mv_slots_row_table (const GArray *slots, guint nrows)
{
  guint32 *at = g_new (guint32, MAX (nrows, 1));
  /* The same rule as the search above, walked once: the last slot
   * starting at or before each row. */
  guint i = 0;
  for (guint row = 0; row < nrows; row++)
    {
      while (i + 1 < slots->len
             && g_array_index (slots, MvSlot, i + 1).row_first <= row)
        i++;
      at[row] = i;
    }
  return at;
}

char *
mv_slot_label (const MvLog *log, const MvSlot *s)
{
  if (s->kind == MV_SLOT_ROW)
    return mv_log_row_label (log, s->row_first);
  const MvRow *a = &log->rows[s->row_first];
  const MvRow *z = &log->rows[s->row_first + s->row_count - 1];
  if (s->kind == MV_SLOT_NODE)
    return g_strdup_printf ("%s (%u)", a->host ? a->host : "?", s->nprocs);
  return g_strdup_printf ("ranks %d-%d", a->rank, z->rank);
}

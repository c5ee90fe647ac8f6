/* SPDX-License-Identifier: BSD-3-Clause */
/* mpetop's text mode. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "top-text.h"

#define BAR_WIDTH 30
#define MAX_ROWS  200    /* more objects: the largest are shown */

static void
object_label (char *out, size_t cap, const top_model_t *m, int level,
              int32_t obj)
{
  switch (level)
    {
    case TOP_LEVEL_THREAD:
      snprintf (out, cap, "rank %d.%d", (int) ((uint32_t) obj >> 16),
                (int) (obj & 0xffff));
      break;
    case TOP_LEVEL_PROCESS:
      snprintf (out, cap, "rank %d %s", obj,
                obj >= 0 && obj < m->ranks ? m->host[obj] : "");
      break;
    case TOP_LEVEL_NODE:
      {
        const char *h = "";
        for (int r = 0; r < m->ranks; r++)
          if (m->node_of[r] == obj)
            {
              h = m->host[r];
              break;
            }
        snprintf (out, cap, "node %d %s", obj, h);
        break;
      }
    case TOP_LEVEL_JOB:
      snprintf (out, cap, "job");
      break;
    default:
      snprintf (out, cap, "-> rank %d", obj);
    }
}

void
top_text_draw (FILE *f, const top_model_t *m, const top_text_opts_t *o)
{
  const top_sample_t *s = &m->cur;
  if (!o->batch)
    fputs ("\033[H\033[2J", f);
  if (!m->hello)
    {
      fprintf (f, "mpetop: waiting for the job\n");
      fflush (f);
      return;
    }
  const char *mn = top_metric_name (m, s->code);
  fprintf (f, "mpetop  %d ranks on %d nodes  %g Hz  samples %" PRIu64
           "  missing %" PRIu64 "  incomplete %" PRIu64 "%s\n",
           m->ranks, m->nodes, m->hz, m->samples, m->missing,
           m->incomplete, m->ended ? "  (job ended)" : "");
  fprintf (f, "round trip  last %.3f ms  min %.3f  median %.3f  max %.3f ms\n",
           (double) s->rtt_ns * 1e-6, m->rtt_min * 1e3,
           top_model_rtt_median (m) * 1e3, m->rtt_max * 1e3);
  if (m->ended)
    fprintf (f, "requests  sent %" PRIu64 "  returned %" PRIu64 "  late %"
             PRIu64 "  skipped %" PRIu64 "\n", m->sent, m->returned, m->late,
             m->skipped);
  fprintf (f, "metric %s (code %u)  level %s", mn ? mn : "?", s->code,
           top_level_name (s->level));
  if (s->object >= 0)
    fprintf (f, " object %d", s->object);
  fprintf (f, "  [l]evel [m]etric [+/-] rate [q]uit\n\n");
  if (!m->samples)
    {
      fflush (f);
      return;
    }
  int64_t top = 1;
  int64_t total = 0;
  for (uint32_t i = 0; i < s->nslots; i++)
    {
      if (s->slots[i].sum > top)
        top = s->slots[i].sum;
      total += s->slots[i].sum;
    }
  int aggregated = s->level == TOP_LEVEL_NODE || s->level == TOP_LEVEL_JOB;
  fprintf (f, "%-24s %14s %12s  %-*s%s\n", "object", "value", "per s",
           BAR_WIDTH, "", aggregated ? "  min (holder)  max (holder)" : "");
  uint32_t rows = s->nslots < MAX_ROWS ? s->nslots : MAX_ROWS;
  for (uint32_t i = 0; i < rows; i++)
    {
      const top_slot_t *x = &s->slots[i];
      char label[96], bar[BAR_WIDTH + 1];
      object_label (label, sizeof label, m, s->level, x->object);
      int w = x->sum > 0 ? (int) ((double) x->sum / (double) top * BAR_WIDTH
                                  + 0.5) : 0;
      memset (bar, '#', (size_t) w);
      memset (bar + w, ' ', (size_t) (BAR_WIDTH - w));
      bar[BAR_WIDTH] = '\0';
      fprintf (f, "%-24.24s %14" PRId64 " %12.1f  %s", label, x->sum,
               top_model_rate (m, i), bar);
      if (aggregated && x->parts)
        fprintf (f, "  %" PRId64 " (r%d)  %" PRId64 " (r%d)", x->min,
                 x->min_obj, x->max, x->max_obj);
      fputc ('\n', f);
    }
  if (rows < s->nslots)
    fprintf (f, "... %u more\n", s->nslots - rows);
  if (s->nslots > 1)
    fprintf (f, "%-24s %14" PRId64 "\n", "total", total);
  fputc ('\n', f);
  fflush (f);
}

int
top_text_key (top_text_opts_t *o, const top_model_t *m, char key)
{
  switch (key)
    {
    case 'q':
      return 1;
    case 'l':
      /* thread -> process -> node -> job -> thread (channel needs a
         sender: --level channel --object R) */
      o->level = ((o->level < 0 ? m->cur.level : o->level) + 1) % 4;
      o->object = -1;
      return 1;
    case 'm':
      if (m->nmetrics)
        {
          int k = 0;
          for (int i = 0; i < m->nmetrics; i++)
            if (m->metrics[i].code == o->code)
              k = (i + 1) % m->nmetrics;
          o->code = m->metrics[k].code;
          if (o->level < 0)
            o->level = m->cur.level;
          return 1;
        }
      return 0;
    case '+':
      o->hz = (o->hz > 0 ? o->hz : m->hz) * 2;
      return 1;
    case '-':
      o->hz = (o->hz > 0 ? o->hz : m->hz) / 2;
      return 1;
    }
  return 0;
}

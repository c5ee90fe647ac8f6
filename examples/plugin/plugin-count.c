/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An example collection plugin (mpe_plugin.h): counts the wrapped MPI
 * calls per function (pre/post), the time spent in them, and its
 * triggers (timer samples and instrumentation points), and prints one
 * line per rank at the finish:
 *   plugin-count: rank R: calls N posts N timer T points P [NAME=COUNT]...
 * Build:  cc -shared -fPIC -I$(prefix)/include plugin-count.c -o count.so
 * Use:    MPE_CONFIG=file with "plugin = /path/count.so", or
 *         MPE_PLUGINS=/path/count.so; "count_only = MPI_Send" (setting
 *         MPE_COUNT_ONLY) restricts the per-function list to one name.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe_plugin.h"

#define MAX_NAMES 64

typedef struct
{
  const mpe_plugin_host_t *host;
  const char *only;
  unsigned long calls, posts, points;
  atomic_ulong timer;          /* counted in a signal handler */
  uint64_t in_mpi_ns, t_pre;
  const char *names[MAX_NAMES];
  unsigned long counts[MAX_NAMES];
} count_t;

static int
count_init (const mpe_plugin_host_t *host, void **state)
{
  if (host->size < sizeof *host)
    return 1;
  count_t *c = calloc (1, sizeof *c);
  if (!c)
    return 1;
  c->host = host;
  c->only = host->setting ("count_only");
  *state = c;
  return 0;
}

static void
count_pre (void *state, const mpe_plugin_call_t *call)
{
  count_t *c = state;
  c->calls++;
  c->t_pre = call->t_ns;
  if (c->only && strcmp (c->only, call->name))
    return;
  for (int i = 0; i < MAX_NAMES; i++)
    if (!c->names[i] || !strcmp (c->names[i], call->name))
      {
        c->names[i] = call->name;
        c->counts[i]++;
        return;
      }
}

static void
count_post (void *state, const mpe_plugin_call_t *call)
{
  count_t *c = state;
  c->posts++;
  c->in_mpi_ns += call->t_ns - c->t_pre;
}

/* Signal context for timer triggers: an atomic increment only. */
static void
count_trigger (void *state, const mpe_plugin_trigger_t *t)
{
  count_t *c = state;
  if (t->reason == MPE_TRIGGER_TIMER)
    atomic_fetch_add_explicit (&c->timer, 1, memory_order_relaxed);
  else
    c->points++;
}

static void
count_finalize (void *state)
{
  count_t *c = state;
  char line[4096];
  int n = snprintf (line, sizeof line, "plugin-count: rank %d: calls %lu "
                    "posts %lu timer %lu points %lu",
                    c->host->rank, c->calls, c->posts,
                    (unsigned long) atomic_load (&c->timer), c->points);
  for (int i = 0; i < MAX_NAMES && c->names[i] && n < (int) sizeof line;
       i++)
    n += snprintf (line + n, sizeof line - (size_t) n, " %s=%lu",
                   c->names[i], c->counts[i]);
  fprintf (stderr, "%s\n", line);
  free (c);
}

static const mpe_plugin_t count_plugin = {
  MPE_PLUGIN_ABI, MPE_PLUGIN_INSTRUMENT | MPE_PLUGIN_SAMPLE, "count",
  count_init, count_pre, count_post, count_trigger, count_finalize
};

const mpe_plugin_t *mpe_plugin_entry (void);

const mpe_plugin_t *
mpe_plugin_entry (void)
{
  return &count_plugin;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* The registry of state and event definitions: kept for the merge and
 * written to the spill file as they are made (for `clogtool recover`). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe-internal.h"

/* Every state and event definition made in this process, in order. */
static struct
{
  mpe_def_t      *v;
  size_t          n, cap;
  pthread_mutex_t lock;
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER };

static char *
dupz (const char *s)
{
  return strdup (s ? s : "");
}

static void
def_to_spill (const mpe_def_t *d)
{
  char buf[1024];
  int n;
  if (d->is_state)
    n = snprintf (buf, sizeof buf, "%d %d\t%s\t%s\t%s", d->a, d->b, d->name,
                  d->color, d->format);
  else
    n = snprintf (buf, sizeof buf, "%d\t%s\t%s\t%s", d->a, d->name, d->color,
                  d->format);
  if (n > 0)
    mpe__spill_frame (d->is_state ? MPE_SPILL_STATE : MPE_SPILL_EVENT, 0, buf,
                      (size_t) n < sizeof buf ? (size_t) n : sizeof buf - 1);
}

void
mpe__add_def (int is_state, int a, int b, const char *name, const char *color,
              const char *format, int unique)
{
  pthread_mutex_lock (&reg.lock);
  if (unique)
    for (size_t i = 0; i < reg.n; i++)
      if (reg.v[i].is_state == is_state && reg.v[i].a == a && reg.v[i].b == b)
        {
          pthread_mutex_unlock (&reg.lock);
          return;
        }
  if (reg.n == reg.cap)
    {
      size_t nc = reg.cap ? 2 * reg.cap : 64;
      mpe_def_t *nd = realloc (reg.v, nc * sizeof *nd);
      if (!nd)
        {
          pthread_mutex_unlock (&reg.lock);
          return;
        }
      reg.v = nd;
      reg.cap = nc;
    }
  mpe_def_t *d = &reg.v[reg.n++];
  d->is_state = is_state;
  d->a = a;
  d->b = b;
  d->name = dupz (name);
  d->color = dupz (color);
  d->format = dupz (format);
  mpe_def_t copy = *d;
  pthread_mutex_unlock (&reg.lock);
  def_to_spill (&copy);
}

void
mpe__spill_known_def (int is_state, int a, int b, const char *name,
                      const char *color, const char *format)
{
  mpe_def_t d = { .is_state = is_state, .a = a, .b = b,
                  .name = (char *) (name ? name : ""),
                  .color = (char *) (color ? color : ""),
                  .format = (char *) (format ? format : "") };
  def_to_spill (&d);
}

/* A copy of every definition (free with mpe__defs_free); -1 when memory
 * runs out (*defs NULL then). */
int
mpe__defs_snapshot (mpe_def_t **out, size_t *n)
{
  pthread_mutex_lock (&reg.lock);
  mpe_def_t *d = calloc (reg.n ? reg.n : 1, sizeof *d);
  size_t k = 0;
  int rc = d ? 0 : -1;
  for (; d && k < reg.n && rc == 0; k++)
    {
      d[k] = reg.v[k];
      d[k].name = dupz (reg.v[k].name);
      d[k].color = dupz (reg.v[k].color);
      d[k].format = dupz (reg.v[k].format);
      if (!d[k].name || !d[k].color || !d[k].format)
        rc = -1;
    }
  pthread_mutex_unlock (&reg.lock);
  if (rc)
    {
      mpe__defs_free (d, k);
      d = NULL;
      k = 0;
    }
  *out = d;
  *n = k;
  return rc;
}

void
mpe__defs_free (mpe_def_t *d, size_t n)
{
  for (size_t i = 0; d && i < n; i++)
    {
      free (d[i].name);
      free (d[i].color);
      free (d[i].format);
    }
  free (d);
}

/* A new log: its spill file gets every definition made so far. */
void
mpe__defs_respill (void)
{
  mpe_def_t *d;
  size_t n;
  if (mpe__defs_snapshot (&d, &n) != 0)
    return;
  for (size_t i = 0; i < n; i++)
    def_to_spill (&d[i]);
  mpe__defs_free (d, n);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Rotation of counter event sets and the scaled estimates (mpe-rotate.h).
 * Async-signal-safe where it matters: mpe__rot_estimate only reads and
 * computes (timer samples call it). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpe-rotate.h"

int
mpe__rot_init (mpe_rot_t *r, int nev, int slots, uint64_t seed)
{
  memset (r, 0, sizeof *r);
  r->nev = nev;
  r->slots = slots <= 0 || slots > nev ? nev : slots;
  r->ngroups = r->slots ? (nev + r->slots - 1) / r->slots : 0;
  r->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
  r->acc = calloc (nev > 0 ? (size_t) nev : 1, sizeof *r->acc);
  return r->acc ? 0 : -1;
}

void
mpe__rot_free (mpe_rot_t *r)
{
  free (r->acc);
  r->acc = NULL;
}

int
mpe__rot_group (const mpe_rot_t *r, int g, int *first)
{
  *first = g * r->slots;
  int n = r->nev - *first;
  return n < r->slots ? n : r->slots;
}

/* xorshift64*: cheap, no state outside r, no locks. */
static uint64_t
next_random (mpe_rot_t *r)
{
  uint64_t x = r->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->rng = x;
  return x * 0x2545f4914f6cdd1dull;
}

static void
add (mpe_rot_acc_t *a, double d, double c)
{
  a->n += 1;
  a->sc += c;
  a->sd += d;
  a->scc += c * c;
  a->sdd += d * d;
  a->scd += c * d;
}

int
mpe__rot_commit (mpe_rot_t *r, double d, const double *c)
{
  int first, k = mpe__rot_group (r, r->cur, &first);
  for (int i = 0; i < k; i++)
    add (&r->acc[first + i], d, c[i]);
  r->periods += 1;
  r->total += d;
  if (r->ngroups > 1)
    r->cur = (int) ((next_random (r) >> 11) % (uint64_t) r->ngroups);
  return r->cur;
}

void
mpe__rot_gap (mpe_rot_t *r, double d)
{
  if (d > 0)
    r->total += d;
}

void
mpe__rot_estimate (const mpe_rot_t *r, int e, double d_part,
                   const double *c_part, double *est, double *err)
{
  mpe_rot_acc_t a = r->acc[e];
  double periods = r->periods, total = r->total;
  int first, k = mpe__rot_group (r, r->cur, &first);
  if (d_part > 0 || c_part)
    {
      periods += 1;
      total += d_part;
      if (c_part && e >= first && e < first + k)
        add (&a, d_part, c_part[e - first]);
    }
  if (r->ngroups <= 1)
    {
      *est = a.sc;
      *err = 0;
      return;
    }
  if (a.n == 0 || a.sd <= 0)
    {
      *est = 0;
      *err = -1;
      return;
    }
  double R = a.sc / a.sd;
  *est = R * total;
  if (a.n >= periods)
    {
      *err = 0;   /* counted all the time */
      return;
    }
  if (a.n < 2)
    {
      *err = fabs (*est);   /* one period: its spread is unknown */
      return;
    }
  double s2 = (a.scc - 2 * R * a.scd + R * R * a.sdd) / (a.n - 1);
  if (s2 < 0)
    s2 = 0;
  double dbar = a.sd / a.n;
  double var = (1 - a.n / periods) * s2 / a.n;
  *err = total * sqrt (var) / dbar;
}

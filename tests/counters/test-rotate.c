/* SPDX-License-Identifier: BSD-3-Clause */
/* The rotation of counter event sets (mpe/src/mpe-rotate.c) against a
 * simulated source with known rates: event k counts k * 1000 per ms of
 * active time, times a factor that changes from period to period (so
 * the estimate has something to be wrong about).  The scaled estimates
 * must hold the truth within their stated error, and the error must
 * shrink as periods accumulate.  Deterministic: seeded generators, no
 * clock. */
#include "config.h"

#include <math.h>
#include <stdint.h>

#include "mpe-rotate.h"
#include "tests/common/tap.h"

#define NEV 5
#define SLOTS 2

static uint64_t
rnd (uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static double
uniform (uint64_t *s)
{
  return (double) (rnd (s) >> 11) / 9007199254740992.0;
}

/* Runs nper periods; fills est, err and the truth per event.  noise 0:
 * constant rates. */
static void
simulate (int nper, double noise, uint64_t seed, double *est, double *err,
          double *truth)
{
  mpe_rot_t r;
  mpe__rot_init (&r, NEV, SLOTS, seed);
  uint64_t s = seed * 2654435761u + 1;
  for (int e = 0; e < NEV; e++)
    truth[e] = 0;
  for (int i = 0; i < nper; i++)
    {
      double d = 1 + 2 * uniform (&s);             /* ms of active time */
      double f = 1 + noise * (2 * uniform (&s) - 1); /* this period's load */
      double c[SLOTS];
      int first, k = mpe__rot_group (&r, r.cur, &first);
      for (int e = 0; e < NEV; e++)
        {
          double v = (e + 1) * 1000.0 * d * f;
          truth[e] += v;
          if (e >= first && e < first + k)
            c[e - first] = v;
        }
      mpe__rot_commit (&r, d, c);
    }
  for (int e = 0; e < NEV; e++)
    mpe__rot_estimate (&r, e, 0, NULL, &est[e], &err[e]);
  mpe__rot_free (&r);
}

int
main (void)
{
  double est[NEV], err[NEV], truth[NEV];

  /* Groups of at most SLOTS consecutive events. */
  mpe_rot_t r;
  ok (mpe__rot_init (&r, NEV, SLOTS, 1) == 0 && r.ngroups == 3,
      "5 events in 2 slots: 3 groups");
  int first, k = mpe__rot_group (&r, 2, &first);
  ok (first == 4 && k == 1, "the last group holds event 4 alone");
  mpe__rot_free (&r);

  /* Constant rates: exact whatever the rotation. */
  simulate (300, 0, 7, est, err, truth);
  int exact = 1;
  for (int e = 0; e < NEV; e++)
    exact &= fabs (est[e] - truth[e]) <= 1e-9 * truth[e]
             && err[e] < 1e-6 * truth[e];
  ok (exact, "constant rates: estimates exact, errors 0");

  /* Varying rates: the truth within 3 stated errors, in 20 runs each of
   * 100 and 1600 periods; the mean relative error falls about 4x. */
  double rel_small = 0, rel_big = 0;
  int inside = 0, inside1 = 0, total = 0;
  for (uint64_t seed = 1; seed <= 20; seed++)
    {
      for (int pass = 0; pass < 2; pass++)
        {
          int nper = pass ? 1600 : 100;
          simulate (nper, 0.5, seed, est, err, truth);
          for (int e = 0; e < NEV; e++)
            {
              total++;
              inside += err[e] > 0 && fabs (est[e] - truth[e]) <= 3 * err[e];
              inside1 += fabs (est[e] - truth[e]) <= err[e];
              if (pass)
                rel_big += err[e] / truth[e];
              else
                rel_small += err[e] / truth[e];
            }
        }
    }
  diag ("inside 3 errors: %d of %d; mean relative error %.4f (100 "
        "periods), %.4f (1600)", inside, total, rel_small / 100,
        rel_big / 100);
  ok (inside >= total * 97 / 100, "the truth lies within 3 stated errors "
      "(%d of %d)", inside, total);
  /* ... and the error is not inflated: about 68% within one. */
  ok (inside1 >= total / 2 && inside1 <= total * 9 / 10, "%d of %d within "
      "one stated error", inside1, total);
  ok (rel_big < rel_small / 3, "16x the periods: the error shrinks (%.4f "
      "-> %.4f)", rel_small / 100, rel_big / 100);

  /* Every group is visited, none is favoured. */
  mpe__rot_init (&r, NEV, SLOTS, 3);
  int seen[3] = { 0, 0, 0 };
  double c[SLOTS] = { 1, 1 };
  for (int i = 0; i < 3000; i++)
    seen[mpe__rot_commit (&r, 1, c)]++;
  ok (seen[0] > 900 && seen[1] > 900 && seen[2] > 900,
      "the next group is uniform (%d %d %d)", seen[0], seen[1], seen[2]);
  mpe__rot_free (&r);

  /* An unfinished period counts as observed; unseen events say so. */
  mpe__rot_init (&r, NEV, SLOTS, 5);
  double part[SLOTS] = { 4000, 8000 };
  int g = r.cur;
  mpe__rot_group (&r, g, &first);
  double e0, r0;
  mpe__rot_estimate (&r, first, 2, part, &e0, &r0);
  ok (e0 == 4000 && r0 == 0, "one partial period: its count, exact");
  mpe__rot_estimate (&r, (first + SLOTS) % NEV, 2, part, &e0, &r0);
  ok (e0 == 0 && r0 == -1, "an event never counted: error unknown (-1)");
  mpe__rot_free (&r);

  /* Enough slots: no rotation, counts are sums, errors 0. */
  mpe__rot_init (&r, 3, 0, 9);
  double three[3] = { 1, 2, 3 };
  int stays = 1;
  for (int i = 0; i < 10; i++)
    stays &= mpe__rot_commit (&r, 1, three) == 0;
  ok (stays, "one group: it stays current");
  mpe__rot_estimate (&r, 2, 0, NULL, &e0, &r0);
  ok (r.ngroups == 1 && e0 == 30 && r0 == 0,
      "one group: the sum of the counts, error 0");
  mpe__rot_free (&r);
  return done_testing ();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rotation of counter event sets (003-15), written once for every
 * counter source (mpe-counters.c) and tested alone (tests/mpe/
 * test-rotate.c): nothing of libmpe, no MPI, no clock.
 *
 * n events, at most `slots` counted at once: groups of `slots`
 * consecutive events.  Time is cut into periods; each period counts one
 * group, chosen at random (uniformly, independent of what the period
 * holds) when the previous period ends.  An event's total is estimated
 * by the ratio estimator: its count per unit of active time over the
 * periods that counted it, times all the active time; its standard
 * error is the ratio estimator's (Cochran, Sampling Techniques, 6.3):
 *
 *   R = sum c / sum d                  (periods that counted the event)
 *   est = R T                          (T: all the periods' time)
 *   s2 = sum (c - R d)^2 / (n - 1)
 *   err = T sqrt ((1 - n / N) s2 / n) / mean d
 *
 * with n periods of the event out of N.  With one group nothing rotates:
 * the estimate is the count and the error 0.
 */
#ifndef MPE_ROTATE_H
#define MPE_ROTATE_H

#include <stdint.h>

typedef struct
{
  double n, sc, sd, scc, sdd, scd;   /* periods, sums of c, d, c2, d2, cd */
} mpe_rot_acc_t;

typedef struct
{
  int            nev, slots, ngroups, cur;
  uint64_t       rng;
  double         periods, total;     /* N and T so far */
  mpe_rot_acc_t *acc;                /* per event */
} mpe_rot_t;

/* 0, or -1 (no memory).  slots 0 or >= nev: one group.  seed 0 is
 * replaced by a fixed one. */
int  mpe__rot_init (mpe_rot_t *r, int nev, int slots, uint64_t seed);
void mpe__rot_free (mpe_rot_t *r);
/* Group g's events: [*first, *first + returned count). */
int  mpe__rot_group (const mpe_rot_t *r, int g, int *first);
/* The current group's period ended after d (active time, any unit) with
 * counts c[0 .. its size - 1]; returns the next period's group. */
int  mpe__rot_commit (mpe_rot_t *r, double d, const double *c);
/* Active time no set counted (the switch from one set to the next): it
 * counts in T, not in any event's rate. */
void mpe__rot_gap (mpe_rot_t *r, double d);
/* Event e's estimated count over all the time so far, the current
 * group's unfinished period (d_part, c_part, c_part may be NULL when
 * d_part is 0) taken as one more period; *err its standard error (0
 * when exact, -1 when nothing counted it yet). */
void mpe__rot_estimate (const mpe_rot_t *r, int e, double d_part,
                        const double *c_part, double *est, double *err);

#endif

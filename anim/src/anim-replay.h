/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay of a finished .clog (or MPE2 log) through the live renderer:
 * builds the scene at any time T from the logfmt reader.  No GTK.
 */
#ifndef ANIM_REPLAY_H
#define ANIM_REPLAY_H

#include <glib.h>

#include "anim-render.h"

typedef struct AnimReplay AnimReplay;

AnimReplay *anim_replay_open (const char *path, GError **error);
void        anim_replay_free (AnimReplay *rp);
/* Seconds from the first record to the last. */
double      anim_replay_duration (const AnimReplay *rp);
int         anim_replay_nprocs (const AnimReplay *rp);

/* Scene at t seconds from the first record.  A message shows while
 * send <= t <= send + max (flight, min_flight) at the fraction of that
 * span (min_flight keeps instant messages visible during playback).
 * Arrays are owned by rp until the next call. */
void anim_replay_scene (AnimReplay *rp, double t, double min_flight,
                        int selected, AnimScene *s);

#endif

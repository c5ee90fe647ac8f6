/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mpeanim window: one drawing area redrawn on the frame clock, with
 * pause/step/export, and for replays speed and a scrub bar.
 */
#ifndef ANIM_WINDOW_H
#define ANIM_WINDOW_H

#include <gtk/gtk.h>

#include "anim-live.h"
#include "anim-replay.h"
#include "anim-server.h"

typedef struct
{
  AnimLive   *live;        /* live mode, or NULL */
  AnimServer *server;
  AnimReplay *replay;      /* replay mode, or NULL */
  const char *stats_out;   /* live: counters written here on exit */
  gboolean    exit_after_job;
  double      speed;       /* replay: initial speed */
  const char *address;     /* live: MPEANIM_ADDR, shown in the window */
  const char *text_out;    /* the frame's text, rewritten when it changes */
  int         selected;    /* rank selected at the start, or -1 */
} AnimWindowOpts;

/* Runs the window until it is closed (or the job ends with
 * exit_after_job).  Returns the process exit status. */
int anim_window_run (const AnimWindowOpts *opts);

#endif

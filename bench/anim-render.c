/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame cost of mpeanim's live path: 256 processes and about 10,000
 * messages in flight, fed into the live model each frame as a job would,
 * then scene building and cairo drawing into a 1280x800 image surface
 * (what the window does each frame, minus the X server).
 *
 *   anim-render [--procs N] [--inflight M] [--frames F] [--runs R]
 *               [--png LAST-FRAME.png]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anim/src/anim-live.h"

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
cmp_d (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  int procs = 256, inflight = 10000, frames = 300, runs = 5;
  const char *png = NULL;
  if (argc % 2 == 0)
    {
      fprintf (stderr, "usage: anim-render [--procs N] [--inflight M] "
               "[--frames F] [--runs R] [--png FILE]\n");
      return 2;
    }
  for (int i = 1; i + 1 < argc; i += 2)
    {
      if (!strcmp (argv[i], "--procs"))
        procs = atoi (argv[i + 1]);
      else if (!strcmp (argv[i], "--inflight"))
        inflight = atoi (argv[i + 1]);
      else if (!strcmp (argv[i], "--frames"))
        frames = atoi (argv[i + 1]);
      else if (!strcmp (argv[i], "--runs"))
        runs = atoi (argv[i + 1]);
      else if (!strcmp (argv[i], "--png"))
        png = argv[i + 1];
    }
  const double dt = 1.0 / 60;
  /* Dots live ANIM_FLIGHT_S once matched: feed enough per frame to keep
   * `inflight` on screen. */
  int per_frame = (int) (inflight * dt / ANIM_FLIGHT_S + 0.5);
  double *fps = calloc ((size_t) runs, sizeof *fps);
  size_t seen_dots = 0;
  for (int run = 0; run < runs; run++)
    {
      AnimLive *lv = anim_live_new ();
      for (int r = 0; r < procs; r++)
        anim_live_hello (lv, r, procs);
      anim_live_state_def (lv, 100, 101, "Compute", "red");
      anim_live_state_def (lv, 102, 103, "MPI_Send", "blue");
      cairo_surface_t *sf = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                        1280, 800);
      cairo_t *cr = cairo_create (sf);
      unsigned seed = 1;
      uint64_t t = 0;
      /* Warm up to the steady state first. */
      int warm = (int) (ANIM_FLIGHT_S / dt) + 2;
      double t0 = 0;
      for (int f = 0; f < warm + frames; f++)
        {
          if (f == warm)
            t0 = now_s ();
          for (int k = 0; k < per_frame; k++)
            {
              int s = rand_r (&seed) % procs, d = rand_r (&seed) % procs;
              uint64_t b = 64u << (rand_r (&seed) % 14);
              t += 1000;
              anim_live_event (lv, s, t, 0, 100 + 2 * (k & 1));
              anim_live_msg (lv, s, 1, t, 0, d, k, b);
              anim_live_msg (lv, d, 0, t, 0, s, k, b);
              anim_live_event (lv, s, t, 0, 101 + 2 * (k & 1));
            }
          anim_live_advance (lv, dt);
          AnimScene sc;
          anim_live_scene (lv, -1, &sc);
          anim_render (cr, 1280, 800, &sc);
          cairo_surface_flush (sf);
          anim_live_frame_drawn (lv);
          if (f == warm + frames - 1)
            seen_dots = sc.ndots;
        }
      fps[run] = frames / (now_s () - t0);
      if (png && run == 0)
        cairo_surface_write_to_png (sf, png);
      cairo_destroy (cr);
      cairo_surface_destroy (sf);
      anim_live_free (lv);
    }
  qsort (fps, (size_t) runs, sizeof *fps, cmp_d);
  printf ("anim-render: %d procs, %zu messages in flight, 1280x800: "
          "median %.1f frames/s (min %.1f, max %.1f, %d runs of %d "
          "frames)\n", procs, seen_dots, fps[runs / 2], fps[0],
          fps[runs - 1], runs, frames);
  free (fps);
  return 0;
}

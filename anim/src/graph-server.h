/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The graphics window's connections (docs/GRAPHICS.md): validates each
 * rank's frames (anim/client/graph-proto.h), draws them on the canvas,
 * answers updates (writing captured frames), and hands mouse presses and
 * drags to the rank that asks.  GLib main loop; no GTK (the window,
 * graph-main.c, feeds it pointer events and redraws when told).
 */
#ifndef GRAPH_SERVER_H
#define GRAPH_SERVER_H

#include <glib.h>

#include "graph-canvas.h"

/* Ranks past HELLO, at most; connections waiting for their HELLO
 * (GRAPH_HELLO_TIMEOUT seconds each), at most: a new one pushes the
 * oldest waiting one out, so silent peers never keep ranks out. */
#define GRAPH_MAX_CLIENTS   4096
#define GRAPH_MAX_PENDING   64
#define GRAPH_HELLO_TIMEOUT 5
#define GRAPH_PRESS_QUEUE 64

typedef struct GraphServer GraphServer;

typedef struct
{
  /* The picture changed: repaint (or recreate the view if the canvas
   * itself was replaced, see graph_server_canvas). */
  void (*redraw) (void *user);
  /* Every rank that said HELLO has disconnected. */
  void (*job_done) (void *user);
} GraphServerHooks;

GraphServer *graph_server_new (const char *listen, int w, int h,
                               const GraphServerHooks *hooks, void *user,
                               GError **error);
void         graph_server_free (GraphServer *srv);
/* Where MPE_CaptureFile's frames go (default: the current directory):
 * a rank's capture path must lie beneath it, without "..", and no
 * symbolic link may lead out of it; others are refused (the rank's
 * MPE_Update then returns MPE_ERR_BAD_ARGS). */
gboolean     graph_server_capture_dir (GraphServer *srv, const char *dir,
                                       GError **error);
const char  *graph_server_address (const GraphServer *srv);
GraphCanvas *graph_server_canvas (GraphServer *srv);
/* Ranks that said HELLO so far. */
guint        graph_server_n_hello (const GraphServer *srv);

/* Without a window (headless, or after it was closed) mouse queries are
 * answered at once with MPE_ERR_NOXCONNECT. */
void graph_server_set_headless (GraphServer *srv, gboolean headless);

/* Pointer events in canvas pixels, from the window. */
void graph_server_press (GraphServer *srv, int button, int x, int y);
void graph_server_motion (GraphServer *srv, int x, int y);
void graph_server_release (GraphServer *srv, int button, int x, int y);

/* The rubber band of a drag under way: TRUE and its visual
 * (GRAPH_DRAG_*) and box, to be drawn over the picture. */
gboolean graph_server_drag_band (const GraphServer *srv, int *visual,
                                 int *x1, int *y1, int *x2, int *y2);

/* MPE2's region of a drag from press to release (its ConvertCoords):
 * the box (x1, y1) .. (x2, y2) for the visual; ratio = height / width for
 * GRAPH_DRAG_FIXRATIO; GRAPH_DRAG_LINE keeps press and release. */
void graph_drag_region (int visual, double ratio, int px, int py, int rx,
                        int ry, int *x1, int *y1, int *x2, int *y2);

#endif

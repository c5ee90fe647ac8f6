/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay export: writes a small .clog with messages at known times, runs
 * `mpeanim --export --at T` and checks the pixels where nodes and dots
 * must be (layout documented in mpeanim(1)).
 */
#include "config.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <logfmt/logfmt.h>

#include "tests/common/tap.h"

#define S 1000000000ull
#define W 800
#define H 600

static const char *builddir;
static char dir[256];

static int
write_log (const char *path)
{
  /* The message table is given explicitly, so the test does not depend
   * on the writer's matcher. */
  logfmt_writer_opts_t o = { .size = sizeof o, .match_messages = 0,
                             .world_size = 4, .creator = "anim test" };
  logfmt_writer_t *w;
  logfmt_error_t err;
  if (logfmt_writer_open (path, &o, &w, &err) < 0)
    {
      diag ("writer_open: %s", err.message);
      return -1;
    }
  logfmt_state_def_t st = { .start_id = 100, .end_id = 101,
                            .name = "Compute", .color = "red" };
  logfmt_state_def_t st2 = { .start_id = 102, .end_id = 103,
                             .name = "Wait", .color = "#0000ff" };
  logfmt_writer_add_state (w, &st);
  logfmt_writer_add_state (w, &st2);
  logfmt_event_def_t ed = { .id = 999, .name = "Checkpoint",
                            .color = "white" };
  logfmt_writer_add_event_def (w, &ed);
  uint32_t sid[4];
  for (int r = 0; r < 4; r++)
    {
      logfmt_stream_def_t sd = { .rank = r, .thread = 0, .host = "h" };
      logfmt_writer_add_stream (w, &sd, &sid[r]);
    }
  /* rank 0: Compute [0, 3 s], send 4 KiB to 1 at 1 s and to 2 at 2.5 s.
   * rank 1: Wait [0.2, 2] s, receive at 2 s.  rank 2: receive at 2.9 s.
   * rank 3: one solo event at 3 s. */
  logfmt_event_t e0[] = {
    { .time = 0, .type = LOGFMT_REC_EVENT, .id = 100 },
    { .time = 1 * S, .type = LOGFMT_REC_SEND, .partner = 1, .tag = 7,
      .size = 4096 },
    { .time = 5 * S / 2, .type = LOGFMT_REC_SEND, .partner = 2, .tag = 7,
      .size = 4096 },
    { .time = 3 * S, .type = LOGFMT_REC_EVENT, .id = 101 },
  };
  logfmt_event_t e1[] = {
    { .time = S / 5, .type = LOGFMT_REC_EVENT, .id = 102 },
    { .time = 2 * S, .type = LOGFMT_REC_RECV, .partner = 0, .tag = 7,
      .size = 4096 },
    { .time = 2 * S, .type = LOGFMT_REC_EVENT, .id = 103 },
  };
  logfmt_event_t e2[] = {
    { .time = 29 * S / 10, .type = LOGFMT_REC_RECV, .partner = 0, .tag = 7,
      .size = 4096 },
  };
  logfmt_event_t e3[] = {
    { .time = 3 * S, .type = LOGFMT_REC_EVENT, .id = 999 },
  };
  if (logfmt_writer_event (w, sid[0], e0, 4) < 0
      || logfmt_writer_event (w, sid[1], e1, 3) < 0
      || logfmt_writer_event (w, sid[2], e2, 1) < 0
      || logfmt_writer_event (w, sid[3], e3, 1) < 0)
    {
      logfmt_writer_abort (w);
      return -1;
    }
  logfmt_message_t m[] = {
    { .send_stream = sid[0], .recv_stream = sid[1], .send_time = 1 * S,
      .recv_time = 2 * S, .send_rank = 0, .recv_rank = 1, .tag = 7,
      .size = 4096 },
    { .send_stream = sid[0], .recv_stream = sid[2], .send_time = 5 * S / 2,
      .recv_time = 29 * S / 10, .send_rank = 0, .recv_rank = 2, .tag = 7,
      .size = 4096 },
  };
  if (logfmt_writer_put_messages (w, m, 2) < 0)
    {
      logfmt_writer_abort (w);
      return -1;
    }
  if (logfmt_writer_finish (w, &err) < 0)
    {
      diag ("writer_finish: %s", err.message);
      return -1;
    }
  return 0;
}

/* Exports the frame at t (rank `sel` selected, -1 for none, its text
 * in dir/f.txt) and returns its surface (NULL on failure). */
static cairo_surface_t *
frame_sel (const char *log, double t, int sel)
{
  char png[300], cmd[1024];
  snprintf (png, sizeof png, "%s/f.png", dir);
  unlink (png);
  snprintf (cmd, sizeof cmd,
            "%s/anim/src/mpeanim --export %s --at %g --size %dx%d "
            "--select %d --text-out %s/f.txt %s",
            builddir, png, t, W, H, sel, dir, log);
  if (system (cmd) != 0)
    {
      diag ("failed: %s", cmd);
      return NULL;
    }
  cairo_surface_t *s = cairo_image_surface_create_from_png (png);
  if (cairo_surface_status (s) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (s);
      return NULL;
    }
  return s;
}

static cairo_surface_t *
frame_at (const char *log, double t)
{
  return frame_sel (log, t, -1);
}

/* Whether dir/f.txt has the line. */
static int
text_has (const char *line)
{
  char path[300], buf[512];
  snprintf (path, sizeof path, "%s/f.txt", dir);
  FILE *f = fopen (path, "r");
  int found = 0;
  while (f && !found && fgets (buf, sizeof buf, f))
    {
      buf[strcspn (buf, "\n")] = 0;
      found = strcmp (buf, line) == 0;
    }
  if (f)
    fclose (f);
  if (!found)
    diag ("  no line \"%s\" in %s", line, path);
  return found;
}

static uint32_t
pixel (cairo_surface_t *s, int x, int y)
{
  cairo_surface_flush (s);
  const unsigned char *d = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);
  uint32_t v = *(const uint32_t *) (d + y * stride + x * 4);
  return v & 0xffffff;
}

/* Pixels of exactly that colour in the rectangle. */
static int
count_px (cairo_surface_t *s, int x0, int y0, int x1, int y1, uint32_t rgb)
{
  int n = 0;
  for (int y = y0; s && y < y1; y++)
    for (int x = x0; x < x1; x++)
      n += pixel (s, x, y) == rgb;
  return n;
}

/* Node i of 4 on the circle (mpeanim(1)). */
static void
node (int i, int *x, int *y)
{
  double a = -M_PI / 2 + 2 * M_PI * i / 4, r = 0.4 * H;
  *x = (int) lround (W / 2 + r * cos (a));
  *y = (int) lround (H / 2 + r * sin (a));
}

/* Point at fraction f from node a to node b. */
static void
along (int a, int b, double f, int *x, int *y)
{
  int xa, ya, xb, yb;
  node (a, &xa, &ya);
  node (b, &xb, &yb);
  *x = (int) lround (xa + (xb - xa) * f);
  *y = (int) lround (ya + (yb - ya) * f);
}

#define CHECK_PX(s, x, y, rgb, what)                                       \
  do {                                                                     \
    uint32_t p_ = (s) ? pixel ((s), (x), (y)) : 0xdeadbeef;                \
    if (!ok (p_ == (rgb), "%s", what))                                     \
      diag ("  pixel (%d,%d) = %06x, want %06x", (x), (y), p_,            \
            (unsigned) (rgb));                                             \
  } while (0)

int
main (int argc, char **argv)
{
  /* --write-log PATH: only write the test log (for replay-window.sh). */
  if (argc == 3 && strcmp (argv[1], "--write-log") == 0)
    return write_log (argv[2]) < 0;
  builddir = getenv ("top_builddir");
  if (!builddir)
    builddir = ".";
  snprintf (dir, sizeof dir, "%s/anim-replay-XXXXXX",
            getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp");
  if (!mkdtemp (dir))
    return 1;
  char log[300];
  snprintf (log, sizeof log, "%s/run.clog", dir);
  plan (25);
  ASSERT_OK (write_log (log), "small .clog written");

  int x, y;
  cairo_surface_t *s = frame_at (log, 1.5);
  ok (s != NULL, "frame at 1.5 s exported");
  along (0, 1, 0.5, &x, &y);
  CHECK_PX (s, x, y, 0xffd700, "1.5 s: dot halfway from 0 to 1");
  along (0, 1, 0.25, &x, &y);
  CHECK_PX (s, x, y, 0x1e1e1e, "1.5 s: nothing a quarter of the way");
  node (0, &x, &y);
  CHECK_PX (s, x, y, 0xff0000, "1.5 s: rank 0 in Compute (red)");
  node (1, &x, &y);
  CHECK_PX (s, x, y, 0x0000ff, "1.5 s: rank 1 in Wait (blue)");
  node (2, &x, &y);
  CHECK_PX (s, x, y, 0x808080, "1.5 s: rank 2 in no state (grey)");
  if (s)
    cairo_surface_destroy (s);

  s = frame_at (log, 0.5);
  along (0, 1, 0.5, &x, &y);
  CHECK_PX (s, x, y, 0x1e1e1e, "0.5 s: no dot before the send");
  if (s)
    cairo_surface_destroy (s);

  s = frame_at (log, 1.9);
  along (0, 1, 0.9, &x, &y);
  CHECK_PX (s, x, y, 0xffd700, "1.9 s: dot 90% of the way");
  along (0, 1, 0.5, &x, &y);
  CHECK_PX (s, x, y, 0x1e1e1e, "1.9 s: dot has left the middle");
  if (s)
    cairo_surface_destroy (s);

  /* 0 -> 2 from 2.5 s to 2.9 s: at 2.7 s it is at the centre. */
  s = frame_at (log, 2.7);
  along (0, 2, 0.5, &x, &y);
  CHECK_PX (s, x, y, 0xffd700, "2.7 s: dot from 0 to 2 in the centre");
  along (0, 1, 0.5, &x, &y);
  CHECK_PX (s, x, y, 0x1e1e1e, "2.7 s: first message delivered");
  node (1, &x, &y);
  CHECK_PX (s, x, y, 0x808080, "2.7 s: rank 1 left Wait");
  if (s)
    cairo_surface_destroy (s);

  s = frame_sel (log, 3.0, 3);
  node (0, &x, &y);
  CHECK_PX (s, x, y, 0x808080, "3.0 s: rank 0 left Compute");
  /* The legend (bottom-left, below the nodes' circle on its left): a
   * 12 x 12 swatch per state even when no rank is in it, with the
   * names in the frame's text. */
  int red = count_px (s, 0, H / 2 + 60, W / 3, H, 0xff0000);
  int blue = count_px (s, 0, H / 2 + 60, W / 3, H, 0x0000ff);
  int gold = count_px (s, 0, H / 2 + 60, W / 3, H, 0xffd700);
  ok (red >= 100 && red <= 200, "legend: Compute swatch (%d red px)", red);
  ok (blue >= 100 && blue <= 200, "legend: Wait swatch (%d blue px)", blue);
  ok (gold > 0, "legend: a message sample (%d gold px)", gold);
  ok (text_has ("legend: Compute #ff0000"), "legend text: Compute, red");
  ok (text_has ("legend: Wait #0000ff"), "legend text: Wait, blue");
  /* The solo event by the name the log defines, at its time. */
  ok (text_has ("info: 3.000000  event Checkpoint"),
      "rank 3's history names its solo event");
  if (s)
    cairo_surface_destroy (s);
  s = frame_sel (log, 1.5, 1);
  ok (text_has ("info: 0.200000  begin Wait"),
      "rank 1's history: begin Wait at 0.2 s");
  ok (count_px (s, 0, H / 2 + 60, W / 3, H, 0xff0000) == red,
      "legend the same at 1.5 s");
  ok (text_has ("status: t = 1.500000 s of 3.000000 s   in flight 1   "
                "ranks 4"), "status line in the text");
  if (s)
    cairo_surface_destroy (s);

  char cmd[1024];
  snprintf (cmd, sizeof cmd, "%s/anim/src/mpeanim --export %s/x.png "
            "%s/missing.clog 2>/dev/null", builddir, dir, dir);
  int rc = system (cmd);
  ok (WIFEXITED (rc) && WEXITSTATUS (rc) == 1,
      "missing log: exit status 1, no crash");
  snprintf (cmd, sizeof cmd, "head -c 3000 /dev/urandom > %s/junk.clog; "
            "%s/anim/src/mpeanim --export %s/x.png %s/junk.clog 2>/dev/null",
            dir, builddir, dir, dir);
  rc = system (cmd);
  ok (WIFEXITED (rc) && WEXITSTATUS (rc) == 1,
      "garbage log: exit status 1, no crash");

  if (getenv ("KEEP")) return exit_status ();
  snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
  if (system (cmd) != 0)
    diag ("could not remove %s", dir);
  return exit_status ();
}

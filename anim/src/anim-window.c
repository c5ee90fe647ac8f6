/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <math.h>

#include "anim-window.h"

typedef struct
{
  AnimWindowOpts o;
  GtkWidget *win, *area, *pause_btn, *speed_scale, *scrub, *time_label;
  GtkWidget *addr_label;   /* live: the line to export, selectable */
  gint64     last_frame_us;
  gboolean   paused;
  double     t;            /* replay position, seconds */
  double     speed;
  int        selected;
  gboolean   scrubbing;    /* scrub bar moved by code, not the user */
  gint64     done_since_us;
  gboolean   quitting;
  gboolean   titled;
  int        status;
  /* The frame governor (live mode): drawing may use at most
     ANIM_DRAW_SHARE of a core, so a busy job gets fewer frames, never a
     slower window or lost records. */
  gint64     next_draw_us;
  gint64     draw_cpu_ns;      /* CPU time of the last frame */
  /* Frames are rasterised here, in this process, and handed to the
     display as one finished image: drawn straight on the widget's
     cairo context they would become XRender requests that the X server
     rasterises, a second busy process the job's ranks must wait for
     when they wake (issue 17). */
  cairo_surface_t *frame;
  /* The next frame is rendered here, then compared with `frame` in
     tiles: only the tiles that changed are invalidated, so the display
     copies a few stripes a frame, and nothing when nothing moved. */
  cairo_surface_t *back;
  /* What the shown frame was rendered from (scene_key): a scene that
     did not change, an idle job's or a paused replay's, is not
     rendered again. */
  GByteArray      *key, *next_key;
} Win;

#define TILE 64   /* pixels: the damage grid */

#define ANIM_DRAW_SHARE 0.15

static gint64
thread_cpu_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
build_scene (Win *w, AnimScene *s)
{
  if (w->o.live)
    {
      anim_live_lock (w->o.live);
      anim_live_scene (w->o.live, w->selected, s);
      anim_live_unlock (w->o.live);
    }
  else
    anim_replay_scene (w->o.replay, w->t, 0.15 * w->speed, w->selected, s);
}

/* An RGB24 image of the area's size in *sf (made or remade). */
static void
ensure_image (cairo_surface_t **sf, int wd, int ht)
{
  if (!*sf || cairo_image_surface_get_width (*sf) != wd
      || cairo_image_surface_get_height (*sf) != ht)
    {
      g_clear_pointer (sf, cairo_surface_destroy);
      *sf = cairo_image_surface_create (CAIRO_FORMAT_RGB24, wd, ht);
    }
}

/* Whether there is a shown frame, of that size. */
static gboolean
frame_fits (const Win *w, int wd, int ht)
{
  return w->frame && cairo_image_surface_get_width (w->frame) == wd
         && cairo_image_surface_get_height (w->frame) == ht;
}

/* Everything a frame is rendered from, field by field, into out. */
static void
scene_key (const AnimScene *s, int wd, int ht, GByteArray *out)
{
  g_byte_array_set_size (out, 0);
  int head[5] = { wd, ht, s->nprocs, s->selected, s->ninfo };
  g_byte_array_append (out, (const guint8 *) head, sizeof head);
  if (s->proc_rgb)
    g_byte_array_append (out, (const guint8 *) s->proc_rgb,
                         (guint) (sizeof *s->proc_rgb * (size_t) s->nprocs));
  if (s->proc_seen)
    g_byte_array_append (out, s->proc_seen, (guint) s->nprocs);
  for (size_t i = 0; i < s->ndots; i++)
    {
      const AnimDotView *d = &s->dots[i];
      g_byte_array_append (out, (const guint8 *) &d->src, sizeof d->src);
      g_byte_array_append (out, (const guint8 *) &d->dst, sizeof d->dst);
      g_byte_array_append (out, (const guint8 *) &d->frac, sizeof d->frac);
      g_byte_array_append (out, (const guint8 *) &d->bytes, sizeof d->bytes);
    }
  if (s->status)
    g_byte_array_append (out, (const guint8 *) s->status,
                         (guint) strlen (s->status) + 1);
  for (int i = 0; s->info && i < s->ninfo; i++)
    g_byte_array_append (out, (const guint8 *) s->info[i],
                         (guint) strlen (s->info[i]) + 1);
  for (int i = 0; s->legend && i < s->nlegend; i++)
    {
      g_byte_array_append (out, (const guint8 *) &s->legend[i].rgb,
                           sizeof s->legend[i].rgb);
      g_byte_array_append (out, (const guint8 *) s->legend[i].name,
                           (guint) strlen (s->legend[i].name) + 1);
    }
}

/* The TILE x TILE tiles where two images of one size differ: row by row
 * (one comparison for a row that did not change), then the tiles of a
 * changed row not yet known to have changed. */
static cairo_region_t *
changed_tiles (cairo_surface_t *now, cairo_surface_t *before)
{
  cairo_surface_flush (now);
  cairo_surface_flush (before);
  const unsigned char *a = cairo_image_surface_get_data (now);
  const unsigned char *b = cairo_image_surface_get_data (before);
  int stride = cairo_image_surface_get_stride (now);
  int wd = cairo_image_surface_get_width (now);
  int ht = cairo_image_surface_get_height (now);
  cairo_region_t *dirty = cairo_region_create ();
  int ncols = (wd + TILE - 1) / TILE;
  gboolean *hit = g_newa (gboolean, ncols);
  for (int ty = 0; ty < ht; ty += TILE)
    {
      int th = ty + TILE <= ht ? TILE : ht - ty, nhit = 0;
      memset (hit, 0, sizeof (gboolean) * (size_t) ncols);
      for (int y = ty; y < ty + th && nhit < ncols; y++)
        {
          size_t row = (size_t) y * (size_t) stride;
          if (memcmp (a + row, b + row, (size_t) wd * 4) == 0)
            continue;
          for (int c = 0; c < ncols; c++)
            {
              int tx = c * TILE, tw = tx + TILE <= wd ? TILE : wd - tx;
              size_t off = row + (size_t) tx * 4;
              if (!hit[c] && memcmp (a + off, b + off, (size_t) tw * 4) != 0)
                {
                  hit[c] = TRUE;
                  nhit++;
                  cairo_rectangle_int_t r = { tx, ty, tw, th };
                  cairo_region_union_rectangle (dirty, &r);
                }
            }
        }
    }
  return dirty;
}

/* The frame's text and what the address line shows (tests, scripts). */
static void
write_text (Win *w, const AnimScene *s)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  if (!f)
    return;
  anim_scene_write_text (f, s);
  if (w->addr_label)
    fprintf (f, "address: %s\naddress selectable: %d\n",
             gtk_label_get_text (GTK_LABEL (w->addr_label)),
             gtk_label_get_selectable (GTK_LABEL (w->addr_label)));
  fclose (f);
  g_autoptr (GError) err = NULL;
  if (!g_file_set_contents (w->o.text_out, buf, (gssize) len, &err))
    g_printerr ("mpeanim: %s\n", err->message);
  free (buf);
}

/* Renders the scene into w->back and swaps it in as the frame, its CPU
 * time in w->draw_cpu_ns.  Returns the region that differs from the frame
 * before (NULL: all of it; empty when the scene is the one the frame
 * shows, which is then kept). */
static cairo_region_t *
render_frame (Win *w, int wd, int ht)
{
  gint64 c0 = thread_cpu_ns ();
  AnimScene s;
  build_scene (w, &s);
  scene_key (&s, wd, ht, w->next_key);
  gboolean fits = frame_fits (w, wd, ht);
  w->draw_cpu_ns = thread_cpu_ns () - c0;
  if (fits && w->key->len == w->next_key->len
      && memcmp (w->key->data, w->next_key->data, w->key->len) == 0)
    return cairo_region_create ();
  GByteArray *t0 = w->key;
  w->key = w->next_key;
  w->next_key = t0;
  ensure_image (&w->back, wd, ht);
  cairo_t *fcr = cairo_create (w->back);
  anim_render (fcr, wd, ht, &s);
  cairo_destroy (fcr);
  if (w->o.text_out)
    write_text (w, &s);
  if (w->o.live)
    {
      anim_live_lock (w->o.live);
      anim_live_frame_drawn (w->o.live);
      anim_live_unlock (w->o.live);
    }
  cairo_region_t *dirty = fits ? changed_tiles (w->back, w->frame) : NULL;
  cairo_surface_t *t = w->frame;
  w->frame = w->back;
  w->back = t;
  w->draw_cpu_ns = thread_cpu_ns () - c0;
  return dirty;
}

/* Paints the current frame; GTK clips it to what was invalidated. */
static gboolean
on_draw (GtkWidget *area, cairo_t *cr, gpointer data)
{
  Win *w = data;
  int wd = gtk_widget_get_allocated_width (area);
  int ht = gtk_widget_get_allocated_height (area);
  if (!frame_fits (w, wd, ht))
    {
      /* First draw or a new size: no frame to show yet. */
      cairo_region_t *d = render_frame (w, wd, ht);
      g_clear_pointer (&d, cairo_region_destroy);
    }
  cairo_set_source_surface (cr, w->frame, 0, 0);
  cairo_set_operator (cr, CAIRO_OPERATOR_SOURCE);
  cairo_paint (cr);
  return TRUE;
}

static void
write_stats (Win *w)
{
  if (!w->o.live || !w->o.stats_out)
    return;
  g_autoptr (GError) err = NULL;
  anim_live_lock (w->o.live);
  gboolean ok = anim_live_write_stats (w->o.live, w->o.stats_out, &err);
  anim_live_unlock (w->o.live);
  if (!ok)
    {
      g_printerr ("mpeanim: %s\n", err->message);
      w->status = 1;
      return;
    }
  /* The window's own CPU time, for the benchmark's budget. */
  struct rusage ru;
  FILE *f = fopen (w->o.stats_out, "a");
  if (f && getrusage (RUSAGE_SELF, &ru) == 0)
    fprintf (f, "cpu_s=%.3f\n",
             (double) ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6
             + (double) ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6);
  if (f)
    fclose (f);
}

static void
sync_scrub (Win *w)
{
  if (!w->scrub)
    return;
  w->scrubbing = TRUE;
  gtk_range_set_value (GTK_RANGE (w->scrub), w->t);
  w->scrubbing = FALSE;
  char buf[64];
  g_snprintf (buf, sizeof buf, "%.3f s  x%g", w->t, w->speed);
  gtk_label_set_text (GTK_LABEL (w->time_label), buf);
}

static void
advance (Win *w, double dt)
{
  if (w->o.live)
    {
      anim_live_lock (w->o.live);
      anim_live_advance (w->o.live, dt);
      anim_live_unlock (w->o.live);
    }
  else
    {
      double d = anim_replay_duration (w->o.replay);
      w->t += dt * w->speed;
      if (w->t >= d)
        {
          w->t = d;
          w->paused = TRUE;
          gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (w->pause_btn),
                                        TRUE);
        }
      sync_scrub (w);
    }
}

static gboolean
quit_idle (gpointer data)
{
  Win *w = data;
  gtk_widget_destroy (w->win);
  return G_SOURCE_REMOVE;
}

static gboolean
on_tick (GtkWidget *area, GdkFrameClock *clock, gpointer data)
{
  Win *w = data;
  gint64 now = gdk_frame_clock_get_frame_time (clock);
  double dt = w->last_frame_us ? (now - w->last_frame_us) / 1e6 : 0;
  w->last_frame_us = now;
  if (dt > 0.25)
    dt = 0.25;  /* after a stall, do not jump */
  if (!w->paused)
    advance (w, dt);
  if (!w->o.live || now >= w->next_draw_us)
    {
      int wd = gtk_widget_get_allocated_width (area);
      int ht = gtk_widget_get_allocated_height (area);
      cairo_region_t *dirty = render_frame (w, wd, ht);
      if (!dirty)
        gtk_widget_queue_draw (area);
      else
        {
          if (!cairo_region_is_empty (dirty))
            gtk_widget_queue_draw_region (area, dirty);
          cairo_region_destroy (dirty);
        }
      /* The next frame after a pause that keeps the drawing's share of
         a core under ANIM_DRAW_SHARE (the frame's own CPU time counts
         what the window's other work costs too, roughly doubled). */
      w->next_draw_us = now + (gint64) (2.0 * (double) w->draw_cpu_ns
                                        / 1000.0 / ANIM_DRAW_SHARE);
    }

  if (w->o.live && !w->titled && anim_server_n_hello (w->o.server) > 0)
    {
      char t[64];
      anim_live_lock (w->o.live);
      int n = anim_live_nprocs (w->o.live);
      anim_live_unlock (w->o.live);
      g_snprintf (t, sizeof t, "mpeanim - live, %d processes", n);
      gtk_window_set_title (GTK_WINDOW (w->win), t);
      w->titled = TRUE;
    }
  if (w->o.live && w->o.exit_after_job)
    {
      anim_live_lock (w->o.live);
      guint64 world = anim_live_stats (w->o.live)->world_size;
      anim_live_unlock (w->o.live);
      guint hello = anim_server_n_hello (w->o.server);
      gboolean done = hello > 0 && anim_server_n_open (w->o.server) == 0
                      && hello >= world;
      if (!done)
        w->done_since_us = 0;
      else if (!w->done_since_us)
        w->done_since_us = now;
      else if (now - w->done_since_us > 300000 && !w->quitting)
        {
          /* A few more frames have shown the last dots: leave. */
          w->quitting = TRUE;
          g_idle_add (quit_idle, w);
        }
    }
  return G_SOURCE_CONTINUE;
}

static void
export_png (Win *w)
{
  GtkFileChooserNative *fc = gtk_file_chooser_native_new (
    "Export frame as PNG", GTK_WINDOW (w->win), GTK_FILE_CHOOSER_ACTION_SAVE,
    "_Export", "_Cancel");
  gtk_file_chooser_set_do_overwrite_confirmation (GTK_FILE_CHOOSER (fc), TRUE);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (fc), "mpeanim.png");
  if (gtk_native_dialog_run (GTK_NATIVE_DIALOG (fc)) == GTK_RESPONSE_ACCEPT)
    {
      g_autofree char *path = gtk_file_chooser_get_filename (
        GTK_FILE_CHOOSER (fc));
      int wd = gtk_widget_get_allocated_width (w->area);
      int ht = gtk_widget_get_allocated_height (w->area);
      cairo_surface_t *sf = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                        wd, ht);
      cairo_t *cr = cairo_create (sf);
      AnimScene s;
      build_scene (w, &s);
      anim_render (cr, wd, ht, &s);
      cairo_destroy (cr);
      if (cairo_surface_write_to_png (sf, path) != CAIRO_STATUS_SUCCESS)
        {
          GtkWidget *d = gtk_message_dialog_new (
            GTK_WINDOW (w->win), GTK_DIALOG_MODAL, GTK_MESSAGE_ERROR,
            GTK_BUTTONS_CLOSE, "Could not write %s", path);
          gtk_dialog_run (GTK_DIALOG (d));
          gtk_widget_destroy (d);
        }
      cairo_surface_destroy (sf);
    }
  g_object_unref (fc);
}

static void
on_pause (GtkToggleButton *b, gpointer data)
{
  Win *w = data;
  w->paused = gtk_toggle_button_get_active (b);
  if (!w->paused && w->o.replay
      && w->t >= anim_replay_duration (w->o.replay))
    w->t = 0;  /* play again from the start */
}

static void
on_step (GtkButton *b, gpointer data)
{
  Win *w = data;
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (w->pause_btn), TRUE);
  advance (w, 1.0 / 30);
}

static void
on_export (GtkButton *b, gpointer data)
{
  export_png (data);
}

static void
on_speed (GtkRange *r, gpointer data)
{
  Win *w = data;
  w->speed = pow (10, gtk_range_get_value (r));
  sync_scrub (w);
}

static gchar *
format_speed (GtkScale *s, gdouble v, gpointer data)
{
  return g_strdup_printf ("x%g", pow (10, v));
}

static void
on_scrub (GtkRange *r, gpointer data)
{
  Win *w = data;
  if (w->scrubbing)
    return;
  w->t = gtk_range_get_value (r);
}

static gboolean
on_click (GtkWidget *area, GdkEventButton *ev, gpointer data)
{
  Win *w = data;
  int n;
  if (w->o.live)
    {
      anim_live_lock (w->o.live);
      n = anim_live_nprocs (w->o.live);
      anim_live_unlock (w->o.live);
    }
  else
    n = anim_replay_nprocs (w->o.replay);
  int hit = anim_layout_hit (n, gtk_widget_get_allocated_width (area),
                             gtk_widget_get_allocated_height (area), ev->x,
                             ev->y);
  w->selected = hit == w->selected ? -1 : hit;
  return TRUE;
}

static gboolean
on_key (GtkWidget *win, GdkEventKey *ev, gpointer data)
{
  Win *w = data;
  switch (ev->keyval)
    {
    case GDK_KEY_space:
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (w->pause_btn),
                                    !w->paused);
      return TRUE;
    case GDK_KEY_s:
    case GDK_KEY_Right:
      on_step (NULL, w);
      return TRUE;
    case GDK_KEY_e:
      export_png (w);
      return TRUE;
    case GDK_KEY_Escape:
      w->selected = -1;
      return TRUE;
    default:
      return FALSE;
    }
}

static void
on_copy_addr (GtkButton *b, gpointer data)
{
  Win *w = data;
  gtk_clipboard_set_text (gtk_widget_get_clipboard (w->addr_label,
                                                    GDK_SELECTION_CLIPBOARD),
                          gtk_label_get_text (GTK_LABEL (w->addr_label)), -1);
}

static void
on_destroy (GtkWidget *win, gpointer data)
{
  write_stats (data);
  gtk_main_quit ();
}

int
anim_window_run (const AnimWindowOpts *opts)
{
  Win w = { .o = *opts, .selected = opts->selected >= 0 ? opts->selected
                                                       : -1,
            .speed = opts->speed > 0 ? opts->speed : 1,
            .key = g_byte_array_new (), .next_key = g_byte_array_new () };
  w.win = gtk_window_new (GTK_WINDOW_TOPLEVEL);
  gtk_window_set_title (GTK_WINDOW (w.win),
                        opts->live ? "mpeanim - waiting for a job"
                                   : "mpeanim - replay");
  gtk_window_set_default_size (GTK_WINDOW (w.win), 900, 700);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_container_add (GTK_CONTAINER (w.win), box);
  if (opts->live && opts->address)
    {
      /* What a job needs in its environment, to select or copy. */
      GtkWidget *ab = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      gtk_container_set_border_width (GTK_CONTAINER (ab), 4);
      gtk_box_pack_start (GTK_BOX (box), ab, FALSE, FALSE, 0);
      gtk_box_pack_start (GTK_BOX (ab), gtk_label_new ("Run the job with:"),
                          FALSE, FALSE, 0);
      g_autofree char *line = g_strdup_printf ("export MPEANIM_ADDR='%s'",
                                               opts->address);
      w.addr_label = gtk_label_new (line);
      gtk_label_set_selectable (GTK_LABEL (w.addr_label), TRUE);
      /* Wrapped, never cut: all of it must be readable. */
      gtk_label_set_line_wrap (GTK_LABEL (w.addr_label), TRUE);
      gtk_label_set_line_wrap_mode (GTK_LABEL (w.addr_label),
                                    PANGO_WRAP_CHAR);
      gtk_label_set_width_chars (GTK_LABEL (w.addr_label), 40);
      gtk_label_set_xalign (GTK_LABEL (w.addr_label), 0);
      PangoAttrList *al = pango_attr_list_new ();
      pango_attr_list_insert (al, pango_attr_family_new ("monospace"));
      gtk_label_set_attributes (GTK_LABEL (w.addr_label), al);
      pango_attr_list_unref (al);
      gtk_box_pack_start (GTK_BOX (ab), w.addr_label, TRUE, TRUE, 0);
      GtkWidget *copy = gtk_button_new_with_mnemonic ("_Copy");
      gtk_widget_set_tooltip_text (copy, "Copy the line to the clipboard");
      g_signal_connect (copy, "clicked", G_CALLBACK (on_copy_addr), &w);
      gtk_box_pack_start (GTK_BOX (ab), copy, FALSE, FALSE, 0);
    }

  w.area = gtk_drawing_area_new ();
  gtk_widget_set_vexpand (w.area, TRUE);
  gtk_widget_add_events (w.area, GDK_BUTTON_PRESS_MASK);
  gtk_box_pack_start (GTK_BOX (box), w.area, TRUE, TRUE, 0);

  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_container_set_border_width (GTK_CONTAINER (bar), 4);
  gtk_box_pack_start (GTK_BOX (box), bar, FALSE, FALSE, 0);
  w.pause_btn = gtk_toggle_button_new_with_mnemonic ("_Pause");
  GtkWidget *step = gtk_button_new_with_mnemonic ("_Step");
  GtkWidget *exp = gtk_button_new_with_mnemonic ("_Export PNG");
  gtk_box_pack_start (GTK_BOX (bar), w.pause_btn, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (bar), step, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (bar), exp, FALSE, FALSE, 0);
  if (opts->replay)
    {
      /* Speed on a log scale: 10^-3 .. 10^3 times real time. */
      w.speed_scale = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL,
                                                -3, 3, 0.1);
      gtk_range_set_value (GTK_RANGE (w.speed_scale), log10 (w.speed));
      gtk_widget_set_size_request (w.speed_scale, 160, -1);
      g_signal_connect (w.speed_scale, "format-value",
                        G_CALLBACK (format_speed), NULL);
      g_signal_connect (w.speed_scale, "value-changed",
                        G_CALLBACK (on_speed), &w);
      gtk_box_pack_start (GTK_BOX (bar), w.speed_scale, FALSE, FALSE, 0);
      double d = anim_replay_duration (opts->replay);
      w.scrub = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0,
                                          d > 0 ? d : 1, d > 0 ? d / 1000
                                                               : 0.001);
      gtk_scale_set_draw_value (GTK_SCALE (w.scrub), FALSE);
      gtk_widget_set_hexpand (w.scrub, TRUE);
      g_signal_connect (w.scrub, "value-changed", G_CALLBACK (on_scrub), &w);
      gtk_box_pack_start (GTK_BOX (bar), w.scrub, TRUE, TRUE, 0);
      w.time_label = gtk_label_new ("");
      gtk_box_pack_start (GTK_BOX (bar), w.time_label, FALSE, FALSE, 0);
      sync_scrub (&w);
    }
  g_signal_connect (w.pause_btn, "toggled", G_CALLBACK (on_pause), &w);
  g_signal_connect (step, "clicked", G_CALLBACK (on_step), &w);
  g_signal_connect (exp, "clicked", G_CALLBACK (on_export), &w);
  g_signal_connect (w.area, "draw", G_CALLBACK (on_draw), &w);
  g_signal_connect (w.area, "button-press-event", G_CALLBACK (on_click), &w);
  g_signal_connect (w.win, "key-press-event", G_CALLBACK (on_key), &w);
  g_signal_connect (w.win, "destroy", G_CALLBACK (on_destroy), &w);
  gtk_widget_add_tick_callback (w.area, on_tick, &w, NULL);
  /* The drawing keeps the ordinary priority.  As a SCHED_IDLE task it
     cost a job with a free core less (issue 17), but it starved under
     load (a loaded CI drew 4 frames in a whole run), and an unprivileged
     user cannot raise it back (RLIMIT_NICE is 0), so a busy laptop
     would freeze the window. */
  /* Not the address label first: its focus would select all of it. */
  gtk_window_set_focus (GTK_WINDOW (w.win), w.pause_btn);
  gtk_widget_show_all (w.win);
  gtk_main ();
  g_clear_pointer (&w.frame, cairo_surface_destroy);
  g_clear_pointer (&w.back, cairo_surface_destroy);
  g_byte_array_unref (w.key);
  g_byte_array_unref (w.next_key);
  return w.status;
}

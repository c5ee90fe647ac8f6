/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gshapes PREFIX [headless]: every rank draws known shapes into one MPE
 * graphics window; rank 0 draws each of the 16 colours, each of the 16
 * logic modes (on rectangles, circles and points), lines (thin, thick,
 * dashed), circles, a string, added colours; ranks 1.. each fill their
 * own square and XOR a line over it twice.  Each rank writes the pixels
 * it expects to PREFIX.expect.RANK (computed here, independently of the
 * window's code: the GX truth table), and rank 0 captures the frame after
 * everybody's MPE_Update as PREFIX000.png (tests/graphics/gpixels checks
 * it).  Return codes of bad calls are checked here: "check PASS|FAIL".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpe_graphics.h"

static const unsigned rgb[16] = {
  0xffffff, 0x000000, 0xff0000, 0xffff00, 0x00ff00, 0x00ffff, 0x0000ff,
  0xff00ff, 0x7fffd4, 0x228b22, 0xffa500, 0xb03060, 0xa52a2a, 0xffc0cb,
  0xff7f50, 0xbebebe
};

static FILE *ex;
static int fails;

/* X11's GX code as a truth table: bit (2 (1 - s) + (1 - d)) of fn. */
static unsigned
rop (int fn, unsigned s, unsigned d)
{
  unsigned r = 0;
  for (int b = 0; b < 24; b++)
    {
      unsigned sb = (s >> b) & 1, db = (d >> b) & 1;
      r |= (((unsigned) fn >> ((1 - sb) * 2 + (1 - db))) & 1u) << b;
    }
  return r;
}

static void
check (int cond, const char *what)
{
  printf ("check %s %s\n", cond ? "PASS" : "FAIL", what);
  fails += !cond;
}

static void
px (int x, int y, unsigned c)
{
  fprintf (ex, "px %d %d %06x\n", x, y, c);
}

static void
box (const char *kind, int x0, int y0, int x1, int y1, unsigned c)
{
  fprintf (ex, "%s %d %d %d %d %06x\n", kind, x0, y0, x1, y1, c);
}

static void
rank0 (MPE_XGraph g, int headless)
{
  /* The 16 colours: exact X11 rectangles (w x h pixels from x, y). */
  for (int c = 0; c < 16; c++)
    {
      int x = 10 + 20 * c;
      MPE_Fill_rectangle (g, x, 10, 15, 12, (MPE_Color) c);
      px (x, 10, rgb[c]);
      px (x + 14, 21, rgb[c]);
      if (c != MPE_WHITE)
        {
          px (x + 15, 10, 0xffffff);
          px (x, 22, 0xffffff);
        }
    }
  /* The 16 logic modes over coral, drawing aquamarine. */
  const unsigned dst = rgb[MPE_CORAL], src = rgb[MPE_AQUAMARINE];
  for (int fn = 0; fn < 16; fn++)
    {
      int x = 10 + 20 * fn;
      MPE_Fill_rectangle (g, x, 40, 15, 15, MPE_CORAL);
      MPE_Fill_rectangle (g, x, 65, 15, 15, MPE_CORAL);
      MPE_Fill_rectangle (g, x, 90, 15, 15, MPE_CORAL);
      MPE_Draw_logic (g, MPE_logicArray[fn]);
      MPE_Fill_rectangle (g, x + 4, 44, 7, 7, MPE_AQUAMARINE);
      MPE_Fill_circle (g, x + 7, 72, 4, MPE_AQUAMARINE);
      MPE_Draw_point (g, x + 7, 97, MPE_AQUAMARINE);
      MPE_Draw_logic (g, MPE_LOGIC_COPY);
      px (x + 5, 45, rop (fn, src, dst));
      px (x + 10, 50, rop (fn, src, dst));
      px (x + 1, 41, dst);
      px (x + 7, 72, rop (fn, src, dst));
      px (x + 1, 66, dst);
      px (x + 7, 97, rop (fn, src, dst));
      px (x + 8, 97, dst);
    }
  /* XOR twice restores what was there. */
  MPE_Fill_rectangle (g, 340, 40, 20, 20, MPE_PINK);
  MPE_Draw_logic (g, MPE_LOGIC_XOR);
  MPE_Fill_circle (g, 350, 50, 8, MPE_BLUE);
  MPE_Draw_line (g, 340, 45, 359, 45, MPE_GREEN);
  MPE_Fill_circle (g, 350, 50, 8, MPE_BLUE);
  MPE_Draw_line (g, 340, 45, 359, 45, MPE_GREEN);
  MPE_Draw_logic (g, MPE_LOGIC_COPY);
  box ("none", 340, 40, 359, 59, rop (6, rgb[MPE_BLUE], rgb[MPE_PINK]));
  px (350, 50, rgb[MPE_PINK]);
  px (350, 45, rgb[MPE_PINK]);

  /* Shapes. */
  MPE_Fill_circle (g, 50, 150, 20, MPE_RED);
  px (50, 150, rgb[MPE_RED]);
  px (50, 132, rgb[MPE_RED]);
  px (50, 127, 0xffffff);
  MPE_Draw_circle (g, 120, 150, 20, MPE_BLUE);
  px (120, 150, 0xffffff);
  box ("any", 115, 128, 125, 133, rgb[MPE_BLUE]);
  box ("any", 138, 145, 143, 155, rgb[MPE_BLUE]);
  MPE_Draw_line (g, 170, 130, 230, 130, MPE_BLACK);
  px (170, 130, 0);
  px (200, 130, 0);
  px (230, 130, 0);
  px (231, 130, 0xffffff);
  px (169, 130, 0xffffff);
  px (200, 131, 0xffffff);
  MPE_Line_thickness (g, 5);
  MPE_Draw_line (g, 170, 150, 230, 150, MPE_MAROON);
  MPE_Line_thickness (g, 0);
  px (200, 148, rgb[MPE_MAROON]);
  px (200, 152, rgb[MPE_MAROON]);
  px (200, 146, 0xffffff);
  px (200, 155, 0xffffff);
  MPE_Draw_dashes (g, 4);
  MPE_Draw_line (g, 170, 170, 230, 170, MPE_BROWN);
  MPE_Draw_dashes (g, 0);
  box ("any", 170, 170, 230, 170, rgb[MPE_BROWN]);
  box ("any", 172, 170, 228, 170, 0xffffff);
  MPE_Draw_string (g, 250, 150, MPE_FORESTGREEN, "MPE");
  box ("any", 248, 135, 290, 153, rgb[MPE_FORESTGREEN]);
  MPE_Draw_point (g, 300, 160, MPE_ORANGE);
  px (300, 160, rgb[MPE_ORANGE]);
  MPE_Point pts[16];
  for (int c = 0; c < 16; c++)
    {
      pts[c].x = 250 + 4 * c;
      pts[c].y = 180;
      pts[c].c = (MPE_Color) c;
      px (250 + 4 * c, 180, rgb[c]);
    }
  MPE_Draw_points (g, pts, 16);

  /* Colours added by value and as an array. */
  MPE_Color orange2 = MPE_WHITE, arr[4];
  int nc = 0;
  check (MPE_Add_RGB_color (g, 65535, 32768, 0, &orange2) == MPE_SUCCESS
         && orange2 == 16, "MPE_Add_RGB_color gives colour 16");
  check (MPE_Num_colors (g, &nc) == MPE_SUCCESS && nc == 17,
         "MPE_Num_colors counts it");
  MPE_Fill_rectangle (g, 330, 120, 20, 20, orange2);
  px (340, 130, 0xff8000);
  check (MPE_Make_color_array (g, 4, arr) == MPE_SUCCESS && arr[0] == 2
         && arr[3] == 5, "MPE_Make_color_array gives colours 2..5");
  MPE_Fill_rectangle (g, 360, 120, 15, 15, arr[2]);   /* hue 180 */
  MPE_Fill_rectangle (g, 360, 140, 15, 15, arr[0]);   /* hue 0 */
  MPE_Fill_rectangle (g, 360, 160, 15, 15, MPE_BLACK);
  px (365, 125, 0x00ffff);
  px (365, 145, 0xff0000);
  px (365, 165, 0x000000);

  /* Bad calls. */
  int x, y, b, p;
  int local;
  check (MPE_Draw_point (NULL, 1, 1, MPE_RED) == MPE_ERR_BAD_ARGS,
         "a NULL handle is MPE_ERR_BAD_ARGS");
  check (MPE_Update ((MPE_XGraph) &local) == MPE_ERR_BAD_ARGS,
         "a stray pointer is MPE_ERR_BAD_ARGS");
  check (MPE_Draw_point (g, 1, 1, (MPE_Color) 999) == MPE_ERR_BAD_ARGS,
         "an undefined colour is MPE_ERR_BAD_ARGS");
  check (MPE_Draw_logic (g, 16) == MPE_ERR_BAD_ARGS,
         "logic 16 is MPE_ERR_BAD_ARGS");
  check (MPE_Fill_rectangle (g, 0, 0, -1, 5, MPE_RED) == MPE_ERR_BAD_ARGS,
         "a negative width is MPE_ERR_BAD_ARGS");
  check (MPE_CaptureFile (g, "x", 0) == MPE_ERR_BAD_ARGS,
         "capture frequency 0 is MPE_ERR_BAD_ARGS");
  check (MPE_Get_drag_region (g, 9, MPE_DRAG_RECT, &x, &y, &b, &p)
         == MPE_ERR_BAD_ARGS, "button 9 is MPE_ERR_BAD_ARGS");
  check (MPE_Xerror (MPE_ERR_BAD_ARGS, "gshapes") == MPE_ERR_BAD_ARGS,
         "MPE_Xerror returns its code");
  if (headless)
    {
      check (MPE_Get_mouse_press (g, &x, &y, &b) == MPE_ERR_NOXCONNECT,
             "headless: MPE_Get_mouse_press is MPE_ERR_NOXCONNECT");
      check (MPE_Iget_mouse_press (g, &x, &y, &b, &p) == MPE_ERR_NOXCONNECT
             && p == 0, "headless: MPE_Iget_mouse_press: nothing pressed");
      check (MPE_Get_drag_region (g, 1, MPE_DRAG_RECT, &x, &y, &b, &p)
             == MPE_ERR_NOXCONNECT,
             "headless: MPE_Get_drag_region is MPE_ERR_NOXCONNECT");
    }
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (argc < 2)
    {
      fprintf (stderr, "usage: gshapes PREFIX [headless]\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  int headless = argc > 2 && strcmp (argv[2], "headless") == 0;
  char name[4096];
  snprintf (name, sizeof name, "%s.expect.%d", argv[1], rank);
  ex = fopen (name, "w");
  if (!ex)
    MPI_Abort (MPI_COMM_WORLD, 2);

  MPE_XGraph g = NULL;
  check (MPE_Open_graphics (&g, MPI_COMM_WORLD, NULL, -1, -1, 0, 300, 0)
         == MPE_ERR_BAD_ARGS && g == NULL,
         "a zero width is MPE_ERR_BAD_ARGS on every rank");
  int rc = MPE_Open_graphics (&g, MPI_COMM_WORLD, NULL, -1, -1, 400, 300,
                              MPE_GRAPH_INDEPENDENT);
  check (rc == MPE_SUCCESS && g != NULL, "MPE_Open_graphics");
  if (rc != MPE_SUCCESS)
    {
      /* Collective: every rank knows, so all can finish cleanly. */
      printf ("open failed %d\n", rc);
      MPI_Finalize ();
      return 1;
    }
  if (rank == 0)
    rank0 (g, headless);
  else
    {
      int x = 10 + 40 * ((rank - 1) % 9), y = 220 + 40 * ((rank - 1) / 9);
      MPE_Color c = (MPE_Color) (2 + rank % 14);
      MPE_Fill_rectangle (g, x, y, 30, 30, c);
      MPE_Draw_logic (g, MPE_LOGIC_XOR);
      for (int i = 0; i < 2; i++)
        MPE_Draw_line (g, x, y + 10, x + 29, y + 10, MPE_BLUE);
      MPE_Draw_logic (g, MPE_LOGIC_COPY);
      px (x + 15, y + 15, rgb[c]);
      px (x + 15, y + 10, rgb[c]);
      px (x + 29, y + 29, rgb[c]);
    }
  check (MPE_Update (g) == MPE_SUCCESS, "MPE_Update");
  fclose (ex);
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    {
      check (MPE_CaptureFile (g, argv[1], 1) == MPE_SUCCESS,
             "MPE_CaptureFile");
      check (MPE_Update (g) == MPE_SUCCESS, "MPE_Update with a capture");
    }
  MPI_Barrier (MPI_COMM_WORLD);
  check (MPE_Close_graphics (&g) == MPE_SUCCESS && g == NULL,
         "MPE_Close_graphics");
  check (MPE_Close_graphics (&g) == MPE_ERR_BAD_ARGS,
         "closing again is MPE_ERR_BAD_ARGS");
  MPI_Finalize ();
  return fails ? 1 : 0;
}

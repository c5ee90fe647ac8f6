/* SPDX-License-Identifier: BSD-3-Clause */
/* Fortran bindings of MPE graphics (gfortran names: lower case, one
   trailing underscore, string lengths after the arguments).  Handles are
   INTEGERs (mpe__graph_to_f); ierr is the last argument. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpe-graphics-internal.h"

#define FAPI __attribute__ ((visibility ("default")))
#define G(f) mpe__graph_from_f (*(f))

/* A blank-padded Fortran string as a C string (NULL if all blank). */
static char *
fstring (const char *s, size_t n)
{
  while (n && s[n - 1] == ' ')
    n--;
  if (!n)
    return NULL;
  char *c = malloc (n + 1);
  if (c)
    {
      memcpy (c, s, n);
      c[n] = '\0';
    }
  return c;
}

FAPI void mpe_open_graphics_ (MPI_Fint *graph, MPI_Fint *comm, char *display,
                              MPI_Fint *x, MPI_Fint *y, MPI_Fint *w,
                              MPI_Fint *h, MPI_Fint *iscoll, MPI_Fint *ierr,
                              size_t dlen);
FAPI void mpe_close_graphics_ (MPI_Fint *graph, MPI_Fint *ierr);
FAPI void mpe_update_ (MPI_Fint *graph, MPI_Fint *ierr);
FAPI void mpe_draw_point_ (MPI_Fint *graph, MPI_Fint *x, MPI_Fint *y,
                           MPI_Fint *c, MPI_Fint *ierr);
FAPI void mpe_draw_points_ (MPI_Fint *graph, MPI_Fint *pts, MPI_Fint *n,
                            MPI_Fint *ierr);
FAPI void mpe_draw_line_ (MPI_Fint *graph, MPI_Fint *x1, MPI_Fint *y1,
                          MPI_Fint *x2, MPI_Fint *y2, MPI_Fint *c,
                          MPI_Fint *ierr);
FAPI void mpe_draw_circle_ (MPI_Fint *graph, MPI_Fint *cx, MPI_Fint *cy,
                            MPI_Fint *r, MPI_Fint *c, MPI_Fint *ierr);
FAPI void mpe_fill_circle_ (MPI_Fint *graph, MPI_Fint *cx, MPI_Fint *cy,
                            MPI_Fint *r, MPI_Fint *c, MPI_Fint *ierr);
FAPI void mpe_fill_rectangle_ (MPI_Fint *graph, MPI_Fint *x, MPI_Fint *y,
                               MPI_Fint *w, MPI_Fint *h, MPI_Fint *c,
                               MPI_Fint *ierr);
FAPI void mpe_draw_string_ (MPI_Fint *graph, MPI_Fint *x, MPI_Fint *y,
                            MPI_Fint *c, char *text, MPI_Fint *ierr,
                            size_t tlen);
FAPI void mpe_draw_logic_ (MPI_Fint *graph, MPI_Fint *fn, MPI_Fint *ierr);
FAPI void mpe_line_thickness_ (MPI_Fint *graph, MPI_Fint *t, MPI_Fint *ierr);
FAPI void mpe_draw_dashes_ (MPI_Fint *graph, MPI_Fint *d, MPI_Fint *ierr);
FAPI void mpe_dash_offset_ (MPI_Fint *graph, MPI_Fint *o, MPI_Fint *ierr);
FAPI void mpe_num_colors_ (MPI_Fint *graph, MPI_Fint *nc, MPI_Fint *ierr);
FAPI void mpe_make_color_array_ (MPI_Fint *graph, MPI_Fint *n,
                                 MPI_Fint *array, MPI_Fint *ierr);
FAPI void mpe_add_rgb_color_ (MPI_Fint *graph, MPI_Fint *r, MPI_Fint *g,
                              MPI_Fint *b, MPI_Fint *mapping,
                              MPI_Fint *ierr);
FAPI void mpe_capturefile_ (MPI_Fint *graph, char *fname, MPI_Fint *freq,
                            MPI_Fint *ierr, size_t flen);
FAPI void mpe_get_mouse_press_ (MPI_Fint *graph, MPI_Fint *x, MPI_Fint *y,
                                MPI_Fint *button, MPI_Fint *ierr);
FAPI void mpe_iget_mouse_press_ (MPI_Fint *graph, MPI_Fint *x, MPI_Fint *y,
                                 MPI_Fint *button, MPI_Fint *pressed,
                                 MPI_Fint *ierr);
FAPI void mpe_get_drag_region_ (MPI_Fint *graph, MPI_Fint *button,
                                MPI_Fint *visual, MPI_Fint *x1,
                                MPI_Fint *y1, MPI_Fint *x2, MPI_Fint *y2,
                                MPI_Fint *ierr);
FAPI void mpe_get_drag_region_fixratio_ (MPI_Fint *graph, MPI_Fint *button,
                                         double *ratio, MPI_Fint *x1,
                                         MPI_Fint *y1, MPI_Fint *x2,
                                         MPI_Fint *y2, MPI_Fint *ierr);

FAPI void
mpe_open_graphics_ (MPI_Fint *graph, MPI_Fint *comm, char *display,
                    MPI_Fint *x, MPI_Fint *y, MPI_Fint *w, MPI_Fint *h,
                    MPI_Fint *iscoll, MPI_Fint *ierr, size_t dlen)
{
  MPE_XGraph g = NULL;
  char *d = fstring (display, dlen);
  *ierr = MPE_Open_graphics (&g, MPI_Comm_f2c (*comm), d, *x, *y, *w, *h,
                             *iscoll);
  free (d);
  *graph = mpe__graph_to_f (g);
}

FAPI void
mpe_close_graphics_ (MPI_Fint *graph, MPI_Fint *ierr)
{
  MPE_XGraph g = G (graph);
  *ierr = MPE_Close_graphics (&g);
  if (*ierr == MPE_SUCCESS)
    *graph = 0;
}

FAPI void
mpe_update_ (MPI_Fint *graph, MPI_Fint *ierr)
{
  *ierr = MPE_Update (G (graph));
}

FAPI void
mpe_draw_point_ (MPI_Fint *graph, MPI_Fint *x, MPI_Fint *y, MPI_Fint *c,
                 MPI_Fint *ierr)
{
  *ierr = MPE_Draw_point (G (graph), *x, *y, (MPE_Color) *c);
}

/* pts is INTEGER (3, n): x, y, colour per point. */
FAPI void
mpe_draw_points_ (MPI_Fint *graph, MPI_Fint *pts, MPI_Fint *n,
                  MPI_Fint *ierr)
{
  if (*n < 0)
    {
      *ierr = MPE_ERR_BAD_ARGS;
      return;
    }
  MPE_Point *p = malloc (sizeof *p * (size_t) (*n ? *n : 1));
  if (!p)
    {
      *ierr = MPE_ERR_LOW_MEM;
      return;
    }
  for (MPI_Fint i = 0; i < *n; i++)
    {
      p[i].x = pts[3 * i];
      p[i].y = pts[3 * i + 1];
      p[i].c = (MPE_Color) pts[3 * i + 2];
    }
  *ierr = MPE_Draw_points (G (graph), p, *n);
  free (p);
}

FAPI void
mpe_draw_line_ (MPI_Fint *graph, MPI_Fint *x1, MPI_Fint *y1, MPI_Fint *x2,
                MPI_Fint *y2, MPI_Fint *c, MPI_Fint *ierr)
{
  *ierr = MPE_Draw_line (G (graph), *x1, *y1, *x2, *y2, (MPE_Color) *c);
}

FAPI void
mpe_draw_circle_ (MPI_Fint *graph, MPI_Fint *cx, MPI_Fint *cy, MPI_Fint *r,
                  MPI_Fint *c, MPI_Fint *ierr)
{
  *ierr = MPE_Draw_circle (G (graph), *cx, *cy, *r, (MPE_Color) *c);
}

FAPI void
mpe_fill_circle_ (MPI_Fint *graph, MPI_Fint *cx, MPI_Fint *cy, MPI_Fint *r,
                  MPI_Fint *c, MPI_Fint *ierr)
{
  *ierr = MPE_Fill_circle (G (graph), *cx, *cy, *r, (MPE_Color) *c);
}

FAPI void
mpe_fill_rectangle_ (MPI_Fint *graph, MPI_Fint *x, MPI_Fint *y, MPI_Fint *w,
                     MPI_Fint *h, MPI_Fint *c, MPI_Fint *ierr)
{
  *ierr = MPE_Fill_rectangle (G (graph), *x, *y, *w, *h, (MPE_Color) *c);
}

FAPI void
mpe_draw_string_ (MPI_Fint *graph, MPI_Fint *x, MPI_Fint *y, MPI_Fint *c,
                  char *text, MPI_Fint *ierr, size_t tlen)
{
  char *t = fstring (text, tlen);
  *ierr = MPE_Draw_string (G (graph), *x, *y, (MPE_Color) *c, t ? t : "");
  free (t);
}

FAPI void
mpe_draw_logic_ (MPI_Fint *graph, MPI_Fint *fn, MPI_Fint *ierr)
{
  *ierr = MPE_Draw_logic (G (graph), *fn);
}

FAPI void
mpe_line_thickness_ (MPI_Fint *graph, MPI_Fint *t, MPI_Fint *ierr)
{
  *ierr = MPE_Line_thickness (G (graph), *t);
}

FAPI void
mpe_draw_dashes_ (MPI_Fint *graph, MPI_Fint *d, MPI_Fint *ierr)
{
  *ierr = MPE_Draw_dashes (G (graph), *d);
}

FAPI void
mpe_dash_offset_ (MPI_Fint *graph, MPI_Fint *o, MPI_Fint *ierr)
{
  *ierr = MPE_Dash_offset (G (graph), *o);
}

FAPI void
mpe_num_colors_ (MPI_Fint *graph, MPI_Fint *nc, MPI_Fint *ierr)
{
  int n = 0;
  *ierr = MPE_Num_colors (G (graph), &n);
  *nc = n;
}

FAPI void
mpe_make_color_array_ (MPI_Fint *graph, MPI_Fint *n, MPI_Fint *array,
                       MPI_Fint *ierr)
{
  MPE_Color c[256];
  if (*n < 0 || *n > 254)
    {
      *ierr = MPE_ERR_BAD_ARGS;
      return;
    }
  *ierr = MPE_Make_color_array (G (graph), *n, c);
  for (MPI_Fint i = 0; *ierr == MPE_SUCCESS && i < *n; i++)
    array[i] = c[i];
}

FAPI void
mpe_add_rgb_color_ (MPI_Fint *graph, MPI_Fint *r, MPI_Fint *g, MPI_Fint *b,
                    MPI_Fint *mapping, MPI_Fint *ierr)
{
  MPE_Color m = MPE_WHITE;
  *ierr = MPE_Add_RGB_color (G (graph), *r, *g, *b, &m);
  if (*ierr == MPE_SUCCESS)
    *mapping = m;
}

FAPI void
mpe_capturefile_ (MPI_Fint *graph, char *fname, MPI_Fint *freq,
                  MPI_Fint *ierr, size_t flen)
{
  char *f = fstring (fname, flen);
  *ierr = MPE_CaptureFile (G (graph), f, *freq);
  free (f);
}

FAPI void
mpe_get_mouse_press_ (MPI_Fint *graph, MPI_Fint *x, MPI_Fint *y,
                      MPI_Fint *button, MPI_Fint *ierr)
{
  int cx = 0, cy = 0, cb = 0;
  *ierr = MPE_Get_mouse_press (G (graph), &cx, &cy, &cb);
  *x = cx;
  *y = cy;
  *button = cb;
}

FAPI void
mpe_iget_mouse_press_ (MPI_Fint *graph, MPI_Fint *x, MPI_Fint *y,
                       MPI_Fint *button, MPI_Fint *pressed, MPI_Fint *ierr)
{
  int cx = 0, cy = 0, cb = 0, cp = 0;
  *ierr = MPE_Iget_mouse_press (G (graph), &cx, &cy, &cb, &cp);
  *pressed = cp;
  if (cp)
    {
      *x = cx;
      *y = cy;
      *button = cb;
    }
}

FAPI void
mpe_get_drag_region_ (MPI_Fint *graph, MPI_Fint *button, MPI_Fint *visual,
                      MPI_Fint *x1, MPI_Fint *y1, MPI_Fint *x2, MPI_Fint *y2,
                      MPI_Fint *ierr)
{
  int a = 0, b = 0, c = 0, d = 0;
  *ierr = MPE_Get_drag_region (G (graph), *button, *visual, &a, &b, &c, &d);
  *x1 = a;
  *y1 = b;
  *x2 = c;
  *y2 = d;
}

FAPI void
mpe_get_drag_region_fixratio_ (MPI_Fint *graph, MPI_Fint *button,
                               double *ratio, MPI_Fint *x1, MPI_Fint *y1,
                               MPI_Fint *x2, MPI_Fint *y2, MPI_Fint *ierr)
{
  int a = 0, b = 0, c = 0, d = 0;
  *ierr = MPE_Get_drag_region_fixratio (G (graph), *button, *ratio, &a, &b,
                                        &c, &d);
  *x1 = a;
  *y1 = b;
  *x2 = c;
  *y2 = d;
}

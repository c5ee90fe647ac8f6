/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpixels PNG EXPECT...: checks pixels of a captured frame against lines
 *   px X Y RRGGBB        the pixel has that colour
 *   any X0 Y0 X1 Y1 RRGGBB   some pixel of [X0,X1] x [Y0,Y1] has it
 *   none X0 Y0 X1 Y1 RRGGBB  no pixel there has it
 * Prints each failure; exit 0 if all hold (and there was at least one).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cairo.h>

static cairo_surface_t *img;
static int W, H;

static uint32_t
at (int x, int y)
{
  if (x < 0 || y < 0 || x >= W || y >= H)
    return 0xffffffffu;
  const uint8_t *d = cairo_image_surface_get_data (img);
  int stride = cairo_image_surface_get_stride (img);
  return *(const uint32_t *) (d + (size_t) y * (size_t) stride
                              + 4 * (size_t) x) & 0xffffffu;
}

static int
count (int x0, int y0, int x1, int y1, uint32_t rgb)
{
  int n = 0;
  for (int y = y0; y <= y1; y++)
    for (int x = x0; x <= x1; x++)
      n += at (x, y) == rgb;
  return n;
}

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: gpixels PNG EXPECT...\n");
      return 2;
    }
  img = cairo_image_surface_create_from_png (argv[1]);
  if (cairo_surface_status (img))
    {
      fprintf (stderr, "gpixels: cannot read %s\n", argv[1]);
      return 2;
    }
  W = cairo_image_surface_get_width (img);
  H = cairo_image_surface_get_height (img);
  int checked = 0, failed = 0;
  for (int a = 2; a < argc; a++)
    {
      FILE *f = fopen (argv[a], "r");
      if (!f)
        {
          fprintf (stderr, "gpixels: cannot read %s\n", argv[a]);
          return 2;
        }
      char line[512], kind[8];
      while (fgets (line, sizeof line, f))
        {
          int x0, y0, x1, y1;
          unsigned rgb;
          int ok;
          if (sscanf (line, "px %d %d %x", &x0, &y0, &rgb) == 3
              && strncmp (line, "px ", 3) == 0)
            ok = at (x0, y0) == rgb;
          else if (sscanf (line, "%7s %d %d %d %d %x", kind, &x0, &y0, &x1,
                           &y1, &rgb) == 6
                   && (strcmp (kind, "any") == 0
                       || strcmp (kind, "none") == 0))
            ok = (count (x0, y0, x1, y1, rgb) > 0) == (kind[0] == 'a');
          else
            continue;
          checked++;
          if (!ok)
            {
              failed++;
              printf ("FAIL %s", line);
              if (line[0] == 'p')
                printf ("     found %06x\n", at (x0, y0));
            }
        }
      fclose (f);
    }
  printf ("checked %d, failed %d\n", checked, failed);
  return checked > 0 && failed == 0 ? 0 : 1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pngpix FILE X Y [X Y ...]: prints the colour of each pixel as rrggbb,
 * one per line.  pngpix FILE --count rrggbb: number of pixels of exactly
 * that colour.  pngpix FILE --rows rrggbb: the first and last pixel row
 * (y) holding that colour, or "none".  pngpix FILE --cols rrggbb Y: the
 * first and last x of that colour on pixel row Y, and how many, or
 * "none".  pngpix FILE --size: "W H".  Reads PNGs through cairo.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: pngpix FILE X Y ... | FILE --count|--rows RRGGBB\n");
      return 2;
    }
  cairo_surface_t *s = cairo_image_surface_create_from_png (argv[1]);
  if (cairo_surface_status (s) != CAIRO_STATUS_SUCCESS)
    {
      fprintf (stderr, "pngpix: %s: %s\n", argv[1],
               cairo_status_to_string (cairo_surface_status (s)));
      return 1;
    }
  cairo_surface_flush (s);
  int w = cairo_image_surface_get_width (s);
  int h = cairo_image_surface_get_height (s);
  int stride = cairo_image_surface_get_stride (s);
  const unsigned char *d = cairo_image_surface_get_data (s);
  if (strcmp (argv[2], "--size") == 0 && argc == 3)
    {
      printf ("%d %d\n", w, h);
      return 0;
    }
  if (strcmp (argv[2], "--count") == 0 && argc == 4)
    {
      unsigned long want = strtoul (argv[3], NULL, 16), n = 0;
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          if ((*(const unsigned *) (d + (size_t) y * stride + 4 * x)
               & 0xffffff) == want)
            n++;
      printf ("%lu\n", n);
      return 0;
    }
  if (strcmp (argv[2], "--rows") == 0 && argc == 4)
    {
      unsigned long want = strtoul (argv[3], NULL, 16);
      int first = -1, last = -1;
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          if ((*(const unsigned *) (d + (size_t) y * stride + 4 * x)
               & 0xffffff) == want)
            {
              if (first < 0)
                first = y;
              last = y;
              break;
            }
      if (first < 0)
        printf ("none\n");
      else
        printf ("%d %d\n", first, last);
      return 0;
    }
  if (strcmp (argv[2], "--cols") == 0 && argc == 5)
    {
      unsigned long want = strtoul (argv[3], NULL, 16);
      int y = atoi (argv[4]), first = -1, last = -1, n = 0;
      for (int x = 0; y >= 0 && y < h && x < w; x++)
        if ((*(const unsigned *) (d + (size_t) y * stride + 4 * x)
             & 0xffffff) == want)
          {
            if (first < 0)
              first = x;
            last = x;
            n++;
          }
      if (first < 0)
        printf ("none\n");
      else
        printf ("%d %d %d\n", first, last, n);
      return 0;
    }
  for (int i = 2; i + 1 < argc; i += 2)
    {
      int x = atoi (argv[i]), y = atoi (argv[i + 1]);
      if (x < 0 || y < 0 || x >= w || y >= h)
        {
          printf ("outside\n");
          continue;
        }
      unsigned px = *(const unsigned *) (d + (size_t) y * stride + 4 * x);
      printf ("%06x\n", px & 0xffffff);
    }
  cairo_surface_destroy (s);
  return 0;
}

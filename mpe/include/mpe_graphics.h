/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPE graphics: every process of a communicator draws into one shared
 * window (MPE2's mpe_graphics.h API, source compatible).  Link with
 * -lmpe (mpecc -graphics).  The window is a separate process, mpegraph:
 * ranks stream their drawing to it and need no X libraries; without a
 * display it draws offscreen (docs/GRAPHICS.md).
 */
#ifndef MPE_GRAPHICS_H
#define MPE_GRAPHICS_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void *MPE_XGraph;                 /* opaque handle */

typedef enum
{
  MPE_WHITE = 0, MPE_BLACK = 1, MPE_RED = 2, MPE_YELLOW = 3, MPE_GREEN = 4,
  MPE_CYAN = 5, MPE_BLUE = 6, MPE_MAGENTA = 7, MPE_AQUAMARINE = 8,
  MPE_FORESTGREEN = 9, MPE_ORANGE = 10, MPE_MAROON = 11, MPE_BROWN = 12,
  MPE_PINK = 13, MPE_CORAL = 14, MPE_GRAY = 15
} MPE_Color;

typedef struct
{
  int x, y;
  MPE_Color c;
} MPE_Point;

#ifndef MPE_SUCCESS
#define MPE_SUCCESS        0   /* successful operation */
#define MPE_ERR_NOXCONNECT 1   /* no window could be opened or it is gone */
#define MPE_ERR_BAD_ARGS   2   /* invalid handle or argument */
#define MPE_ERR_LOW_MEM    3   /* out of memory, or the colour table full */
#endif

#define MPE_GRAPH_INDEPDENT   0   /* (sic, MPE2's spelling) */
#define MPE_GRAPH_INDEPENDENT 0
#define MPE_GRAPH_COLLECTIVE  1

/* Raster operations: new pixel from the drawn one (src) and the one on
 * the window (dst); the values are X11's GX codes. */
extern int MPE_logicArray[16];
#define MPE_LOGIC_CLEAR        (MPE_logicArray[0])   /* 0 */
#define MPE_LOGIC_AND          (MPE_logicArray[1])   /* src & dst */
#define MPE_LOGIC_ANDREVERSE   (MPE_logicArray[2])   /* src & ~dst */
#define MPE_LOGIC_COPY         (MPE_logicArray[3])   /* src */
#define MPE_LOGIC_ANDINVERTED  (MPE_logicArray[4])   /* ~src & dst */
#define MPE_LOGIC_NOOP         (MPE_logicArray[5])   /* dst */
#define MPE_LOGIC_XOR          (MPE_logicArray[6])   /* src ^ dst */
#define MPE_LOGIC_OR           (MPE_logicArray[7])   /* src | dst */
#define MPE_LOGIC_NOR          (MPE_logicArray[8])   /* ~(src | dst) */
#define MPE_LOGIC_EQUIV        (MPE_logicArray[9])   /* ~src ^ dst */
#define MPE_LOGIC_INVERT       (MPE_logicArray[10])  /* ~dst */
#define MPE_LOGIC_ORREVERSE    (MPE_logicArray[11])  /* src | ~dst */
#define MPE_LOGIC_COPYINVERTED (MPE_logicArray[12])  /* ~src */
#define MPE_LOGIC_ORINVERTED   (MPE_logicArray[13])  /* ~src | dst */
#define MPE_LOGIC_NAND         (MPE_logicArray[14])  /* ~(src & dst) */
#define MPE_LOGIC_SET          (MPE_logicArray[15])  /* all ones */

extern int MPE_buttonArray[5];
#define MPE_BUTTON1 (MPE_buttonArray[0])
#define MPE_BUTTON2 (MPE_buttonArray[1])
#define MPE_BUTTON3 (MPE_buttonArray[2])
#define MPE_BUTTON4 (MPE_buttonArray[3])
#define MPE_BUTTON5 (MPE_buttonArray[4])

#define MPE_DRAG_NONE            0
#define MPE_DRAG_RECT            1
#define MPE_DRAG_LINE            2
#define MPE_DRAG_CIRCLE_RADIUS   3
#define MPE_DRAG_CIRCLE_DIAMETER 4
#define MPE_DRAG_CIRCLE_BBOX     5
#define MPE_DRAG_OVAL_BBOX       6
#define MPE_DRAG_SQUARE          7

int MPE_Open_graphics (MPE_XGraph *handle, MPI_Comm comm, char *display,
                       int x, int y, int w, int h, int is_collective);
int MPE_Close_graphics (MPE_XGraph *handle);
int MPE_Update (MPE_XGraph handle);
int MPE_Draw_point (MPE_XGraph handle, int x, int y, MPE_Color color);
int MPE_Draw_points (MPE_XGraph handle, MPE_Point *points, int npoints);
int MPE_Draw_line (MPE_XGraph handle, int x1, int y1, int x2, int y2,
                   MPE_Color color);
int MPE_Draw_circle (MPE_XGraph handle, int centerx, int centery,
                     int radius, MPE_Color color);
int MPE_Fill_circle (MPE_XGraph handle, int centerx, int centery,
                     int radius, MPE_Color color);
int MPE_Fill_rectangle (MPE_XGraph handle, int x, int y, int w, int h,
                        MPE_Color color);
int MPE_Draw_string (MPE_XGraph handle, int x, int y, MPE_Color color,
                     char *string);
int MPE_Draw_logic (MPE_XGraph handle, int function);
int MPE_Line_thickness (MPE_XGraph handle, int thickness);
int MPE_Draw_dashes (MPE_XGraph handle, int dashlen);
int MPE_Dash_offset (MPE_XGraph handle, int offset);
int MPE_Num_colors (MPE_XGraph handle, int *nc);
int MPE_Make_color_array (MPE_XGraph handle, int ncolors, MPE_Color array[]);
int MPE_Add_RGB_color (MPE_XGraph handle, int red, int green, int blue,
                       MPE_Color *mapping);
int MPE_CaptureFile (MPE_XGraph handle, char *fname, int freq);
int MPE_Xerror (int returnVal, const char *functionName);
int MPE_Get_mouse_press (MPE_XGraph handle, int *x, int *y, int *button);
int MPE_Iget_mouse_press (MPE_XGraph handle, int *x, int *y, int *button,
                          int *wasPressed);
int MPE_Get_drag_region (MPE_XGraph handle, int button, int dragVisual,
                         int *pressx, int *pressy, int *releasex,
                         int *releasey);
int MPE_Get_drag_region_fixratio (MPE_XGraph handle, int button,
                                  double ratio, int *pressx, int *pressy,
                                  int *releasex, int *releasey);

#ifdef __cplusplus
}
#endif

#endif

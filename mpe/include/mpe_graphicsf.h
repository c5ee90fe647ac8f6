! SPDX-License-Identifier: BSD-3-Clause
! MPE graphics for Fortran (fixed or free form): include 'mpe_graphicsf.h'
! Handles are INTEGERs; every subroutine ends with an INTEGER ierr
! (MPE_SUCCESS 0, MPE_ERR_NOXCONNECT 1, MPE_ERR_BAD_ARGS 2,
! MPE_ERR_LOW_MEM 3).  Points for MPE_DRAW_POINTS: INTEGER (3, n), each
! column x, y, colour.
      integer MPE_WHITE, MPE_BLACK, MPE_RED, MPE_YELLOW, MPE_GREEN
      integer MPE_CYAN, MPE_BLUE, MPE_MAGENTA, MPE_AQUAMARINE
      integer MPE_FORESTGREEN, MPE_ORANGE, MPE_MAROON, MPE_BROWN
      integer MPE_PINK, MPE_CORAL, MPE_GRAY
      parameter (MPE_WHITE = 0, MPE_BLACK = 1, MPE_RED = 2)
      parameter (MPE_YELLOW = 3, MPE_GREEN = 4, MPE_CYAN = 5)
      parameter (MPE_BLUE = 6, MPE_MAGENTA = 7, MPE_AQUAMARINE = 8)
      parameter (MPE_FORESTGREEN = 9, MPE_ORANGE = 10)
      parameter (MPE_MAROON = 11, MPE_BROWN = 12, MPE_PINK = 13)
      parameter (MPE_CORAL = 14, MPE_GRAY = 15)
      integer MPE_LOGIC_CLEAR, MPE_LOGIC_AND, MPE_LOGIC_ANDREVERSE
      integer MPE_LOGIC_COPY, MPE_LOGIC_ANDINVERTED, MPE_LOGIC_NOOP
      integer MPE_LOGIC_XOR, MPE_LOGIC_OR, MPE_LOGIC_NOR
      integer MPE_LOGIC_EQUIV, MPE_LOGIC_INVERT, MPE_LOGIC_ORREVERSE
      integer MPE_LOGIC_COPYINVERTED, MPE_LOGIC_ORINVERTED
      integer MPE_LOGIC_NAND, MPE_LOGIC_SET
      parameter (MPE_LOGIC_CLEAR = 0, MPE_LOGIC_AND = 1)
      parameter (MPE_LOGIC_ANDREVERSE = 2, MPE_LOGIC_COPY = 3)
      parameter (MPE_LOGIC_ANDINVERTED = 4, MPE_LOGIC_NOOP = 5)
      parameter (MPE_LOGIC_XOR = 6, MPE_LOGIC_OR = 7)
      parameter (MPE_LOGIC_NOR = 8, MPE_LOGIC_EQUIV = 9)
      parameter (MPE_LOGIC_INVERT = 10, MPE_LOGIC_ORREVERSE = 11)
      parameter (MPE_LOGIC_COPYINVERTED = 12)
      parameter (MPE_LOGIC_ORINVERTED = 13, MPE_LOGIC_NAND = 14)
      parameter (MPE_LOGIC_SET = 15)
      integer MPE_BUTTON1, MPE_BUTTON2, MPE_BUTTON3, MPE_BUTTON4
      integer MPE_BUTTON5
      parameter (MPE_BUTTON1 = 1, MPE_BUTTON2 = 2, MPE_BUTTON3 = 3)
      parameter (MPE_BUTTON4 = 4, MPE_BUTTON5 = 5)
      integer MPE_DRAG_NONE, MPE_DRAG_RECT, MPE_DRAG_LINE
      integer MPE_DRAG_CIRCLE_RADIUS, MPE_DRAG_CIRCLE_DIAMETER
      integer MPE_DRAG_CIRCLE_BBOX, MPE_DRAG_OVAL_BBOX
      integer MPE_DRAG_SQUARE
      parameter (MPE_DRAG_NONE = 0, MPE_DRAG_RECT = 1)
      parameter (MPE_DRAG_LINE = 2, MPE_DRAG_CIRCLE_RADIUS = 3)
      parameter (MPE_DRAG_CIRCLE_DIAMETER = 4)
      parameter (MPE_DRAG_CIRCLE_BBOX = 5, MPE_DRAG_OVAL_BBOX = 6)
      parameter (MPE_DRAG_SQUARE = 7)
      integer MPE_GRAPH_INDEPDENT, MPE_GRAPH_INDEPENDENT
      integer MPE_GRAPH_COLLECTIVE
      parameter (MPE_GRAPH_INDEPDENT = 0, MPE_GRAPH_INDEPENDENT = 0)
      parameter (MPE_GRAPH_COLLECTIVE = 1)
      integer MPE_SUCCESS, MPE_ERR_NOXCONNECT, MPE_ERR_BAD_ARGS
      integer MPE_ERR_LOW_MEM
      parameter (MPE_SUCCESS = 0, MPE_ERR_NOXCONNECT = 1)
      parameter (MPE_ERR_BAD_ARGS = 2, MPE_ERR_LOW_MEM = 3)

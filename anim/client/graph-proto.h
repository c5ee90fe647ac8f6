/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPE graphics wire protocol (docs/GRAPHICS.md is the description):
 * every rank of an MPE_Open_graphics communicator streams its drawing to
 * one window process (mpegraph) over the live-animation transport (same
 * addresses, token and 4-byte frame header as anim-proto.h), and the
 * window answers updates and mouse queries on the same connection.
 * Integers little-endian, signed ones two's complement.  No GLib, no MPI.
 */
#ifndef GRAPH_PROTO_H
#define GRAPH_PROTO_H

#include "anim/client/anim-proto.h"

#define GRAPH_PROTO_MAGIC  "MPEGRAF1"
#define GRAPH_FRAME_MAX    65535      /* the u16 length's limit */
#define GRAPH_MAX_SIZE     16384      /* window width and height */
#define GRAPH_TEXT_MAX     1024       /* bytes of one string */
#define GRAPH_PATH_MAX     4000       /* capture base name */

enum
{
  /* rank -> window */
  GRAPH_F_HELLO   = 1,  /* magic[8] token[32] i32 rank i32 size i32 w i32 h */
  GRAPH_F_GC      = 2,  /* i32 logic i32 thickness i32 dashlen i32 dashoff */
  GRAPH_F_POINTS  = 3,  /* n x (i32 x i32 y u32 rgb) */
  GRAPH_F_LINE    = 4,  /* i32 x1 y1 x2 y2 u32 rgb */
  GRAPH_F_CIRCLE  = 5,  /* i32 cx cy r u32 rgb u32 fill */
  GRAPH_F_RECT    = 6,  /* i32 x y w h u32 rgb (filled) */
  GRAPH_F_STRING  = 7,  /* i32 x y u32 rgb text (no NUL) */
  GRAPH_F_UPDATE  = 8,  /* u32 seq: answered by UPDATED */
  GRAPH_F_CAPTURE = 9,  /* i32 freq path (no NUL; empty: off) */
  GRAPH_F_MOUSE   = 10, /* i32 wait (1 block, 0 poll): answered by PRESS */
  GRAPH_F_DRAG    = 11, /* i32 button i32 visual i32 ratio x 1e6: DRAGGED */
  /* window -> rank */
  GRAPH_F_UPDATED = 32, /* u32 seq i32 status */
  GRAPH_F_PRESS   = 33, /* i32 status i32 pressed i32 x i32 y i32 button */
  GRAPH_F_DRAGGED = 34  /* i32 status i32 x1 y1 x2 y2 */
};

#define GRAPH_HELLO_LEN   (ANIM_FRAME_HDR + 8 + ANIM_TOKEN_LEN + 16)
#define GRAPH_GC_LEN      (ANIM_FRAME_HDR + 16)
#define GRAPH_POINT_SIZE  12
#define GRAPH_POINTS_MAX  ((GRAPH_FRAME_MAX - ANIM_FRAME_HDR) / GRAPH_POINT_SIZE)
#define GRAPH_LINE_LEN    (ANIM_FRAME_HDR + 20)
#define GRAPH_CIRCLE_LEN  (ANIM_FRAME_HDR + 20)
#define GRAPH_RECT_LEN    (ANIM_FRAME_HDR + 20)
#define GRAPH_STRING_MIN  (ANIM_FRAME_HDR + 12)
#define GRAPH_UPDATE_LEN  (ANIM_FRAME_HDR + 4)
#define GRAPH_CAPTURE_MIN (ANIM_FRAME_HDR + 4)
#define GRAPH_MOUSE_LEN   (ANIM_FRAME_HDR + 4)
#define GRAPH_DRAG_LEN    (ANIM_FRAME_HDR + 12)
#define GRAPH_UPDATED_LEN (ANIM_FRAME_HDR + 8)
#define GRAPH_PRESS_LEN   (ANIM_FRAME_HDR + 20)
#define GRAPH_DRAGGED_LEN (ANIM_FRAME_HDR + 20)

/* Reply status codes: the MPE_SUCCESS / MPE_ERR_* values of
 * mpe_graphics.h, which the client returns as they are. */
enum { GRAPH_OK = 0, GRAPH_ERR_NOWINDOW = 1, GRAPH_ERR_ARGS = 2,
       GRAPH_ERR_IO = 3 };

/* Drag visuals (MPE_DRAG_*); FIXRATIO is MPE_Get_drag_region_fixratio. */
enum { GRAPH_DRAG_NONE, GRAPH_DRAG_RECT, GRAPH_DRAG_LINE,
       GRAPH_DRAG_CIRCLE_RADIUS, GRAPH_DRAG_CIRCLE_DIAMETER,
       GRAPH_DRAG_CIRCLE_BBOX, GRAPH_DRAG_OVAL_BBOX, GRAPH_DRAG_SQUARE,
       GRAPH_DRAG_FIXRATIO };

#endif

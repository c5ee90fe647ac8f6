/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPE graphics, the rank side (docs/GRAPHICS.md).  MPE_Open_graphics
 * starts one window process (mpegraph) on rank 0 of the communicator, or
 * uses the one MPE_GRAPHICS_ADDR names; every rank connects to it with
 * the live-animation transport (anim/client/anim-addr.h) and streams its
 * drawing as frames (anim/client/graph-proto.h).  Drawing calls only
 * append to a per-handle buffer; MPE_Update sends it and waits until the
 * window has applied it, so what a rank drew is on the window (and in a
 * captured frame) when MPE_Update returns.  Colours are resolved here:
 * the wire carries 0xRRGGBB.  No X library on the ranks.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mpi.h>

#include "anim/client/anim-addr.h"
#include "anim/client/graph-proto.h"
#include "mpe-graphics-internal.h"

#define GAPI __attribute__ ((visibility ("default")))

#define MAX_GRAPHS   64
#define OUT_CAP      (2 * GRAPH_FRAME_MAX)
#define NCOLORS_MAX  256
#define START_MS     30000      /* window process start-up */
#define CONNECT_MS   10000

extern char **environ;

GAPI int MPE_logicArray[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                13, 14, 15 };
GAPI int MPE_buttonArray[5] = { 1, 2, 3, 4, 5 };

/* X11's rgb.txt values of MPE2's sixteen colour names. */
static const uint32_t base_colors[16] = {
  0xffffff, 0x000000, 0xff0000, 0xffff00, 0x00ff00, 0x00ffff, 0x0000ff,
  0xff00ff, 0x7fffd4, 0x228b22, 0xffa500, 0xb03060, 0xa52a2a, 0xffc0cb,
  0xff7f50, 0xbebebe
};

typedef struct
{
  int      fd;                  /* -1 once the window is gone */
  int      rank;
  pid_t    window;              /* the window process rank 0 started */
  uint8_t  out[OUT_CAP];
  size_t   len;
  uint32_t palette[NCOLORS_MAX];
  int      ncolors;
  int      logic, thickness, dashlen, dashoff;
  int      gc_dirty;
  uint32_t seq;
} graph_t;

static graph_t *graphs[MAX_GRAPHS];

static int update (graph_t *g);

static graph_t *
lookup (MPE_XGraph h)
{
  if (!h)
    return NULL;
  for (int i = 0; i < MAX_GRAPHS; i++)
    if (graphs[i] == h)
      return graphs[i];
  return NULL;
}

int
mpe__graph_to_f (MPE_XGraph h)
{
  for (int i = 0; h && i < MAX_GRAPHS; i++)
    if (graphs[i] == h)
      return i + 1;
  return 0;
}

MPE_XGraph
mpe__graph_from_f (int index)
{
  if (index < 1 || index > MAX_GRAPHS)
    return NULL;
  return graphs[index - 1];
}

/* ------------------------------------------------------------------ */
/* The connection                                                      */
/* ------------------------------------------------------------------ */

static void
lost (graph_t *g)
{
  if (g->fd >= 0)
    {
      close (g->fd);
      g->fd = -1;
      fprintf (stderr, "mpe graphics: rank %d: the window is gone; "
               "drawing is discarded from now on\n", g->rank);
    }
  g->len = 0;
}

static int
write_all (int fd, const uint8_t *p, size_t n)
{
  while (n)
    {
      ssize_t w = send (fd, p, n, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return -1;
      p += w;
      n -= (size_t) w;
    }
  return 0;
}

static int
read_all (int fd, uint8_t *p, size_t n)
{
  while (n)
    {
      ssize_t r = recv (fd, p, n, 0);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return -1;
      p += r;
      n -= (size_t) r;
    }
  return 0;
}

static int
flush (graph_t *g)
{
  if (g->fd < 0)
    return MPE_ERR_NOXCONNECT;
  if (g->len && write_all (g->fd, g->out, g->len) < 0)
    {
      lost (g);
      return MPE_ERR_NOXCONNECT;
    }
  g->len = 0;
  return MPE_SUCCESS;
}

/* Room for a frame of n bytes at the end of out[], its header written. */
static uint8_t *
frame (graph_t *g, size_t n, uint8_t type)
{
  if (g->len + n > OUT_CAP && flush (g) != MPE_SUCCESS)
    return NULL;
  if (g->fd < 0)
    return NULL;
  uint8_t *p = g->out + g->len;
  anim_put_hdr (p, (uint16_t) n, type);
  g->len += n;
  return p;
}

/* Waits for the window's answer of `type` (fixed length n). */
static int
reply (graph_t *g, uint8_t type, uint8_t *buf, size_t n)
{
  if (flush (g) != MPE_SUCCESS)
    return MPE_ERR_NOXCONNECT;
  if (read_all (g->fd, buf, n) < 0 || anim_get16 (buf) != n
      || buf[2] != type)
    {
      lost (g);
      return MPE_ERR_NOXCONNECT;
    }
  return MPE_SUCCESS;
}

static int
send_gc (graph_t *g)
{
  if (!g->gc_dirty)
    return 0;
  uint8_t *p = frame (g, GRAPH_GC_LEN, GRAPH_F_GC);
  if (!p)
    return -1;
  anim_put32 (p + 4, (uint32_t) g->logic);
  anim_put32 (p + 8, (uint32_t) g->thickness);
  anim_put32 (p + 12, (uint32_t) g->dashlen);
  anim_put32 (p + 16, (uint32_t) g->dashoff);
  g->gc_dirty = 0;
  return 0;
}

/* A drawing frame of n bytes after the current graphics context. */
static uint8_t *
draw_frame (graph_t *g, size_t n, uint8_t type)
{
  if (g->fd < 0 || send_gc (g) < 0)
    return NULL;
  return frame (g, n, type);
}

static int
put_ints (uint8_t *p, int n, const int *v)
{
  for (int i = 0; i < n; i++)
    anim_put32 (p + 4 * i, (uint32_t) v[i]);
  return MPE_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Opening: the window process and the connections                     */
/* ------------------------------------------------------------------ */

static const char *
window_program (char *buf, size_t cap)
{
  const char *env = getenv ("MPE_GRAPHICS_SERVER");
  if (env && *env)
    return env;
  snprintf (buf, cap, "%s/mpegraph", MPE_BINDIR);
  if (access (buf, X_OK) == 0)
    return buf;
  return "mpegraph";            /* found on PATH by posix_spawnp */
}

/* Rank 0: starts mpegraph, which writes its address line to fd 3.
 * Returns 0 and fills addr, or -1 with a message printed. */
static int
start_window (const char *display, int x, int y, int w, int h,
              int remote_ranks, char *addr, size_t cap, pid_t *pid)
{
  char prog_buf[4096], size_arg[64], pos_arg[64];
  const char *prog = window_program (prog_buf, sizeof prog_buf);
  int fds[2];
  if (pipe2 (fds, O_CLOEXEC) < 0)
    {
      perror ("mpe graphics: pipe");
      return -1;
    }
  snprintf (size_arg, sizeof size_arg, "%dx%d", w, h);
  snprintf (pos_arg, sizeof pos_arg, "%d,%d", x, y);
  const char *argv[16];
  int n = 0;
  argv[n++] = prog;
  argv[n++] = "--addr-fd=3";
  argv[n++] = "--size";
  argv[n++] = size_arg;
  if (x != -1 || y != -1)
    {
      argv[n++] = "--position";
      argv[n++] = pos_arg;
    }
  const char *listen = getenv ("MPE_GRAPHICS_LISTEN");
  if (listen && *listen)
    {
      argv[n++] = "--listen";
      argv[n++] = listen;
    }
  else if (remote_ranks)
    {
      argv[n++] = "--listen";
      argv[n++] = "0.0.0.0";
    }
  if (display && *display)
    {
      argv[n++] = "--display";
      argv[n++] = display;
    }
  argv[n] = NULL;

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_adddup2 (&fa, fds[1], 3);
  posix_spawn_file_actions_addopen (&fa, 0, "/dev/null", O_RDONLY, 0);
  int err = posix_spawnp (pid, prog, &fa, NULL, (char *const *) argv,
                          environ);
  posix_spawn_file_actions_destroy (&fa);
  close (fds[1]);
  if (err)
    {
      fprintf (stderr, "mpe graphics: cannot start the window program "
               "%s: %s (set MPE_GRAPHICS_SERVER to its path)\n", prog,
               strerror (err));
      close (fds[0]);
      return -1;
    }
  size_t got = 0;
  int r = 0;
  while (got + 1 < cap)
    {
      struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
      r = poll (&pfd, 1, START_MS);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      ssize_t k = read (fds[0], addr + got, cap - 1 - got);
      if (k < 0 && errno == EINTR)
        continue;
      if (k <= 0)
        break;
      got += (size_t) k;
      if (memchr (addr, '\n', got))
        break;
    }
  close (fds[0]);
  addr[got] = '\0';
  char *nl = strchr (addr, '\n');
  if (!nl)
    {
      fprintf (stderr, "mpe graphics: the window program %s did not "
               "start%s\n", prog, r == 0 ? " (timed out)" : "");
      kill (*pid, SIGTERM);
      waitpid (*pid, NULL, 0);
      *pid = 0;
      return -1;
    }
  *nl = '\0';
  return 0;
}

/* Do other ranks of comm run on other hosts than rank 0? */
static int
spans_hosts (MPI_Comm comm)
{
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name (name, &len);
  uint64_t hash = 1469598103934665603ull;
  for (int i = 0; i < len; i++)
    hash = (hash ^ (unsigned char) name[i]) * 1099511628211ull;
  unsigned long long mine = hash, lo, hi;
  PMPI_Allreduce (&mine, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
  PMPI_Allreduce (&mine, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  return lo != hi;
}

static int
connect_window (graph_t *g, const char *addr, int size, int w, int h)
{
  anim_addr_list_t list;
  if (anim_addr_parse (addr, &list) < 0)
    {
      if (g->rank == 0)
        fprintf (stderr, "mpe graphics: bad window address '%s'\n", addr);
      return MPE_ERR_NOXCONNECT;
    }
  g->fd = anim_addr_connect (&list, CONNECT_MS);
  if (g->fd < 0)
    {
      fprintf (stderr, "mpe graphics: rank %d cannot connect to the "
               "window (%s)\n", g->rank, addr);
      return MPE_ERR_NOXCONNECT;
    }
  /* Blocking from here on: a rank waits for a slow window rather than
   * lose drawing (unlike animation, nothing here may be dropped). */
  fcntl (g->fd, F_SETFL, fcntl (g->fd, F_GETFL) & ~O_NONBLOCK);
  uint8_t *p = frame (g, GRAPH_HELLO_LEN, GRAPH_F_HELLO);
  memcpy (p + 4, GRAPH_PROTO_MAGIC, 8);
  memcpy (p + 12, list.token, ANIM_TOKEN_LEN);
  int v[4] = { g->rank, size, w, h };
  put_ints (p + 44, 4, v);
  /* The first update proves the token and that the window is drawing. */
  return update (g);
}

GAPI int
MPE_Open_graphics (MPE_XGraph *handle, MPI_Comm comm, char *display,
                   int x, int y, int w, int h, int is_collective)
{
  (void) is_collective;        /* MPE2 ignores it too */
  int rank, size, status = MPE_SUCCESS;
  if (handle)
    *handle = NULL;
  PMPI_Comm_rank (comm, &rank);
  PMPI_Comm_size (comm, &size);
  int slot = -1;
  for (int i = 0; i < MAX_GRAPHS && slot < 0; i++)
    if (!graphs[i])
      slot = i;
  graph_t *g = slot >= 0 ? calloc (1, sizeof *g) : NULL;
  if (!handle || w <= 0 || h <= 0 || w > GRAPH_MAX_SIZE
      || h > GRAPH_MAX_SIZE)
    status = MPE_ERR_BAD_ARGS;
  else if (!g)
    status = MPE_ERR_LOW_MEM;
  int all;
  PMPI_Allreduce (&status, &all, 1, MPI_INT, MPI_MAX, comm);
  if (all != MPE_SUCCESS)
    {
      free (g);
      return all;
    }
  g->fd = -1;
  g->rank = rank;
  memcpy (g->palette, base_colors, sizeof base_colors);
  g->ncolors = 16;
  g->logic = 3;               /* GXcopy */
  g->gc_dirty = 1;

  /* Rank 0 finds the window: MPE_GRAPHICS_ADDR, or one it starts. */
  char addr[1024] = "";
  int remote = spans_hosts (comm);
  if (rank == 0)
    {
      const char *env = getenv ("MPE_GRAPHICS_ADDR");
      if (env && *env)
        snprintf (addr, sizeof addr, "%s", env);
      else if (start_window (display, x, y, w, h, remote, addr, sizeof addr,
                             &g->window) < 0)
        addr[0] = '\0';
    }
  PMPI_Bcast (addr, sizeof addr, MPI_CHAR, 0, comm);
  status = addr[0] ? connect_window (g, addr, size, w, h)
                   : MPE_ERR_NOXCONNECT;
  PMPI_Allreduce (&status, &all, 1, MPI_INT, MPI_MAX, comm);
  if (all != MPE_SUCCESS)
    {
      if (g->fd >= 0)
        close (g->fd);
      if (g->window > 0)
        {
          kill (g->window, SIGTERM);
          waitpid (g->window, NULL, 0);
        }
      free (g);
      return all;
    }
  graphs[slot] = g;
  *handle = g;
  return MPE_SUCCESS;
}

GAPI int
MPE_Close_graphics (MPE_XGraph *handle)
{
  graph_t *g = handle ? lookup (*handle) : NULL;
  if (!g)
    return MPE_ERR_BAD_ARGS;
  /* What is buffered still goes out (the window draws all it reads
   * before it sees the end); closing is not an update (no capture). */
  int rc = g->fd >= 0 ? flush (g) : MPE_SUCCESS;
  if (g->fd >= 0)
    close (g->fd);
  /* The window process exits when the last rank has closed; reap it if
   * that already happened, else the system does at this process's end. */
  if (g->window > 0)
    waitpid (g->window, NULL, WNOHANG);
  for (int i = 0; i < MAX_GRAPHS; i++)
    if (graphs[i] == g)
      graphs[i] = NULL;
  free (g);
  *handle = NULL;
  return rc;
}

/* Sends what is buffered and waits until the window has drawn it. */
static int
update (graph_t *g)
{
  uint8_t *p = frame (g, GRAPH_UPDATE_LEN, GRAPH_F_UPDATE);
  if (!p)
    return MPE_ERR_NOXCONNECT;
  uint32_t seq = ++g->seq;
  anim_put32 (p + 4, seq);
  uint8_t r[GRAPH_UPDATED_LEN];
  int rc = reply (g, GRAPH_F_UPDATED, r, sizeof r);
  if (rc != MPE_SUCCESS)
    return rc;
  if (anim_get32 (r + 4) != seq)
    {
      lost (g);
      return MPE_ERR_NOXCONNECT;
    }
  return (int) anim_get32 (r + 8);
}

GAPI int
MPE_Update (MPE_XGraph handle)
{
  graph_t *g = lookup (handle);
  if (!g)
    return MPE_ERR_BAD_ARGS;
  return update (g);
}

/* ------------------------------------------------------------------ */
/* Drawing                                                             */
/* ------------------------------------------------------------------ */

#define CHECK(g, handle, color)                                          \
  graph_t *g = lookup (handle);                                          \
  if (!g || (int) (color) < 0 || (int) (color) >= g->ncolors)            \
    return MPE_ERR_BAD_ARGS

GAPI int
MPE_Draw_point (MPE_XGraph handle, int x, int y, MPE_Color color)
{
  MPE_Point pt = { x, y, color };
  return MPE_Draw_points (handle, &pt, 1);
}

GAPI int
MPE_Draw_points (MPE_XGraph handle, MPE_Point *points, int npoints)
{
  graph_t *g = lookup (handle);
  if (!g || npoints < 0 || (npoints > 0 && !points))
    return MPE_ERR_BAD_ARGS;
  for (int i = 0; i < npoints; i++)
    if ((int) points[i].c < 0 || (int) points[i].c >= g->ncolors)
      return MPE_ERR_BAD_ARGS;
  for (int done = 0; done < npoints;)
    {
      int n = npoints - done;
      if (n > GRAPH_POINTS_MAX)
        n = GRAPH_POINTS_MAX;
      uint8_t *p = draw_frame (g, ANIM_FRAME_HDR
                               + (size_t) n * GRAPH_POINT_SIZE,
                               GRAPH_F_POINTS);
      if (!p)
        return MPE_ERR_NOXCONNECT;
      p += ANIM_FRAME_HDR;
      for (int i = 0; i < n; i++, p += GRAPH_POINT_SIZE)
        {
          const MPE_Point *q = &points[done + i];
          anim_put32 (p, (uint32_t) q->x);
          anim_put32 (p + 4, (uint32_t) q->y);
          anim_put32 (p + 8, g->palette[q->c]);
        }
      done += n;
    }
  return MPE_SUCCESS;
}

GAPI int
MPE_Draw_line (MPE_XGraph handle, int x1, int y1, int x2, int y2,
               MPE_Color color)
{
  CHECK (g, handle, color);
  uint8_t *p = draw_frame (g, GRAPH_LINE_LEN, GRAPH_F_LINE);
  if (!p)
    return MPE_ERR_NOXCONNECT;
  int v[5] = { x1, y1, x2, y2, (int) g->palette[color] };
  return put_ints (p + 4, 5, v);
}

static int
circle (MPE_XGraph handle, int cx, int cy, int r, MPE_Color color, int fill)
{
  CHECK (g, handle, color);
  if (r < 0)
    return MPE_ERR_BAD_ARGS;
  uint8_t *p = draw_frame (g, GRAPH_CIRCLE_LEN, GRAPH_F_CIRCLE);
  if (!p)
    return MPE_ERR_NOXCONNECT;
  int v[5] = { cx, cy, r, (int) g->palette[color], fill };
  return put_ints (p + 4, 5, v);
}

GAPI int
MPE_Draw_circle (MPE_XGraph handle, int centerx, int centery, int radius,
                 MPE_Color color)
{
  return circle (handle, centerx, centery, radius, color, 0);
}

GAPI int
MPE_Fill_circle (MPE_XGraph handle, int centerx, int centery, int radius,
                 MPE_Color color)
{
  return circle (handle, centerx, centery, radius, color, 1);
}

GAPI int
MPE_Fill_rectangle (MPE_XGraph handle, int x, int y, int w, int h,
                    MPE_Color color)
{
  CHECK (g, handle, color);
  if (w < 0 || h < 0)
    return MPE_ERR_BAD_ARGS;
  uint8_t *p = draw_frame (g, GRAPH_RECT_LEN, GRAPH_F_RECT);
  if (!p)
    return MPE_ERR_NOXCONNECT;
  int v[5] = { x, y, w, h, (int) g->palette[color] };
  return put_ints (p + 4, 5, v);
}

GAPI int
MPE_Draw_string (MPE_XGraph handle, int x, int y, MPE_Color color,
                 char *string)
{
  CHECK (g, handle, color);
  if (!string)
    return MPE_ERR_BAD_ARGS;
  size_t n = strlen (string);
  if (n > GRAPH_TEXT_MAX)
    n = GRAPH_TEXT_MAX;
  uint8_t *p = draw_frame (g, GRAPH_STRING_MIN + n, GRAPH_F_STRING);
  if (!p)
    return MPE_ERR_NOXCONNECT;
  int v[3] = { x, y, (int) g->palette[color] };
  put_ints (p + 4, 3, v);
  memcpy (p + GRAPH_STRING_MIN, string, n);
  return MPE_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Graphics context and colours                                        */
/* ------------------------------------------------------------------ */

static void
set_gc (graph_t *g, int *field, int value)
{
  if (*field != value)
    {
      *field = value;
      g->gc_dirty = 1;
    }
}

GAPI int
MPE_Draw_logic (MPE_XGraph handle, int function)
{
  graph_t *g = lookup (handle);
  if (!g || function < 0 || function > 15)
    return MPE_ERR_BAD_ARGS;
  set_gc (g, &g->logic, function);
  return MPE_SUCCESS;
}

GAPI int
MPE_Line_thickness (MPE_XGraph handle, int thickness)
{
  graph_t *g = lookup (handle);
  if (!g || thickness < 0 || thickness > 1000)
    return MPE_ERR_BAD_ARGS;
  set_gc (g, &g->thickness, thickness);
  return MPE_SUCCESS;
}

/* dashlen 0: solid lines. */
GAPI int
MPE_Draw_dashes (MPE_XGraph handle, int dashlen)
{
  graph_t *g = lookup (handle);
  if (!g || dashlen < 0 || dashlen > 1000)
    return MPE_ERR_BAD_ARGS;
  set_gc (g, &g->dashlen, dashlen);
  set_gc (g, &g->dashoff, 0);
  return MPE_SUCCESS;
}

GAPI int
MPE_Dash_offset (MPE_XGraph handle, int offset)
{
  graph_t *g = lookup (handle);
  if (!g || offset < 0)
    return MPE_ERR_BAD_ARGS;
  set_gc (g, &g->dashoff, offset);
  return MPE_SUCCESS;
}

GAPI int
MPE_Num_colors (MPE_XGraph handle, int *nc)
{
  graph_t *g = lookup (handle);
  if (!g || !nc)
    return MPE_ERR_BAD_ARGS;
  *nc = g->ncolors;
  return MPE_SUCCESS;
}

static uint32_t
hue_rgb (double hue)
{
  double h6 = fmod (hue, 360.0) / 60.0, f = h6 - floor (h6);
  int up = (int) lround (255 * f), down = 255 - up;
  int r, g, b;
  switch ((int) h6)
    {
    case 0: r = 255, g = up, b = 0; break;
    case 1: r = down, g = 255, b = 0; break;
    case 2: r = 0, g = 255, b = up; break;
    case 3: r = 0, g = down, b = 255; break;
    case 4: r = up, g = 0, b = 255; break;
    default: r = 255, g = 0, b = down; break;
    }
  return (uint32_t) (r << 16 | g << 8 | b);
}

/* As MPE2: the colours 2..ncolors+1 become ncolors hues spread evenly
 * (white and black stay), and array[i] = i + 2. */
GAPI int
MPE_Make_color_array (MPE_XGraph handle, int ncolors, MPE_Color array[])
{
  graph_t *g = lookup (handle);
  if (!g || ncolors < 0 || ncolors > NCOLORS_MAX - 2
      || (ncolors > 0 && !array))
    return MPE_ERR_BAD_ARGS;
  for (int i = 0; i < ncolors; i++)
    {
      g->palette[i + 2] = hue_rgb (360.0 * i / ncolors);
      array[i] = (MPE_Color) (i + 2);
    }
  if (g->ncolors < ncolors + 2)
    g->ncolors = ncolors + 2;
  return MPE_SUCCESS;
}

GAPI int
MPE_Add_RGB_color (MPE_XGraph handle, int red, int green, int blue,
                   MPE_Color *mapping)
{
  graph_t *g = lookup (handle);
  if (!g || !mapping || red < 0 || red > 65535 || green < 0
      || green > 65535 || blue < 0 || blue > 65535)
    return MPE_ERR_BAD_ARGS;
  if (g->ncolors == NCOLORS_MAX)
    return MPE_ERR_LOW_MEM;
  g->palette[g->ncolors] = (uint32_t) ((red >> 8) << 16 | (green >> 8) << 8
                                       | (blue >> 8));
  *mapping = (MPE_Color) g->ncolors++;
  return MPE_SUCCESS;
}

/* Every freq-th MPE_Update from now on (the first included) writes
 * <fname>NNN.png, NNN counting the frames written (MPE2: .xwd). */
GAPI int
MPE_CaptureFile (MPE_XGraph handle, char *fname, int freq)
{
  graph_t *g = lookup (handle);
  if (!g || !fname || !*fname || freq < 1)
    return MPE_ERR_BAD_ARGS;
  char path[GRAPH_PATH_MAX + 1];
  if (fname[0] == '/')
    snprintf (path, sizeof path, "%s", fname);
  else
    {
      char cwd[GRAPH_PATH_MAX];
      if (!getcwd (cwd, sizeof cwd))
        return MPE_ERR_BAD_ARGS;
      snprintf (path, sizeof path, "%s/%s", cwd, fname);
    }
  size_t n = strlen (path);
  if (n >= GRAPH_PATH_MAX)
    return MPE_ERR_BAD_ARGS;
  uint8_t *p = frame (g, GRAPH_CAPTURE_MIN + n, GRAPH_F_CAPTURE);
  if (!p)
    return MPE_ERR_NOXCONNECT;
  anim_put32 (p + 4, (uint32_t) freq);
  memcpy (p + GRAPH_CAPTURE_MIN, path, n);
  return MPE_SUCCESS;
}

GAPI int
MPE_Xerror (int returnVal, const char *functionName)
{
  static const char *const what[] = {
    NULL, "no window (could not open one, or it is gone)",
    "bad handle or argument", "out of memory or colours"
  };
  if (returnVal > 0 && returnVal < 4)
    fprintf (stderr, "%s: %s\n", functionName ? functionName : "MPE",
             what[returnVal]);
  else if (returnVal)
    fprintf (stderr, "%s: error %d\n", functionName ? functionName : "MPE",
             returnVal);
  return returnVal;
}

/* ------------------------------------------------------------------ */
/* Mouse                                                               */
/* ------------------------------------------------------------------ */

static int
mouse (MPE_XGraph handle, int wait, int *x, int *y, int *button,
       int *pressed)
{
  graph_t *g = lookup (handle);
  if (!g || !x || !y || !button)
    return MPE_ERR_BAD_ARGS;
  uint8_t *p = frame (g, GRAPH_MOUSE_LEN, GRAPH_F_MOUSE);
  if (!p)
    return MPE_ERR_NOXCONNECT;
  anim_put32 (p + 4, (uint32_t) wait);
  uint8_t r[GRAPH_PRESS_LEN];
  int rc = reply (g, GRAPH_F_PRESS, r, sizeof r);
  if (rc != MPE_SUCCESS)
    return rc;
  int status = (int) anim_get32 (r + 4);
  if (pressed)
    *pressed = (int) anim_get32 (r + 8);
  if (anim_get32 (r + 8))
    {
      *x = (int) anim_get32 (r + 12);
      *y = (int) anim_get32 (r + 16);
      *button = (int) anim_get32 (r + 20);
    }
  return status;
}

/* Blocks until a button is pressed in the window (presses are queued by
 * the window from the moment it opens; the oldest is returned). */
GAPI int
MPE_Get_mouse_press (MPE_XGraph handle, int *x, int *y, int *button)
{
  return mouse (handle, 1, x, y, button, NULL);
}

GAPI int
MPE_Iget_mouse_press (MPE_XGraph handle, int *x, int *y, int *button,
                      int *wasPressed)
{
  if (!wasPressed)
    return MPE_ERR_BAD_ARGS;
  *wasPressed = 0;
  return mouse (handle, 0, x, y, button, wasPressed);
}

static int
drag (MPE_XGraph handle, int button, int visual, double ratio, int *x1,
      int *y1, int *x2, int *y2)
{
  graph_t *g = lookup (handle);
  if (!g || button < 1 || button > 5 || !x1 || !y1 || !x2 || !y2
      || !(ratio > 0 && ratio < 1e6))
    return MPE_ERR_BAD_ARGS;
  uint8_t *p = frame (g, GRAPH_DRAG_LEN, GRAPH_F_DRAG);
  if (!p)
    return MPE_ERR_NOXCONNECT;
  anim_put32 (p + 4, (uint32_t) button);
  anim_put32 (p + 8, (uint32_t) visual);
  anim_put32 (p + 12, (uint32_t) lround (ratio * 1e6));
  uint8_t r[GRAPH_DRAGGED_LEN];
  int rc = reply (g, GRAPH_F_DRAGGED, r, sizeof r);
  if (rc != MPE_SUCCESS)
    return rc;
  *x1 = (int) anim_get32 (r + 8);
  *y1 = (int) anim_get32 (r + 12);
  *x2 = (int) anim_get32 (r + 16);
  *y2 = (int) anim_get32 (r + 20);
  return (int) anim_get32 (r + 4);
}

GAPI int
MPE_Get_drag_region (MPE_XGraph handle, int button, int dragVisual,
                     int *pressx, int *pressy, int *releasex, int *releasey)
{
  if (dragVisual < MPE_DRAG_NONE || dragVisual > MPE_DRAG_SQUARE)
    {
      fprintf (stderr, "Invalid drag visual.  Using MPE_DRAG_LINE.\n");
      dragVisual = MPE_DRAG_LINE;
    }
  return drag (handle, button, dragVisual, 1.0, pressx, pressy, releasex,
               releasey);
}

/* ratio is height / width, as in MPE2. */
GAPI int
MPE_Get_drag_region_fixratio (MPE_XGraph handle, int button, double ratio,
                              int *pressx, int *pressy, int *releasex,
                              int *releasey)
{
  return drag (handle, button, GRAPH_DRAG_FIXRATIO, ratio, pressx, pressy,
               releasex, releasey);
}

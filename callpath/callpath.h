/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libmpe-callpath (uninstalled): what clogtool and the viewer need to read
 * call paths (FORMAT.md section 15): symbols resolved at read time with
 * libdw (one pass per binary, cached), and the calling-context tree of
 * samples and call sites merged over ranks.  On the public logfmt API.
 */
#ifndef CALLPATH_H
#define CALLPATH_H

#include <stddef.h>
#include <stdint.h>

#include "logfmt/logfmt.h"

/* ---- Symbols --------------------------------------------------------- */

typedef struct cp_symbols cp_symbols_t;

typedef struct
{
  const char *func;      /* "hot_loop"; "hot+0x1139" when unknown */
  const char *file;      /* source file (full path) or NULL */
  int         line;      /* 0 when unknown */
  const char *module;    /* the binary's base name */
  uint64_t    offset;    /* address within the module */
  int         resolved;  /* 1 when func is a symbol */
} cp_frame_t;

cp_symbols_t *cp_symbols_new (void);
/* The frame of node i of a rank's tables; results are cached by binary
 * (path and build-id) and address, strings live as long as sy. */
void cp_symbols_frame (cp_symbols_t *sy, const logfmt_callpaths_t *cp,
                       uint32_t node, cp_frame_t *out);
/* The frame of an address given as a module file and an offset from the
 * address the module was loaded at (dladdr's dli_fbase: what libmpe's
 * memory sites store), without a build-id check; cached like the
 * above. */
void cp_symbols_address (cp_symbols_t *sy, const char *path,
                         uint64_t offset, cp_frame_t *out);
/* The same, shaped as analysis's an_mem_namer_fn (an-memory.h): user is
 * the cp_symbols_t; *file "" when unknown. */
void cp_symbols_site_name (void *user, const char *path, uint64_t offset,
                           const char **function, const char **file,
                           int *line);
/* Notes about binaries that could not be used (missing, stripped, built
 * again since the run), one line each, in the order met. */
size_t cp_symbols_notes (const cp_symbols_t *sy, const char *const **notes);
/* Binaries whose debug information or symbols were read. */
size_t cp_symbols_binaries (const cp_symbols_t *sy);
void cp_symbols_free (cp_symbols_t *sy);

/* ---- Calling-context tree ------------------------------------------- */

/* A node is one frame (function, file, line of the call) under its
 * parent; the root (index 0) is the program.  Samples and call-site data
 * land on the leaf of their path: self values; totals include the
 * children's. */
typedef struct
{
  uint32_t    parent;
  uint32_t    first_child, next_sibling;   /* 0: none */
  cp_frame_t  frame;
  uint64_t    self_samples, total_samples;
  double      self_time, total_time;       /* s: samples x period */
  double      self_comm, total_comm;       /* s in MPI calls (call sites) */
  uint64_t    self_calls, total_calls;     /* MPI calls */
  uint64_t    self_bytes, total_bytes;
  /* MPI calls made right here, per wrapper state (state, count). */
  size_t      nmpi;
  struct cp_mpi { int32_t state; uint64_t calls; double time;
                  uint64_t bytes; } *mpi;
} cp_node_t;

/* Called for each sample counted (the viewer keeps where in time each
 * context ran): its stream, time, weight and tree node. */
typedef void (*cp_sample_cb) (void *user, uint32_t stream, uint64_t time,
                              uint64_t weight, uint32_t node);

typedef struct
{
  int32_t  rank;         /* -1: every rank */
  uint64_t t0, t1;       /* window [t0, t1) in ns; t1 = UINT64_MAX: all */
  int      by_line;      /* nodes are source lines, not functions */
  const int32_t *ranks;  /* nranks > 0: only these ranks (and rank) */
  size_t   nranks;
  cp_sample_cb on_sample;  /* may be NULL */
  void    *user;
} cp_tree_opts_t;

typedef struct
{
  cp_node_t *nodes;
  size_t     n;
  uint64_t   samples, constructed, truncated;
  double     period;     /* s per sample (from the sample rate) */
  int        ranks;      /* ranks that had call paths */
  cp_symbols_t *sym;     /* resolver used (owned) */
} cp_tree_t;

/* Builds the tree from r's samples and call sites.  0, or a LOGFMT_E*
 * code with err filled. */
int  cp_tree_build (const logfmt_reader_t *r, const cp_tree_opts_t *o,
                    cp_tree_t **out, logfmt_error_t *err);
void cp_tree_free (cp_tree_t *t);
/* The name of a wrapper state, from the log's state definitions. */
const char *cp_state_name (const logfmt_reader_t *r, int32_t state);

#endif

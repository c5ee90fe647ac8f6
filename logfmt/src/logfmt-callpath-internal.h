/* SPDX-License-Identifier: BSD-3-Clause */
/* Call-path tables (logfmt-callpath.c) inside the writer and reader. */
#ifndef LOGFMT_CALLPATH_INTERNAL_H
#define LOGFMT_CALLPATH_INTERNAL_H

#include "logfmt-internal.h"

enum
{
  LOGFMT__CHUNK_MODULES = 8,
  LOGFMT__CHUNK_CALLPATHS = 9,
  LOGFMT__DEFS_CALLPATHS = 10    /* u32 rank, u32 chunk type, u64 offset */
};

/* The writer's list of table chunks written so far. */
struct logfmt__wcallpaths
{
  size_t n;
  struct
  {
    int32_t  rank;
    uint32_t type;
    uint64_t offset;
  } ref[];
};

struct logfmt__wcallpaths **logfmt__writer_callpaths (logfmt_writer_t *w);
int logfmt__writer_chunk (logfmt_writer_t *w, uint32_t type,
                          const uint8_t *payload, uint64_t len, uint64_t *at);
int logfmt__wcallpaths_defs (const struct logfmt__wcallpaths *v,
                             uint8_t **out, size_t *len);
int logfmt__rcallpaths_add (logfmt_reader_t *r, int32_t rank, uint32_t type,
                            uint64_t offset);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Extension tracks (FORMAT.md section 14): the TRACK chunk codec shared by
 * the track encoder, the reader, verify and the chunk scanner.
 */
#ifndef LOGFMT_TRACK_INTERNAL_H
#define LOGFMT_TRACK_INTERNAL_H

#include "logfmt-internal.h"

#define LOGFMT__TRACK_HDR        56
/* Stream id and its complement are not covered by the chunk CRC, as in
 * BLOCK chunks, so put_track renumbers a chunk without recomputing it. */
#define LOGFMT__TRACK_CRC_SKIP   8
#define LOGFMT__TRACK_CHUNK_RECS 4096      /* records per chunk written */
#define LOGFMT__TRACK_MAX_RECS   (1u << 20) /* accepted on read */
#define LOGFMT__TRACKDIR_HDR     8
#define LOGFMT__TRACKDIR_ENTRY   48

/* DEFS record kinds. */
#define LOGFMT__DEFS_TRACKDIR 6
#define LOGFMT__DEFS_METRIC   7

/* Metric summaries: level l (1..) has bins of 2^(SHIFT0 + 4 (l-1)) ns;
 * records are (bin start; id, object, min, max, last, samples). */
#define LOGFMT__METRIC_LEVELS  8
#define LOGFMT__METRIC_SHIFT0  12
#define LOGFMT__METRIC_SUM_COLS 6
#define LOGFMT__METRIC_COLS     3

/* A directory entry (and what a TRACK chunk header says). */
typedef struct logfmt__trackref
{
  uint64_t offset;
  uint32_t stream, kind;
  uint16_t level, ncols;
  uint32_t count;
  uint64_t t_first, t_last, bin_ns;
} logfmt__trackref_t;

typedef struct
{
  logfmt__trackref_t ref;   /* offset unused */
  uint32_t raw_size;
  uint8_t  codec;
  const uint8_t *body;
  size_t   body_len;
} logfmt__track_hdr_t;

static inline uint64_t
logfmt__metric_bin_ns (unsigned level)
{
  return (uint64_t) 1 << (LOGFMT__METRIC_SHIFT0 + 4 * (level - 1));
}

/* Builds a complete TRACK chunk (header, payload, CRC) for n records in
 * *out (grown as needed; *len set).  h gives stream, kind, level, ncols,
 * bin_ns; times must not decrease. */
struct ZSTD_CCtx_s;
int logfmt__track_encode (struct ZSTD_CCtx_s *cctx,
                          const logfmt__trackref_t *h,
                          const logfmt_track_rec_t *recs, uint32_t n,
                          uint8_t **out, size_t *cap, size_t *len);

/* Parses and checks a TRACK payload header (not the CRC). */
int logfmt__track_parse (const uint8_t *payload, uint64_t len,
                         logfmt__track_hdr_t *h, const char *file,
                         uint64_t offset, logfmt_error_t *err);

/* Decodes a parsed chunk's h->ref.count records into out; *buf and *cap are
 * scratch for the decompressed columns.  Checks that every column is
 * used up exactly and that times stay inside [t_first, t_last]. */
struct ZSTD_DCtx_s;
int logfmt__track_decode (struct ZSTD_DCtx_s *dctx,
                          const logfmt__track_hdr_t *h,
                          uint8_t **buf, size_t *cap,
                          logfmt_track_rec_t *out, const char *file,
                          uint64_t offset, logfmt_error_t *err);

/* Parses a directory chunk payload into a malloc'd array (sorted by
 * stream, kind, level, t_first, as written), checking every entry
 * against the file size. */
int logfmt__trackdir_parse (const uint8_t *p, uint64_t len,
                            uint64_t file_size, logfmt__trackref_t **out,
                            size_t *n, const char *file, uint64_t offset,
                            logfmt_error_t *err);

/* Orders entries by (stream, kind, level, t_first). */
int logfmt__trackref_cmp (const void *a, const void *b);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* Reader internals shared by the reader, summaries, verify and repair. */
#ifndef LOGFMT_READER_INTERNAL_H
#define LOGFMT_READER_INTERNAL_H

#include "logfmt-writer-internal.h"

#include <zstd.h>

/* What is open at each block start of a stream, for window passes of the
 * interval iterator (logfmt-intervals.c); built on first use. */
typedef struct logfmt__ivcache logfmt__ivcache_t;
void logfmt__ivcache_free (logfmt__ivcache_t *c);

typedef struct
{
  logfmt_stream_def_t def;
  uint64_t nevents, t_first, t_last, lost, summary_off;
  logfmt__blockref_t *blocks;
  size_t nblocks;
  /* Set once, atomically, by whichever thread builds it first (the
   * reader is otherwise immutable after open). */
  logfmt__ivcache_t *ivcache;
} logfmt__rstream_t;

typedef struct
{
  int32_t  rank;
  uint32_t type;
  uint64_t offset;
} logfmt__cpref_t;

struct logfmt_reader
{
  char *path;
  const uint8_t *data;
  size_t size;
  void *map;              /* munmap on close, if set */
  size_t map_len;
  logfmt_info_t info;
  char *format_name, *creator;

  logfmt_state_def_t *states;
  size_t nstates;
  logfmt_event_def_t *events;
  size_t nevents;
  logfmt_comm_def_t *comms;
  size_t ncomms;
  logfmt_const_def_t *consts;
  size_t nconsts;
  logfmt_resource_def_t *res;   /* DEFS kinds 14-17 */
  size_t nres;
  logfmt__rstream_t *streams;
  size_t nstreams;
  logfmt__blockref_t *blocks_all;   /* owns every stream's blocks */
  logfmt__msgref_t *mrefs;
  size_t nmrefs;
  logfmt__classify_t cls;
  int32_t *event_sorted;  /* event def indices sorted by id */
  logfmt__cpref_t *cprefs; /* call-path table chunks (DEFS kind 10) */
  size_t ncprefs;
  uint64_t blocks_decoded;  /* by every iterator (atomic, relaxed) */
  /* Decompression contexts lent to calls on the shared reader (each
   * taken and given back atomically): a context made per call costs
   * more than a summary level's decompression (zstd probes the CPU). */
  ZSTD_DCtx *dctx_pool[4];

  /* Extension tracks (logfmt-track-reader.c). */
  logfmt_metric_def_t *metrics;
  size_t nmetrics;
  struct logfmt__trackref *tracks;  /* sorted by stream, kind, level, time */
  size_t ntracks;
  uint64_t trackdir_off, trackdir_n;  /* from DEFS kind 6; 0 = none */
};

/* Loads the track directory named by the definitions. */
/* Reads and decodes directory entry i's chunk (for verify). */
int logfmt__track_check (const logfmt_reader_t *r, size_t i,
                         logfmt_error_t *err);
int logfmt__load_trackdir (logfmt_reader_t *r, uint64_t off, uint64_t n,
                           logfmt_error_t *err);

/* Decompresses a whole zstd frame of src into dst (cap bytes) with a
 * context of r's pool (or a fresh one when all are lent): what
 * ZSTD_decompress returns. */
size_t logfmt__reader_decompress (const logfmt_reader_t *r, void *dst,
                                  size_t cap, const void *src, size_t len);

/* Opens a .clog image held in memory; data must outlive the reader.  Used
 * by the fuzzer and by logfmt_reader_open after mmap. */
int logfmt__reader_open_mem (const uint8_t *data, size_t len,
                             const char *name, unsigned flags,
                             logfmt_reader_t **out, logfmt_error_t *err);

/* Frees a reader's loaded tables (not its path, mapping or itself). */
void logfmt__reader_free_contents (logfmt_reader_t *r);

/* logfmt_verify's checks beyond reading everything (logfmt-verify.c):
 * each problem found goes to cb. */
typedef void (*logfmt__verify_cb) (void *user, const logfmt_error_t *e);
void logfmt__verify_more (const logfmt_reader_t *r, logfmt__verify_cb cb,
                          void *user);
/* A stream definition's rank and thread are in range (FORMAT.md 8). */
bool logfmt__stream_def_ok (const logfmt_reader_t *r,
                            const logfmt_stream_def_t *d);
/* Loads the DEFS chunk at off; tolerant allows a stream count that
 * differs from the index (scanned files). */
int logfmt__load_defs (logfmt_reader_t *r, uint64_t off, bool tolerant,
                       logfmt_error_t *err);

/* Checks the chunk at off: header in range, payload in range, CRC (when
 * check_crc).  Returns 0 and sets *payload and *plen. */
int logfmt__chunk_at (const logfmt_reader_t *r, uint64_t off,
                      uint32_t want_type, bool check_crc,
                      const uint8_t **payload, uint64_t *plen,
                      logfmt_error_t *err);

/* One level of a summary chunk, as located by logfmt__summary_parse. */
#define LOGFMT__SUM_MAX_LEVELS 16
typedef struct
{
  uint64_t bin_ns;
  uint32_t nbins, raw_len;
  const uint8_t *data;    /* zstd frame of clen bytes */
  uint64_t clen;
} logfmt__lvl_t;

int logfmt__summary_parse (const uint8_t *p, uint64_t len, uint32_t *stream,
                           uint64_t *origin, uint64_t *t_last,
                           uint64_t *total, logfmt__lvl_t *lv,
                           uint32_t *nlv);

/* Points an iterator at a stream from the start of block `block`
 * (nblocks: the end), whole time range. */
int logfmt__iter_seek_block (logfmt_iter_t *it, uint32_t stream,
                             size_t block);

/* The iterator's next decoded records, in place (no copy): sets *ev and
 * returns their number, 0 at the end, or a negative code.  They stay
 * valid until the next call on it. */
long logfmt__iter_borrow (logfmt_iter_t *it, const logfmt_event_t **ev);

#endif

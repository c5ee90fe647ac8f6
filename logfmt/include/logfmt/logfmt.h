/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * logfmt: the .clog timeline format (writer, reader, encoder, summaries,
 * state intervals).
 *
 * Dependencies: libc and libzstd only.  No MPI, no GLib.
 * docs/FORMAT.md is the normative description of the bytes on disk.
 *
 * Conventions
 *  - Functions return 0 on success or a negative LOGFMT_E* code.  Functions
 *    that can fail on file contents take an optional logfmt_error_t * that
 *    receives the code and a message naming the file, the byte offset and
 *    what was wrong.
 *  - Every _new/_open has a matching _free/_close that accepts NULL.
 *  - Times are unsigned 64-bit integer nanoseconds since the run's origin.
 *  - A logfmt_reader_t is immutable after open: any number of threads may
 *    use one reader concurrently, each with its own iterators.
 */
#ifndef LOGFMT_LOGFMT_H
#define LOGFMT_LOGFMT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && defined(LOGFMT_BUILDING)
# define LOGFMT_API __attribute__ ((visibility ("default")))
#else
# define LOGFMT_API
#endif

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/* Released values never change; only append. */
#define LOGFMT_ERRORS(X)                                               \
  X (IO,        1, "input/output error")                               \
  X (NOMEM,     2, "out of memory")                                    \
  X (BADMAGIC,  3, "not a log file this library can read")             \
  X (VERSION,   4, "unsupported format version")                       \
  X (TRUNCATED, 5, "unexpected end of data (truncated file?)")         \
  X (CORRUPT,   6, "corrupt data")                                     \
  X (CHECKSUM,  7, "checksum mismatch")                                \
  X (INVAL,     8, "invalid argument")                                 \
  X (STATE,     9, "call not allowed in the object's current state")   \
  X (RANGE,    10, "value out of range")                               \
  X (NOENT,    11, "no such entry")                                    \
  X (PARTIAL,  12, "file was not finished (no valid trailer)")         \
  X (NOSPC,    13, "no space left on device")                          \
  X (ZSTD,     14, "compression error")

enum
{
#define LOGFMT_ERR_ENUM_(name, val, msg) LOGFMT_E##name = -(val),
  LOGFMT_ERRORS (LOGFMT_ERR_ENUM_)
#undef LOGFMT_ERR_ENUM_
  LOGFMT_OK = 0
};

/* Static description of a code; never NULL. */
LOGFMT_API const char *logfmt_strerror (int code);

typedef struct
{
  int      code;          /* LOGFMT_E*, 0 if no error */
  uint64_t offset;        /* byte offset in the file, or UINT64_MAX */
  char     message[512];  /* "FILE: offset N: what was wrong" */
} logfmt_error_t;

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

#define LOGFMT_CARGO_SIZE 32  /* MPE_LOG_BYTESIZE */

/* What is stored in a stream (the writer's input). */
typedef enum
{
  LOGFMT_REC_EVENT = 1,  /* an MPE event id; may carry 32 bytes of cargo */
  LOGFMT_REC_SEND  = 2,  /* message send: partner, tag, size, comm */
  LOGFMT_REC_RECV  = 3,  /* message receive: partner, tag, size, comm */
  LOGFMT_REC_LOSS  = 4,  /* `size` events were lost here (buffer full) */
} logfmt_rec_type_t;

/* What the reader makes of a record, using the definitions. */
typedef enum
{
  LOGFMT_KIND_BEGIN = 1,  /* start event of state `state` */
  LOGFMT_KIND_END   = 2,  /* end event of state `state` */
  LOGFMT_KIND_SOLO  = 3,  /* solo event (defined or not) */
  LOGFMT_KIND_SEND  = 4,
  LOGFMT_KIND_RECV  = 5,
  LOGFMT_KIND_LOSS  = 6,
} logfmt_kind_t;

#define LOGFMT_EVF_CARGO 0x1u   /* cargo[] is valid */

typedef struct
{
  uint64_t time;      /* ns since origin; never decreases within a stream */
  uint8_t  type;      /* logfmt_rec_type_t (input and output) */
  uint8_t  kind;      /* logfmt_kind_t (reader output; ignored on input) */
  uint16_t flags;     /* LOGFMT_EVF_* */
  int32_t  id;        /* EVENT: MPE event id */
  int32_t  state;     /* reader output: state index for BEGIN/END, else -1 */
  int32_t  partner;   /* SEND/RECV: partner's world rank */
  int32_t  tag;       /* SEND/RECV */
  uint32_t comm;      /* SEND/RECV: communicator id (see logfmt_comm_def_t) */
  uint64_t size;      /* SEND/RECV: bytes; LOSS: number of events lost */
  uint8_t  cargo[LOGFMT_CARGO_SIZE];
} logfmt_event_t;

/* A matched (or unmatched) message, for arrows. */
#define LOGFMT_NO_STREAM UINT32_MAX
typedef struct
{
  uint32_t send_stream;   /* LOGFMT_NO_STREAM if the send was not logged */
  uint32_t recv_stream;   /* LOGFMT_NO_STREAM if the receive was not logged */
  uint64_t send_time;     /* valid if send_stream != LOGFMT_NO_STREAM */
  uint64_t recv_time;     /* valid if recv_stream != LOGFMT_NO_STREAM */
  int32_t  send_rank;     /* world ranks of both ends (always valid) */
  int32_t  recv_rank;
  int32_t  tag;
  uint32_t comm;
  uint64_t size;          /* bytes, from the send when both exist */
} logfmt_message_t;

/* ------------------------------------------------------------------ */
/* Definitions                                                         */
/* ------------------------------------------------------------------ */

typedef struct
{
  int32_t     start_id;   /* MPE event id that begins the state */
  int32_t     end_id;     /* MPE event id that ends it */
  const char *name;
  const char *color;      /* as the user gave it: X11 name or "#rrggbb" */
  const char *format;     /* MPE info format string, or NULL */
  uint32_t    rgb;        /* 0xRRGGBB, resolved from color by the library */
} logfmt_state_def_t;

typedef struct
{
  int32_t     id;
  const char *name;
  const char *color;
  const char *format;
  uint32_t    rgb;
} logfmt_event_def_t;

typedef struct
{
  int32_t     rank;       /* world rank */
  int32_t     thread;     /* thread index within the process, 0.. */
  const char *host;       /* host name, or NULL */
} logfmt_stream_def_t;

typedef struct
{
  uint32_t       id;      /* value used in logfmt_event_t.comm */
  int32_t        kind;    /* 0 inter, 1 intra */
  const char    *name;    /* e.g. "MPI_COMM_WORLD", may be NULL */
  uint32_t       size;    /* number of processes */
  const int32_t *ranks;   /* size entries: local rank -> world rank; may be NULL */
} logfmt_comm_def_t;

typedef struct
{
  const char *name;
  int64_t     value;
} logfmt_const_def_t;

/* Resolves an X11 colour name (case and blanks ignored, "gray"/"grey"
 * both), "#rgb"/"#rrggbb", or MPE1's "name:bitmap" to 0xRRGGBB.  Returns 0
 * and sets *rgb, or LOGFMT_ENOENT (then *rgb gets a stable colour
 * derived from the name). */
LOGFMT_API int logfmt_color_lookup (const char *name, uint32_t *rgb);

/* Formats cargo through an MPE info format string (%s %h %d %l %x %X %e
 * %E; values big-endian as MPE_Log_pack writes them).  Always
 * NUL-terminates out.  Returns the length written, or a negative code if
 * the cargo is too short for the format (the text so far is kept). */
LOGFMT_API int logfmt_format_cargo (const char *format,
                                    const uint8_t *cargo, size_t cargo_len,
                                    char *out, size_t out_len);

/* ------------------------------------------------------------------ */
/* Encoder: one stream's events -> sealed, compressed blocks           */
/* ------------------------------------------------------------------ */

typedef struct
{
  uint32_t stream;       /* stream index stored in each block */
  uint64_t t_first;      /* time range of the block's events */
  uint64_t t_last;
  uint32_t count;        /* events in the block */
  uint32_t raw_size;     /* decoded payload size */
} logfmt_block_info_t;

/* Receives each sealed block: `len` bytes forming one complete block
 * chunk as described in FORMAT.md.  The bytes are borrowed until return.
 * A non-zero return aborts the encoder call with that code. */
typedef int (*logfmt_block_cb) (void *user,
                                const void *block, size_t len,
                                const logfmt_block_info_t *info);

typedef struct logfmt_encoder logfmt_encoder_t;

typedef struct
{
  size_t   size;           /* sizeof (logfmt_encoder_opts_t) */
  uint32_t stream;
  uint32_t block_events;   /* events per block; 0 = default (65536) */
  int      zstd_level;     /* 0 = default (1) */
} logfmt_encoder_opts_t;

LOGFMT_API int  logfmt_encoder_new (const logfmt_encoder_opts_t *opts,
                                    logfmt_block_cb cb, void *user,
                                    logfmt_encoder_t **out);
/* Appends events; a block is sealed and passed to cb when full.  A time
 * earlier than the previous one is raised to it (the viewer's binary
 * search needs monotonic time) and counted. */
LOGFMT_API int  logfmt_encoder_add (logfmt_encoder_t *enc,
                                    const logfmt_event_t *ev, size_t n);
/* Seals the current partial block, if any. */
LOGFMT_API int  logfmt_encoder_flush (logfmt_encoder_t *enc);
LOGFMT_API uint64_t logfmt_encoder_fixed_times (const logfmt_encoder_t *enc);
LOGFMT_API void logfmt_encoder_free (logfmt_encoder_t *enc);

/* Decodes one block chunk (as produced by the encoder) into events, for
 * spill files and recovery.  *out is malloc'd (caller frees), *n set. */
LOGFMT_API int  logfmt_block_decode (const void *block, size_t len,
                                     logfmt_block_info_t *info,
                                     logfmt_event_t **out, size_t *n,
                                     logfmt_error_t *err);

/* ------------------------------------------------------------------ */
/* Summary builder: per-stream level-of-detail summaries               */
/* ------------------------------------------------------------------ */

typedef struct logfmt_summary_builder logfmt_summary_builder_t;

/* `states` classifies event ids (start/end pairs); borrowed for the
 * builder's lifetime.  Memory is bounded (bins coarsen as needed). */
LOGFMT_API int  logfmt_summary_builder_new (const logfmt_state_def_t *states,
                                            size_t nstates,
                                            logfmt_summary_builder_t **out);
LOGFMT_API int  logfmt_summary_builder_add (logfmt_summary_builder_t *sb,
                                            const logfmt_event_t *ev,
                                            size_t n);
/* Produces the serialized summary chunk for logfmt_writer_put_summary.
 * *bytes is malloc'd; caller frees. */
LOGFMT_API int  logfmt_summary_builder_finish (logfmt_summary_builder_t *sb,
                                               uint32_t stream,
                                               void **bytes, size_t *len);
LOGFMT_API void logfmt_summary_builder_free (logfmt_summary_builder_t *sb);

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

typedef struct logfmt_writer logfmt_writer_t;

typedef struct
{
  size_t      size;            /* sizeof (logfmt_writer_opts_t) */
  uint32_t    block_events;    /* 0 = default */
  int         zstd_level;      /* 0 = default */
  int         match_messages;  /* match SEND/RECV given to writer_event */
  const char *creator;         /* free text, e.g. "mpe 0.1 (MPICH 4.0)" */
  uint32_t    world_size;      /* number of MPI processes */
  int64_t     origin_unix_ns;  /* wall-clock time of t=0, 0 if unknown */
} logfmt_writer_opts_t;

LOGFMT_API int logfmt_writer_open (const char *path,
                                   const logfmt_writer_opts_t *opts,
                                   logfmt_writer_t **out,
                                   logfmt_error_t *err);

/* Definitions.  Strings are copied.  State and event definitions must
 * precede the first logfmt_writer_event call (summaries need them);
 * a later definition of the same ids replaces the earlier one. */
LOGFMT_API int logfmt_writer_add_state (logfmt_writer_t *w,
                                        const logfmt_state_def_t *def);
LOGFMT_API int logfmt_writer_add_event_def (logfmt_writer_t *w,
                                            const logfmt_event_def_t *def);
LOGFMT_API int logfmt_writer_add_stream (logfmt_writer_t *w,
                                         const logfmt_stream_def_t *def,
                                         uint32_t *stream_out);
LOGFMT_API int logfmt_writer_add_comm (logfmt_writer_t *w,
                                       const logfmt_comm_def_t *def);
LOGFMT_API int logfmt_writer_add_const (logfmt_writer_t *w,
                                        const logfmt_const_def_t *def);

/* Streaming path: the writer encodes, indexes and summarises.  Events of
 * one stream must come in time order; streams may interleave (memory is
 * bounded per open stream). */
LOGFMT_API int logfmt_writer_event (logfmt_writer_t *w, uint32_t stream,
                                    const logfmt_event_t *ev, size_t n);
/* The stream has no more events: its last block and its summary are
 * written now and its memory freed (a writer fed stream after stream
 * then holds one stream at a time).  Later events for it: LOGFMT_EINVAL. */
LOGFMT_API int logfmt_writer_end_stream (logfmt_writer_t *w, uint32_t stream);

/* Assembly path, for parallel writers: a block chunk made by an encoder
 * elsewhere (its stream field is replaced by `stream`), a summary chunk
 * made by a summary builder, and matched messages. */
LOGFMT_API int logfmt_writer_put_block (logfmt_writer_t *w, uint32_t stream,
                                        const void *block, size_t len);
LOGFMT_API int logfmt_writer_put_summary (logfmt_writer_t *w, uint32_t stream,
                                          const void *bytes, size_t len);
LOGFMT_API int logfmt_writer_put_messages (logfmt_writer_t *w,
                                           const logfmt_message_t *m,
                                           size_t n);

/* The writer's first error (its code and a message naming the cause), or
 * NULL while there is none. */
LOGFMT_API const logfmt_error_t *logfmt_writer_error (const logfmt_writer_t *w);

/* Assembly in place, for parallel writers that write their chunks into
 * the file themselves (each process its own region, e.g. with MPI-IO):
 * logfmt_writer_reserve sets `len` bytes aside at the end of the file
 * (what the writer buffered is written first) and gives their offset in
 * *at; the chunks written there are indexed with logfmt_writer_note_chunk,
 * from their offset and their first bytes (at least
 * LOGFMT_CHUNK_HEAD_MAX, or the whole chunk): blocks made by an encoder,
 * TRACK chunks made by a track encoder, MSGS chunks made by
 * logfmt_messages_encode, with their own stream ids (nothing is patched).
 * Every reserved byte must be written, by chunks, before the file is
 * used; the writer cannot check it. */
#define LOGFMT_CHUNK_HEAD_MAX 72
LOGFMT_API int logfmt_writer_reserve (logfmt_writer_t *w, uint64_t len,
                                      uint64_t *at);
LOGFMT_API int logfmt_writer_note_chunk (logfmt_writer_t *w, uint64_t at,
                                         const void *head, size_t len);
/* Matched messages as MSGS chunks of at most LOGFMT_MESSAGES_PER_CHUNK,
 * each handed to cb (the array is sorted in place by first time). */
#define LOGFMT_MESSAGES_PER_CHUNK 4096
LOGFMT_API int logfmt_messages_encode (logfmt_message_t *m, size_t n,
                                       int (*cb) (void *user,
                                                  const void *chunk,
                                                  size_t len),
                                       void *user);

/* Writes summaries, messages (unmatched ones included), definitions,
 * index and trailer, then fsyncs.  Until this returns 0 the file has no
 * valid trailer and readers report LOGFMT_EPARTIAL.  Frees w in all
 * cases. */
LOGFMT_API int  logfmt_writer_finish (logfmt_writer_t *w, logfmt_error_t *err);
/* Abandons the file (removes it) and frees w. */
LOGFMT_API void logfmt_writer_abort (logfmt_writer_t *w);

/* ------------------------------------------------------------------ */
/* Reader                                                              */
/* ------------------------------------------------------------------ */

typedef struct logfmt_reader logfmt_reader_t;

typedef struct
{
  uint16_t    major, minor;     /* format version of the file */
  const char *format_name;      /* "clog3", "CLOG-02.44", "CLOG v1" */
  const char *creator;
  int64_t     origin_unix_ns;
  uint32_t    world_size;
  uint32_t    nstreams;
  uint64_t    nevents;          /* total records in all streams */
  uint64_t    nmessages;        /* entries in the message table */
  uint64_t    t_first, t_last;  /* ns */
  uint64_t    file_size;
  uint64_t    lost_events;      /* sum of LOSS records */
  int         partial;          /* 1: no valid trailer (an unfinished or
                                   cut file), read by scanning its chunks
                                   (LOGFMT_OPEN_TOLERANT): what followed
                                   the last whole chunk is missing */
} logfmt_info_t;

/* Progress callback for slow opens (e.g. an imported CLOG2 file):
 * fraction in [0,1]; return non-zero to cancel (LOGFMT_ESTATE). */
typedef int (*logfmt_progress_cb) (void *user, double fraction);

#define LOGFMT_OPEN_NOVERIFY  0x0u
#define LOGFMT_OPEN_TOLERANT  0x1u  /* open a partial file by scanning */

/* Opens a .clog file by mmap, or a CLOG2 / CLOG v1 file by converting it
 * (recognised by content, not name).  The file is checked lazily: block
 * checksums are verified when a block is decoded. */
LOGFMT_API int  logfmt_reader_open (const char *path, unsigned flags,
                                    logfmt_reader_t **out,
                                    logfmt_error_t *err);
LOGFMT_API int  logfmt_reader_open_progress (const char *path, unsigned flags,
                                             logfmt_progress_cb cb, void *user,
                                             logfmt_reader_t **out,
                                             logfmt_error_t *err);
LOGFMT_API void logfmt_reader_close (logfmt_reader_t *r);
/* Unmaps the pages of the file read so far (they count as the process's
 * resident memory until the kernel needs them back): for a program that
 * reads a little of every part of a large file once, e.g. the summaries
 * of 100,000 streams.  Later reads map them again from the page cache.
 * Safe while other threads read; a no-op for converted files. */
LOGFMT_API void logfmt_reader_drop_pages (logfmt_reader_t *r);

/* What a file is, by its content (not its name). */
typedef enum
{
  LOGFMT_FILE_UNKNOWN = 0,
  LOGFMT_FILE_CLOG,       /* this library's indexed format */
  LOGFMT_FILE_CLOG2,      /* MPE2's CLOG-02.44, either byte order */
  LOGFMT_FILE_CLOG1       /* old MPE's CLOG v1 */
} logfmt_file_kind_t;
LOGFMT_API int  logfmt_file_kind (const char *path, logfmt_file_kind_t *kind,
                                  logfmt_error_t *err);

/* Converts an MPE2 log (CLOG2 or CLOG v1) to a .clog at out_path, so that
 * it opens instantly afterwards (the reader imports MPE2 files on every
 * open).  Streams through the writer: memory stays bounded whatever the
 * size; the input is mapped, not read into memory.  creator: free text
 * for the header, or NULL.  LOGFMT_EBADMAGIC if in_path is not MPE2's. */
LOGFMT_API int  logfmt_import_mpe2 (const char *in_path, const char *out_path,
                                    const char *creator,
                                    logfmt_progress_cb cb, void *user,
                                    logfmt_error_t *err);

/* What a CLOG2 export changed or left out, because CLOG2 cannot hold it
 * (docs/INTEROP.md lists every case). */
typedef struct
{
  size_t   size;             /* sizeof (logfmt_clog2_report_t), by caller */
  uint64_t records;          /* CLOG2 records written (all types) */
  uint64_t events;           /* events and message ends written */
  uint64_t losses_dropped;   /* LOSS records: CLOG2 has no such record */
  uint64_t sizes_clamped;    /* message sizes above 2^31-1, written as that */
  uint64_t ends_on_world;    /* message ends whose communicator does not
                                hold both ranks, written on MPI_COMM_WORLD */
  uint32_t strings_cut;      /* names, colours, formats, hosts cut to fit */
  uint32_t colors_named;     /* "#rrggbb" colours given the nearest X11 name */
  uint32_t comms_world_numbered; /* communicators written numbered by world
                                rank (their groups are unknown) */
  uint32_t consts_clamped;   /* constants outside int32 */
} logfmt_clog2_report_t;

/* Writes everything r holds to out_path as an MPE2 CLOG2 file: a merged
 * "CLOG-02.44" log, big-endian, as MPE2's own tools (clog2_print,
 * clog2TOslog2, Jumpshot) read it.  Streams the reader's iterators:
 * memory depends on the number of streams, not of events.  report (may be
 * NULL) receives what CLOG2 could not hold.  On failure the partial
 * output is removed. */
LOGFMT_API int  logfmt_export_clog2 (const logfmt_reader_t *r,
                                     const char *out_path,
                                     logfmt_progress_cb cb, void *user,
                                     logfmt_clog2_report_t *report,
                                     logfmt_error_t *err);

LOGFMT_API const logfmt_info_t *logfmt_reader_info (const logfmt_reader_t *r);

/* Definitions; returned pointers live as long as the reader. */
LOGFMT_API size_t logfmt_reader_n_states (const logfmt_reader_t *r);
LOGFMT_API const logfmt_state_def_t *
                  logfmt_reader_state (const logfmt_reader_t *r, size_t i);
LOGFMT_API size_t logfmt_reader_n_event_defs (const logfmt_reader_t *r);
LOGFMT_API const logfmt_event_def_t *
                  logfmt_reader_event_def (const logfmt_reader_t *r, size_t i);
/* Event definition index for an id, or -1. */
LOGFMT_API int    logfmt_reader_find_event_def (const logfmt_reader_t *r,
                                                int32_t id);
LOGFMT_API const logfmt_stream_def_t *
                  logfmt_reader_stream (const logfmt_reader_t *r, uint32_t i);
LOGFMT_API size_t logfmt_reader_n_comms (const logfmt_reader_t *r);
LOGFMT_API const logfmt_comm_def_t *
                  logfmt_reader_comm (const logfmt_reader_t *r, size_t i);
LOGFMT_API size_t logfmt_reader_n_consts (const logfmt_reader_t *r);
LOGFMT_API const logfmt_const_def_t *
                  logfmt_reader_const (const logfmt_reader_t *r, size_t i);
/* Event blocks decoded so far through r, by all its iterators (the
 * interval iterators' included): what a query or window read cost, for
 * tests and benchmarks. */
LOGFMT_API uint64_t logfmt_reader_blocks_decoded (const logfmt_reader_t *r);

/* Resource definitions (DEFS kinds 14-17, FORMAT.md section 8): the
 * machine under the threads (CPU topology, network interfaces) and the
 * memory profile's call sites and totals.  One shape for all four: a
 * stream (or LOGFMT_NO_STREAM), integers and strings whose meaning the
 * kind gives (LOGFMT_RES_*_* indices below); a reader gets 0 / NULL for
 * values a shorter record does not have. */
enum
{
  LOGFMT_RES_CPU = 14,       /* a logical CPU of a host */
  LOGFMT_RES_MEMSITE = 15,   /* a (thread : call site) memory cell */
  LOGFMT_RES_MEMTOTAL = 16,  /* a process's memory totals */
  LOGFMT_RES_NIC = 17        /* a network interface of a host */
};
#define LOGFMT_RES_MAX_V 8
#define LOGFMT_RES_MAX_S 2
/* CPU: s[0] host; v: */
#define LOGFMT_CPU_ID     0   /* OS number (perf, sched_getcpu) */
#define LOGFMT_CPU_CORE   1   /* core index on the host (SMT siblings) */
#define LOGFMT_CPU_SOCKET 2
#define LOGFMT_CPU_NUMA   3
#define LOGFMT_CPU_SMT    4   /* rank among its core's logical CPUs */
/* MEMSITE: stream = the allocating thread's; s[0] module path; v: */
#define LOGFMT_MEM_ID       0  /* value of the memory track's cell column */
#define LOGFMT_MEM_KIND     1  /* 0 heap (malloc family), 1 anonymous mmap */
#define LOGFMT_MEM_OFFSET   2  /* call-site address - module load base */
#define LOGFMT_MEM_ADDRESS  3  /* absolute address in the process */
#define LOGFMT_MEM_PEAK     4  /* highest live bytes */
#define LOGFMT_MEM_LIVE_END 5  /* live bytes when the log was finished */
#define LOGFMT_MEM_CALLS    6  /* allocations */
/* MEMTOTAL: stream = the process's first thread; v: */
#define LOGFMT_MEMT_PEAK     0
#define LOGFMT_MEMT_LIVE_END 1
#define LOGFMT_MEMT_DROPPED  2  /* sites beyond the table (counted in totals) */
/* NIC: s[0] host, s[1] interface name; v: */
#define LOGFMT_NIC_ID     0   /* value of the network track's nic column */

typedef struct
{
  uint32_t    kind;                 /* LOGFMT_RES_* */
  uint32_t    stream;               /* or LOGFMT_NO_STREAM */
  uint32_t    nv, ns;               /* values and strings used */
  int64_t     v[LOGFMT_RES_MAX_V];
  const char *s[LOGFMT_RES_MAX_S];  /* may be NULL */
} logfmt_resource_def_t;

LOGFMT_API int    logfmt_writer_add_resource (logfmt_writer_t *w,
                                              const logfmt_resource_def_t *d);
LOGFMT_API size_t logfmt_reader_n_resources (const logfmt_reader_t *r);
LOGFMT_API const logfmt_resource_def_t *
                  logfmt_reader_resource (const logfmt_reader_t *r, size_t i);

/* Number of records stored for one stream (from the index). */
LOGFMT_API uint64_t logfmt_reader_stream_events (const logfmt_reader_t *r,
                                                 uint32_t stream);

/* Event iteration over one stream, events with t0 <= time <= t1.  Only
 * blocks whose range intersects the window are decoded.  Pass
 * t0 = 0, t1 = UINT64_MAX for everything. */
typedef struct logfmt_iter logfmt_iter_t;
LOGFMT_API int  logfmt_iter_new (const logfmt_reader_t *r, uint32_t stream,
                                 uint64_t t0, uint64_t t1,
                                 logfmt_iter_t **out);
/* Returns 1 and fills *ev, 0 at the end, or a negative code (details in
 * logfmt_iter_error). */
LOGFMT_API int  logfmt_iter_next (logfmt_iter_t *it, logfmt_event_t *ev);
/* Fills up to max events at once (cheaper per event for full scans).
 * Returns the number filled (> 0), 0 at the end, or a negative code; an
 * error met after some events were filled is returned by the next call.
 * As with logfmt_iter_next, cargo[] is written only when flags has
 * LOGFMT_EVF_CARGO. */
LOGFMT_API long logfmt_iter_next_batch (logfmt_iter_t *it,
                                        logfmt_event_t *ev, size_t max);
LOGFMT_API const logfmt_error_t *logfmt_iter_error (const logfmt_iter_t *it);
/* Points an iterator at another stream or range, from its start, keeping
 * its buffers and decompression context (cheaper than a new one when
 * many streams are read in turn).  0, or LOGFMT_EINVAL / LOGFMT_ERANGE. */
LOGFMT_API int  logfmt_iter_reset (logfmt_iter_t *it, uint32_t stream,
                                   uint64_t t0, uint64_t t1);
LOGFMT_API void logfmt_iter_free (logfmt_iter_t *it);

/* Summaries: the time range [t0, t1) divided into nbins equal bins.
 * occupancy (nbins * nstates floats, row-major by bin) receives the
 * fraction of each bin during which each state was the innermost open
 * state; events (nbins entries, may be NULL) the number of records.  The
 * finest stored level not finer than needed is resampled; *level_ns (may
 * be NULL) receives its bin width, so a caller can tell when decoding
 * events would be more precise. */
LOGFMT_API int  logfmt_reader_summary (const logfmt_reader_t *r,
                                       uint32_t stream,
                                       uint64_t t0, uint64_t t1,
                                       uint32_t nbins,
                                       float *occupancy, uint32_t *events,
                                       uint64_t *level_ns,
                                       logfmt_error_t *err);

/* ------------------------------------------------------------------ */
/* State intervals: BEGIN/END records paired into instances            */
/* ------------------------------------------------------------------ */

/* The one rule (docs/FORMAT.md section 13), applied per stream
 * (a thread's records are never paired with another stream's):
 *  - a BEGIN opens a new instance of its state, the innermost one;
 *  - an END closes the innermost open instance of ITS state and leaves
 *    every other open instance open (states may overlap without
 *    nesting: BEGIN A, BEGIN B, END A, END B gives A and B);
 *  - an END with no open instance of its state is unmatched: counted,
 *    no instance (logging may have started inside the state);
 *  - a BEGIN met while LOGFMT_STATE_MAX_DEPTH instances are open is too
 *    deep: counted, no instance; the next END of that state closes it
 *    (before any tracked instance of the state); while it is open its
 *    time counts as its innermost tracked enclosing instance's;
 *  - instances still open when the stream ends are left open: they are
 *    cut at the stream's last record (LOGFMT_IV_OPEN).
 * Exclusive time is the time an instance was the innermost open one,
 * the quantity summaries store per state (FORMAT.md section 6). */
#define LOGFMT_STATE_MAX_DEPTH 256

#define LOGFMT_IV_OPEN         0x1u  /* no END: cut where the stream ends */
#define LOGFMT_IV_BEGIN_CARGO  0x2u  /* begin_cargo[] is valid */
#define LOGFMT_IV_END_CARGO    0x4u  /* end_cargo[] is valid */

typedef struct
{
  uint32_t stream;      /* stream index (rank and thread: logfmt_reader_stream) */
  int32_t  state;       /* state index (logfmt_reader_state) */
  uint64_t start;       /* time of the BEGIN */
  uint64_t end;         /* time of the END, or of the stream's last record
                         * for an instance left open (LOGFMT_IV_OPEN) */
  uint64_t inclusive;   /* end - start */
  uint64_t exclusive;   /* ns during which it was the innermost open
                         * instance; <= inclusive */
  uint32_t depth;       /* instances open around it at its BEGIN (0 =
                         * outermost); < LOGFMT_STATE_MAX_DEPTH */
  uint32_t flags;       /* LOGFMT_IV_* */
  uint8_t  begin_cargo[LOGFMT_CARGO_SIZE];  /* the BEGIN's, if flagged */
  uint8_t  end_cargo[LOGFMT_CARGO_SIZE];    /* the END's, if flagged */
} logfmt_interval_t;

/* Per-state tallies of a pass (logfmt_interval_iter_counts). */
typedef struct
{
  uint64_t closed;          /* instances closed by an END */
  uint64_t left_open;       /* instances cut at the end of the stream */
  uint64_t unmatched_ends;  /* ENDs that closed nothing */
  uint64_t too_deep;        /* BEGINs beyond LOGFMT_STATE_MAX_DEPTH */
  uint64_t inclusive;       /* ns, sum over closed instances */
  uint64_t exclusive;       /* ns, sum over closed instances */
} logfmt_interval_counts_t;

/* Pull iterator over the instances of one stream that overlap [t0, t1]
 * (start <= t1 and end >= t0; t0 = 0, t1 = UINT64_MAX for all).
 * Instances come in the order they close (END time), then those left
 * open, outermost first.  Every field is what a whole-stream pass gives:
 * an instance crossing a window edge is NOT clipped (compare start and
 * end with the window).  A window that does not cover the whole stream
 * decodes only the blocks from the one holding t0 to the first block
 * start after t1: what is open at each block start comes from one whole
 * pass over the stream, made by the first such window (or by
 * logfmt_interval_index) and kept by the reader.  Memory is fixed after
 * _new; no allocation per record. */
typedef struct logfmt_interval_iter logfmt_interval_iter_t;
LOGFMT_API int  logfmt_interval_iter_new (const logfmt_reader_t *r,
                                          uint32_t stream,
                                          uint64_t t0, uint64_t t1,
                                          logfmt_interval_iter_t **out);
/* 1 and fills *iv, 0 at the end, or a negative code (details in
 * logfmt_interval_iter_error; instances delivered so far are right). */
LOGFMT_API int  logfmt_interval_iter_next (logfmt_interval_iter_t *it,
                                           logfmt_interval_t *iv);
/* Another stream or window, from its start, keeping the buffers. */
LOGFMT_API int  logfmt_interval_iter_reset (logfmt_interval_iter_t *it,
                                            uint32_t stream,
                                            uint64_t t0, uint64_t t1);
/* Tallies of the pass so far for one state (state < 0: all states):
 * closed and left_open count delivered instances; unmatched_ends and
 * too_deep count records with t0 <= time <= t1. */
LOGFMT_API int  logfmt_interval_iter_counts (const logfmt_interval_iter_t *it,
                                             int32_t state,
                                             logfmt_interval_counts_t *c);
LOGFMT_API const logfmt_error_t *
                logfmt_interval_iter_error (const logfmt_interval_iter_t *it);
LOGFMT_API void logfmt_interval_iter_free (logfmt_interval_iter_t *it);
/* Makes the whole pass that window queries of a stream need, now (e.g.
 * in a background thread after open); safe to call from any thread, at
 * most one pass per stream is kept.  0 or a negative code. */
LOGFMT_API int  logfmt_interval_index (const logfmt_reader_t *r,
                                       uint32_t stream);

/* The same rule, pushed one record at a time, for callers that walk the
 * records themselves and need to act in time order (an exporter writing
 * enter/leave events, a builder binning the innermost state). */
typedef struct logfmt_state_tracker logfmt_state_tracker_t;

typedef enum
{
  LOGFMT_STEP_NONE = 0,       /* not a BEGIN or END of a known state */
  LOGFMT_STEP_OPENED,         /* a new innermost instance (open index depth-1) */
  LOGFMT_STEP_CLOSED,         /* *closed filled; its inner instances stay open */
  LOGFMT_STEP_UNMATCHED_END,  /* an END that closed nothing */
  LOGFMT_STEP_TOO_DEEP        /* a BEGIN beyond the limit, or its END */
} logfmt_step_t;

/* nstates: states are 0 .. nstates-1 (others are ignored).  stream is
 * copied into the instances. */
LOGFMT_API int  logfmt_state_tracker_new (size_t nstates, uint32_t stream,
                                          logfmt_state_tracker_t **out);
/* The same pairing with less bookkeeping (logfmt_state_tracker_new_mode):
 * LOGFMT_TRACKER_NESTING keeps only which instances are open, since
 * when and at what depth; instances have exclusive 0 and no cargo
 * (flags 0 but LOGFMT_IV_OPEN), everything else (steps, states, times,
 * depths, inner counts, what is open) is what the full tracker gives.
 * For callers that draw or count the innermost state (a viewer's
 * lanes): about 5.4 instead of 6.4 ns per record (docs/benchmarks/
 * viewer.md, round 8). */
#define LOGFMT_TRACKER_FULL     0u
#define LOGFMT_TRACKER_NESTING  1u
LOGFMT_API int  logfmt_state_tracker_new_mode (size_t nstates,
                                               uint32_t stream,
                                               unsigned mode,
                                               logfmt_state_tracker_t **out);
/* Forgets every open instance; starts a new stream. */
LOGFMT_API void logfmt_state_tracker_reset (logfmt_state_tracker_t *tr,
                                            uint32_t stream);
/* Applies one record as the reader classifies it (kind, state, time,
 * flags, cargo).  Returns a logfmt_step_t, or LOGFMT_ENOMEM.  For
 * LOGFMT_STEP_CLOSED, *closed (may be NULL) receives the instance and
 * *inner (may be NULL) the number of open instances that were inside it
 * and stay open: they are now open indices depth-inner .. depth-1. */
LOGFMT_API int  logfmt_state_tracker_apply (logfmt_state_tracker_t *tr,
                                            const logfmt_event_t *ev,
                                            logfmt_interval_t *closed,
                                            uint32_t *inner);
/* Open instances, outermost (0) to innermost (depth-1); end and
 * inclusive are not meaningful yet, exclusive counts up to the last
 * BEGIN or END. */
LOGFMT_API uint32_t logfmt_state_tracker_depth (const logfmt_state_tracker_t *tr);
LOGFMT_API const logfmt_interval_t *
                logfmt_state_tracker_open (const logfmt_state_tracker_t *tr,
                                           uint32_t i);
/* Ends the stream at time t_cut (its last record): takes the outermost
 * open instance, cut there (LOGFMT_IV_OPEN), into *iv.  1 while there
 * is one, then 0. */
LOGFMT_API int  logfmt_state_tracker_cut (logfmt_state_tracker_t *tr,
                                          uint64_t t_cut,
                                          logfmt_interval_t *iv);
LOGFMT_API void logfmt_state_tracker_free (logfmt_state_tracker_t *tr);

/* The same rule over n records in one call, for callers that walk many
 * (a viewer's lanes): what each record did, in arrays the caller gives,
 * each optional (NULL), each with room for n. */
typedef struct
{
  int32_t           *top;        /* per record: innermost open state after
                                  * it, -1 when none */
  logfmt_interval_t *closed;     /* instances closed, in order */
  size_t             nclosed;    /* out: how many */
  int32_t           *unmatched;  /* states of the ENDs that closed
                                  * nothing, in order */
  size_t             nunmatched; /* out: how many */
} logfmt_tracker_batch_t;

/* Applies ev[0 .. n-1] as logfmt_state_tracker_apply would, one after
 * the other (closed instances carry cargo as there).  0, or a negative
 * code (LOGFMT_ENOMEM: the records before the failing one are applied
 * and reported). */
LOGFMT_API int  logfmt_state_tracker_apply_batch (logfmt_state_tracker_t *tr,
                                                  const logfmt_event_t *ev,
                                                  size_t n,
                                                  logfmt_tracker_batch_t *out);

/* Messages whose [send_time, recv_time] intersects [t0, t1]. */
typedef struct logfmt_msg_iter logfmt_msg_iter_t;
LOGFMT_API int  logfmt_msg_iter_new (const logfmt_reader_t *r,
                                     uint64_t t0, uint64_t t1,
                                     logfmt_msg_iter_t **out);
LOGFMT_API int  logfmt_msg_iter_next (logfmt_msg_iter_t *it,
                                      logfmt_message_t *m);
LOGFMT_API const logfmt_error_t *logfmt_msg_iter_error (const logfmt_msg_iter_t *it);
LOGFMT_API void logfmt_msg_iter_free (logfmt_msg_iter_t *it);

/* Full check of every block, checksum, index entry, summary and the
 * message table.  Calls report (may be NULL) once per problem found;
 * returns 0 if the file is sound, else the first error's code. */
typedef void (*logfmt_report_cb) (void *user, const logfmt_error_t *problem);
LOGFMT_API int  logfmt_verify (const char *path, logfmt_report_cb report,
                               void *user);

/* Rebuilds a finished file from a partial or damaged one by scanning its
 * chunks; keeps every block whose checksum holds.  *kept and *lost (may be
 * NULL) count blocks. */
LOGFMT_API int  logfmt_repair (const char *in_path, const char *out_path,
                               uint64_t *kept, uint64_t *lost,
                               logfmt_error_t *err);
/* The same, with what it found: the message table is copied when it
 * pairs exactly the sends and receives of the kept blocks, else rebuilt
 * from them (a cut file keeps only its first message runs). */
typedef struct
{
  uint64_t blocks_kept, blocks_lost;  /* lost: checksum, framing, decoding */
  uint64_t messages;                  /* entries copied (0 if rebuilt) */
  int      partial;                   /* the input had no valid trailer */
  int      rematched;                 /* the table was rebuilt */
} logfmt_repair_report_t;
LOGFMT_API int  logfmt_repair_report (const char *in_path,
                                      const char *out_path,
                                      logfmt_repair_report_t *rep,
                                      logfmt_error_t *err);


/* ------------------------------------------------------------------ */
/* Extension tracks (FORMAT.md section 14)                             */
/* ------------------------------------------------------------------ */

/* A track is one stream's time series of one kind: records of a time
 * and ncols signed 64-bit columns (ncols fixed per kind).  New record
 * kinds (metric samples, call-path samples, context switches, ...) go
 * here, not into BLOCK chunks, so readers that predate them skip them.
 * Kinds are reserved numbers; logfmt_track_kind_ncols knows each one's
 * column count (add a kind there when you add one). */
enum
{
  LOGFMT_TRACK_METRIC   = 1,  /* metric sample: id, object, value */
  LOGFMT_TRACK_CALLPATH = 2,  /* call-path sample (section 15) */
  LOGFMT_TRACK_CALLSITE = 3,  /* MPI call at its call site (section 15) */
  LOGFMT_TRACK_SWITCH   = 4,  /* context switch: cpu, what (below) */
  LOGFMT_TRACK_MEMORY   = 5,  /* memory: cell, live bytes, calls */
  LOGFMT_TRACK_NETWORK  = 6,  /* NIC counters: nic, rx/tx bytes, packets */
  LOGFMT_TRACK_COUNTER  = 7,  /* reserved (sched) */
  LOGFMT_TRACK_KIND_MAX = 31  /* kinds are 1 .. LOGFMT_TRACK_KIND_MAX */
};

#define LOGFMT_TRACK_MAX_COLS 8

/* Columns of a LOGFMT_TRACK_SWITCH record: the CPU, and what happened:
 * the thread started running there (1), or stopped: it blocked (2, a
 * voluntary switch) or was preempted while runnable (3). */
#define LOGFMT_SWITCH_COL_CPU  0
#define LOGFMT_SWITCH_COL_WHAT 1
#define LOGFMT_SWITCH_IN        1
#define LOGFMT_SWITCH_BLOCKED   2
#define LOGFMT_SWITCH_PREEMPTED 3
/* Columns of a LOGFMT_TRACK_MEMORY record: the cell (LOGFMT_MEM_ID of a
 * LOGFMT_RES_MEMSITE definition of the stream, -1 for the process's
 * total), its live bytes from this time on, its allocations so far. */
#define LOGFMT_MEMORY_COL_CELL  0
#define LOGFMT_MEMORY_COL_LIVE  1
#define LOGFMT_MEMORY_COL_CALLS 2
/* Columns of a LOGFMT_TRACK_NETWORK record (a host's interface counters,
 * on the stream of the host's lowest rank's first thread): the nic
 * (LOGFMT_NIC_ID of a LOGFMT_RES_NIC definition), then the counters read
 * from the kernel, cumulative: rx bytes, tx bytes, rx packets, tx
 * packets. */
#define LOGFMT_NETWORK_COL_NIC 0
#define LOGFMT_NETWORK_COL_RXB 1
#define LOGFMT_NETWORK_COL_TXB 2
#define LOGFMT_NETWORK_COL_RXP 3
#define LOGFMT_NETWORK_COL_TXP 4

typedef struct
{
  uint64_t time;                        /* ns; never decreases per track */
  int64_t  col[LOGFMT_TRACK_MAX_COLS];  /* the kind's ncols first ones */
} logfmt_track_rec_t;

/* Columns of a LOGFMT_TRACK_METRIC record. */
#define LOGFMT_METRIC_COL_ID     0  /* logfmt_metric_def_t.id */
#define LOGFMT_METRIC_COL_OBJECT 1  /* -1, or the partner's world rank for
                                       a LOGFMT_METRIC_CHANNEL metric */
#define LOGFMT_METRIC_COL_VALUE  2  /* the cell's value from this time on */

/* Column count of a known kind (1..LOGFMT_TRACK_MAX_COLS), or
 * LOGFMT_ENOENT for a kind this library does not know (a reader still
 * decodes such tracks: every chunk states its column count). */
LOGFMT_API int logfmt_track_kind_ncols (uint32_t kind);

/* Metric definitions (DEFS kind 7). */
#define LOGFMT_METRIC_TIMER    0x1u  /* accumulated ns (unit "ns") */
#define LOGFMT_METRIC_LEVEL    0x2u  /* a level (resource in use, may go
                                        down); else a counter that sums */
#define LOGFMT_METRIC_CHANNEL  0x4u  /* one value per channel (ordered pair
                                        this stream's rank -> object rank) */
#define LOGFMT_METRIC_STANDARD 0x8u  /* kept by the MPI wrappers */
#define LOGFMT_METRIC_MONITOR  0x10u /* taken by the live monitor at a
                                        hierarchy level: the record's
                                        object is the level's object
                                        (FORMAT.md section 14) */
#define LOGFMT_METRIC_COUNTER  0x20u /* an OS or hardware counter of the
                                        thread (libmpe's MPE_COUNTERS);
                                        with LEVEL: the standard error
                                        of such a counter's estimate
                                        (NAME.err, rotated sets) */

typedef struct
{
  uint32_t    id;         /* value of the record's id column */
  uint32_t    flags;      /* LOGFMT_METRIC_* */
  const char *name;
  const char *unit;       /* "ns", "bytes", "1" (a count), ... */
} logfmt_metric_def_t;

/* Writer side.  Definitions may come at any time before finish; a
 * later definition of the same id replaces the earlier one. */
LOGFMT_API int logfmt_writer_add_metric (logfmt_writer_t *w,
                                         const logfmt_metric_def_t *def);
/* Appends n records of one kind to a stream's track.  Records of one
 * (stream, kind) must come in time order (an earlier time is raised to
 * its predecessor's and counted, as for events); kinds and streams may
 * interleave.  Metric tracks also get their level-of-detail summaries.
 * Memory is bounded per (stream, kind); logfmt_writer_track_flush
 * releases a stream that is complete. */
LOGFMT_API int logfmt_writer_track_add (logfmt_writer_t *w, uint32_t stream,
                                        uint32_t kind,
                                        const logfmt_track_rec_t *recs,
                                        size_t n);
LOGFMT_API int logfmt_writer_track_flush (logfmt_writer_t *w,
                                          uint32_t stream);

/* The same encoding outside a writer, for parallel writers (as
 * logfmt_encoder_t is for blocks): each sealed TRACK chunk goes to cb,
 * and logfmt_writer_put_track copies it into the file (its stream field
 * replaced). */
typedef int (*logfmt_track_chunk_cb) (void *user, const void *chunk,
                                      size_t len);
typedef struct logfmt_track_encoder logfmt_track_encoder_t;
LOGFMT_API int  logfmt_track_encoder_new (uint32_t stream,
                                          logfmt_track_chunk_cb cb,
                                          void *user,
                                          logfmt_track_encoder_t **out);
LOGFMT_API int  logfmt_track_encoder_add (logfmt_track_encoder_t *te,
                                          uint32_t kind,
                                          const logfmt_track_rec_t *recs,
                                          size_t n);
/* Seals every partial chunk and summary bin (call once, at the end). */
LOGFMT_API int  logfmt_track_encoder_flush (logfmt_track_encoder_t *te);
LOGFMT_API uint64_t logfmt_track_encoder_fixed_times
                                  (const logfmt_track_encoder_t *te);
LOGFMT_API void logfmt_track_encoder_free (logfmt_track_encoder_t *te);
LOGFMT_API int  logfmt_writer_put_track (logfmt_writer_t *w, uint32_t stream,
                                         const void *chunk, size_t len);

/* Reader side.  Metric definitions; pointers live as long as r. */
LOGFMT_API size_t logfmt_reader_n_metrics (const logfmt_reader_t *r);
LOGFMT_API const logfmt_metric_def_t *
                  logfmt_reader_metric (const logfmt_reader_t *r, size_t i);
/* Index of the definition with this id, or -1. */
LOGFMT_API int    logfmt_reader_find_metric (const logfmt_reader_t *r,
                                             uint32_t id);

/* Totals of one (stream, kind) from the directory, without decoding;
 * stream = LOGFMT_NO_STREAM sums every stream.  LOGFMT_ENOENT (and a
 * zeroed *info) when there is no such track. */
typedef struct
{
  uint64_t records;
  uint64_t t_first, t_last;
  uint32_t chunks;
  uint32_t ncols;
} logfmt_track_info_t;
LOGFMT_API int logfmt_reader_track_info (const logfmt_reader_t *r,
                                         uint32_t stream, uint32_t kind,
                                         logfmt_track_info_t *info);

/* Records of (stream, kind) with t0 <= time < t1, in time order; only
 * the chunks whose range overlaps the window are read (and their CRC
 * checked).  t1 = UINT64_MAX for everything.  A stream without that
 * track gives an iterator that is at its end at once. */
typedef struct logfmt_track_iter logfmt_track_iter_t;
LOGFMT_API int  logfmt_track_iter_new (const logfmt_reader_t *r,
                                       uint32_t stream, uint32_t kind,
                                       uint64_t t0, uint64_t t1,
                                       logfmt_track_iter_t **out);
/* 1 and fills *rec (columns beyond the track's ncols are 0), 0 at the
 * end, or a negative code (details in logfmt_track_iter_error). */
LOGFMT_API int  logfmt_track_iter_next (logfmt_track_iter_t *it,
                                        logfmt_track_rec_t *rec);
/* Column count of the chunks read (0 before the first). */
LOGFMT_API uint32_t logfmt_track_iter_ncols (const logfmt_track_iter_t *it);
/* Chunks decoded so far (what a window read cost). */
LOGFMT_API uint64_t logfmt_track_iter_chunks (const logfmt_track_iter_t *it);
LOGFMT_API const logfmt_error_t *
                logfmt_track_iter_error (const logfmt_track_iter_t *it);
LOGFMT_API void logfmt_track_iter_free (logfmt_track_iter_t *it);

/* A metric's values drawn into nbins equal bins over [t0, t1), for a
 * counter track (step graph): read from the coarsest level-of-detail
 * summary whose bins are no wider than an output bin (the samples
 * themselves when none is), so a zoomed-out view of a billion samples
 * reads a few summary chunks.  Per bin: min and max of the value over
 * the bin (the value carried in from before included), the last value,
 * and the number of samples in it; a bin without samples has
 * min = max = last = the value carried in (known = 0 while no value was
 * seen yet).  One metric series: (stream, metric id, object; object -1
 * for a plain metric, the partner's world rank for a channel metric).
 * *level_ns (may be NULL) gets the bin width read, 0 for the samples.
 *
 * Typical use: for each metric definition and stream, call this with
 * the view's time range and pixel columns; for exact values (a table,
 * `clogtool metrics`), iterate the LOGFMT_TRACK_METRIC track with
 * logfmt_track_iter_* and keep the last value per (id, object). */
typedef struct
{
  int64_t  min, max, last;
  uint64_t samples;
  int      known;         /* 1 once a value is known at this bin */
} logfmt_metric_bin_t;
LOGFMT_API int logfmt_reader_metric_bins (const logfmt_reader_t *r,
                                          uint32_t stream, uint32_t id,
                                          int64_t object,
                                          uint64_t t0, uint64_t t1,
                                          uint32_t nbins,
                                          logfmt_metric_bin_t *out,
                                          uint64_t *level_ns,
                                          logfmt_error_t *err);

/* ------------------------------------------------------------------ */
/* Call paths (FORMAT.md section 15)                                   */
/* ------------------------------------------------------------------ */

/* Per rank: the binaries loaded when logging began, and the call-path
 * tree its samples and call sites (track kinds 2 and 3) point into.
 * Symbols are not stored: tools resolve module + address when reading. */
typedef struct
{
  const char *path;      /* as the loader named it */
  const char *build_id;  /* hex; "" when the binary has none */
  uint64_t    base;      /* load bias: run-time address = base + ELF vaddr */
  uint64_t    lo, hi;    /* its code at run time: [lo, hi) */
} logfmt_module_t;

#define LOGFMT_NO_MODULE UINT32_MAX

/* Node 0 is the root.  addr is relative to the module's base (the ELF
 * virtual address) when module is set, else absolute or a pseudo
 * address (LOGFMT_PSEUDO_*).  Addresses are inside an instruction: a
 * sample's leaf is the interrupted pc, callers are return address - 1. */
typedef struct
{
  uint32_t parent;
  uint32_t module;       /* index in the rank's modules, LOGFMT_NO_MODULE */
  uint64_t addr;
} logfmt_cpnode_t;

/* Pseudo addresses of constructed contexts (unwinding failed): the MPI
 * call in progress is a frame "MPI call (state s)". */
#define LOGFMT_PSEUDO_BASE      0xfff0000000000000ull
#define LOGFMT_PSEUDO_MPI(s)    (LOGFMT_PSEUDO_BASE | 0x10000u | (uint64_t) (s))
#define LOGFMT_PSEUDO_UNKNOWN   (LOGFMT_PSEUDO_BASE | 1u)

typedef struct
{
  int32_t          rank;
  size_t           nmodules;
  logfmt_module_t *modules;
  size_t           nnodes;     /* >= 1 */
  logfmt_cpnode_t *nodes;      /* parent < own index */
} logfmt_callpaths_t;

/* Columns of a LOGFMT_TRACK_CALLPATH record (a sample). */
#define LOGFMT_SAMPLE_COL_NODE  0   /* node of the rank's tree */
#define LOGFMT_SAMPLE_COL_CPU   1   /* CPU it ran on, -1 unknown */
#define LOGFMT_SAMPLE_COL_FLAGS 2   /* LOGFMT_SAMPLE_* */
#define LOGFMT_SAMPLE_COL_STATE 3   /* MPI call in progress, -1 none */
#define LOGFMT_SAMPLE_COL_WEIGHT 4  /* sampling periods it stands for (>= 1) */
#define LOGFMT_SAMPLE_FP          0x1  /* unwound by frame pointers */
#define LOGFMT_SAMPLE_UNWIND      0x2  /* unwound by libunwind */
#define LOGFMT_SAMPLE_CONSTRUCTED 0x4  /* unwinding failed: constructed */
#define LOGFMT_SAMPLE_TRUNCATED   0x8  /* cut at the depth limit */
/* Columns of a LOGFMT_TRACK_CALLSITE record (one wrapped MPI call; its
 * time is the call's begin). */
#define LOGFMT_CALLSITE_COL_NODE  0
#define LOGFMT_CALLSITE_COL_STATE 1  /* the wrapper's state number */
#define LOGFMT_CALLSITE_COL_DUR   2  /* ns */
#define LOGFMT_CALLSITE_COL_BYTES 3

/* Writer side: a rank's tables encoded as one blob (so a rank that does
 * not hold the writer can ship it), then written as two chunks. */
LOGFMT_API int  logfmt_callpaths_encode (int32_t rank,
                                         const logfmt_module_t *mods,
                                         size_t nmods,
                                         const logfmt_cpnode_t *nodes,
                                         size_t nnodes, void **blob,
                                         size_t *len);
LOGFMT_API int  logfmt_writer_put_callpaths (logfmt_writer_t *w,
                                             const void *blob, size_t len);
/* Reader side: ranks that have tables (fills up to max, returns how
 * many), and one rank's tables (LOGFMT_ENOENT when it has none). */
LOGFMT_API size_t logfmt_reader_callpath_ranks (const logfmt_reader_t *r,
                                                int32_t *ranks, size_t max);
LOGFMT_API int  logfmt_reader_callpaths (const logfmt_reader_t *r,
                                         int32_t rank,
                                         logfmt_callpaths_t **out,
                                         logfmt_error_t *err);
LOGFMT_API void logfmt_callpaths_free (logfmt_callpaths_t *cp);

#ifdef __cplusplus
}
#endif

#endif /* LOGFMT_LOGFMT_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/* Writer internals shared with the message table and summary code. */
#ifndef LOGFMT_WRITER_INTERNAL_H
#define LOGFMT_WRITER_INTERNAL_H

#include "logfmt-internal.h"

typedef struct
{
  uint64_t offset, t_first, t_last;
  uint32_t count;
} logfmt__blockref_t;

typedef struct
{
  uint64_t offset, t_min, t_max;
  uint32_t count;
} logfmt__msgref_t;

/* Serialises messages (sorted by send time by the caller) as one MSGS
 * chunk into a malloc'd buffer. */
int logfmt__msgs_encode (const logfmt_message_t *m, size_t n,
                         uint8_t **out, size_t *len,
                         uint64_t *t_min, uint64_t *t_max);
/* Decodes a MSGS chunk payload into a malloc'd array. */
int logfmt__msgs_decode (const uint8_t *payload, uint64_t len,
                         uint32_t nstreams, logfmt_message_t **out,
                         size_t *n);



struct logfmt__matcher;
int  logfmt__match_add (logfmt_writer_t *w, struct logfmt__matcher **m,
                        uint32_t stream, int32_t rank,
                        const logfmt_event_t *ev);
int  logfmt__match_finish (logfmt_writer_t *w, struct logfmt__matcher *m);
void logfmt__match_free (struct logfmt__matcher *m);
/* Repair's matching: a receive never pairs with a send that began after
 * it ended (beyond the clocks' error), since its own send may be in a
 * lost block.  Off for whole logs, whose imported clocks may be worse
 * (MPE2's CLOG2 files pair by order alone). */
void logfmt__writer_set_match_by_time (logfmt_writer_t *w);
bool logfmt__writer_match_by_time (const logfmt_writer_t *w);
int  logfmt__writer_add_message (logfmt_writer_t *w,
                                 const logfmt_message_t *m);

/* For the track writer (logfmt-track-writer.c). */
struct logfmt__wtracks;
struct logfmt__wtracks **logfmt__writer_tracks (logfmt_writer_t *w);
size_t logfmt__writer_nstreams (const logfmt_writer_t *w);
/* Appends bytes as they are; *at (may be NULL) gets their offset. */
int  logfmt__writer_raw (logfmt_writer_t *w, const void *bytes, size_t len,
                         uint64_t *at);
/* Appends a whole chunk (header, payload, CRC). */
int  logfmt__writer_chunk (logfmt_writer_t *w, uint32_t type,
                           const uint8_t *payload, uint64_t len,
                           uint64_t *at);
/* Indexes a TRACK chunk written at `at` by someone else; pay: the first
 * len bytes of its payload of plen. */
int  logfmt__wtracks_note (logfmt_writer_t *w, uint64_t at,
                           const uint8_t *pay, size_t len, uint64_t plen);
/* Seals every stream's tracks and writes the track directory. */
int  logfmt__wtracks_finish (logfmt_writer_t *w);
/* DEFS records of kinds 6 (with_dir) and 7, malloc'd. */
int  logfmt__wtracks_defs (const struct logfmt__wtracks *t, bool with_dir,
                           uint8_t **out, size_t *len);
void logfmt__wtracks_free (struct logfmt__wtracks *t);
#endif

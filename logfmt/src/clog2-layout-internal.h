/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The byte layout of MPE2's CLOG2 files ("CLOG-02.44"), shared by the
 * importer (import-clog2.c) and the writer (export-clog2.c).  Source:
 * MPE-COMPAT.md section 5.  Everything here is a file offset or a value
 * on disk; numbers are big-endian in merged files, native in MPE2's local
 * temp files (the preamble says which).
 */
#ifndef CLOG2_LAYOUT_INTERNAL_H
#define CLOG2_LAYOUT_INTERNAL_H

#include <stdint.h>

#define CLOG2_VERSION        "CLOG-02.44"
#define CLOG2_PREAMBLE_SIZE  1024
#define CLOG2_HDR_SIZE       24
#define CLOG2_UUID_SIZE      32
#define CLOG2_COMM_ENTRY     40        /* UUID, i32 local_ID, i32 kind */
#define CLOG2_FPTR_UNIT      1073741824 /* commtable_fptr = G * unit + R */
#define CLOG2_MAXTIME        1.0e8      /* ENDLOG's time in merged files */
#define CLOG2_BLOCK_SIZE     65536      /* MPE2's default block size */
#define CLOG2_NULL_COMM      (-999999999) /* FREE records, local files */

/* Preamble tokens, in the order MPE2 writes them.  Values are printed with
 * %d; the booleans are "TRUE " (with the space) or "FALSE". */
#define CLOG2_KEY_BIG_ENDIAN   "is_big_endian="
#define CLOG2_KEY_FINALIZED    "is_finalzed="     /* sic */
#define CLOG2_KEY_BLOCK_SIZE   "block_size="
#define CLOG2_KEY_NUM_BLOCKS   "num_buffered_blocks="
#define CLOG2_KEY_WORLD_SIZE   "max_comm_world_size="
#define CLOG2_KEY_THREADS      "max_thread_count="
#define CLOG2_KEY_KNOWN_EVT    "known_eventID_start="
#define CLOG2_KEY_USER_EVT     "user_eventID_start="
#define CLOG2_KEY_KNOWN_SOLO   "known_solo_eventID_start="
#define CLOG2_KEY_USER_SOLO    "user_solo_eventID_start="
#define CLOG2_KEY_KNOWN_STATES "known_stateID_count="
#define CLOG2_KEY_USER_STATES  "user_stateID_count="
#define CLOG2_KEY_KNOWN_SOLOS  "known_solo_eventID_count="
#define CLOG2_KEY_USER_SOLOS   "user_solo_eventID_count="
#define CLOG2_KEY_COMMTABLE    "commtable_fptr="  /* then three values */
#define CLOG2_TRUE             "TRUE "
#define CLOG2_FALSE            "FALSE"

/* MPE2's event id ranges (the values its preamble carries). */
#define CLOG2_KNOWN_EVENT_START      0
#define CLOG2_USER_EVENT_START       600
#define CLOG2_KNOWN_SOLO_START       (-10)
#define CLOG2_USER_SOLO_START        5000
#define CLOG2_KNOWN_STATE_COUNT      300

/* Record header: f64 time, i32 icomm, i32 rank (in icomm), i32 thread,
 * i32 rectype. */
#define CLOG2_HDR_TIME    0
#define CLOG2_HDR_ICOMM   8
#define CLOG2_HDR_RANK    12
#define CLOG2_HDR_THREAD  16
#define CLOG2_HDR_TYPE    20

enum
{
  CLOG2_REC_ENDLOG = 0, CLOG2_REC_ENDBLOCK, CLOG2_REC_STATEDEF,
  CLOG2_REC_EVENTDEF, CLOG2_REC_CONSTDEF, CLOG2_REC_BAREEVT,
  CLOG2_REC_CARGOEVT, CLOG2_REC_MSGEVT, CLOG2_REC_COLLEVT,
  CLOG2_REC_COMMEVT, CLOG2_REC_SRCLOC, CLOG2_REC_TIMESHIFT, CLOG2_REC_NTYPES
};

/* Whole record sizes (header included), by type. */
static const uint16_t clog2_rec_size[CLOG2_REC_NTYPES] = {
  24, 24, 136, 128, 64, 32, 64, 48, 40, 72, 72, 32
};

/* Body offsets (from the end of the header) and string field sizes. */
enum
{
  /* STATEDEF */
  CLOG2_SDEF_ID = 0, CLOG2_SDEF_START = 4, CLOG2_SDEF_END = 8,
  CLOG2_SDEF_COLOR = 16, CLOG2_SDEF_NAME = 40, CLOG2_SDEF_FORMAT = 72,
  /* EVENTDEF */
  CLOG2_EDEF_ID = 0, CLOG2_EDEF_COLOR = 8, CLOG2_EDEF_NAME = 32,
  CLOG2_EDEF_FORMAT = 64,
  /* CONSTDEF */
  CLOG2_CDEF_ETYPE = 0, CLOG2_CDEF_VALUE = 4, CLOG2_CDEF_NAME = 8,
  /* BAREEVT, CARGOEVT */
  CLOG2_EVT_ID = 0, CLOG2_EVT_CARGO = 8,
  /* MSGEVT: the partner's comm and rank in it */
  CLOG2_MSG_ETYPE = 0, CLOG2_MSG_ICOMM = 4, CLOG2_MSG_RANK = 8,
  CLOG2_MSG_TAG = 12, CLOG2_MSG_SIZE = 16,
  /* COMMEVT: the new comm, this process's rank in it and in the world */
  CLOG2_COMM_ETYPE = 0, CLOG2_COMM_ICOMM = 4, CLOG2_COMM_RANK = 8,
  CLOG2_COMM_WRANK = 12, CLOG2_COMM_UUID = 16,
  /* TIMESHIFT */
  CLOG2_SHIFT_VALUE = 0,

  CLOG2_COLOR_LEN = 24, CLOG2_NAME_LEN = 32, CLOG2_FORMAT_LEN = 40,
  CLOG2_CARGO_LEN = 32
};

/* UUID: i32 random, f64 creation time, char[20] processor name. */
enum { CLOG2_UUID_TIME = 4, CLOG2_UUID_HOST = 12, CLOG2_HOST_LEN = 20 };

/* Comm table entry: UUID, then i32 local_ID, i32 kind. */
enum { CLOG2_ENTRY_ID = 32, CLOG2_ENTRY_KIND = 36 };

enum
{
  CLOG2_EVT_SEND = -101, CLOG2_EVT_RECV = -102, CLOG2_EVT_CONST = -201
};

/* COMMEVT etype values. */
enum
{
  CLOG2_COMMEVT_WORLD = 0, CLOG2_COMMEVT_SELF = 1, CLOG2_COMMEVT_FREE = 10,
  CLOG2_COMMEVT_INTRA = 100, CLOG2_COMMEVT_LOCAL = 101,
  CLOG2_COMMEVT_REMOTE = 102, CLOG2_COMMEVT_INTER = 1000
};

/* Comm table kinds. */
enum
{
  CLOG2_KIND_UNKNOWN = -1, CLOG2_KIND_INTER = 0, CLOG2_KIND_INTRA = 1,
  CLOG2_KIND_LOCAL = 2, CLOG2_KIND_REMOTE = 3
};

#endif

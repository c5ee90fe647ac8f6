/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicator bookkeeping types with MPE2's names.  Kept so that code
 * written against MPE2's internal entry points (MPE_Log_commIDs_*) still
 * compiles; the core tracks communicators itself.
 */
#ifndef CLOG_COMMSET_H
#define CLOG_COMMSET_H

#include "clog_inttypes.h"
#include "clog_uuid.h"
#include "clog_const.h"

#if !defined(CLOG_NOMPI)
# include <mpi.h>
#else
# if !defined(_MPI_NULL_MPI_COMM)
#  define _MPI_NULL_MPI_COMM
typedef int MPI_Comm;
# endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CLOG_CommIDs_t_defined 1

/* Communicator kinds (MPE2 values). */
#define CLOG_COMM_KIND_UNKNOWN  -1
#define CLOG_COMM_KIND_INTER     0
#define CLOG_COMM_KIND_INTRA     1
#define CLOG_COMM_KIND_LOCAL     2
#define CLOG_COMM_KIND_REMOTE    3

/* Comm event types of COMMEVT records. */
#define CLOG_COMM_WORLD_CREATE   0
#define CLOG_COMM_SELF_CREATE    1
#define CLOG_COMM_FREE          10
#define CLOG_COMM_INTRA_CREATE 100
#define CLOG_COMM_INTRA_LOCAL  101
#define CLOG_COMM_INTRA_REMOTE 102
#define CLOG_COMM_INTER_CREATE 1000

typedef CLOG_int32_t CLOG_CommLID_t;
typedef CLOG_int32_t CLOG_CommGID_t;

typedef struct CLOG_CommIDs_t
{
  CLOG_Uuid_t     global_ID;
  CLOG_CommLID_t  local_ID;
  CLOG_int32_t    kind;
  CLOG_int32_t    world_rank;
  CLOG_int32_t    comm_rank;
  MPI_Comm        comm;
  struct CLOG_CommIDs_t *next;
} CLOG_CommIDs_t;

typedef struct
{
  CLOG_int32_t     LID_key;
  CLOG_int32_t     world_size;
  CLOG_int32_t     world_rank;
  unsigned int     max;
  unsigned int     count;
  CLOG_CommIDs_t  *table;
  CLOG_CommIDs_t  *IDs4world;
  CLOG_CommIDs_t  *IDs4self;
} CLOG_CommSet_t;

#ifdef __cplusplus
}
#endif

#endif

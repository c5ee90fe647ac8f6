/* SPDX-License-Identifier: BSD-3-Clause */
/* The scheduling and memory layers' part of the merge (mpe-resources.c).
 * Not installed. */
#ifndef MPE_RESOURCES_H
#define MPE_RESOURCES_H

#include <stddef.h>
#include <stdint.h>
#include <logfmt/logfmt.h>

/* Columns of a memory record (track kind 5, FORMAT.md). */
#define MPE_MEM_COL_CELL  0  /* LOGFMT_MEM_ID of a MEMSITE, -1: the total */
#define MPE_MEM_COL_LIVE  1  /* live bytes from this time on */
#define MPE_MEM_COL_CALLS 2  /* allocations so far */

/* Thread `thread`'s records of a track kind (LOGFMT_TRACK_SWITCH or
 * _MEMORY), times in local ns since the origin (uncorrected): malloc'd
 * into *out (NULL and 0 when none).  0, or -1 (no memory). */
int mpe__res_track (uint32_t kind, int thread, logfmt_track_rec_t **out,
                    size_t *n);

/* This rank's resource definitions, serialised (*out malloc'd): the CPU
 * topology when host_leader (one rank per host), memory sites and
 * totals.  0, or -1 (no memory). */
int mpe__res_defs (uint32_t first_stream, int host_leader, void **out,
                   size_t *len);

/* Calls cb for each definition of a serialised buffer; stops at the
 * first nonzero return.  0, cb's code, or -1 (malformed). */
typedef int (*mpe_res_cb) (void *user, const logfmt_resource_def_t *d);
int mpe__res_parse (const void *p, size_t len, mpe_res_cb cb, void *user);

#endif

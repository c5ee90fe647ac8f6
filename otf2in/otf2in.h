/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * otf2in: OTF2 archives (Score-P, TAU, our own export) into .clog.
 *
 * A small library of its own so that clogtool and mpeview can both open
 * OTF2 while logfmt stays libc + zstd: it reads an archive with the OTF2
 * library and writes an indexed .clog through the logfmt writer, location
 * by location (memory depends on the definitions and the number of
 * locations read at once, not on the number of events).  Built without
 * libotf2 it still links: otf2in_is_archive says no and the converters
 * return LOGFMT_EBADMAGIC with "built without OTF2".
 *
 * Mapping (docs/INTEROP.md, "Reading OTF2"): locations -> streams (rank
 * from the MPI location group, thread = location's index in its process,
 * host = the process's system tree node), regions -> states, Enter/Leave
 * -> BEGIN/END, MpiSend/MpiIsend and MpiRecv/MpiIrecv -> SEND/RECV with
 * the partner's world rank (matched by the writer), collectives -> the
 * MPI wrappers' cargo (communicator label, size, root, bytes sent and
 * received) on the enclosing MPI region's END, the metrics our export
 * writes for solo events and lost events -> EVENT and LOSS records, for
 * track records -> the same tracks, other metric samples -> the stream's
 * metric track (FORMAT.md section 14); our export's properties -> the
 * constants, resources and call-path tables; times through the clock
 * properties.
 */
#ifndef OTF2IN_OTF2IN_H
#define OTF2IN_OTF2IN_H

#include <logfmt/logfmt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if path is an OTF2 anchor file (by content), else 0. */
int otf2in_is_archive (const char *path);

/* What a conversion met that a .clog does not hold (counts). */
typedef struct
{
  uint64_t events;            /* records written */
  uint64_t skipped;           /* OTF2 events with no .clog equivalent */
  uint64_t collectives_outside;  /* collectives not inside an MPI region */
  uint64_t metric_values;     /* metric values not kept (several members,
                                 unknown metric) */
  uint32_t locations;         /* streams written */
  uint32_t threads;           /* readers that ran in parallel */
} otf2in_report_t;

/* Converts the archive whose anchor is in_path into a new .clog at
 * out_path.  threads: locations read in parallel (0: $OTF2IN_THREADS,
 * else as many as there are CPUs, at most 4).  creator: header text, or NULL.  progress (may be
 * NULL) gets the fraction of events read; non-zero cancels
 * (LOGFMT_ESTATE).  report may be NULL.  On failure out_path is removed
 * and err says what was wrong ("FILE: what"). */
int otf2in_convert (const char *in_path, const char *out_path,
                    const char *creator, unsigned threads,
                    logfmt_progress_cb progress, void *user,
                    otf2in_report_t *report, logfmt_error_t *err);

/* logfmt_reader_open_progress that also opens OTF2 archives, by
 * converting them to an unlinked temporary .clog ($TMPDIR or /tmp)
 * first. */
int otf2in_reader_open (const char *path, unsigned flags,
                        logfmt_progress_cb progress, void *user,
                        logfmt_reader_t **out, logfmt_error_t *err);

/* 1 if name is an MPI collective ("MPI_Allreduce", "MPI_Ibcast", ...),
 * with its OTF2_CollectiveOp and OTF2_RegionRole, else 0 (the table the
 * export writes and the import reads). */
int otf2in_collective (const char *name, uint32_t *op, uint32_t *role);

#ifdef __cplusplus
}
#endif

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Metrics: numbered cells of 64-bit values kept per thread, changed by six
 * primitives (set, add, sub, timer start/stop, and a guard predicate), and
 * recorded in the .clog as sample tracks (docs/FORMAT.md section 14).
 * `clogtool metrics` reports them per thread, process, node and job.
 *
 * Cells.  MPE_Metric_define returns a zero-based cell number; every rank
 * defines its metrics in the same order (like state ids), so a cell means
 * the same metric on every rank.  Each thread has its own value of every
 * cell (no lock, no atomic: the same cost class as MPE_Log_event); the
 * process, node and job values are aggregates made by the tools.
 *
 * Standard cells, kept by the MPI wrapper library (liblmpe) for every
 * logged MPI call, are found by name with MPE_Metric_find:
 *   "mpi.calls", "mpi.time" (ns inside MPI), "msgs.sent", "bytes.sent",
 *   "msgs.recv", "bytes.recv", "coll.calls", "coll.bytes" (bytes this
 *   process's buffers held in collectives, sent + received),
 *   "MPI_Send.calls", "MPI_Send.time" (any wrapped MPI function),
 *   and per channel (this rank -> partner world rank):
 *   "chan.msgs.sent", "chan.bytes.sent", "chan.msgs.recv",
 *   "chan.bytes.recv" (read them with MPE_Metric_read_channel).
 * They can be read and guarded like user cells.
 *
 * Samples.  A cell's value reaches the log as a sample (time, value) when
 * it changed since its last sample, at these points only, so a hot
 * counter costs no more than its addition:
 *   - every MPE_METRIC_PERIOD (environment; "10ms" by default, "0" turns
 *     periodic samples off; units ns, us, ms, s), checked whenever the
 *     thread logs a record;
 *   - whenever the thread logs an event chosen with MPE_Metric_sample_on
 *     (e.g. the end of a state: the values at each state boundary);
 *   - at MPE_Metric_sample, and when the log is finished.
 */
#ifndef MPE_METRICS_H
#define MPE_METRICS_H

#include "mpe_log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Upper bound of user cells (MPE_Metric_define). */
#define MPE_METRIC_MAX_CELLS 256

/* Defines a metric; *cell receives its number (0, 1, ...).  unit: "ns"
 * makes a timer cell (MPE_Metric_timer_*), anything else is free text
 * ("bytes", "1" for a count).  Returns MPE_LOG_OK, MPE_LOG_NO_MEMORY when
 * MPE_METRIC_MAX_CELLS are defined, MPE_LOG_PACK_FAIL for a NULL
 * argument. */
MPE_API int MPE_Metric_define (const char *name, const char *unit,
                               int *cell);

/* A cell ever changed by MPE_Metric_set is recorded as a level (a
 * resource in use: tools report its value at the end of a window); the
 * others as counters or timers (tools report their increase). */
/* The primitives act on the calling thread's value of the cell and
 * return MPE_LOG_OK, or MPE_LOG_PACK_FAIL for a cell that does not
 * exist.  Under a guard (MPE_Metric_guard) they do nothing while the
 * thread's value of the flag cell is zero. */
MPE_API int MPE_Metric_set (int cell, long long v);
MPE_API int MPE_Metric_add (int cell, long long v);
MPE_API int MPE_Metric_sub (int cell, long long v);
/* A timer cell accumulates the nanoseconds between start and stop.
 * Under a guard the flag is looked at by start only: a timer started
 * while the flag was raised counts up to its stop. */
MPE_API int MPE_Metric_timer_start (int cell);
MPE_API int MPE_Metric_timer_stop (int cell);
/* Predicate: primitives on `cell` take effect only while the thread's
 * value of `flag_cell` is non-zero (flag_cell -1 removes the guard).
 * Applies to every thread.  The worked example:
 *     MPE_Metric_define ("in_foo", "1", &flag);
 *     MPE_Metric_define ("foo_send_time", "ns", &t);
 *     MPE_Metric_guard (t, flag);
 *     foo:   MPE_Metric_add (flag, 1); ... MPE_Metric_sub (flag, 1);
 *     send:  MPE_Metric_timer_start (t); MPI_Send (...);
 *            MPE_Metric_timer_stop (t);
 * gives in t the time of the sends made inside foo only. */
MPE_API int MPE_Metric_guard (int cell, int flag_cell);

/* The calling thread's value of a cell (0 for a cell that does not
 * exist). */
MPE_API long long MPE_Metric_read (int cell);
/* The calling thread's value of a channel cell towards partner (a world
 * rank). */
MPE_API long long MPE_Metric_read_channel (int cell, int partner);
/* A cell by name (user or standard); MPE_LOG_OK, or MPE_LOG_PACK_FAIL
 * when there is none. */
MPE_API int MPE_Metric_find (const char *name, int *cell);

/* Samples the calling thread's changed cells now. */
MPE_API int MPE_Metric_sample (void);
/* OS and hardware counters (MPE_COUNTERS=task-clock,context-switches,
 * cpu-migrations,page-faults,major-faults,minor-faults, PAPI event names,
 * or a counter plugin's): each logged thread's own counts, recorded as
 * metrics named after the events at every timer sample (MPE_SAMPLE_HZ)
 * and at the points the program chooses with MPE_Counters_read (about a
 * microsecond each: a system call), never per event.  Returns
 * MPE_LOG_OK (also when no counters are asked for), or
 * MPE_LOG_NOT_INITIALIZED outside MPE_Init_log .. MPE_Finish_log. */
MPE_API int MPE_Counters_read (void);

/* Samples the logging thread's changed cells whenever event_id is logged
 * (by MPE_Log_event or the MPI wrappers), right after it.  Up to 64
 * events. */
MPE_API int MPE_Metric_sample_on (int event_id);

#ifdef __cplusplus
}
#endif

#endif /* MPE_METRICS_H */
